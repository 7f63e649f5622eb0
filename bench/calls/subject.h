/*
 * subject.h — the empty leaf bench/calls calls, instrumented and plain
 * (bench/calls/subject.c).
 */
#ifndef TATTLE_BENCH_CALLS_SUBJECT_H
#define TATTLE_BENCH_CALLS_SUBJECT_H

void calls_bench_leaf(void);
void calls_bench_plain_leaf(void);

#endif /* TATTLE_BENCH_CALLS_SUBJECT_H */
