/*
 * outcome.h — a test's result record, built from what happened to it.
 *
 * The scheduler's raw outcome (the slot's failures and skip, the wait
 * status, a timeout, the captures, the trace) becomes one owned result
 * (results/record.h): its state, its failures of kind assertion, crash,
 * timeout, exit or error with their fields, symbolized stack frames and
 * output. Records are owned, so a failed attempt can be kept while a retry
 * runs.
 */
#ifndef TATTLE_RUNNER_OUTCOME_H
#define TATTLE_RUNNER_OUTCOME_H

#include <tattle/reporter.h>

#include "results/record.h"
#include "runner/scheduler.h"

/** Puts the captured output into the record's result: empty when the
 * captures are NULL (--no-fork captures nothing). */
void tattle__result_set_output(struct tattle__result_record *record,
                               const struct tattle__capture *stdout_capture,
                               const struct tattle__capture *stderr_capture);

/** Adds a suite fixture's failure to the record: an error with its
 * message and its crash's frames (copied, as a test's crash's frames, and
 * the innermost with a source location as its file and line), and where
 * the fixture's threads were when it ran out of time (`stacks`,
 * NULL or not taken when none; its threads are taken over). `entry` is
 * the test it is reported on, or NULL. The threads are not named after
 * any trace's actors: a fixture's thread may reuse the id a traced test's
 * thread had. */
void tattle__result_add_fixture_error(
    struct tattle__result_record *record,
    const struct tattle__test_entry *entry,
    const struct tattle__fixture_failure *failure,
    struct tattle__stacks *stacks);

/** Builds the record of one run. Takes over outcome->trace. */
void tattle__result_build(struct tattle__result_record *record,
                          const struct tattle__job *job,
                          struct tattle__outcome *outcome);

#endif /* TATTLE_RUNNER_OUTCOME_H */
