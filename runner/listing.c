/*
 * listing.c — --list as text or as JSON.
 *
 * The JSON listing goes through the report's text helpers
 * (results/json.h), so it is valid UTF-8 whatever a test's file name or
 * tag values hold.
 */
#include "runner/listing.h"

#include <cjson/cJSON.h>

#include "results/json.h"

static cJSON *planned_test_json(const struct tattle__planned_test *planned)
{
    const struct tattle__test_entry *entry = planned->entry;
    cJSON *item = cJSON_CreateObject();
    tattle__json_add_text(item, "id", entry->id);
    tattle__json_add_text(item, "suite", entry->info.suite);
    tattle__json_add_text(item, "name", entry->info.name);
    tattle__json_add_text(item, "file", entry->info.file);
    cJSON_AddNumberToObject(item, "line", entry->info.line);
    if (entry->info.param)
        tattle__json_add_text(item, "param", entry->info.param);
    cJSON *tags = cJSON_AddObjectToObject(item, "tags");
    for (size_t t = 0; t < entry->tags.count; t++) {
        const struct tattle_tag *tag = &entry->tags.items[t];
        if (tag->value)
            tattle__json_add_text(tags, tag->name, tag->value);
        else
            cJSON_AddTrueToObject(tags, tag->name);
    }
    cJSON_AddNumberToObject(item, "timeout_ms", (double)planned->timeout_ms);
    tattle__json_add_text(item, "state",
                          planned->not_run_state == TATTLE_STATE_PASSED
                              ? "selected"
                              : tattle_state_name(planned->not_run_state));
    if (planned->not_run_reason)
        tattle__json_add_text(item, "reason", planned->not_run_reason);
    return item;
}

static void print_json(FILE *stream, const struct tattle__plan *plan)
{
    cJSON *array = cJSON_CreateArray();
    for (size_t i = 0; i < plan->count; i++)
        cJSON_AddItemToArray(array, planned_test_json(&plan->tests[i]));
    char *text = cJSON_PrintUnformatted(array);
    if (text) {
        fputs(text, stream);
        fputc('\n', stream);
        cJSON_free(text);
    }
    cJSON_Delete(array);
}

static void print_text(FILE *stream, const struct tattle__plan *plan)
{
    for (size_t i = 0; i < plan->count; i++) {
        const struct tattle__test_entry *entry = plan->tests[i].entry;
        fputs(entry->id, stream);
        for (size_t t = 0; t < entry->tags.count; t++) {
            fputs(t == 0 ? "  [" : " ", stream);
            fputs(entry->tags.items[t].name, stream);
            if (entry->tags.items[t].value)
                fprintf(stream, ":%s", entry->tags.items[t].value);
            if (t + 1 == entry->tags.count)
                fputc(']', stream);
        }
        fputc('\n', stream);
    }
}

void tattle__listing_print(FILE *stream, const struct tattle__plan *plan,
                           bool as_json)
{
    if (as_json)
        print_json(stream, plan);
    else
        print_text(stream, plan);
}
