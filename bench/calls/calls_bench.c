/*
 * calls_bench.c — what call tracing costs: the hooks of an instrumented
 * function traced (ns per entry+exit pair) and untraced (ns per call),
 * from tattle_trace_overhead(), and a whole call of an empty function
 * compiled by tattle_instrument(), traced and untraced, over the same
 * call compiled without hooks. The baselines are measured in the same
 * run: empty hooks called the same way, the recorder's clock (a traced
 * pair reads it twice: its floor) and, when uftrace is installed, what
 * `uftrace record` adds to a call of the same function compiled with -pg
 * (its published figure, about 100 ns per call, otherwise).
 *
 *     calls_bench [CALLS]
 */
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tattle/trace.h>

#include "bench/calls/batch_median.h"
#include "bench/calls/subject.h"
#include "tracer/clock.h"
#include "tracer/session.h"

extern char **environ;

/* Hooks that do nothing, called as the compiler calls the real ones. */
/* GCC could still see through a noinline function's body; clang has no
 * noipa and drops calls of an empty one, which the empty asm keeps. */
#if defined(__clang__)
#define BENCH_OPAQUE __attribute__((noinline))
#else
#define BENCH_OPAQUE __attribute__((noinline, noipa))
#endif

BENCH_OPAQUE static void empty_enter(void *function, void *site)
{
    (void)function;
    (void)site;
    __asm__ volatile("");
}

BENCH_OPAQUE static void empty_exit(void *function, void *site)
{
    (void)function;
    (void)site;
    __asm__ volatile("");
}

struct baselines {
    double empty_hook_ns; /* per call of an empty hook */
    double clock_ns;      /* per read of the recorder's clock */
};

/* The empty hooks and the recorder's clock: each traced call reads it
 * once, so two reads are the floor of a traced pair. */
static struct baselines measure_baselines(struct batch_samples samples)
{
    struct baselines result = {0};
    void *function = (void *)(uintptr_t)&empty_enter;
    void *site = (void *)(uintptr_t)&measure_baselines;
    double pair_ns = 0;
    BATCH_MEDIAN_NS(pair_ns, samples, empty_enter(function, site);
                    empty_exit(function, site));
    result.empty_hook_ns = pair_ns / 2;
    volatile uint64_t sink = 0;
    BATCH_MEDIAN_NS(result.clock_ns, samples, sink = tattle__clock_ticks());
    (void)sink;
    return result;
}

/* A whole call of the empty leaf: compiled without hooks, and compiled
 * by tattle_instrument() outside and inside a call-traced session. */
struct whole_call {
    double plain_ns;
    double untraced_ns;
    double traced_ns;
};

static struct whole_call measure_whole_call(struct batch_samples samples)
{
    struct whole_call result = {0};
    BATCH_MEDIAN_NS(result.plain_ns, samples, calls_bench_plain_leaf());
    BATCH_MEDIAN_NS(result.untraced_ns, samples, calls_bench_leaf());
    struct tattle__trace_config config = TATTLE__TRACE_CONFIG_DEFAULT;
    config.call_cap = 4096;
    struct tattle__trace_session *session = NULL;
    if (tattle__trace_session_create(&session, &config) != 0)
        return result;
    tattle__trace_session_activate(session);
    BATCH_MEDIAN_NS(result.traced_ns, samples, calls_bench_leaf());
    tattle__trace_session_destroy(session);
    return result;
}

/* Runs the uftrace subject with `calls` calls, under `uftrace record`
 * when `traced`, and returns the ns per call it printed, or -1. */
static double run_uftrace_subject(unsigned calls, int traced)
{
    char count[16];
    snprintf(count, sizeof count, "%u", calls);
    char directory[] = "/tmp/calls_bench_uftrace_XXXXXX";
    if (traced && mkdtemp(directory) == NULL)
        return -1;
    char *plain[] = {CALLS_BENCH_UFTRACE_SUBJECT, count, NULL};
    char *under[] = {"uftrace", "record",  "--no-libcall",
                     "-d",      directory, CALLS_BENCH_UFTRACE_SUBJECT,
                     count,     NULL};
    int out[2];
    if (pipe(out) != 0)
        return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    pid_t pid = 0;
    char **argv = traced ? under : plain;
    int error = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    char text[64] = "";
    size_t length = 0;
    ssize_t got = 0;
    while (error == 0 && length < sizeof text - 1 &&
           (got = read(out[0], text + length, sizeof text - 1 - length)) > 0)
        length += (size_t)got;
    text[length] = '\0';
    close(out[0]);
    int status = 1;
    if (error == 0)
        waitpid(pid, &status, 0);
    if (traced) {
        char remove[sizeof directory + 16];
        snprintf(remove, sizeof remove, "rm -rf %s", directory);
        if (system(remove) != 0)
            fprintf(stderr, "calls_bench: could not remove %s\n", directory);
    }
    if (error != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return strtod(text, NULL);
}

int main(int argc, char **argv)
{
    unsigned calls = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000;
    if (calls < BATCH)
        calls = BATCH;
    calls = calls / BATCH * BATCH;
    struct batch_samples samples = batch_samples_make(calls);
    struct baselines baselines = measure_baselines(samples);
    struct whole_call whole = measure_whole_call(samples);
    batch_samples_free(&samples);
    struct tattle_trace_overhead cost = tattle_trace_overhead(calls);
    if (cost.enter_ns == 0 && cost.exit_ns == 0) {
        perror("tattle_trace_overhead");
        return 1;
    }
    double uftrace_plain_ns = run_uftrace_subject(calls / 10, 0);
    double uftrace_traced_ns =
        uftrace_plain_ns >= 0 ? run_uftrace_subject(calls / 10, 1) : -1;
    double pair_ns = cost.enter_ns + cost.exit_ns;
    double floor_ns = 2 * baselines.clock_ns;
    printf("calls: %u calls of each hook, median batch of %d\n", calls, BATCH);
    printf("  traced:   %.1f ns per enter+exit pair (enter %.1f, exit %.1f;"
           " target <= 25)\n",
           pair_ns, cost.enter_ns, cost.exit_ns);
    printf("  untraced: %.2f ns per call (target <= 3)\n", cost.untraced_ns);
    printf("  whole call of an instrumented empty function, over the same"
           " call without hooks (%.2f ns):\n"
           "            traced %.1f ns, untraced %.2f ns\n",
           whole.plain_ns, whole.traced_ns - whole.plain_ns,
           whole.untraced_ns - whole.plain_ns);
    printf("  baseline: %.2f ns per call of an empty hook, same run\n",
           baselines.empty_hook_ns);
    printf("  clock:    %.1f ns per read of the recorder's clock (one per"
           " traced call), same run\n",
           baselines.clock_ns);
    printf("  floor:    two timestamps = %.1f ns per traced pair; the hooks"
           " add %.1f ns above it\n",
           floor_ns, pair_ns - floor_ns);
    if (uftrace_traced_ns >= 0)
        printf("  uftrace:  %.1f ns per traced call (uftrace record"
               " --no-libcall, -pg, %u calls), same run\n",
               uftrace_traced_ns - uftrace_plain_ns, calls / 10);
    else
        printf("  anchor:   uftrace, about 100 ns per traced call (its"
               " published figure; not installed here)\n");
    return 0;
}
