/*
 * session.h — the contract between the runner and the tracer.
 *
 * The runner creates one trace session per traced test before forking it
 * (a memfd-backed arena mapped shared), the test process activates it right
 * after the fork, and when the test has ended the runner freezes it into a
 * tattle_trace (the model reporters read). The tracer never knows about
 * JSON or reporters; the runner never looks inside the arena.
 */
#ifndef TATTLE_TRACER_SESSION_H
#define TATTLE_TRACER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tattle/reporter.h>

struct tattle__trace_config {
    uint32_t cap;           /* events kept (default 50) */
    uint32_t budget;        /* events recorded at most (default 5000) */
    int level;              /* detail threshold (default 100) */
    uint32_t payload_bytes; /* bytes of each message rendered (default 64) */
};

struct tattle__trace_session;

/** Runner, before fork: creates the arena. Returns 0 or a negative errno. */
int tattle__trace_session_create(struct tattle__trace_session **out,
                                 const struct tattle__trace_config *config);

/** Test process, right after fork: records from now on go to the arena. */
void tattle__trace_session_activate(struct tattle__trace_session *session);

/** Test process, when the test body, teardown and on-exit callbacks are
 * done (also from the crash handler, async-signal-safe): runs the
 * tattle_mailbox_watch callbacks into the arena, best effort. */
void tattle__trace_session_child_finish(bool from_signal_handler);

/** Runner, on timeout while the test's processes are still alive: takes
 * the mailbox snapshot now (marked approx). */
void tattle__trace_session_snapshot_live(struct tattle__trace_session *session,
                                         int test_pid);

/** Runner, after the test's processes are gone (or killed): deactivates
 * recording, freezes the rings, snapshots the mailboxes (unless already
 * taken live) and builds the trace. The caller owns *out and frees it with
 * tattle__trace_free(). Returns 0 or a negative errno. */
int tattle__trace_session_freeze(struct tattle__trace_session *session,
                                 struct tattle_trace **out);

/** Runner: unmaps and closes the arena. */
void tattle__trace_session_destroy(struct tattle__trace_session *session);

void tattle__trace_free(struct tattle_trace *trace);

#endif /* TATTLE_TRACER_SESSION_H */
