/*
 * error_groups.c — grouping failed tests by their first failure's location,
 * then its message (error_groups.h).
 */
#include "results/error_groups.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "results/json.h"
#include "results/model.h"

static void rehash(struct tattle__error_groups *groups, size_t slot_count)
{
    size_t *slots = tattle__calloc(slot_count, sizeof *slots);
    for (size_t i = 0; i < groups->count; i++) {
        size_t s = groups->items[i].hash & (slot_count - 1);
        while (slots[s])
            s = (s + 1) & (slot_count - 1);
        slots[s] = i + 1;
    }
    free(groups->slots);
    groups->slots = slots;
    groups->slot_count = slot_count;
}

/* The group of `key`, made when new (taking `key`; `location` is copied
 * into a new group). */
static struct tattle__error_group *
group_for(struct tattle__error_groups *groups, char *key, const char *location)
{
    if (groups->count * 2 >= groups->slot_count)
        rehash(groups, groups->slot_count ? groups->slot_count * 2 : 64);
    uint64_t hash = tattle__hash_text(key);
    size_t s = hash & (groups->slot_count - 1);
    for (; groups->slots[s]; s = (s + 1) & (groups->slot_count - 1)) {
        struct tattle__error_group *candidate =
            &groups->items[groups->slots[s] - 1];
        if (candidate->hash == hash && strcmp(candidate->key, key) == 0) {
            free(key);
            return candidate;
        }
    }
    if (groups->count == groups->capacity) {
        groups->capacity = groups->capacity ? groups->capacity * 2 : 16;
        groups->items = tattle__realloc(
            groups->items, groups->capacity * sizeof *groups->items);
    }
    struct tattle__error_group *group = &groups->items[groups->count];
    *group = (struct tattle__error_group){
        .key = key,
        .location = location ? tattle__strdup(location) : NULL,
        .hash = hash};
    groups->slots[s] = ++groups->count;
    return group;
}

/* The group's sub-group of `pattern`, made when new (taking `pattern`).
 * A location rarely fails with many messages: a linear search. */
static struct tattle__error_pattern *
pattern_for(struct tattle__error_group *group, char *pattern)
{
    for (size_t i = 0; i < group->pattern_count; i++) {
        if (strcmp(group->patterns[i].pattern, pattern) == 0) {
            free(pattern);
            return &group->patterns[i];
        }
    }
    if (group->pattern_count == group->pattern_capacity) {
        group->pattern_capacity =
            group->pattern_capacity ? group->pattern_capacity * 2 : 2;
        group->patterns = tattle__realloc(
            group->patterns, group->pattern_capacity * sizeof *group->patterns);
    }
    struct tattle__error_pattern *added =
        &group->patterns[group->pattern_count++];
    *added = (struct tattle__error_pattern){.pattern = pattern};
    return added;
}

/* Files a test under `location` (NULL: none) and `pattern` (taken). */
static struct tattle__error_pattern *
file_test(struct tattle__error_groups *groups, const char *location,
          char *pattern)
{
    struct tattle__buffer key = {0};
    tattle__buffer_append_string(&key, location ? "@" : "=");
    tattle__buffer_append_string(&key, location ? location : pattern);
    struct tattle__error_group *group =
        group_for(groups, tattle__buffer_take(&key), location);
    return pattern_for(group, pattern);
}

/* Counts `count` more tests under `pattern`, and lists `id` (NULL: none). */
static void add_id(struct tattle__error_pattern *pattern, const char *id,
                   uint64_t count)
{
    if (id)
        tattle__buffer_append(&pattern->ids, id, strlen(id) + 1);
    pattern->count += count;
}

void tattle__error_groups_add(struct tattle__error_groups *groups,
                              const struct tattle_result *result,
                              const struct tattle_report_options *options)
{
    if (!tattle__result_failed(result))
        return;
    const struct tattle_failure *failure =
        tattle__first_failure(result, options);
    if (!failure)
        return;
    char *pattern = tattle__first_line(failure->message);
    if (!pattern)
        pattern = tattle__strdup("");
    char *location = NULL;
    if (failure->file) {
        struct tattle__buffer where = {0};
        tattle__buffer_printf(&where, "%s:%d", failure->file, failure->line);
        location = tattle__buffer_take(&where);
    }
    struct tattle__error_pattern *filed = file_test(groups, location, pattern);
    free(location);
    add_id(filed, result->test->id ? result->test->id : "", 1);
}

/* One pattern read back: {"pattern","count","tests"}. */
static void seed_pattern(struct tattle__error_groups *groups,
                         const char *location, const cJSON *item)
{
    const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(item, "pattern");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(item, "count");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(item, "tests");
    if (!cJSON_IsString(pattern) || !cJSON_IsNumber(count) ||
        count->valuedouble < 0)
        return;
    struct tattle__error_pattern *filed =
        file_test(groups, location, tattle__strdup(pattern->valuestring));
    add_id(filed, NULL, (uint64_t)count->valuedouble);
    const cJSON *id;
    cJSON_ArrayForEach(id, tests)
    {
        if (cJSON_IsString(id))
            add_id(filed, id->valuestring, 0);
    }
}

void tattle__error_groups_seed(struct tattle__error_groups *groups,
                               const cJSON *array)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        const cJSON *location =
            cJSON_GetObjectItemCaseSensitive(item, "location");
        const char *where =
            cJSON_IsString(location) ? location->valuestring : NULL;
        const cJSON *patterns =
            cJSON_GetObjectItemCaseSensitive(item, "patterns");
        if (!cJSON_IsArray(patterns)) {
            seed_pattern(groups, where, item);
            continue;
        }
        const cJSON *pattern;
        cJSON_ArrayForEach(pattern, patterns)
        {
            seed_pattern(groups, where, pattern);
        }
    }
}

static uint64_t group_count(const struct tattle__error_group *group)
{
    uint64_t count = 0;
    for (size_t i = 0; i < group->pattern_count; i++)
        count += group->patterns[i].count;
    return count;
}

static int compare_groups(const void *a, const void *b)
{
    const struct tattle__error_group *x =
        *(const struct tattle__error_group *const *)a;
    const struct tattle__error_group *y =
        *(const struct tattle__error_group *const *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x < y ? -1 : x > y; /* first seen first */
}

static int compare_patterns(const void *a, const void *b)
{
    const struct tattle__error_pattern *x =
        *(const struct tattle__error_pattern *const *)a;
    const struct tattle__error_pattern *y =
        *(const struct tattle__error_pattern *const *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x < y ? -1 : x > y; /* first seen first */
}

/* Appends every id of `pattern` to `tests`. */
static bool add_ids(cJSON *tests, const struct tattle__error_pattern *pattern)
{
    const struct tattle__buffer *ids = &pattern->ids;
    bool ok = tests != NULL;
    for (size_t at = 0; ok && at < ids->length;
         at += strlen(ids->data + at) + 1) {
        cJSON *id = tattle__json_text(ids->data + at);
        ok = id && cJSON_AddItemToArray(tests, id);
    }
    return ok;
}

static bool add_group(cJSON *array, const struct tattle__error_group *group)
{
    cJSON *object = cJSON_CreateObject();
    if (!object || !cJSON_AddItemToArray(array, object)) {
        cJSON_Delete(object);
        return false;
    }
    const struct tattle__error_pattern **order =
        tattle__malloc((group->pattern_count + 1) * sizeof *order);
    for (size_t i = 0; i < group->pattern_count; i++)
        order[i] = &group->patterns[i];
    qsort(order, group->pattern_count, sizeof *order, compare_patterns);
    bool ok = tattle__json_add_text(
        object, "pattern", group->pattern_count ? order[0]->pattern : "");
    ok = tattle__json_add_text(object, "location", group->location) && ok;
    ok = tattle__json_add_uint(object, "count", group->count) && ok;
    cJSON *tests = cJSON_AddArrayToObject(object, "tests");
    for (size_t i = 0; ok && i < group->pattern_count; i++)
        ok = add_ids(tests, order[i]);
    cJSON *patterns = cJSON_AddArrayToObject(object, "patterns");
    ok = patterns && ok;
    for (size_t i = 0; ok && i < group->pattern_count; i++) {
        cJSON *pattern = cJSON_CreateObject();
        ok = pattern && cJSON_AddItemToArray(patterns, pattern);
        if (!ok) {
            cJSON_Delete(pattern);
            break;
        }
        ok = tattle__json_add_text(pattern, "pattern", order[i]->pattern);
        ok = tattle__json_add_uint(pattern, "count", order[i]->count) && ok;
        ok = add_ids(cJSON_AddArrayToObject(pattern, "tests"), order[i]) && ok;
    }
    free(order);
    return ok;
}

cJSON *tattle__error_groups_json(const struct tattle__error_groups *groups)
{
    cJSON *array = cJSON_CreateArray();
    if (!array)
        return NULL;
    struct tattle__error_group **order =
        tattle__malloc((groups->count + 1) * sizeof *order);
    for (size_t i = 0; i < groups->count; i++) {
        order[i] = &groups->items[i];
        order[i]->count = group_count(order[i]);
    }
    qsort(order, groups->count, sizeof *order, compare_groups);
    bool ok = true;
    for (size_t i = 0; ok && i < groups->count; i++)
        ok = add_group(array, order[i]);
    free(order);
    if (!ok) {
        cJSON_Delete(array);
        return NULL;
    }
    return array;
}

void tattle__error_groups_release(struct tattle__error_groups *groups)
{
    for (size_t i = 0; i < groups->count; i++) {
        struct tattle__error_group *group = &groups->items[i];
        for (size_t p = 0; p < group->pattern_count; p++) {
            free(group->patterns[p].pattern);
            tattle__buffer_release(&group->patterns[p].ids);
        }
        free(group->patterns);
        free(group->key);
        free(group->location);
    }
    free(groups->items);
    free(groups->slots);
    *groups = (struct tattle__error_groups){0};
}
