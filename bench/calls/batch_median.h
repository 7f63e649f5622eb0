/*
 * batch_median.h — how bench/calls times anything that costs a few
 * nanoseconds: BATCH runs of a statement between two clock reads, many
 * times, and the median batch less the median of the clock reads alone
 * (tracer/overhead.c times tattle's hooks the same way), so that on a
 * loaded machine the few batches a preemption lands in are left out.
 * Shared by calls_bench and the uftrace subject it runs.
 */
#ifndef TATTLE_BENCH_CALLS_BATCH_MEDIAN_H
#define TATTLE_BENCH_CALLS_BATCH_MEDIAN_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BATCH = 32 };

static inline double batch_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

static int batch_compare(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double batch_median(double *values, unsigned count)
{
    qsort(values, count, sizeof *values, batch_compare);
    return values[count / 2];
}

/* Where the batches' timings go: two arrays of `batches` doubles. */
struct batch_samples {
    double *batch_ns;
    double *clock_ns;
    unsigned batches;
};

static inline struct batch_samples batch_samples_make(unsigned calls)
{
    unsigned batches = calls / BATCH != 0 ? calls / BATCH : 1;
    struct batch_samples samples = {malloc(batches * sizeof(double)),
                                    malloc(batches * sizeof(double)), batches};
    if (samples.batch_ns == NULL || samples.clock_ns == NULL) {
        perror("calls_bench");
        exit(1);
    }
    return samples;
}

static inline void batch_samples_free(struct batch_samples *samples)
{
    free(samples->batch_ns);
    free(samples->clock_ns);
}

/* Sets `result` to ns per run of `statement` (see above). */
#define BATCH_MEDIAN_NS(result, samples, statement)                            \
    do {                                                                       \
        for (unsigned batch_ = 0; batch_ < (samples).batches; batch_++) {      \
            double start_ = batch_now_ns();                                    \
            for (int i_ = 0; i_ < BATCH; i_++) {                               \
                statement;                                                     \
            }                                                                  \
            double end_ = batch_now_ns();                                      \
            (samples).batch_ns[batch_] = end_ - start_;                        \
            (samples).clock_ns[batch_] = batch_now_ns() - end_;                \
        }                                                                      \
        (result) = (batch_median((samples).batch_ns, (samples).batches) -      \
                    batch_median((samples).clock_ns, (samples).batches)) /     \
                   BATCH;                                                      \
    } while (0)

#endif /* TATTLE_BENCH_CALLS_BATCH_MEDIAN_H */
