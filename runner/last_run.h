/*
 * last_run.h — the state `--failed` reads: `.tattle/last-run.json`.
 *
 * The file in the working directory records, per test executable, the ids
 * of the tests whose last run failed. Each run merges its own outcomes in
 * (a test that ran is added or removed; a test not run this time keeps
 * what was recorded), so a subset run or another binary's run never
 * erases a failure. The file is written atomically, and runs that end at
 * once in one directory take turns (a lock file beside it), so none of
 * their outcomes is lost; schemas/last-run.schema.json describes it.
 */
#ifndef TATTLE_RUNNER_LAST_RUN_H
#define TATTLE_RUNNER_LAST_RUN_H

#include <stdbool.h>

#include "runner/options.h"

/** One test's outcome in this run. */
struct tattle__last_run_outcome {
    const char *id;
    bool failed;
};

/** Loads the failed ids recorded for `executable`. Returns their count (0
 * when there is no state or no failure), or -EINVAL with a message naming
 * the file when it is unreadable or corrupt. */
int tattle__last_run_load(const char *executable,
                          struct tattle__string_list *failed_ids,
                          struct tattle__buffer *error);

/** Merges this run's outcomes for `executable` into the file. Returns 0 or
 * a negative errno. */
int tattle__last_run_save(const char *executable,
                          const struct tattle__last_run_outcome *outcomes,
                          size_t outcome_count);

#endif /* TATTLE_RUNNER_LAST_RUN_H */
