/*
 * result.h — building a test's result record from what happened.
 *
 * The scheduler's raw outcome (the slot's failures and skip, the wait
 * status, a timeout, the captures, the trace) becomes one owned
 * tattle_result: its state, its failures of kind assertion, crash, timeout,
 * exit or error with their fields, symbolized stack frames and output.
 * Records are owned, so a failed attempt can be kept while a retry runs.
 */
#ifndef TATTLE_RUNNER_RESULT_H
#define TATTLE_RUNNER_RESULT_H

#include <tattle/reporter.h>

#include "runner/scheduler.h"
#include "runner/text.h"

struct tattle__result_record {
    struct tattle_result result;
    struct tattle_failure *failures;
    struct tattle_frame *frames;        /* crash frames, if any */
    size_t frame_count;
    char **owned;                       /* strings to free */
    size_t owned_count;
    struct tattle__buffer stdout_text, stderr_text;
    struct tattle_trace *trace;
};

/** Builds the record of one run. Takes over outcome->trace. */
void tattle__result_build(struct tattle__result_record *record,
                          const struct tattle__job *job,
                          struct tattle__outcome *outcome);

/** A record for a test that does not run: excluded, skipped by its
 * declaration, or invalid (reason as an error failure). */
void tattle__result_build_not_run(struct tattle__result_record *record,
                                  const struct tattle_test_info *test,
                                  enum tattle_state state, const char *reason);

/** Drops the trace of a record (a passed test without --trace-passed). */
void tattle__result_drop_trace(struct tattle__result_record *record);

void tattle__result_release(struct tattle__result_record *record);

#endif /* TATTLE_RUNNER_RESULT_H */
