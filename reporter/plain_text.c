/*
 * plain_text.c — failures, stacks and traces as lines of text (see
 * plain_text.h). Numbers and padding are written by hand: a report of
 * 100,000 traced tests writes five million trace lines.
 */
#include "reporter/plain_text.h"

#include <inttypes.h>
#include <string.h>

#include "base/text.h"
#include "reporter/sequence_diagram.h"

enum { COLUMN_WIDTH = 10 };

static void append(struct tattle__buffer *out, const char *text)
{
    tattle__buffer_append(out, text, strlen(text));
}

void tattle__text_uint(struct tattle__buffer *out, unsigned long long value)
{
    char digits[24];
    size_t n = sizeof digits;
    do {
        digits[--n] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    tattle__buffer_append(out, digits + n, sizeof digits - n);
}

static void append_int(struct tattle__buffer *out, long long value)
{
    if (value < 0) {
        tattle__buffer_append(out, "-", 1);
        tattle__text_uint(out, 0ull - (unsigned long long)value);
    } else
        tattle__text_uint(out, (unsigned long long)value);
}

/* `text` (NULL: `absent`), then spaces up to `width` characters. */
static void append_padded(struct tattle__buffer *out, const char *text,
                          const char *absent, size_t width)
{
    if (!text)
        text = absent;
    size_t length = strlen(text);
    tattle__buffer_append(out, text, length);
    size_t characters = 0;
    for (size_t i = 0; i < length; i++)
        characters += ((unsigned char)text[i] & 0xc0u) != 0x80u;
    if (characters >= width)
        return;
    size_t spaces = width - characters;
    char *at = tattle__buffer_reserve(out, spaces);
    memset(at, ' ', spaces);
    out->length += spaces;
    out->data[out->length] = '\0';
}

static void append_place(struct tattle__buffer *out, const char *file, int line)
{
    append(out, file);
    tattle__buffer_append(out, ":", 1);
    append_int(out, line);
}

static void append_frames(struct tattle__buffer *out,
                          const struct tattle_frame *frames, size_t count,
                          const char *indent)
{
    for (size_t f = 0; f < count; f++) {
        const struct tattle_frame *frame = &frames[f];
        append(out, indent);
        tattle__buffer_append(out, "#", 1);
        tattle__text_uint(out, f);
        tattle__buffer_append(out, " ", 1);
        append(out, frame->function ? frame->function : "??");
        if (frame->file) {
            append(out, " at ");
            append_place(out, frame->file, frame->line);
        } else
            tattle__buffer_printf(out, " (0x%" PRIxPTR ")", frame->address);
        tattle__buffer_append(out, "\n", 1);
    }
}

void tattle__text_frames(struct tattle__buffer *out,
                         const struct tattle_failure *failure,
                         const char *indent)
{
    append_frames(out, failure->frames, failure->frame_count, indent);
}

void tattle__text_thread_stacks(struct tattle__buffer *out,
                                const struct tattle_failure *failure,
                                const char *indent)
{
    struct tattle__buffer deeper = {0};
    append(&deeper, indent);
    append(&deeper, "  ");
    for (size_t i = 0; i < failure->stack_count; i++) {
        const struct tattle_thread_stack *thread = &failure->stacks[i];
        append(out, indent);
        append(out, "thread ");
        append_int(out, thread->tid);
        append(out, " of ");
        append_int(out, thread->pid);
        append(out, " (");
        append(out, thread->actor ? thread->actor : "?");
        append(out, ", state ");
        append(out, thread->state ? thread->state : "?");
        append(out, "):\n");
        append_frames(out, thread->frames, thread->frame_count, deeper.data);
    }
    tattle__buffer_release(&deeper);
}

void tattle__text_failure(struct tattle__buffer *out,
                          const struct tattle_failure *failure)
{
    const char *message = failure->message ? failure->message : "";
    size_t length = strlen(message);
    tattle__buffer_append(out, message, length);
    if (length == 0 || message[length - 1] != '\n')
        tattle__buffer_append(out, "\n", 1);
    char scratch[16];
    switch (failure->kind) {
    case TATTLE_FAILURE_ASSERTION:
        if (failure->macro || failure->expr) {
            append(out, "expression: ");
            append(out, failure->macro ? failure->macro : "");
            tattle__buffer_append(out, "(", 1);
            append(out, failure->expr ? failure->expr : "");
            append(out, ")\n");
        }
        if (failure->left) {
            append(out, failure->right ? "left:  " : "value: ");
            append(out, failure->left);
            tattle__buffer_append(out, "\n", 1);
        }
        if (failure->right) {
            append(out, "right: ");
            append(out, failure->right);
            tattle__buffer_append(out, "\n", 1);
        }
        break;
    case TATTLE_FAILURE_CRASH:
        append(out, "signal: ");
        append(out, tattle__signal_name(failure->signal, scratch));
        tattle__buffer_append(out, "\n", 1);
        break;
    case TATTLE_FAILURE_TIMEOUT:
        append(out, "timeout: ");
        append_int(out, failure->timeout_ms);
        append(out, " ms\n");
        break;
    case TATTLE_FAILURE_EXIT:
        append(out, "exit code: ");
        append_int(out, failure->exit_code);
        tattle__buffer_append(out, "\n", 1);
        break;
    case TATTLE_FAILURE_ERROR:
        break;
    }
    if (failure->fixture) {
        append(out, "in the ");
        append(out, failure->fixture);
        tattle__buffer_append(out, "\n", 1);
    }
    if (failure->file) {
        append(out, "at ");
        append_place(out, failure->file, failure->line);
        tattle__buffer_append(out, "\n", 1);
    }
    if (failure->frame_count) {
        append(out, "stack:\n");
        tattle__text_frames(out, failure, "  ");
    }
    if (failure->stack_count) {
        append(out, "threads:\n");
        tattle__text_thread_stacks(out, failure, "  ");
    }
}

static void append_event(struct tattle__buffer *out,
                         const struct tattle_trace_event *event)
{
    char time[24];
    size_t n = sizeof time;
    unsigned long long t = event->t_us;
    do {
        time[--n] = (char)('0' + t % 10);
        t /= 10;
    } while (t);
    size_t digits = sizeof time - n;
    static const char spaces[] = "              ";
    append(out, "  ");
    if (digits < 9)
        tattle__buffer_append(out, spaces, 9 - digits);
    tattle__buffer_append(out, time + n, digits);
    append(out, "us  ");
    append_padded(out, event->from, "-", COLUMN_WIDTH);
    append(out, " -> ");
    append_padded(out, event->to, "-", COLUMN_WIDTH);
    tattle__buffer_append(out, " ", 1);
    append_padded(out, tattle_trace_event_kind_name(event->kind), "", 5);
    tattle__buffer_append(out, " ", 1);
    append_padded(out, event->label, "", COLUMN_WIDTH);
    if (event->msg && *event->msg) {
        tattle__buffer_append(out, " ", 1);
        append(out, event->msg);
    } else {
        while (out->data[out->length - 1] == ' ')
            out->length--; /* the padding of empty columns */
        out->data[out->length] = '\0';
    }
    tattle__buffer_append(out, "\n", 1);
}

void tattle__text_trace(struct tattle__buffer *out,
                        const struct tattle_trace *trace)
{
    append(out, "trace: ");
    tattle__text_uint(out, trace->recorded);
    append(out, " recorded, ");
    tattle__text_uint(out, trace->dropped);
    append(out, " dropped (cap ");
    tattle__text_uint(out, trace->cap);
    append(out, ", budget ");
    tattle__text_uint(out, trace->budget);
    append(out, ", level ");
    append_int(out, trace->level);
    append(out, trace->overflow ? "; budget exhausted)\n" : ")\n");
    for (size_t i = 0; i < trace->event_count; i++)
        append_event(out, &trace->events[i]);
    for (size_t m = 0; m < trace->mailbox_count; m++) {
        const struct tattle_trace_mailbox *box = &trace->mailboxes[m];
        append(out, "mailbox ");
        append(out, box->name ? box->name : "");
        append(out, " (owner ");
        append(out, box->owner ? box->owner : "?");
        append(out, box->alive ? "): " : ", gone): ");
        tattle__text_uint(out, box->pending);
        append(out, box->approx ? " pending, approximate\n" : " pending\n");
        for (size_t k = 0; k < box->message_count; k++) {
            append(out, "  [");
            tattle__text_uint(out, k);
            append(out, "] ");
            append(out, box->messages[k] ? box->messages[k] : "");
            tattle__buffer_append(out, "\n", 1);
        }
    }
    for (size_t p = 0; p < trace->endpoint_count; p++) {
        const struct tattle_trace_endpoint *endpoint = &trace->endpoints[p];
        append(out, "endpoint ");
        append(out, endpoint->name ? endpoint->name : "");
        append(out, " (");
        append(out, endpoint->kind ? endpoint->kind : "?");
        append(out, ", owner ");
        append(out, endpoint->owner ? endpoint->owner : "?");
        append(out, "): ");
        tattle__text_uint(out, endpoint->pending_bytes);
        append(out, " bytes unread");
        if (endpoint->pending_messages) {
            append(out, " in ");
            tattle__text_uint(out, endpoint->pending_messages);
            append(out, " messages");
        }
        append(out, endpoint->complete ? "\n" : ", incomplete\n");
        if (endpoint->kernel_peeked) {
            append(out, "  ");
            tattle__sequence_kernel_summary(out, endpoint);
            tattle__buffer_append(out, "\n", 1);
        }
        for (size_t k = 0; k < endpoint->message_count; k++) {
            append(out, "  [");
            tattle__text_uint(out, k);
            append(out, "] send #");
            tattle__text_uint(out, endpoint->messages[k].send);
            append(out, ", ");
            tattle__text_uint(out, endpoint->messages[k].bytes);
            append(out, " bytes: ");
            append(out,
                   endpoint->messages[k].msg ? endpoint->messages[k].msg : "");
            tattle__buffer_append(out, "\n", 1);
        }
    }
    if (trace->actor_count) {
        append(out, "actors:");
        for (size_t a = 0; a < trace->actor_count; a++) {
            const struct tattle_trace_actor *actor = &trace->actors[a];
            append(out, a ? ", " : " ");
            append(out, actor->name ? actor->name : "?");
            append(out, " (pid ");
            append_int(out, actor->pid);
            append(out, ", tid ");
            append_int(out, actor->tid);
            append(out, actor->alive_at_exit ? ")" : ", gone)");
        }
        tattle__buffer_append(out, "\n", 1);
    }
}

size_t tattle__text_tail_start(const char *text, size_t length,
                               size_t max_lines, size_t max_bytes)
{
    size_t limit = length > max_bytes ? length - max_bytes : 0;
    size_t end = length;
    if (end > 0 && text[end - 1] == '\n')
        end--;
    size_t lines = 0, i = end;
    while (i > limit) {
        if (text[i - 1] == '\n' && ++lines == max_lines)
            break;
        i--;
    }
    /* Past the cut, skip the continuation bytes of a split character. */
    while (i < length && i == limit && i > 0 &&
           ((unsigned char)text[i] & 0xc0u) == 0x80u) {
        i++;
        limit++;
    }
    return i;
}

void tattle__text_location(const struct tattle_result *result,
                           const struct tattle_failure *failure,
                           const char **file, int *line)
{
    *file = failure ? failure->file : NULL;
    *line = failure ? failure->line : 0;
    for (size_t i = 0; failure && !*file && i < failure->frame_count; i++) {
        *file = failure->frames[i].file;
        *line = failure->frames[i].line;
    }
    if (!*file) {
        *file = result->test->file;
        *line = result->test->line;
    }
}
