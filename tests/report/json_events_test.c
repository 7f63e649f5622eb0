/*
 * json_events_test.c — the hand-written event printer prints exactly what
 * cJSON prints for the same events built by the model's builders.
 *
 * results/json_events.c prints a trace's events by hand for speed and
 * promises the bytes cJSON_PrintUnformatted would print for the same
 * array. This program builds events from hostile strings (every byte value
 * alone and in runs, quotes, backslashes, control characters, C1 and
 * invalid UTF-8, NUL-free but dirty sequences, long strings, absent
 * fields) and the largest exact numbers, prints them both ways, and
 * compares byte for byte. Exits 0 when every comparison held, 1 naming
 * each case that differed.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/json.h"
#include "results/json_events.h"

static int failures;

/* The event built with the model's cJSON builders (results/json.h):
 * what the report would hold without the printer, exact integers and
 * repaired strings included. */
static cJSON *event_object(const struct tattle_trace_event *event)
{
    cJSON *object = cJSON_CreateObject();
    tattle__json_add_uint(object, "seq", event->seq);
    tattle__json_add_uint(object, "t_us", event->t_us);
    tattle__json_add_text(object, "kind",
                          tattle_trace_event_kind_name(event->kind));
    const struct {
        const char *key, *value;
    } strings[] = {{"from", event->from},
                   {"to", event->to},
                   {"label", event->label},
                   {"msg", event->msg}};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        if (strings[i].value)
            tattle__json_add_text(object, strings[i].key, strings[i].value);
    tattle__json_add_uint(object, "size", event->size);
    cJSON_AddNumberToObject(object, "level", event->level);
    return object;
}

static void compare(const char *what, const struct tattle_trace_event *events,
                    size_t count)
{
    struct tattle__buffer printed = {0};
    tattle__json_events_print(&printed, events, count);
    cJSON *array = cJSON_CreateArray();
    for (size_t i = 0; i < count; i++)
        cJSON_AddItemToArray(array, event_object(&events[i]));
    char *expected = cJSON_PrintUnformatted(array);
    cJSON_Delete(array);
    if (strcmp(printed.data, expected) != 0) {
        size_t at = 0;
        while (printed.data[at] && printed.data[at] == expected[at])
            at++;
        printf("FAILED: %s: differs at byte %zu\n  printer: %.80s\n  cJSON:   "
               "%.80s\n",
               what, at, printed.data + at, expected + at);
        failures++;
    }
    cJSON_free(expected);
    tattle__buffer_release(&printed);
}

static struct tattle_trace_event event_with(const char *text)
{
    return (struct tattle_trace_event){.seq = 7,
                                       .t_us = 12345,
                                       .kind = TATTLE_TRACE_SEND,
                                       .from = text,
                                       .to = text,
                                       .label = text,
                                       .msg = text,
                                       .size = 64,
                                       .level = 3};
}

int main(void)
{
    /* Every byte value but NUL, alone and inside text. */
    for (int byte = 1; byte < 256; byte++) {
        char alone[2] = {(char)byte, 0};
        char inside[8] = {'a', (char)byte, 'b', (char)byte, (char)byte, 'c', 0};
        char what[64];
        struct tattle_trace_event events[2] = {event_with(alone),
                                               event_with(inside)};
        snprintf(what, sizeof what, "byte 0x%02x", byte);
        compare(what, events, 2);
    }
    static const char *const hostile[] = {
        "",
        "\"",
        "\\",
        "\"quoted\" and \\back\\slashed\\",
        "</script>",
        "line\nbreak\ttab\rreturn",
        "\x1b[31mred\x1b[0m",
        "\x7f del",
        "C1 \xc2\x80 \xc2\x9b \xc2\x9f",
        "nbsp \xc2\xa0",
        "é ü ß 漢字 🙂",
        "\xff\xfe",
        "\xc3",
        "\xe2\x82",
        "\xf0\x9f\x99",
        "\xc0\xaf overlong",
        "\xed\xa0\x80 surrogate",
        "\xf4\x90\x80\x80 above U+10FFFF",
        "mixed \xe9t\xe9 latin-1",
        "/slash/ and \\u0000 text",
        "\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x1f",
    };
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        struct tattle_trace_event event = event_with(hostile[i]);
        char what[64];
        snprintf(what, sizeof what, "hostile string %zu", i);
        compare(what, &event, 1);
    }
    /* A long dirty string, absent fields, every kind, extreme numbers. */
    size_t long_length = 70000;
    char *long_text = malloc(long_length + 1);
    for (size_t i = 0; i < long_length; i++)
        long_text[i] = "a\"\\\x01\xc3\xa9\xff"[i % 7];
    long_text[long_length] = '\0';
    struct tattle_trace_event events[] = {
        event_with(long_text),
        {.seq = 1, .kind = TATTLE_TRACE_SPAWN},
        {.seq = 2, .kind = TATTLE_TRACE_EXIT, .from = "worker"},
        {.seq = 3, .kind = TATTLE_TRACE_RECV, .to = "me", .msg = ""},
        {.seq = (UINT64_C(1) << 53) - 1,
         .t_us = (UINT64_C(1) << 53) - 1,
         .kind = TATTLE_TRACE_EVENT,
         .size = (UINT64_C(1) << 53) - 1,
         .level = -2147483647 - 1},
        {.seq = 0, .kind = TATTLE_TRACE_EVENT, .level = 2147483647},
    };
    compare("long, absent, every kind, extremes", events,
            sizeof events / sizeof *events);
    compare("no event", NULL, 0);
    free(long_text);
    if (failures)
        return 1;
    puts("ok: the printer's output equals cJSON's");
    return 0;
}
