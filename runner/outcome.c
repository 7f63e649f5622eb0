/*
 * outcome.c — deciding a test's state and failures from its raw outcome.
 *
 * The rules, in order: a test killed because the run was interrupted has a
 * failure of kind error; a timeout is a failure of kind timeout; death by a
 * signal is a crash (with the frames the handler captured); an exit before
 * the test finished (any status, 0 included) is a failure of kind exit;
 * recorded assertions are failures; a skip without failures is skipped. A
 * test declared to die (.expect_signal, .expect_exit) passes when it died
 * that way after its setup, and any other ending is its failure. A
 * failure while the fixtures were setting up makes the test invalid. What
 * the slot or the arena showed to be overwritten is an error failure of
 * its own. A suite fixture's failure (before_all, a suite server that
 * died, after_all run after this test) is an error failure naming it.
 * A wrapped command (`tattle run`, runner/command.h) never reports
 * through the slot: its exit status 0 passes, another status is a
 * failure of kind exit, a signal a crash.
 */
#include "runner/outcome.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/text.h"
#include "runner/command.h"
#include "runner/stacks.h"
#include "runner/symbolize.h"

static const char *phase_name(enum tattle__phase phase)
{
    switch (phase) {
    case TATTLE__PHASE_STARTING:
        return "before the test started";
    case TATTLE__PHASE_SETUP:
        return "during setup";
    case TATTLE__PHASE_BODY:
        return "during the test body";
    case TATTLE__PHASE_TEARDOWN:
        return "during teardown";
    case TATTLE__PHASE_ON_EXIT:
        return "in an on-exit callback";
    case TATTLE__PHASE_DONE:
        return "after the test finished";
    }
    return "";
}

/* Symbolized frames go into the record: the array as its frames, their
 * strings among its owned strings. The frame of the test's body, which
 * TEST() names tattle__body__SUITE__NAME, is named by the test's id. */
static void take_frames(struct tattle__result_record *record,
                        const struct tattle__test_entry *entry,
                        const struct tattle__outcome *outcome)
{
    const struct tattle__slot_reading *reading = &outcome->reading;
    record->frames =
        tattle__symbolize(reading->crash_frames, reading->crash_frame_count,
                          outcome->crash_maps, &record->frame_count);
    const char *body = tattle__record_printf(
        record, "tattle__body__%s__%s", entry->test->suite, entry->test->name);
    for (size_t i = 0; i < record->frame_count; i++) {
        struct tattle_frame *frame = &record->frames[i];
        tattle__record_own(record, (char *)frame->function);
        tattle__record_own(record, (char *)frame->file);
        if (frame->function && strcmp(frame->function, body) == 0)
            frame->function = entry->info.id;
    }
}

/* A timed-out (or a traced, crashed) test's stacks, or a timed-out suite
 * fixture's, go into the record as `failure`'s: the threads array is taken
 * over, their strings among its owned strings. A thread the trace named is
 * called by its actor's name; the test's body by the test's id (`entry`
 * may be NULL: no test). What kept stacks out is said in the failure's
 * message. A record holds the stacks of one moment: a second set is
 * left out, and the failure says so. */
static void take_stacks(struct tattle__result_record *record,
                        const struct tattle__test_entry *entry,
                        struct tattle__stacks *stacks,
                        const struct tattle_trace *trace,
                        struct tattle_failure *failure)
{
    if (!stacks || !stacks->taken)
        return;
    if (stacks->note)
        failure->message = tattle__record_printf(
            record, "%s (stacks: %s)", failure->message, stacks->note);
    if (stacks->thread_count == 0)
        return;
    if (record->stacks) {
        failure->message = tattle__record_printf(
            record, "%s (stacks: left out, the test's own are shown)",
            failure->message);
        return;
    }
    const char *body =
        entry ? tattle__record_printf(record, "tattle__body__%s__%s",
                                      entry->test->suite, entry->test->name)
              : NULL;
    for (size_t i = 0; i < stacks->thread_count; i++) {
        struct tattle_thread_stack *thread = &stacks->threads[i];
        tattle__record_own(record, (char *)thread->actor);
        tattle__record_own(record, (char *)thread->state);
        for (size_t a = 0; trace && a < trace->actor_count; a++)
            if (trace->actors[a].tid == thread->tid && trace->actors[a].name)
                thread->actor =
                    tattle__record_copy(record, trace->actors[a].name);
        struct tattle_frame *frames = (struct tattle_frame *)thread->frames;
        for (size_t f = 0; f < thread->frame_count; f++) {
            tattle__record_own(record, (char *)frames[f].function);
            tattle__record_own(record, (char *)frames[f].file);
            if (body && frames[f].function &&
                strcmp(frames[f].function, body) == 0)
                frames[f].function = entry->info.id;
        }
    }
    record->stacks = stacks->threads;
    record->stack_count = stacks->thread_count;
    stacks->threads = NULL;
    stacks->thread_count = 0;
    failure->stacks = record->stacks;
    failure->stack_count = record->stack_count;
}

/* A crash's failure happened where the innermost of its frames with a
 * source location is. */
static void locate_at_frames(struct tattle_failure *failure)
{
    for (size_t i = 0; i < failure->frame_count; i++) {
        if (failure->frames[i].file) {
            failure->file = failure->frames[i].file;
            failure->line = failure->frames[i].line;
            return;
        }
    }
}

static void add_crash(struct tattle__result_record *record,
                      const struct tattle__test_entry *entry,
                      const struct tattle__outcome *outcome, int signal_number)
{
    const struct tattle__slot_reading *reading = &outcome->reading;
    char name[16];
    const char *message = tattle__record_printf(
        record, "the test process was killed by %s (%s) %s",
        tattle__signal_name(signal_number, name), strsignal(signal_number),
        phase_name(reading->phase));
    struct tattle_failure *failure =
        tattle__record_add_failure(record, TATTLE_FAILURE_CRASH);
    failure->message = message;
    failure->signal = signal_number;
    if (!reading->crashed || reading->crash_signal != signal_number)
        return;
    take_frames(record, entry, outcome);
    failure->frames = record->frames;
    failure->frame_count = record->frame_count;
    locate_at_frames(failure);
    /* A traced test's handler rang the runner: every thread's stack. */
    take_stacks(record, entry, outcome->stacks, outcome->trace, failure);
}

static void add_recorded_failures(struct tattle__result_record *record,
                                  const struct tattle__slot_reading *reading)
{
    for (size_t i = 0; i < reading->failure_count; i++) {
        const struct tattle__slot_failure *recorded = &reading->failures[i];
        struct tattle_failure *failure =
            tattle__record_add_failure(record, recorded->kind);
        failure->message = tattle__record_copy(
            record, recorded->message ? recorded->message : "");
        failure->file = tattle__record_copy(record, recorded->file);
        failure->line = recorded->line;
        failure->macro = tattle__record_copy(record, recorded->macro);
        failure->expr = tattle__record_copy(record, recorded->expr);
        failure->left = tattle__record_copy(record, recorded->left);
        failure->right = tattle__record_copy(record, recorded->right);
    }
    if (reading->corruption)
        tattle__record_add_error(
            record,
            "result slot corrupted: %s (the test overwrote the "
            "memory it reports through; what came before is kept)",
            reading->corruption);
    if (reading->failures_dropped > 0)
        tattle__record_add_error(
            record, "%u more failures were not recorded (result slot full)",
            reading->failures_dropped);
}

/* A test declared to die: nothing when it died as declared after its
 * setup, else the failure saying how it ended instead. Returns whether
 * the ending is a failure. */
static bool add_expected_ending(struct tattle__result_record *record,
                                const struct tattle__job *job,
                                const struct tattle__outcome *outcome)
{
    const struct tattle_test_options *options = &job->entry->test->options;
    enum tattle__phase phase = outcome->reading.phase;
    bool after_setup = phase != TATTLE__PHASE_STARTING &&
                       phase != TATTLE__PHASE_SETUP &&
                       !outcome->reading.setup_failed;
    int status = outcome->wait_status;
    char name[16];
    const char *expected =
        options->expect_signal
            ? tattle__record_printf(
                  record, "to be killed by %s (%s)",
                  tattle__signal_name(options->expect_signal, name),
                  strsignal(options->expect_signal))
            : tattle__record_printf(record, "to exit with status %d",
                                    options->expect_exit);
    if (WIFSIGNALED(status)) {
        if (after_setup && WTERMSIG(status) == options->expect_signal)
            return false;
        add_crash(record, job->entry, outcome, WTERMSIG(status));
    } else {
        int code = WEXITSTATUS(status);
        if (after_setup && phase != TATTLE__PHASE_DONE && code != 0 &&
            code == options->expect_exit)
            return false;
        struct tattle_failure *failure =
            tattle__record_add_failure(record, TATTLE_FAILURE_EXIT);
        failure->message =
            phase == TATTLE__PHASE_DONE && code == 0
                ? "the test finished without dying"
                : tattle__record_printf(
                      record, "the test process exited with status %d %s", code,
                      phase_name(phase));
        failure->exit_code = code;
    }
    /* The failure just added says what happened; it also says what was
     * declared. */
    struct tattle_failure *failure =
        &record->failures[record->result.failure_count - 1];
    failure->message =
        tattle__record_printf(record, "%s; it was expected %s after its setup",
                              failure->message, expected);
    if (!failure->file) {
        failure->file = job->entry->info.file;
        failure->line = job->entry->info.line;
    }
    return true;
}

/* How a wrapped command's process ended, which is its result: nothing
 * for status 0. Returns whether it failed. */
static bool add_command_ending(struct tattle__result_record *record,
                               const struct tattle__job *job,
                               const struct tattle__outcome *outcome)
{
    int status = outcome->wait_status;
    if (WIFSIGNALED(status)) {
        add_crash(record, job->entry, outcome, WTERMSIG(status));
        char name[16];
        record->failures[record->result.failure_count - 1].message =
            tattle__record_printf(record, "the command was killed by %s (%s)",
                                  tattle__signal_name(WTERMSIG(status), name),
                                  strsignal(WTERMSIG(status)));
        return true;
    }
    int code = WEXITSTATUS(status);
    if (code == 0)
        return false;
    struct tattle_failure *failure =
        tattle__record_add_failure(record, TATTLE_FAILURE_EXIT);
    failure->message = tattle__record_printf(
        record, "the command exited with status %d", code);
    failure->exit_code = code;
    return true;
}

/* The failure that says how the test process ended, when that was not
 * the end of a test; returns whether it ended before the test did. */
static bool add_ending(struct tattle__result_record *record,
                       const struct tattle__job *job,
                       const struct tattle__outcome *outcome)
{
    bool command = tattle__command_test_is(job->entry->test);
    const char *phase =
        command ? "the command" : phase_name(outcome->reading.phase);
    if (outcome->interrupted_by > 0) {
        char name[16];
        tattle__record_add_error(
            record,
            "the run was interrupted (%s) while this test was running %s",
            tattle__signal_name(outcome->interrupted_by, name), phase);
        return true;
    }
    if (outcome->interrupted_by < 0) {
        tattle__record_add_error(record,
                                 "the run stopped on an internal error while "
                                 "this test was running %s",
                                 phase);
        return true;
    }
    if (outcome->timed_out) {
        const char *message =
            command ? tattle__record_printf(
                          record, "the command did not finish within %ld ms",
                          job->timeout_ms)
                    : tattle__record_printf(
                          record, "the test did not finish within %ld ms %s",
                          job->timeout_ms, phase);
        struct tattle_failure *failure =
            tattle__record_add_failure(record, TATTLE_FAILURE_TIMEOUT);
        failure->message = message;
        failure->timeout_ms = job->timeout_ms;
        take_stacks(record, job->entry, outcome->stacks, outcome->trace,
                    failure);
        return true;
    }
    if (!outcome->forked)
        return false;
    if (command)
        return add_command_ending(record, job, outcome);
    const struct tattle_test_options *options = &job->entry->test->options;
    if (options->expect_signal || options->expect_exit)
        return add_expected_ending(record, job, outcome);
    if (WIFSIGNALED(outcome->wait_status)) {
        add_crash(record, job->entry, outcome, WTERMSIG(outcome->wait_status));
        return true;
    }
    int code = WEXITSTATUS(outcome->wait_status);
    if (code == 0 && outcome->reading.phase == TATTLE__PHASE_DONE)
        return false;
    const char *message = tattle__record_printf(
        record, "the test process exited with status %d %s", code, phase);
    struct tattle_failure *failure =
        tattle__record_add_failure(record, TATTLE_FAILURE_EXIT);
    failure->message = message;
    failure->exit_code = code;
    return true;
}

/* Names a fixture for a failure's "fixture": its role, then its function
 * when the symbol table has it ("suite setup open_db"). */
static const char *fixture_text(struct tattle__result_record *record,
                                const struct tattle__test_entry *entry,
                                enum tattle__fixture_role role)
{
    const struct tattle_suite_options none = {0};
    const struct tattle_suite_options *suite =
        entry->suite ? &entry->suite->options : &none;
    const struct tattle_test_options *test = &entry->test->options;
    const char *what = NULL;
    const void *function = NULL;
    switch (role) {
    case TATTLE__FIXTURE_NONE:
        return NULL;
    case TATTLE__FIXTURE_SUITE_SETUP:
        what = "suite setup";
        function = suite->setup;
        break;
    case TATTLE__FIXTURE_TEST_SETUP:
        what = "test setup";
        function = test->setup;
        break;
    case TATTLE__FIXTURE_TEST_TEARDOWN:
        what = "test teardown";
        function = test->teardown;
        break;
    case TATTLE__FIXTURE_SUITE_TEARDOWN:
        what = "suite teardown";
        function = suite->teardown;
        break;
    }
    char *name = function ? tattle__symbolize_function(function) : NULL;
    const char *text =
        name ? tattle__record_printf(record, "%s %s", what, name) : what;
    free(name);
    return text;
}

/* A test that failed in a fixture: its failures name it. A setup that
 * failed or broke accounts for every failure (the body never ran); a
 * process that ended in a teardown, for the failure saying so. */
static void name_fixture(struct tattle__result_record *record,
                         const struct tattle__test_entry *entry,
                         const struct tattle__slot_reading *reading,
                         bool in_setup, bool broken)
{
    enum tattle__fixture_role role = reading->fixture;
    bool setup_role = role == TATTLE__FIXTURE_SUITE_SETUP ||
                      role == TATTLE__FIXTURE_TEST_SETUP;
    size_t count = record->result.failure_count;
    if (in_setup && setup_role) {
        const char *text = fixture_text(record, entry, role);
        for (size_t i = 0; i < count; i++)
            if (!record->failures[i].fixture)
                record->failures[i].fixture = text;
    } else if (broken && count > 0 &&
               reading->phase == TATTLE__PHASE_TEARDOWN && !setup_role) {
        record->failures[count - 1].fixture = fixture_text(record, entry, role);
    }
}

static void free_trace(struct tattle_trace *trace)
{
    tattle__trace_free(trace);
}

/* Gives the record's last failure copies of `frames` (their strings
 * among the record's owned ones), at the end of the record's one frames
 * array: the array is moved into a larger one, and the failures whose
 * frames lay in it are pointed at the same frames there. */
static void add_frames_to_last_failure(struct tattle__result_record *record,
                                       const struct tattle_frame *frames,
                                       size_t count)
{
    struct tattle_frame *old = record->frames;
    size_t old_count = record->frame_count;
    struct tattle_frame *joined =
        tattle__calloc(old_count + count, sizeof *joined);
    if (old_count)
        memcpy(joined, old, old_count * sizeof *joined);
    for (size_t i = 0; i < count; i++) {
        joined[old_count + i] = frames[i];
        joined[old_count + i].function =
            tattle__record_copy(record, frames[i].function);
        joined[old_count + i].file =
            tattle__record_copy(record, frames[i].file);
    }
    size_t failure_count = record->result.failure_count;
    for (size_t i = 0; i + 1 < failure_count; i++) {
        struct tattle_failure *failure = &record->failures[i];
        if (failure->frame_count && failure->frames >= old &&
            failure->frames < old + old_count)
            failure->frames = joined + (failure->frames - old);
    }
    free(old);
    record->frames = joined;
    record->frame_count = old_count + count;
    struct tattle_failure *last = &record->failures[failure_count - 1];
    last->frames = joined + old_count;
    last->frame_count = count;
}

void tattle__result_add_fixture_error(
    struct tattle__result_record *record,
    const struct tattle__test_entry *entry,
    const struct tattle__fixture_failure *failure,
    struct tattle__stacks *stacks)
{
    tattle__record_add_error(record, "%s", failure->message);
    struct tattle_failure *error =
        &record->failures[record->result.failure_count - 1];
    if (failure->frame_count) {
        add_frames_to_last_failure(record, failure->frames,
                                   failure->frame_count);
        locate_at_frames(error);
    }
    take_stacks(record, entry, stacks, NULL, error);
}

void tattle__result_set_output(struct tattle__result_record *record,
                               const struct tattle__capture *stdout_capture,
                               const struct tattle__capture *stderr_capture)
{
    struct tattle_result *result = &record->result;
    if (stdout_capture) {
        tattle__capture_render(stdout_capture, &result->stdout_output,
                               &record->stdout_text);
        tattle__capture_render(stderr_capture, &result->stderr_output,
                               &record->stderr_text);
    } else {
        result->stdout_output = (struct tattle_output){.text = ""};
        result->stderr_output = (struct tattle_output){.text = ""};
    }
}

void tattle__result_build(struct tattle__result_record *record,
                          const struct tattle__job *job,
                          struct tattle__outcome *outcome)
{
    *record = (struct tattle__result_record){0};
    const struct tattle__slot_reading *reading = &outcome->reading;
    struct tattle_result *result = &record->result;
    result->test = &job->entry->info;
    result->duration_us = outcome->duration_us;
    result->attempts = job->attempt;
    if (tattle__command_test_is(job->entry->test))
        result->rerun = tattle__command_rerun();

    if (outcome->fixture_error)
        tattle__result_add_fixture_error(record, job->entry,
                                         outcome->fixture_error,
                                         outcome->fixture_stacks);
    add_recorded_failures(record, reading);
    bool broken = add_ending(record, job, outcome);
    if (outcome->after_all_error)
        tattle__result_add_fixture_error(record, job->entry,
                                         outcome->after_all_error,
                                         outcome->fixture_stacks);
    if (outcome->trace_corruption) {
        tattle__record_add_error(record,
                                 "trace arena corrupted: %s; events discarded",
                                 outcome->trace_corruption);
        tattle__trace_free(outcome->trace);
        outcome->trace = NULL;
    }
    if (outcome->trace_error)
        tattle__record_add_error(record, "the trace could not be stored: %s",
                                 outcome->trace_error);

    bool in_setup = reading->setup_failed ||
                    (broken && reading->phase == TATTLE__PHASE_SETUP);
    name_fixture(record, job->entry, reading, in_setup, broken);
    if (result->failure_count > 0)
        result->state = in_setup && !outcome->timed_out ? TATTLE_STATE_INVALID
                                                        : TATTLE_STATE_FAILED;
    else if (reading->skipped)
        result->state = TATTLE_STATE_SKIPPED;
    else
        result->state = TATTLE_STATE_PASSED;
    if (reading->skipped)
        result->skip_reason = tattle__record_copy(record, reading->skip_reason);

    tattle__result_set_output(record, outcome->stdout_capture,
                              outcome->stderr_capture);
    if (outcome->trace)
        tattle__record_set_trace(record, outcome->trace, free_trace);
    outcome->trace = NULL;
}
