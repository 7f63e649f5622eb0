/*
 * run.c — tattle_main(): one run from the command line to the exit status.
 *
 * It resolves the registry, reads the configuration and the command line
 * (a bad one exits 2 before anything is run or written), selects tests by
 * pattern, tag, shard and --failed, orders them (seed, shuffle), opens the
 * reporters, feeds the scheduler (with --repeat and --retry), turns each
 * outcome into a result for the reporters, and saves the failed ids in
 * .tattle/last-run.json for --failed.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tattle/reporter.h>

#include "results/json.h"
#include "results/model.h"
#include "runner/config.h"
#include "runner/last_run.h"
#include "runner/options.h"
#include "runner/private_memory.h"
#include "runner/registry.h"
#include "runner/outcome.h"
#include "runner/scheduler.h"
#include "runner/tags.h"
#include "base/buffer.h"
#include "base/text.h"
#include "base/timestamp.h"

/* A selected test and what its runs have produced so far. */
struct planned_test {
    struct tattle__test_entry *entry;
    enum tattle_state not_run_state;    /* EXCLUDED/SKIPPED/INVALID, or PASSED: runs */
    const char *not_run_reason;
    long timeout_ms;
    bool traced;
    struct tattle__trace_config trace_config;
    unsigned runs;
    unsigned retries_used;
    struct tattle__result_record *held; /* a failed attempt kept for flakiness */
    char *owned_reason;                 /* an invalid test's own reason */
};

struct active_reporter {
    const struct tattle_reporter_type *type;
    void *self;
};

struct run_state {
    struct tattle__options options;
    struct tattle_report_options report_options;
    struct tattle__registry registry;
    struct planned_test *plan;
    size_t plan_count;
    size_t next_index;
    struct planned_test **requeued;     /* stack of tests to run again */
    size_t requeued_count;
    struct active_reporter *reporters;
    size_t reporter_count;
    struct tattle_summary summary;
    uint64_t failures_seen;
    struct tattle__last_run_outcome *outcomes; /* tests that ran, for --failed */
    size_t outcome_count, outcome_capacity;
    char executable[4096];
    const char *program;
    double timeout_multiplier;
    struct sigaction original_sigpipe;
    struct tattle__scheduler *scheduler;
    int program_fds[64];        /* descriptors open when the run began */
    size_t program_fd_count;
};

/* ---- reporters ---- */

static void reporters_test_started(struct run_state *state,
                                   const struct tattle_test_info *test)
{
    for (size_t i = 0; i < state->reporter_count; i++)
        if (state->reporters[i].type->test_started)
            state->reporters[i].type->test_started(state->reporters[i].self, test);
}

static void count_result(struct run_state *state, const struct tattle_result *result)
{
    struct tattle_summary *s = &state->summary;
    s->total++;
    switch (result->state) {
    case TATTLE_STATE_PASSED: s->passed++; break;
    case TATTLE_STATE_FAILED: s->failed++; break;
    case TATTLE_STATE_SKIPPED: s->skipped++; break;
    case TATTLE_STATE_EXCLUDED: s->excluded++; break;
    case TATTLE_STATE_INVALID: s->invalid++; break;
    }
    if (result->flaky)
        s->flaky++;
    bool failed = tattle__result_failed(result);
    if (failed)
        state->failures_seen++;
    if (result->attempts > 0) {
        /* Ids live in the registry for the whole run: no copy needed. */
        if (state->outcome_count == state->outcome_capacity) {
            state->outcome_capacity = state->outcome_capacity ? state->outcome_capacity * 2 : 64;
            state->outcomes = tattle__realloc(
                state->outcomes, state->outcome_capacity * sizeof *state->outcomes);
        }
        state->outcomes[state->outcome_count++] =
            (struct tattle__last_run_outcome){result->test->id, failed};
    }
}

/* PROGRAM --id=ID, both quoted for a POSIX shell: an exact id, so no glob
 * character, backslash or leading dash in it can select another test. */
static char *rerun_command(const struct run_state *state, const char *id)
{
    struct tattle__buffer command = {0};
    tattle__buffer_append_shell_quoted(&command, state->program);
    tattle__buffer_append_string(&command, " --id=");
    tattle__buffer_append_shell_quoted(&command, id);
    return tattle__buffer_take(&command);
}

/* Hands a final result to every reporter, then frees it. */
static void emit_result(struct run_state *state, struct tattle__result_record *record)
{
    if (!record->result.rerun)
        record->result.rerun = rerun_command(state, record->result.test->id);
    bool keep_trace = tattle__result_failed(&record->result) ||
                      record->result.flaky || state->options.trace_passed;
    if (!keep_trace)
        tattle__record_drop_trace(record);
    count_result(state, &record->result);
    for (size_t i = 0; i < state->reporter_count; i++)
        state->reporters[i].type->test_finished(state->reporters[i].self,
                                                &record->result);
    tattle__record_release(record);
}

/* ---- scheduler callbacks ---- */

static bool stop_scheduling(const struct run_state *state)
{
    return state->options.max_failures &&
           state->failures_seen >= state->options.max_failures;
}

/* After --max-failures was reached or the run was interrupted: every
 * selected test not started is still reported once (skipped, with the
 * reason), so `total` stays the number of selected tests; a test waiting
 * for a retry keeps its failure. */
static void report_unstarted(struct run_state *state, const char *reason)
{
    while (state->requeued_count > 0) {
        struct planned_test *planned = state->requeued[--state->requeued_count];
        if (planned->held) {
            planned->held->result.attempts = planned->runs;
            emit_result(state, planned->held);
            free(planned->held);
            planned->held = NULL;
        } else {
            /* A --repeat run that had passed so far. */
            struct tattle__result_record record;
            tattle__record_init_not_run(&record, &planned->entry->info,
                                         TATTLE_STATE_PASSED, NULL);
            record.result.attempts = planned->runs;
            emit_result(state, &record);
        }
    }
    while (state->next_index < state->plan_count) {
        struct planned_test *planned = &state->plan[state->next_index++];
        bool runnable = planned->not_run_state == TATTLE_STATE_PASSED;
        struct tattle__result_record record;
        tattle__record_init_not_run(
            &record, &planned->entry->info,
            runnable ? TATTLE_STATE_SKIPPED : planned->not_run_state,
            runnable ? reason : planned->not_run_reason);
        emit_result(state, &record);
    }
}

static bool next_job(void *ctx, struct tattle__job *job)
{
    struct run_state *state = ctx;
    if (stop_scheduling(state)) {
        report_unstarted(state, "not run: --max-failures was reached");
        return false;
    }
    while (!stop_scheduling(state)) {
        struct planned_test *planned;
        if (state->requeued_count > 0) {
            planned = state->requeued[--state->requeued_count];
        } else if (state->next_index < state->plan_count) {
            planned = &state->plan[state->next_index++];
            if (planned->not_run_state != TATTLE_STATE_PASSED) {
                struct tattle__result_record record;
                tattle__record_init_not_run(&record, &planned->entry->info,
                                             planned->not_run_state,
                                             planned->not_run_reason);
                emit_result(state, &record);
                continue;
            }
        } else {
            return false;
        }
        *job = (struct tattle__job){
            .entry = planned->entry,
            .timeout_ms = planned->timeout_ms,
            .traced = planned->traced,
            .trace_config = planned->trace_config,
            .attempt = planned->runs + 1,
            .caller_data = planned,
        };
        return true;
    }
    report_unstarted(state, "not run: --max-failures was reached");
    return false;
}

static void job_started(void *ctx, const struct tattle__job *job)
{
    struct run_state *state = ctx;
    if (job->attempt == 1)
        reporters_test_started(state, &job->entry->info);
}

static void requeue(struct run_state *state, struct planned_test *planned)
{
    state->requeued = tattle__realloc(state->requeued,
                                      (state->requeued_count + 1) * sizeof *state->requeued);
    state->requeued[state->requeued_count++] = planned;
}

static void job_finished(void *ctx, const struct tattle__job *job,
                         struct tattle__outcome *outcome)
{
    struct run_state *state = ctx;
    struct planned_test *planned = job->caller_data;
    planned->runs++;
    struct tattle__result_record record;
    tattle__result_build(&record, job, outcome);
    bool failed = tattle__result_failed(&record.result);
    bool may_run_again = !stop_scheduling(state) && outcome->interrupted_by == 0;
    if (failed) {
        if (planned->retries_used < state->options.retry && may_run_again) {
            planned->retries_used++;
            if (!planned->held)
                planned->held = tattle__malloc(sizeof *planned->held);
            else
                tattle__record_release(planned->held);
            *planned->held = record;
            requeue(state, planned);
            return;
        }
        if (planned->held) {
            tattle__record_release(planned->held);
            free(planned->held);
            planned->held = NULL;
        }
        record.result.attempts = planned->runs;
        emit_result(state, &record);
        return;
    }
    if (planned->held) {
        /* Passed on a retry: flaky. The report keeps the failed attempt's
         * failures and output, the evidence a person needs. */
        tattle__record_release(&record);
        record = *planned->held;
        free(planned->held);
        planned->held = NULL;
        record.result.state = TATTLE_STATE_PASSED;
        record.result.flaky = true;
        record.result.attempts = planned->runs;
        emit_result(state, &record);
        return;
    }
    if (planned->runs < state->options.repeat && may_run_again) {
        tattle__record_release(&record);
        requeue(state, planned);
        return;
    }
    record.result.attempts = planned->runs;
    emit_result(state, &record);
}

/* ---- selection ---- */

/* A test is selected by any PATTERN (a glob) or any --id (exact); with
 * neither, every test is. */
static bool selected_by_name(const struct tattle__options *options,
                             const char *id)
{
    if (options->patterns.count == 0 && options->ids.count == 0)
        return true;
    for (size_t i = 0; i < options->ids.count; i++)
        if (strcmp(options->ids.items[i], id) == 0)
            return true;
    for (size_t i = 0; i < options->patterns.count; i++)
        if (fnmatch(options->patterns.items[i], id, 0) == 0)
            return true;
    return false;
}

static bool matches_any_tag(const struct tattle__test_entry *entry,
                            const struct tattle__string_list *selectors)
{
    for (size_t i = 0; i < selectors->count; i++)
        if (tattle__tags_match(entry->tags.items, entry->tags.count,
                               selectors->items[i]))
            return true;
    return false;
}

/* Makes a planned test invalid with a reason of its own. */
static void plan_invalid(struct planned_test *planned, struct tattle__buffer *reason)
{
    free(planned->owned_reason);
    planned->owned_reason = tattle__buffer_take(reason);
    planned->not_run_state = TATTLE_STATE_INVALID;
    planned->not_run_reason = planned->owned_reason;
}

/* Reads and checks the sizes a test asks for; one out of range makes the
 * test invalid (with the reason) rather than being truncated. */
static void resolve_trace_sizes(struct planned_test *planned,
                                struct tattle__trace_config *trace)
{
    const struct tattle__test_entry *entry = planned->entry;
    const struct tattle_test *test = entry->test;
    struct tattle__buffer reason = {0};
    const struct tattle_tag *tag =
        tattle__tag_find(entry->tags.items, entry->tags.count, "trace_messages");
    if (tag && tag->value) {
        char *end;
        errno = 0;
        long cap = strtol(tag->value, &end, 10);
        if (*end != '\0' || errno != 0 || cap < 1 || cap > TATTLE__TRACE_CAP_MAX) {
            tattle__buffer_printf(&reason,
                                  "tag 'trace_messages:%s': the cap must be a whole number from 1 to %d",
                                  tag->value, TATTLE__TRACE_CAP_MAX);
            plan_invalid(planned, &reason);
            return;
        }
        trace->cap = (uint32_t)cap;
    }
    if (test->options.trace_cap < 0 || test->options.trace_cap > TATTLE__TRACE_CAP_MAX) {
        tattle__buffer_printf(&reason, ".trace_cap = %d: must be from 1 to %d",
                              test->options.trace_cap, TATTLE__TRACE_CAP_MAX);
        plan_invalid(planned, &reason);
        return;
    }
    if (test->options.trace_budget < 0 || test->options.trace_budget > TATTLE__TRACE_BUDGET_MAX) {
        tattle__buffer_printf(&reason, ".trace_budget = %d: must be from 1 to %d",
                              test->options.trace_budget, TATTLE__TRACE_BUDGET_MAX);
        plan_invalid(planned, &reason);
        return;
    }
    if (test->options.trace_cap > 0)
        trace->cap = (uint32_t)test->options.trace_cap;
    if (test->options.trace_budget > 0)
        trace->budget = (uint32_t)test->options.trace_budget;
}

static void resolve_execution(const struct run_state *state,
                              struct planned_test *planned)
{
    const struct tattle__options *o = &state->options;
    const struct tattle_test *test = planned->entry->test;
    long timeout = test->options.timeout_ms > 0 ? test->options.timeout_ms
                   : o->timeout_ms > 0          ? o->timeout_ms
                                                : TATTLE__TIMEOUT_MS_DEFAULT;
    double scaled = ceil((double)timeout * state->timeout_multiplier);
    planned->timeout_ms = scaled < 1 ? 1 : scaled > TATTLE__TIMEOUT_MS_MAX ? TATTLE__TIMEOUT_MS_MAX
                                                                   : (long)scaled;

    const struct tattle__test_entry *entry = planned->entry;
    planned->traced = o->trace_all ||
                      tattle__tag_find(entry->tags.items, entry->tags.count,
                                       "trace_messages") != NULL;
    struct tattle__trace_config trace = TATTLE__TRACE_CONFIG_DEFAULT;
    resolve_trace_sizes(planned, &trace);
    if (o->trace_cap > 0)
        trace.cap = (uint32_t)o->trace_cap;
    if (o->trace_budget > 0)
        trace.budget = (uint32_t)o->trace_budget;
    if (o->trace_level >= 0)
        trace.level = (int)o->trace_level;
    if (o->trace_payload_bytes > 0)
        trace.payload_bytes = (uint32_t)o->trace_payload_bytes;
    planned->trace_config = trace;
    planned->entry->info.timeout_ms = planned->timeout_ms;
    planned->entry->info.traced = planned->traced;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void build_plan(struct run_state *state, const struct tattle__string_list *rerun_ids)
{
    const struct tattle__options *o = &state->options;
    state->plan = tattle__private_calloc(state->registry.count, sizeof *state->plan);
    size_t selected = 0;
    for (size_t i = 0; i < state->registry.count; i++) {
        struct tattle__test_entry *entry = &state->registry.entries[i];
        if (!selected_by_name(o, entry->id))
            continue;
        if (rerun_ids) {
            bool wanted = false;
            for (size_t j = 0; j < rerun_ids->count && !wanted; j++)
                wanted = strcmp(rerun_ids->items[j], entry->id) == 0;
            if (!wanted)
                continue;
        }
        /* Shards split the pattern-selected tests by position. */
        size_t position = selected++;
        if (o->sharded && position % o->shard_total != o->shard_index)
            continue;
        struct planned_test *planned = &state->plan[state->plan_count++];
        planned->entry = entry;
        planned->not_run_state = TATTLE_STATE_PASSED;
        resolve_execution(state, planned);
        if (planned->not_run_state == TATTLE_STATE_INVALID)
            continue; /* an out-of-range size; the reason is set */
        if (entry->invalid_reason) {
            planned->not_run_state = TATTLE_STATE_INVALID;
            planned->not_run_reason = entry->invalid_reason;
        } else if (o->only.count && !matches_any_tag(entry, &o->only)) {
            planned->not_run_state = TATTLE_STATE_EXCLUDED;
            planned->not_run_reason = "not selected by --only";
        } else if (matches_any_tag(entry, &o->exclude) &&
                   !matches_any_tag(entry, &o->include) &&
                   !(o->only.count && matches_any_tag(entry, &o->only))) {
            planned->not_run_state = TATTLE_STATE_EXCLUDED;
            planned->not_run_reason = "excluded by tag";
        } else if (entry->test->options.skip) {
            planned->not_run_state = TATTLE_STATE_SKIPPED;
            planned->not_run_reason = entry->test->options.skip;
        }
    }
    if (o->shuffle) {
        uint64_t random_state = o->seed;
        for (size_t i = state->plan_count; i > 1; i--) {
            size_t j = (size_t)(splitmix64(&random_state) % i);
            struct planned_test swap = state->plan[i - 1];
            state->plan[i - 1] = state->plan[j];
            state->plan[j] = swap;
        }
    }
}

/* True when at least one of `ids` names a registered test. */
static bool any_registered(const struct tattle__registry *registry,
                           const struct tattle__string_list *ids)
{
    for (size_t i = 0; i < registry->count; i++)
        for (size_t j = 0; j < ids->count; j++)
            if (strcmp(registry->entries[i].id, ids->items[j]) == 0)
                return true;
    return false;
}

/* An --id that names no test is a usage error: a typo, or a test since
 * renamed or deleted, must not pass for a run in which nothing failed. */
static int check_ids_registered(const struct run_state *state,
                                struct tattle__buffer *error)
{
    const struct tattle__string_list *ids = &state->options.ids;
    for (size_t j = 0; j < ids->count; j++) {
        bool found = false;
        for (size_t i = 0; i < state->registry.count && !found; i++)
            found = strcmp(state->registry.entries[i].id, ids->items[j]) == 0;
        if (!found) {
            tattle__buffer_printf(error, "--id: no test has the id '%s'",
                                  ids->items[j]);
            return -EINVAL;
        }
    }
    return 0;
}

/* ---- environment ---- */

static int read_environment(struct run_state *state, struct tattle__buffer *error)
{
    struct tattle__options *o = &state->options;
    state->timeout_multiplier = 1.0;
    const char *multiplier = getenv("TATTLE_TIMEOUT_MULTIPLIER");
    if (multiplier && *multiplier) {
        char *end;
        double value = strtod(multiplier, &end);
        if (*end != '\0' || !(value > 0) || !isfinite(value)) {
            tattle__buffer_printf(error,
                                  "TATTLE_TIMEOUT_MULTIPLIER: '%s' is not a positive number",
                                  multiplier);
            return -EINVAL;
        }
        state->timeout_multiplier = value;
    }
    if (!o->sharded) {
        static const char *const protocols[][2] = {
            {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"},
            {"TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"}};
        for (size_t p = 0; p < 2 && !o->sharded; p++) {
            const char *total = getenv(protocols[p][0]);
            const char *index = getenv(protocols[p][1]);
            if (!total || !index)
                continue;
            char *end_total, *end_index;
            unsigned long t = strtoul(total, &end_total, 10);
            unsigned long i = strtoul(index, &end_index, 10);
            if (*end_total || *end_index || t == 0 || i >= t) {
                tattle__buffer_printf(error, "%s=%s, %s=%s: not a valid shard",
                                      protocols[p][0], total, protocols[p][1], index);
                return -EINVAL;
            }
            o->sharded = true;
            o->shard_total = (unsigned)t;
            o->shard_index = (unsigned)i;
        }
    }
    const char *status_file = getenv("TEST_SHARD_STATUS_FILE");
    if (o->sharded && status_file && *status_file) {
        int fd = open(status_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    }
    const char *only = getenv("TESTBRIDGE_TEST_ONLY");
    if (only && *only && o->patterns.count == 0 && o->ids.count == 0)
        tattle__string_list_add(&o->patterns, only);
    const char *xml = getenv("XML_OUTPUT_FILE");
    if (xml && *xml && tattle_reporter_find("junit"))
        tattle__options_add_reporter(o, "junit", xml);
    return 0;
}

static bool color_wanted(enum tattle__color_mode mode, FILE *stream)
{
    if (mode == TATTLE__COLOR_ALWAYS)
        return true;
    if (mode == TATTLE__COLOR_NEVER)
        return false;
    const char *no_color = getenv("NO_COLOR");
    if (no_color && *no_color)
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(fileno(stream));
}

/* ---- listing ---- */

static void list_tests(const struct run_state *state)
{
    if (state->options.list_json) {
        cJSON *array = cJSON_CreateArray();
        for (size_t i = 0; i < state->plan_count; i++) {
            const struct planned_test *planned = &state->plan[i];
            const struct tattle__test_entry *entry = planned->entry;
            /* Through the report's text helpers: valid UTF-8 whatever a
             * test's file name or tag values hold. */
            cJSON *item = cJSON_CreateObject();
            tattle__json_add_text(item, "id", entry->id);
            tattle__json_add_text(item, "suite", entry->info.suite);
            tattle__json_add_text(item, "name", entry->info.name);
            tattle__json_add_text(item, "file", entry->info.file);
            cJSON_AddNumberToObject(item, "line", entry->info.line);
            cJSON *tags = cJSON_AddObjectToObject(item, "tags");
            for (size_t t = 0; t < entry->tags.count; t++) {
                const struct tattle_tag *tag = &entry->tags.items[t];
                if (tag->value)
                    tattle__json_add_text(tags, tag->name, tag->value);
                else
                    cJSON_AddTrueToObject(tags, tag->name);
            }
            cJSON_AddNumberToObject(item, "timeout_ms", (double)planned->timeout_ms);
            tattle__json_add_text(item, "state",
                                    planned->not_run_state == TATTLE_STATE_PASSED
                                        ? "selected"
                                        : tattle_state_name(planned->not_run_state));
            if (planned->not_run_reason)
                tattle__json_add_text(item, "reason", planned->not_run_reason);
            cJSON_AddItemToArray(array, item);
        }
        char *text = cJSON_PrintUnformatted(array);
        fputs(text, stdout);
        fputc('\n', stdout);
        cJSON_free(text);
        cJSON_Delete(array);
        return;
    }
    for (size_t i = 0; i < state->plan_count; i++) {
        const struct tattle__test_entry *entry = state->plan[i].entry;
        fputs(entry->id, stdout);
        for (size_t t = 0; t < entry->tags.count; t++) {
            fputs(t == 0 ? "  [" : " ", stdout);
            fputs(entry->tags.items[t].name, stdout);
            if (entry->tags.items[t].value)
                printf(":%s", entry->tags.items[t].value);
            if (t + 1 == entry->tags.count)
                fputc(']', stdout);
        }
        fputc('\n', stdout);
    }
}

/* ---- the run ---- */

/* Under CTest (tattle_discover_tests sets TATTLE_SKIP_RETURN_CODE), a run
 * whose tests were all skipped exits with that code so CTest shows it as
 * skipped rather than passed. */
static int skip_return_code(const struct tattle_summary *summary, int status)
{
    const char *code = getenv("TATTLE_SKIP_RETURN_CODE");
    if (status != 0 || !code || !*code || summary->skipped == 0 ||
        summary->passed + summary->failed + summary->invalid > 0)
        return status;
    char *end;
    long value = strtol(code, &end, 10);
    return *end == '\0' && value > 0 && value < 256 ? (int)value : status;
}

/* A report file can be written: not a directory, and its directory exists
 * and is writable (the report is written beside it, then renamed). */
static int check_destination_writable(const char *reporter, const char *path,
                                      struct tattle__buffer *error)
{
    if (!path || strcmp(path, "-") == 0 || strcmp(path, "stdout") == 0 ||
        strcmp(path, "stderr") == 0)
        return 0;
    struct stat status;
    if (stat(path, &status) == 0 && S_ISDIR(status.st_mode)) {
        tattle__buffer_printf(error, "the %s report '%s' is a directory", reporter, path);
        return -EINVAL;
    }
    const char *slash = strrchr(path, '/');
    char *directory = slash ? strndup(path, (size_t)(slash - path) + (slash == path))
                            : tattle__strdup(".");
    int rc = 0;
    if (!directory || access(directory, W_OK | X_OK) != 0) {
        tattle__buffer_printf(error, "cannot write the %s report '%s': %s: %s", reporter,
                              path, directory ? directory : path, strerror(errno));
        rc = -EINVAL;
    } else if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
        tattle__buffer_printf(error, "cannot write the %s report '%s': %s", reporter,
                              path, strerror(errno));
        rc = -EINVAL;
    }
    free(directory);
    return rc;
}

static int open_reporters(struct run_state *state, struct tattle__buffer *error)
{
    struct tattle__options *o = &state->options;
    bool stdout_taken = false;
    for (size_t i = 0; i < o->reporter_count; i++)
        if (o->reporters[i].destination && strcmp(o->reporters[i].destination, "-") == 0) {
            if (stdout_taken) {
                tattle__buffer_printf(error, "only one report can go to standard output ('-')");
                return -EINVAL;
            }
            stdout_taken = true;
        }
    state->reporters = tattle__calloc(o->reporter_count + 1, sizeof *state->reporters);
    /* The console is always there, on stderr when stdout carries a report. */
    const char *console_destination = stdout_taken ? "stderr" : "stdout";
    state->report_options.color =
        color_wanted(o->color, stdout_taken ? stderr : stdout);
    struct {
        const char *name, *destination;
    } wanted[64];
    size_t wanted_count = 0;
    bool console_requested = false;
    for (size_t i = 0; i < o->reporter_count && wanted_count < 63; i++) {
        if (strcmp(o->reporters[i].name, "console") == 0)
            console_requested = true;
        wanted[wanted_count].name = o->reporters[i].name;
        wanted[wanted_count++].destination = o->reporters[i].destination;
    }
    if (!console_requested) {
        memmove(&wanted[1], &wanted[0], wanted_count * sizeof *wanted);
        wanted[0].name = "console";
        wanted[0].destination = console_destination;
        wanted_count++;
    }
    /* Everything is checked before anything is created: a reporter opens
     * (and may truncate) its file when created, and a usage error must
     * leave every existing file as it was. */
    for (size_t i = 0; i < wanted_count; i++) {
        if (!tattle_reporter_find(wanted[i].name)) {
            tattle__buffer_printf(error, "no reporter named '%s'", wanted[i].name);
            return -EINVAL;
        }
        if (check_destination_writable(wanted[i].name, wanted[i].destination, error) != 0)
            return -EINVAL;
    }
    for (size_t i = 0; i < wanted_count; i++) {
        const struct tattle_reporter_type *type = tattle_reporter_find(wanted[i].name);
        void *self = NULL;
        int rc = type->create(&self, wanted[i].destination, &state->report_options);
        if (rc != 0) {
            tattle__buffer_printf(error, "cannot open the %s report '%s': %s",
                                  wanted[i].name,
                                  wanted[i].destination ? wanted[i].destination : "",
                                  strerror(-rc));
            return rc;
        }
        state->reporters[state->reporter_count++] = (struct active_reporter){type, self};
    }
    return 0;
}

static void close_reporters(struct run_state *state)
{
    for (size_t i = 0; i < state->reporter_count; i++)
        state->reporters[i].type->destroy(state->reporters[i].self);
    free(state->reporters);
    state->reporters = NULL;
    state->reporter_count = 0;
}

static void release_state(struct run_state *state)
{
    for (size_t i = 0; i < state->plan_count; i++) {
        if (state->plan[i].held) {
            tattle__record_release(state->plan[i].held);
            free(state->plan[i].held);
        }
        free(state->plan[i].owned_reason);
    }
    tattle__private_free(state->plan);
    free(state->requeued);
    free(state->outcomes);
    tattle__registry_release(&state->registry);
    tattle__options_release(&state->options);
}

static int usage_error(struct run_state *state, const char *message)
{
    fprintf(stderr, "%s: %s\n", state->program, message);
    close_reporters(state);
    tattle__scheduler_destroy(state->scheduler);
    state->scheduler = NULL;
    release_state(state);
    return 2;
}

/* The descriptors the program had open before the run began (beyond the
 * standard three): its tests keep them, as they would in its own process.
 * Everything tattle opens later is out of their reach. */
static void note_program_descriptors(struct run_state *state)
{
    DIR *directory = opendir("/proc/self/fd");
    if (!directory)
        return;
    int own = dirfd(directory);
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL &&
           state->program_fd_count < sizeof state->program_fds / sizeof *state->program_fds) {
        int fd = atoi(entry->d_name);
        if (entry->d_name[0] != '.' && fd > 2 && fd != own)
            state->program_fds[state->program_fd_count++] = fd;
    }
    closedir(directory);
}

int tattle_main(int argc, char **argv)
{
    struct run_state state = {0};
    struct tattle__buffer error = {0};
    state.program = argc > 0 && argv[0] ? argv[0] : "tattle";
    note_program_descriptors(&state);
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &state.original_sigpipe);
    tattle__registry_build(&state.registry);
    tattle__options_init(&state.options);

    int rc = tattle__config_load_for(&state.options, argc, argv, &error);
    if (rc == 0)
        rc = tattle__options_parse(&state.options, argc, argv, &error);
    if (rc == 0)
        rc = read_environment(&state, &error);
    if (rc == 0)
        rc = check_ids_registered(&state, &error);
    if (rc == 0)
        tattle__config_apply_tag_rules(&state.options, &state.registry);
    if (rc != 0) {
        int status = usage_error(&state, error.data);
        tattle__buffer_release(&error);
        return status;
    }
    if (state.options.help) {
        tattle__options_print_help(stdout, state.program);
        release_state(&state);
        return 0;
    }
    if (state.options.version) {
        printf("tattle %s\n", TATTLE_VERSION);
        release_state(&state);
        return 0;
    }
    if (!state.options.seed_given) {
        uint64_t mix = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ tattle__now_us();
        state.options.seed = splitmix64(&mix) % 1000000000ull;
    }

    ssize_t length = readlink("/proc/self/exe", state.executable, sizeof state.executable - 1);
    state.executable[length > 0 ? length : 0] = '\0';
    struct tattle__string_list rerun_ids = {0};
    bool use_rerun_ids = false;
    if (state.options.failed) {
        rc = tattle__last_run_load(state.executable, &rerun_ids, &error);
        if (rc < 0) {
            int status = usage_error(&state, error.data);
            tattle__buffer_release(&error);
            return status;
        }
        use_rerun_ids = rc > 0 && any_registered(&state.registry, &rerun_ids);
        if (!use_rerun_ids)
            fprintf(stderr, "%s: --failed: no failure of this binary is recorded in "
                            ".tattle/last-run.json; running the selected tests\n",
                    state.program);
    }
    build_plan(&state, use_rerun_ids ? &rerun_ids : NULL);
    tattle__string_list_release(&rerun_ids);
    if (state.plan_count == 0 && state.options.patterns.count > 0)
        fprintf(stderr, "%s: warning: no test matches the pattern%s given\n", state.program,
                state.options.patterns.count > 1 ? "s" : "");

    if (state.options.list) {
        list_tests(&state);
        release_state(&state);
        return 0;
    }

    struct tattle__options *o = &state.options;
    state.report_options = (struct tattle_report_options){
        .failures_only = o->failures_only,
        .summary_only = o->summary_only,
        .first_failure = o->first_failure,
        .group_by_error = o->group_by_error,
        .compact = o->compact,
        .quiet = o->quiet,
        .trace_passed = o->trace_passed,
        .filter_out = (const char *const *)o->filter_out.items,
        .filter_out_count = o->filter_out.count,
    };
    bool stdout_carries_report = false;
    for (size_t i = 0; i < o->reporter_count; i++)
        if (o->reporters[i].destination && strcmp(o->reporters[i].destination, "-") == 0)
            stdout_carries_report = true;
    /* Before any report file is opened: the fork server, which every test
     * process is forked from, must hold none of them. */
    struct tattle__schedule_config schedule = {
        .jobs = o->no_fork ? 1 : o->jobs,
        .no_fork = o->no_fork,
        .stdout_carries_report = stdout_carries_report,
        .original_sigpipe = state.original_sigpipe,
        .program_fds = state.program_fds,
        .program_fd_count = state.program_fd_count};
    rc = tattle__scheduler_create(&state.scheduler, &schedule);
    if (rc != 0) {
        fprintf(stderr, "%s: internal error: cannot prepare the test processes: %s\n",
                state.program, strerror(-rc));
        release_state(&state);
        tattle__buffer_release(&error);
        return 3;
    }
    if (open_reporters(&state, &error) != 0) {
        int status = usage_error(&state, error.data);
        tattle__buffer_release(&error);
        return status;
    }

    const char *premature_exit_file = getenv("TEST_PREMATURE_EXIT_FILE");
    if (premature_exit_file && *premature_exit_file) {
        int fd = open(premature_exit_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    }

    char started_at[32];
    tattle__timestamp_utc(started_at);
    struct tattle_run_info run_info = {
        .started_at = started_at,
        .seed = o->seed,
        .jobs = o->no_fork ? 1 : o->jobs,
        .argc = argc,
        .argv = argv,
        .executable = state.executable,
        .sharded = o->sharded,
        .shard_index = o->shard_index,
        .shard_total = o->shard_total,
        .planned = state.plan_count,
    };
    for (size_t i = 0; i < state.reporter_count; i++)
        state.reporters[i].type->begin(state.reporters[i].self, &run_info);

    uint64_t run_started = tattle__now_us();
    struct tattle__schedule_callbacks callbacks = {
        .next = next_job, .started = job_started, .finished = job_finished,
        .ctx = &state};
    int scheduled = tattle__scheduler_run(state.scheduler, &callbacks);
    if (scheduled != 0)
        report_unstarted(&state, scheduled > 0 ? "not run: the run was interrupted"
                                               : "not run: the run stopped on an internal error");
    state.summary.duration_us = tattle__now_us() - run_started;
    state.summary.interrupted = scheduled != 0;

    int status = scheduled != 0 ? 3
                 : state.summary.failed + state.summary.invalid > 0 ? 1
                                                                    : 0;
    status = skip_return_code(&state.summary, status);
    for (size_t i = 0; i < state.reporter_count; i++) {
        int end_rc = state.reporters[i].type->end(state.reporters[i].self, &state.summary);
        if (end_rc != 0) {
            fprintf(stderr, "%s: the %s report could not be written: %s\n",
                    state.program, state.reporters[i].type->name, strerror(-end_rc));
            status = 3;
        }
    }
    if (scheduled < 0)
        fprintf(stderr, "%s: internal error: %s\n", state.program, strerror(-scheduled));
    /* Merged, so even an interrupted run records what it learned. */
    int saved = tattle__last_run_save(state.executable, state.outcomes,
                                      state.outcome_count);
    if (saved != 0)
        fprintf(stderr,
                "%s: warning: .tattle/last-run.json could not be updated "
                "(--failed will not know this run): %s\n",
                state.program, strerror(-saved));
    if (premature_exit_file && *premature_exit_file && !state.summary.interrupted)
        unlink(premature_exit_file);
    close_reporters(&state);
    tattle__scheduler_destroy(state.scheduler);
    release_state(&state);
    tattle__buffer_release(&error);
    return status;
}
