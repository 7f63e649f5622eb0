/*
 * gtest.c — reading the tests of a wrapped GoogleTest program.
 *
 * Two sources. The JSON report GoogleTest writes at its end
 * ({"testsuites": [{"name", "testsuite": [{"name", "file", "line",
 * "status", "result", "time", "failures": [{"failure": "file:line\n
 * message"}]}]}]}) says everything of every test. A program that crashed
 * or was killed wrote none; then its stdout, which the runner captured,
 * is the progress record: "[ RUN      ] Suite.Name" when a test starts,
 * "[       OK ] Suite.Name (N ms)", "[  FAILED  ] Suite.Name (N ms)" or
 * "[  SKIPPED ] Suite.Name (N ms)" when it ends, its failures printed in
 * between as "file:line: Failure" and the message. The test that started
 * and never ended is the one that was running. The tests it never reached
 * come from the list `--gtest_list_tests` prints ("Suite." then
 * "  Name", a "  # ..." comment after a parameterized one).
 */
#include "runner/gtest.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"

static const char run_marker[] = "[ RUN      ] ";
static const char ok_marker[] = "[       OK ] ";
static const char failed_marker[] = "[  FAILED  ] ";
static const char skipped_marker[] = "[  SKIPPED ] ";

static char *copy_span(const char *start, size_t length)
{
    char *text = tattle__malloc(length + 1);
    memcpy(text, start, length);
    text[length] = '\0';
    return text;
}

static struct tattle__gtest_test *add_test(struct tattle__gtest_tests *tests,
                                           const char *suite,
                                           size_t suite_length,
                                           const char *name, size_t name_length)
{
    tests->tests = tattle__realloc(tests->tests,
                                   (tests->count + 1) * sizeof *tests->tests);
    struct tattle__gtest_test *test = &tests->tests[tests->count++];
    *test = (struct tattle__gtest_test){
        .suite = copy_span(suite, suite_length),
        .name = copy_span(name, name_length),
        .state = TATTLE_STATE_PASSED,
    };
    struct tattle__buffer full = {0};
    tattle__buffer_printf(&full, "%s.%s", test->suite, test->name);
    bool added;
    size_t number =
        tattle__name_index_add(&tests->full_names, full.data, &added);
    tattle__buffer_release(&full);
    if (added) {
        tests->test_of_name = tattle__realloc(tests->test_of_name,
                                              tests->full_names.count *
                                                  sizeof *tests->test_of_name);
        tests->test_of_name[number] = tests->count - 1;
    }
    return test;
}

/* The index of the test called Suite.Name (`full`, `length` bytes), or
 * -1. */
static long find_test(const struct tattle__gtest_tests *tests, const char *full,
                      size_t length)
{
    char *key = copy_span(full, length);
    size_t number = tattle__name_index_find(&tests->full_names, key);
    free(key);
    return number < tests->full_names.count ? (long)tests->test_of_name[number]
                                            : -1;
}

/* A failure from "file:line<separator>message": the location when the
 * first line ends in ":digits" (before `suffix`, e.g. ": Failure"). */
static void add_failure(struct tattle__gtest_test *test, const char *text,
                        size_t length, const char *suffix)
{
    test->failures = tattle__realloc(
        test->failures, (test->failure_count + 1) * sizeof *test->failures);
    struct tattle__gtest_failure *failure =
        &test->failures[test->failure_count++];
    *failure = (struct tattle__gtest_failure){0};
    const char *newline = memchr(text, '\n', length);
    size_t first = newline ? (size_t)(newline - text) : length;
    size_t suffix_length = strlen(suffix);
    size_t location = first;
    if (suffix_length > 0) {
        if (first >= suffix_length &&
            memcmp(text + first - suffix_length, suffix, suffix_length) == 0)
            location = first - suffix_length;
        else
            location = 0;
    }
    size_t digits = location;
    while (digits > 0 && text[digits - 1] >= '0' && text[digits - 1] <= '9')
        digits--;
    if (location > 0 && digits < location && digits > 1 &&
        text[digits - 1] == ':') {
        failure->file = copy_span(text, digits - 1);
        failure->line = atoi(text + digits);
        size_t rest = newline ? first + 1 : length;
        failure->message = copy_span(text + rest, length - rest);
    } else {
        failure->message = copy_span(text, length);
    }
    /* No trailing newlines on a message. */
    size_t end = strlen(failure->message);
    while (end > 0 && failure->message[end - 1] == '\n')
        failure->message[--end] = '\0';
}

uint64_t tattle__gtest_seconds_us(const char *text)
{
    double seconds = text ? strtod(text, NULL) : 0;
    return seconds > 0 && seconds < 1e9 ? (uint64_t)(seconds * 1e6 + 0.5) : 0;
}

char *tattle__gtest_read_file(const char *path, const char **why_not)
{
    *why_not = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP)
            *why_not = "it is a symbolic link";
        else if (errno != ENOENT)
            *why_not = strerror(errno);
        return NULL;
    }
    struct stat status;
    if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        close(fd);
        *why_not = "it is not a regular file";
        return NULL;
    }
    if (status.st_size > TATTLE__GTEST_REPORT_MAX) {
        close(fd);
        *why_not = "it is larger than 64 MiB";
        return NULL;
    }
    struct tattle__buffer text = {0};
    char chunk[8192];
    ssize_t got;
    while (text.length <= TATTLE__GTEST_REPORT_MAX &&
           (got = read(fd, chunk, sizeof chunk)) > 0)
        tattle__buffer_append(&text, chunk, (size_t)got);
    close(fd);
    if (text.length > TATTLE__GTEST_REPORT_MAX) { /* it grew meanwhile */
        tattle__buffer_release(&text);
        *why_not = "it is larger than 64 MiB";
        return NULL;
    }
    tattle__buffer_append(&text, "", 0);
    return tattle__buffer_take(&text);
}

static void read_report_test(struct tattle__gtest_tests *tests,
                             const char *suite, const cJSON *item)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(item, "name"));
    if (!name)
        return;
    struct tattle__gtest_test *test =
        add_test(tests, suite, strlen(suite), name, strlen(name));
    const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(item, "file"));
    if (file)
        test->file = copy_span(file, strlen(file));
    const cJSON *line = cJSON_GetObjectItem(item, "line");
    if (cJSON_IsNumber(line))
        test->line = line->valueint;
    test->duration_us = tattle__gtest_seconds_us(
        cJSON_GetStringValue(cJSON_GetObjectItem(item, "time")));
    const char *status =
        cJSON_GetStringValue(cJSON_GetObjectItem(item, "status"));
    const char *result =
        cJSON_GetStringValue(cJSON_GetObjectItem(item, "result"));
    const cJSON *failure;
    cJSON_ArrayForEach(failure, cJSON_GetObjectItem(item, "failures"))
    {
        const char *text =
            cJSON_GetStringValue(cJSON_GetObjectItem(failure, "failure"));
        if (text)
            add_failure(test, text, strlen(text), "");
    }
    if (test->failure_count > 0) {
        test->state = TATTLE_STATE_FAILED;
    } else if (status && strcmp(status, "NOTRUN") == 0) {
        test->state = TATTLE_STATE_SKIPPED;
        test->skip_reason = tattle__strdup("disabled in GoogleTest");
    } else if (result && strcmp(result, "SKIPPED") == 0) {
        test->state = TATTLE_STATE_SKIPPED;
        test->skip_reason = tattle__strdup("skipped by GTEST_SKIP");
    }
}

bool tattle__gtest_read_report(const char *path,
                               struct tattle__gtest_tests *tests)
{
    *tests = (struct tattle__gtest_tests){0};
    const char *why_not;
    char *text = tattle__gtest_read_file(path, &why_not);
    if (!text)
        return false;
    cJSON *report = cJSON_Parse(text);
    free(text);
    const cJSON *suites = cJSON_GetObjectItem(report, "testsuites");
    if (!cJSON_IsArray(suites)) {
        cJSON_Delete(report);
        return false;
    }
    const cJSON *suite;
    cJSON_ArrayForEach(suite, suites)
    {
        const char *name =
            cJSON_GetStringValue(cJSON_GetObjectItem(suite, "name"));
        const cJSON *item;
        cJSON_ArrayForEach(item, cJSON_GetObjectItem(suite, "testsuite"))
        {
            if (name)
                read_report_test(tests, name, item);
        }
    }
    cJSON_Delete(report);
    return true;
}

bool tattle__gtest_printed_progress(const char *stdout_text)
{
    return stdout_text && (strstr(stdout_text, run_marker) ||
                           strstr(stdout_text, "[==========] Running "));
}

static bool is_disabled(const char *name, size_t length)
{
    /* GoogleTest's filter for a suite or test name: DISABLED_*:*\/DISABLED_*
     * (an instantiated suite Inst/DISABLED_S is disabled too). */
    return (length >= 9 && memcmp(name, "DISABLED_", 9) == 0) ||
           memmem(name, length, "/DISABLED_", 10) != NULL;
}

void tattle__gtest_add_listing(struct tattle__gtest_tests *tests,
                               const char *listing,
                               struct tattle__gtest_shard shard,
                               bool runs_disabled)
{
    long runnable = 0; /* tests dealt to the shards so far */
    const char *suite = NULL;
    size_t suite_length = 0;
    for (const char *line = listing; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        const char *comment = memchr(line, '#', length);
        size_t used = comment ? (size_t)(comment - line) : length;
        while (used > 0 && (line[used - 1] == ' ' || line[used - 1] == '\r'))
            used--;
        if (used > 2 && line[0] == ' ' && line[1] == ' ' && suite) {
            struct tattle__buffer full = {0};
            tattle__buffer_append(&full, suite, suite_length);
            tattle__buffer_append(&full, ".", 1);
            tattle__buffer_append(&full, line + 2, used - 2);
            bool dealt = runs_disabled || (!is_disabled(suite, suite_length) &&
                                           !is_disabled(line + 2, used - 2));
            bool ours = !dealt || shard.total < 2 ||
                        runnable % shard.total == shard.index;
            if (dealt)
                runnable++;
            if (ours && find_test(tests, full.data, full.length) < 0)
                add_test(tests, suite, suite_length, line + 2, used - 2);
            tattle__buffer_release(&full);
        } else if (used > 1 && line[0] != ' ' && line[used - 1] == '.') {
            suite = line;
            suite_length = used - 1;
        }
        line = end ? end + 1 : NULL;
    }
}

/* The test a progress line names (after its marker, up to " (N ms)",
 * the ", where GetParam() = ..." or ", where TypeParam = ..." GoogleTest
 * adds after a parameterized test, or the line's end), added when
 * missing. */
static long named_test(struct tattle__gtest_tests *tests, const char *start,
                       size_t length)
{
    const char *space = memchr(start, ' ', length);
    if (space)
        length = (size_t)(space - start);
    if (space && length > 0 && start[length - 1] == ',')
        length--;
    long index = find_test(tests, start, length);
    if (index >= 0)
        return index;
    const char *dot = memchr(start, '.', length);
    if (!dot)
        return -1;
    add_test(tests, start, (size_t)(dot - start), dot + 1,
             length - (size_t)(dot - start) - 1);
    return (long)tests->count - 1;
}

/* "(N ms)" at the end of a progress line, in microseconds: the last
 * parenthesis, as a parameter's value before it may hold some. */
static uint64_t line_duration_us(const char *start, size_t length)
{
    static const char unit[] = " ms)";
    size_t unit_length = sizeof unit - 1;
    if (length < unit_length ||
        memcmp(start + length - unit_length, unit, unit_length) != 0)
        return 0;
    size_t open = length - unit_length;
    while (open > 0 && start[open - 1] >= '0' && start[open - 1] <= '9')
        open--;
    if (open == 0 || start[open - 1] != '(' || open == length - unit_length)
        return 0;
    unsigned long long ms = strtoull(start + open, NULL, 10);
    return ms < UINT64_MAX / 1000 ? (uint64_t)ms * 1000 : 0; /* no wrap */
}

/* Where the capture cut `output` (the head, a marker line, the tail:
 * runner/capture.c): `*head_end` is where the head ends, `*tail_start`
 * where the tail begins. The marker counts the bytes it stands for, so
 * it is the runner's only when the kept text and that count add up to
 * what the program wrote: a program that printed the same words is not
 * taken for a cut. */
static bool find_cut(const struct tattle_output *output, size_t *head_end,
                     size_t *tail_start)
{
    static const char opening[] = "\n[... tattle: ";
    static const char closing[] = " bytes omitted ...]\n";
    if (!output->truncated || !output->text)
        return false;
    const char *text = output->text;
    for (const char *at = strstr(text, opening); at;
         at = strstr(at + 1, opening)) {
        const char *digits = at + sizeof opening - 1;
        char *after;
        unsigned long long omitted = strtoull(digits, &after, 10);
        if (after == digits || strncmp(after, closing, sizeof closing - 1))
            continue;
        size_t marker = (size_t)(after - at) + sizeof closing - 1;
        if (output->length - marker + omitted != output->bytes)
            continue;
        *head_end = (size_t)(at - text);
        *tail_start = (size_t)(at - text) + marker;
        return true;
    }
    return false;
}

/* Progress of reading the lines: the test that started and has not ended,
 * where its failure's text began. */
struct progress {
    const char *output; /* the whole text: sections are offsets in it */
    long running;
    const char *failure_start; /* "file:line: Failure" of running */
};

/* Reads the progress lines from `text` up to `limit`. `after_cut`: the
 * text is the tail of a cut output, where a test may end whose start was
 * lost; its end line says how it ended. */
static void read_lines(struct tattle__gtest_tests *tests, const char *text,
                       const char *limit, bool after_cut,
                       struct progress *progress)
{
    for (const char *line = text; line < limit;) {
        const char *end = memchr(line, '\n', (size_t)(limit - line));
        size_t length = end ? (size_t)(end - line) : (size_t)(limit - line);
        const char *next = end ? end + 1 : limit;
        size_t marker = sizeof run_marker - 1;
        bool is_run = length > marker && memcmp(line, run_marker, marker) == 0;
        bool is_ok = length > marker && memcmp(line, ok_marker, marker) == 0;
        bool is_failed =
            length > marker && memcmp(line, failed_marker, marker) == 0;
        bool is_skipped =
            length > marker && memcmp(line, skipped_marker, marker) == 0;
        if (is_run || is_ok || is_failed || is_skipped) {
            long index = named_test(tests, line + marker, length - marker);
            bool start_lost = after_cut && progress->running < 0 &&
                              index >= 0 && !tests->tests[index].finished;
            if (index >= 0 && is_run) {
                tests->tests[index].started = true;
                tests->tests[index].output_start =
                    (size_t)(line - progress->output);
                tests->tests[index].output_end = 0;
                progress->running = index;
                progress->failure_start = NULL;
            } else if (index >= 0 &&
                       (index == progress->running || start_lost)) {
                struct tattle__gtest_test *test = &tests->tests[index];
                test->started = true;
                test->finished = true;
                if (!start_lost)
                    test->output_end = (size_t)(next - progress->output);
                test->duration_us =
                    line_duration_us(line + marker, length - marker);
                if (is_failed) {
                    test->state = TATTLE_STATE_FAILED;
                    if (progress->failure_start && !start_lost)
                        add_failure(test, progress->failure_start,
                                    (size_t)(line - progress->failure_start),
                                    ": Failure");
                    else
                        add_failure(test, "GoogleTest reported the failure", 31,
                                    "");
                } else if (is_skipped) {
                    test->state = TATTLE_STATE_SKIPPED;
                    test->skip_reason = tattle__strdup("skipped by GTEST_SKIP");
                }
                progress->running = -1;
            }
        } else if (progress->running >= 0 && !progress->failure_start &&
                   length > 9 &&
                   memcmp(line + length - 9, ": Failure", 9) == 0) {
            progress->failure_start = line;
        }
        line = next;
    }
}

long tattle__gtest_read_progress(struct tattle__gtest_tests *tests,
                                 const struct tattle_output *output)
{
    const char *text = output->text ? output->text : "";
    struct progress progress = {.output = text, .running = -1};
    size_t head_end, tail_start;
    if (!find_cut(output, &head_end, &tail_start)) {
        read_lines(tests, text, text + strlen(text), false, &progress);
        return progress.running;
    }
    /* The head's last line and the tail's first are cut short: only whole
     * lines are read. A test running when the head ends ended in the lost
     * middle, or later: how is unknown. */
    tests->output_cut = true;
    const char *head_limit = text;
    for (size_t i = head_end; i > 0; i--)
        if (text[i - 1] == '\n') {
            head_limit = text + i;
            break;
        }
    read_lines(tests, text, head_limit, false, &progress);
    progress = (struct progress){.output = text, .running = -1};
    const char *tail =
        memchr(text + tail_start, '\n', output->length - tail_start);
    if (tail)
        read_lines(tests, tail + 1, text + output->length, true, &progress);
    return progress.running;
}

void tattle__gtest_find_sections(struct tattle__gtest_tests *tests,
                                 const struct tattle_output *output)
{
    struct tattle__gtest_tests printed = {0};
    tattle__gtest_read_progress(&printed, output);
    for (size_t i = 0; i < tests->count; i++) {
        struct tattle__gtest_test *test = &tests->tests[i];
        struct tattle__buffer full = {0};
        tattle__buffer_printf(&full, "%s.%s", test->suite, test->name);
        long seen = find_test(&printed, full.data, full.length);
        tattle__buffer_release(&full);
        if (seen >= 0) {
            test->output_start = printed.tests[seen].output_start;
            test->output_end = printed.tests[seen].output_end;
        }
    }
    tattle__gtest_tests_release(&printed);
}

void tattle__gtest_find_location(const char *text, char **file, int *line)
{
    for (const char *start = text; start && *start;) {
        size_t name = 0;
        while (start[name] && start[name] != ':' &&
               !strchr(" \t\r\n", start[name]))
            name++;
        size_t digits = 0;
        if (name > 0 && start[name] == ':')
            while (digits < 9 && start[name + 1 + digits] >= '0' &&
                   start[name + 1 + digits] <= '9')
                digits++;
        if (digits > 0 && start[name + 1 + digits] == ':') {
            int number = atoi(start + name + 1);
            if (number > 0) {
                *file = tattle__malloc(name + 1);
                memcpy(*file, start, name);
                (*file)[name] = '\0';
                *line = number;
                return;
            }
        }
        start = strchr(start, '\n');
        if (start)
            start++;
    }
}

void tattle__gtest_tests_release(struct tattle__gtest_tests *tests)
{
    for (size_t i = 0; i < tests->count; i++) {
        struct tattle__gtest_test *test = &tests->tests[i];
        free(test->suite);
        free(test->name);
        free(test->file);
        free(test->skip_reason);
        free(test->program_name);
        free(test->stdout_text);
        free(test->stderr_text);
        for (size_t f = 0; f < test->failure_count; f++) {
            free(test->failures[f].file);
            free(test->failures[f].message);
        }
        free(test->failures);
    }
    free(tests->tests);
    tattle__name_index_release(&tests->full_names);
    free(tests->test_of_name);
    *tests = (struct tattle__gtest_tests){0};
}
