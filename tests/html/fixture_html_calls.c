/*
 * fixture_html_calls.c — a `trace_calls` test whose thread names itself
 * with markup and invalid UTF-8, for test_html.py: the name comes through
 * the tracer, the runner and the report to the HTML flame graph, where the
 * frame of the thread must show it as text (U+FFFD for each ill-formed
 * byte), never as an element. Compiled with tattle_instrument(), so its
 * own functions are the frames under the thread: outer() calls inner(),
 * a caller and a callee to zoom between, and inner() busy-waits 2 ms on
 * the monotonic clock so both are wide enough to be drawn.
 */
#include <stdint.h>
#include <time.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

/* Two ill-formed bytes, then an element that would run script if the
 * page wrote it raw; 29 bytes, inside the tracer's bound on a name. */
#define HOSTILE_ACTOR "\xfe\xff<img src=x onerror=pwned=3>"

/* The microseconds of the monotonic clock. */
__attribute__((no_instrument_function)) static uint64_t now_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

__attribute__((noinline)) static void inner(void)
{
    uint64_t until = now_us() + 2000;
    while (now_us() < until) {
    }
}

__attribute__((noinline)) static void outer(void)
{
    inner();
}

TEST(html_calls, hostile_thread, .tags = "trace_calls")
{
    tattle_actor_name(HOSTILE_ACTOR);
    outer();
}
