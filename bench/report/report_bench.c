/*
 * report_bench.c — how fast the json reporter writes a big report, and
 * with how much memory.
 *
 * It builds 100,000 failed results, each with an assertion failure and a
 * 50-event trace, and runs them through the "json" reporter type exactly
 * as the runner does (create, begin, test_finished for each, end), into a
 * file. It prints the time and the peak RSS (getrusage ru_maxrss), then,
 * measured in the same run, the baseline: writing the same number of
 * bytes with fwrite. (The reporter writes each test straight into its
 * buffer, so printing a cJSON tree is no longer what it does.)
 * Targets (SPEC section 9): <= 2 s, <= 32 MB peak RSS.
 *
 *   report_bench [DIR [TESTS]]   writes DIR/report-bench.json (removed after)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tattle/reporter.h>

#include "bench/measure.h"
#include "reporter/json.h"
#include "results/json.h"

enum { EVENTS = 50, PAYLOADS = 4096 };

/* Rendered payloads, made once: the bench measures the reporter, not
 * snprintf. */
static char payloads[PAYLOADS][32];

static double peak_rss_mb(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_maxrss / 1024.0; /* ru_maxrss is in KiB */
}

static const struct tattle_tag tags[] = {{"trace_messages", NULL},
                                         {"area", "net"}};
static char *bench_argv[] = {"./bench", "--json", "report-bench.json", NULL};
static const struct tattle_run_info run = {.started_at = "2024-01-02T03:04:05Z",
                                           .seed = 42,
                                           .jobs = 2,
                                           .argc = 3,
                                           .argv = bench_argv,
                                           .executable = "./bench",
                                           .planned = 0};

/* Fills the result of test number `i`; strings live in the buffers given. */
static void make_result(unsigned i, struct tattle_test_info *info,
                        struct tattle_failure *failure,
                        struct tattle_trace_event *events,
                        struct tattle_trace *trace,
                        struct tattle_result *result, char *id, char *name,
                        char *message, char *rerun)
{
    snprintf(name, 32, "case_%06u", i);
    snprintf(id, 48, "bench/%s", name);
    snprintf(message, 96, "ASSERT_EQ(got, want) failed: %u != %u", i, i + 1);
    snprintf(rerun, 96, "./bench 'bench/%s'", name);
    *info = (struct tattle_test_info){.id = id,
                                      .suite = "bench",
                                      .name = name,
                                      .file = "bench/report/cases.c",
                                      .line = (int)(i % 1000) + 1,
                                      .tags = tags,
                                      .tag_count = 2,
                                      .timeout_ms = 60000,
                                      .traced = true};
    *failure = (struct tattle_failure){.kind = TATTLE_FAILURE_ASSERTION,
                                       .message = message,
                                       .file = "bench/report/cases.c",
                                       .line = (int)(i % 1000) + 2,
                                       .macro = "ASSERT_EQ",
                                       .expr = "got, want",
                                       .left = "1",
                                       .right = "2"};
    for (unsigned e = 0; e < EVENTS; e++) {
        events[e] = (struct tattle_trace_event){
            .seq = e + 1,
            .t_us = 10u * e + i % 7,
            .kind = e % 2 ? TATTLE_TRACE_RECV : TATTLE_TRACE_SEND,
            .from = "producer",
            .to = "consumer",
            .label = "item",
            .msg = payloads[(i * EVENTS + e) % PAYLOADS],
            .size = 16,
            .level = 0};
    }
    *trace = (struct tattle_trace){.cap = EVENTS,
                                   .budget = 5000,
                                   .level = 100,
                                   .recorded = EVENTS + 10,
                                   .dropped = 10,
                                   .events = events,
                                   .event_count = EVENTS};
    *result = (struct tattle_result){.test = info,
                                     .state = TATTLE_STATE_FAILED,
                                     .duration_us = 1000 + i % 97,
                                     .attempts = 1,
                                     .failures = failure,
                                     .failure_count = 1,
                                     .stdout_output = {.text = "", .length = 0},
                                     .stderr_output = {.text = "", .length = 0},
                                     .trace = trace,
                                     .rerun = rerun};
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 100000;
    char path[4096], baseline_path[4096];
    snprintf(path, sizeof path, "%s/report-bench.json", dir);
    snprintf(baseline_path, sizeof baseline_path,
             "%s/report-bench-baseline.bin", dir);

    struct tattle_test_info info;
    struct tattle_failure failure;
    static struct tattle_trace_event events[EVENTS];
    for (unsigned p = 0; p < PAYLOADS; p++)
        snprintf(payloads[p], sizeof payloads[p], "{id=%u, value=%u}", p * 7,
                 p);
    struct tattle_trace trace;
    struct tattle_result result;
    char id[48], name[32], message[96], rerun[96];

    /* The report is about 7,350 bytes per test: the baseline writes that
     * much first, in the same directory, and removes it, so both start
     * from the same page cache. */
    uint64_t expected_bytes = (uint64_t)count * 7355;
    /* Baseline 1: the same number of bytes through fwrite. */
    enum { CHUNK = 64 * 1024 };
    static char chunk[CHUNK];
    memset(chunk, 'x', sizeof chunk);
    double start = bench_seconds();
    FILE *f = fopen(baseline_path, "wb");
    if (!f) {
        perror(baseline_path);
        return 1;
    }
    for (uint64_t left = expected_bytes; left;) {
        size_t n = left > CHUNK ? CHUNK : (size_t)left;
        fwrite(chunk, 1, n, f);
        left -= n;
    }
    fclose(f);
    double fwrite_s = bench_seconds() - start;
    unlink(baseline_path);

    double rss_before = peak_rss_mb();
    struct tattle_report_options options = {0};
    void *reporter = NULL;
    start = bench_seconds();
    int error = tattle__reporter_json.create(&reporter, path, &options);
    if (error) {
        fprintf(stderr, "report_bench: cannot create %s: %s\n", path,
                strerror(-error));
        return 1;
    }
    tattle__reporter_json.begin(reporter, &run);
    for (unsigned i = 0; i < count; i++) {
        make_result(i, &info, &failure, events, &trace, &result, id, name,
                    message, rerun);
        tattle__reporter_json.test_started(reporter, &info);
        tattle__reporter_json.test_finished(reporter, &result);
    }
    struct tattle_summary summary = {
        .total = count, .failed = count, .duration_us = 1};
    double end_start = bench_seconds();
    error = tattle__reporter_json.end(reporter, &summary);
    tattle__reporter_json.destroy(reporter);
    double report_s = bench_seconds() - start;
    double end_s = bench_seconds() - end_start;
    double report_rss = peak_rss_mb();
    if (error) {
        fprintf(stderr, "report_bench: end failed: %s\n", strerror(-error));
        return 1;
    }
    struct stat st;
    stat(path, &st);
    uint64_t bytes = (uint64_t)st.st_size;

    unlink(path);
    printf("report: %u failed results with %d-event traces, %.1f MB of JSON\n",
           count, EVENTS, (double)bytes / 1e6);
    printf("  json reporter     %.3f s   peak RSS %.1f MB (%.1f MB before)   "
           "target <= 2 s, <= 32 MB\n",
           report_s, report_rss, rss_before);
    printf("                    (%.3f s in test_finished, %.3f s in end: "
           "header + copy + rename)\n",
           report_s - end_s, end_s);
    printf("  baseline fwrite   %.3f s   (%.1f MB, no JSON, written first)\n",
           fwrite_s, (double)expected_bytes / 1e6);
    printf("  ratio             %.2fx fwrite\n", report_s / fwrite_s);
    return 0;
}
