/*
 * calls_bench.c — what call tracing costs: the hooks of an instrumented
 * function traced (ns per entry+exit pair) and untraced (ns per call),
 * from tattle_trace_overhead(), against the same-run baseline of empty
 * hooks called the same way, with uftrace's published cost (about 100 ns
 * per traced call) as the anchor.
 *
 *     calls_bench [CALLS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tattle/trace.h>

#include "bench/measure.h"
#include "tracer/clock.h"

enum { BATCH = 32, ROUNDS = 5 };

/* Hooks that do nothing, called as the compiler calls the real ones. */
/* GCC could still see through a noinline function's body; clang has no
 * noipa and does not look through noinline ones. */
#if defined(__clang__)
#define BENCH_OPAQUE __attribute__((noinline))
#else
#define BENCH_OPAQUE __attribute__((noinline, noipa))
#endif

BENCH_OPAQUE static void empty_enter(void *function, void *site)
{
    (void)function;
    (void)site;
}

BENCH_OPAQUE static void empty_exit(void *function, void *site)
{
    (void)function;
    (void)site;
}

/* The best ns per call of the empty hooks, in the batches tattle's are
 * timed in (tracer/overhead.c). */
static double empty_hook_ns(unsigned calls)
{
    void *function = (void *)(uintptr_t)&empty_enter;
    void *site = (void *)(uintptr_t)&empty_hook_ns;
    double best = 1e300;
    for (int round = 0; round < ROUNDS; round++) {
        double total = 0;
        for (unsigned done = 0; done < calls; done += BATCH) {
            double start = bench_nanoseconds();
            for (int i = 0; i < BATCH; i++)
                empty_enter(function, site);
            for (int i = 0; i < BATCH; i++)
                empty_exit(function, site);
            total += bench_nanoseconds() - start;
        }
        if (total < best)
            best = total;
    }
    return best / (2.0 * calls);
}

/* The best ns per read of the recorder's clock: each traced call reads it
 * once, so it bounds what a traced pair can cost from below. */
static double clock_read_ns(unsigned calls)
{
    double best = 1e300;
    volatile uint64_t sink = 0;
    for (int round = 0; round < ROUNDS; round++) {
        double start = bench_nanoseconds();
        for (unsigned i = 0; i < calls; i++)
            sink = tattle__clock_ticks();
        double total = bench_nanoseconds() - start;
        if (total < best)
            best = total;
    }
    (void)sink;
    return best / calls;
}

int main(int argc, char **argv)
{
    unsigned calls = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000;
    if (calls < BATCH)
        calls = BATCH;
    calls = calls / BATCH * BATCH;
    double baseline = empty_hook_ns(calls);
    double clock_ns = clock_read_ns(calls);
    struct tattle_trace_overhead cost = tattle_trace_overhead(calls);
    if (cost.enter_ns == 0 && cost.exit_ns == 0) {
        perror("tattle_trace_overhead");
        return 1;
    }
    printf("calls: %u calls of each hook, best of %d rounds\n", calls, ROUNDS);
    printf("  traced:   %.1f ns per enter+exit pair (enter %.1f, exit %.1f;"
           " target <= 25)\n",
           cost.enter_ns + cost.exit_ns, cost.enter_ns, cost.exit_ns);
    printf("  untraced: %.2f ns per call (target <= 3)\n", cost.untraced_ns);
    printf("  baseline: %.2f ns per call of an empty hook, same run\n",
           baseline);
    printf("  clock:    %.1f ns per read of the recorder's clock (one per"
           " traced call), same run\n",
           clock_ns);
    printf("  anchor:   uftrace, about 100 ns per traced call (its published"
           " figure; not measured here)\n");
    return 0;
}
