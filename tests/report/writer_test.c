/*
 * writer_test.c — a TEST object is written straight into the report: no
 * cJSON tree per test, and the bytes are the ones cJSON prints.
 *
 * The json and jsonl reporters write each finished test with
 * results/json.h's writer (results/json_writer.h), which promises two
 * things checked here, besides the values themselves. First, that writing a
 * test allocates nothing through cJSON: this program counts cJSON's allocations
 * (cJSON_InitHooks) while each reporter writes a hundred tests, a failed one
 * with an assertion, a stack, a trace and hostile output among them, and
 * expects none (building and freeing a tree per test was most of what `tattle
 * merge` spent writing). Second, that the bytes are cJSON's own: each
 * written line, parsed by cJSON and printed again without whitespace,
 * must come back byte for byte (a different escape, number form or
 * spacing would not; numbers keep to the 15 digits cJSON prints
 * exactly). And, third, that the values are the ones given: the first
 * test of each report, parsed, is compared with the test it was written
 * from. Exits 0 when all held, 1 naming what did not.
 *
 *   report_writer_test DIR   (the reports are written into DIR)
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/reporter.h>

#include "reporter/json.h"
#include "reporter/jsonl.h"

static int failures;
static size_t cjson_allocations;

static void *counting_malloc(size_t size)
{
    cjson_allocations++;
    return malloc(size);
}

static const struct tattle_tag tags[] = {
    {"area", "core"}, {"slow", NULL}, {"area", "net \"quoted\""}};

/* Output with every control character, a NUL, quotes and invalid UTF-8. */
static const char hostile_output[] =
    "line\n\t\"q\" \\ \x01\x1f\x7f \xc3\xa9 \xff\xfe \xe2\x82 \0 after NUL\r\n";

/* Writes `count` tests through `type` into `path`, counting cJSON's
 * allocations in test_finished only. */
static void write_tests(const struct tattle_reporter_type *type,
                        const char *path, unsigned count)
{
    struct tattle_report_options options = {0};
    void *self = NULL;
    if (type->create(&self, path, &options) != 0) {
        printf("FAILED: cannot create %s\n", path);
        failures++;
        return;
    }
    char *argv[] = {"./suite", NULL};
    struct tattle_run_info run = {.started_at = "2024-01-02T03:04:05Z",
                                  .seed = 1,
                                  .jobs = 1,
                                  .argc = 1,
                                  .argv = argv,
                                  .executable = "./suite",
                                  .planned = count};
    type->begin(self, &run);
    struct tattle_frame frame = {
        .function = "f\x01", .file = "a.c", .line = 3, .address = 0x1234};
    struct tattle_trace_event event = {.seq = 1,
                                       .t_us = 999999999999999u, /* 15 digits */
                                       .kind = TATTLE_TRACE_SEND,
                                       .from = "a\"b",
                                       .to = "c\xff",
                                       .msg = "m\n",
                                       .size = 3,
                                       .level = -1};
    struct tattle_trace trace = {.cap = 50,
                                 .budget = 1000,
                                 .level = 2,
                                 .recorded = 1,
                                 .events = &event,
                                 .event_count = 1};
    size_t during_tests = 0;
    for (unsigned i = 0; i < count; i++) {
        char id[32];
        snprintf(id, sizeof id, "suite/case_%u\x02", i);
        struct tattle_test_info info = {.id = id,
                                        .suite = "suite",
                                        .name = id + 6,
                                        .file = "tests/a.c",
                                        .line = (int)i + 1,
                                        .tags = tags,
                                        .tag_count = 3,
                                        .timeout_ms = 1000};
        bool failed = i % 3 == 0;
        struct tattle_failure failure = {.kind = TATTLE_FAILURE_ASSERTION,
                                         .message = "1 != 2 \"x\"",
                                         .file = "tests/a.c",
                                         .line = 7,
                                         .macro = "ASSERT_EQ",
                                         .expr = "a == b",
                                         .left = "1",
                                         .right = "\xe2\x82",
                                         .frames = &frame,
                                         .frame_count = 1};
        struct tattle_result result = {
            .test = &info,
            .state = failed ? TATTLE_STATE_FAILED : TATTLE_STATE_PASSED,
            .duration_us = 1000u * i,
            .attempts = 1,
            .failures = failed ? &failure : NULL,
            .failure_count = failed ? 1 : 0,
            .stdout_output = {.text = hostile_output,
                              .length = sizeof hostile_output - 1,
                              .bytes = sizeof hostile_output - 1},
            .trace = failed ? &trace : NULL,
            .rerun = "./suite --id='x'"};
        type->test_started(self, &info);
        size_t before = cjson_allocations;
        type->test_finished(self, &result);
        during_tests += cjson_allocations - before;
    }
    struct tattle_summary summary = {.total = count, .duration_us = 1};
    if (type->end(self, &summary) != 0) {
        printf("FAILED: %s: end failed\n", path);
        failures++;
    }
    type->destroy(self);
    if (during_tests) {
        printf("FAILED: %s: %zu cJSON allocations while writing %u tests "
               "(a tree per test)\n",
               path, during_tests, count);
        failures++;
    }
}

/* Each line of `path` holding `marker` parses, and cJSON prints it back
 * byte for byte (without the ",\n" that separates a report's tests). */
static void check_lines_reprint(const char *path, const char *marker)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        printf("FAILED: cannot read %s\n", path);
        failures++;
        return;
    }
    char *line = NULL;
    size_t capacity = 0, checked = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, file)) > 0) {
        if (!strstr(line, marker))
            continue;
        while (length > 0 &&
               (line[length - 1] == '\n' || line[length - 1] == ','))
            line[--length] = '\0';
        cJSON *parsed = cJSON_ParseWithLength(line, (size_t)length);
        char *printed = parsed ? cJSON_PrintUnformatted(parsed) : NULL;
        if (!printed || strcmp(printed, line) != 0) {
            size_t at = 0;
            while (printed && printed[at] && printed[at] == line[at])
                at++;
            if (failures < 3) /* the first few say enough */
                printf("FAILED: %s: a test's line is not what cJSON prints "
                       "(byte %zu)\n  written: %.80s\n  cJSON:   %.80s\n",
                       path, at, line + at,
                       printed ? printed + at : "(no parse)");
            failures++;
        }
        free(printed);
        cJSON_Delete(parsed);
        checked++;
    }
    free(line);
    fclose(file);
    if (checked == 0) {
        printf("FAILED: %s: no test line found\n", path);
        failures++;
    }
}

/* The first test of the JSON report, written from write_tests()'s inputs:
 * each value where the schema puts it, control characters escaped,
 * invalid UTF-8 and the NUL replaced by U+FFFD, a repeated tag key kept
 * once with its last value, the 15-digit t_us exact. */
static const char first_test_expected[] =
    "{\"id\":\"suite/case_0\\u0002\",\"suite\":\"suite\","
    "\"name\":\"case_0\\u0002\",\"file\":\"tests/a.c\",\"line\":1,"
    "\"tags\":{\"area\":\"net \\\"quoted\\\"\",\"slow\":true},"
    "\"state\":\"failed\",\"duration_us\":0,\"attempts\":1,\"flaky\":false,"
    "\"failures\":[{\"kind\":\"assertion\",\"message\":\"1 != 2 \\\"x\\\"\","
    "\"file\":\"tests/a.c\",\"line\":7,\"assertion\":{\"macro\":\"ASSERT_EQ\","
    "\"expr\":\"a == b\",\"left\":\"1\",\"right\":\"\\ufffd\"},"
    "\"stacktrace\":[{\"function\":\"f\\u0001\",\"file\":\"a.c\",\"line\":3,"
    "\"address\":\"0x1234\"}]}],\"skip_reason\":null,"
    "\"output\":{\"stdout\":\"line\\n\\t\\\"q\\\" \\\\ \\u0001\\u001f\\u007f "
    "\\u00e9 \\ufffd\\ufffd \\ufffd \\ufffd after NUL\\r\\n\",\"stderr\":\"\","
    "\"stdout_bytes\":38,\"stderr_bytes\":0,\"truncated\":false},"
    "\"trace\":{\"cap\":50,\"budget\":1000,\"level\":2,\"recorded\":1,"
    "\"dropped\":0,\"overflow\":false,\"events\":[{\"seq\":1,"
    "\"t_us\":999999999999999,\"kind\":\"send\",\"from\":\"a\\\"b\","
    "\"to\":\"c\\ufffd\",\"msg\":\"m\\n\",\"size\":3,\"level\":-1}],"
    "\"mailboxes\":[],\"endpoints\":[],\"actors\":[]},"
    "\"rerun\":\"./suite --id='x'\"}";

/* The first line of `path` holding `marker` (its member `member`, when
 * not NULL) is, parsed, the test `expected` describes: the writer wrote
 * the right values, not only well-formed ones. */
static void check_first_test(const char *path, const char *marker,
                             const char *member, const char *expected)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        printf("FAILED: cannot read %s\n", path);
        failures++;
        return;
    }
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, file)) > 0 &&
           !strstr(line, marker))
        ;
    fclose(file);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == ','))
        line[--length] = '\0';
    cJSON *parsed = length > 0 ? cJSON_Parse(line) : NULL;
    const cJSON *written =
        parsed && member ? cJSON_GetObjectItemCaseSensitive(parsed, member)
                         : parsed;
    cJSON *wanted = cJSON_Parse(expected);
    if (!wanted || !written || !cJSON_Compare(written, wanted, true)) {
        char *printed = written ? cJSON_PrintUnformatted(written) : NULL;
        printf("FAILED: %s: the first test is not the one written\n"
               "  written: %.300s\n  wanted:  %.300s\n",
               path, printed ? printed : "(no test line)", expected);
        free(printed);
        failures++;
    }
    cJSON_Delete(parsed);
    cJSON_Delete(wanted);
    free(line);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: report_writer_test DIR\n", stderr);
        return 2;
    }
    cJSON_Hooks hooks = {.malloc_fn = counting_malloc, .free_fn = free};
    cJSON_InitHooks(&hooks);
    char json[4096], jsonl[4096];
    snprintf(json, sizeof json, "%s/writer.json", argv[1]);
    snprintf(jsonl, sizeof jsonl, "%s/writer.jsonl", argv[1]);
    write_tests(&tattle__reporter_json, json, 100);
    write_tests(&tattle__reporter_jsonl, jsonl, 100);
    check_lines_reprint(json, "\"rerun\":");
    check_lines_reprint(jsonl, "\"test_finished\"");
    check_first_test(json, "\"rerun\":", NULL, first_test_expected);
    check_first_test(jsonl, "\"test_finished\"", "test", first_test_expected);
    if (failures)
        return 1;
    puts("ok: tests written without a cJSON tree, as cJSON prints them");
    return 0;
}
