/*
 * error_groups.h — failed tests grouped by where and what they failed with.
 *
 * `--group-by-error` (and the `tattle summary` digest) groups failed tests
 * by their first unfiltered failure: by its location (file:line) when it
 * has one, so two errno values reported by one line are one group, and by
 * the first line of its message otherwise. Within a group the messages'
 * first lines are sub-groups ("patterns"). Memory grows with the number
 * of distinct keys and failed ids only: one entry per key in an
 * open-addressing table, ids kept NUL-separated in one buffer per
 * pattern.
 */
#ifndef TATTLE_RESULTS_ERROR_GROUPS_H
#define TATTLE_RESULTS_ERROR_GROUPS_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

/** The tests of one group that failed with one message (first line). */
struct tattle__error_pattern {
    char *pattern;
    uint64_t count;
    struct tattle__buffer ids; /* NUL-separated */
};

struct tattle__error_group {
    char *key;      /* "@file:line" or "=pattern": what the table hashes */
    char *location; /* "file:line", or NULL for a group by message */
    uint64_t hash;
    uint64_t count;
    struct tattle__error_pattern *patterns; /* first seen first */
    size_t pattern_count, pattern_capacity;
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
 * ([{"pattern","location","count","tests":[ids],"patterns":[...]}],
 * largest first; "location" and "patterns" optional): for a report
 * written without its tests, whose groups cannot be computed again.
 * Members of the wrong type are skipped (the reader checked them). */
void tattle__error_groups_seed(struct tattle__error_groups *groups,
                               const cJSON *array);

/** [{"pattern","location","count","tests":[ids],"patterns":[{"pattern",
 * "count","tests"}]}], the largest group first (then the first seen);
 * "pattern" is the group's most frequent message, "location" "file:line"
 * or null, "patterns" its messages, the most frequent first. The array
 * references the groups' strings: delete it before the groups are released.
 * Returns NULL when memory runs out. */
cJSON *tattle__error_groups_json(const struct tattle__error_groups *groups);

void tattle__error_groups_release(struct tattle__error_groups *groups);

#endif /* TATTLE_RESULTS_ERROR_GROUPS_H */
