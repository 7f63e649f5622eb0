/*
 * clock.c — calibration of the flight recorder's ticks.
 *
 * The test process only reads ticks (see clock.h). The runner, which
 * outlives every test, anchors a (ticks, CLOCK_MONOTONIC) pair when the
 * first trace session is created and, at each freeze, derives the tick
 * rate from the interval since that anchor. The interval grows with the
 * run, so the rate gets more precise test after test; when it is still
 * shorter than a millisecond the first conversion waits that long once.
 */
#include "tracer/clock.h"

static uint64_t anchor_ticks;
static uint64_t anchor_ns;
static double ns_per_tick;
static uint64_t calibrated_at_ns;

uint64_t tattle__clock_monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void tattle__clock_anchor(void)
{
    if (anchor_ns != 0)
        return;
    anchor_ns = tattle__clock_monotonic_ns();
    anchor_ticks = tattle__clock_ticks();
}

static void calibrate(void)
{
#if TATTLE__CLOCK_TSC
    enum { MIN_INTERVAL_NS = 1000000 };
    uint64_t now_ns = tattle__clock_monotonic_ns();
    /* Recalibrate at most when the interval has doubled: cheap and
     * converging. */
    if (ns_per_tick != 0 &&
        now_ns - anchor_ns < 2 * (calibrated_at_ns - anchor_ns))
        return;
    while (now_ns - anchor_ns < MIN_INTERVAL_NS)
        now_ns = tattle__clock_monotonic_ns();
    uint64_t now_ticks = tattle__clock_ticks();
    if (now_ticks > anchor_ticks)
        ns_per_tick =
            (double)(now_ns - anchor_ns) / (double)(now_ticks - anchor_ticks);
    else
        ns_per_tick = 1.0;
    calibrated_at_ns = now_ns;
#else
    ns_per_tick = 1.0;
#endif
}

uint64_t tattle__clock_ticks_to_ns(uint64_t ticks)
{
    tattle__clock_anchor();
    calibrate();
    return (uint64_t)((double)ticks * ns_per_tick);
}
