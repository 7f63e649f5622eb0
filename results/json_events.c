/*
 * json_events.c — the hand-written printer of a trace's events (see
 * json_events.h for why it exists and what it promises).
 */
#include "results/json_events.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

#define APPEND_LITERAL(out, literal)                                           \
    tattle__buffer_append(out, literal, sizeof literal - 1)
#define APPEND_KEY(out, key) APPEND_LITERAL(out, ",\"" key "\":")

static void append_uint(struct tattle__buffer *out, uint64_t value,
                        bool negative)
{
    char digits[24];
    char *p = digits + sizeof digits;
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    if (negative)
        *--p = '-';
    tattle__buffer_append(out, p, (size_t)(digits + sizeof digits - p));
}

static void append_int(struct tattle__buffer *out, long long value)
{
    uint64_t magnitude =
        value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    append_uint(out, magnitude, value < 0);
}

/* True when JSON holds `bytes` verbatim between quotes. */
static bool needs_no_escaping(const char *bytes, size_t length)
{
    bool ascii = true;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (c < 0x20 || c == '"' || c == '\\')
            return false;
        ascii = ascii && c < 0x80;
    }
    return ascii || tattle__utf8_is_clean(bytes, length);
}

/* Appends `value` as a JSON string literal. */
static bool append_string(struct tattle__buffer *out, const char *value)
{
    size_t length = strlen(value);
    if (needs_no_escaping(value, length)) {
        char *p = tattle__buffer_reserve(out, length + 2);
        *p++ = '"';
        memcpy(p, value, length);
        p[length] = '"';
        p[length + 1] = '\0';
        out->length += length + 2;
        return true;
    }
    char *repaired = tattle__utf8_sanitize(value, length, NULL);
    cJSON *item = repaired ? cJSON_CreateStringReference(repaired) : NULL;
    char *printed = item ? cJSON_PrintUnformatted(item) : NULL;
    cJSON_Delete(item);
    free(repaired);
    if (!printed)
        return false;
    tattle__buffer_append_string(out, printed);
    cJSON_free(printed);
    return true;
}

static bool append_event(struct tattle__buffer *out,
                         const struct tattle_trace_event *event)
{
    bool ok = true;
    APPEND_LITERAL(out, "{\"seq\":");
    append_uint(out, event->seq, false);
    APPEND_KEY(out, "t_us");
    append_uint(out, event->t_us, false);
    APPEND_KEY(out, "kind");
    ok = append_string(out, tattle_trace_event_kind_name(event->kind)) && ok;
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
        ok = append_string(out, strings[i].value) && ok;
    }
    APPEND_KEY(out, "size");
    append_uint(out, event->size, false);
    APPEND_KEY(out, "level");
    append_int(out, event->level);
    if (event->match != 0) {
        APPEND_KEY(out, "match");
        append_uint(out, event->match, false);
    }
    APPEND_LITERAL(out, "}");
    return ok;
}

bool tattle__json_events_print(struct tattle__buffer *out,
                               const struct tattle_trace_event *events,
                               size_t count)
{
    bool ok = true;
    APPEND_LITERAL(out, "[");
    for (size_t i = 0; i < count; i++) {
        if (i)
            APPEND_LITERAL(out, ",");
        ok = append_event(out, &events[i]) && ok;
    }
    APPEND_LITERAL(out, "]");
    return ok;
}
