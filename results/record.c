/*
 * record.c — building and freeing owned results (record.h).
 */
#include "results/record.h"

#include <stdarg.h>
#include <stdlib.h>

const char *tattle__record_own(struct tattle__result_record *record, char *text)
{
    if (!text)
        return NULL;
    record->owned = tattle__realloc(record->owned, (record->owned_count + 1) *
                                                       sizeof *record->owned);
    record->owned[record->owned_count++] = text;
    return text;
}

const char *tattle__record_copy(struct tattle__result_record *record,
                                const char *text)
{
    return tattle__record_own(record, tattle__strdup(text));
}

const char *tattle__record_printf(struct tattle__result_record *record,
                                  const char *format, ...)
{
    struct tattle__buffer text = {0};
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(&text, format, args);
    va_end(args);
    return tattle__record_own(record, tattle__buffer_take(&text));
}

struct tattle_failure *
tattle__record_add_failure(struct tattle__result_record *record,
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

void tattle__record_add_error(struct tattle__result_record *record,
                              const char *format, ...)
{
    struct tattle__buffer text = {0};
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(&text, format, args);
    va_end(args);
    const char *message =
        tattle__record_own(record, tattle__buffer_take(&text));
    tattle__record_add_failure(record, TATTLE_FAILURE_ERROR)->message = message;
}

void tattle__record_set_trace(struct tattle__result_record *record,
                              struct tattle_trace *trace,
                              void (*free_trace)(struct tattle_trace *trace))
{
    tattle__record_drop_trace(record);
    record->trace = trace;
    record->free_trace = free_trace;
    record->result.trace = trace;
}

void tattle__record_init_not_run(struct tattle__result_record *record,
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
        struct tattle_failure *failure =
            tattle__record_add_failure(record, TATTLE_FAILURE_ERROR);
        failure->message = tattle__record_copy(record, reason);
        failure->file = test->file;
        failure->line = test->line;
    } else {
        result->skip_reason = tattle__record_copy(record, reason);
    }
}

/* Appends `attempt` (moved) to record's earlier attempts. */
static void append_earlier(struct tattle__result_record *record,
                           struct tattle__result_record *attempt)
{
    size_t count = record->earlier_count + 1;
    if (count > record->earlier_capacity) { /* a report may hold many */
        size_t capacity = record->earlier_capacity ? 2 * count : 2;
        record->earlier = tattle__realloc(record->earlier,
                                          capacity * sizeof *record->earlier);
        record->earlier_results =
            tattle__realloc(record->earlier_results,
                            capacity * sizeof *record->earlier_results);
        record->earlier_capacity = capacity;
    }
    record->earlier[count - 1] = *attempt;
    *attempt = (struct tattle__result_record){0};
    /* The results copied before stay valid: a record's result points
     * only at memory the record allocated, which moving it keeps. */
    record->earlier_results[count - 1] = record->earlier[count - 1].result;
    record->earlier_count = count;
    record->result.earlier_attempts = record->earlier_results;
    record->result.earlier_attempt_count = count;
}

/* Forgets record's earlier attempts, whose records the caller took or
 * released. */
static void forget_earlier(struct tattle__result_record *record)
{
    free(record->earlier);
    free(record->earlier_results);
    record->earlier = NULL;
    record->earlier_results = NULL;
    record->earlier_count = 0;
    record->earlier_capacity = 0;
    record->result.earlier_attempts = NULL;
    record->result.earlier_attempt_count = 0;
}

void tattle__record_add_earlier(struct tattle__result_record *record,
                                struct tattle__result_record *attempt)
{
    for (size_t i = 0; i < attempt->earlier_count; i++)
        append_earlier(record, &attempt->earlier[i]);
    forget_earlier(attempt);
    tattle__record_drop_trace(attempt);
    append_earlier(record, attempt);
}

void tattle__record_drop_earlier(struct tattle__result_record *record)
{
    for (size_t i = 0; i < record->earlier_count; i++)
        tattle__record_release(&record->earlier[i]);
    forget_earlier(record);
}

void tattle__record_drop_trace(struct tattle__result_record *record)
{
    if (record->trace && record->free_trace)
        record->free_trace(record->trace);
    record->trace = NULL;
    record->result.trace = NULL;
}

void tattle__record_release(struct tattle__result_record *record)
{
    for (size_t i = 0; i < record->owned_count; i++)
        free(record->owned[i]);
    free(record->owned);
    free(record->failures);
    free(record->frames);
    for (size_t i = 0; i < record->stack_count; i++)
        free((void *)record->stacks[i].frames);
    free(record->stacks);
    tattle__buffer_release(&record->stdout_text);
    tattle__buffer_release(&record->stderr_text);
    tattle__record_drop_trace(record);
    free((char *)record->result.rerun);
    tattle__record_drop_earlier(record);
    *record = (struct tattle__result_record){0};
}
