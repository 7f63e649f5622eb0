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

enum { BATCH = 32 };

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

/* The median of `batches` timings, in ns, of BATCH runs of `statement`
 * between two clock reads, less the median of the clock reads alone: how
 * tracer/overhead.c times tattle's hooks, so the figures compare. */
#define MEDIAN_BATCH_NS(result, batches, statement)                            \
    do {                                                                       \
        for (unsigned batch_ = 0; batch_ < (batches); batch_++) {              \
            double start_ = bench_nanoseconds();                               \
            for (int i_ = 0; i_ < BATCH; i_++) {                               \
                statement;                                                     \
            }                                                                  \
            double end_ = bench_nanoseconds();                                 \
            batch_ns[batch_] = end_ - start_;                                  \
            clock_ns[batch_] = bench_nanoseconds() - end_;                     \
        }                                                                      \
        (result) = median(batch_ns, (batches)) - median(clock_ns, (batches));  \
    } while (0)

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, unsigned count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return values[count / 2];
}

struct baselines {
    double empty_hook_ns; /* per call of an empty hook */
    double clock_ns;      /* per read of the recorder's clock */
};

/* The empty hooks (in a nest 32 deep, as tattle's are timed) and the
 * recorder's clock: each traced call reads it once, so two reads are the
 * floor of a traced pair. */
static struct baselines measure_baselines(unsigned calls)
{
    unsigned batches = calls / BATCH;
    double *batch_ns = malloc(batches * sizeof *batch_ns);
    double *clock_ns = malloc(batches * sizeof *clock_ns);
    struct baselines result = {0};
    if (batch_ns == NULL || clock_ns == NULL) {
        perror("calls_bench");
        exit(1);
    }
    void *function = (void *)(uintptr_t)&empty_enter;
    void *site = (void *)(uintptr_t)&measure_baselines;
    double pairs = 0;
    MEDIAN_BATCH_NS(pairs, batches, empty_enter(function, site);
                    empty_exit(function, site));
    result.empty_hook_ns = pairs / (2.0 * BATCH);
    volatile uint64_t sink = 0;
    double reads = 0;
    MEDIAN_BATCH_NS(reads, batches, sink = tattle__clock_ticks());
    (void)sink;
    result.clock_ns = reads / BATCH;
    free(batch_ns);
    free(clock_ns);
    return result;
}

int main(int argc, char **argv)
{
    unsigned calls = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000;
    if (calls < BATCH)
        calls = BATCH;
    calls = calls / BATCH * BATCH;
    struct baselines baselines = measure_baselines(calls);
    struct tattle_trace_overhead cost = tattle_trace_overhead(calls);
    if (cost.enter_ns == 0 && cost.exit_ns == 0) {
        perror("tattle_trace_overhead");
        return 1;
    }
    double pair_ns = cost.enter_ns + cost.exit_ns;
    double floor_ns = 2 * baselines.clock_ns;
    printf("calls: %u calls of each hook, median batch of %d\n", calls, BATCH);
    printf("  traced:   %.1f ns per enter+exit pair (enter %.1f, exit %.1f;"
           " target <= 25)\n",
           pair_ns, cost.enter_ns, cost.exit_ns);
    printf("  untraced: %.2f ns per call (target <= 3)\n", cost.untraced_ns);
    printf("  baseline: %.2f ns per call of an empty hook, same run\n",
           baselines.empty_hook_ns);
    printf("  clock:    %.1f ns per read of the recorder's clock (one per"
           " traced call), same run\n",
           baselines.clock_ns);
    printf("  floor:    two timestamps = %.1f ns per traced pair; the hooks"
           " add %.1f ns above it\n",
           floor_ns, pair_ns - floor_ns);
    printf("  anchor:   uftrace, about 100 ns per traced call (its published"
           " figure; not measured here)\n");
    return 0;
}
