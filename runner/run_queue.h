/*
 * run_queue.h — what runs next and what becomes of each attempt.
 *
 * The queue feeds the scheduler from the plan: tests in plan order, each
 * not-run test reported as it comes up, a failed test again while --retry
 * allows (passing then: flaky, keeping the failed attempt's failures and
 * output), a passing one again up to --repeat. Once --max-failures is
 * reached, or when the run is interrupted, every test not started is
 * reported skipped with the reason, so the summary's total stays the
 * number of tests selected. Each final result is counted into the
 * summary, noted for .tattle/last-run.json and handed to the reporters.
 */
#ifndef TATTLE_RUNNER_RUN_QUEUE_H
#define TATTLE_RUNNER_RUN_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "runner/fanout.h"
#include "runner/last_run.h"
#include "runner/options.h"
#include "runner/plan.h"
#include "runner/scheduler.h"

struct tattle__queued_test;

struct tattle__run_queue {
    const struct tattle__plan *plan;
    const struct tattle__options *options;
    const char *program; /* for each test's rerun command */
    struct tattle__fanout *fanout;
    struct tattle__queued_test *tests;  /* one per planned test */
    size_t next_index;                  /* the next test of the plan */
    struct tattle__queued_test **again; /* a stack of tests to run again */
    size_t again_count;
    uint64_t failures_seen;
    /* Traces of passed tests are kept (--trace-passed, or a flame graph
     * or timeline asked for, which show every traced test). */
    bool keep_passed_traces;
    struct tattle_summary summary;
    struct tattle__last_run_outcome *outcomes; /* tests that ran */
    size_t outcome_count, outcome_capacity;
    struct tattle__late_fixture **late_fixtures; /* their results' tests */
    size_t late_fixture_count;
};

/** Prepares `queue` to run `plan`. Every pointer must outlive the queue;
 * outcome ids point into the plan's registry. */
void tattle__run_queue_init(struct tattle__run_queue *queue,
                            const struct tattle__plan *plan,
                            const struct tattle__options *options,
                            const char *program, struct tattle__fanout *fanout);

/** Whether running `plan` may report results it does not list: a suite's
 * after_all that fails once its tests were reported (under --retry or
 * --repeat, or when more suites need a server at once than can live).
 * Reporters are told the count of results is open. */
bool tattle__run_queue_late_results_possible(
    const struct tattle__plan *plan, const struct tattle__options *options);

/** The callbacks that make the scheduler run the queue. */
struct tattle__schedule_callbacks
tattle__run_queue_callbacks(struct tattle__run_queue *queue);

/** Reports every test not finished yet: a test waiting to run again with
 * the result it has, every other one skipped for `reason`. */
void tattle__run_queue_report_unstarted(struct tattle__run_queue *queue,
                                        const char *reason);

/** Frees the queue (a zeroed queue is fine). */
void tattle__run_queue_release(struct tattle__run_queue *queue);

#endif /* TATTLE_RUNNER_RUN_QUEUE_H */
