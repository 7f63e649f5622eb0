/*
 * merge_bench.c — how fast `tattle merge` joins many streams into one
 * report, and whether its memory stays flat as the shards multiply.
 *
 * It writes SHARDS JSON Lines streams of 2,000 results each through the
 * "jsonl" reporter type, as a test binary with --report-dir would (one
 * failure in ten, with an assertion and a 10-event trace; the rest
 * passed with a line of output), then runs the real `tattle merge DIR -o
 * OUT` as a child process and reports its wall time and peak RSS
 * (wait4's rusage). The same-run baseline is a child that reads every
 * stream with fread and writes the same bytes to one file with fwrite.
 * It does this for 8 and then 64 shards: memory flat in shard count means
 * the 64-shard peak is about the 8-shard one although it merges 8 times
 * the tests. Targets (SPEC section 9): 64 x 2,000 in <= 1 s.
 *
 *   merge_bench TATTLE_COMMAND [DIR [RESULTS_PER_SHARD]]
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
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
#include "reporter/jsonl.h"

static const struct tattle_tag tags[] = {{"area", "merge"}};

/* Writes shard `shard` of `per_shard` results to `path`. */
static int write_stream(const char *path, unsigned shard, unsigned shards,
                        unsigned per_shard)
{
    char *argv[] = {"./bench_tests", "--shard", "0/1", NULL};
    struct tattle_run_info run = {.started_at = "2024-01-02T03:04:05Z",
                                  .seed = 42,
                                  .jobs = 2,
                                  .argc = 3,
                                  .argv = argv,
                                  .executable = "./bench_tests",
                                  .sharded = true,
                                  .shard_index = shard,
                                  .shard_total = shards,
                                  .planned = per_shard};
    struct tattle_report_options options = {0};
    void *self = NULL;
    int rc = tattle__reporter_jsonl.create(&self, path, &options);
    if (rc != 0)
        return rc;
    tattle__reporter_jsonl.begin(self, &run);
    struct tattle_summary summary = {.total = per_shard, .duration_us = 1};
    struct tattle_trace_event events[BENCH_TRACE_EVENTS];
    char payloads[BENCH_TRACE_EVENTS][32];
    struct tattle_trace trace = bench_small_trace(events, payloads);
    for (unsigned i = 0; i < per_shard; i++) {
        char id[64], name[32], message[96], rerun[128];
        snprintf(name, sizeof name, "case_%05u", i);
        snprintf(id, sizeof id, "shard%03u/%s", shard, name);
        snprintf(message, sizeof message,
                 "ASSERT_EQ(got, want) failed: %u != %u", i, i + 1);
        snprintf(rerun, sizeof rerun, "./bench_tests --id=%s", id);
        char suite[16];
        snprintf(suite, sizeof suite, "shard%03u", shard);
        struct tattle_test_info info = {.id = id,
                                        .suite = suite,
                                        .name = name,
                                        .file = "bench/cases.c",
                                        .line = (int)i + 1,
                                        .tags = tags,
                                        .tag_count = 1,
                                        .timeout_ms = 60000,
                                        .traced = i % 10 == 0};
        bool failed = i % 10 == 0;
        struct tattle_failure failure = {.kind = TATTLE_FAILURE_ASSERTION,
                                         .message = message,
                                         .file = "bench/cases.c",
                                         .line = (int)i + 2,
                                         .macro = "ASSERT_EQ",
                                         .expr = "got, want",
                                         .left = "1",
                                         .right = "2"};
        static const char output[] = "step 1 done\nstep 2 done\n";
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
        tattle__reporter_jsonl.test_started(self, &info);
        tattle__reporter_jsonl.test_finished(self, &result);
        summary.failed += failed;
        summary.passed += !failed;
    }
    rc = tattle__reporter_jsonl.end(self, &summary);
    tattle__reporter_jsonl.destroy(self);
    return rc;
}

static struct bench_child_cost run_child(char *const argv[],
                                         const char *baseline_dir,
                                         const char *baseline_out)
{
    double start = bench_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        if (argv) {
            execv(argv[0], argv);
            _exit(127);
        }
        /* The baseline: every stream read with fread, written with fwrite. */
        DIR *dir = opendir(baseline_dir);
        FILE *out = fopen(baseline_out, "wb");
        if (!dir || !out)
            _exit(1);
        static char chunk[256 * 1024];
        struct dirent *entry;
        while ((entry = readdir(dir))) {
            if (!strstr(entry->d_name, ".jsonl"))
                continue;
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", baseline_dir, entry->d_name);
            FILE *in = fopen(path, "rb");
            size_t n;
            while (in && (n = fread(chunk, 1, sizeof chunk, in)) > 0)
                fwrite(chunk, 1, n, out);
            if (in)
                fclose(in);
        }
        closedir(dir);
        _exit(fclose(out) == 0 ? 0 : 1);
    }
    return bench_wait_child(pid, start);
}

static uint64_t directory_bytes(const char *path)
{
    uint64_t total = 0;
    DIR *dir = opendir(path);
    struct dirent *entry;
    while (dir && (entry = readdir(dir))) {
        char file[4400];
        struct stat st;
        snprintf(file, sizeof file, "%s/%s", path, entry->d_name);
        if (entry->d_name[0] != '.' && stat(file, &st) == 0)
            total += (uint64_t)st.st_size;
    }
    if (dir)
        closedir(dir);
    return total;
}

static void remove_directory(const char *path)
{
    DIR *dir = opendir(path);
    struct dirent *entry;
    while (dir && (entry = readdir(dir))) {
        char file[4400];
        snprintf(file, sizeof file, "%s/%s", path, entry->d_name);
        if (entry->d_name[0] != '.')
            unlink(file);
    }
    if (dir)
        closedir(dir);
    rmdir(path);
}

/* Merges `shards` streams of `per_shard` results; prints one block. */
static int bench_shards(const char *tattle, const char *root, unsigned shards,
                        unsigned per_shard, long *merge_peak_kb)
{
    char streams[4096], out[4096], baseline_out[4096];
    snprintf(streams, sizeof streams, "%s/merge-bench-%u", root, shards);
    snprintf(out, sizeof out, "%s/merge-bench-%u.json", root, shards);
    snprintf(baseline_out, sizeof baseline_out, "%s/merge-bench-%u.bin", root,
             shards);
    if (mkdir(streams, 0777) != 0 && errno != EEXIST) {
        perror(streams);
        return 1;
    }
    for (unsigned s = 0; s < shards; s++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/bench_tests-%u.jsonl", streams, s);
        int rc = write_stream(path, s, shards, per_shard);
        if (rc != 0) {
            fprintf(stderr, "merge_bench: %s: %s\n", path, strerror(-rc));
            return 1;
        }
    }
    uint64_t input = directory_bytes(streams);
    /* The baseline first, so both read from a warm page cache. */
    struct bench_child_cost baseline = run_child(NULL, streams, baseline_out);
    char *argv[] = {(char *)tattle, "merge", streams, "-o", out, NULL};
    struct bench_child_cost merge = run_child(argv, NULL, NULL);
    struct stat st = {0};
    stat(out, &st);
    printf("merge: %u streams x %u results (%u tests), %.1f MB in, %.1f MB "
           "out\n",
           shards, per_shard, shards * per_shard, (double)input / 1e6,
           (double)st.st_size / 1e6);
    printf("  tattle merge      %.3f s   peak RSS %.1f MB%s\n", merge.seconds,
           (double)merge.peak_kb / 1024.0,
           merge.status == 0 ? "" : "   (FAILED: non-zero exit)");
    printf("  baseline fread+fwrite of the same bytes  %.3f s   peak RSS "
           "%.1f MB\n",
           baseline.seconds, (double)baseline.peak_kb / 1024.0);
    printf("  ratio             %.2fx the baseline\n",
           merge.seconds / baseline.seconds);
    *merge_peak_kb = merge.peak_kb;
    unlink(out);
    unlink(baseline_out);
    remove_directory(streams);
    return merge.status != 0 || baseline.status != 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(
            stderr,
            "usage: merge_bench TATTLE_COMMAND [DIR [RESULTS_PER_SHARD]]\n");
        return 2;
    }
    const char *tattle = argv[1];
    const char *root = argc > 2 ? argv[2] : ".";
    unsigned per_shard = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 2000;
    long peak_8 = 0, peak_64 = 0;
    int failed = bench_shards(tattle, root, 8, per_shard, &peak_8);
    failed |= bench_shards(tattle, root, 64, per_shard, &peak_64);
    printf("memory in shard count: 64 shards %.1f MB vs 8 shards %.1f MB "
           "(%.2fx for 8x the streams)   target: flat; 64 x %u in <= 1 s\n",
           (double)peak_64 / 1024.0, (double)peak_8 / 1024.0,
           peak_8 > 0 ? (double)peak_64 / (double)peak_8 : 0.0, per_shard);
    return failed;
}
