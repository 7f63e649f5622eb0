/*
 * junit.c — the "junit" reporter (see junit.h for what it writes and how
 * it keeps memory flat).
 *
 * Test cases are XML fragments indented for their place in the report
 * (three levels deep), written to the scratch file as each test finishes.
 * The suites are found by name in a small open-addressing table; each
 * suite chains its test cases through the entry array, so the end walks
 * them without sorting. Adjacent test cases of a suite (the usual case
 * when a run is not shuffled) are copied in one call.
 */
#include "reporter/junit.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/report_file.h"
#include "base/text.h"
#include "base/timestamp.h"
#include "reporter/plain_text.h"
#include "reporter/report_output.h"
#include "reporter/xml_writer.h"
#include "results/model.h"

enum { NO_ENTRY = -1 };

/* One test case in the scratch file. */
struct junit_entry {
    uint64_t offset;
    uint64_t length;
    int64_t next; /* the suite's next test case, or NO_ENTRY */
};

struct junit_suite {
    char *name;
    uint64_t tests, failures, errors, skipped;
    uint64_t time_us;
    int64_t first, last; /* its test cases, chained through `next` */
};

struct junit_reporter {
    struct tattle__report_output output;
    int scratch_fd;
    struct tattle__sink scratch;

    char *executable;
    char *started_at;
    uint64_t seed;
    bool sharded;
    unsigned shard_index, shard_total;
    char hostname[256];

    struct junit_entry *entries;
    size_t entry_count, entry_capacity;
    struct junit_suite *suites;
    size_t suite_count, suite_capacity;
    size_t *slots;     /* suite indexes by hash; SIZE_MAX empty */
    size_t slot_count; /* a power of two, > 2 * suite_count */
    size_t last_suite; /* the suite of the previous test */

    struct tattle__buffer fragment; /* the test case being written */
    struct tattle__buffer text;     /* raw text before escaping */
    int error;                      /* the first error, returned by end */
};

/* ---- Suites by name ------------------------------------------------- */

static void rehash(struct junit_reporter *self)
{
    size_t count = self->slot_count ? self->slot_count * 2 : 64;
    size_t *slots = tattle__malloc(count * sizeof *slots);
    for (size_t i = 0; i < count; i++)
        slots[i] = SIZE_MAX;
    for (size_t s = 0; s < self->suite_count; s++) {
        size_t i =
            (size_t)tattle__hash_text(self->suites[s].name) & (count - 1);
        while (slots[i] != SIZE_MAX)
            i = (i + 1) & (count - 1);
        slots[i] = s;
    }
    free(self->slots);
    self->slots = slots;
    self->slot_count = count;
}

static struct junit_suite *find_suite(struct junit_reporter *self,
                                      const char *name)
{
    if (self->suite_count &&
        strcmp(self->suites[self->last_suite].name, name) == 0)
        return &self->suites[self->last_suite];
    if (2 * (self->suite_count + 1) >= self->slot_count)
        rehash(self);
    size_t i = (size_t)tattle__hash_text(name) & (self->slot_count - 1);
    for (; self->slots[i] != SIZE_MAX; i = (i + 1) & (self->slot_count - 1)) {
        if (strcmp(self->suites[self->slots[i]].name, name) == 0) {
            self->last_suite = self->slots[i];
            return &self->suites[self->last_suite];
        }
    }
    if (self->suite_count == self->suite_capacity) {
        self->suite_capacity =
            self->suite_capacity ? 2 * self->suite_capacity : 16;
        self->suites = tattle__realloc(self->suites, self->suite_capacity *
                                                         sizeof *self->suites);
    }
    self->slots[i] = self->suite_count;
    self->last_suite = self->suite_count;
    struct junit_suite *suite = &self->suites[self->suite_count++];
    *suite = (struct junit_suite){
        .name = tattle__strdup(name), .first = NO_ENTRY, .last = NO_ENTRY};
    return suite;
}

/* ---- One test case -------------------------------------------------- */

enum verdict {
    VERDICT_PASSED,
    VERDICT_FAILURE,
    VERDICT_ERROR,
    VERDICT_SKIPPED
};

/* The failure that names a failed test's element: the first that is not
 * an assertion (an error), else the first (a failure). */
static const struct tattle_failure *headline(const struct tattle_result *result,
                                             bool *is_error)
{
    for (size_t i = 0; i < result->failure_count; i++) {
        if (result->failures[i].kind != TATTLE_FAILURE_ASSERTION) {
            *is_error = true;
            return &result->failures[i];
        }
    }
    *is_error = false;
    return result->failure_count ? &result->failures[0] : NULL;
}

static const char *failure_type(const struct tattle_failure *failure,
                                char scratch[16])
{
    switch (failure->kind) {
    case TATTLE_FAILURE_ASSERTION:
        return failure->macro && *failure->macro ? failure->macro : "assertion";
    case TATTLE_FAILURE_CRASH:
        return tattle__signal_name(failure->signal, scratch);
    case TATTLE_FAILURE_TIMEOUT:
        return "timeout";
    case TATTLE_FAILURE_EXIT:
        return "exit";
    case TATTLE_FAILURE_ERROR:
        return "error";
    }
    return "error";
}

/* The first line of `text`, as an attribute of the element just opened. */
static void first_line_attribute(struct tattle__xml *xml, const char *name,
                                 const char *text)
{
    if (!text)
        text = "";
    size_t length = strcspn(text, "\n");
    if (length && text[length - 1] == '\r')
        length--;
    tattle__xml_attribute_bytes(xml, name, text, length);
}

static void append_text(struct tattle__buffer *out, const char *text)
{
    tattle__buffer_append(out, text, strlen(text));
}

/* Every failure of the result, as text, into self->text; then, when the
 * test ran more than once, which attempt failed, and the command that
 * reruns the test. */
static void failures_text(struct junit_reporter *self,
                          const struct tattle_result *result)
{
    struct tattle__buffer *out = &self->text;
    tattle__buffer_clear(out);
    for (size_t i = 0; i < result->failure_count; i++) {
        if (i)
            tattle__buffer_append(out, "\n", 1);
        tattle__text_failure(out, &result->failures[i]);
    }
    unsigned failed = tattle__failed_attempts(result);
    if (result->attempts > 1 && result->flaky)
        tattle__buffer_printf(out,
                              "\nattempt %u of %u failed (above); attempt %u "
                              "passed\n",
                              tattle__shown_attempt(result), result->attempts,
                              result->attempts);
    else if (result->attempts > 1 && failed == result->attempts)
        tattle__buffer_printf(out,
                              "\nall %u attempts failed (above: the "
                              "last one)\n",
                              result->attempts);
    else if (result->attempts > 1 && failed > 1)
        tattle__buffer_printf(out,
                              "\nthe last %u of %u attempts failed (above: "
                              "the last one)\n",
                              failed, result->attempts);
    else if (result->attempts > 1)
        tattle__buffer_printf(out, "\nattempt %u of %u failed (above)\n",
                              result->attempts, result->attempts);
    if (result->rerun) {
        append_text(out, result->attempts > 1 ? "rerun: " : "\nrerun: ");
        append_text(out, result->rerun);
        tattle__buffer_append(out, "\n", 1);
    }
}

static void output_element(struct junit_reporter *self, struct tattle__xml *xml,
                           const char *name, const struct tattle_output *output,
                           const struct tattle_trace *trace)
{
    if (output->length == 0 && !trace)
        return;
    tattle__xml_start(xml, name);
    tattle__buffer_clear(&self->text);
    tattle__buffer_append(&self->text, output->text, output->length);
    if (trace) {
        if (output->length && output->text[output->length - 1] != '\n')
            tattle__buffer_append(&self->text, "\n", 1);
        if (output->length)
            tattle__buffer_append(&self->text, "\n", 1);
        tattle__text_trace(&self->text, trace);
    }
    tattle__xml_text(xml, self->text.data, self->text.length);
    tattle__xml_end(xml);
}

static void properties_element(struct tattle__xml *xml,
                               const struct tattle_test_info *test)
{
    if (!test->tag_count && !test->param)
        return;
    tattle__xml_start(xml, "properties");
    if (test->param) {
        /* A parameterized test's value; its name ends in [index]. */
        tattle__xml_start(xml, "property");
        tattle__xml_attribute(xml, "name", "param");
        tattle__xml_attribute(xml, "value", test->param);
        tattle__xml_end(xml);
    }
    for (size_t i = 0; i < test->tag_count; i++) {
        tattle__xml_start(xml, "property");
        tattle__xml_attribute(xml, "name",
                              test->tags[i].name ? test->tags[i].name : "");
        tattle__xml_attribute(
            xml, "value", test->tags[i].value ? test->tags[i].value : "true");
        tattle__xml_end(xml);
    }
    tattle__xml_end(xml);
}

/* One failed attempt of a retried test as Surefire writes it: <NAME
 * message type><stackTrace>its failures</stackTrace>, its output, </NAME>,
 * where NAME is `names[0]` for an attempt that failed an assertion and
 * `names[1]` for one that erred; `number` of `total` says which attempt. */
static void attempt_element(struct junit_reporter *self,
                            struct tattle__xml *xml, const char *const names[2],
                            const struct tattle_result *attempt,
                            unsigned number, unsigned total)
{
    bool is_error = false;
    const struct tattle_failure *first = headline(attempt, &is_error);
    char scratch[16];
    tattle__xml_start(xml, names[is_error]);
    first_line_attribute(xml, "message",
                         first ? first->message
                               : tattle_state_name(attempt->state));
    tattle__xml_attribute(xml, "type",
                          first ? failure_type(first, scratch) : "failed");
    tattle__xml_start(xml, "stackTrace");
    struct tattle__buffer *text = &self->text;
    tattle__buffer_clear(text);
    for (size_t i = 0; i < attempt->failure_count; i++) {
        if (i)
            tattle__buffer_append(text, "\n", 1);
        tattle__text_failure(text, &attempt->failures[i]);
    }
    tattle__buffer_printf(text, "\nattempt %u of %u failed\n", number, total);
    tattle__xml_text(xml, text->data, text->length);
    tattle__xml_end(xml);
    output_element(self, xml, "system-out", &attempt->stdout_output, NULL);
    output_element(self, xml, "system-err", &attempt->stderr_output, NULL);
    tattle__xml_end(xml);
}

static enum verdict write_testcase(struct junit_reporter *self,
                                   const struct tattle_result *result)
{
    static const char *const rerun_names[2] = {"rerunFailure", "rerunError"};
    static const char *const flaky_names[2] = {"flakyFailure", "flakyError"};
    unsigned earlier = (unsigned)result->earlier_attempt_count;
    const struct tattle_test_info *test = result->test;
    struct tattle__xml xml = {.out = &self->fragment, .base_depth = 2};
    tattle__buffer_clear(&self->fragment);
    tattle__xml_start(&xml, "testcase");
    tattle__xml_attribute(&xml, "classname", test->suite ? test->suite : "");
    tattle__xml_attribute(&xml, "name",
                          test->name ? test->name
                          : test->id ? test->id
                                     : "");
    tattle__xml_attribute(&xml, "file", test->file);
    if (test->file)
        tattle__xml_attribute_uint(&xml, "line",
                                   test->line > 0 ? (uint64_t)test->line : 0);
    tattle__xml_attribute_seconds(&xml, "time", result->duration_us);
    properties_element(&xml, test);

    enum verdict verdict = VERDICT_PASSED;
    bool is_error = false;
    const struct tattle_failure *first = headline(result, &is_error);
    char scratch[16];
    const struct tattle_trace *trace = result->trace;
    switch (result->state) {
    case TATTLE_STATE_FAILED:
    case TATTLE_STATE_INVALID:
        if (!first)
            is_error = result->state == TATTLE_STATE_INVALID;
        verdict = is_error ? VERDICT_ERROR : VERDICT_FAILURE;
        tattle__xml_start(&xml, is_error ? "error" : "failure");
        first_line_attribute(&xml, "message",
                             first ? first->message
                                   : tattle_state_name(result->state));
        tattle__xml_attribute(&xml, "type",
                              first      ? failure_type(first, scratch)
                              : is_error ? "error"
                                         : "failed");
        if (first) {
            failures_text(self, result);
            tattle__xml_text(&xml, self->text.data, self->text.length);
        }
        tattle__xml_end(&xml);
        /* The attempts before the last, as Surefire's reruns. */
        for (unsigned i = 0; i < earlier; i++)
            attempt_element(
                self, &xml, rerun_names, &result->earlier_attempts[i],
                tattle__earlier_attempt_number(result, i), result->attempts);
        break;
    case TATTLE_STATE_SKIPPED:
    case TATTLE_STATE_EXCLUDED:
        verdict = VERDICT_SKIPPED;
        tattle__xml_start(&xml, "skipped");
        first_line_attribute(&xml, "message",
                             result->skip_reason
                                 ? result->skip_reason
                                 : tattle_state_name(result->state));
        tattle__xml_end(&xml);
        break;
    case TATTLE_STATE_PASSED:
        if (result->flaky && first) {
            /* Every failed attempt, oldest first; the output and trace
             * the result kept are the last failed attempt's. */
            for (unsigned i = 0; i < earlier; i++)
                attempt_element(self, &xml, flaky_names,
                                &result->earlier_attempts[i],
                                tattle__earlier_attempt_number(result, i),
                                result->attempts);
            tattle__xml_start(&xml, is_error ? "flakyError" : "flakyFailure");
            first_line_attribute(&xml, "message", first->message);
            tattle__xml_attribute(&xml, "type", failure_type(first, scratch));
            tattle__xml_start(&xml, "stackTrace");
            failures_text(self, result);
            tattle__xml_text(&xml, self->text.data, self->text.length);
            tattle__xml_end(&xml);
            output_element(self, &xml, "system-out", &result->stdout_output,
                           trace);
            output_element(self, &xml, "system-err", &result->stderr_output,
                           NULL);
            tattle__xml_end(&xml);
            tattle__xml_end(&xml);
            return verdict;
        }
        break;
    }
    output_element(self, &xml, "system-out", &result->stdout_output, trace);
    output_element(self, &xml, "system-err", &result->stderr_output, NULL);
    tattle__xml_end(&xml);
    return verdict;
}

/* ---- Callbacks ------------------------------------------------------ */

static void junit_destroy(void *opaque);

static int junit_create(void **out, const char *destination,
                        const struct tattle_report_options *options)
{
    (void)options;
    struct junit_reporter *self = tattle__calloc(1, sizeof *self);
    self->scratch_fd = -1;
    int error = tattle__report_output_open(&self->output, destination, false);
    if (!error) {
        /* Beside the report: the final copies stay in the kernel. */
        self->scratch_fd = tattle__scratch_open(self->output.directory);
        if (self->scratch_fd < 0)
            error = self->scratch_fd;
    }
    self->scratch.fd = self->scratch_fd;
    if (error) {
        junit_destroy(self);
        return error;
    }
    *out = self;
    return 0;
}

static void junit_begin(void *opaque, const struct tattle_run_info *run)
{
    struct junit_reporter *self = opaque;
    self->executable =
        tattle__strdup(run->executable ? run->executable : "tattle");
    self->started_at = tattle__strdup(run->started_at);
    self->seed = run->seed;
    self->sharded = run->sharded;
    self->shard_index = run->shard_index;
    self->shard_total = run->shard_total;
    if (gethostname(self->hostname, sizeof self->hostname - 1) != 0)
        strcpy(self->hostname, "localhost");
}

static void junit_test_started(void *opaque,
                               const struct tattle_test_info *test)
{
    (void)opaque;
    (void)test;
}

static void junit_test_finished(void *opaque,
                                const struct tattle_result *result)
{
    struct junit_reporter *self = opaque;
    if (self->error)
        return;
    enum verdict verdict = write_testcase(self, result);
    struct junit_suite *suite =
        find_suite(self, result->test->suite ? result->test->suite : "");
    suite->tests++;
    suite->failures += verdict == VERDICT_FAILURE;
    suite->errors += verdict == VERDICT_ERROR;
    suite->skipped += verdict == VERDICT_SKIPPED;
    suite->time_us += result->duration_us;

    if (self->entry_count == self->entry_capacity) {
        self->entry_capacity =
            self->entry_capacity ? 2 * self->entry_capacity : 256;
        self->entries = tattle__realloc(
            self->entries, self->entry_capacity * sizeof *self->entries);
    }
    int64_t index = (int64_t)self->entry_count++;
    self->entries[index] = (struct junit_entry){.offset = self->scratch.written,
                                                .length = self->fragment.length,
                                                .next = NO_ENTRY};
    if (suite->last == NO_ENTRY)
        suite->first = index;
    else
        self->entries[suite->last].next = index;
    suite->last = index;
    tattle__remember_error(
        &self->error, tattle__sink_write(&self->scratch, self->fragment.data,
                                         self->fragment.length));
}

/* Copies a suite's test cases from the scratch file, adjacent ones in one
 * call. The output's buffer must be flushed first. */
static int copy_testcases(struct junit_reporter *self,
                          const struct junit_suite *suite)
{
    int fd = self->output.sink.fd;
    int64_t i = suite->first;
    while (i != NO_ENTRY) {
        uint64_t from = self->entries[i].offset;
        uint64_t to = from + self->entries[i].length;
        i = self->entries[i].next;
        while (i != NO_ENTRY && self->entries[i].offset == to) {
            to += self->entries[i].length;
            i = self->entries[i].next;
        }
        int error = tattle__copy_fd(self->scratch_fd, from, to - from, fd);
        if (error)
            return error;
        self->output.sink.written += to - from;
    }
    return 0;
}

static void suite_attributes(struct tattle__xml *xml, uint64_t tests,
                             uint64_t failures, uint64_t errors,
                             uint64_t skipped, uint64_t time_us,
                             const char *timestamp)
{
    tattle__xml_attribute_uint(xml, "tests", tests);
    tattle__xml_attribute_uint(xml, "failures", failures);
    tattle__xml_attribute_uint(xml, "errors", errors);
    tattle__xml_attribute_uint(xml, "skipped", skipped);
    tattle__xml_attribute_seconds(xml, "time", time_us);
    tattle__xml_attribute(xml, "timestamp", timestamp);
}

static void property(struct tattle__xml *xml, const char *name,
                     const char *value)
{
    tattle__xml_start(xml, "property");
    tattle__xml_attribute(xml, "name", name);
    tattle__xml_attribute(xml, "value", value);
    tattle__xml_end(xml);
}

/* Writes what the XML writer holds to the output and empties it. */
static int drain(struct junit_reporter *self, struct tattle__buffer *written)
{
    int error =
        tattle__sink_write(&self->output.sink, written->data, written->length);
    tattle__buffer_clear(written);
    return error;
}

static int write_report(struct junit_reporter *self,
                        const struct tattle_summary *summary)
{
    struct tattle__buffer head = {0};
    struct tattle__xml xml = {.out = &head};
    uint64_t tests = 0, failures = 0, errors = 0, skipped = 0;
    for (size_t s = 0; s < self->suite_count; s++) {
        tests += self->suites[s].tests;
        failures += self->suites[s].failures;
        errors += self->suites[s].errors;
        skipped += self->suites[s].skipped;
    }
    char started_at[32];
    const char *timestamp =
        self->started_at ? self->started_at : tattle__timestamp_utc(started_at);
    tattle__xml_declaration(&xml);
    tattle__xml_start(&xml, "testsuites");
    tattle__xml_attribute(&xml, "name",
                          self->executable ? self->executable : "tattle");
    suite_attributes(&xml, tests, failures, errors, skipped,
                     summary->duration_us, timestamp);
    char number[64];
    int error = 0;
    for (size_t s = 0; !error && s < self->suite_count; s++) {
        const struct junit_suite *suite = &self->suites[s];
        tattle__xml_start(&xml, "testsuite");
        tattle__xml_attribute(&xml, "name", suite->name);
        suite_attributes(&xml, suite->tests, suite->failures, suite->errors,
                         suite->skipped, suite->time_us, timestamp);
        tattle__xml_attribute(&xml, "hostname", self->hostname);
        tattle__xml_start(&xml, "properties");
        snprintf(number, sizeof number, "%llu", (unsigned long long)self->seed);
        property(&xml, "seed", number);
        if (self->sharded) {
            snprintf(number, sizeof number, "%u/%u", self->shard_index,
                     self->shard_total);
            property(&xml, "shard", number);
        }
        property(&xml, "tattle.version", TATTLE_VERSION);
        tattle__xml_end(&xml);
        tattle__xml_elements_follow(&xml);
        error = drain(self, &head);
        if (!error)
            error = tattle__sink_flush(&self->output.sink);
        if (!error)
            error = copy_testcases(self, suite);
        tattle__xml_end(&xml);
    }
    tattle__xml_end(&xml);
    if (!error)
        error = drain(self, &head);
    tattle__buffer_release(&head);
    return error;
}

static int junit_end(void *opaque, const struct tattle_summary *summary)
{
    struct junit_reporter *self = opaque;
    int error = self->error;
    if (!error)
        error = tattle__sink_flush(&self->scratch);
    if (!error)
        error = write_report(self, summary);
    if (!error)
        error = tattle__report_output_commit(&self->output);
    return error;
}

static void junit_destroy(void *opaque)
{
    struct junit_reporter *self = opaque;
    if (!self)
        return;
    tattle__report_output_discard(&self->output);
    if (self->scratch_fd >= 0)
        close(self->scratch_fd);
    tattle__sink_release(&self->scratch);
    for (size_t s = 0; s < self->suite_count; s++)
        free(self->suites[s].name);
    free(self->suites);
    free(self->slots);
    free(self->entries);
    free(self->executable);
    free(self->started_at);
    tattle__buffer_release(&self->fragment);
    tattle__buffer_release(&self->text);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_junit = {
    .name = "junit",
    .create = junit_create,
    .begin = junit_begin,
    .test_started = junit_test_started,
    .test_finished = junit_test_finished,
    .end = junit_end,
    .destroy = junit_destroy,
};
