/*
 * report_fixture.c — drives the json and jsonl reporters with synthetic
 * results, for the report tests (test_report.py asserts on what it writes).
 *
 * It builds a fixed set of tattle_result records covering every state and
 * failure kind, a traced test, and hostile strings (quotes, backslashes,
 * control bytes, NUL bytes, invalid UTF-8, a 1 MB line), and calls each
 * reporter type through create/begin/test_started/test_finished/end like
 * the runner does. Nothing here depends on the runner's scheduler, so the
 * reporters are tested in isolation.
 *
 *   report_fixture write DIR     writes DIR/<variant>.json(l) and the raw
 *                                hostile strings as DIR/hostile-N.bin
 *   report_fixture keep-old DIR  checks that destroy without end keeps an
 *                                existing report and leaves no file behind
 *   report_fixture bad-dir DIR   checks that create fails cleanly when the
 *                                destination's directory does not exist
 *   report_fixture utf8          checks tattle__utf8_sanitize on edge cases
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tattle/reporter.h>

#include "reporter/compact.h"
#include "reporter/json.h"
#include "reporter/jsonl.h"
#include "base/utf8.h"

static int failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            failures++;                                                        \
        }                                                                      \
    } while (0)

/* ---- The fixed set of results -------------------------------------- */

static const struct tattle_tag core_tags[] = {{"area", "core"}, {"fast", NULL}};
static const struct tattle_tag net_tags[] = {{"area", "core"},
                                             {"trace_messages", NULL},
                                             {"area", "net"},
                                             {"slow", NULL}};

#define INFO(var, suite_, name_, line_, tags_)                                 \
    static const struct tattle_test_info var = {                               \
        .id = #suite_ "/" #name_,                                              \
        .suite = #suite_,                                                      \
        .name = #name_,                                                        \
        .file = "tests/" #suite_ ".c",                                         \
        .line = line_,                                                         \
        .tags = tags_,                                                         \
        .tag_count = sizeof(tags_) / sizeof(struct tattle_tag),                \
        .timeout_ms = 60000}
#define INFO_UNTAGGED(var, suite_, name_, line_)                               \
    static const struct tattle_test_info var = {.id = #suite_ "/" #name_,      \
                                                .suite = #suite_,              \
                                                .name = #name_,                \
                                                .file = "tests/" #suite_ ".c", \
                                                .line = line_,                 \
                                                .timeout_ms = 60000}

INFO(info_adds, math, adds, 10, core_tags);
INFO(info_compares, math, compares, 20, core_tags);
INFO(info_compares_again, math, compares_again, 30, core_tags);
INFO(info_crashes, net, crashes, 40, net_tags);
INFO(info_hangs, net, hangs, 50, net_tags);
INFO(info_refused, net, refused, 55, net_tags);
INFO_UNTAGGED(info_exits, proc, exits, 60);
INFO_UNTAGGED(info_skipped, misc, skipped, 70);
INFO_UNTAGGED(info_excluded, misc, excluded, 75);
INFO_UNTAGGED(info_errors, misc, errors, 80);
INFO_UNTAGGED(info_flaky, misc, flaky, 90);

/* The first of the two failures alone is the failure of `compares_again`,
 * so the array's first element is the single-failure test's failure. */
static const struct tattle_failure compare_failures[] = {
    {.kind = TATTLE_FAILURE_ASSERTION,
     .message = "ASSERT_EQ(a, b) failed: 1 != 2\nsecond line of detail",
     .file = "tests/math.c",
     .line = 22,
     .macro = "ASSERT_EQ",
     .expr = "a, b",
     .left = "1",
     .right = "2"},
    {.kind = TATTLE_FAILURE_ASSERTION,
     .message = "EXPECT_STR_EQ(s, \"x\") failed",
     .file = "tests/math.c",
     .line = 23,
     .macro = "EXPECT_STR_EQ",
     .expr = "s, \"x\"",
     .left = "\"y\"",
     .right = "\"x\""}};

static const struct tattle_frame crash_frames[] = {
    {.function = "queue_pop",
     .file = "src/queue.c",
     .line = 88,
     .address = 0x401234},
    {.function = NULL, .file = NULL, .line = 0, .address = 0x7f0000001000}};
static const struct tattle_failure crash_failure = {
    .kind = TATTLE_FAILURE_CRASH,
    .message = "crashed: SIGSEGV (segmentation fault)",
    .signal = SIGSEGV,
    .frames = crash_frames,
    .frame_count = 2};
static const struct tattle_failure timeout_failure = {
    .kind = TATTLE_FAILURE_TIMEOUT,
    .message = "timed out after 2000 ms",
    .timeout_ms = 2000};
static const struct tattle_failure refused_failure = {
    .kind = TATTLE_FAILURE_ASSERTION,
    .message = "ASSERT(fd >= 0) failed: connection refused",
    .file = "tests/net.c",
    .line = 57,
    .macro = "ASSERT",
    .expr = "fd >= 0",
    .left = "false",
    .right = NULL};
static const struct tattle_failure exit_failure = {.kind = TATTLE_FAILURE_EXIT,
                                                   .message =
                                                       "exited with status 3",
                                                   .exit_code = 3};
static const struct tattle_failure error_failure = {
    .kind = TATTLE_FAILURE_ERROR,
    .message = "setup failed: cannot open db",
    .file = "tests/misc.c",
    .line = 81};

static const struct tattle_trace_event crash_events[] = {
    {.seq = 1,
     .t_us = 10,
     .kind = TATTLE_TRACE_SPAWN,
     .from = "main",
     .to = "worker",
     .level = 0},
    {.seq = 2,
     .t_us = 25,
     .kind = TATTLE_TRACE_SEND,
     .from = "main",
     .to = "worker",
     .label = "job",
     .msg = "{id=1}",
     .size = 8,
     .level = 0},
    {.seq = 3,
     .t_us = 31,
     .kind = TATTLE_TRACE_RECV,
     .from = "main",
     .to = "worker",
     .label = "job",
     .msg = "{id=1}",
     .size = 8,
     .level = 0},
    {.seq = 4,
     .t_us = 40,
     .kind = TATTLE_TRACE_EVENT,
     .from = "worker",
     .label = "state",
     .msg = "popping",
     .size = 0,
     .level = 50},
    {.seq = 5,
     .t_us = 41,
     .kind = TATTLE_TRACE_EXIT,
     .from = "worker",
     .level = 0}};
static const char *const pending_messages[] = {"{id=2}", "{id=3}"};
static const struct tattle_trace_mailbox crash_mailboxes[] = {
    {.name = "jobs",
     .owner = "main",
     .alive = true,
     .pending = 3,
     .messages = pending_messages,
     .message_count = 2,
     .approx = false}};
static const struct tattle_trace_actor crash_actors[] = {
    {.name = "main", .pid = 100, .tid = 100, .alive_at_exit = true},
    {.name = "worker", .pid = 100, .tid = 101, .alive_at_exit = false}};
static const struct tattle_trace crash_trace = {.cap = 50,
                                                .budget = 5000,
                                                .level = 100,
                                                .recorded = 7,
                                                .dropped = 2,
                                                .overflow = false,
                                                .events = crash_events,
                                                .event_count = 5,
                                                .mailboxes = crash_mailboxes,
                                                .mailbox_count = 1,
                                                .actors = crash_actors,
                                                .actor_count = 2};

#define OUT(s)                                                                 \
    {                                                                          \
        .text = s, .length = sizeof s - 1, .bytes = sizeof s - 1               \
    }

static const struct tattle_result fixed_results[] = {
    {.test = &info_adds,
     .state = TATTLE_STATE_PASSED,
     .duration_us = 120,
     .attempts = 1,
     .stdout_output = OUT("hello\n"),
     .rerun = "./tests math/adds"},
    {.test = &info_compares,
     .state = TATTLE_STATE_FAILED,
     .duration_us = 340,
     .attempts = 1,
     .failures = compare_failures,
     .failure_count = 2,
     .stderr_output = OUT("debug: a=1\n"),
     .rerun = "./tests math/compares"},
    {.test = &info_compares_again,
     .state = TATTLE_STATE_FAILED,
     .duration_us = 300,
     .attempts = 1,
     .failures = &compare_failures[0],
     .failure_count = 1,
     .rerun = "./tests math/compares_again"},
    {.test = &info_crashes,
     .state = TATTLE_STATE_FAILED,
     .duration_us = 5000,
     .attempts = 1,
     .failures = &crash_failure,
     .failure_count = 1,
     .trace = &crash_trace,
     .rerun = "./tests net/crashes"},
    {.test = &info_hangs,
     .state = TATTLE_STATE_FAILED,
     .duration_us = 2000100,
     .attempts = 1,
     .failures = &timeout_failure,
     .failure_count = 1,
     .rerun = "./tests net/hangs"},
    {.test = &info_refused,
     .state = TATTLE_STATE_FAILED,
     .duration_us = 70,
     .attempts = 1,
     .failures = &refused_failure,
     .failure_count = 1,
     .rerun = "./tests net/refused"},
    {.test = &info_exits,
     .state = TATTLE_STATE_FAILED,
     .duration_us = 900,
     .attempts = 1,
     .failures = &exit_failure,
     .failure_count = 1,
     .rerun = "./tests proc/exits"},
    {.test = &info_skipped,
     .state = TATTLE_STATE_SKIPPED,
     .duration_us = 5,
     .attempts = 1,
     .skip_reason = "needs a network",
     .rerun = "./tests misc/skipped"},
    {.test = &info_excluded,
     .state = TATTLE_STATE_EXCLUDED,
     .duration_us = 0,
     .attempts = 0,
     .skip_reason = "excluded by tag slow",
     .rerun = "./tests misc/excluded"},
    {.test = &info_errors,
     .state = TATTLE_STATE_INVALID,
     .duration_us = 15,
     .attempts = 1,
     .failures = &error_failure,
     .failure_count = 1,
     .rerun = "./tests misc/errors"},
    {.test = &info_flaky,
     .state = TATTLE_STATE_PASSED,
     .duration_us = 800,
     .attempts = 2,
     .flaky = true,
     .rerun = "./tests misc/flaky"},
};

/* ---- Hostile strings ------------------------------------------------ */

static const char hostile_quotes[] =
    "he said \"hi\" \\ back\\slash \\\" / and 'single'";
static const char hostile_control[] =
    "bell\a tab\t nl\n cr\r esc\x1b[31m del\x7f \x01\x1f end";
static const char hostile_nul[] = "before\0after\0\0end";
static const char hostile_invalid[] =
    "bad:\xff\xfe lone-cont:\x80 overlong:\xc0\xaf surrogate:\xed\xa0\x80 "
    "truncated:\xe2\x82 big:\xf4\x90\x80\x80 ok:\xe2\x82\xac\xf0\x9f\x98\x80 "
    "end:\xe2";
#define HOSTILE_COUNT 4
static const struct {
    const char *bytes;
    size_t length;
} hostile[HOSTILE_COUNT] = {
    {hostile_quotes, sizeof hostile_quotes - 1},
    {hostile_control, sizeof hostile_control - 1},
    {hostile_nul, sizeof hostile_nul - 1},
    {hostile_invalid, sizeof hostile_invalid - 1},
};

static const struct tattle_tag hostile_tags[] = {
    {"note", hostile_quotes}, {"bad\xff", NULL}, {"trace_messages", NULL}};
INFO(info_hostile, hostile, strings, 100, hostile_tags);
INFO_UNTAGGED(info_huge, hostile, huge_output, 110);

static const struct tattle_failure hostile_failure = {
    .kind = TATTLE_FAILURE_ASSERTION,
    .message = hostile_invalid,
    .file = "tests/hostile.c",
    .line = 101,
    .macro = "ASSERT_STR_EQ",
    .expr = hostile_quotes,
    .left = hostile_control,
    .right = hostile_invalid};
static const struct tattle_trace_event hostile_events[] = {
    {.seq = 1,
     .t_us = 1,
     .kind = TATTLE_TRACE_SEND,
     .from = hostile_quotes,
     .to = hostile_invalid,
     .label = hostile_control,
     .msg = hostile_invalid,
     .size = 3,
     .level = 0}};
static const char *const hostile_messages[] = {hostile_invalid,
                                               hostile_control};
static const struct tattle_trace_mailbox hostile_mailboxes[] = {
    {.name = hostile_invalid,
     .owner = NULL,
     .alive = false,
     .pending = 2,
     .messages = hostile_messages,
     .message_count = 2,
     .approx = true}};
static const struct tattle_trace_actor hostile_actors[] = {
    {.name = hostile_control, .pid = 1, .tid = 1, .alive_at_exit = false}};
static const struct tattle_trace hostile_trace = {.cap = 1,
                                                  .budget = 1,
                                                  .level = 100,
                                                  .recorded = 2,
                                                  .dropped = 1,
                                                  .overflow = true,
                                                  .events = hostile_events,
                                                  .event_count = 1,
                                                  .mailboxes =
                                                      hostile_mailboxes,
                                                  .mailbox_count = 1,
                                                  .actors = hostile_actors,
                                                  .actor_count = 1};

static void write_file(const char *dir, const char *name, const char *bytes,
                       size_t length)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(bytes, 1, length, f) == length);
        fclose(f);
    }
}

/* ---- Driving a reporter -------------------------------------------- */

static char *fixture_argv[] = {"./tests", "--json", "report.json", NULL};
static const struct tattle_run_info fixture_run = {
    .started_at = "2024-01-02T03:04:05Z",
    .seed = 18446744073709551557ull,
    .jobs = 2,
    .argc = 3,
    .argv = fixture_argv,
    .executable = "/build/tests",
    .sharded = true,
    .shard_index = 0,
    .shard_total = 2,
    .planned = 11};

static struct tattle_summary summarize(const struct tattle_result *results,
                                       size_t count)
{
    struct tattle_summary s = {.total = count, .duration_us = 2010000};
    for (size_t i = 0; i < count; i++) {
        switch (results[i].state) {
        case TATTLE_STATE_PASSED:
            s.passed++;
            break;
        case TATTLE_STATE_FAILED:
            s.failed++;
            break;
        case TATTLE_STATE_SKIPPED:
            s.skipped++;
            break;
        case TATTLE_STATE_EXCLUDED:
            s.excluded++;
            break;
        case TATTLE_STATE_INVALID:
            s.invalid++;
            break;
        }
        s.flaky += results[i].flaky;
    }
    return s;
}

static int run_reporter(const struct tattle_reporter_type *type,
                        const char *path,
                        const struct tattle_report_options *options,
                        const struct tattle_result *results, size_t count)
{
    void *self = NULL;
    int error = type->create(&self, path, options);
    CHECK(error == 0);
    if (error)
        return error;
    type->begin(self, &fixture_run);
    for (size_t i = 0; i < count; i++) {
        if (type->test_started)
            type->test_started(self, results[i].test);
        type->test_finished(self, &results[i]);
    }
    struct tattle_summary summary = summarize(results, count);
    error = type->end(self, &summary);
    CHECK(error == 0);
    type->destroy(self);
    return error;
}

static const char *const filters[] = {"connection refused"};

/* The runner asks for the "compact" reporter instead of "json" with
 * --compact; the fixture does the same. */
static const struct tattle_reporter_type *
json_reporter_for(const struct tattle_report_options *options)
{
    return options->compact ? &tattle__reporter_compact
                            : &tattle__reporter_json;
}

static void write_variants(const char *dir)
{
    static const struct {
        const char *name;
        struct tattle_report_options options;
    } variants[] = {
        {"full", {0}},
        {"failures_only", {.failures_only = true}},
        {"summary_only", {.summary_only = true}},
        {"first_failure", {.first_failure = true}},
        {"group_by_error",
         {.group_by_error = true,
          .filter_out = filters,
          .filter_out_count = 1}},
        {"failures_grouped_summary",
         {.summary_only = true, .group_by_error = true}},
        {"compact", {.compact = true}},
        {"compact_failures",
         {.compact = true,
          .failures_only = true,
          .group_by_error = true,
          .filter_out = filters,
          .filter_out_count = 1}},
    };
    size_t count = sizeof fixed_results / sizeof *fixed_results;
    char path[4096];
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        snprintf(path, sizeof path, "%s/%s.json", dir, variants[i].name);
        run_reporter(json_reporter_for(&variants[i].options), path,
                     &variants[i].options, fixed_results, count);
    }
    snprintf(path, sizeof path, "%s/stream.jsonl", dir);
    struct tattle_report_options filter = {.filter_out = filters,
                                           .filter_out_count = 1};
    run_reporter(&tattle__reporter_jsonl, path, &filter, fixed_results, count);

    /* An empty run still makes a valid report. */
    snprintf(path, sizeof path, "%s/empty.json", dir);
    run_reporter(&tattle__reporter_json, path,
                 &(struct tattle_report_options){0}, fixed_results, 0);

    /* Hostile strings, and a 1 MB line without a newline in stdout. */
    enum { HUGE = 1024 * 1024 };
    char *huge = malloc(HUGE + 1);
    CHECK(huge != NULL);
    if (!huge)
        return;
    for (size_t i = 0; i < HUGE; i++)
        huge[i] = (char)('a' + i % 26);
    huge[HUGE] = '\0';
    struct tattle_result hostile_results[] = {
        {.test = &info_hostile,
         .state = TATTLE_STATE_FAILED,
         .duration_us = 1,
         .attempts = 1,
         .failures = &hostile_failure,
         .failure_count = 1,
         .skip_reason = hostile_control,
         .stdout_output = {.text = hostile_nul,
                           .length = sizeof hostile_nul - 1,
                           .bytes = sizeof hostile_nul - 1},
         .stderr_output = {.text = hostile_invalid,
                           .length = sizeof hostile_invalid - 1,
                           .bytes = 1000000,
                           .truncated = true},
         .trace = &hostile_trace,
         .rerun = hostile_quotes},
        {.test = &info_huge,
         .state = TATTLE_STATE_PASSED,
         .duration_us = 2,
         .attempts = 1,
         .stdout_output = {.text = huge, .length = HUGE, .bytes = HUGE},
         .rerun = "./tests hostile/huge_output"},
    };
    snprintf(path, sizeof path, "%s/hostile.json", dir);
    run_reporter(&tattle__reporter_json, path,
                 &(struct tattle_report_options){0}, hostile_results, 2);
    snprintf(path, sizeof path, "%s/hostile.jsonl", dir);
    run_reporter(&tattle__reporter_jsonl, path,
                 &(struct tattle_report_options){0}, hostile_results, 2);
    snprintf(path, sizeof path, "%s/hostile_compact.json", dir);
    run_reporter(&tattle__reporter_compact, path,
                 &(struct tattle_report_options){.compact = true},
                 hostile_results, 2);
    free(huge);

    for (int i = 0; i < HOSTILE_COUNT; i++) {
        char name[32];
        snprintf(name, sizeof name, "hostile-%d.bin", i);
        write_file(dir, name, hostile[i].bytes, hostile[i].length);
    }
}

/* ---- Atomicity ------------------------------------------------------- */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buffer[4096];
    size_t n = fread(buffer, 1, sizeof buffer - 1, f);
    buffer[n] = '\0';
    fclose(f);
    return buffer;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void keep_old(const char *dir)
{
    static const struct tattle_report_options modes[] = {{0},
                                                         {.compact = true}};
    char path[4096];
    snprintf(path, sizeof path, "%s/report.json", dir);
    write_file(dir, "report.json", "OLD REPORT", 10);
    CHECK(count_entries(dir) == 1);
    for (size_t m = 0; m < 2; m++) {
        const struct tattle_reporter_type *type = json_reporter_for(&modes[m]);
        void *self = NULL;
        CHECK(type->create(&self, path, &modes[m]) == 0);
        if (!self)
            continue;
        type->begin(self, &fixture_run);
        for (size_t i = 0; i < 3; i++)
            type->test_finished(self, &fixed_results[i]);
        /* The run dies before end: the old report must stay. */
        type->destroy(self);
        const char *text = read_all(path);
        CHECK(text && strcmp(text, "OLD REPORT") == 0);
        CHECK(count_entries(dir) == 1);
    }
    /* And a completed run replaces it, leaving no temporary file. */
    run_reporter(&tattle__reporter_json, path,
                 &(struct tattle_report_options){0}, fixed_results, 3);
    const char *text = read_all(path);
    CHECK(text && strncmp(text, "{\"version\":1,", 13) == 0);
    CHECK(count_entries(dir) == 1);
}

static void bad_dir(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/no/such/dir/report.json", dir);
    const struct tattle_reporter_type *types[] = {&tattle__reporter_json,
                                                  &tattle__reporter_compact,
                                                  &tattle__reporter_jsonl};
    static const struct tattle_report_options modes[] = {{0},
                                                         {.compact = true}};
    for (size_t t = 0; t < 3; t++)
        for (size_t m = 0; m < 2; m++) {
            void *self = NULL;
            int error = types[t]->create(&self, path, &modes[m]);
            CHECK(error == -ENOENT);
            CHECK(self == NULL);
        }
    CHECK(count_entries(dir) == 0);
}

/* ---- UTF-8 ------------------------------------------------------------ */

static void check_sanitize(const char *in, size_t length, const char *expected)
{
    size_t out_length = 0;
    char *out = tattle__utf8_sanitize(in, length, &out_length);
    CHECK(out != NULL);
    if (!out)
        return;
    if (strcmp(out, expected) != 0 || out_length != strlen(expected)) {
        fprintf(stderr, "sanitize: got \"%s\", want \"%s\"\n", out, expected);
        failures++;
    }
    CHECK(tattle__utf8_is_clean(out, out_length));
    free(out);
}

#define R "\xef\xbf\xbd"
static void utf8(void)
{
    check_sanitize("plain", 5, "plain");
    check_sanitize("a\0b", 3, "a" R "b");
    check_sanitize("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
                   "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    check_sanitize("\x80", 1, R);
    check_sanitize("\xc0\xaf", 2, R R);             /* overlong */
    check_sanitize("\xe0\x80\xaf", 3, R R R);       /* overlong */
    check_sanitize("\xed\xa0\x80", 3, R R R);       /* surrogate */
    check_sanitize("\xf4\x90\x80\x80", 4, R R R R); /* > U+10FFFF */
    check_sanitize("\xe2\x82", 2, R);               /* truncated: one */
    check_sanitize("\xe2\x82x", 3, R "x");
    check_sanitize("\xf0\x9f\x98", 3, R);
    check_sanitize("\xff\xfe", 2, R R);
    check_sanitize("", 0, "");
    CHECK(tattle__utf8_is_clean("abcdefghijklmnopq\xc3\xa9", 19));
    CHECK(!tattle__utf8_is_clean("abcdefghijklmnopq\0", 18));
    CHECK(!tattle__utf8_is_clean("abcdefgh\xff", 9));
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0)
        write_variants(argv[2]);
    else if (argc == 3 && strcmp(argv[1], "keep-old") == 0)
        keep_old(argv[2]);
    else if (argc == 3 && strcmp(argv[1], "bad-dir") == 0)
        bad_dir(argv[2]);
    else if (argc == 2 && strcmp(argv[1], "utf8") == 0)
        utf8();
    else {
        fprintf(stderr, "usage: %s write|keep-old|bad-dir DIR | utf8\n",
                argv[0]);
        return 2;
    }
    return failures ? 1 : 0;
}
