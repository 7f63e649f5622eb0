/*
 * ctrf.c — the "ctrf" reporter (see ctrf.h for what it writes).
 *
 * The opening (format, version, id, tool and the tests' bracket) is
 * written at begin, each TEST object when its test finishes, and the
 * summary, environment and closing at the end. Every object is built with
 * cJSON through the results module's builders (results/json.h), so a
 * string from a test is repaired to valid UTF-8 and escaped by cJSON.
 */
#include "reporter/ctrf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>

#include "base/timestamp.h"
#include "reporter/plain_text.h"
#include "reporter/report_output.h"
#include "results/json.h"
#include "results/model.h"

#define CTRF_SPEC_VERSION "0.0.0"

struct ctrf_reporter {
    struct tattle__report_output output;
    struct tattle_run_info run; /* strings owned: started_at, executable */
    char **argv;
    uint64_t test_count;
    uint64_t passed, failed, skipped, flaky;
    struct tattle__buffer printed;
    struct tattle__buffer text;
    int error; /* the first error, returned by end */
};

/* ---- Pieces --------------------------------------------------------- */

/* Milliseconds since the epoch of an RFC 3339 UTC time
 * ("2024-01-02T03:04:05.123Z"); -1 when it is not one. */
static long long epoch_ms(const char *text)
{
    struct tm tm = {0};
    const char *rest = text ? strptime(text, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!rest)
        return -1;
    long long ms = 0;
    if (*rest == '.') {
        int digits = 0;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++)
            if (digits++ < 3)
                ms = ms * 10 + (*rest - '0');
        for (; digits < 3; digits++)
            ms *= 10;
    }
    if (*rest != 'Z' && *rest != '\0')
        return -1;
    return (long long)timegm(&tm) * 1000 + ms;
}

static long long now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* A random (version 4) UUID, the id of this report. */
static void random_uuid(char out[37])
{
    unsigned char bytes[16] = {0};
    if (getrandom(bytes, sizeof bytes, 0) != (ssize_t)sizeof bytes) {
        long long seed = now_ms();
        memcpy(bytes, &seed, sizeof seed);
    }
    bytes[6] = (unsigned char)((bytes[6] & 0x0f) | 0x40);
    bytes[8] = (unsigned char)((bytes[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < sizeof bytes; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[bytes[i] >> 4];
        out[o++] = hex[bytes[i] & 15];
    }
    out[o] = '\0';
}

static uint64_t milliseconds(uint64_t microseconds)
{
    return (microseconds + 500) / 1000;
}

static const char *ctrf_status(enum tattle_state state)
{
    switch (state) {
    case TATTLE_STATE_PASSED:
        return "passed";
    case TATTLE_STATE_FAILED:
    case TATTLE_STATE_INVALID:
        return "failed";
    case TATTLE_STATE_SKIPPED:
    case TATTLE_STATE_EXCLUDED:
        return "skipped";
    }
    return "other";
}

/* The lines of captured output as an array of strings (no array when
 * nothing was captured). */
static bool add_lines(cJSON *object, const char *key,
                      const struct tattle_output *output)
{
    if (output->length == 0)
        return true;
    cJSON *lines = cJSON_AddArrayToObject(object, key);
    if (!lines)
        return false;
    size_t length = output->length;
    if (output->text[length - 1] == '\n')
        length--;
    for (size_t i = 0; i <= length;) {
        const char *newline = memchr(output->text + i, '\n', length - i);
        size_t end = newline ? (size_t)(newline - output->text) : length;
        cJSON *line = tattle__json_bytes(output->text + i, end - i);
        if (!line || !cJSON_AddItemToArray(lines, line)) {
            cJSON_Delete(line);
            return false;
        }
        i = end + 1;
    }
    return true;
}

/* Every failure of the result as text (plain_text.h). */
static const char *failures_text(struct ctrf_reporter *self,
                                 const struct tattle_result *result)
{
    tattle__buffer_clear(&self->text);
    for (size_t i = 0; i < result->failure_count; i++) {
        if (i)
            tattle__buffer_append(&self->text, "\n", 1);
        tattle__text_failure(&self->text, &result->failures[i]);
    }
    return self->text.data ? self->text.data : "";
}

static bool add_tags(cJSON *test, const struct tattle_test_info *info)
{
    if (!info->tag_count)
        return true;
    cJSON *tags = cJSON_AddArrayToObject(test, "tags");
    if (!tags)
        return false;
    struct tattle__buffer tag = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < info->tag_count; i++) {
        tattle__buffer_clear(&tag);
        tattle__buffer_append_string(
            &tag, info->tags[i].name ? info->tags[i].name : "");
        if (info->tags[i].value) {
            tattle__buffer_append(&tag, ":", 1);
            tattle__buffer_append_string(&tag, info->tags[i].value);
        }
        cJSON *item = tattle__json_bytes(tag.data, tag.length);
        ok = item && cJSON_AddItemToArray(tags, item);
        if (!ok)
            cJSON_Delete(item);
    }
    tattle__buffer_release(&tag);
    return ok;
}

/* tattle's own view of the test: state, attempts, failures, trace, the
 * output's counts and the rerun command, taken from the TEST object of
 * the JSON report. */
static cJSON *create_extra(const struct tattle_result *result)
{
    cJSON *test = tattle__json_test(result, NULL);
    if (!test)
        return NULL;
    cJSON *extra = cJSON_CreateObject();
    static const char *const kept[] = {"state", "attempts", "failures",
                                       "trace", "output",   "rerun"};
    for (size_t i = 0; extra && i < sizeof kept / sizeof *kept; i++) {
        cJSON *item = cJSON_DetachItemFromObjectCaseSensitive(test, kept[i]);
        if (!item || cJSON_IsNull(item)) {
            cJSON_Delete(item);
            continue;
        }
        if (strcmp(kept[i], "output") == 0) {
            cJSON_DeleteItemFromObjectCaseSensitive(item, "stdout");
            cJSON_DeleteItemFromObjectCaseSensitive(item, "stderr");
        }
        if (!cJSON_AddItemToObject(extra, kept[i], item)) {
            cJSON_Delete(item);
            cJSON_Delete(extra);
            extra = NULL;
        }
    }
    cJSON_Delete(test);
    return extra;
}

/* One failed attempt of the test, run `number`, as a CTRF retry attempt:
 * its status, duration, first message, failures, line and output. */
static bool add_failed_attempt(struct ctrf_reporter *self, cJSON *attempts,
                               const struct tattle_result *attempt,
                               unsigned number)
{
    cJSON *object = cJSON_CreateObject();
    if (!object || !cJSON_AddItemToArray(attempts, object)) {
        cJSON_Delete(object);
        return false;
    }
    bool ok = tattle__json_add_uint(object, "attempt", number > 0 ? number : 1);
    ok = cJSON_AddStringToObject(object, "status", "failed") && ok;
    ok = tattle__json_add_uint(object, "duration",
                               milliseconds(attempt->duration_us)) &&
         ok;
    const struct tattle_failure *first =
        attempt->failure_count ? &attempt->failures[0] : NULL;
    if (first) {
        ok = tattle__json_add_text(object, "message",
                                   first->message ? first->message : "") &&
             ok;
        const char *trace = failures_text(self, attempt);
        ok =
            tattle__json_add_bytes(object, "trace", trace, self->text.length) &&
            ok;
        if (first->line > 0)
            ok = tattle__json_add_uint(object, "line", (uint64_t)first->line) &&
                 ok;
    }
    ok = add_lines(object, "stdout", &attempt->stdout_output) && ok;
    ok = add_lines(object, "stderr", &attempt->stderr_output) && ok;
    return ok;
}

/* The failed attempts before the one the test object stands for, oldest
 * first, as CTRF's retryAttempts: a flaky pass's every failed attempt (its
 * last passed), a failed test's earlier attempts. Returns how many. */
static bool add_retry_attempts(struct ctrf_reporter *self, cJSON *test,
                               const struct tattle_result *result,
                               unsigned *written)
{
    bool flaky = result->flaky && result->failure_count > 0;
    *written = (unsigned)result->earlier_attempt_count + (flaky ? 1u : 0u);
    if (*written == 0)
        return true;
    cJSON *attempts = cJSON_AddArrayToObject(test, "retryAttempts");
    bool ok = attempts != NULL;
    for (size_t i = 0; ok && i < result->earlier_attempt_count; i++)
        ok = add_failed_attempt(self, attempts, &result->earlier_attempts[i],
                                tattle__earlier_attempt_number(result, i));
    /* A flaky pass's own failures and output are its last failed run's. */
    if (ok && flaky)
        ok = add_failed_attempt(self, attempts, result,
                                tattle__shown_attempt(result));
    return ok;
}

static cJSON *create_test(struct ctrf_reporter *self,
                          const struct tattle_result *result)
{
    const struct tattle_test_info *info = result->test;
    cJSON *test = cJSON_CreateObject();
    if (!test)
        return NULL;
    const char *id = info->id && *info->id ? info->id : "?";
    bool ok = tattle__json_add_text(test, "testId", id);
    ok = tattle__json_add_text(test, "name",
                               info->name && *info->name ? info->name : id) &&
         ok;
    ok = cJSON_AddStringToObject(test, "status", ctrf_status(result->state)) &&
         ok;
    ok = cJSON_AddStringToObject(test, "rawStatus",
                                 tattle_state_name(result->state)) &&
         ok;
    ok = tattle__json_add_uint(test, "duration",
                               milliseconds(result->duration_us)) &&
         ok;
    cJSON *suite = cJSON_AddArrayToObject(test, "suite");
    cJSON *suite_name =
        tattle__json_text(info->suite && *info->suite ? info->suite : "?");
    if (!suite || !suite_name || !cJSON_AddItemToArray(suite, suite_name)) {
        cJSON_Delete(suite_name);
        ok = false;
    }
    if (info->file)
        ok = tattle__json_add_text(test, "filePath", info->file) && ok;
    if (info->line > 0)
        ok = tattle__json_add_uint(test, "line", (uint64_t)info->line) && ok;
    ok = add_tags(test, info) && ok;
    bool failed = tattle__result_failed(result);
    const struct tattle_failure *first =
        result->failure_count ? &result->failures[0] : NULL;
    if (failed && first) {
        ok = tattle__json_add_text(test, "message",
                                   first->message ? first->message : "") &&
             ok;
        const char *trace = failures_text(self, result);
        ok = tattle__json_add_bytes(test, "trace", trace, self->text.length) &&
             ok;
    } else if (!failed && result->skip_reason) {
        ok = tattle__json_add_text(test, "message", result->skip_reason) && ok;
    }
    unsigned retried = 0;
    ok = add_retry_attempts(self, test, result, &retried) && ok;
    ok = tattle__json_add_uint(test, "retries", retried) && ok;
    ok = cJSON_AddBoolToObject(test, "flaky", result->flaky) && ok;
    if (!(result->flaky && first)) {
        /* A flaky pass's output went with its failed attempt. */
        ok = add_lines(test, "stdout", &result->stdout_output) && ok;
        ok = add_lines(test, "stderr", &result->stderr_output) && ok;
    }
    cJSON *extra = create_extra(result);
    if (!extra || !cJSON_AddItemToObject(test, "extra", extra)) {
        cJSON_Delete(extra);
        ok = false;
    }
    if (!ok) {
        cJSON_Delete(test);
        return NULL;
    }
    return test;
}

/* Prints `item` into the output, dropping its last `drop_last` bytes. */
static void write_item(struct ctrf_reporter *self, cJSON *item,
                       size_t drop_last)
{
    if (!item || !tattle__json_print(item, &self->printed)) {
        tattle__remember_error(&self->error, -ENOMEM);
        return;
    }
    tattle__remember_error(
        &self->error, tattle__sink_write(&self->output.sink, self->printed.data,
                                         self->printed.length - drop_last));
}

/* ---- Callbacks ------------------------------------------------------ */

static void ctrf_destroy(void *opaque);

static int ctrf_create(void **out, const char *destination,
                       const struct tattle_report_options *options)
{
    (void)options;
    struct ctrf_reporter *self = tattle__calloc(1, sizeof *self);
    int error = tattle__report_output_open(&self->output, destination, false);
    if (error) {
        free(self);
        return error;
    }
    *out = self;
    return 0;
}

static void ctrf_begin(void *opaque, const struct tattle_run_info *run)
{
    struct ctrf_reporter *self = opaque;
    self->run = *run;
    self->run.started_at = tattle__strdup(run->started_at);
    self->run.executable = tattle__strdup(run->executable);
    self->argv = tattle__calloc((size_t)(run->argc > 0 ? run->argc : 0) + 1,
                                sizeof *self->argv);
    for (int i = 0; i < run->argc; i++)
        self->argv[i] = tattle__strdup(run->argv[i]);
    self->run.argv = self->argv;

    char uuid[37];
    random_uuid(uuid);
    cJSON *opening = cJSON_CreateObject();
    cJSON *results = cJSON_CreateObject();
    bool ok =
        opening && results &&
        cJSON_AddStringToObject(opening, "reportFormat", "CTRF") &&
        cJSON_AddStringToObject(opening, "specVersion", CTRF_SPEC_VERSION) &&
        cJSON_AddStringToObject(opening, "reportId", uuid);
    cJSON *tool = ok ? tattle__json_tool() : NULL;
    ok = tool && cJSON_AddItemToObject(results, "tool", tool);
    if (!ok)
        cJSON_Delete(tool);
    ok = ok && cJSON_AddItemToObject(opening, "results", results);
    if (!ok) {
        cJSON_Delete(results);
        cJSON_Delete(opening);
        tattle__remember_error(&self->error, -ENOMEM);
        return;
    }
    /* {"reportFormat":...,"results":{"tool":{...}}} without its last two
     * braces, then the tests' opening. */
    write_item(self, opening, 2);
    cJSON_Delete(opening);
    tattle__sink_write(&self->output.sink, ",\"tests\":[", 10);
}

static void ctrf_test_started(void *opaque, const struct tattle_test_info *test)
{
    (void)opaque;
    (void)test;
}

static void ctrf_test_finished(void *opaque, const struct tattle_result *result)
{
    struct ctrf_reporter *self = opaque;
    if (self->error)
        return;
    cJSON *test = create_test(self, result);
    tattle__sink_write(&self->output.sink, self->test_count ? ",\n" : "\n",
                       self->test_count ? 2 : 1);
    write_item(self, test, 0);
    cJSON_Delete(test);
    self->test_count++;
    switch (result->state) {
    case TATTLE_STATE_PASSED:
        self->passed++;
        break;
    case TATTLE_STATE_FAILED:
    case TATTLE_STATE_INVALID:
        self->failed++;
        break;
    case TATTLE_STATE_SKIPPED:
    case TATTLE_STATE_EXCLUDED:
        self->skipped++;
        break;
    }
    self->flaky += result->flaky;
}

/* ,"summary":{...},"environment":{...},"extra":{...}} and the rest. */
static cJSON *create_closing(struct ctrf_reporter *self,
                             const struct tattle_summary *summary)
{
    cJSON *closing = cJSON_CreateObject();
    if (!closing)
        return NULL;
    long long stop = now_ms();
    long long start = epoch_ms(self->run.started_at);
    uint64_t duration = milliseconds(summary->duration_us);
    if (start < 0)
        start = stop - (long long)duration;
    stop = start + (long long)duration;
    cJSON *counts = cJSON_AddObjectToObject(closing, "summary");
    bool ok =
        counts && tattle__json_add_uint(counts, "tests", self->test_count);
    ok = ok && tattle__json_add_uint(counts, "passed", self->passed);
    ok = ok && tattle__json_add_uint(counts, "failed", self->failed);
    ok = ok && tattle__json_add_uint(counts, "skipped", self->skipped);
    ok = ok && tattle__json_add_uint(counts, "pending", 0);
    ok = ok && tattle__json_add_uint(counts, "other", 0);
    ok = ok && tattle__json_add_uint(counts, "flaky", self->flaky);
    ok = ok && tattle__json_add_uint(counts, "start", (uint64_t)start);
    ok = ok && tattle__json_add_uint(counts, "stop", (uint64_t)stop);
    ok = ok && tattle__json_add_uint(counts, "duration", duration);
    cJSON *tattle_summary = ok ? tattle__json_summary(summary) : NULL;
    cJSON *extra = ok ? cJSON_AddObjectToObject(counts, "extra") : NULL;
    ok = tattle_summary && extra &&
         cJSON_AddItemToObject(extra, "tattle", tattle_summary);
    if (!ok)
        cJSON_Delete(tattle_summary);

    struct utsname system;
    cJSON *environment =
        ok ? cJSON_AddObjectToObject(closing, "environment") : NULL;
    ok = environment &&
         cJSON_AddStringToObject(environment, "osPlatform", "linux");
    if (ok && uname(&system) == 0)
        ok = tattle__json_add_bytes(environment, "osRelease", system.release,
                                    strlen(system.release));
    if (ok && self->run.sharded) {
        char shard[48];
        snprintf(shard, sizeof shard, "%u/%u", self->run.shard_index,
                 self->run.shard_total);
        ok = cJSON_AddStringToObject(environment, "shardId", shard) != NULL;
    }
    cJSON *run = ok ? tattle__json_run(&self->run, summary) : NULL;
    cJSON *results_extra =
        run ? cJSON_AddObjectToObject(closing, "extra") : NULL;
    ok = results_extra && cJSON_AddItemToObject(results_extra, "run", run);
    if (!ok) {
        cJSON_Delete(run);
        cJSON_Delete(closing);
        return NULL;
    }
    return closing;
}

static int ctrf_end(void *opaque, const struct tattle_summary *summary)
{
    struct ctrf_reporter *self = opaque;
    if (self->error)
        return self->error;
    tattle__sink_write(&self->output.sink, self->test_count ? "\n]," : "],",
                       self->test_count ? 3 : 2);
    /* The closing object's members continue the results object. */
    cJSON *closing = create_closing(self, summary);
    if (closing && tattle__json_print(closing, &self->printed))
        tattle__sink_write(&self->output.sink, self->printed.data + 1,
                           self->printed.length - 1);
    else
        tattle__remember_error(&self->error, -ENOMEM);
    cJSON_Delete(closing);

    char now[32];
    cJSON *tail = cJSON_CreateObject();
    bool ok =
        tail &&
        cJSON_AddStringToObject(tail, "timestamp",
                                tattle__timestamp_utc(now)) &&
        cJSON_AddStringToObject(tail, "generatedBy", "tattle " TATTLE_VERSION);
    if (ok && tattle__json_print(tail, &self->printed)) {
        tattle__sink_write(&self->output.sink, ",", 1);
        tattle__sink_write(&self->output.sink, self->printed.data + 1,
                           self->printed.length - 1);
        tattle__sink_write(&self->output.sink, "\n", 1);
    } else
        tattle__remember_error(&self->error, -ENOMEM);
    cJSON_Delete(tail);
    if (self->error)
        return self->error;
    return tattle__report_output_commit(&self->output);
}

static void ctrf_destroy(void *opaque)
{
    struct ctrf_reporter *self = opaque;
    if (!self)
        return;
    tattle__report_output_discard(&self->output);
    free((char *)self->run.started_at);
    free((char *)self->run.executable);
    for (int i = 0; self->argv && self->argv[i]; i++)
        free(self->argv[i]);
    free(self->argv);
    tattle__buffer_release(&self->printed);
    tattle__buffer_release(&self->text);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_ctrf = {
    .name = "ctrf",
    .create = ctrf_create,
    .begin = ctrf_begin,
    .test_started = ctrf_test_started,
    .test_finished = ctrf_test_finished,
    .end = ctrf_end,
    .destroy = ctrf_destroy,
};
