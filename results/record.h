/*
 * record.h — an owned result: a struct tattle_result together with the
 * memory of everything it points to.
 *
 * The runner builds one per run of a test (runner/outcome.c) and may keep
 * a failed attempt while a retry runs; the `tattle` command will build them
 * from reports it reads back. A record owns its failures, its frames, its
 * strings (registered with tattle__record_own), its captured output and
 * its trace, which is freed through the function whoever made the trace
 * set (the tracer's, for a frozen trace).
 */
#ifndef TATTLE_RESULTS_RECORD_H
#define TATTLE_RESULTS_RECORD_H

#include <tattle/reporter.h>

#include "base/buffer.h"

struct tattle__result_record {
    struct tattle_result result;
    struct tattle_failure *failures;
    struct tattle_frame *frames; /* one array for every failure's */
    size_t frame_count;
    /* a timeout's threads, each with its own frames array (freed here;
     * their strings are among the owned ones) */
    struct tattle_thread_stack *stacks;
    size_t stack_count;
    char **owned; /* strings to free */
    size_t owned_count;
    struct tattle__buffer stdout_text, stderr_text;
    struct tattle_trace *trace;
    void (*free_trace)(struct tattle_trace *trace);
    /* the earlier failed attempts of a retried test, and their results as
     * one array for result.earlier_attempts */
    struct tattle__result_record *earlier;
    struct tattle_result *earlier_results;
    size_t earlier_count, earlier_capacity;
};

/** Takes `text` (malloc'd, may be NULL) into the record; returns it. */
const char *tattle__record_own(struct tattle__result_record *record,
                               char *text);
/** A copy of `text` owned by the record (NULL stays NULL). */
const char *tattle__record_copy(struct tattle__result_record *record,
                                const char *text);
/** A message formatted into a string the record owns. */
const char *tattle__record_printf(struct tattle__result_record *record,
                                  const char *format, ...) TATTLE__PRINTF(2, 3);

/** Appends a failure of `kind` (other fields zero) and returns it. The
 * pointer is valid until the next failure is added. */
struct tattle_failure *
tattle__record_add_failure(struct tattle__result_record *record,
                           enum tattle_failure_kind kind);

/** Appends an error failure with a formatted message. */
void tattle__record_add_error(struct tattle__result_record *record,
                              const char *format, ...) TATTLE__PRINTF(2, 3);

/** Gives the record a trace and the function that frees it. */
void tattle__record_set_trace(struct tattle__result_record *record,
                              struct tattle_trace *trace,
                              void (*free_trace)(struct tattle_trace *trace));

/** A record for a test that does not run: excluded, skipped by its
 * declaration, or invalid (`reason` then an error failure at the test's
 * declaration). */
void tattle__record_init_not_run(struct tattle__result_record *record,
                                 const struct tattle_test_info *test,
                                 enum tattle_state state, const char *reason);

/** Moves `attempt`, a failed attempt made before the one `record` holds,
 * into record's earlier attempts, after the attempts it had itself
 * gathered; its trace is dropped. `attempt` is left empty. */
void tattle__record_add_earlier(struct tattle__result_record *record,
                                struct tattle__result_record *attempt);

/** Drops the record's earlier attempts. */
void tattle__record_drop_earlier(struct tattle__result_record *record);

/** Drops the record's trace (a passed test without --trace-passed). */
void tattle__record_drop_trace(struct tattle__result_record *record);

void tattle__record_release(struct tattle__result_record *record);

#endif /* TATTLE_RESULTS_RECORD_H */
