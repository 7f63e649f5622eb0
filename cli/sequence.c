/*
 * sequence.c — the trace as a sequence diagram (see sequence.h).
 *
 * The diagram's model (participants, rows, the joining of sends to
 * receives) is reporter/sequence_diagram.c's, shared with the HTML
 * report. A send joined to its receive is one arrow; a send never received is
 * drawn to its mailbox and marked pending; a receive whose send fell out of the
 * recorder's window is drawn from the mailbox. The text chart gives each
 * participant a column with a lifeline and writes each row's details at the
 * right; the Mermaid form names participants p0, p1, ... and carries every test
 * string through entity codes (#35; for '#'), the escape Mermaid's sequence
 * diagrams read.
 */
#include "cli/sequence.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "base/utf8.h"
#include "cli/cli.h"
#include "reporter/sequence_diagram.h"

enum {
    TIME_WIDTH = 12,
    MIN_COLUMN = 10,
    MAX_COLUMN = 22,
    DETAIL_CHARS = 80,
    PENDING_SHOWN = 8,
    NAME_CHARS = 40
};

/* The text chart draws at most MAX_LANES lifelines: the first
 * MAX_LANES - 1 participants have one each and the rest share an "others"
 * lane, their names written in the row's details. Every row is then at
 * most MAX_LANES * MAX_COLUMN cells wide, so the chart grows linearly
 * with the trace whatever number of actors it names. */
enum { MAX_LANES = 16 };

/* ---- Text -----------------------------------------------------------------
 */

/* A line of cells, one UTF-8 character each. */
struct cells {
    char (*cell)[8];
    size_t width;
};

static void cells_reset(struct cells *c, size_t width)
{
    c->cell = tattle__realloc(c->cell, (width ? width : 1) * sizeof *c->cell);
    c->width = width;
    for (size_t i = 0; i < width; i++)
        strcpy(c->cell[i], " ");
}

static size_t text_width(const char *text, size_t max)
{
    struct tattle__buffer shown = {0};
    tattle__cli_append_printable(&shown, text, strlen(text), false, max);
    size_t width = 0;
    for (size_t i = 0; i < shown.length; i++)
        width += ((unsigned char)shown.data[i] & 0xc0) != 0x80;
    tattle__buffer_release(&shown);
    return width;
}

/* Writes printable `text` from column `at`, at most `room` characters. */
static void cells_put(struct cells *c, size_t at, const char *text, size_t room)
{
    struct tattle__buffer shown = {0};
    size_t width = text_width(text, 0);
    tattle__cli_append_printable(&shown, text, strlen(text), false,
                                 width <= room ? 0
                                 : room > 3    ? room - 3
                                               : room);
    size_t length = shown.length;
    for (size_t i = 0; i < length && at < c->width && room;) {
        size_t n = tattle__utf8_sequence_length(shown.data + i, length - i);
        if (n == 0)
            n = 1;
        memcpy(c->cell[at], shown.data + i, n);
        c->cell[at][n] = '\0';
        i += n;
        at++;
        room--;
    }
    tattle__buffer_release(&shown);
}

static void cells_flush(struct tattle__buffer *out, const struct cells *c)
{
    size_t end = c->width;
    while (end && strcmp(c->cell[end - 1], " ") == 0)
        end--;
    for (size_t i = 0; i < end; i++)
        tattle__buffer_append_string(out, c->cell[i]);
}

static void append_detail(struct tattle__buffer *out,
                          const struct tattle__sequence_row *row)
{
    const struct tattle_trace_event *e = row->event;
    struct tattle__buffer text = {0};
    switch (row->kind) {
    case TATTLE__ROW_MESSAGE:
    case TATTLE__ROW_PENDING_SEND:
    case TATTLE__ROW_RECV_ONLY:
    case TATTLE__ROW_EVENT:
        if (e->label)
            tattle__buffer_printf(&text, "%s", e->label);
        if (e->msg)
            tattle__buffer_printf(&text, "%s%s", e->label ? ": " : "", e->msg);
        break;
    case TATTLE__ROW_SPAWN:
        tattle__buffer_printf(&text, "spawn %s", e->to ? e->to : "");
        break;
    case TATTLE__ROW_EXIT:
        tattle__buffer_append_string(&text, "exit");
        break;
    case TATTLE__ROW_GONE:
        tattle__buffer_append_string(&text, "not alive when the test ended");
        break;
    }
    tattle__cli_append_printable(out, text.data ? text.data : "", text.length,
                                 false, DETAIL_CHARS);
    if (row->kind == TATTLE__ROW_MESSAGE && row->t_end_us >= row->t_us &&
        row->t_end_us != row->t_us)
        tattle__buffer_printf(out, "  (received +%" PRIu64 " us)",
                              row->t_end_us - row->t_us);
    else if (row->kind == TATTLE__ROW_PENDING_SEND)
        tattle__buffer_append_string(out, "  (never received)");
    else if (row->kind == TATTLE__ROW_RECV_ONLY)
        tattle__buffer_append_string(
            out, "  (received; sent before the trace begins)");
    tattle__buffer_release(&text);
}

/* The lane of participant `index` when `lanes` lanes are drawn. */
static size_t lane_of(size_t index, size_t lanes)
{
    return index < lanes ? index : lanes - 1;
}

/* Names a participant folded into the "others" lane, before the details. */
static void append_folded(struct tattle__buffer *out,
                          const struct tattle__sequence *d, size_t index,
                          size_t lanes)
{
    if (index + 1 < lanes || d->participants.count <= MAX_LANES)
        return;
    tattle__cli_append_printable(out, d->participants.names[index],
                                 strlen(d->participants.names[index]), false,
                                 NAME_CHARS);
}

static void append_folded_ends(struct tattle__buffer *out,
                               const struct tattle__sequence *d,
                               const struct tattle__sequence_row *row,
                               size_t lanes)
{
    bool from = d->participants.count > MAX_LANES && row->from + 1 >= lanes;
    bool to = d->participants.count > MAX_LANES && row->to + 1 >= lanes &&
              row->to != row->from;
    if (!from && !to)
        return;
    tattle__buffer_append_string(out, "[");
    if (from)
        append_folded(out, d, row->from, lanes);
    if (to) {
        tattle__buffer_append_string(out, from ? " -> " : "-> ");
        append_folded(out, d, row->to, lanes);
    }
    tattle__buffer_append_string(out, "] ");
}

/* Moves what `out` holds to `sink` once it is large (NULL: keep it all). */
static void spill(struct tattle__buffer *out, FILE *sink)
{
    if (sink && out->length >= 65536) {
        fwrite(out->data, 1, out->length, sink);
        out->length = 0;
    }
}

void tattle__sequence_text(struct tattle__buffer *out,
                           const struct tattle_result *result,
                           const char *indent, FILE *sink)
{
    const struct tattle_trace *trace = result->trace;
    if (!trace)
        return;
    tattle__buffer_printf(
        out,
        "%strace: %" PRIu64 " events recorded, %" PRIu64
        " dropped (cap %" PRIu64 ", budget %" PRIu64 ")%s\n",
        indent, trace->recorded, trace->dropped, trace->cap, trace->budget,
        trace->overflow ? ", overflowed: events were lost" : "");
    struct tattle__sequence d;
    tattle__sequence_build(&d, trace);
    size_t column = MIN_COLUMN;
    for (size_t i = 0; i < d.participants.count; i++) {
        size_t w = text_width(d.participants.names[i], MAX_COLUMN) + 2;
        if (w > column)
            column = w > MAX_COLUMN ? MAX_COLUMN : w;
    }
    struct cells cells = {0};
    size_t lane_count =
        d.participants.count > MAX_LANES ? MAX_LANES : d.participants.count;
    size_t lanes = lane_count * column;
    if (d.participants.count > MAX_LANES)
        tattle__buffer_printf(
            out,
            "%s%zu participants: the first %d have a lane each, the other "
            "%zu share the lane \"others\" and are named in the details\n",
            indent, d.participants.count, MAX_LANES - 1,
            d.participants.count - (MAX_LANES - 1));

    /* The participants' names over their lifelines. */
    cells_reset(&cells, lanes);
    for (size_t i = 0; i < lane_count; i++) {
        const char *name =
            d.participants.count > MAX_LANES && i + 1 == lane_count
                ? "others"
                : d.participants.names[i];
        size_t width = text_width(name, column - 2);
        size_t center = i * column + column / 2;
        size_t at = center >= width / 2 ? center - width / 2 : 0;
        cells_put(&cells, at, name, column - 1);
    }
    tattle__buffer_printf(out, "%s%*s", indent, TIME_WIDTH, "");
    cells_flush(out, &cells);
    tattle__buffer_append_string(out, "\n");

    for (size_t r = 0; r < d.row_count; r++) {
        const struct tattle__sequence_row *row = &d.rows[r];
        cells_reset(&cells, lanes);
        for (size_t i = 0; i < lane_count; i++)
            strcpy(cells.cell[i * column + column / 2], "|");
        size_t a = lane_of(row->from, lane_count) * column + column / 2,
               b = lane_of(row->to, lane_count) * column + column / 2;
        if (a != b) {
            size_t lo = a < b ? a : b, hi = a < b ? b : a;
            for (size_t i = lo + 1; i < hi; i++)
                strcpy(cells.cell[i], "-");
            strcpy(cells.cell[a < b ? hi - 1 : lo + 1], a < b ? ">" : "<");
            if (row->kind == TATTLE__ROW_PENDING_SEND)
                strcpy(cells.cell[a < b ? hi - 1 : lo + 1], "?");
            const char *label =
                row->kind == TATTLE__ROW_SPAWN ? "spawn" : row->event->label;
            if (label && hi - lo > 6) {
                size_t room = hi - lo - 5;
                size_t width = text_width(label, room);
                cells_put(&cells, lo + 1 + (hi - lo - 1 - width) / 2, label,
                          room);
            }
        } else {
            const char *mark = row->kind == TATTLE__ROW_EXIT    ? "X"
                               : row->kind == TATTLE__ROW_GONE  ? "X"
                               : row->kind == TATTLE__ROW_EVENT ? "*"
                                                                : "o";
            strcpy(cells.cell[a], mark);
        }
        if (row->kind == TATTLE__ROW_GONE)
            tattle__buffer_printf(out, "%s%*s", indent, TIME_WIDTH, "end ");
        else
            tattle__buffer_printf(out, "%s%9.3fms ", indent,
                                  (double)row->t_us / 1000.0);
        cells_flush(out, &cells);
        tattle__buffer_append_string(out, "   ");
        append_folded_ends(out, &d, row, lane_count);
        append_detail(out, row);
        tattle__buffer_append_string(out, "\n");
        spill(out, sink);
    }
    const struct tattle_failure *end = tattle__sequence_ending(result);
    if (end) {
        tattle__buffer_printf(out, "%s%*s", indent, TIME_WIDTH, "end ");
        tattle__sequence_describe_ending(out, end);
        tattle__buffer_append_string(out, "\n");
    }
    free(cells.cell);

    bool header = false;
    for (size_t i = 0; i < trace->mailbox_count; i++) {
        const struct tattle_trace_mailbox *mailbox = &trace->mailboxes[i];
        if (!mailbox->pending && !mailbox->message_count)
            continue;
        if (!header)
            tattle__buffer_printf(
                out, "%spending in mailboxes when the test ended:\n", indent);
        header = true;
        tattle__buffer_printf(out, "%s  ", indent);
        tattle__cli_append_printable(out, mailbox->name, strlen(mailbox->name),
                                     false, 40);
        tattle__buffer_printf(out, " (owner ");
        const char *owner = mailbox->owner ? mailbox->owner : "unknown";
        tattle__cli_append_printable(out, owner, strlen(owner), false, 40);
        tattle__buffer_printf(
            out, "%s%s): %" PRIu64 " pending\n", mailbox->alive ? "" : ", gone",
            mailbox->approx ? ", approximate" : "", mailbox->pending);
        for (size_t k = 0; k < mailbox->message_count && k < PENDING_SHOWN;
             k++) {
            tattle__buffer_printf(out, "%s    ", indent);
            const char *message =
                mailbox->messages[k] ? mailbox->messages[k] : "";
            tattle__cli_append_printable(out, message, strlen(message), false,
                                         DETAIL_CHARS);
            tattle__buffer_append_string(out, "\n");
        }
        if (mailbox->message_count > PENDING_SHOWN)
            tattle__buffer_printf(out, "%s    and %zu more\n", indent,
                                  mailbox->message_count - PENDING_SHOWN);
    }
    for (size_t i = 0; i < trace->endpoint_count; i++) {
        const struct tattle_trace_endpoint *endpoint = &trace->endpoints[i];
        if (i == 0)
            tattle__buffer_printf(
                out, "%sunread in endpoints when the test ended:\n", indent);
        tattle__buffer_printf(out, "%s  ", indent);
        const char *name = endpoint->name ? endpoint->name : "?";
        tattle__cli_append_printable(out, name, strlen(name), false, 40);
        tattle__buffer_printf(out, " (owner ");
        const char *owner = endpoint->owner ? endpoint->owner : "unknown";
        tattle__cli_append_printable(out, owner, strlen(owner), false, 40);
        tattle__buffer_append_string(out, "): ");
        tattle__sequence_endpoint_summary(out, endpoint);
        tattle__buffer_append_string(out, "\n");
        for (size_t k = 0; k < endpoint->message_count && k < PENDING_SHOWN;
             k++) {
            const struct tattle_trace_pending_send *send =
                &endpoint->messages[k];
            tattle__buffer_printf(out, "%s    #%" PRIu64 " ", indent,
                                  send->send);
            const char *message = send->msg ? send->msg : "";
            tattle__cli_append_printable(out, message, strlen(message), false,
                                         DETAIL_CHARS);
            tattle__buffer_append_string(out, "\n");
        }
        if (endpoint->message_count > PENDING_SHOWN)
            tattle__buffer_printf(out, "%s    and %zu more\n", indent,
                                  endpoint->message_count - PENDING_SHOWN);
    }
    tattle__sequence_release(&d);
}

/* ---- Mermaid
 * ------------------------------------------------------------------ */

/* Whether a participant is one of the trace's unread endpoints. */
static bool is_endpoint(const struct tattle_trace *trace, const char *name)
{
    for (size_t i = 0; i < trace->endpoint_count; i++)
        if (trace->endpoints[i].name &&
            strcmp(trace->endpoints[i].name, name) == 0)
            return true;
    return false;
}

/* Appends `text` for a Mermaid label: letters, digits, spaces and harmless
 * punctuation as they are; every other character as an entity code. */
static void mermaid_text(struct tattle__buffer *out, const char *text,
                         size_t max_chars)
{
    if (!text)
        text = "";
    size_t length = strlen(text), shown = 0;
    for (size_t i = 0; i < length; shown++) {
        if (max_chars && shown == max_chars) {
            tattle__buffer_append_string(out, "...");
            return;
        }
        unsigned char c = (unsigned char)text[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || (c && strchr(" .,_-()/=+*!?@[]'", c))) {
            tattle__buffer_append(out, &c, 1);
            i++;
            continue;
        }
        size_t n = tattle__utf8_printable_length(text + i, length - i);
        uint32_t code = 0xfffd;
        if (n) {
            code = n == 1 ? c : c & (0xffu >> (n + 1));
            for (size_t k = 1; k < n; k++)
                code = (code << 6) | ((unsigned char)text[i + k] & 0x3f);
            i += n;
        } else
            i++;
        tattle__buffer_printf(out, "#%" PRIu32 ";", code);
    }
}

/* Words Mermaid could take for its own in a participant's name. */
static bool mermaid_keyword(const char *name)
{
    static const char *const words[] = {
        "end",        "loop",        "alt",    "else",     "opt",
        "par",        "and",         "rect",   "critical", "break",
        "note",       "participant", "actor",  "activate", "deactivate",
        "autonumber", "box",         "create", "destroy",  "link",
        "links",      "title",       "over",   "as"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasecmp(name, words[i]) == 0)
            return true;
    return false;
}

static void mermaid_label(struct tattle__buffer *out,
                          const struct tattle_trace_event *e)
{
    if (e->label)
        mermaid_text(out, e->label, 40);
    if (e->msg) {
        if (e->label)
            tattle__buffer_append_string(out, " #58; ");
        mermaid_text(out, e->msg, DETAIL_CHARS);
    }
    if (!e->label && !e->msg)
        tattle__buffer_append_string(out, "message");
}

void tattle__sequence_mermaid(struct tattle__buffer *out,
                              const struct tattle_result *result)
{
    tattle__buffer_append_string(out, "sequenceDiagram\n");
    const struct tattle_trace *trace = result->trace;
    if (!trace) {
        tattle__buffer_append_string(out, "    participant p0 as ");
        mermaid_text(out, result->test->id, 80);
        tattle__buffer_append_string(out,
                                     "\n    Note over p0: no trace recorded\n");
        return;
    }
    struct tattle__sequence d;
    tattle__sequence_build(&d, trace);
    /* Mailboxes still holding messages get a participant of their own,
     * where the pending messages are noted. */
    tattle__sequence_add_mailboxes(&d, trace);
    if (d.participants.count == 0)
        tattle__sequence_participant(&d, result->test->id);
    for (size_t i = 0; i < d.participants.count; i++) {
        tattle__buffer_printf(out, "    participant p%zu as ", i);
        if (mermaid_keyword(d.participants.names[i])) {
            /* The first letter as an entity keeps the word a name. */
            tattle__buffer_printf(out, "#%u;",
                                  (unsigned char)d.participants.names[i][0]);
            mermaid_text(out, d.participants.names[i] + 1, 40);
        } else if (!d.participants.names[i][0])
            tattle__buffer_append_string(out, "#8203;");
        else
            mermaid_text(out, d.participants.names[i], 40);
        if (!d.actor[i])
            tattle__buffer_append_string(
                out, is_endpoint(trace, d.participants.names[i])
                         ? " (endpoint)"
                         : " (mailbox)");
        tattle__buffer_append_string(out, "\n");
    }
    for (size_t r = 0; r < d.row_count; r++) {
        const struct tattle__sequence_row *row = &d.rows[r];
        switch (row->kind) {
        case TATTLE__ROW_MESSAGE:
        case TATTLE__ROW_PENDING_SEND:
        case TATTLE__ROW_RECV_ONLY:
            tattle__buffer_printf(out, "    p%zu%sp%zu: ", row->from,
                                  row->kind == TATTLE__ROW_MESSAGE ? "->>"
                                  : row->kind == TATTLE__ROW_PENDING_SEND
                                      ? "--)"
                                      : "-->>",
                                  row->to);
            mermaid_label(out, row->event);
            if (row->kind == TATTLE__ROW_PENDING_SEND)
                tattle__buffer_append_string(out, " (never received)");
            else if (row->kind == TATTLE__ROW_RECV_ONLY)
                tattle__buffer_append_string(out, " (sent before the trace)");
            break;
        case TATTLE__ROW_SPAWN:
            tattle__buffer_printf(out, "    p%zu->>p%zu: spawn", row->from,
                                  row->to);
            break;
        case TATTLE__ROW_EVENT:
            tattle__buffer_printf(out, "    Note right of p%zu: ", row->from);
            mermaid_label(out, row->event);
            break;
        case TATTLE__ROW_EXIT:
            tattle__buffer_printf(out, "    Note over p%zu: exit", row->from);
            break;
        case TATTLE__ROW_GONE:
            tattle__buffer_printf(
                out, "    Note over p%zu: not alive when the test ended",
                row->from);
            break;
        }
        tattle__buffer_append_string(out, "\n");
    }
    const struct tattle_failure *end = tattle__sequence_ending(result);
    if (end) {
        struct tattle__buffer text = {0};
        tattle__sequence_describe_ending(&text, end);
        /* On the actor that died, as the HTML report draws it. */
        tattle__buffer_printf(
            out, "    Note over p%zu: ", tattle__sequence_dying(&d, trace));
        mermaid_text(out, text.data, 0);
        tattle__buffer_append_string(out, "\n");
        tattle__buffer_release(&text);
    }
    for (size_t i = 0; i < trace->mailbox_count; i++) {
        const struct tattle_trace_mailbox *mailbox = &trace->mailboxes[i];
        if (!mailbox->pending && !mailbox->message_count)
            continue;
        tattle__buffer_printf(out, "    Note over p%zu: %" PRIu64 " pending",
                              tattle__sequence_participant(&d, mailbox->name),
                              mailbox->pending);
        for (size_t k = 0; k < mailbox->message_count && k < PENDING_SHOWN;
             k++) {
            tattle__buffer_append_string(out, k ? "<br/>" : " #58; ");
            mermaid_text(out, mailbox->messages[k], 40);
        }
        if (mailbox->message_count > PENDING_SHOWN)
            tattle__buffer_printf(out, "<br/>and %zu more",
                                  mailbox->message_count - PENDING_SHOWN);
        tattle__buffer_append_string(out, "\n");
    }
    for (size_t i = 0; i < trace->endpoint_count; i++) {
        const struct tattle_trace_endpoint *endpoint = &trace->endpoints[i];
        tattle__buffer_printf(out, "    Note over p%zu: ",
                              tattle__sequence_participant(
                                  &d, endpoint->name ? endpoint->name : "?"));
        tattle__sequence_endpoint_summary(out, endpoint);
        for (size_t k = 0; k < endpoint->message_count && k < PENDING_SHOWN;
             k++) {
            tattle__buffer_append_string(out, k ? "<br/>" : " #58; ");
            const char *message = endpoint->messages[k].msg;
            mermaid_text(out, message ? message : "", 40);
        }
        if (endpoint->message_count > PENDING_SHOWN)
            tattle__buffer_printf(out, "<br/>and %zu more",
                                  endpoint->message_count - PENDING_SHOWN);
        tattle__buffer_append_string(out, "\n");
    }
    tattle__sequence_release(&d);
}
