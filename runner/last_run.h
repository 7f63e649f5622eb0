/*
 * last_run.h — the state `--failed` reads: `.tattle/last-run.json`.
 *
 * After each complete run the ids of the tests that failed are saved in the
 * working directory's `.tattle/last-run.json` (written atomically); the
 * next run with --failed selects exactly those.
 */
#ifndef TATTLE_RUNNER_LAST_RUN_H
#define TATTLE_RUNNER_LAST_RUN_H

#include "runner/options.h"

/** Loads the failed ids of the previous run. Returns their count (0 when
 * there is no state or no failure), or -EINVAL with a message naming the
 * file when it is unreadable or corrupt. */
int tattle__last_run_load(struct tattle__string_list *failed_ids,
                          struct tattle__buffer *error);

/** Saves the failed ids of this run. Returns 0 or a negative errno. */
int tattle__last_run_save(const struct tattle__string_list *failed_ids);

#endif /* TATTLE_RUNNER_LAST_RUN_H */
