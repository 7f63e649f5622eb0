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
#include "base/timestamp.h"
#include "results/json.h"
#include "results/model.h"

/* One error group: failed tests whose first failure has the same first
 * line. Ids are kept NUL-separated in one buffer. */
struct group {
    char *pattern;
    uint64_t hash;
    uint64_t count;
    char *ids;
    size_t ids_length;
    size_t ids_capacity;
};

struct groups {
    struct group *items;
    size_t count;
    size_t capacity;
    size_t *slots;       /* open addressing: index + 1, 0 when empty */
    size_t slot_count;
};

struct json_reporter {
    struct tattle_report_options options;
    bool to_stdout;
    char *destination;
    bool compact;

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

    /* Compact mode: lines written straight to the output. */
    struct tattle__atomic_file output_file;
    bool compact_anonymous;     /* output_file.fd has no name until end */
    struct tattle__sink output;

    bool first_failure_seen;
    struct groups groups;
    char *print_buffer;
    size_t print_capacity;
    int error;          /* first error met, returned by end */
};

static void remember_error(struct json_reporter *self, int error)
{
    if (error && !self->error)
        self->error = error;
}

/* ---- Error groups -------------------------------------------------- */

static uint64_t hash_text(const char *text)
{
    uint64_t hash = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        hash = (hash ^ *p) * 1099511628211ull;
    return hash;
}

static int groups_rehash(struct groups *groups, size_t slot_count)
{
    size_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < groups->count; i++) {
        size_t s = groups->items[i].hash & (slot_count - 1);
        while (slots[s])
            s = (s + 1) & (slot_count - 1);
        slots[s] = i + 1;
    }
    free(groups->slots);
    groups->slots = slots;
    groups->slot_count = slot_count;
    return 0;
}

static int groups_add(struct groups *groups, const char *pattern, const char *id)
{
    if (groups->count * 2 >= groups->slot_count) {
        int error = groups_rehash(groups, groups->slot_count ? groups->slot_count * 2 : 64);
        if (error)
            return error;
    }
    uint64_t hash = hash_text(pattern);
    size_t s = hash & (groups->slot_count - 1);
    struct group *group = NULL;
    for (; groups->slots[s]; s = (s + 1) & (groups->slot_count - 1)) {
        struct group *candidate = &groups->items[groups->slots[s] - 1];
        if (candidate->hash == hash && strcmp(candidate->pattern, pattern) == 0) {
            group = candidate;
            break;
        }
    }
    if (!group) {
        if (groups->count == groups->capacity) {
            size_t capacity = groups->capacity ? groups->capacity * 2 : 16;
            struct group *items = realloc(groups->items, capacity * sizeof *items);
            if (!items)
                return -ENOMEM;
            groups->items = items;
            groups->capacity = capacity;
        }
        group = &groups->items[groups->count];
        *group = (struct group){.pattern = strdup(pattern), .hash = hash};
        if (!group->pattern)
            return -ENOMEM;
        groups->slots[s] = ++groups->count;
    }
    size_t length = strlen(id) + 1;
    if (group->ids_length + length > group->ids_capacity) {
        size_t capacity = group->ids_capacity ? group->ids_capacity : 64;
        while (capacity < group->ids_length + length)
            capacity *= 2;
        char *ids = realloc(group->ids, capacity);
        if (!ids)
            return -ENOMEM;
        group->ids = ids;
        group->ids_capacity = capacity;
    }
    memcpy(group->ids + group->ids_length, id, length);
    group->ids_length += length;
    group->count++;
    return 0;
}

static void groups_release(struct groups *groups)
{
    for (size_t i = 0; i < groups->count; i++) {
        free(groups->items[i].pattern);
        free(groups->items[i].ids);
    }
    free(groups->items);
    free(groups->slots);
    *groups = (struct groups){0};
}

static int compare_groups(const void *a, const void *b)
{
    const struct group *x = *(const struct group *const *)a;
    const struct group *y = *(const struct group *const *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x < y ? -1 : x > y; /* first seen first */
}

/* [{"pattern","count","tests":[ids]}], the largest group first. */
static cJSON *groups_to_json(const struct groups *groups)
{
    cJSON *array = cJSON_CreateArray();
    const struct group **order = malloc((groups->count + 1) * sizeof *order);
    if (!array || !order) {
        cJSON_Delete(array);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < groups->count; i++)
        order[i] = &groups->items[i];
    qsort(order, groups->count, sizeof *order, compare_groups);
    bool ok = true;
    for (size_t i = 0; ok && i < groups->count; i++) {
        cJSON *group = cJSON_CreateObject();
        ok = group && cJSON_AddItemToArray(array, group);
        if (!ok) {
            cJSON_Delete(group);
            break;
        }
        ok = tattle__json_add_text(group, "pattern", order[i]->pattern);
        ok = tattle__json_add_uint(group, "count", order[i]->count) && ok;
        cJSON *tests = cJSON_AddArrayToObject(group, "tests");
        ok = tests && ok;
        for (size_t at = 0; ok && at < order[i]->ids_length;
             at += strlen(order[i]->ids + at) + 1) {
            cJSON *id = cJSON_CreateStringReference(order[i]->ids + at);
            ok = id && cJSON_AddItemToArray(tests, id);
        }
    }
    free(order);
    if (!ok) {
        cJSON_Delete(array);
        return NULL;
    }
    return array;
}

/* ---- Callbacks ----------------------------------------------------- */

static void json_destroy(void *opaque);

static int json_create(void **out, const char *destination,
                       const struct tattle_report_options *options)
{
    struct json_reporter *self = calloc(1, sizeof *self);
    if (!self)
        return -ENOMEM;
    self->scratch_fd = -1;
    self->output_file.fd = -1;
    if (options)
        self->options = *options;
    self->compact = self->options.compact;
    self->to_stdout = !destination || strcmp(destination, "-") == 0;
    self->destination = strdup(self->to_stdout ? "-" : destination);
    if (!self->destination) {
        json_destroy(self);
        return -ENOMEM;
    }

    int error = 0;
    if (self->compact) {
        if (self->to_stdout)
            self->output.fd = STDOUT_FILENO;
        else {
            /* Like the full report: a file without a name until the end,
             * so a killed run leaves nothing behind beside the old one. */
            char *directory = tattle__path_directory(destination);
            int fd = directory ? tattle__anonymous_open(directory) : -ENOMEM;
            free(directory);
            if (fd >= 0) {
                self->output_file.fd = fd;
                self->compact_anonymous = true;
            } else if (fd == -EOPNOTSUPP) {
                error = tattle__atomic_open(&self->output_file, destination);
            } else {
                error = fd;
            }
            self->output.fd = self->output_file.fd;
        }
    } else {
        /* The scratch file lives beside the destination: the same file
         * system makes the final copy an in-kernel one, and creating it
         * checks that the directory is writable before anything runs. */
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
    }
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
    struct tattle_summary largest = {
        .total = UINT64_MAX, .passed = UINT64_MAX, .failed = UINT64_MAX,
        .skipped = UINT64_MAX, .excluded = UINT64_MAX, .invalid = UINT64_MAX,
        .flaky = UINT64_MAX, .duration_us = UINT64_MAX, .interrupted = false};
    cJSON *header = create_header(self, &largest);
    long length = header ? tattle__json_print(header, &self->print_buffer,
                                              &self->print_capacity)
                         : -ENOMEM;
    cJSON_Delete(header);
    if (length < 0) {
        remember_error(self, (int)length);
        return;
    }
    /* The header without its '}', `,"tests":[`, a newline. */
    self->reserved = (uint64_t)length - 1 + 10 + 1;
    if (lseek(self->scratch_fd, (off_t)self->reserved, SEEK_SET) < 0)
        remember_error(self, -errno);
}

static void json_begin(void *opaque, const struct tattle_run_info *run)
{
    struct json_reporter *self = opaque;
    self->run = *run;
    self->run.started_at = run->started_at ? strdup(run->started_at) : NULL;
    self->run.executable = run->executable ? strdup(run->executable) : NULL;
    self->argv = calloc((size_t)(run->argc > 0 ? run->argc : 0) + 1, sizeof *self->argv);
    bool ok = self->argv && (!run->started_at || self->run.started_at) &&
              (!run->executable || self->run.executable);
    for (int i = 0; ok && i < run->argc; i++)
        ok = (self->argv[i] = strdup(run->argv[i])) != NULL;
    if (!ok) {
        self->run.argc = 0;
        remember_error(self, -ENOMEM);
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

/* Whether a finished test goes into `tests` under the agent modes. */
static bool wants_test(struct json_reporter *self,
                       const struct tattle_result *result)
{
    if (self->options.summary_only)
        return false;
    bool failed = tattle__result_failed(result);
    if (self->options.first_failure) {
        if (!failed || self->first_failure_seen)
            return false;
        self->first_failure_seen = true;
        return true;
    }
    if (self->options.failures_only)
        return failed;
    return true;
}

static void json_test_finished(void *opaque, const struct tattle_result *result)
{
    struct json_reporter *self = opaque;

    if (self->options.group_by_error && tattle__result_failed(result)) {
        const struct tattle_failure *failure =
            tattle__first_failure(result, &self->options);
        if (failure) {
            char *pattern = tattle__first_line(failure->message);
            remember_error(self, pattern ? groups_add(&self->groups, pattern,
                                                      result->test->id ? result->test->id : "")
                                         : -ENOMEM);
            free(pattern);
        }
    }
    if (!wants_test(self, result) || self->error)
        return;

    cJSON *object = self->compact ? tattle__json_compact_line(result, &self->options)
                                  : tattle__json_test(result, &self->options);
    long length = object ? tattle__json_print(object, &self->print_buffer,
                                              &self->print_capacity)
                         : -ENOMEM;
    cJSON_Delete(object);
    if (length < 0) {
        remember_error(self, (int)length);
        return;
    }
    if (self->compact) {
        tattle__sink_write(&self->output, self->print_buffer, (size_t)length);
        tattle__sink_write(&self->output, "\n", 1);
        if (self->to_stdout)
            tattle__sink_flush(&self->output);
        remember_error(self, self->output.error);
    } else {
        reserve_header(self);
        if (self->test_count)
            tattle__sink_write(&self->tests, ",\n", 2);
        tattle__sink_write(&self->tests, self->print_buffer, (size_t)length);
        remember_error(self, self->tests.error);
    }
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
    bool ok = cJSON_AddNumberToObject(header, "version", TATTLE__JSON_SCHEMA_VERSION) != NULL;
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
    if (summary_object && !cJSON_AddItemToObject(header, "summary", summary_object)) {
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
    long length = tattle__json_print(item, &self->print_buffer, &self->print_capacity);
    if (length < 0)
        return (int)length;
    return tattle__sink_write(sink, self->print_buffer, (size_t)length - drop_last);
}

static int finish_compact(struct json_reporter *self,
                          const struct tattle_summary *summary)
{
    cJSON *line = cJSON_CreateObject();
    cJSON *summary_object = tattle__json_summary(summary);
    bool ok = line && summary_object &&
              cJSON_AddItemToObject(line, "summary", summary_object);
    if (!ok && summary_object && line &&
        !cJSON_GetObjectItemCaseSensitive(line, "summary"))
        cJSON_Delete(summary_object);
    if (ok && self->options.group_by_error) {
        cJSON *groups = groups_to_json(&self->groups);
        ok = groups && cJSON_AddItemToObject(line, "error_groups", groups);
        if (!ok)
            cJSON_Delete(groups);
    }
    int error = ok ? write_printed(self, &self->output, line, 0) : -ENOMEM;
    cJSON_Delete(line);
    if (!error)
        tattle__sink_write(&self->output, "\n", 1);
    return error ? error : tattle__sink_flush(&self->output);
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
        tattle__sink_write(&out, ",\"tests\":[", 10);
        if (self->test_count) {
            tattle__sink_write(&out, "\n", 1);
            error = tattle__sink_flush(&out);
            if (!error)
                error = tattle__copy_fd(self->scratch_fd, 0, self->tests.written, fd);
            if (!error)
                tattle__sink_write(&out, "\n", 1);
        }
        if (!error)
            error = tattle__sink_write(&out, "]", 1);
    }
    if (!error && self->options.group_by_error) {
        cJSON *groups = groups_to_json(&self->groups);
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
        cJSON *groups = groups_to_json(&self->groups);
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
    long length = header ? tattle__json_print(header, &self->print_buffer,
                                              &self->print_capacity)
                         : -ENOMEM;
    cJSON_Delete(header);
    if (length < 0)
        return (int)length;
    size_t used = (size_t)length - 1 + 10;
    if (used + 1 > self->reserved)
        return -EOVERFLOW; /* cannot happen: the room fits the largest */
    if (self->print_capacity < self->reserved + 1) {
        char *grown = realloc(self->print_buffer, self->reserved + 1);
        if (!grown)
            return -ENOMEM;
        self->print_buffer = grown;
        self->print_capacity = self->reserved + 1;
    }
    char *text = self->print_buffer;
    memcpy(text + length - 1, ",\"tests\":[", 10);
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

    if (self->compact) {
        if (!error)
            error = finish_compact(self, summary);
        if (!error && !self->to_stdout) {
            if (self->compact_anonymous) {
                error = tattle__anonymous_commit(self->output_file.fd, self->destination);
                close(self->output_file.fd);
                self->output_file.fd = -1;
            } else {
                error = tattle__atomic_commit(&self->output_file);
            }
            self->output.fd = -1;
        }
        return error;
    }

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
    tattle__atomic_discard(&self->output_file);
    if (self->scratch_fd >= 0)
        close(self->scratch_fd);
    tattle__sink_release(&self->tests);
    tattle__sink_release(&self->output);
    groups_release(&self->groups);
    free((char *)self->run.started_at);
    free((char *)self->run.executable);
    for (int i = 0; self->argv && self->argv[i]; i++)
        free(self->argv[i]);
    free(self->argv);
    free(self->print_buffer);
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
