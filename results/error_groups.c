/*
 * error_groups.c — grouping failed tests by their first failure's message
 * (error_groups.h).
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

/* The group of `pattern`, made when new (taking `pattern`). */
static struct tattle__error_group *
group_for(struct tattle__error_groups *groups, char *pattern)
{
    if (groups->count * 2 >= groups->slot_count)
        rehash(groups, groups->slot_count ? groups->slot_count * 2 : 64);
    uint64_t hash = tattle__hash_text(pattern);
    size_t s = hash & (groups->slot_count - 1);
    for (; groups->slots[s]; s = (s + 1) & (groups->slot_count - 1)) {
        struct tattle__error_group *candidate =
            &groups->items[groups->slots[s] - 1];
        if (candidate->hash == hash &&
            strcmp(candidate->pattern, pattern) == 0) {
            free(pattern);
            return candidate;
        }
    }
    if (groups->count == groups->capacity) {
        groups->capacity = groups->capacity ? groups->capacity * 2 : 16;
        groups->items = tattle__realloc(
            groups->items, groups->capacity * sizeof *groups->items);
    }
    struct tattle__error_group *group = &groups->items[groups->count];
    *group = (struct tattle__error_group){.pattern = pattern, .hash = hash};
    groups->slots[s] = ++groups->count;
    return group;
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
    struct tattle__error_group *group = group_for(groups, pattern);
    const char *id = result->test->id ? result->test->id : "";
    tattle__buffer_append(&group->ids, id, strlen(id) + 1);
    group->count++;
}

void tattle__error_groups_seed(struct tattle__error_groups *groups,
                               const cJSON *array)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        const cJSON *pattern =
            cJSON_GetObjectItemCaseSensitive(item, "pattern");
        const cJSON *count = cJSON_GetObjectItemCaseSensitive(item, "count");
        const cJSON *tests = cJSON_GetObjectItemCaseSensitive(item, "tests");
        if (!cJSON_IsString(pattern) || !cJSON_IsNumber(count) ||
            count->valuedouble < 0)
            continue;
        struct tattle__error_group *group =
            group_for(groups, tattle__strdup(pattern->valuestring));
        group->count += (uint64_t)count->valuedouble;
        const cJSON *id;
        cJSON_ArrayForEach(id, tests)
        {
            if (cJSON_IsString(id))
                tattle__buffer_append(&group->ids, id->valuestring,
                                      strlen(id->valuestring) + 1);
        }
    }
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

cJSON *tattle__error_groups_json(const struct tattle__error_groups *groups)
{
    cJSON *array = cJSON_CreateArray();
    if (!array)
        return NULL;
    const struct tattle__error_group **order =
        tattle__malloc((groups->count + 1) * sizeof *order);
    for (size_t i = 0; i < groups->count; i++)
        order[i] = &groups->items[i];
    qsort(order, groups->count, sizeof *order, compare_groups);
    bool ok = true;
    for (size_t i = 0; ok && i < groups->count; i++) {
        cJSON *group = cJSON_CreateObject();
        ok = group && cJSON_AddItemToArray(array, group);
        if (!ok) {
            cJSON_Delete(group);
            break;
        }
        ok = tattle__json_add_text(group, "pattern", order[i]->pattern);
        ok = tattle__json_add_uint(group, "count", order[i]->count) && ok;
        cJSON *tests = cJSON_AddArrayToObject(group, "tests");
        ok = tests && ok;
        const struct tattle__buffer *ids = &order[i]->ids;
        for (size_t at = 0; ok && at < ids->length;
             at += strlen(ids->data + at) + 1) {
            cJSON *id = tattle__json_text(ids->data + at);
            ok = id && cJSON_AddItemToArray(tests, id);
        }
    }
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
        free(groups->items[i].pattern);
        tattle__buffer_release(&groups->items[i].ids);
    }
    free(groups->items);
    free(groups->slots);
    *groups = (struct tattle__error_groups){0};
}
