/*
 * measure.h — what the benchmark programs share to take their figures: a
 * monotonic clock in seconds and in nanoseconds, the cost of a child
 * process (its wall time, peak RSS and exit status, from wait4's rusage),
 * stdout and stderr silenced while tattle_main() runs in the benchmark's
 * own process, and the small recorded trace the report benchmarks attach to
 * each failing result. Header-only: each benchmark is one program and links
 * nothing of its own beside libtattle.
 */
#ifndef TATTLE_BENCH_MEASURE_H
#define TATTLE_BENCH_MEASURE_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/reporter.h>

/* CLOCK_MONOTONIC, in seconds. */
static inline double bench_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* CLOCK_MONOTONIC, in nanoseconds. */
static inline double bench_nanoseconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

/* A child's wall time since `started` (bench_seconds), its peak RSS in
 * KiB and its exit status (128 when it did not exit). */
struct bench_child_cost {
    double seconds;
    long peak_kb;
    int status;
};

/* Waits for child `pid`, forked at `started`, and says what it cost. */
static inline struct bench_child_cost bench_wait_child(pid_t pid,
                                                       double started)
{
    struct rusage usage = {0};
    int status = 0;
    wait4(pid, &status, 0, &usage);
    return (struct bench_child_cost){
        .seconds = bench_seconds() - started,
        .peak_kb = usage.ru_maxrss,
        .status = WIFEXITED(status) ? WEXITSTATUS(status) : 128};
}

/* Where stdout and stderr pointed before bench_silence(). */
struct bench_silenced {
    int out, err;
};

/* Sends stdout and stderr to /dev/null until bench_restore(). */
static inline struct bench_silenced bench_silence(void)
{
    fflush(stdout);
    fflush(stderr);
    struct bench_silenced saved = {dup(1), dup(2)};
    int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    close(null_fd);
    return saved;
}

static inline void bench_restore(struct bench_silenced saved)
{
    fflush(stdout);
    fflush(stderr);
    dup2(saved.out, 1);
    dup2(saved.err, 2);
    close(saved.out);
    close(saved.err);
}

enum { BENCH_TRACE_EVENTS = 10 };

/* The trace a failing result carries in the report benchmarks: a producer
 * and a consumer trading BENCH_TRACE_EVENTS items, stored in the caller's
 * `events` and `payloads`. */
static inline struct tattle_trace
bench_small_trace(struct tattle_trace_event events[BENCH_TRACE_EVENTS],
                  char payloads[BENCH_TRACE_EVENTS][32])
{
    for (unsigned e = 0; e < BENCH_TRACE_EVENTS; e++) {
        snprintf(payloads[e], 32, "{seq=%u}", e);
        events[e] = (struct tattle_trace_event){
            .seq = e + 1,
            .t_us = 10u * e,
            .kind = e % 2 ? TATTLE_TRACE_RECV : TATTLE_TRACE_SEND,
            .from = "producer",
            .to = "consumer",
            .label = "item",
            .msg = payloads[e],
            .size = 16};
    }
    return (struct tattle_trace){.cap = 50,
                                 .budget = 5000,
                                 .level = 100,
                                 .recorded = BENCH_TRACE_EVENTS,
                                 .events = events,
                                 .event_count = BENCH_TRACE_EVENTS};
}

#endif
