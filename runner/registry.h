/*
 * registry.h — the registered tests and suites, resolved for a run.
 *
 * TEST() and SUITE() register static records from constructors, in
 * definition order. Before a run the registry resolves each test into a
 * tattle__test_entry: its id, its effective tags (suite tags, then its own,
 * then tags added by the configuration file), its suite's fixtures and
 * whether its declaration is valid.
 */
#ifndef TATTLE_RUNNER_REGISTRY_H
#define TATTLE_RUNNER_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include <tattle/reporter.h>

#include "runner/tags.h"

struct tattle__test_entry {
    const struct tattle_test *test;
    const struct tattle_suite *suite; /* NULL when the suite has no SUITE() */
    struct tattle_test_info info;     /* what reporters see */
    struct tattle__tag_list tags;
    char *id;                       /* in the registry's id pool */
    size_t index;                   /* registration order */
    const char *invalid_reason;     /* non-NULL: the declaration is bad */
    char *shown_suite, *shown_name; /* an invalid id's printable parts, or
                                       a TEST_P case's name[index] */
    char *param;                    /* a TEST_P case's value, rendered */
};

struct tattle__registry {
    /* In private memory (runner/private_memory.h): a test process must use
     * a copy of its own entry, never these. */
    struct tattle__test_entry *entries;
    size_t count;
    char *id_pool; /* the entries' ids, private too */
};

/** Resolves every registered test. The registry owns its entries. */
void tattle__registry_build(struct tattle__registry *registry);
void tattle__registry_release(struct tattle__registry *registry);

/** Re-points info.tags at the entry's tag list (after tags were added). */
void tattle__test_entry_sync_tags(struct tattle__test_entry *entry);

#endif /* TATTLE_RUNNER_REGISTRY_H */
