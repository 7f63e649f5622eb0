/*
 * registry.c — the lists TEST() and SUITE() fill from constructors, and
 * their resolution into run entries (ids, effective tags, validity).
 */
#include "runner/registry.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/private_memory.h"
#include "runner/text.h"

/* Filled by constructors, before main(): plain growable arrays. */
static const struct tattle_test **registered_tests;
static size_t registered_test_count, registered_test_capacity;
static const struct tattle_suite **registered_suites;
static size_t registered_suite_count, registered_suite_capacity;

void tattle_test_register(const struct tattle_test *test)
{
    if (registered_test_count == registered_test_capacity) {
        registered_test_capacity = registered_test_capacity ? registered_test_capacity * 2 : 64;
        registered_tests = tattle__realloc(
            registered_tests, registered_test_capacity * sizeof *registered_tests);
    }
    registered_tests[registered_test_count++] = test;
}

void tattle_suite_register(const struct tattle_suite *suite)
{
    if (registered_suite_count == registered_suite_capacity) {
        registered_suite_capacity = registered_suite_capacity ? registered_suite_capacity * 2 : 8;
        registered_suites = tattle__realloc(
            registered_suites, registered_suite_capacity * sizeof *registered_suites);
    }
    registered_suites[registered_suite_count++] = suite;
}

static const struct tattle_suite *suite_find(const char *name)
{
    for (size_t i = registered_suite_count; i > 0; i--)
        if (strcmp(registered_suites[i - 1]->name, name) == 0)
            return registered_suites[i - 1];
    return NULL;
}

void tattle__test_entry_sync_tags(struct tattle__test_entry *entry)
{
    entry->info.tags = entry->tags.items;
    entry->info.tag_count = entry->tags.count;
}

static const char *first_invalid_tag(const char *text)
{
    static char bad[128];
    if (!text)
        return NULL;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        size_t length = (size_t)(p - start);
        if (length == 0)
            continue;
        if (length >= sizeof bad)
            length = sizeof bad - 1;
        memcpy(bad, start, length);
        bad[length] = '\0';
        if (!tattle__tag_is_valid(bad))
            return bad;
    }
    return NULL;
}

/* An open-addressing set of ids, to find duplicates in linear time. */
struct id_set {
    const char **slots;
    size_t mask;
};

static size_t id_hash(const char *id)
{
    size_t hash = 1469598103934665603u;
    for (; *id; id++)
        hash = (hash ^ (unsigned char)*id) * 1099511628211u;
    return hash;
}

/* Returns false when the id is already in the set. */
static bool id_set_insert(struct id_set *set, const char *id)
{
    for (size_t i = id_hash(id) & set->mask;; i = (i + 1) & set->mask) {
        if (!set->slots[i]) {
            set->slots[i] = id;
            return true;
        }
        if (strcmp(set->slots[i], id) == 0)
            return false;
    }
}

void tattle__registry_build(struct tattle__registry *registry)
{
    size_t count = registered_test_count;
    registry->entries = tattle__private_calloc(count, sizeof *registry->entries);
    registry->count = count;
    size_t capacity = 16;
    while (capacity < count * 2)
        capacity *= 2;
    struct id_set ids = {tattle__calloc(capacity, sizeof *ids.slots), capacity - 1};

    /* Ids go into one private block (runner/private_memory.h): they grow
     * with the number of tests and no test process needs them. */
    size_t id_bytes = 0;
    for (size_t i = 0; i < count; i++)
        id_bytes += strlen(registered_tests[i]->suite) + strlen(registered_tests[i]->name) + 2;
    char *id_pool = tattle__private_calloc(id_bytes ? id_bytes : 1, 1);
    registry->id_pool = id_pool;
    for (size_t i = 0; i < count; i++) {
        const struct tattle_test *t = registered_tests[i];
        struct tattle__test_entry *entry = &registry->entries[i];
        entry->test = t;
        entry->index = i;
        entry->suite = suite_find(t->suite);
        entry->id = id_pool;
        id_pool += sprintf(id_pool, "%s/%s", t->suite, t->name) + 1;

        const char *bad = NULL;
        if (entry->suite) {
            tattle__tag_list_parse(&entry->tags, entry->suite->options.tags);
            bad = first_invalid_tag(entry->suite->options.tags);
        }
        tattle__tag_list_parse(&entry->tags, t->options.tags);
        if (!bad)
            bad = first_invalid_tag(t->options.tags);
        if (bad) {
            struct tattle__buffer reason = {0};
            tattle__buffer_printf(&reason, "invalid tag '%s'", bad);
            entry->invalid_reason = tattle__buffer_take(&reason);
        }
        if (!entry->invalid_reason && !id_set_insert(&ids, entry->id))
            entry->invalid_reason = tattle__strdup(
                "another test is registered with the same id");

        entry->info = (struct tattle_test_info){
            .id = entry->id,
            .suite = t->suite,
            .name = t->name,
            .file = t->file,
            .line = t->line,
        };
        tattle__test_entry_sync_tags(entry);
    }
    free(ids.slots);
}

void tattle__registry_release(struct tattle__registry *registry)
{
    for (size_t i = 0; i < registry->count; i++) {
        struct tattle__test_entry *entry = &registry->entries[i];
        tattle__tag_list_release(&entry->tags);
        free((char *)entry->invalid_reason);
    }
    tattle__private_free(registry->entries);
    tattle__private_free(registry->id_pool);
    *registry = (struct tattle__registry){0};
}
