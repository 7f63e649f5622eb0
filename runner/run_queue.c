/*
 * run_queue.c — the scheduler's callbacks: the next job, and each
 * attempt's result turned into a final one or another attempt.
 *
 * A test waiting to run again (a retry or a repeat) goes on a stack and
 * runs before the next test of the plan, so its attempts stay together.
 * A failed attempt waiting for its retry is held: if a retry passes, the
 * held attempt is what the reports show (as flaky), since its failures
 * are the evidence a person needs. The failed attempts before it, and
 * before a final failure, go with the result as its earlier attempts.
 */
#include "runner/run_queue.h"

#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/text.h"
#include "results/model.h"
#include "results/record.h"
#include "runner/command.h"
#include "runner/fork_server.h"
#include "runner/outcome.h"
#include "runner/private_memory.h"

/* A planned test and what its runs have produced so far. */
struct tattle__queued_test {
    const struct tattle__planned_test *planned;
    unsigned runs;
    unsigned retries_used;
    struct tattle__result_record *held; /* a failed attempt, kept */
};

void tattle__run_queue_init(struct tattle__run_queue *queue,
                            const struct tattle__plan *plan,
                            const struct tattle__options *options,
                            const char *program, struct tattle__fanout *fanout)
{
    *queue = (struct tattle__run_queue){
        .plan = plan,
        .options = options,
        .program = program,
        .fanout = fanout,
        .tests = tattle__private_calloc(plan->count, sizeof *queue->tests),
    };
    for (size_t i = 0; i < plan->count; i++)
        queue->tests[i].planned = &plan->tests[i];
    queue->keep_passed_traces = options->trace_passed;
    for (size_t i = 0; i < options->reporter_count; i++)
        if (strcmp(options->reporters[i].name, "flamegraph") == 0 ||
            strcmp(options->reporters[i].name, "chrome-trace") == 0)
            queue->keep_passed_traces = true;
}

/* ---- final results ---- */

static void note_outcome(struct tattle__run_queue *queue, const char *id,
                         bool failed)
{
    /* Ids live in the registry for the whole run: no copy needed. */
    if (queue->outcome_count == queue->outcome_capacity) {
        queue->outcome_capacity =
            queue->outcome_capacity ? queue->outcome_capacity * 2 : 64;
        queue->outcomes = tattle__realloc(
            queue->outcomes, queue->outcome_capacity * sizeof *queue->outcomes);
    }
    queue->outcomes[queue->outcome_count++] =
        (struct tattle__last_run_outcome){id, failed};
}

static void count_result(struct tattle__run_queue *queue,
                         const struct tattle_result *result)
{
    tattle__summary_count(&queue->summary, result);
    bool failed = tattle__result_failed(result);
    if (failed)
        queue->failures_seen++;
    if (result->attempts > 0)
        note_outcome(queue, result->test->id, failed);
}

/* Hands one final result to every reporter, then frees it. A wrapped
 * command's results (its own or its inner tests') are announced here, as
 * they become known, rather than when the command started. */
static void emit_one(struct tattle__run_queue *queue,
                     struct tattle__result_record *record, bool announce)
{
    if (!record->result.rerun)
        record->result.rerun =
            tattle__rerun_command(queue->program, record->result.test->id);
    bool keep_trace = tattle__result_failed(&record->result) ||
                      record->result.flaky || queue->keep_passed_traces;
    if (!keep_trace)
        tattle__record_drop_trace(record);
    count_result(queue, &record->result);
    if (announce && record->result.attempts > 0)
        tattle__fanout_test_started(queue->fanout, record->result.test);
    tattle__fanout_test_finished(queue->fanout, &record->result);
    tattle__record_release(record);
}

/* Hands a final result to every reporter, then frees it: a wrapped
 * GoogleTest program's as one result per inner test. */
static void emit_result(struct tattle__run_queue *queue,
                        struct tattle__result_record *record)
{
    if (!tattle__command_result_is(&record->result)) {
        emit_one(queue, record, false);
        return;
    }
    struct tattle__result_record *inner;
    size_t count = tattle__command_expand(record, &inner);
    if (count == 0) {
        emit_one(queue, record, true);
        return;
    }
    for (size_t i = 0; i < count; i++)
        emit_one(queue, &inner[i], true);
    free(inner);
}

static void emit_not_run(struct tattle__run_queue *queue,
                         const struct tattle__planned_test *planned,
                         enum tattle_state state, const char *reason)
{
    struct tattle__result_record record;
    tattle__record_init_not_run(&record, &planned->entry->info, state, reason);
    emit_result(queue, &record);
}

/* Reports the held failed attempt as the test's result. */
static void emit_held(struct tattle__run_queue *queue,
                      struct tattle__queued_test *test)
{
    test->held->result.attempts = test->runs;
    emit_result(queue, test->held);
    free(test->held);
    test->held = NULL;
}

static void drop_held(struct tattle__queued_test *test)
{
    if (!test->held)
        return;
    tattle__record_release(test->held);
    free(test->held);
    test->held = NULL;
}

/* A suite's after_all that failed after its tests had been reported
 * (under --retry or --repeat it runs at the end of the run; it also runs
 * early to make room for another suite server) is a result of its own,
 * `SUITE/(after_all)`, failed with an error saying how, so that every
 * report carries it. Its test lives as long as the queue. It is not a
 * test --failed can select, so it is not kept for the next run. */
struct tattle__late_fixture {
    struct tattle_test_info info;
    char *id;
};

static void late_after_all_failed(void *context,
                                  const struct tattle_suite *suite,
                                  const struct tattle__fixture_failure *failure,
                                  uint64_t duration_us,
                                  const struct tattle__capture *stdout_capture,
                                  const struct tattle__capture *stderr_capture,
                                  struct tattle__stacks *stacks)
{
    struct tattle__run_queue *queue = context;
    struct tattle__late_fixture *late = tattle__malloc(sizeof *late);
    /* Unique in the run (a suite server ended to make room may start and
     * end again) and across the shards of one, which `tattle merge`
     * joins: each shard runs the suite's after_all for itself. */
    unsigned earlier = 0;
    for (size_t i = 0; i < queue->late_fixture_count; i++)
        earlier +=
            strcmp(queue->late_fixtures[i]->info.suite, suite->name) == 0;
    struct tattle__buffer text = {0};
    tattle__buffer_printf(&text, "%s/(after_all", suite->name);
    if (queue->options->sharded)
        tattle__buffer_printf(&text, ", shard %u of %u",
                              queue->options->shard_index,
                              queue->options->shard_total);
    tattle__buffer_printf(&text, ")");
    if (earlier > 0)
        tattle__buffer_printf(&text, "[%u]", earlier + 1);
    late->id = tattle__buffer_take(&text);
    late->info = (struct tattle_test_info){.id = late->id,
                                           .suite = suite->name,
                                           .name = strchr(late->id, '/') + 1,
                                           .file = suite->file,
                                           .line = suite->line};
    queue->late_fixtures =
        tattle__realloc(queue->late_fixtures, (queue->late_fixture_count + 1) *
                                                  sizeof *queue->late_fixtures);
    queue->late_fixtures[queue->late_fixture_count++] = late;

    struct tattle__result_record record;
    tattle__record_init_not_run(&record, &late->info, TATTLE_STATE_FAILED,
                                NULL);
    tattle__result_add_fixture_error(&record, NULL, failure, stacks);
    record.result.duration_us = duration_us;
    record.result.attempts = 1;
    tattle__result_set_output(&record, stdout_capture, stderr_capture);
    /* Its suite's tests, run again, run after_all again. */
    tattle__buffer_printf(&text, "%s/*", suite->name);
    char *suite_glob = tattle__buffer_take(&text);
    tattle__buffer_append_shell_quoted(&text, queue->program);
    tattle__buffer_append_string(&text, " ");
    tattle__buffer_append_shell_quoted(&text, suite_glob);
    free(suite_glob);
    record.result.rerun = tattle__buffer_take(&text);
    tattle__summary_count(&queue->summary, &record.result);
    queue->failures_seen++;
    tattle__fanout_test_started(queue->fanout, &late->info);
    tattle__fanout_test_finished(queue->fanout, &record.result);
    tattle__record_release(&record);
}

/* ---- the queue ---- */

static bool stop_scheduling(const struct tattle__run_queue *queue)
{
    return queue->options->max_failures &&
           queue->failures_seen >= queue->options->max_failures;
}

static void run_again(struct tattle__run_queue *queue,
                      struct tattle__queued_test *test)
{
    queue->again = tattle__realloc(queue->again, (queue->again_count + 1) *
                                                     sizeof *queue->again);
    queue->again[queue->again_count++] = test;
}

void tattle__run_queue_report_unstarted(struct tattle__run_queue *queue,
                                        const char *reason)
{
    while (queue->again_count > 0) {
        struct tattle__queued_test *test = queue->again[--queue->again_count];
        if (test->held) {
            emit_held(queue, test);
        } else {
            /* A --repeat run that had passed so far. */
            struct tattle__result_record record;
            tattle__record_init_not_run(&record, &test->planned->entry->info,
                                        TATTLE_STATE_PASSED, NULL);
            record.result.attempts = test->runs;
            emit_result(queue, &record);
        }
    }
    while (queue->next_index < queue->plan->count) {
        const struct tattle__planned_test *planned =
            queue->tests[queue->next_index++].planned;
        bool runnable = planned->not_run_state == TATTLE_STATE_PASSED;
        emit_not_run(queue, planned,
                     runnable ? TATTLE_STATE_SKIPPED : planned->not_run_state,
                     runnable ? reason : planned->not_run_reason);
    }
}

/* The next test to run: one waiting to run again, else the next of the
 * plan that runs (reporting those that do not on the way), else NULL. */
static struct tattle__queued_test *take_next(struct tattle__run_queue *queue)
{
    while (!stop_scheduling(queue)) {
        if (queue->again_count > 0)
            return queue->again[--queue->again_count];
        if (queue->next_index == queue->plan->count)
            return NULL;
        struct tattle__queued_test *test = &queue->tests[queue->next_index++];
        const struct tattle__planned_test *planned = test->planned;
        if (planned->not_run_state == TATTLE_STATE_PASSED)
            return test;
        emit_not_run(queue, planned, planned->not_run_state,
                     planned->not_run_reason);
    }
    tattle__run_queue_report_unstarted(queue,
                                       "not run: --max-failures was reached");
    return NULL;
}

static bool next_job(void *context, struct tattle__job *job)
{
    struct tattle__run_queue *queue = context;
    struct tattle__queued_test *test = take_next(queue);
    if (!test)
        return false;
    const struct tattle__planned_test *planned = test->planned;
    *job = (struct tattle__job){
        .entry = planned->entry,
        .timeout_ms = planned->timeout_ms,
        .traced = planned->traced,
        .trace_config = planned->trace_config,
        .attempt = test->runs + 1,
        .caller_data = test,
    };
    return true;
}

static void job_started(void *context, const struct tattle__job *job)
{
    struct tattle__run_queue *queue = context;
    if (job->attempt == 1 && !tattle__command_test_is(job->entry->test))
        tattle__fanout_test_started(queue->fanout, &job->entry->info);
}

/* A failed attempt: held for a retry while one is allowed, else final. */
static void attempt_failed(struct tattle__run_queue *queue,
                           struct tattle__queued_test *test,
                           struct tattle__result_record *record,
                           bool may_run_again)
{
    if (test->retries_used < queue->options->retry && may_run_again) {
        test->retries_used++;
        if (!test->held)
            test->held = tattle__malloc(sizeof *test->held);
        else
            tattle__record_add_earlier(record, test->held);
        *test->held = *record;
        run_again(queue, test);
        return;
    }
    if (test->held) {
        tattle__record_add_earlier(record, test->held);
        drop_held(test);
    }
    record->result.attempts = test->runs;
    emit_result(queue, record);
}

/* A passed attempt: flaky after a failed one, run again while --repeat
 * asks, else final. */
static void attempt_passed(struct tattle__run_queue *queue,
                           struct tattle__queued_test *test,
                           struct tattle__result_record *record,
                           bool may_run_again)
{
    if (test->held) {
        tattle__record_release(record);
        test->held->result.state = TATTLE_STATE_PASSED;
        test->held->result.flaky = true;
        emit_held(queue, test);
        return;
    }
    if (test->runs < queue->options->repeat && may_run_again) {
        tattle__record_release(record);
        run_again(queue, test);
        return;
    }
    record->result.attempts = test->runs;
    emit_result(queue, record);
}

static void job_finished(void *context, const struct tattle__job *job,
                         struct tattle__outcome *outcome)
{
    struct tattle__run_queue *queue = context;
    struct tattle__queued_test *test = job->caller_data;
    test->runs++;
    struct tattle__result_record record;
    tattle__result_build(&record, job, outcome);
    bool may_run_again =
        !stop_scheduling(queue) && outcome->interrupted_by == 0;
    if (tattle__result_failed(&record.result))
        attempt_failed(queue, test, &record, may_run_again);
    else
        attempt_passed(queue, test, &record, may_run_again);
}

/* Whether a test of `suite` may run again: one waiting in the plan or to
 * run again, or the finishing one itself while --repeat or --retry may
 * bring it back. */
static bool suite_pending(void *context, const struct tattle_suite *suite,
                          const struct tattle__job *finishing)
{
    struct tattle__run_queue *queue = context;
    const struct tattle__queued_test *test = finishing->caller_data;
    if (test->runs + 1 < queue->options->repeat ||
        test->retries_used < queue->options->retry)
        return true;
    for (size_t i = 0; i < queue->again_count; i++)
        if (queue->again[i]->planned->entry->suite == suite)
            return true;
    for (size_t i = queue->next_index; i < queue->plan->count; i++) {
        const struct tattle__planned_test *planned = queue->tests[i].planned;
        if (planned->entry->suite == suite &&
            planned->not_run_state == TATTLE_STATE_PASSED)
            return true;
    }
    return false;
}

bool tattle__run_queue_late_results_possible(
    const struct tattle__plan *plan, const struct tattle__options *options)
{
    /* The distinct suites that need a server, counted up to one past what
     * can live at once. */
    const struct tattle_suite *seen[TATTLE__SUITE_SERVERS_MAX + 1];
    size_t seen_count = 0;
    bool after_all = false;
    for (size_t i = 0; i < plan->count; i++) {
        const struct tattle__planned_test *planned = &plan->tests[i];
        const struct tattle_suite *suite = planned->entry->suite;
        if (!suite || planned->not_run_state != TATTLE_STATE_PASSED ||
            !(suite->options.before_all || suite->options.after_all))
            continue;
        after_all = after_all || suite->options.after_all;
        size_t known = 0;
        while (known < seen_count && seen[known] != suite)
            known++;
        if (known == seen_count && seen_count < sizeof seen / sizeof *seen)
            seen[seen_count++] = suite;
    }
    /* A suite server is kept while a run of its tests may still come; with
     * --max-failures the ones left in the plan never come, and after_all
     * runs at the end. */
    bool again =
        options->retry > 0 || options->repeat > 1 || options->max_failures > 0;
    /* With --no-fork there are no servers to make room for. */
    bool crowded = !options->no_fork && seen_count > TATTLE__SUITE_SERVERS_MAX;
    return after_all && (again || crowded);
}

struct tattle__schedule_callbacks
tattle__run_queue_callbacks(struct tattle__run_queue *queue)
{
    return (struct tattle__schedule_callbacks){.next = next_job,
                                               .started = job_started,
                                               .finished = job_finished,
                                               .suite_pending = suite_pending,
                                               .late_after_all_failed =
                                                   late_after_all_failed,
                                               .ctx = queue};
}

void tattle__run_queue_release(struct tattle__run_queue *queue)
{
    if (queue->plan)
        for (size_t i = 0; i < queue->plan->count; i++)
            drop_held(&queue->tests[i]);
    tattle__private_free(queue->tests);
    free(queue->again);
    for (size_t i = 0; i < queue->late_fixture_count; i++) {
        free(queue->late_fixtures[i]->id);
        free(queue->late_fixtures[i]);
    }
    free(queue->late_fixtures);
    free(queue->outcomes);
    *queue = (struct tattle__run_queue){0};
}
