/*
 * model.h — what every reader of results asks of them: which states fail a
 * run, which failure describes a test, what its message's first line is.
 *
 * The model itself (struct tattle_result and what it holds) is public, in
 * include/tattle/reporter.h; the runner builds it (results/record.h), the
 * reporters and the `tattle` command read it. These predicates are written
 * once here so that the console, the reports, the groups and the runner's
 * exit status agree.
 */
#ifndef TATTLE_RESULTS_MODEL_H
#define TATTLE_RESULTS_MODEL_H

#include <stdbool.h>

#include <tattle/reporter.h>

/** True for the states that fail a run: failed and invalid. */
static inline bool tattle__state_fails(enum tattle_state state)
{
    return state == TATTLE_STATE_FAILED || state == TATTLE_STATE_INVALID;
}

/** True when the result fails the run. */
/** Counts `result` into `summary`: the total, its state, flaky. The one
 * rule by which the runner and the tattle command count a summary. */
void tattle__summary_count(struct tattle_summary *summary,
                           const struct tattle_result *result);

static inline bool tattle__result_failed(const struct tattle_result *result)
{
    return tattle__state_fails(result->state);
}

/** Which run of its test the attempt a result shows was: for a flaky
 * pass the failed run before the last (the last passed), else the last. */
unsigned tattle__shown_attempt(const struct tattle_result *result);

/** How many runs of the result's test failed: its earlier attempts and
 * the one it shows, or none for a pass that was never flaky. */
unsigned tattle__failed_attempts(const struct tattle_result *result);

/** Which run of its test the result's earlier attempt `index` was. An
 * attempt that carries its own number (the runner's, or a report's
 * "attempt") keeps it; else it is worked out from where the failed runs
 * end, since they are consecutive: a retry follows its failure at once,
 * and a failure ends --repeat. */
unsigned tattle__earlier_attempt_number(const struct tattle_result *result,
                                        size_t index);

/** True when a failure is filtered: the runner marked it, or its message
 * contains one of options->filter_out (options may be NULL). */
bool tattle__failure_filtered(const struct tattle_failure *failure,
                              const struct tattle_report_options *options);

/** The failure that describes a failed test in groups, summaries and
 * compact lines: the first one not filtered, or NULL when there is none. */
const struct tattle_failure *
tattle__first_failure(const struct tattle_result *result,
                      const struct tattle_report_options *options);

/** A newly allocated, valid UTF-8 copy of the first line of `text` (up to
 * the first '\n', without a trailing '\r'; NULL counts as ""). free() it;
 * NULL when out of memory. */
char *tattle__first_line(const char *text);

/** The command that runs exactly one test again, `PROGRAM --id=ID`, both
 * quoted for a POSIX shell: an exact id, so no glob character, backslash
 * or leading dash in it can select another test. Malloc'd. */
char *tattle__rerun_command(const char *program, const char *id);

/** Which finished tests a report lists under the agent modes
 * (--summary-only, --first-failure, --failures-only). One per report. */
struct tattle__report_selection {
    bool first_failure_seen;
};

/** Whether the report lists `result` (and notes a first failure). */
bool tattle__report_selection_keeps(struct tattle__report_selection *selection,
                                    const struct tattle_report_options *options,
                                    const struct tattle_result *result);

#endif /* TATTLE_RESULTS_MODEL_H */
