/*
 * clock.h — the flight recorder's timestamps.
 *
 * Every recorded event carries a tick count read on the hot path, so the
 * read must be as cheap as the machine allows: the time-stamp counter on
 * x86-64 (invariant TSC, synchronized across cores, about 10 ns), and
 * CLOCK_MONOTONIC through the vDSO elsewhere. Ticks are only compared with
 * each other while recording; the runner converts them to microseconds at
 * freeze time with a calibration taken against CLOCK_MONOTONIC over the
 * whole run, so the test process never pays for a conversion.
 */
#ifndef TATTLE_TRACER_CLOCK_H
#define TATTLE_TRACER_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TATTLE__CLOCK_TSC 1
#else
#define TATTLE__CLOCK_TSC 0
#endif

/** Reads the tick counter: cheap, monotonic, comparable across threads and
 * processes of the machine. Async-signal-safe. */
static inline uint64_t tattle__clock_ticks(void)
{
#if TATTLE__CLOCK_TSC
    return __rdtsc();
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
#endif
}

/** Reads CLOCK_MONOTONIC in nanoseconds. */
uint64_t tattle__clock_monotonic_ns(void);

/** Notes a (ticks, nanoseconds) anchor for later calibration; the first call
 * of the process wins, so the calibration interval grows with the run. */
void tattle__clock_anchor(void);

/** Converts a tick interval to nanoseconds, calibrating against
 * CLOCK_MONOTONIC since the anchor (at least about a millisecond is waited
 * for on the first call when the anchor is too recent to be precise). */
uint64_t tattle__clock_ticks_to_ns(uint64_t ticks);

#endif /* TATTLE_TRACER_CLOCK_H */
