/*
 * stacks_bench.c — what stacks and crashes cost the runner.
 *
 * Two figures, each with its same-run baseline:
 *
 * 1. Stacks at a timeout (SPEC section 9: 16 threads <= 50 ms): a child
 *    process with 16 threads blocked in nested calls; the time the runner's
 *    tattle__stacks_take needs to seize, unwind, symbolize and detach all
 *    of them, against `gdb -batch -ex 'thread apply all bt'` attached to the
 *    same process (skipped, with the reason, when gdb is not installed).
 * 2. The runner after a crash (issue: memory stays flat): 1,000 trivial
 *    tests fork-per-test, before and after a run in which a test crashed
 *    (and had its frames symbolized), and in one run whose first test
 *    crashes; with the process's resident memory before and after. The
 *    per-test cost after a crash must equal the cost before it.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/tattle.h>

#include "bench/measure.h"
#include "runner/stacks.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- 1. stacks of 16 threads ---- */

enum { THREADS = 16, ROUNDS = 21, GDB_ROUNDS = 3 };

static int ready_pipe[2], never_written[2];

__attribute__((noinline)) static void blocked_reading(void)
{
    char byte;
    if (write(ready_pipe[1], "r", 1) != 1)
        return;
    while (read(never_written[0], &byte, 1) != 0)
        ;
}

__attribute__((noinline)) static void nested_call(int depth)
{
    if (depth == 0)
        blocked_reading();
    else
        nested_call(depth - 1);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

static void *thread_main(void *unused)
{
    (void)unused;
    nested_call(6);
    return NULL;
}

static pid_t start_threads_process(void)
{
    if (pipe(ready_pipe) != 0 || pipe(never_written) != 0)
        abort();
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t threads[THREADS - 1];
        for (int i = 0; i < THREADS - 1; i++)
            pthread_create(&threads[i], NULL, thread_main, NULL);
        nested_call(6);
        _exit(0);
    }
    for (int i = 0; i < THREADS; i++) {
        char byte;
        if (read(ready_pipe[0], &byte, 1) != 1)
            abort();
    }
    return pid;
}

/* Runs gdb on `pid`; its wall time in seconds, or -1 when it failed. */
static double run_gdb(pid_t pid)
{
    char pid_text[16];
    snprintf(pid_text, sizeof pid_text, "%d", (int)pid);
    double start = bench_seconds();
    pid_t gdb = fork();
    if (gdb == 0) {
        int null_fd = open("/dev/null", O_RDWR);
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
        execlp("gdb", "gdb", "-batch", "-nx", "-p", pid_text, "-ex",
               "thread apply all bt", (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(gdb, &status, 0);
    double elapsed = bench_seconds() - start;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? elapsed : -1;
}

static void bench_stacks(void)
{
    pid_t pid = start_threads_process();
    double times[ROUNDS];
    size_t threads = 0, frames = 0;
    for (int round = 0; round < ROUNDS; round++) {
        struct tattle__stacks stacks = {0};
        double start = bench_seconds();
        tattle__stacks_take(&pid, 1, NULL, 1000 * 1000, &stacks);
        times[round] = bench_seconds() - start;
        threads = stacks.thread_count;
        frames = 0;
        for (size_t i = 0; i < stacks.thread_count; i++)
            frames += stacks.threads[i].frame_count;
        tattle__stacks_forget_tracees(&stacks);
        tattle__stacks_release(&stacks);
    }
    qsort(times, ROUNDS, sizeof *times, compare_doubles);
    printf("stacks at timeout, %d threads: %zu threads, %zu frames; "
           "median %.2f ms (min %.2f, max %.2f) over %d rounds; "
           "target <= 50 ms\n",
           THREADS, threads, frames, times[ROUNDS / 2] * 1e3, times[0] * 1e3,
           times[ROUNDS - 1] * 1e3, ROUNDS);

    double gdb_times[GDB_ROUNDS];
    int gdb_ok = 0;
    for (int round = 0; round < GDB_ROUNDS; round++) {
        double t = run_gdb(pid);
        if (t < 0)
            break;
        gdb_times[gdb_ok++] = t;
    }
    if (gdb_ok == 0) {
        printf("gdb -batch -ex 'thread apply all bt': skipped (gdb is not "
               "installed or could not attach)\n");
    } else {
        qsort(gdb_times, (size_t)gdb_ok, sizeof *gdb_times, compare_doubles);
        double median = gdb_times[gdb_ok / 2];
        printf("gdb -batch -ex 'thread apply all bt', same process: median "
               "%.1f ms over %d rounds; tattle is %.0fx faster\n",
               median * 1e3, gdb_ok, median / times[ROUNDS / 2]);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* ---- 2. the runner after a crash ---- */

#define TEN(prefix)                                                            \
    TEST(flat, prefix##0)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##1)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##2)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##3)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##4)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##5)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##6)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##7)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##8)                                                      \
    {                                                                          \
    }                                                                          \
    TEST(flat, prefix##9)                                                      \
    {                                                                          \
    }
#define HUNDRED(prefix)                                                        \
    TEN(prefix##0)                                                             \
    TEN(prefix##1)                                                             \
    TEN(prefix##2)                                                             \
    TEN(prefix##3)                                                             \
    TEN(prefix##4)                                                             \
    TEN(prefix##5)                                                             \
    TEN(prefix##6)                                                             \
    TEN(prefix##7)                                                             \
    TEN(prefix##8)                                                             \
    TEN(prefix##9)

HUNDRED(t0)
HUNDRED(t1)
HUNDRED(t2)
HUNDRED(t3)
HUNDRED(t4)
HUNDRED(t5)
HUNDRED(t6)
HUNDRED(t7)
HUNDRED(t8)
HUNDRED(t9)

enum { FLAT_TESTS = 1000 };

TEST(a_crash, early)
{
    volatile int *nowhere = NULL;
    *nowhere = 1;
}

static long resident_kb(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    if (status)
        fclose(status);
    return kb;
}

/* Runs tattle_main on `patterns` (NULL-terminated) with its output sent to
 * /dev/null; returns the wall time in seconds. */
static double run_tattle(const char *const *patterns)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = "stacks_bench";
    argv[argc++] = "--quiet";
    argv[argc++] = "--color=never";
    argv[argc++] = "-j1";
    for (; *patterns && argc < 15; patterns++)
        argv[argc++] = (char *)*patterns;
    argv[argc] = NULL;
    struct bench_silenced saved = bench_silence();
    double start = bench_seconds();
    tattle_main(argc, argv);
    double elapsed = bench_seconds() - start;
    bench_restore(saved);
    return elapsed;
}

static void bench_after_crash(void)
{
    static const char *const flat[] = {"flat/*", NULL};
    static const char *const crash[] = {"a_crash/early", NULL};
    static const char *const crash_then_flat[] = {"a_crash/early", "flat/*",
                                                  NULL};
    run_tattle(flat); /* warm up */
    long rss_before = resident_kb();
    double before = run_tattle(flat);
    double crash_alone = run_tattle(crash);
    long rss_after = resident_kb();
    double after = run_tattle(flat);
    double in_one_run = run_tattle(crash_then_flat);
    printf("runner after a crash, %d trivial tests -j1: %.1f us per test "
           "before a crash, %.1f us after it (%.2fx), %.1f us in a run whose "
           "first test crashed (%.2fx; the crash alone %.1f ms)\n",
           FLAT_TESTS, before * 1e6 / FLAT_TESTS, after * 1e6 / FLAT_TESTS,
           after / before, (in_one_run - crash_alone) * 1e6 / FLAT_TESTS,
           (in_one_run - crash_alone) / before, crash_alone * 1e3);
    printf("runner resident memory: %ld kB before the crash, %ld kB after "
           "it\n",
           rss_before, rss_after);
}

int main(int argc, char **argv)
{
    bool only_crash = argc > 1 && strcmp(argv[1], "--crash") == 0;
    bool only_stacks = argc > 1 && strcmp(argv[1], "--stacks") == 0;
    if (!only_crash)
        bench_stacks();
    if (!only_stacks)
        bench_after_crash();
    return 0;
}
