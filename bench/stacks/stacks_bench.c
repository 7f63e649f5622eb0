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
#include <sys/resource.h>
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

/* A figure of /proc/self/smaps_rollup in kB ("Rss:", "Anonymous:"), or
 * -1. Anonymous memory is what a fork copies page-table entries of; the
 * rest of the resident set is file-backed text and data a fork maps
 * afresh. */
static long rollup_kb(const char *field)
{
    FILE *rollup = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = -1;
    size_t length = strlen(field);
    while (rollup && fgets(line, sizeof line, rollup))
        if (strncmp(line, field, length) == 0)
            kb = strtol(line + length, NULL, 10);
    if (rollup)
        fclose(rollup);
    return kb;
}

/* What one tattle_main run cost: wall seconds, CPU seconds (user and
 * system of this process and of every process it reaped: the fork server
 * and, through it, the tests) and minor page faults. */
struct run_cost {
    double seconds, cpu_seconds, faults;
};

static double rusage_seconds(const struct rusage *usage)
{
    return (double)usage->ru_utime.tv_sec + (double)usage->ru_stime.tv_sec +
           ((double)usage->ru_utime.tv_usec + (double)usage->ru_stime.tv_usec) /
               1e6;
}

static void add_usage(struct run_cost *cost, double sign)
{
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    cost->cpu_seconds +=
        sign * (rusage_seconds(&self) + rusage_seconds(&children));
    cost->faults += sign * (double)(self.ru_minflt + children.ru_minflt);
}

/* Runs tattle_main on `patterns` (NULL-terminated) with its output sent to
 * /dev/null. */
static struct run_cost run_tattle(const char *const *patterns)
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
    struct run_cost cost = {0};
    add_usage(&cost, -1);
    double start = bench_seconds();
    tattle_main(argc, argv);
    cost.seconds = bench_seconds() - start;
    add_usage(&cost, +1);
    bench_restore(saved);
    return cost;
}

enum { CRASH_ROUNDS = 11, LATER_CRASHES = 10 };

/* One round, in a process of its own that had no crash before: 1,000
 * trivial tests before a crash and after it, a run whose first test
 * crashes, and the memory before the first crash, after it and after
 * LATER_CRASHES more. Its baseline: the same tests after a process forked
 * from this one spun for as long as a crash takes, with no crash. A crash
 * is such a burst: its frames are looked up in a process forked for it,
 * for tens of milliseconds, and on this VM a burst like that alone makes
 * the next run's tests dearer for a while (when this process itself spun,
 * their CPU time stayed and their wall time rose). */
struct crash_round {
    struct run_cost before, after_spin, crash, after, crash_again,
        crash_then_flat;
    long rss_kb[3], anonymous_kb[3];
};

/* Keeps a process forked for it busy for `seconds`, as the lookup
 * process of a crash is. */
static void spin_for(double seconds)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        double until = bench_seconds() + seconds;
        while (bench_seconds() < until)
            ;
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

static void take_memory(struct crash_round *round, int when)
{
    round->rss_kb[when] = rollup_kb("Rss:");
    round->anonymous_kb[when] = rollup_kb("Anonymous:");
}

static void crash_round_in_child(struct crash_round *round,
                                 double crash_seconds)
{
    static const char *const flat[] = {"flat/*", NULL};
    static const char *const crash[] = {"a_crash/early", NULL};
    static const char *const crash_then_flat[] = {"a_crash/early", "flat/*",
                                                  NULL};
    run_tattle(flat); /* warm up */
    round->before = run_tattle(flat);
    spin_for(crash_seconds);
    round->after_spin = run_tattle(flat);
    take_memory(round, 0);
    round->crash = run_tattle(crash);
    take_memory(round, 1);
    round->after = run_tattle(flat);
    /* The run with a crash first is weighed against a crash alone of the
     * same rank (not the first, which loads what symbolizing needs). */
    round->crash_again = run_tattle(crash);
    round->crash_then_flat = run_tattle(crash_then_flat);
    for (int i = 0; i < LATER_CRASHES; i++)
        run_tattle(crash);
    take_memory(round, 2);
}

/* `crash_seconds`: how long the spin lasts, what the last round's crash
 * took. */
static bool crash_round(struct crash_round *round, double crash_seconds)
{
    int ends[2];
    if (pipe(ends) != 0)
        return false;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(ends[0]);
        struct crash_round taken = {0};
        crash_round_in_child(&taken, crash_seconds);
        bool sent = write(ends[1], &taken, sizeof taken) == sizeof taken;
        _exit(sent ? 0 : 1);
    }
    close(ends[1]);
    bool got = pid > 0 && read(ends[0], round, sizeof *round) == sizeof *round;
    close(ends[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return got;
}

static double median_of(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return values[count / 2];
}

static void bench_after_crash(void)
{
    struct crash_round rounds[CRASH_ROUNDS];
    size_t taken = 0;
    double crash_seconds = 0.05; /* then what the last round's took */
    for (size_t i = 0; i < CRASH_ROUNDS; i++)
        if (crash_round(&rounds[taken], crash_seconds))
            crash_seconds = rounds[taken++].crash.seconds;
    if (taken == 0) {
        printf("runner after a crash: no round completed\n");
        return;
    }
    double before_us[CRASH_ROUNDS], after_us[CRASH_ROUNDS];
    double wall_ratio[CRASH_ROUNDS], cpu_ratio[CRASH_ROUNDS];
    double spin_wall_ratio[CRASH_ROUNDS], spin_cpu_ratio[CRASH_ROUNDS];
    double in_run_ratio[CRASH_ROUNDS], before_cpu[CRASH_ROUNDS];
    double after_cpu[CRASH_ROUNDS], before_faults[CRASH_ROUNDS];
    double after_faults[CRASH_ROUNDS], memory[6][CRASH_ROUNDS];
    for (size_t i = 0; i < taken; i++) {
        const struct crash_round *r = &rounds[i];
        before_us[i] = r->before.seconds * 1e6 / FLAT_TESTS;
        after_us[i] = r->after.seconds * 1e6 / FLAT_TESTS;
        before_cpu[i] = r->before.cpu_seconds * 1e6 / FLAT_TESTS;
        after_cpu[i] = r->after.cpu_seconds * 1e6 / FLAT_TESTS;
        before_faults[i] = r->before.faults / FLAT_TESTS;
        after_faults[i] = r->after.faults / FLAT_TESTS;
        wall_ratio[i] = r->after.seconds / r->before.seconds;
        cpu_ratio[i] = r->after.cpu_seconds / r->before.cpu_seconds;
        spin_wall_ratio[i] = r->after_spin.seconds / r->before.seconds;
        spin_cpu_ratio[i] = r->after_spin.cpu_seconds / r->before.cpu_seconds;
        in_run_ratio[i] =
            (r->crash_then_flat.seconds - r->crash_again.seconds) /
            r->before.seconds;
        for (int when = 0; when < 3; when++) {
            memory[when][i] = (double)r->rss_kb[when];
            memory[3 + when][i] = (double)r->anonymous_kb[when];
        }
    }
    printf("runner after a crash, %d trivial tests -j1, medians of %zu rounds "
           "(each in a process of its own):\n",
           FLAT_TESTS, taken);
    printf("  before a crash  %.1f us per test, %.1f us CPU, %.1f faults\n",
           median_of(before_us, taken), median_of(before_cpu, taken),
           median_of(before_faults, taken));
    printf("  after it        %.1f us per test, %.1f us CPU, %.1f faults; "
           "%.2fx the CPU before it, %.2fx the wall time; after as long a "
           "spin of a forked process, with no crash, %.2fx and %.2fx "
           "(target: the same)\n",
           median_of(after_us, taken), median_of(after_cpu, taken),
           median_of(after_faults, taken), median_of(cpu_ratio, taken),
           median_of(wall_ratio, taken), median_of(spin_cpu_ratio, taken),
           median_of(spin_wall_ratio, taken));
    printf("  in a run whose first test crashed: %.2fx the wall time before "
           "a crash (the crash alone %.1f ms)\n",
           median_of(in_run_ratio, taken), rounds[0].crash_again.seconds * 1e3);
    printf("runner resident memory: %.0f kB before a crash, %.0f kB after "
           "it, %.0f kB after %d more; anonymous (what a fork copies) %.0f, "
           "%.0f and %.0f kB\n",
           median_of(memory[0], taken), median_of(memory[1], taken),
           median_of(memory[2], taken), LATER_CRASHES,
           median_of(memory[3], taken), median_of(memory[4], taken),
           median_of(memory[5], taken));
}

int main(int argc, char **argv)
{
    bool only_crash = argc > 1 && strcmp(argv[1], "--crash") == 0;
    bool only_stacks = argc > 1 && strcmp(argv[1], "--stacks") == 0;
    /* The crash rounds first: each is forked from this process, which
     * must not have symbolized anything yet (the stacks figure does). */
    if (!only_stacks)
        bench_after_crash();
    if (!only_crash)
        bench_stacks();
    return 0;
}
