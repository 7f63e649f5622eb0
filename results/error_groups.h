/*
 * error_groups.h — failed tests grouped by what they failed with.
 *
 * `--group-by-error` (and the `tattle summary` digest) groups failed tests
 * by the first line of their first unfiltered failure's message, so fifty
 * tests failing with one cause read as one group. Memory grows with the
 * number of distinct messages and failed ids only: one entry per pattern
 * in an open-addressing table, ids kept NUL-separated in one buffer.
 */
#ifndef TATTLE_RESULTS_ERROR_GROUPS_H
#define TATTLE_RESULTS_ERROR_GROUPS_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

struct tattle__error_group {
    char *pattern;
    uint64_t hash;
    uint64_t count;
    struct tattle__buffer ids; /* NUL-separated */
};

struct tattle__error_groups {
    struct tattle__error_group *items;
    size_t count, capacity;
    size_t *slots; /* index + 1, 0 when empty */
    size_t slot_count;
};

/** Adds a finished test when it failed (and has an unfiltered failure). */
void tattle__error_groups_add(struct tattle__error_groups *groups,
                              const struct tattle_result *result,
                              const struct tattle_report_options *options);

/** Starts `groups` from a report's error_groups array as read back
 * ([{"pattern","count","tests":[ids]}], largest first): for a report
 * written without its tests, whose groups cannot be computed again.
 * Members of the wrong type are skipped (the reader checked them). */
void tattle__error_groups_seed(struct tattle__error_groups *groups,
                               const cJSON *array);

/** [{"pattern","count","tests":[ids]}], the largest group first (then the
 * first seen). The array references the groups' strings: delete it before
 * the groups are released. Returns NULL when memory runs out. */
cJSON *tattle__error_groups_json(const struct tattle__error_groups *groups);

void tattle__error_groups_release(struct tattle__error_groups *groups);

#endif /* TATTLE_RESULTS_ERROR_GROUPS_H */
