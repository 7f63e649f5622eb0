/*
 * html.c — the "html" reporter (see html.h for what the page shows).
 *
 * Each finished test is rendered into a buffer and written to a scratch
 * file; its suite and tags are remembered for the filters and a failed
 * test gets a line in the failures' index. At the end the head (styles,
 * run, counts, filters, index) is written to the report, the scratch file
 * copied behind it, and the tail (the embedded data and the script)
 * appended. Markup is literal; every test string goes through
 * html_writer.h.
 *
 * A passed test is a row to be parsed fast: its summary and its pictures
 * are in the page, the rest of its details (where it is declared, its
 * output, its rerun command) is deferred: written to a second scratch
 * file and copied into one inert block (a <script> of a type no browser
 * runs, so the parser only scans it for its end) that the script turns
 * into elements when the test is opened or searched. Without the script a
 * passed test shows its summary; every other test, failures first of
 * all, is in the page in full. A passed test without pictures is a <div>
 * row the script opens, not a <details>: 10,000 of those each built a
 * shadow tree with a style sheet while the page was parsed.
 */
#include "reporter/html.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/name_index.h"
#include "base/report_file.h"
#include "base/text.h"
#include "reporter/call_tree.h"
#include "reporter/html_writer.h"
#include "reporter/plain_text.h"
#include "reporter/report_output.h"
#include "reporter/sequence_diagram.h"
#include "results/model.h"

enum {
    FLUSH_BYTES = 1 << 18,
    /* Tests per block the browser skips rendering while it is off screen:
     * one such block per test made Chromium track 10,000 of them through
     * every frame while the page was parsed. */
    CHUNK_TESTS = 100,
    LANE_WIDTH = 150,
    MAX_LANES = 24,
    TIME_MARGIN = 70,
    HEAD_HEIGHT = 44,
    ROW_HEIGHT = 30,
    PENDING_LINE = 16,
    PENDING_SHOWN = 8,
    NAME_CHARS = 20,
    LABEL_CHARS = 24,
    DETAIL_CHARS = 60,
    INDEX_MESSAGE_CHARS = 120,
    FLAME_WIDTH = 1100, /* the flame graph's width, in pixels */
    /* The most characters of a frame's name or file in its tooltip, so
     * the frame bound bounds the page too. */
    FLAME_TITLE_CHARS = 500,
    FLAME_ROW = 18,
    FLAME_CHAR_PX = 7, /* a character of its labels, about */
    FLAME_MAX_DEPTH = 100,
    FLAME_MAX_FRAMES = 2000
};

/* A frame narrower than this share of the flame graph is not drawn. */
#define FLAME_MIN_SHARE 0.001

struct html_reporter {
    struct tattle__report_output output;
    struct tattle__sink tests; /* the tests' markup, in a scratch file */
    struct tattle__buffer page;
    /* The passed tests' deferred details, in a scratch file of their own. */
    struct tattle__sink deferred;
    struct tattle__buffer deferred_page;
    struct tattle__buffer failure_index; /* <li> per failed test */
    struct tattle__buffer failed_ids;    /* JSON strings, comma separated */
    struct tattle__name_index suites, tags;
    struct tattle__call_tree calls; /* the flame graph's, per thread */
    struct tattle__html_flame_frame *frames;
    size_t frame_capacity;
    char *started_at, *executable;
    char **argv;
    int argc;
    uint64_t seed;
    unsigned jobs;
    uint64_t test_count, failed_count;
    int error;
};

static void append(struct tattle__buffer *out, const char *literal)
{
    tattle__buffer_append_string(out, literal);
}

static void append_uint(struct tattle__buffer *out, uint64_t value)
{
    tattle__text_uint(out, value);
}

/* ` name="value"` with the value escaped. */
static void append_attribute(struct tattle__buffer *out, const char *name,
                             const char *value)
{
    tattle__buffer_append(out, " ", 1);
    append(out, name);
    append(out, "=\"");
    tattle__html_string(out, value);
    append(out, "\"");
}

static void append_duration(struct tattle__buffer *out, uint64_t microseconds)
{
    if (microseconds < 1000)
        tattle__buffer_printf(out, "%" PRIu64 " us", microseconds);
    else if (microseconds < 10000000)
        tattle__buffer_printf(out, "%.1f ms", (double)microseconds / 1000.0);
    else
        tattle__buffer_printf(out, "%.2f s", (double)microseconds / 1e6);
}

/* A tag as the filters name it: `word` or `word:value`. */
static void append_tag_text(struct tattle__buffer *out,
                            const struct tattle_tag *tag)
{
    append(out, tag->name ? tag->name : "");
    if (tag->value) {
        append(out, ":");
        append(out, tag->value);
    }
}

/* ---- Failures --------------------------------------------------------- */

static void append_definition(struct tattle__buffer *out, const char *term,
                              const char *value)
{
    if (!value)
        return;
    append(out, "<dt>");
    append(out, term);
    append(out, "</dt><dd><code>");
    tattle__html_string(out, value);
    append(out, "</code></dd>");
}

/* The frames of a failure's stack (a crash's, or what the runner took). */
static void append_frames(struct tattle__buffer *out,
                          const struct tattle_failure *failure)
{
    if (!failure->frame_count)
        return;
    append(out, "<details class=\"stack\" open><summary>stack (");
    append_uint(out, failure->frame_count);
    append(out, " frames)</summary><ol class=\"frames\">");
    for (size_t i = 0; i < failure->frame_count; i++) {
        const struct tattle_frame *frame = &failure->frames[i];
        append(out, "<li><code>");
        if (frame->function)
            tattle__html_string(out, frame->function);
        else
            tattle__buffer_printf(out, "0x%" PRIxPTR, frame->address);
        append(out, "</code>");
        if (frame->file) {
            append(out, " <span class=\"place\">");
            tattle__html_string(out, frame->file);
            tattle__buffer_printf(out, ":%d</span>", frame->line);
        }
        append(out, "</li>");
    }
    append(out, "</ol></details>");
}

/* Where the threads of the test were when it ended: the stacks the
 * runner takes at a timeout (and of a crash's other threads) are drawn
 * here, one list of frames per thread, once the model carries them. For
 * now the failure's own stack is all there is. */
static void append_stacks(struct tattle__buffer *out,
                          const struct tattle_failure *failure)
{
    append_frames(out, failure);
}

static void append_failure(struct tattle__buffer *out,
                           const struct tattle_result *result,
                           const struct tattle_failure *failure)
{
    append(out, "<section class=\"failure\"><h3><span class=\"kind\">");
    append(out, tattle_failure_kind_name(failure->kind));
    append(out, "</span>");
    if (failure->filtered)
        append(out, " <span class=\"filtered\">(filtered)</span>");
    const char *file;
    int line;
    tattle__text_location(result, failure, &file, &line);
    if (file) {
        append(out, " at <span class=\"place\">");
        tattle__html_string(out, file);
        tattle__buffer_printf(out, ":%d</span>", line);
    }
    append(out, "</h3><pre class=\"message\">");
    tattle__html_string(out, failure->message);
    append(out, "</pre><dl class=\"values\">");
    switch (failure->kind) {
    case TATTLE_FAILURE_ASSERTION:
        if (failure->macro || failure->expr) {
            append(out, "<dt>expression</dt><dd><code>");
            tattle__html_string(out, failure->macro);
            append(out, "(");
            tattle__html_string(out, failure->expr);
            append(out, ")</code></dd>");
        }
        append_definition(out, "left", failure->left);
        append_definition(out, "right", failure->right);
        break;
    case TATTLE_FAILURE_CRASH: {
        char scratch[16];
        append_definition(out, "signal",
                          tattle__signal_name(failure->signal, scratch));
        break;
    }
    case TATTLE_FAILURE_EXIT:
        tattle__buffer_printf(out, "<dt>exit code</dt><dd><code>%d</code></dd>",
                              failure->exit_code);
        break;
    case TATTLE_FAILURE_TIMEOUT:
        tattle__buffer_printf(out,
                              "<dt>timeout</dt><dd><code>%ld ms</code></dd>",
                              failure->timeout_ms);
        break;
    case TATTLE_FAILURE_ERROR:
        break;
    }
    append(out, "</dl>");
    append_stacks(out, failure);
    append(out, "</section>");
}

/* A stream's output under its heading: a failure's is shown, a <div> (a
 * <details> would cost the parser a shadow tree and a style sheet for
 * each of 1,000 failures); another test's is folded in a <details>. */
static void append_output(struct tattle__buffer *out, const char *name,
                          const struct tattle_output *output, bool shown)
{
    if (!output->length && !output->bytes)
        return;
    append(out, shown ? "<div class=\"output\"><p class=\"output-head\">"
                      : "<details class=\"output\"><summary>");
    append(out, name);
    append(out, " (");
    append_uint(out, output->bytes);
    append(out, output->bytes == 1 ? " byte" : " bytes");
    if (output->truncated)
        append(out, ", head and tail kept");
    append(out, shown ? ")</p><pre>" : ")</summary><pre>");
    tattle__html_text(out, output->text ? output->text : "", output->length);
    append(out, shown ? "</pre></div>" : "</pre></details>");
}

/* ---- The sequence diagram --------------------------------------------- */

static size_t lane_of(size_t participant)
{
    return participant < MAX_LANES ? participant : MAX_LANES - 1;
}

static size_t lane_x(size_t participant)
{
    return TIME_MARGIN + LANE_WIDTH / 2 + lane_of(participant) * LANE_WIDTH;
}

/* `label: msg` of an event, cut to `max_chars` (each part). */
static void append_event_text(struct tattle__buffer *out,
                              const struct tattle_trace_event *event,
                              size_t max_chars)
{
    if (event->label)
        tattle__html_string_cut(out, event->label, max_chars);
    if (event->msg) {
        if (event->label)
            append(out, ": ");
        tattle__html_string_cut(out, event->msg, max_chars);
    }
}

/* Whether a row's lanes are the shared "others" lane, which names
 * neither end of it. */
static bool row_in_others(const struct tattle__sequence *sequence,
                          const struct tattle__sequence_row *row)
{
    return sequence->participants.count > MAX_LANES &&
           (lane_of(row->from) == MAX_LANES - 1 ||
            lane_of(row->to) == MAX_LANES - 1);
}

/* The tooltip of a row: what the picture cuts or does not show, uncut
 * but bounded by the recorder's own payload bound. Its time is the row's
 * time label and its ends are the lifelines it joins, so they are named
 * only where a lane is shared: a big report holds thousands of these. */
static void append_row_title(struct tattle__buffer *out,
                             const struct tattle__sequence *sequence,
                             const struct tattle__sequence_row *row)
{
    const struct tattle_trace_event *e = row->event;
    append(out, "<title>");
    if (e)
        tattle__buffer_printf(out, "#%" PRIu64 " %s", e->seq,
                              tattle_trace_event_kind_name(e->kind));
    if (!e || row_in_others(sequence, row)) {
        append(out, e ? " " : "");
        tattle__html_string(out, sequence->participants.names[row->from]);
        if (row->to != row->from) {
            append(out, " \xe2\x86\x92 ");
            tattle__html_string(out, sequence->participants.names[row->to]);
        }
    }
    if (e && (e->label || e->msg)) {
        append(out, "\n");
        append_event_text(out, e, 4096);
    }
    if (e && e->size)
        tattle__buffer_printf(out, " (%" PRIu64 " bytes)", e->size);
    switch (row->kind) {
    case TATTLE__ROW_MESSAGE:
        tattle__buffer_printf(out, "\nreceived at %.3f ms",
                              (double)row->t_end_us / 1000.0);
        break;
    case TATTLE__ROW_PENDING_SEND:
        append(out, "\nnever received");
        break;
    case TATTLE__ROW_RECV_ONLY:
        append(out, "\nsent before the trace begins");
        break;
    case TATTLE__ROW_GONE:
        append(out, "\nnot alive when the test ended");
        break;
    default:
        break;
    }
    append(out, "</title>");
}

/* An arrow is one path, its head the marker the page's shared <defs>
 * hold (the style picks it by the arrow's class), and its label, which
 * holds the tooltip; the style finds the label as the path's next
 * sibling. No group around them: 1,000 failures' diagrams are parsed
 * faster for every element fewer per row. */
static void append_arrow(struct tattle__buffer *out,
                         const struct tattle__sequence *sequence,
                         const struct tattle__sequence_row *row, size_t y)
{
    static const char *const classes[] = {
        [TATTLE__ROW_MESSAGE] = "arrow matched",
        [TATTLE__ROW_PENDING_SEND] = "arrow unmatched pending",
        [TATTLE__ROW_RECV_ONLY] = "arrow unmatched orphan",
        [TATTLE__ROW_SPAWN] = "arrow spawn",
    };
    size_t x1 = lane_x(row->from), x2 = lane_x(row->to);
    bool self_arrow = x1 == x2; /* to itself, or within the "others" lane */
    tattle__buffer_printf(out, "<path class=\"%s%s\" ", classes[row->kind],
                          self_arrow ? " self" : "");
    if (self_arrow)
        tattle__buffer_printf(out,
                              "d=\"M%zu %zuh40v12h-40\"/>"
                              "<text x=\"%zu\" y=\"%zu\">",
                              x1, y - 6, x1 + 46, y + 4);
    else
        tattle__buffer_printf(out,
                              "d=\"M%zu %zuH%zu\"/>"
                              "<text x=\"%zu\" y=\"%zu\">",
                              x1, y, x2, (x1 + x2) / 2, y - 5);
    append_row_title(out, sequence, row);
    if (row->kind == TATTLE__ROW_SPAWN)
        append(out, "spawn");
    else if (row->event->label)
        tattle__html_string_cut(out, row->event->label, LABEL_CHARS);
    else
        tattle__html_string_cut(out, row->event->msg, LABEL_CHARS);
    if (row->kind == TATTLE__ROW_PENDING_SEND)
        append(out, " (never received)");
    else if (row->kind == TATTLE__ROW_RECV_ONLY)
        append(out, " (sent before the trace)");
    append(out, "</text>");
}

static void append_mark(struct tattle__buffer *out,
                        const struct tattle__sequence *sequence,
                        const struct tattle__sequence_row *row, size_t y)
{
    size_t x = lane_x(row->from);
    const char *class = row->kind == TATTLE__ROW_EVENT  ? "mark event"
                        : row->kind == TATTLE__ROW_EXIT ? "mark exit"
                                                        : "mark gone";
    tattle__buffer_printf(out, "<g class=\"%s\">", class);
    append_row_title(out, sequence, row);
    if (row->kind == TATTLE__ROW_EVENT)
        tattle__buffer_printf(out, "<circle cx=\"%zu\" cy=\"%zu\" r=\"5\"/>", x,
                              y);
    else
        tattle__buffer_printf(out,
                              "<path class=\"cross\" d=\"M%zu %zu l12 12 m0 "
                              "-12 l-12 12\"/>",
                              x - 6, y - 6);
    tattle__buffer_printf(out, "<text x=\"%zu\" y=\"%zu\">", x + 10, y + 4);
    if (row->kind == TATTLE__ROW_EVENT) {
        if (row->event->kind != TATTLE_TRACE_EVENT &&
            row->event->kind != TATTLE_TRACE_EXIT) {
            tattle__html_string(out,
                                tattle_trace_event_kind_name(row->event->kind));
            append(out, " ");
        }
        append_event_text(out, row->event, LABEL_CHARS);
    } else if (row->kind == TATTLE__ROW_EXIT)
        append(out, "exit");
    else
        append(out, "not alive at the end");
    append(out, "</text></g>");
}

/* The lines a box of waiting contents takes: its summary, the contents
 * shown, and "and N more". */
static size_t waiting_lines(size_t count)
{
    return 1 + (count < PENDING_SHOWN ? count : PENDING_SHOWN + 1);
}

/* Draws what waited in a mailbox or an endpoint when the test ended (its
 * summary, then its contents, oldest first) under its lifeline, from `y`;
 * returns where the next box goes. */
static size_t draw_waiting(struct tattle__buffer *out,
                           const struct tattle__sequence *sequence, size_t y,
                           const char *name, const char *summary,
                           const char *const *contents, size_t count)
{
    size_t at =
        tattle__name_index_find(&sequence->participants, name ? name : "?");
    size_t x = lane_x(at) - LANE_WIDTH / 2 + 6;
    size_t shown = count < PENDING_SHOWN ? count : PENDING_SHOWN;
    size_t lines = 1 + shown + (count > PENDING_SHOWN);
    append(out, "<g class=\"mailbox-contents\">");
    tattle__buffer_printf(out,
                          "<rect x=\"%zu\" y=\"%zu\" width=\"%d\" "
                          "height=\"%zu\" rx=\"3\"/>",
                          x, y, LANE_WIDTH * 2, lines * PENDING_LINE + 4);
    tattle__buffer_printf(out,
                          "<text x=\"%zu\" y=\"%zu\"><tspan "
                          "class=\"name\">",
                          x + 6, y + 14);
    tattle__html_string_cut(out, name, NAME_CHARS);
    append(out, "</tspan>: ");
    append(out, summary ? summary : "");
    append(out, "</text>");
    for (size_t k = 0; k < shown; k++) {
        tattle__buffer_printf(out,
                              "<text class=\"message\" x=\"%zu\" "
                              "y=\"%zu\">",
                              x + 14, y + 14 + (k + 1) * PENDING_LINE);
        tattle__html_string_cut(out, contents[k], DETAIL_CHARS);
        append(out, "</text>");
    }
    if (count > PENDING_SHOWN)
        tattle__buffer_printf(out,
                              "<text x=\"%zu\" y=\"%zu\">and %zu "
                              "more</text>",
                              x + 14, y + 14 + (shown + 1) * PENDING_LINE,
                              count - PENDING_SHOWN);
    append(out, "</g>");
    return y + lines * PENDING_LINE + 8;
}

static void append_sequence_svg(struct tattle__buffer *out,
                                const struct tattle_result *result)
{
    const struct tattle_trace *trace = result->trace;
    struct tattle__sequence sequence;
    tattle__sequence_build(&sequence, trace);
    tattle__sequence_add_mailboxes(&sequence, trace);
    if (!sequence.participants.count)
        tattle__sequence_participant(&sequence, result->test->id);
    size_t participants = sequence.participants.count;
    size_t lanes = participants > MAX_LANES ? MAX_LANES : participants;
    const struct tattle_failure *ending = tattle__sequence_ending(result);

    size_t pending_lines = 0;
    for (size_t i = 0; i < trace->mailbox_count; i++) {
        const struct tattle_trace_mailbox *mailbox = &trace->mailboxes[i];
        if (!mailbox->pending && !mailbox->message_count)
            continue;
        pending_lines += waiting_lines(mailbox->message_count);
    }
    for (size_t i = 0; i < trace->endpoint_count; i++)
        pending_lines += waiting_lines(trace->endpoints[i].message_count);
    size_t rows_bottom =
        HEAD_HEIGHT + 20 + (sequence.row_count + (ending ? 1 : 0)) * ROW_HEIGHT;
    size_t width = TIME_MARGIN + lanes * LANE_WIDTH + 200;
    size_t height = rows_bottom + (pending_lines ? 12 : 0) +
                    pending_lines * PENDING_LINE + 12;

    append(out, "<figure class=\"trace\"><figcaption>trace: ");
    append_uint(out, trace->recorded);
    append(out, " events recorded, ");
    append_uint(out, trace->dropped);
    append(out, " dropped, ");
    append_uint(out, sequence.matched);
    append(out, sequence.matched == 1 ? " message" : " messages");
    if (trace->overflow)
        append(out, " <strong>(overflowed: events were lost)</strong>");
    if (participants > MAX_LANES)
        tattle__buffer_printf(out,
                              "; %zu participants, the last lane holds all "
                              "past the %dth",
                              participants, MAX_LANES - 1);
    /* The zoom buttons are the script's: they only work with it. */
    append(out, "</figcaption><div class=\"scroll\" tabindex=\"0\" "
                "role=\"region\" aria-label=\"diagram\">");
    tattle__buffer_printf(
        out,
        "<svg class=\"sequence\" xmlns=\"http://www.w3.org/"
        "2000/svg\" role=\"img\" width=\"%zu\" height=\"%zu\" "
        "viewBox=\"0 0 %zu %zu\" data-width=\"%zu\" "
        "data-matched=\"%zu\"",
        width, height, width, height, width, sequence.matched);
    append_attribute(out, "aria-label", "sequence diagram of the trace");
    append(out, "><title>sequence diagram of ");
    tattle__html_string(out, result->test->id);
    append(out, "</title>");

    /* Participants and their lifelines. */
    for (size_t lane = 0; lane < lanes; lane++) {
        size_t x = TIME_MARGIN + LANE_WIDTH / 2 + lane * LANE_WIDTH;
        bool others = participants > MAX_LANES && lane + 1 == lanes;
        const char *name =
            others ? "others" : sequence.participants.names[lane];
        tattle__buffer_printf(out, "<g class=\"participant %s\">",
                              !others && sequence.actor[lane] ? "actor"
                                                              : "mailbox");
        append(out, "<title>");
        tattle__html_string(out, name);
        append(out, "</title>");
        tattle__buffer_printf(out,
                              "<line class=\"life\" x1=\"%zu\" y1=\"%d\" "
                              "x2=\"%zu\" y2=\"%zu\"/>",
                              x, HEAD_HEIGHT - 8, x, rows_bottom);
        tattle__buffer_printf(out,
                              "<rect x=\"%zu\" y=\"8\" width=\"%d\" "
                              "height=\"28\" rx=\"4\"/><text x=\"%zu\" "
                              "y=\"27\" text-anchor=\"middle\">",
                              x - LANE_WIDTH / 2 + 6, LANE_WIDTH - 12, x);
        tattle__html_string_cut(out, name, NAME_CHARS);
        append(out, "</text></g>");
    }

    for (size_t r = 0; r < sequence.row_count; r++) {
        const struct tattle__sequence_row *row = &sequence.rows[r];
        size_t y = HEAD_HEIGHT + 20 + r * ROW_HEIGHT + ROW_HEIGHT / 2;
        if (row->kind != TATTLE__ROW_GONE)
            tattle__buffer_printf(out, "<text x=\"4\" y=\"%zu\">%.3f ms</text>",
                                  y + 4, (double)row->t_us / 1000.0);
        switch (row->kind) {
        case TATTLE__ROW_MESSAGE:
        case TATTLE__ROW_PENDING_SEND:
        case TATTLE__ROW_RECV_ONLY:
        case TATTLE__ROW_SPAWN:
            append_arrow(out, &sequence, row, y);
            break;
        case TATTLE__ROW_EVENT:
        case TATTLE__ROW_EXIT:
        case TATTLE__ROW_GONE:
            append_mark(out, &sequence, row, y);
            break;
        }
    }

    if (ending) {
        size_t y =
            HEAD_HEIGHT + 20 + sequence.row_count * ROW_HEIGHT + ROW_HEIGHT / 2;
        size_t x = lane_x(tattle__sequence_dying(&sequence, trace));
        tattle__buffer_printf(out, "<g class=\"ending %s\"><title>",
                              ending->kind == TATTLE_FAILURE_CRASH ? "crash"
                                                                   : "timeout");
        tattle__html_string(out, ending->message);
        tattle__buffer_printf(out,
                              "</title><rect x=\"%zu\" y=\"%zu\" width=\"16\" "
                              "height=\"16\"/><text x=\"%zu\" y=\"%zu\">",
                              x - 8, y - 8, x + 14, y + 4);
        struct tattle__buffer text = {0};
        tattle__sequence_describe_ending(&text, ending);
        tattle__html_text(out, text.data, text.length);
        tattle__buffer_release(&text);
        append(out, "</text></g>");
    }

    /* What was still waiting in mailboxes and endpoints, under each one's
     * lifeline. */
    size_t y = rows_bottom + 12;
    struct tattle__buffer summary = {0};
    for (size_t i = 0; i < trace->mailbox_count; i++) {
        const struct tattle_trace_mailbox *mailbox = &trace->mailboxes[i];
        if (!mailbox->pending && !mailbox->message_count)
            continue;
        summary.length = 0;
        tattle__buffer_printf(&summary, "%" PRIu64 " pending%s%s",
                              mailbox->pending,
                              mailbox->alive ? "" : ", owner gone",
                              mailbox->approx ? ", approximate" : "");
        y = draw_waiting(out, &sequence, y, mailbox->name, summary.data,
                         mailbox->messages, mailbox->message_count);
    }
    for (size_t i = 0; i < trace->endpoint_count; i++) {
        const struct tattle_trace_endpoint *endpoint = &trace->endpoints[i];
        summary.length = 0;
        tattle__sequence_endpoint_summary(&summary, endpoint);
        const char **lines = calloc(endpoint->message_count + 1, sizeof *lines);
        if (!lines)
            break;
        for (size_t k = 0; k < endpoint->message_count; k++)
            lines[k] =
                endpoint->messages[k].msg ? endpoint->messages[k].msg : "";
        y = draw_waiting(out, &sequence, y, endpoint->name, summary.data, lines,
                         endpoint->message_count);
        free(lines);
    }
    tattle__buffer_release(&summary);
    append(out, "</svg></div></figure>");
    tattle__sequence_release(&sequence);
}

/* ---- The flame graph --------------------------------------------------- */

/* A node of the call tree as drawn: its time with its callees' (saturating
 * like self_us), where it starts, its width, where its next callee
 * starts, whether it is drawn. Index 0 is unused (the tree's root is the
 * threads' row). */
struct tattle__html_flame_frame {
    uint64_t total_us;
    double left, width, next;
    bool drawn;
};

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* One of four fill classes, the same for a function wherever it is. */
static unsigned flame_colour(const char *function)
{
    uint32_t hash = 2166136261u;
    for (const unsigned char *at = (const unsigned char *)function; *at; at++)
        hash = (hash ^ *at) * 16777619u;
    return hash % 4;
}

/* A frame: its <title> (name, place, total and self time) for readers
 * without the script, its rect, and its name when it fits. */
static void append_flame_frame(struct tattle__buffer *out, const char *class,
                               const char *name, const char *file, int line,
                               uint64_t total_us, const uint64_t *self_us,
                               uint64_t grand_us, double left, double width,
                               size_t row)
{
    tattle__buffer_printf(out, "<g class=\"%s\"><title>", class);
    tattle__html_string_cut(out, name, FLAME_TITLE_CHARS);
    if (file) {
        append(out, "\n");
        tattle__html_string_cut(out, file, FLAME_TITLE_CHARS);
        tattle__buffer_printf(out, ":%d", line);
    }
    tattle__buffer_printf(out, "\ntotal %" PRIu64 " \xc2\xb5s (%.1f%%)",
                          total_us,
                          100.0 * (double)total_us / (double)grand_us);
    if (self_us)
        tattle__buffer_printf(out, ", self %" PRIu64 " \xc2\xb5s", *self_us);
    tattle__buffer_printf(out,
                          "</title><rect x=\"%.2f\" y=\"%zu\" width=\"%.2f\" "
                          "height=\"%d\"/>",
                          left, row * FLAME_ROW, width, FLAME_ROW - 1);
    size_t fits = width > 6 ? (size_t)((width - 6) / FLAME_CHAR_PX) : 0;
    if (fits >= 2) {
        tattle__buffer_printf(out, "<text x=\"%.2f\" y=\"%zu\">", left + 3,
                              row * FLAME_ROW + FLAME_ROW - 5);
        tattle__html_string_cut(out, name, fits - 1);
        append(out, "</text>");
    }
    append(out, "</g>");
}

/* The test's calls as an icicle: a row per depth, the threads on top (a
 * frame each), each call under its caller, as wide as the time spent in
 * it and its callees. Frames narrower than FLAME_MIN_SHARE of the width,
 * deeper than FLAME_MAX_DEPTH calls or past the first FLAME_MAX_FRAMES
 * (with all their callees) are left out and counted in the caption, so a
 * deep recursion or a test of 100,000 distinct stacks stays a small
 * picture. */
static void append_flame_svg(struct html_reporter *self,
                             struct tattle__buffer *out,
                             const struct tattle_result *result)
{
    const struct tattle_trace *trace = result->trace;
    struct tattle__call_tree *tree = &self->calls;
    tattle__call_tree_reset(tree);
    uint64_t end_us = result->duration_us;
    for (size_t i = 0; i < trace->call_count; i++) {
        tattle__call_tree_step(tree, &trace->calls[i]);
        if (trace->calls[i].t_us > end_us)
            end_us = trace->calls[i].t_us;
    }
    tattle__call_tree_finish(tree, end_us);

    size_t nodes = tree->node_count, threads = tree->actors.count;
    if (nodes > self->frame_capacity) {
        self->frame_capacity = nodes;
        self->frames =
            tattle__realloc(self->frames, nodes * sizeof *self->frames);
    }
    struct tattle__html_flame_frame *frames = self->frames;
    struct tattle__html_flame_frame *lanes =
        tattle__calloc(threads ? threads : 1, sizeof *lanes);
    for (size_t i = 0; i < nodes; i++)
        frames[i] = (struct tattle__html_flame_frame){
            .total_us = tree->nodes[i].self_us};
    /* A callee is numbered after its caller: one pass from the end adds
     * every node's total into its caller's, then the threads'. */
    for (size_t i = nodes; i-- > 1;) {
        size_t parent = tree->nodes[i].parent;
        if (parent)
            frames[parent].total_us =
                add_saturating(frames[parent].total_us, frames[i].total_us);
        else
            lanes[tree->nodes[i].thread].total_us = add_saturating(
                lanes[tree->nodes[i].thread].total_us, frames[i].total_us);
    }
    uint64_t grand_us = 0;
    for (size_t t = 0; t < threads; t++)
        grand_us = add_saturating(grand_us, lanes[t].total_us);

    double scale = grand_us ? FLAME_WIDTH / (double)grand_us : 0;
    double narrowest = FLAME_WIDTH * FLAME_MIN_SHARE;
    double left = 0;
    /* A width never reaches past its caller's end (or the picture's, for
     * a thread): the threads' sum saturates when a hostile report's times
     * add up past 2^64, and the widths would then add up past the whole. */
    for (size_t t = 0; t < threads; t++) {
        double width = (double)lanes[t].total_us * scale;
        if (width > FLAME_WIDTH - left)
            width = FLAME_WIDTH - left > 0 ? FLAME_WIDTH - left : 0;
        lanes[t].left = lanes[t].next = left;
        lanes[t].width = width;
        left += width;
        lanes[t].drawn = grand_us && width >= narrowest;
    }
    size_t drawn = 0, deepest = 0;
    for (size_t i = 1; i < nodes; i++) {
        const struct tattle__call_node *node = &tree->nodes[i];
        struct tattle__html_flame_frame *caller =
            node->parent ? &frames[node->parent] : &lanes[node->thread];
        double width = (double)frames[i].total_us * scale;
        double room = caller->left + caller->width - caller->next;
        if (width > room)
            width = room > 0 ? room : 0;
        frames[i].left = frames[i].next = caller->next;
        frames[i].width = width;
        caller->next += width;
        frames[i].drawn = caller->drawn && width >= narrowest &&
                          node->depth <= FLAME_MAX_DEPTH &&
                          drawn < FLAME_MAX_FRAMES;
        if (frames[i].drawn) {
            drawn++;
            if (node->depth > deepest)
                deepest = node->depth;
        }
    }

    append(out, "<figure class=\"flame\"><figcaption>flame graph: ");
    append_uint(out, trace->call_count);
    append(out, trace->call_count == 1 ? " call" : " calls");
    if (trace->calls_recorded > trace->call_count) {
        append(out, " kept of ");
        append_uint(out, trace->calls_recorded);
    }
    tattle__buffer_printf(out, ", %zu thread%s, ", threads,
                          threads == 1 ? "" : "s");
    append_duration(out, grand_us);
    append(out, " inside calls");
    if (nodes - 1 > drawn)
        tattle__buffer_printf(
            out,
            "; %zu of %zu frames not drawn (narrower than %.1f%% of the "
            "width, deeper than %d calls, or past the first %d)",
            nodes - 1 - drawn, nodes - 1, 100.0 * FLAME_MIN_SHARE,
            FLAME_MAX_DEPTH, FLAME_MAX_FRAMES);
    append(out, "<span class=\"flame-zoom\" hidden><button type=\"button\" "
                "class=\"flame-reset\">reset zoom</button></span>"
                "</figcaption>");
    if (!grand_us) {
        append(out, "</figure>");
        free(lanes);
        return;
    }
    size_t height = (deepest + 1) * FLAME_ROW;
    tattle__buffer_printf(out,
                          "<div class=\"scroll\" tabindex=\"0\" "
                          "role=\"region\" aria-label=\"flame graph\">"
                          "<svg class=\"flame\" xmlns=\"http://www.w3.org/"
                          "2000/svg\" role=\"img\" width=\"%d\" "
                          "height=\"%zu\" viewBox=\"0 0 %d %zu\" "
                          "data-width=\"%d\" data-total-us=\"%" PRIu64 "\"",
                          FLAME_WIDTH, height, FLAME_WIDTH, height, FLAME_WIDTH,
                          grand_us);
    append_attribute(out, "aria-label", "flame graph of the calls");
    append(out, "><title>flame graph of ");
    tattle__html_string(out, result->test->id);
    append(out, "</title>");
    for (size_t t = 0; t < threads; t++)
        if (lanes[t].drawn)
            append_flame_frame(out, "frame thread", tree->actors.names[t], NULL,
                               0, lanes[t].total_us, NULL, grand_us,
                               lanes[t].left, lanes[t].width, 0);
    for (size_t i = 1; i < nodes; i++) {
        if (!frames[i].drawn)
            continue;
        const struct tattle__call_node *node = &tree->nodes[i];
        char class[16];
        snprintf(class, sizeof class, "frame c%u",
                 flame_colour(node->function));
        append_flame_frame(out, class, node->function, node->file, node->line,
                           frames[i].total_us, &node->self_us, grand_us,
                           frames[i].left, frames[i].width, node->depth);
    }
    append(out, "</svg></div></figure>");
    free(lanes);
}

/* ---- One test ---------------------------------------------------------- */

static void append_test(struct html_reporter *self,
                        const struct tattle_result *result)
{
    struct tattle__buffer *out = &self->page;
    const struct tattle_test_info *test = result->test;
    const char *state = tattle_state_name(result->state);
    bool failed = tattle__result_failed(result);
    uint64_t number = self->test_count;
    /* Where the details go: in the page, or deferred to the inert block. */
    bool deferred = result->state == TATTLE_STATE_PASSED && !result->flaky &&
                    !result->failure_count;
    if (number % CHUNK_TESTS == 0)
        append(out, "<div class=\"chunk\">\n");
    struct tattle__buffer *details = out;
    if (deferred) {
        details = &self->deferred_page;
        tattle__buffer_printf(details, "<div data-test=\"t%" PRIu64 "\">",
                              number);
    }

    /* A deferred test without pictures has nothing to show without the
     * script but its summary: its row is a <div>, which the parser makes
     * far faster than a <details> (each of those carries a shadow tree
     * with a style sheet of its own), and the script opens it. The state
     * is the second of the row's classes. */
    bool row = deferred && !result->trace;
    tattle__buffer_printf(out, "<%s class=\"test %s\" id=\"t%" PRIu64 "\"",
                          row ? "div" : "details", state, number);
    append_attribute(out, "data-suite", test->suite ? test->suite : "");
    append(out, " data-tags=\"");
    for (size_t i = 0; i < test->tag_count; i++) {
        struct tattle__buffer tag = {0};
        append_tag_text(&tag, &test->tags[i]);
        if (i)
            append(out, "\n");
        tattle__html_text(out, tag.data ? tag.data : "", tag.length);
        tattle__name_index_add(&self->tags, tag.data ? tag.data : "", NULL);
        tattle__buffer_release(&tag);
    }
    append(out, "\"");
    tattle__name_index_add(&self->suites, test->suite ? test->suite : "", NULL);
    /* A deferred test with pictures is a <details>: the marker tells the
     * script's toggle listener it has details to render, so opening the
     * failed tests at load (the parser's `open` fires toggle) parses
     * nothing of the inert block. A row needs none: only a click opens it. */
    if (deferred && !row)
        append(out, " data-deferred=\"true\"");
    if (result->flaky)
        append(out, " data-flaky=\"true\"");
    /* The summary is a row of 10,000 in a big run: the state is drawn by
     * the style (from the class), the duration and tags are one text. */
    append(out, row      ? "><p class=\"summary\" tabindex=\"0\">"
                : failed ? " open><summary>"
                         : "><summary>");
    if (result->flaky)
        append(out, "<span class=\"flaky\">flaky</span> ");
    append(out, "<span class=\"id\">");
    tattle__html_string(out, test->id);
    append(out, "</span> <small>");
    append_duration(out, result->duration_us);
    for (size_t i = 0; i < test->tag_count; i++) {
        append(out, " \xc2\xb7 ");
        tattle__html_string(out, test->tags[i].name);
        if (test->tags[i].value) {
            append(out, ":");
            tattle__html_string(out, test->tags[i].value);
        }
    }
    append(out, row ? "</small></p>" : "</small></summary>");
    /* A deferred test without pictures gets its body from the script. */
    bool body = !row;
    if (body)
        append(out, "<div class=\"body\">");
    if (test->file) {
        append(details, "<p class=\"declared\">declared at <span "
                        "class=\"place\">");
        tattle__html_string(details, test->file);
        tattle__buffer_printf(details, ":%d</span>", test->line);
        if (result->attempts > 1)
            tattle__buffer_printf(details, "; %u attempts", result->attempts);
        append(details, "</p>");
    }
    if (result->skip_reason) {
        append(details, "<p class=\"skip\">");
        append(details, result->state == TATTLE_STATE_EXCLUDED ? "excluded: "
                                                               : "skipped: ");
        tattle__html_string(details, result->skip_reason);
        append(details, "</p>");
    }
    for (size_t i = 0; i < result->failure_count; i++)
        append_failure(details, result, &result->failures[i]);
    append_output(details, "stdout", &result->stdout_output, failed);
    append_output(details, "stderr", &result->stderr_output, failed);
    if (result->rerun) {
        append(details, "<div class=\"rerun\"><span>rerun:</span> <code>");
        tattle__html_string(details, result->rerun);
        /* Its copy button is the script's: it only works with it. */
        append(details, "</code></div>");
    }
    if (deferred)
        append(details, "</div>\n");
    /* The pictures are in the page whatever the state. */
    if (result->trace)
        append_sequence_svg(out, result);
    if (result->trace && result->trace->calls_traced &&
        result->trace->call_count)
        append_flame_svg(self, out, result);
    append(out, body ? "</div></details>\n" : "</div>\n");
    if (number % CHUNK_TESTS == CHUNK_TESTS - 1)
        append(out, "</div>\n");

    if (failed) {
        struct tattle__buffer *index = &self->failure_index;
        tattle__buffer_printf(index, "<li><a href=\"#t%" PRIu64 "\">", number);
        tattle__html_string(index, test->id);
        append(index, "</a>");
        const struct tattle_failure *first =
            tattle__first_failure(result, NULL);
        if (!first && result->failure_count)
            first = &result->failures[0];
        if (first) {
            append(index, " <span class=\"kind\">");
            append(index, tattle_failure_kind_name(first->kind));
            append(index, "</span> ");
            char *line = tattle__first_line(first->message);
            tattle__html_string_cut(index, line, INDEX_MESSAGE_CHARS);
            free(line);
        }
        append(index, "</li>\n");
        if (self->failed_count)
            append(&self->failed_ids, ",");
        tattle__html_script_string(&self->failed_ids, test->id,
                                   strlen(test->id));
        self->failed_count++;
    }
}

/* ---- The page ---------------------------------------------------------- */

static const char page_style[] =
    "<style>\n"
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;"
    "--line:#d0d7de;--panel:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;"
    "--skip:#9a6700;--excl:#6e7781;--inv:#8250df;--link:#0969da;"
    "--arrow:#0969da;--pend:#bc4c00;--flame0:#fdae6b;--flame1:#fd8d3c;"
    "--flame2:#fdd0a2;--flame3:#f6c25b;--flame-text:#1b1f24}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;"
    "--muted:#8d96a0;--line:#30363d;--panel:#161b22;--pass:#3fb950;"
    "--fail:#f85149;--skip:#d29922;--excl:#8b949e;--inv:#a371f7;"
    "--link:#4493f8;--arrow:#58a6ff;--pend:#ff9f43;--flame0:#9c4221;"
    "--flame1:#7b341e;--flame2:#975a16;--flame3:#6b3a12;"
    "--flame-text:#f0f3f6}}\n"
    "body{margin:0 auto;max-width:1200px;padding:1rem;background:var(--bg);"
    "color:var(--fg);font:14px/1.45 system-ui,sans-serif}\n"
    "h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.1rem}"
    "h3{font-size:1rem;margin:.4rem 0}\n"
    "a{color:var(--link)}code,pre{font:12.5px/1.4 ui-monospace,monospace}\n"
    "pre{background:var(--panel);border:1px solid var(--line);padding:.5rem;"
    "overflow:auto;white-space:pre-wrap;word-break:break-all;"
    "max-height:30rem}\n"
    ".run{color:var(--muted);margin:.2rem 0}"
    ".bar{display:flex;height:.8rem;border-radius:4px;overflow:hidden;"
    "background:var(--line);margin:.6rem 0}.bar span{display:block}\n"
    ".bar .passed{background:var(--pass)}.bar .failed{background:var(--fail)}"
    ".bar .skipped{background:var(--skip)}.bar "
    ".excluded{background:var(--excl)}"
    ".bar .invalid{background:var(--inv)}\n"
    ".counts{display:flex;flex-wrap:wrap;gap:.4rem;padding:0;margin:0;"
    "list-style:none}.counts li{border:1px solid var(--line);"
    "border-radius:4px;padding:.1rem .5rem}\n"
    ".result-failed{color:var(--fail);font-weight:bold}"
    ".result-passed{color:var(--pass);font-weight:bold}\n"
    "#filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;"
    "margin:.6rem 0;padding:.5rem;background:var(--panel);"
    "border:1px solid var(--line);border-radius:4px}\n"
    "#filters[hidden],[hidden]{display:none!important}\n"
    "button,select,input{font:inherit;color:inherit;background:var(--bg);"
    "border:1px solid var(--line);border-radius:4px;padding:.1rem .4rem}\n"
    ":focus-visible{outline:2px solid var(--link);outline-offset:2px}\n"
    ".test{border:1px solid var(--line);border-left:4px solid "
    "var(--state-colour);"
    "border-radius:4px;margin:.3rem 0;padding:.2rem .6rem}\n"
    ".chunk{content-visibility:auto;contain-intrinsic-size:auto 4000px}\n"
    ".test>summary,.test>.summary{cursor:pointer}.test>.summary{margin:0}\n"
    ".test>summary::before,.test>.summary::before{content:var(--state) \" \";"
    "color:var(--state-colour);font-weight:bold;text-transform:uppercase;"
    "font-size:.8rem}\n"
    "div.test>.summary::before{content:\"\\25b8\\a0\" var(--state) \" \"}"
    "div.test[data-open=true]>.summary::before{content:\"\\25be\\a0\" "
    "var(--state) \" \"}div.test:not([data-open=true])>.body{display:none}\n"
    ".test.passed{--state:\"passed\";--state-colour:var(--pass)}"
    ".test.failed{--state:\"failed\";--state-colour:var(--fail)}"
    ".test.skipped{--state:\"skipped\";--state-colour:var(--skip)}"
    ".test.excluded{--state:\"excluded\";--state-colour:var(--excl)}"
    ".test.invalid{--state:\"invalid\";--state-colour:var(--inv)}\n"
    ".output-head{margin:.3rem 0 0;color:var(--muted)}\n"
    ".id{font-weight:600}.test small,.declared,.place{color:var(--muted)}"
    "\n.flaky{font-size:.8rem;border:1px solid var(--line);"
    "border-radius:8px;padding:0 .4rem;color:var(--skip)}\n"
    ".failure{border-top:1px solid var(--line);margin-top:.4rem}"
    ".failure .kind{color:var(--fail)}\n"
    "dl.values{display:grid;grid-template-columns:max-content 1fr;"
    "gap:.1rem .8rem;margin:.3rem 0}dl.values dd{margin:0;"
    "white-space:pre-wrap;word-break:break-all}\n"
    ".rerun{margin:.4rem 0}.rerun code{background:var(--panel);"
    "padding:.1rem .3rem;word-break:break-all}.rerun "
    "button{margin-left:.4rem}\n"
    "figure.trace{margin:.4rem 0}figcaption{color:var(--muted)}"
    ".zoom{margin-left:.6rem}\n"
    ".scroll{overflow:auto;border:1px solid var(--line);border-radius:4px;"
    "background:var(--bg)}\n"
    "svg.sequence{font:12px ui-monospace,monospace;display:block}\n"
    "svg.sequence text{fill:var(--fg)}"
    "svg.sequence>text{fill:var(--muted)}\n"
    "svg.sequence .participant rect{fill:var(--panel);stroke:var(--fg)}"
    "svg.sequence .mailbox rect{stroke-dasharray:4 3}\n"
    "svg.sequence .life{stroke:var(--line);stroke-width:2}\n"
    "svg.sequence path.arrow{stroke:var(--arrow);fill:none;"
    "stroke-width:1.5;marker-end:url(#tattle-head)}"
    "svg.sequence path.arrow+text{text-anchor:middle}"
    "svg.sequence path.self+text{text-anchor:start}\n"
    "svg.sequence path.unmatched{stroke:var(--pend);"
    "stroke-dasharray:6 4;marker-end:url(#tattle-head-pending)}"
    "svg.sequence path.unmatched+text{fill:var(--pend)}\n"
    ".heads{position:absolute;width:0;height:0}"
    "#tattle-head path{fill:var(--arrow)}"
    "#tattle-head-pending path{fill:var(--pend)}\n"
    "svg.sequence .event circle{fill:var(--arrow)}"
    "svg.sequence .cross{stroke:var(--fail);stroke-width:2.5}"
    "svg.sequence .gone text{fill:var(--fail)}\n"
    "svg.sequence .ending rect{fill:var(--fail)}"
    "svg.sequence .ending text{fill:var(--fail);font-weight:bold}\n"
    "svg.sequence .mailbox-contents rect{fill:var(--panel);"
    "stroke:var(--pend)}svg.sequence .mailbox-contents .name{"
    "font-weight:bold}\n"
    ".scroll:focus-visible{outline:2px solid var(--link)}\n"
    "figure.flame{margin:.4rem 0}.flame-zoom{margin-left:.6rem}\n"
    "svg.flame{font:11px ui-monospace,monospace;display:block}\n"
    "svg.flame rect{stroke:var(--bg);stroke-width:.5}"
    "svg.flame text{fill:var(--flame-text);pointer-events:none}\n"
    "svg.flame .c0 rect{fill:var(--flame0)}svg.flame .c1 rect{"
    "fill:var(--flame1)}svg.flame .c2 rect{fill:var(--flame2)}"
    "svg.flame .c3 rect{fill:var(--flame3)}\n"
    "svg.flame .thread rect{fill:var(--panel);stroke:var(--line)}"
    "svg.flame .thread text{fill:var(--fg);font-weight:bold}\n"
    "svg.flame .frame[tabindex]{cursor:zoom-in}svg.flame .frame:focus{"
    "outline:none}svg.flame .frame:focus-visible rect{"
    "stroke:var(--link);stroke-width:2}\n"
    "</style>\n";

/* The arrows' heads, once for every sequence diagram of the page (each
 * arrow's style names one): the solid and the pending colour. */
static const char arrow_heads[] =
    "<svg class=\"heads\" aria-hidden=\"true\"><defs>"
    "<marker id=\"tattle-head\" viewBox=\"0 0 8 8\" refX=\"8\" "
    "refY=\"4\" markerWidth=\"8\" markerHeight=\"8\" "
    "markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0 0L8 "
    "4L0 8z\"/></marker>"
    "<marker id=\"tattle-head-pending\" viewBox=\"0 0 8 8\" refX=\"8\" "
    "refY=\"4\" markerWidth=\"8\" markerHeight=\"8\" "
    "markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0 0L8 "
    "4L0 8z\"/></marker></defs></svg>\n";

static const char page_script[] =
    "<script>\n"
    "(function(){'use strict';\n"
    "var form=document.getElementById('filters');form.hidden=false;\n"
    "var tests=Array.prototype.slice.call("
    "document.querySelectorAll('main .test'));\n"
    "var state=form.elements.state,suite=form.elements.suite,"
    "tag=form.elements.tag,text=form.elements.text;\n"
    "var shown=document.getElementById('shown');\n"
    "var chunks=Array.prototype.slice.call("
    "document.querySelectorAll('main>.chunk'));\n"
    "var block=document.getElementById('tattle-deferred'),parked=null;\n"
    "function deferred(t){if(!parked){parked={};var box=document.createElement("
    "'div');box.innerHTML=block?block.textContent:'';"
    "Array.prototype.forEach.call(box.children,function(d){"
    "parked[d.dataset.test]=d;});}return parked[t.id];}\n"
    "function render(t){var d=deferred(t);if(!d)return;"
    "delete parked[t.id];t.dataset.rendered='true';var "
    "b=t.querySelector('.body');"
    "if(!b){b=document.createElement('div');b.className='body';"
    "t.appendChild(b);}"
    "while(d.lastChild)b.insertBefore(d.lastChild,b.firstChild);"
    "Array.prototype.forEach.call(b.querySelectorAll('.rerun'),copy);}\n"
    "document.addEventListener('toggle',function(e){var t=e.target;"
    "if(t.open&&t.dataset.deferred)render(t);},true);\n"
    "function open(t,v){if(t.tagName==='DETAILS'){t.open=v;return;}"
    "if(v)render(t);t.dataset.open=v;"
    "t.firstChild.setAttribute('aria-expanded',v);}\n"
    "function row(e){var s=e.target.closest&&"
    "e.target.closest('div.test>.summary');return s?s.parentNode:null;}\n"
    "document.addEventListener('click',function(e){var t=row(e);"
    "if(t)open(t,t.dataset.open!=='true');});\n"
    "document.addEventListener('keydown',function(e){var t=row(e);"
    "if(t&&(e.key==='Enter'||e.key===' ')){e.preventDefault();"
    "open(t,t.dataset.open!=='true');}});\n"
    "function words(t){var d=deferred(t);"
    "return (t.textContent+(d?d.textContent:'')).toLowerCase();}\n"
    "function apply(){var n=0,q=text.value.toLowerCase();\n"
    " chunks.forEach(function(c){c.hidden=true;});\n"
    " tests.forEach(function(t){var ok=(!state.value||"
    "t.classList[1]===state.value||(state.value==='flaky'&&"
    "t.dataset.flaky))&&(!suite.value||t.dataset.suite===suite.value)&&"
    "(!tag.value||t.dataset.tags.split('\\n').indexOf(tag.value)>=0)&&"
    "(!q||words(t).indexOf(q)>=0);"
    "t.hidden=!ok;if(ok){n++;t.parentNode.hidden=false;}});\n"
    " shown.textContent=n+' of '+tests.length+' tests shown';}\n"
    "form.addEventListener('input',apply);form.addEventListener('change',apply)"
    ";\n"
    "form.addEventListener('submit',function(e){e.preventDefault();});\n"
    "document.getElementById('expand').addEventListener('click',function(){"
    "tests.forEach(function(t){if(!t.hidden)open(t,true);});});\n"
    "document.getElementById('collapse').addEventListener('click',function(){"
    "tests.forEach(function(t){open(t,false);});});\n"
    "Array.prototype.forEach.call(document.querySelectorAll('[data-count]'),"
    "function(b){b.hidden=false;b.addEventListener('click',function(){"
    "state.value=b.dataset.count;apply();});});\n"
    "function copy(r){var b=document.createElement('button');b.type='button';"
    "b.className='copy';b.textContent='Copy';r.appendChild(b);\n"
    " b.addEventListener('click',function(){"
    "var done=function(){b.textContent='Copied';setTimeout(function(){"
    "b.textContent='Copy';},1500);};\n"
    " if(navigator.clipboard&&navigator.clipboard.writeText)"
    "navigator.clipboard.writeText(b.previousElementSibling.textContent)"
    ".then(done,function(){"
    "select(b);});else select(b);});}\n"
    "Array.prototype.forEach.call(document.querySelectorAll('.rerun'),"
    "copy);\n"
    "function select(b){var r=document.createRange();"
    "r.selectNodeContents(b.previousElementSibling);"
    "var s=window.getSelection();s.removeAllRanges();s.addRange(r);}\n"
    "var zoomBar=document.createElement('span');zoomBar.className='zoom';"
    "zoomBar.innerHTML='<button type=\"button\" data-zoom=\"out\" "
    "aria-label=\"zoom out\">\\u2212</button><button type=\"button\" "
    "data-zoom=\"reset\">100%</button><button type=\"button\" "
    "data-zoom=\"in\" aria-label=\"zoom in\">+</button>';\n"
    "Array.prototype.forEach.call(document.querySelectorAll('figure.trace'),"
    "function(f){var z=zoomBar.cloneNode(true),svg=f.querySelector('svg'),"
    "w=+svg.dataset.width,h=+svg.getAttribute('height'),k=1;"
    "f.querySelector('figcaption').appendChild(z);\n"
    " z.addEventListener('click',function(e){var d=e.target.dataset.zoom;"
    "if(!d)return;k=d==='in'?Math.min(k*1.25,4):d==='out'?"
    "Math.max(k/1.25,0.25):1;svg.setAttribute('width',w*k);"
    "svg.setAttribute('height',h*k);});});\n"
    "Array.prototype.forEach.call(document.querySelectorAll('figure.flame'),"
    "function(f){var svg=f.querySelector('svg');if(!svg)return;\n"
    " var W=+svg.dataset.width,bar=f.querySelector('.flame-zoom');"
    "bar.hidden=false;\n"
    " var all=Array.prototype.map.call(svg.querySelectorAll('g.frame'),"
    "function(g){var r=g.querySelector('rect');g.setAttribute('tabindex','0');"
    "g.setAttribute('role','button');\n"
    "  return {g:g,r:r,x:+r.getAttribute('x'),w:+r.getAttribute('width'),"
    "y:+r.getAttribute('y'),name:g.querySelector('title').textContent"
    ".split('\\n')[0]};});\n"
    " function label(a,x,w){var t=a.g.querySelector('text'),n=Math.floor("
    "(w-6)/7);if(!t){if(n<2)return;t=document.createElementNS("
    "svg.namespaceURI,'text');t.setAttribute('y',a.y+13);"
    "a.g.appendChild(t);}\n"
    "  t.setAttribute('x',(x+3).toFixed(2));t.textContent=n<2?'':"
    "a.name.length<=n?a.name:a.name.slice(0,n-1)+'\\u2026';}\n"
    " function zoom(to){var s=W/to.w,e=0.02;all.forEach(function(a){"
    "var x=null,w;\n"
    "  if(a.y>=to.y&&a.x>=to.x-e&&a.x+a.w<=to.x+to.w+e){x=(a.x-to.x)*s;"
    "w=a.w*s;}else if(a.y<to.y&&a.x<=to.x+e&&a.x+a.w>=to.x+to.w-e){x=0;w=W;}"
    "\n"
    "  if(x===null){a.g.setAttribute('display','none');return;}"
    "a.g.removeAttribute('display');a.r.setAttribute('x',x.toFixed(2));"
    "a.r.setAttribute('width',w.toFixed(2));label(a,x,w);});\n"
    "  f.dataset.zoom=to.name||'';}\n"
    " all.forEach(function(a){a.g.addEventListener('click',function(){"
    "zoom(a);});a.g.addEventListener('keydown',function(e){"
    "if(e.key==='Enter'||e.key===' '){e.preventDefault();zoom(a);}});});\n"
    " f.querySelector('.flame-reset').addEventListener('click',function(){"
    "zoom({x:0,w:W,y:-1,name:''});});});\n"
    "shown.textContent=tests.length+' of '+tests.length+' tests shown';\n"
    "document.documentElement.dataset.ready='true';\n"
    "})();\n"
    "</script>\n";

static void append_option_list(struct tattle__buffer *out, const char *name,
                               const char *label,
                               const struct tattle__name_index *names)
{
    tattle__buffer_printf(out,
                          "<label>%s <select name=\"%s\"><option "
                          "value=\"\">all</option>",
                          label, name);
    for (size_t i = 0; i < names->count; i++) {
        append(out, "<option");
        append_attribute(out, "value", names->names[i]);
        append(out, ">");
        tattle__html_string(out, names->names[i]);
        append(out, "</option>");
    }
    append(out, "</select></label>");
}

static void append_head(struct html_reporter *self,
                        const struct tattle_summary *summary)
{
    struct tattle__buffer *out = &self->page;
    bool failed = summary->failed || summary->invalid || summary->interrupted;
    append(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                "charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-"
                "Policy\" content=\"default-src 'none'; style-src "
                "'unsafe-inline'; script-src 'unsafe-inline'; img-src "
                "data:\">\n<meta name=\"viewport\" content=\"width=device-"
                "width, initial-scale=1\">\n<meta name=\"color-scheme\" "
                "content=\"light dark\">\n<title>tattle: ");
    tattle__buffer_printf(out, "%" PRIu64 " failed of %" PRIu64 " tests",
                          summary->failed + summary->invalid, summary->total);
    if (self->executable) {
        append(out, " \xe2\x80\x94 ");
        tattle__html_string(out, self->executable);
    }
    append(out, "</title>\n");
    append(out, page_style);
    append(out, "</head>\n<body>\n");
    append(out, arrow_heads);
    append(out, "<header><h1>tattle report</h1>"
                "<p class=\"run\">");
    tattle__buffer_printf(out, "<span class=\"result-%s\">%s</span>",
                          failed ? "failed" : "passed",
                          failed ? "FAILED" : "PASSED");
    if (summary->interrupted)
        append(out, " (interrupted)");
    if (self->executable) {
        append(out, " \xc2\xb7 <code>");
        tattle__html_string(out, self->executable);
        append(out, "</code>");
    }
    if (self->started_at) {
        append(out, " \xc2\xb7 started ");
        tattle__html_string(out, self->started_at);
    }
    append(out, " \xc2\xb7 ");
    append_duration(out, summary->duration_us);
    tattle__buffer_printf(out,
                          " \xc2\xb7 seed %" PRIu64 " \xc2\xb7 %u job%s</p>\n",
                          self->seed, self->jobs, self->jobs == 1 ? "" : "s");

    struct {
        const char *state;
        uint64_t count;
    } counts[] = {
        {"passed", summary->passed},   {"failed", summary->failed},
        {"skipped", summary->skipped}, {"excluded", summary->excluded},
        {"invalid", summary->invalid}, {"flaky", summary->flaky}};
    append(out, "<div class=\"bar\" role=\"img\" aria-label=\"");
    for (size_t i = 0; i < 5; i++)
        tattle__buffer_printf(out, "%s%" PRIu64 " %s", i ? ", " : "",
                              counts[i].count, counts[i].state);
    append(out, "\">");
    uint64_t total = summary->total ? summary->total : 1;
    for (size_t i = 0; i < 5; i++)
        if (counts[i].count)
            tattle__buffer_printf(out,
                                  "<span class=\"%s\" style=\"width:%.3f%%\">"
                                  "</span>",
                                  counts[i].state,
                                  100.0 * (double)counts[i].count /
                                      (double)total);
    append(out, "</div>\n<ul class=\"counts\" aria-label=\"counts\">");
    tattle__buffer_printf(out, "<li><strong>%" PRIu64 "</strong> tests</li>",
                          summary->total);
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        tattle__buffer_printf(out,
                              "<li class=\"%s\"><strong>%" PRIu64
                              "</strong> %s <button type=\"button\" "
                              "data-count=\"%s\" hidden>show</button></li>",
                              counts[i].state, counts[i].count, counts[i].state,
                              counts[i].state);
    append(out, "</ul>\n");

    append(out, "<form id=\"filters\" hidden aria-label=\"filters\">"
                "<label>state <select name=\"state\"><option "
                "value=\"\">all</option>");
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        tattle__buffer_printf(out, "<option value=\"%s\">%s</option>",
                              counts[i].state, counts[i].state);
    append(out, "</select></label>");
    append_option_list(out, "suite", "suite", &self->suites);
    append_option_list(out, "tag", "tag", &self->tags);
    append(out, "<label>text <input name=\"text\" type=\"search\"></label>"
                "<button type=\"button\" id=\"expand\">expand all</button>"
                "<button type=\"button\" id=\"collapse\">collapse all</button>"
                "<span id=\"shown\" role=\"status\"></span></form>\n"
                "</header>\n<main>\n");
    if (self->failed_count) {
        append(out, "<nav id=\"failures\" aria-label=\"failures\"><h2>");
        append_uint(out, self->failed_count);
        append(out, self->failed_count == 1 ? " failure" : " failures");
        append(out, "</h2><ol>\n");
        tattle__buffer_append(out, self->failure_index.data,
                              self->failure_index.length);
        append(out, "</ol></nav>\n");
    }
    tattle__buffer_printf(out, "<h2>%" PRIu64 " tests</h2>\n",
                          self->test_count);
}

static void append_tail(struct html_reporter *self,
                        const struct tattle_summary *summary)
{
    struct tattle__buffer *out = &self->page;
    append(out, "<script type=\"application/json\" "
                "id=\"tattle-data\">{\"executable\":");
    const char *executable = self->executable ? self->executable : "";
    tattle__html_script_string(out, executable, strlen(executable));
    append(out, ",\"argv\":[");
    for (int i = 0; i < self->argc; i++) {
        if (i)
            append(out, ",");
        tattle__html_script_string(out, self->argv[i], strlen(self->argv[i]));
    }
    tattle__buffer_printf(out,
                          "],\"summary\":{\"total\":%" PRIu64
                          ",\"passed\":%" PRIu64 ",\"failed\":%" PRIu64
                          ",\"skipped\":%" PRIu64 ",\"excluded\":%" PRIu64
                          ",\"invalid\":%" PRIu64 ",\"flaky\":%" PRIu64
                          ",\"duration_us\":%" PRIu64 "},\"failed\":[",
                          summary->total, summary->passed, summary->failed,
                          summary->skipped, summary->excluded, summary->invalid,
                          summary->flaky, summary->duration_us);
    tattle__buffer_append(out, self->failed_ids.data, self->failed_ids.length);
    append(out, "]}</script>\n");
    append(out, page_script);
    append(out, "</body></html>\n");
}

/* ---- Callbacks --------------------------------------------------------- */

static void html_destroy(void *opaque);

static int html_create(void **out, const char *destination,
                       const struct tattle_report_options *options)
{
    (void)options;
    struct html_reporter *self = tattle__calloc(1, sizeof *self);
    int error = tattle__report_output_open(&self->output, destination, false);
    if (error) {
        free(self);
        return error;
    }
    int fd = tattle__scratch_open(self->output.directory);
    if (fd < 0) {
        tattle__report_output_discard(&self->output);
        free(self);
        return fd;
    }
    self->tests.fd = fd;
    fd = tattle__scratch_open(self->output.directory);
    if (fd < 0) {
        html_destroy(self);
        return fd;
    }
    self->deferred.fd = fd;
    self->calls.per_thread = true;
    *out = self;
    return 0;
}

static void html_begin(void *opaque, const struct tattle_run_info *run)
{
    struct html_reporter *self = opaque;
    self->started_at = tattle__strdup(run->started_at);
    self->executable = tattle__strdup(run->executable);
    self->seed = run->seed;
    self->jobs = run->jobs;
    self->argc = run->argc > 0 ? run->argc : 0;
    self->argv = tattle__calloc((size_t)self->argc + 1, sizeof *self->argv);
    for (int i = 0; i < self->argc; i++)
        self->argv[i] = tattle__strdup(run->argv[i] ? run->argv[i] : "");
}

static void html_test_started(void *opaque, const struct tattle_test_info *test)
{
    (void)opaque;
    (void)test;
}

/* Writes what `buffer` holds to its scratch file once it holds `at_least`
 * bytes (0: whatever it holds, and the file is flushed). */
static void flush_to_scratch(struct html_reporter *self,
                             struct tattle__sink *scratch,
                             struct tattle__buffer *buffer, size_t at_least)
{
    if (at_least && buffer->length < at_least)
        return;
    tattle__remember_error(
        &self->error,
        tattle__sink_write(scratch, buffer->data, buffer->length));
    tattle__buffer_clear(buffer);
    if (!at_least)
        tattle__remember_error(&self->error, tattle__sink_flush(scratch));
}

static void html_test_finished(void *opaque, const struct tattle_result *result)
{
    struct html_reporter *self = opaque;
    if (self->error)
        return;
    append_test(self, result);
    self->test_count++;
    flush_to_scratch(self, &self->tests, &self->page, FLUSH_BYTES);
    flush_to_scratch(self, &self->deferred, &self->deferred_page, FLUSH_BYTES);
}

/* Copies a scratch file's bytes to the report. */
static void copy_scratch(struct html_reporter *self, struct tattle__sink *from)
{
    struct tattle__sink *sink = &self->output.sink;
    tattle__remember_error(&self->error, tattle__sink_flush(sink));
    if (self->error)
        return;
    tattle__remember_error(
        &self->error, tattle__copy_fd(from->fd, 0, from->written, sink->fd));
    sink->written += from->written; /* what commit copies */
}

static int html_end(void *opaque, const struct tattle_summary *summary)
{
    struct html_reporter *self = opaque;
    if (self->error)
        return self->error;
    if (self->test_count % CHUNK_TESTS)
        append(&self->page, "</div>\n"); /* the last chunk */
    flush_to_scratch(self, &self->tests, &self->page, 0);
    flush_to_scratch(self, &self->deferred, &self->deferred_page, 0);
    append_head(self, summary);
    struct tattle__sink *sink = &self->output.sink;
    tattle__remember_error(
        &self->error,
        tattle__sink_write(sink, self->page.data, self->page.length));
    copy_scratch(self, &self->tests);
    /* The deferred details hold no "</script" and no "<!--": every test
     * string in them is escaped, so "<" is never theirs. */
    tattle__buffer_clear(&self->page);
    append(&self->page, "</main>\n<script type=\"text/x-tattle-deferred\" "
                        "id=\"tattle-deferred\">\n");
    tattle__remember_error(
        &self->error,
        tattle__sink_write(sink, self->page.data, self->page.length));
    copy_scratch(self, &self->deferred);
    tattle__buffer_clear(&self->page);
    append(&self->page, "</script>\n");
    append_tail(self, summary);
    tattle__remember_error(
        &self->error,
        tattle__sink_write(sink, self->page.data, self->page.length));
    if (self->error)
        return self->error;
    return tattle__report_output_commit(&self->output);
}

static void html_destroy(void *opaque)
{
    struct html_reporter *self = opaque;
    if (!self)
        return;
    tattle__report_output_discard(&self->output);
    if (self->tests.fd > 0)
        close(self->tests.fd);
    if (self->deferred.fd > 0)
        close(self->deferred.fd);
    tattle__sink_release(&self->tests);
    tattle__sink_release(&self->deferred);
    tattle__buffer_release(&self->page);
    tattle__buffer_release(&self->deferred_page);
    tattle__buffer_release(&self->failure_index);
    tattle__buffer_release(&self->failed_ids);
    tattle__name_index_release(&self->suites);
    tattle__name_index_release(&self->tags);
    tattle__call_tree_release(&self->calls);
    free(self->frames);
    free(self->started_at);
    free(self->executable);
    for (int i = 0; self->argv && i < self->argc; i++)
        free(self->argv[i]);
    free(self->argv);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_html = {
    .name = "html",
    .create = html_create,
    .begin = html_begin,
    .test_started = html_test_started,
    .test_finished = html_test_finished,
    .end = html_end,
    .destroy = html_destroy,
};
