/*
 * sequence_diagram.h — a test's trace read as a sequence diagram, the one
 * model behind every picture of it: the text chart and Mermaid diagram of
 * `tattle show` and the SVG of the HTML report.
 *
 * A participant per actor (and per mailbox or endpoint a message waits
 * in), then one row per thing drawn, in the trace's order: a message (its
 * send joined to its receive: one arrow; a captured message read in parts
 * has an arrow per receive, and a receive that took several sends' bytes
 * an arrow per send), a send never received (to the
 * mailbox, pending), a receive whose send fell out of the recorder's
 * window (from the mailbox), a spawn, an event or an exit on one actor,
 * and at the end a row per actor that was not alive when the test ended.
 */
#ifndef TATTLE_REPORTER_SEQUENCE_DIAGRAM_H
#define TATTLE_REPORTER_SEQUENCE_DIAGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "base/buffer.h"
#include "base/name_index.h"

enum tattle__sequence_row_kind {
    TATTLE__ROW_MESSAGE,
    TATTLE__ROW_PENDING_SEND,
    TATTLE__ROW_RECV_ONLY,
    TATTLE__ROW_SPAWN,
    TATTLE__ROW_EVENT,
    TATTLE__ROW_EXIT,
    TATTLE__ROW_GONE
};

struct tattle__sequence_row {
    enum tattle__sequence_row_kind kind;
    size_t from, to; /* participants; equal for a mark on one actor */
    /* The send (for a MESSAGE of more bytes of a send another receive
     * took first, the receive); NULL for GONE. */
    const struct tattle_trace_event *event;
    uint64_t t_us, t_end_us; /* sent, received */
};

struct tattle__sequence {
    struct tattle__name_index participants; /* names[i] */
    bool *actor; /* participant i is an actor (not a mailbox or endpoint) */
    size_t actor_capacity;
    struct tattle__sequence_row *rows;
    size_t row_count, row_capacity;
    size_t matched; /* rows of kind MESSAGE */
};

/** Reads `trace` into `sequence` (overwritten; release it afterwards).
 * The strings of the rows' events stay `trace`'s. */
void tattle__sequence_build(struct tattle__sequence *sequence,
                            const struct tattle_trace *trace);

/** Adds a participant for every mailbox of `trace` that still holds
 * messages and every captured endpoint with bytes unread, so that the
 * pictures can show them at its lifeline. */
void tattle__sequence_add_mailboxes(struct tattle__sequence *sequence,
                                    const struct tattle_trace *trace);

/** The number of participant `name` (NULL reads "?"), added as a mailbox
 * or endpoint when it is new. */
size_t tattle__sequence_participant(struct tattle__sequence *sequence,
                                    const char *name);

/** Appends what an endpoint held unread: "9 bytes unread", then " in N
 * messages" for datagrams, queues and eventfds, ", incomplete" when the
 * kept sends do not account for all of it, then "; " and the kernel's
 * summary (tattle__sequence_kernel_summary) when it was peeked. */
void tattle__sequence_endpoint_summary(
    struct tattle__buffer *out, const struct tattle_trace_endpoint *endpoint);

/** Appends what the live peek found the kernel still held in an endpoint:
 * "the kernel held 9 bytes" (" in N messages" for eventfds; "N messages"
 * alone for a queue), " at the timeout" when the runner peeked, ": " and
 * the peeked bytes when some were read; nothing when no process peeked. */
void tattle__sequence_kernel_summary(
    struct tattle__buffer *out, const struct tattle_trace_endpoint *endpoint);

void tattle__sequence_release(struct tattle__sequence *sequence);

/** The failure that ended the test for the pictures: its crash or
 * timeout, or NULL. */
const struct tattle_failure *
tattle__sequence_ending(const struct tattle_result *result);

/** The participant a crash or timeout is drawn on: the first actor not
 * alive when the test ended, else the one that did the last thing
 * recorded, else participant 0. */
size_t tattle__sequence_dying(const struct tattle__sequence *sequence,
                              const struct tattle_trace *trace);

/** Appends "crash: SIGSEGV" or "timeout after 200 ms". */
void tattle__sequence_describe_ending(struct tattle__buffer *out,
                                      const struct tattle_failure *failure);

#endif /* TATTLE_REPORTER_SEQUENCE_DIAGRAM_H */
