/*
 * chrome_trace.h — the "chrome-trace" reporter (`--chrome-trace FILE`):
 * the traces of a run as a timeline in the Trace Event Format, the JSON
 * that chrome://tracing, Perfetto and speedscope open (SPEC section 5b).
 *
 *   {"displayTimeUnit":"ms","traceEvents":[EVENT,...]}
 *
 * A test is a "process" (pid: its place in the file, from 1; named by
 * its id with a process_name metadata event) and each of its actors a
 * "thread" (tid from 1 in the order they first appear; a thread_name
 * event gives the actor's name). Every test with a trace or a failure is
 * written; timestamps are microseconds since the test's start.
 *
 *   calls        "B" and "E" events per thread, both named by the function,
 *                args {file, line}; a call still open at the test's end ends
 *                there, an exit whose entry was not kept is left out, so
 *                every B has its E on its thread; a time earlier than the
 *                thread's previous B or E (a clock that went back) is
 *                written as that one, so an E never precedes its B
 *   messages     a zero-length "X" slice "send LABEL" on the sender and
 *                "recv LABEL" on the receiver, joined by a flow: "s" and
 *                "f" (bp "e") events with the same id; a send never
 *                received or a receive whose send was not kept is a slice
 *                alone
 *   events       spawns, exits and tattle_trace_event() marks are
 *                thread-scoped instant events ("i", s "t")
 *   failures     process-scoped instant events "failure: KIND" at the
 *                test's end, args {message, file, line}
 *   mailboxes    process-scoped instant events "mailbox NAME" at the
 *                test's end, args {owner, pending, messages}, for those
 *                still holding messages
 *
 * The file is written beside its destination and gets its name at the
 * end (report_output.h); each event is printed as its test finishes, and
 * the work is linear in the number of calls and events.
 */
#ifndef TATTLE_REPORTER_CHROME_TRACE_H
#define TATTLE_REPORTER_CHROME_TRACE_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_chrome_trace;

#endif /* TATTLE_REPORTER_CHROME_TRACE_H */
