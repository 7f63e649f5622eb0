/*
 * subject.c — the function bench/calls calls to time a whole instrumented
 * call: an empty leaf that is never inlined. calls_bench links it compiled
 * by tattle_instrument() (calls_bench_leaf: the call, tattle's entry and
 * exit hooks, traced or not) and compiled plainly (calls_bench_plain_leaf,
 * the same call without hooks); the uftrace subject links it compiled
 * with -pg (calls_bench_leaf, uftrace's hooks when run under uftrace).
 */
#include "bench/calls/subject.h"

#ifdef CALLS_BENCH_PLAIN
#define LEAF calls_bench_plain_leaf
#else
#define LEAF calls_bench_leaf
#endif

__attribute__((noinline)) void LEAF(void)
{
    __asm__ volatile("");
}
