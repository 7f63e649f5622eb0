/*
 * sequence_diagram.c — a trace read as a sequence diagram (see
 * sequence_diagram.h).
 *
 * A send is joined to its receive and drawn as one arrow from the sender
 * to the receiver. A captured kernel message's receive names its send by
 * `match` (the seq of the send whose bytes it got first): the first such
 * receive is joined to the send, and a later one that got more of the
 * same send's bytes (a write read in parts) is drawn as an arrow of its
 * own from the sender. A send no receive names, because a receive that
 * got the bytes of several sends names only the first, names that
 * receive by its own `match` and is joined to it: one arrow per send
 * ends there. A receive without `match` (a mailbox message) is
 * joined by content: the first later receive of the same message (same
 * mailbox, label and payload, looked for within JOIN_WINDOW events).
 * Participants are numbered through a name index, so a trace naming many
 * actors costs linear time.
 */
#include "reporter/sequence_diagram.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

enum { JOIN_WINDOW = 4096 };

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

size_t tattle__sequence_participant(struct tattle__sequence *sequence,
                                    const char *name)
{
    bool added;
    size_t at = tattle__name_index_add(&sequence->participants,
                                       name ? name : "?", &added);
    if (added) {
        if (at >= sequence->actor_capacity) {
            sequence->actor_capacity =
                sequence->actor_capacity ? sequence->actor_capacity * 2 : 8;
            sequence->actor =
                tattle__realloc(sequence->actor, sequence->actor_capacity *
                                                     sizeof *sequence->actor);
        }
        sequence->actor[at] = false;
    }
    return at;
}

static void add_row(struct tattle__sequence *sequence,
                    struct tattle__sequence_row row)
{
    if (sequence->row_count == sequence->row_capacity) {
        sequence->row_capacity =
            sequence->row_capacity ? sequence->row_capacity * 2 : 16;
        sequence->rows = tattle__realloc(
            sequence->rows, sequence->row_capacity * sizeof *sequence->rows);
    }
    sequence->rows[sequence->row_count++] = row;
    if (row.kind == TATTLE__ROW_MESSAGE)
        sequence->matched++;
}

/* The receive without `match` that takes the message sent by events[i]
 * by content, or n. */
static size_t matching_receive(const struct tattle_trace_event *events,
                               size_t n, size_t i, const bool *joined)
{
    const struct tattle_trace_event *send = &events[i];
    for (size_t j = i + 1; j < n && j < i + JOIN_WINDOW; j++)
        if (events[j].kind == TATTLE_TRACE_RECV && !joined[j] &&
            events[j].match == 0 && same_text(events[j].from, send->to) &&
            same_text(events[j].label, send->label) &&
            same_text(events[j].msg, send->msg))
            return j;
    return n;
}

struct seq_at {
    uint64_t seq;
    size_t at;
};

static int compare_seqs(const void *left, const void *right)
{
    const struct seq_at *a = left, *b = right;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The index of the event of `kind` whose seq is `seq`, or n. */
static size_t event_of_seq(const struct tattle_trace_event *events, size_t n,
                           const struct seq_at *by_seq, uint64_t seq,
                           enum tattle_trace_event_kind kind)
{
    struct seq_at key = {seq, 0};
    const struct seq_at *found =
        bsearch(&key, by_seq, n, sizeof *by_seq, compare_seqs);
    return found != NULL && events[found->at].kind == kind ? found->at : n;
}

/* Joins sends and receives by `match`: receive_of[send] is the receive a
 * send's arrow ends at (the first receive that names the send, else the
 * receive the send names), ends_arrow[receive] whether some send's arrow
 * ends there, and sender_of[receive] the send each receive names (n when
 * none is in the trace: sent before the trace begins). */
static void join_by_match(const struct tattle_trace_event *events, size_t n,
                          size_t *receive_of, size_t *sender_of,
                          bool *ends_arrow)
{
    struct seq_at *by_seq = tattle__calloc(n ? n : 1, sizeof *by_seq);
    for (size_t i = 0; i < n; i++) {
        receive_of[i] = sender_of[i] = n;
        by_seq[i] = (struct seq_at){events[i].seq, i};
    }
    qsort(by_seq, n, sizeof *by_seq, compare_seqs);
    for (size_t j = 0; j < n; j++) {
        if (events[j].kind != TATTLE_TRACE_RECV || events[j].match == 0)
            continue;
        size_t send =
            event_of_seq(events, n, by_seq, events[j].match, TATTLE_TRACE_SEND);
        if (send == n)
            continue;
        sender_of[j] = send;
        if (receive_of[send] == n)
            receive_of[send] = j;
    }
    for (size_t i = 0; i < n; i++) {
        if (events[i].kind != TATTLE_TRACE_SEND)
            continue;
        if (receive_of[i] == n && events[i].match != 0)
            receive_of[i] = event_of_seq(events, n, by_seq, events[i].match,
                                         TATTLE_TRACE_RECV);
        if (receive_of[i] < n)
            ends_arrow[receive_of[i]] = true;
    }
    free(by_seq);
}

void tattle__sequence_build(struct tattle__sequence *sequence,
                            const struct tattle_trace *trace)
{
    *sequence = (struct tattle__sequence){0};
    for (size_t i = 0; i < trace->actor_count; i++) {
        size_t at =
            tattle__sequence_participant(sequence, trace->actors[i].name);
        sequence->actor[at] = true;
    }
    const struct tattle_trace_event *events = trace->events;
    size_t n = trace->event_count;
    bool *joined = tattle__calloc(n ? n : 1, sizeof *joined);
    size_t *receive_of = tattle__calloc(n ? n : 1, sizeof *receive_of);
    size_t *sender_of = tattle__calloc(n ? n : 1, sizeof *sender_of);
    bool *ends_arrow = tattle__calloc(n ? n : 1, sizeof *ends_arrow);
    join_by_match(events, n, receive_of, sender_of, ends_arrow);
    for (size_t i = 0; i < n; i++) {
        const struct tattle_trace_event *e = &events[i];
        struct tattle__sequence_row row = {
            .event = e, .t_us = e->t_us, .t_end_us = e->t_us};
        switch (e->kind) {
        case TATTLE_TRACE_SEND: {
            size_t match = receive_of[i] < n
                               ? receive_of[i]
                               : matching_receive(events, n, i, joined);
            row.from = tattle__sequence_participant(sequence, e->from);
            if (match < n) {
                joined[match] = true;
                row.kind = TATTLE__ROW_MESSAGE;
                row.to =
                    tattle__sequence_participant(sequence, events[match].to);
                row.t_end_us = events[match].t_us;
            } else {
                row.kind = TATTLE__ROW_PENDING_SEND;
                row.to = tattle__sequence_participant(sequence, e->to);
            }
            break;
        }
        case TATTLE_TRACE_RECV:
            if (joined[i] || ends_arrow[i])
                continue; /* drawn with its send */
            if (sender_of[i] < n) {
                /* More bytes of a send another receive took first. */
                row.kind = TATTLE__ROW_MESSAGE;
                row.from = tattle__sequence_participant(
                    sequence, events[sender_of[i]].from);
                row.to = tattle__sequence_participant(sequence, e->to);
                break;
            }
            row.kind = TATTLE__ROW_RECV_ONLY;
            row.from = tattle__sequence_participant(sequence, e->from);
            row.to = tattle__sequence_participant(sequence, e->to);
            break;
        case TATTLE_TRACE_SPAWN:
            row.kind = TATTLE__ROW_SPAWN;
            row.from = tattle__sequence_participant(sequence,
                                                    e->from ? e->from : e->to);
            row.to =
                tattle__sequence_participant(sequence, e->to ? e->to : e->from);
            break;
        case TATTLE_TRACE_EVENT:
        case TATTLE_TRACE_EXIT:
        default: /* a kind added later is drawn as an event */
            row.kind = e->kind == TATTLE_TRACE_EXIT ? TATTLE__ROW_EXIT
                                                    : TATTLE__ROW_EVENT;
            row.from = row.to = tattle__sequence_participant(
                sequence, e->from ? e->from : e->to);
            break;
        }
        add_row(sequence, row);
    }
    free(joined);
    free(receive_of);
    free(sender_of);
    free(ends_arrow);
    for (size_t i = 0; i < trace->actor_count; i++)
        if (!trace->actors[i].alive_at_exit) {
            size_t at =
                tattle__sequence_participant(sequence, trace->actors[i].name);
            add_row(sequence,
                    (struct tattle__sequence_row){
                        .kind = TATTLE__ROW_GONE, .from = at, .to = at});
        }
}

void tattle__sequence_add_mailboxes(struct tattle__sequence *sequence,
                                    const struct tattle_trace *trace)
{
    for (size_t i = 0; i < trace->mailbox_count; i++)
        if (trace->mailboxes[i].pending || trace->mailboxes[i].message_count)
            tattle__sequence_participant(sequence, trace->mailboxes[i].name);
    for (size_t i = 0; i < trace->endpoint_count; i++)
        tattle__sequence_participant(sequence, trace->endpoints[i].name
                                                   ? trace->endpoints[i].name
                                                   : "?");
}

void tattle__sequence_endpoint_summary(
    struct tattle__buffer *out, const struct tattle_trace_endpoint *endpoint)
{
    tattle__buffer_printf(out, "%" PRIu64 " bytes unread",
                          endpoint->pending_bytes);
    if (endpoint->pending_messages)
        tattle__buffer_printf(out, " in %" PRIu64 " messages",
                              endpoint->pending_messages);
    if (!endpoint->complete)
        tattle__buffer_append_string(out, ", incomplete");
    if (endpoint->kernel_peeked) {
        tattle__buffer_append_string(out, "; ");
        tattle__sequence_kernel_summary(out, endpoint);
    }
}

void tattle__sequence_kernel_summary(
    struct tattle__buffer *out, const struct tattle_trace_endpoint *endpoint)
{
    if (!endpoint->kernel_peeked)
        return;
    bool queue = endpoint->kind && strcmp(endpoint->kind, "mq") == 0;
    if (queue)
        tattle__buffer_printf(out, "the kernel held %" PRIu64 " messages",
                              endpoint->kernel_pending_messages);
    else
        tattle__buffer_printf(out, "the kernel held %" PRIu64 " bytes",
                              endpoint->kernel_pending_bytes);
    if (!queue && endpoint->kernel_pending_messages)
        tattle__buffer_printf(out, " in %" PRIu64 " messages",
                              endpoint->kernel_pending_messages);
    if (endpoint->kernel_peeked_by_runner)
        tattle__buffer_append_string(out, " at the timeout");
    if (endpoint->kernel_msg && endpoint->kernel_msg[0]) {
        tattle__buffer_append_string(out, ": ");
        tattle__buffer_append_string(out, endpoint->kernel_msg);
    }
}

void tattle__sequence_release(struct tattle__sequence *sequence)
{
    tattle__name_index_release(&sequence->participants);
    free(sequence->actor);
    free(sequence->rows);
    *sequence = (struct tattle__sequence){0};
}

const struct tattle_failure *
tattle__sequence_ending(const struct tattle_result *result)
{
    for (size_t i = 0; i < result->failure_count; i++)
        if (result->failures[i].kind == TATTLE_FAILURE_CRASH ||
            result->failures[i].kind == TATTLE_FAILURE_TIMEOUT)
            return &result->failures[i];
    return NULL;
}

size_t tattle__sequence_dying(const struct tattle__sequence *sequence,
                              const struct tattle_trace *trace)
{
    for (size_t i = 0; i < trace->actor_count; i++)
        if (!trace->actors[i].alive_at_exit) {
            const char *name = trace->actors[i].name;
            size_t at = tattle__name_index_find(&sequence->participants,
                                                name ? name : "?");
            if (at < sequence->participants.count)
                return at;
        }
    for (size_t r = sequence->row_count; r > 0; r--)
        if (sequence->rows[r - 1].event)
            return sequence->rows[r - 1].from;
    return 0;
}

void tattle__sequence_describe_ending(struct tattle__buffer *out,
                                      const struct tattle_failure *failure)
{
    if (failure->kind == TATTLE_FAILURE_CRASH) {
        char scratch[16];
        tattle__buffer_printf(out, "crash: %s",
                              tattle__signal_name(failure->signal, scratch));
    } else
        tattle__buffer_printf(out, "timeout after %ld ms", failure->timeout_ms);
}
