/*
 * plan.h — the run plan: which tests a run reports, in what order, and how
 * each of them runs.
 *
 * The plan is built once the settings are read: tests are selected by
 * PATTERN and --id, restricted to the failures .tattle/last-run.json
 * records with --failed, and split by shard; each selected test is then
 * to be run or marked excluded (--only, --exclude, --include), skipped or
 * invalid, with its timeout and trace sizes resolved (a size out of range
 * makes the test invalid, never truncated); --shuffle orders the plan by
 * the seed. What happens to each test's runs (--repeat, --retry) is the
 * run queue's (runner/run_queue.h).
 */
#ifndef TATTLE_RUNNER_PLAN_H
#define TATTLE_RUNNER_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "base/buffer.h"
#include "runner/options.h"
#include "runner/registry.h"
#include "tracer/session.h"

/* One selected test and how it runs. */
struct tattle__planned_test {
    struct tattle__test_entry *entry;
    /* TATTLE_STATE_PASSED: the test runs; otherwise it is reported in this
     * state (excluded, skipped or invalid) for not_run_reason. */
    enum tattle_state not_run_state;
    const char *not_run_reason;
    long timeout_ms; /* scaled by TATTLE_TIMEOUT_MULTIPLIER */
    bool traced;
    struct tattle__trace_config trace_config;
    char *owned_reason; /* an invalid test's own reason */
};

struct tattle__plan {
    struct tattle__planned_test *tests; /* kept out of forked processes */
    size_t count;
    /* --failed found no failure of this binary recorded, so the selection
     * runs whole. */
    bool no_failure_recorded;
};

/** Fails when an --id names no registered test: a typo, or a test since
 * renamed or deleted, must not pass for a run in which nothing failed.
 * Returns 0, or -EINVAL with a one-line message in `error`. */
int tattle__plan_check_ids(const struct tattle__options *options,
                           const struct tattle__registry *registry,
                           struct tattle__buffer *error);

/** A seed for --shuffle when none is given (from the time and the pid). */
uint64_t tattle__plan_random_seed(void);

/** Builds `plan` (zeroed by the caller) from the registry and the options;
 * `timeout_multiplier` scales every timeout, and `executable` is the
 * binary --failed looks up. The plan points into `registry`, which must
 * outlive it, and sets each entry's timeout_ms and traced. Returns 0, or
 * -EINVAL with a message in `error` when --failed finds
 * .tattle/last-run.json unreadable; release the plan either way. */
int tattle__plan_build(struct tattle__plan *plan,
                       struct tattle__registry *registry,
                       const struct tattle__options *options,
                       double timeout_multiplier, const char *executable,
                       struct tattle__buffer *error);

void tattle__plan_release(struct tattle__plan *plan);

#endif /* TATTLE_RUNNER_PLAN_H */
