/*
 * json.c — the "json" reporter (see json.h for what it writes and how).
 *
 * File layout: the header object is printed by cJSON and its closing brace
 * replaced by `,"tests":[`, each test sits on its own line, and the error
 * groups and the final brace follow. A reader that sees only the first
 * kilobytes already has the summary; `grep` finds a test's line.
 */
#include "reporter/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/report_file.h"
#include "reporter/report_output.h"
#include "base/timestamp.h"
#include "results/error_groups.h"
#include "results/json.h"
#include "results/model.h"

/* The header's closing brace gives way to the tests array. */
#define TESTS_OPENING ",\"tests\":["
enum { TESTS_OPENING_LENGTH = sizeof TESTS_OPENING - 1 };

/* How many bytes the opening of a report takes: the header printed by
 * cJSON without its closing brace, then the tests' opening. */
static size_t opening_length(size_t printed_header)
{
    return printed_header - 1 + TESTS_OPENING_LENGTH;
}

struct json_reporter {
    struct tattle_report_options options;
    bool to_stdout;
    char *destination;

    /* Copy of the run info (begin's argument is not kept by the runner). */
    struct tattle_run_info run;
    char **argv;
    bool begun;

    /* Normal mode: tests printed to a scratch file. When `direct`, the
     * scratch file is an O_TMPFILE beside the destination that becomes the
     * report itself: its first `reserved` bytes are kept for the header. */
    int scratch_fd;
    bool direct;
    uint64_t reserved;
    struct tattle__sink tests;
    uint64_t test_count;

    struct tattle__report_selection selection;
    struct tattle__error_groups groups;
    struct tattle__buffer printed;
    int error; /* first error met, returned by end */
};

/* ---- Callbacks ----------------------------------------------------- */

static void json_destroy(void *opaque);

static int json_create(void **out, const char *destination,
                       const struct tattle_report_options *options)
{
    struct json_reporter *self = calloc(1, sizeof *self);
    if (!self)
        return -ENOMEM;
    self->scratch_fd = -1;
    if (options)
        self->options = *options;
    if (self->options.group_by_error && self->options.error_groups_read)
        tattle__error_groups_seed(&self->groups,
                                  self->options.error_groups_read);
    self->to_stdout = !destination || strcmp(destination, "-") == 0;
    self->destination = strdup(self->to_stdout ? "-" : destination);
    if (!self->destination) {
        json_destroy(self);
        return -ENOMEM;
    }

    /* The scratch file lives beside the destination: the same file
     * system makes the final copy an in-kernel one, and creating it
     * checks that the directory is writable before anything runs. */
    int error = 0;
    char *directory;
    if (self->to_stdout) {
        const char *tmp = getenv("TMPDIR");
        directory = strdup(tmp && *tmp ? tmp : "/tmp");
    } else
        directory = tattle__path_directory(destination);
    if (!directory)
        error = -ENOMEM;
    else {
        /* Written once: the tests go straight into the file that
         * becomes the report, which halves the bytes written. */
        if (!self->to_stdout && !self->options.summary_only) {
            self->scratch_fd = tattle__anonymous_open(directory);
            self->direct = self->scratch_fd >= 0;
            if (self->scratch_fd < 0 && self->scratch_fd != -EOPNOTSUPP)
                error = self->scratch_fd;
        }
        if (!error && !self->direct) {
            self->scratch_fd = tattle__scratch_open(directory);
            if (self->scratch_fd < 0)
                error = self->scratch_fd;
        }
        free(directory);
    }
    self->tests.fd = self->scratch_fd;
    if (error) {
        json_destroy(self);
        return error;
    }
    *out = self;
    return 0;
}

static cJSON *create_header(struct json_reporter *self,
                            const struct tattle_summary *summary);
static int write_printed(struct json_reporter *self, struct tattle__sink *sink,
                         const cJSON *item, size_t drop_last);

/* Direct mode: keeps room for the header at the start of the file, as long
 * as the header can ever be (every count at its largest). */
static void reserve_header(struct json_reporter *self)
{
    if (!self->direct || self->reserved || self->error)
        return;
    struct tattle_summary largest = {.total = UINT64_MAX,
                                     .passed = UINT64_MAX,
                                     .failed = UINT64_MAX,
                                     .skipped = UINT64_MAX,
                                     .excluded = UINT64_MAX,
                                     .invalid = UINT64_MAX,
                                     .flaky = UINT64_MAX,
                                     .duration_us = UINT64_MAX,
                                     .interrupted = false};
    cJSON *header = create_header(self, &largest);
    bool printed = header && tattle__json_print(header, &self->printed);
    cJSON_Delete(header);
    if (!printed) {
        tattle__remember_error(&self->error, -ENOMEM);
        return;
    }
    /* The opening, and a newline before the first test. */
    self->reserved = opening_length(self->printed.length) + 1;
    if (lseek(self->scratch_fd, (off_t)self->reserved, SEEK_SET) < 0)
        tattle__remember_error(&self->error, -errno);
}

static void json_begin(void *opaque, const struct tattle_run_info *run)
{
    struct json_reporter *self = opaque;
    self->run = *run;
    self->run.started_at = run->started_at ? strdup(run->started_at) : NULL;
    self->run.executable = run->executable ? strdup(run->executable) : NULL;
    self->argv =
        calloc((size_t)(run->argc > 0 ? run->argc : 0) + 1, sizeof *self->argv);
    bool ok = self->argv && (!run->started_at || self->run.started_at) &&
              (!run->executable || self->run.executable);
    for (int i = 0; ok && i < run->argc; i++)
        ok = (self->argv[i] = strdup(run->argv[i])) != NULL;
    if (!ok) {
        self->run.argc = 0;
        tattle__remember_error(&self->error, -ENOMEM);
    }
    self->run.argv = self->argv;
    self->begun = true;
    reserve_header(self);
}

static void json_test_started(void *opaque, const struct tattle_test_info *test)
{
    (void)opaque;
    (void)test;
}

static void json_test_finished(void *opaque, const struct tattle_result *result)
{
    struct json_reporter *self = opaque;
    if (self->options.group_by_error)
        tattle__error_groups_add(&self->groups, result, &self->options);
    if (self->error || !tattle__report_selection_keeps(&self->selection,
                                                       &self->options, result))
        return;
    reserve_header(self); /* before the test: it prints into `printed` */
    tattle__buffer_clear(&self->printed);
    tattle__json_write_test(&self->printed, result, &self->options);
    if (self->test_count)
        tattle__sink_write(&self->tests, ",\n", 2);
    tattle__sink_write(&self->tests, self->printed.data, self->printed.length);
    tattle__remember_error(&self->error, self->tests.error);
    self->test_count++;
}

/* {"version","tool","run","summary"} of the report. */
static cJSON *create_header(struct json_reporter *self,
                            const struct tattle_summary *summary)
{
    char started_at[32];
    struct tattle_run_info run = self->run;
    if (!run.started_at)
        run.started_at = tattle__timestamp_utc(started_at);
    cJSON *header = cJSON_CreateObject();
    if (!header)
        return NULL;
    bool ok = cJSON_AddNumberToObject(header, "version",
                                      TATTLE__JSON_SCHEMA_VERSION) != NULL;
    cJSON *tool = tattle__json_tool();
    ok = tool && cJSON_AddItemToObject(header, "tool", tool) && ok;
    if (!ok && tool && !cJSON_GetObjectItemCaseSensitive(header, "tool"))
        cJSON_Delete(tool);
    cJSON *run_object = tattle__json_run(&run, summary);
    if (run_object && !cJSON_AddItemToObject(header, "run", run_object)) {
        cJSON_Delete(run_object);
        run_object = NULL;
    }
    ok = run_object && ok;
    cJSON *summary_object = tattle__json_summary(summary);
    if (summary_object &&
        !cJSON_AddItemToObject(header, "summary", summary_object)) {
        cJSON_Delete(summary_object);
        summary_object = NULL;
    }
    ok = summary_object && ok;
    if (!ok) {
        cJSON_Delete(header);
        return NULL;
    }
    return header;
}

static int write_printed(struct json_reporter *self, struct tattle__sink *sink,
                         const cJSON *item, size_t drop_last)
{
    if (!tattle__json_print(item, &self->printed))
        return -ENOMEM;
    return tattle__sink_write(sink, self->printed.data,
                              self->printed.length - drop_last);
}

static int finish_report(struct json_reporter *self,
                         const struct tattle_summary *summary, int fd)
{
    struct tattle__sink out = {.fd = fd};
    int error = 0;

    cJSON *header = create_header(self, summary);
    if (!header)
        return -ENOMEM;
    /* The header's closing brace is dropped: the report continues. */
    error = write_printed(self, &out, header, 1);
    cJSON_Delete(header);
    if (!error && !self->options.summary_only) {
        tattle__sink_write(&out, TESTS_OPENING, TESTS_OPENING_LENGTH);
        if (self->test_count) {
            tattle__sink_write(&out, "\n", 1);
            error = tattle__sink_flush(&out);
            if (!error)
                error = tattle__copy_fd(self->scratch_fd, 0,
                                        self->tests.written, fd);
            if (!error)
                tattle__sink_write(&out, "\n", 1);
        }
        if (!error)
            error = tattle__sink_write(&out, "]", 1);
    }
    if (!error && self->options.group_by_error) {
        cJSON *groups = tattle__error_groups_json(&self->groups);
        tattle__sink_write(&out, ",\"error_groups\":", 16);
        error = groups ? write_printed(self, &out, groups, 0) : -ENOMEM;
        cJSON_Delete(groups);
    }
    if (!error)
        tattle__sink_write(&out, "}\n", 2);
    if (!error)
        error = tattle__sink_flush(&out);
    tattle__sink_release(&out);
    return error;
}

/* Direct mode: the tests are in place; append the end, write the header
 * into the room kept for it (padded with spaces, which JSON ignores) and
 * give the file its name. */
static int finish_direct(struct json_reporter *self,
                         const struct tattle_summary *summary)
{
    reserve_header(self);
    int error = self->error;
    struct tattle__sink *tail = &self->tests;
    if (!error)
        tattle__sink_write(tail, self->test_count ? "\n]" : "]",
                           self->test_count ? 2 : 1);
    if (!error && self->options.group_by_error) {
        cJSON *groups = tattle__error_groups_json(&self->groups);
        tattle__sink_write(tail, ",\"error_groups\":", 16);
        error = groups ? write_printed(self, tail, groups, 0) : -ENOMEM;
        cJSON_Delete(groups);
    }
    if (!error)
        tattle__sink_write(tail, "}\n", 2);
    if (!error)
        error = tattle__sink_flush(tail);
    if (error)
        return error;

    cJSON *header = create_header(self, summary);
    bool printed = header && tattle__json_print(header, &self->printed);
    cJSON_Delete(header);
    if (!printed)
        return -ENOMEM;
    size_t header_end = self->printed.length - 1; /* where its '}' was */
    size_t used = opening_length(self->printed.length);
    if (used + 1 > self->reserved)
        return -EOVERFLOW; /* cannot happen: the room fits the largest */
    tattle__buffer_reserve(&self->printed,
                           (size_t)self->reserved + 1 - self->printed.length);
    char *text = self->printed.data;
    memcpy(text + header_end, TESTS_OPENING, TESTS_OPENING_LENGTH);
    memset(text + used, ' ', self->reserved - used - 1);
    text[self->reserved - 1] = '\n';
    for (size_t done = 0; done < self->reserved;) {
        ssize_t n = pwrite(self->scratch_fd, text + done, self->reserved - done,
                           (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        done += (size_t)n;
    }
    return tattle__anonymous_commit(self->scratch_fd, self->destination);
}

static int json_end(void *opaque, const struct tattle_summary *summary)
{
    struct json_reporter *self = opaque;
    int error = self->error;

    if (self->direct)
        return finish_direct(self, summary);
    if (!error)
        error = tattle__sink_flush(&self->tests);
    if (error)
        return error;
    if (self->to_stdout) {
        fflush(stdout);
        return finish_report(self, summary, STDOUT_FILENO);
    }
    struct tattle__atomic_file file;
    error = tattle__atomic_open(&file, self->destination);
    if (!error)
        error = finish_report(self, summary, file.fd);
    if (!error)
        error = tattle__atomic_commit(&file);
    else
        tattle__atomic_discard(&file);
    return error;
}

static void json_destroy(void *opaque)
{
    struct json_reporter *self = opaque;
    if (!self)
        return;
    /* Without a successful end the temporary file is removed and an
     * existing report stays as it was. */
    if (self->scratch_fd >= 0)
        close(self->scratch_fd);
    tattle__sink_release(&self->tests);
    tattle__error_groups_release(&self->groups);
    free((char *)self->run.started_at);
    free((char *)self->run.executable);
    for (int i = 0; self->argv && self->argv[i]; i++)
        free(self->argv[i]);
    free(self->argv);
    tattle__buffer_release(&self->printed);
    free(self->destination);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_json = {
    .name = "json",
    .create = json_create,
    .begin = json_begin,
    .test_started = json_test_started,
    .test_finished = json_test_finished,
    .end = json_end,
    .destroy = json_destroy,
};
