/*
 * registry.c — the lists TEST() and SUITE() fill before main() (TEST()
 * records from their linker section, SUITE() from constructors), and
 * their resolution into run entries (ids, effective tags, validity).
 *
 * An id is "suite/name". tattle_test_register() is public, so a record may
 * come from a program that generates tests, with any bytes in its names:
 * a suite or name that is missing or empty, holds a control character (C0,
 * DEL, C1) or is not valid UTF-8, or a suite holding '/', makes the test
 * invalid with a reason that says exactly what is wrong. Such a test is
 * shown under a printable id (each offending byte as \xNN, an empty part
 * as "(empty)", a missing one as "(null)"), so no report, terminal line or
 * rerun command carries the raw bytes.
 */
#include "runner/registry.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "runner/params.h"
#include "runner/private_memory.h"
#include "base/buffer.h"

/* Filled before main(): plain growable arrays. */
static const struct tattle_test **registered_tests;
static size_t registered_test_count, registered_test_capacity;
static const struct tattle_suite **registered_suites;
static size_t registered_suite_count, registered_suite_capacity;

void tattle_test_register(const struct tattle_test *test)
{
    if (registered_test_count == registered_test_capacity) {
        registered_test_capacity =
            registered_test_capacity ? registered_test_capacity * 2 : 64;
        registered_tests =
            tattle__realloc(registered_tests, registered_test_capacity *
                                                  sizeof *registered_tests);
    }
    registered_tests[registered_test_count++] = test;
}

/* The sections already registered: one per executable or shared object
 * holding tests, handed over by each of its translation units. */
static const struct tattle__registration **registered_sections;
static size_t registered_section_count;

/* An entry of a section, with what puts it in source order: the run of
 * entries from one file it belongs to, its line, its place. */
struct placed_entry {
    const struct tattle__registration *entry;
    size_t file_run;
    size_t place;
};

static int placed_entry_compare(const void *left, const void *right)
{
    const struct placed_entry *a = left, *b = right;
    if (a->file_run != b->file_run)
        return a->file_run < b->file_run ? -1 : 1;
    if (a->entry->test->line != b->entry->test->line)
        return a->entry->test->line < b->entry->test->line ? -1 : 1;
    return a->place < b->place ? -1 : a->place > b->place;
}

static bool same_file(const struct tattle_test *a, const struct tattle_test *b)
{
    return a->file == b->file ||
           (a->file && b->file && strcmp(a->file, b->file) == 0);
}

/* The linker puts the files' entries in link order, but a compiler may
 * emit one file's entries in any order (GCC reverses them): each run of
 * entries from one file is put back in the order of their lines. */
void tattle__register_section(const struct tattle__registration *first,
                              const struct tattle__registration *end)
{
    if (!first || first >= end)
        return;
    for (size_t i = 0; i < registered_section_count; i++)
        if (registered_sections[i] == first)
            return;
    registered_sections =
        tattle__realloc(registered_sections, (registered_section_count + 1) *
                                                 sizeof *registered_sections);
    registered_sections[registered_section_count++] = first;

    struct placed_entry *placed =
        tattle__calloc((size_t)(end - first), sizeof *placed);
    size_t count = 0, file_run = 0;
    for (const struct tattle__registration *entry = first; entry < end;
         entry++) {
        if (!entry->test)
            continue; /* padding a compiler put between two files */
        if (count > 0 && !same_file(placed[count - 1].entry->test, entry->test))
            file_run++;
        placed[count] = (struct placed_entry){entry, file_run, count};
        count++;
    }
    qsort(placed, count, sizeof *placed, placed_entry_compare);
    for (size_t i = 0; i < count; i++) {
        const struct tattle__registration *entry = placed[i].entry;
        if (entry->params)
            tattle_test_register_params(entry->test, entry->params);
        else
            tattle_test_register(entry->test);
    }
    free(placed);
}

void tattle_suite_register(const struct tattle_suite *suite)
{
    if (registered_suite_count == registered_suite_capacity) {
        registered_suite_capacity =
            registered_suite_capacity ? registered_suite_capacity * 2 : 8;
        registered_suites =
            tattle__realloc(registered_suites, registered_suite_capacity *
                                                   sizeof *registered_suites);
    }
    registered_suites[registered_suite_count++] = suite;
}

static const struct tattle_suite *suite_find(const char *name)
{
    if (!name)
        return NULL;
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

/* Length of the ill-formed UTF-8 at the start of `bytes`: its first byte
 * and the continuation bytes after it, at most 4. */
static size_t ill_formed_length(const char *bytes, size_t available)
{
    size_t length = 1;
    while (length < available && length < 4 &&
           ((unsigned char)bytes[length] & 0xC0) == 0x80)
        length++;
    return length;
}

/* Checks one part of an id (`what` is "suite name" or "name"). Returns
 * true when it is valid; otherwise writes what is wrong to `reason` and
 * the part's printable form to `shown`. */
static bool check_id_part(const char *part, const char *what, bool is_suite,
                          struct tattle__buffer *reason,
                          struct tattle__buffer *shown)
{
    if (!part) {
        tattle__buffer_printf(
            reason, "invalid test id: the %s is missing (NULL)", what);
        tattle__buffer_append_string(shown, "(null)");
        return false;
    }
    if (!*part) {
        tattle__buffer_printf(reason, "invalid test id: the %s is empty", what);
        tattle__buffer_append_string(shown, "(empty)");
        return false;
    }
    size_t length = strlen(part);
    bool valid = true;
    for (size_t i = 0; i < length;) {
        unsigned char byte = (unsigned char)part[i];
        size_t n = tattle__utf8_sequence_length(part + i, length - i);
        size_t bad = 0;
        if (n == 0) {
            bad = ill_formed_length(part + i, length - i);
            if (valid) {
                tattle__buffer_printf(
                    reason,
                    "invalid test id: the %s is not valid UTF-8 at byte %zu (",
                    what, i + 1);
                for (size_t k = 0; k < bad; k++)
                    tattle__buffer_printf(reason, "\\x%02x",
                                          (unsigned char)part[i + k]);
                tattle__buffer_append_string(reason, ")");
            }
        } else if ((n == 1 && (byte < 0x20 || byte == 0x7f)) ||
                   (n == 2 && byte == 0xC2 &&
                    (unsigned char)part[i + 1] < 0xA0)) {
            bad = n;
            if (valid)
                tattle__buffer_printf(
                    reason,
                    "invalid test id: the %s holds the control character "
                    "U+%04X at byte %zu",
                    what, n == 1 ? byte : (unsigned char)part[i + 1], i + 1);
        } else if (is_suite && byte == '/') {
            bad = 1;
            if (valid)
                tattle__buffer_printf(
                    reason,
                    "invalid test id: the %s holds '/' at byte %zu "
                    "(it separates suite and name)",
                    what, i + 1);
        }
        if (bad) {
            valid = false;
            for (size_t k = 0; k < bad; k++)
                tattle__buffer_printf(shown, "\\x%02x",
                                      (unsigned char)part[i + k]);
            i += bad;
        } else {
            tattle__buffer_append(shown, part + i, n);
            i += n;
        }
    }
    return valid;
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
    registry->entries =
        tattle__private_calloc(count, sizeof *registry->entries);
    registry->count = count;
    size_t capacity = 16;
    while (capacity < count * 2)
        capacity *= 2;
    struct id_set ids = {tattle__calloc(capacity, sizeof *ids.slots),
                         capacity - 1};

    /* A test whose id is not valid gets printable parts and its reason
     * first: they decide the length of its id. */
    for (size_t i = 0; i < count; i++) {
        const struct tattle_test *t = registered_tests[i];
        struct tattle__test_entry *entry = &registry->entries[i];
        struct tattle__buffer suite_reason = {0}, name_reason = {0};
        struct tattle__buffer suite = {0}, name = {0};
        bool suite_valid =
            check_id_part(t->suite, "suite name", true, &suite_reason, &suite);
        bool name_valid =
            check_id_part(t->name, "name", false, &name_reason, &name);
        if (!suite_valid || !name_valid) {
            /* The parts shown whole; the reason names the first problem. */
            entry->shown_suite = tattle__buffer_take(&suite);
            entry->shown_name = tattle__buffer_take(&name);
            entry->invalid_reason =
                tattle__buffer_take(suite_valid ? &name_reason : &suite_reason);
        }
        tattle__buffer_release(&suite_reason);
        tattle__buffer_release(&name_reason);
        tattle__buffer_release(&suite);
        tattle__buffer_release(&name);

        /* One value of a TEST_P: named name[index], its value rendered. */
        const struct tattle__param_case *pc = tattle__param_case_find(t);
        if (pc) {
            struct tattle__buffer indexed = {0};
            tattle__buffer_printf(
                &indexed, "%s[%zu]",
                entry->shown_name ? entry->shown_name : t->name, pc->index);
            free(entry->shown_name);
            entry->shown_name = tattle__buffer_take(&indexed);
            entry->param = tattle__param_case_render(pc);
        }
    }

    /* Ids go into one private block (runner/private_memory.h): they grow
     * with the number of tests and no test process needs them. */
    size_t id_bytes = 0;
    for (size_t i = 0; i < count; i++) {
        const struct tattle__test_entry *entry = &registry->entries[i];
        const struct tattle_test *t = registered_tests[i];
        id_bytes += strlen(entry->shown_suite ? entry->shown_suite : t->suite) +
                    strlen(entry->shown_name ? entry->shown_name : t->name) + 2;
    }
    char *id_pool = tattle__private_calloc(id_bytes ? id_bytes : 1, 1);
    registry->id_pool = id_pool;
    for (size_t i = 0; i < count; i++) {
        const struct tattle_test *t = registered_tests[i];
        struct tattle__test_entry *entry = &registry->entries[i];
        const char *suite_name =
            entry->shown_suite ? entry->shown_suite : t->suite;
        const char *test_name = entry->shown_name ? entry->shown_name : t->name;
        entry->test = t;
        entry->index = i;
        entry->suite = suite_find(t->suite);
        entry->id = id_pool;
        id_pool += sprintf(id_pool, "%s/%s", suite_name, test_name) + 1;

        const char *bad = NULL;
        if (entry->suite) {
            tattle__tag_list_parse(&entry->tags, entry->suite->options.tags);
            bad = first_invalid_tag(entry->suite->options.tags);
        }
        tattle__tag_list_parse(&entry->tags, t->options.tags);
        if (!bad)
            bad = first_invalid_tag(t->options.tags);
        if (bad && !entry->invalid_reason) {
            struct tattle__buffer reason = {0};
            tattle__buffer_printf(&reason, "invalid tag '%s'", bad);
            entry->invalid_reason = tattle__buffer_take(&reason);
        }
        if (!entry->invalid_reason && !id_set_insert(&ids, entry->id))
            entry->invalid_reason =
                tattle__strdup("another test is registered with the same id");

        entry->info = (struct tattle_test_info){
            .id = entry->id,
            .suite = suite_name,
            .name = test_name,
            .file = t->file,
            .line = t->line,
            .param = entry->param,
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
        free(entry->shown_suite);
        free(entry->shown_name);
        free(entry->param);
    }
    tattle__private_free(registry->entries);
    tattle__private_free(registry->id_pool);
    *registry = (struct tattle__registry){0};
}
