/*
 * json_events.c — the hand-written printer of a trace's events (see
 * json_events.h for why it exists and what it promises).
 */
#include "results/json_events.h"

#include "results/json_writer.h"

static void append_event(struct tattle__buffer *out,
                         const struct tattle_trace_event *event)
{
    TATTLE__JSON_WRITE_LITERAL(out, "{\"seq\":");
    tattle__json_write_uint(out, event->seq);
    TATTLE__JSON_WRITE_KEY(out, "t_us");
    tattle__json_write_uint(out, event->t_us);
    TATTLE__JSON_WRITE_KEY(out, "kind");
    tattle__json_write_text(out, tattle_trace_event_kind_name(event->kind));
    const struct {
        const char *key_colon; /* ,"key": */
        size_t length;
        const char *value;
    } strings[] = {
        {",\"from\":", 8, event->from},
        {",\"to\":", 6, event->to},
        {",\"label\":", 9, event->label},
        {",\"msg\":", 7, event->msg},
    };
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
        if (!strings[i].value)
            continue;
        tattle__buffer_append(out, strings[i].key_colon, strings[i].length);
        tattle__json_write_text(out, strings[i].value);
    }
    TATTLE__JSON_WRITE_KEY(out, "size");
    tattle__json_write_uint(out, event->size);
    TATTLE__JSON_WRITE_KEY(out, "level");
    tattle__json_write_int(out, event->level);
    if (event->match != 0) {
        TATTLE__JSON_WRITE_KEY(out, "match");
        tattle__json_write_uint(out, event->match);
    }
    TATTLE__JSON_WRITE_LITERAL(out, "}");
}

void tattle__json_events_print(struct tattle__buffer *out,
                               const struct tattle_trace_event *events,
                               size_t count)
{
    TATTLE__JSON_WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < count; i++) {
        if (i)
            TATTLE__JSON_WRITE_LITERAL(out, ",");
        append_event(out, &events[i]);
    }
    TATTLE__JSON_WRITE_LITERAL(out, "]");
}
