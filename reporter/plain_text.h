/*
 * plain_text.h — a result's failures, stack and trace as the plain lines a
 * person reads, shared by the formats that carry text (the JUnit report's
 * failure and system-out texts, TAP's diagnostics, CTRF's trace, GitHub's
 * annotations).
 *
 * The lines are the console's (console.c), without colours or padding
 * escapes: they hold the raw bytes of the result (which may be anything a
 * test printed), and each format escapes them on the way out through its
 * own writer (XML, YAML, JSON, workflow command).
 */
#ifndef TATTLE_REPORTER_PLAIN_TEXT_H
#define TATTLE_REPORTER_PLAIN_TEXT_H

#include <stddef.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

/** Appends what a person needs to know of `failure`, one fact a line: its
 * message, then for an assertion `expression: MACRO(expr)`, `left:` and
 * `right:`, for a crash `signal:`, for an exit `exit code:`, for a timeout
 * `timeout:`, the place `at FILE:LINE`, the stack frames and a timeout's
 * threads with theirs. Each line
 * ends with a newline. */
void tattle__text_failure(struct tattle__buffer *out,
                          const struct tattle_failure *failure);

/** Appends the stack frames of `failure`, one `#N function at file:line`
 * (or `(0xADDRESS)`) a line, each after `indent`. */
void tattle__text_frames(struct tattle__buffer *out,
                         const struct tattle_failure *failure,
                         const char *indent);

/** Appends the threads of a timeout (`failure->stacks`): per thread a
 * line `thread TID of PID (ACTOR, state S):` after `indent`, then its
 * frames as tattle__text_frames writes them, indented once more. */
void tattle__text_thread_stacks(struct tattle__buffer *out,
                                const struct tattle_failure *failure,
                                const char *indent);

/** Appends the trace as text: a line of counts, one line per recorded
 * message in sequence (time, from -> to, kind, label, payload), each
 * mailbox with its pending messages, and the actors. */
void tattle__text_trace(struct tattle__buffer *out,
                        const struct tattle_trace *trace);

/** Where the last `max_lines` lines of `text[0..length)`, at most
 * `max_bytes` of them, start (a trailing newline does not count as a
 * line); never inside a UTF-8 character. */
size_t tattle__text_tail_start(const char *text, size_t length,
                               size_t max_lines, size_t max_bytes);

/** Where a failure happened: its own place, else its innermost frame with
 * a source file, else the test's declaration. `*file` is NULL when none
 * is known. */
void tattle__text_location(const struct tattle_result *result,
                           const struct tattle_failure *failure,
                           const char **file, int *line);

/** Appends the decimal digits of `value` (no printf: the big reports
 * write millions of numbers). */
void tattle__text_uint(struct tattle__buffer *out, unsigned long long value);

#endif /* TATTLE_REPORTER_PLAIN_TEXT_H */
