/*
 * result.c — deciding a test's state and failures from its raw outcome.
 *
 * The rules, in order: a test killed because the run was interrupted has a
 * failure of kind error; a timeout is a failure of kind timeout; death by a
 * signal is a crash (with the frames the handler captured); an exit before
 * the test finished (any status, 0 included) is a failure of kind exit;
 * recorded assertions are failures; a skip without failures is skipped. A
 * failure while the fixtures were setting up makes the test invalid.
 */
#include "runner/result.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "runner/symbolize.h"

static const char *own(struct tattle__result_record *record, char *text)
{
    if (!text)
        return NULL;
    record->owned = tattle__realloc(record->owned,
                                    (record->owned_count + 1) * sizeof *record->owned);
    record->owned[record->owned_count++] = text;
    return text;
}

static const char *own_copy(struct tattle__result_record *record,
                            const char *text)
{
    return own(record, tattle__strdup(text));
}

static struct tattle_failure *add_failure(struct tattle__result_record *record,
                                          enum tattle_failure_kind kind)
{
    size_t count = record->result.failure_count;
    record->failures = tattle__realloc(record->failures,
                                       (count + 1) * sizeof *record->failures);
    struct tattle_failure *failure = &record->failures[count];
    *failure = (struct tattle_failure){.kind = kind};
    record->result.failure_count = count + 1;
    record->result.failures = record->failures;
    return failure;
}

static const char *phase_name(enum tattle__phase phase)
{
    switch (phase) {
    case TATTLE__PHASE_STARTING: return "before the test started";
    case TATTLE__PHASE_SETUP: return "during setup";
    case TATTLE__PHASE_BODY: return "during the test body";
    case TATTLE__PHASE_TEARDOWN: return "during teardown";
    case TATTLE__PHASE_ON_EXIT: return "in an on-exit callback";
    case TATTLE__PHASE_DONE: return "after the test finished";
    }
    return "";
}

static void add_crash(struct tattle__result_record *record,
                      const struct tattle__outcome *outcome, int signal_number)
{
    const struct tattle__slot_reading *reading = &outcome->reading;
    struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_CRASH);
    char name[16];
    struct tattle__buffer message = {0};
    tattle__buffer_printf(&message, "the test process was killed by %s (%s) %s",
                          tattle__signal_name(signal_number, name),
                          strsignal(signal_number), phase_name(reading->phase));
    failure->message = own(record, tattle__buffer_take(&message));
    failure->signal = signal_number;
    if (reading->crashed && reading->crash_signal == signal_number) {
        record->frames = tattle__symbolize(reading->crash_frames,
                                           reading->crash_frame_count,
                                           &record->frame_count);
        failure->frames = record->frames;
        failure->frame_count = record->frame_count;
        /* The innermost frame with a source location is where it happened. */
        for (size_t i = 0; i < record->frame_count; i++) {
            if (record->frames[i].file) {
                failure->file = record->frames[i].file;
                failure->line = record->frames[i].line;
                break;
            }
        }
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

    for (size_t i = 0; i < reading->failure_count; i++) {
        const struct tattle__slot_failure *recorded = &reading->failures[i];
        struct tattle_failure *failure = add_failure(record, recorded->kind);
        failure->message = own_copy(record, recorded->message ? recorded->message : "");
        failure->file = own_copy(record, recorded->file);
        failure->line = recorded->line;
        failure->macro = own_copy(record, recorded->macro);
        failure->expr = own_copy(record, recorded->expr);
        failure->left = own_copy(record, recorded->left);
        failure->right = own_copy(record, recorded->right);
    }
    if (reading->corruption) {
        struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_ERROR);
        struct tattle__buffer message = {0};
        tattle__buffer_printf(&message,
                              "result slot corrupted: %s (the test overwrote the "
                              "memory it reports through; what came before is kept)",
                              reading->corruption);
        failure->message = own(record, tattle__buffer_take(&message));
    }
    if (reading->failures_dropped > 0) {
        struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_ERROR);
        struct tattle__buffer message = {0};
        tattle__buffer_printf(&message,
                              "%u more failures were not recorded (result slot full)",
                              reading->failures_dropped);
        failure->message = own(record, tattle__buffer_take(&message));
    }

    bool broken = false; /* ended by a timeout, a crash or an early exit */
    if (outcome->interrupted_by != 0) {
        struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_ERROR);
        struct tattle__buffer message = {0};
        char name[16];
        if (outcome->interrupted_by > 0)
            tattle__buffer_printf(&message,
                                  "the run was interrupted (%s) while this test was running %s",
                                  tattle__signal_name(outcome->interrupted_by, name),
                                  phase_name(reading->phase));
        else
            tattle__buffer_printf(&message,
                                  "the run stopped on an internal error while this test was running %s",
                                  phase_name(reading->phase));
        failure->message = own(record, tattle__buffer_take(&message));
        broken = true;
    } else if (outcome->timed_out) {
        struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_TIMEOUT);
        struct tattle__buffer message = {0};
        tattle__buffer_printf(&message, "the test did not finish within %ld ms %s",
                              job->timeout_ms, phase_name(reading->phase));
        failure->message = own(record, tattle__buffer_take(&message));
        failure->timeout_ms = job->timeout_ms;
        broken = true;
    } else if (outcome->forked && WIFSIGNALED(outcome->wait_status)) {
        add_crash(record, outcome, WTERMSIG(outcome->wait_status));
        broken = true;
    } else if (outcome->forked &&
               (WEXITSTATUS(outcome->wait_status) != 0 ||
                reading->phase != TATTLE__PHASE_DONE)) {
        int code = WEXITSTATUS(outcome->wait_status);
        struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_EXIT);
        struct tattle__buffer message = {0};
        tattle__buffer_printf(&message, "the test process exited with status %d %s",
                              code, phase_name(reading->phase));
        failure->message = own(record, tattle__buffer_take(&message));
        failure->exit_code = code;
        broken = true;
    }
    if (outcome->trace_corruption) {
        struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_ERROR);
        struct tattle__buffer message = {0};
        tattle__buffer_printf(&message, "trace arena corrupted: %s; events discarded",
                              outcome->trace_corruption);
        failure->message = own(record, tattle__buffer_take(&message));
        if (outcome->trace)
            tattle__trace_free(outcome->trace);
        outcome->trace = NULL;
    }
    if (outcome->trace_error) {
        struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_ERROR);
        struct tattle__buffer message = {0};
        tattle__buffer_printf(&message, "the trace could not be stored: %s",
                              outcome->trace_error);
        failure->message = own(record, tattle__buffer_take(&message));
    }

    bool in_setup = reading->setup_failed ||
                    (broken && (reading->phase == TATTLE__PHASE_SETUP));
    if (result->failure_count > 0)
        result->state = in_setup && !outcome->timed_out ? TATTLE_STATE_INVALID
                                                        : TATTLE_STATE_FAILED;
    else if (reading->skipped)
        result->state = TATTLE_STATE_SKIPPED;
    else
        result->state = TATTLE_STATE_PASSED;
    if (reading->skipped)
        result->skip_reason = own_copy(record, reading->skip_reason);

    if (outcome->stdout_capture) {
        tattle__capture_render(outcome->stdout_capture, &result->stdout_output,
                               &record->stdout_text);
        tattle__capture_render(outcome->stderr_capture, &result->stderr_output,
                               &record->stderr_text);
    } else {
        result->stdout_output = (struct tattle_output){.text = ""};
        result->stderr_output = (struct tattle_output){.text = ""};
    }
    record->trace = outcome->trace;
    outcome->trace = NULL;
    result->trace = record->trace;
}

void tattle__result_build_not_run(struct tattle__result_record *record,
                                  const struct tattle_test_info *test,
                                  enum tattle_state state, const char *reason)
{
    *record = (struct tattle__result_record){0};
    struct tattle_result *result = &record->result;
    result->test = test;
    result->state = state;
    result->stdout_output = (struct tattle_output){.text = ""};
    result->stderr_output = (struct tattle_output){.text = ""};
    if (state == TATTLE_STATE_INVALID) {
        struct tattle_failure *failure = add_failure(record, TATTLE_FAILURE_ERROR);
        failure->message = own_copy(record, reason);
        failure->file = test->file;
        failure->line = test->line;
    } else {
        result->skip_reason = own_copy(record, reason);
    }
}

void tattle__result_drop_trace(struct tattle__result_record *record)
{
    if (record->trace)
        tattle__trace_free(record->trace);
    record->trace = NULL;
    record->result.trace = NULL;
}

void tattle__result_release(struct tattle__result_record *record)
{
    for (size_t i = 0; i < record->owned_count; i++)
        free(record->owned[i]);
    free(record->owned);
    free(record->failures);
    if (record->frames) {
        tattle__frames_free(record->frames, record->frame_count);
        free(record->frames);
    }
    tattle__buffer_release(&record->stdout_text);
    tattle__buffer_release(&record->stderr_text);
    tattle__result_drop_trace(record);
    free((char *)record->result.rerun);
    *record = (struct tattle__result_record){0};
}
