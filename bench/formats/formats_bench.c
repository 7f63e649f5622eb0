/*
 * formats_bench.c — how fast the CI formats are written for a big run,
 * and with how much memory.
 *
 * For each CI format reporter it finds by name (junit, tap, ctrf), it runs
 * 100,000 results through the reporter type as the runner does (create, begin,
 * test_started and test_finished for each, end) into a file, in a child process
 * of its own so that each peak RSS (wait4's rusage) is that format's alone. One
 * failure in ten, with an assertion, a 10-event trace and output; the others
 * passed. The same-run baseline is a child that fwrites as many bytes as the
 * format wrote. Targets (SPEC section 9): <= 2 s and <= 32 MB peak RSS per
 * format.
 *
 * The HTML report is measured on a tenth of the results (10,000 by
 * default; target <= 1 s, the same fwrite baseline), and then, when
 * Chromium and npm's playwright-core are installed, opened in headless
 * Chromium until its script has run (target <= 2 s; html_open.mjs, with
 * an empty page opened in the same browser as the baseline).
 *
 *   formats_bench [DIR [RESULTS]]
 *
 * TATTLE_BENCH_KEEP=1 keeps the files written, to look at them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/reporter.h>

#include "bench/measure.h"

static const struct tattle_tag tags[] = {{"area", "formats"}, {"smoke", NULL}};

static int write_format(const struct tattle_reporter_type *type,
                        const char *path, unsigned count)
{
    char *argv[] = {"./bench_tests", NULL};
    struct tattle_run_info run = {.started_at = "2024-01-02T03:04:05Z",
                                  .seed = 42,
                                  .jobs = 2,
                                  .argc = 1,
                                  .argv = argv,
                                  .executable = "./bench_tests",
                                  .planned = count};
    struct tattle_report_options options = {0};
    void *self = NULL;
    int rc = type->create(&self, path, &options);
    if (rc != 0)
        return rc;
    type->begin(self, &run);
    struct tattle_summary summary = {.total = count, .duration_us = 1};
    struct tattle_trace_event events[BENCH_TRACE_EVENTS];
    char payloads[BENCH_TRACE_EVENTS][32];
    struct tattle_trace trace = bench_small_trace(events, payloads);
    static const char output[] = "step 1 done\nstep 2 done\n";
    for (unsigned i = 0; i < count; i++) {
        char id[64], suite[32], name[32], message[96], rerun[128];
        snprintf(suite, sizeof suite, "suite%03u", i / 1000);
        snprintf(name, sizeof name, "case_%06u", i);
        snprintf(id, sizeof id, "%s/%s", suite, name);
        snprintf(message, sizeof message,
                 "ASSERT_EQ(got, want) failed: %u != %u", i, i + 1);
        snprintf(rerun, sizeof rerun, "./bench_tests --id=%s", id);
        bool failed = i % 10 == 0;
        struct tattle_test_info info = {.id = id,
                                        .suite = suite,
                                        .name = name,
                                        .file = "bench/cases.c",
                                        .line = (int)(i % 1000) + 1,
                                        .tags = tags,
                                        .tag_count = 2,
                                        .timeout_ms = 60000,
                                        .traced = failed};
        struct tattle_failure failure = {.kind = TATTLE_FAILURE_ASSERTION,
                                         .message = message,
                                         .file = "bench/cases.c",
                                         .line = (int)(i % 1000) + 2,
                                         .macro = "ASSERT_EQ",
                                         .expr = "got, want",
                                         .left = "1",
                                         .right = "2"};
        struct tattle_result result = {
            .test = &info,
            .state = failed ? TATTLE_STATE_FAILED : TATTLE_STATE_PASSED,
            .duration_us = 1000 + i % 97,
            .attempts = 1,
            .failures = failed ? &failure : NULL,
            .failure_count = failed ? 1 : 0,
            .stdout_output = {.text = output,
                              .length = sizeof output - 1,
                              .bytes = sizeof output - 1},
            .stderr_output = {.text = "", .length = 0},
            .trace = failed ? &trace : NULL,
            .rerun = rerun};
        if (type->test_started)
            type->test_started(self, &info);
        type->test_finished(self, &result);
        summary.failed += failed;
        summary.passed += !failed;
    }
    rc = type->end(self, &summary);
    type->destroy(self);
    return rc;
}

static struct bench_child_cost in_child(const struct tattle_reporter_type *type,
                                        const char *path, unsigned count,
                                        off_t fwrite_bytes)
{
    double start = bench_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        if (type)
            _exit(write_format(type, path, count) == 0 ? 0 : 1);
        static char chunk[64 * 1024];
        memset(chunk, 'x', sizeof chunk);
        FILE *out = fopen(path, "wb");
        for (off_t left = fwrite_bytes; out && left > 0;) {
            size_t n = left > (off_t)sizeof chunk ? sizeof chunk : (size_t)left;
            fwrite(chunk, 1, n, out);
            left -= (off_t)n;
        }
        _exit(out && fclose(out) == 0 ? 0 : 1);
    }
    return bench_wait_child(pid, start);
}

/* Opens the HTML report in headless Chromium (html_open.mjs prints its
 * figures), when node, Chromium and playwright-core are there. */
static void open_in_browser(const char *path)
{
    static const char script[] =
        TATTLE_SOURCE_DIR "/bench/formats/html_open.mjs";
    static const char package[] =
        TATTLE_SOURCE_DIR "/tests/consumers/node_modules/playwright-core";
    if (access("/usr/bin/chromium", X_OK) != 0 || access(package, R_OK) != 0) {
        printf("  chromium          not measured: Chromium or npm's "
               "playwright-core is not installed\n");
        return;
    }
    char command[8192];
    snprintf(command, sizeof command, "node '%s' '%s'", script, path);
    fflush(stdout);
    if (system(command) != 0)
        printf("  chromium          not measured: html_open.mjs failed\n");
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 100000;
    static const char *const formats[] = {"junit", "tap", "ctrf", "html"};
    int failed = 0;
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
        bool html = strcmp(formats[f], "html") == 0;
        unsigned results = html ? (count + 9) / 10 : count;
        const struct tattle_reporter_type *type =
            tattle_reporter_find(formats[f]);
        if (!type) {
            printf("%s: no such reporter in this build\n", formats[f]);
            continue;
        }
        char path[4096], baseline[4096];
        snprintf(path, sizeof path, "%s/formats-bench.%s", dir, formats[f]);
        snprintf(baseline, sizeof baseline, "%s/formats-bench.%s.bin", dir,
                 formats[f]);
        struct bench_child_cost cost = in_child(type, path, results, 0);
        struct stat st = {0};
        stat(path, &st);
        struct bench_child_cost base = in_child(NULL, baseline, 0, st.st_size);
        printf("%s: %u results (one in ten failed, with a trace), %.1f MB\n",
               formats[f], results, (double)st.st_size / 1e6);
        printf("  %-6s reporter   %.3f s   peak RSS %.1f MB%s   target %s\n",
               formats[f], cost.seconds, (double)cost.peak_kb / 1024.0,
               cost.status == 0 ? "" : "   (FAILED)",
               html ? "<= 1 s" : "<= 2 s, <= 32 MB");
        printf("  baseline fwrite   %.3f s   peak RSS %.1f MB (the same number "
               "of bytes)\n",
               base.seconds, (double)base.peak_kb / 1024.0);
        printf("  ratio             %.2fx the baseline\n",
               cost.seconds / base.seconds);
        failed |= cost.status != 0 || base.status != 0;
        if (html && cost.status == 0)
            open_in_browser(path);
        if (!getenv("TATTLE_BENCH_KEEP"))
            unlink(path);
        unlink(baseline);
    }
    return failed;
}
