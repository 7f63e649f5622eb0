/*
 * uftrace_subject.c — the program calls_bench runs plainly and under
 * `uftrace record`: it times calls of the empty leaf of subject.c,
 * compiled with -pg, and prints ns per call; the difference between the
 * two runs is what uftrace adds to a call (its entry and exit).
 *
 *     calls_bench_uftrace_subject CALLS
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/calls/batch_median.h"
#include "bench/calls/subject.h"

int main(int argc, char **argv)
{
    unsigned calls = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 100000;
    struct batch_samples samples = batch_samples_make(calls);
    double call_ns = 0;
    BATCH_MEDIAN_NS(call_ns, samples, calls_bench_leaf());
    batch_samples_free(&samples);
    printf("%.2f\n", call_ns);
    return 0;
}
