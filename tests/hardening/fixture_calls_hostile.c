/*
 * fixture_calls_hostile.c — `trace_calls` tests that write over their own
 * call areas (shadow stacks and call rings) in the trace arena, for
 * tests/hardening/test_calls_hostile.py.
 *
 * scribbled/calls makes known calls, then overwrites every call area of
 * its arena as HOSTILE_CALLS says, then makes more calls:
 *   ff        every byte 0xff
 *   zeros     every byte 0
 *   random:N  bytes from a generator seeded with N
 *   forged    records that look whole (their commit word names their
 *             slot, a known kind, a plausible depth) but call an address
 *             in no module, and a shadow stack of such calls
 *   count     only each ring's count of records, made larger than any
 *             test could make
 * With HOSTILE_THEN=die the test kills itself right after the damage, so
 * that no honest record written after it repairs a count or a depth.
 * scribbled/next, run after it, makes known calls of its own: its trace
 * must be whole and its own.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

#include "tracer/calls.h"

static volatile int sink;

__attribute__((noinline)) static void leaf(int value)
{
    sink = value;
}

__attribute__((noinline)) static void branch(int value)
{
    leaf(value);
    leaf(value + 1);
}

/* Deterministic bytes for random:N (xorshift). Not instrumented, like
 * nothing scribble() calls once the damage has begun: an honest record
 * written in between would repair it. */
__attribute__((no_instrument_function)) static uint64_t
next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void forge(struct tattle__call_area *area, uint32_t cap)
{
    for (uint32_t slot = 0; slot < cap; slot++) {
        struct tattle__call_record *record = tattle__call_record_at(area, slot);
        record->ticks = UINT64_MAX - slot;
        record->function = 0x10 + slot;
        record->site = 0x20;
        record->depth = 5;
        record->kind = TATTLE__CALL_ENTER;
        atomic_store(&record->commit, (uint64_t)slot + 1);
    }
    atomic_store(&area->written, cap);
    for (int i = 0; i < TATTLE__CALL_DEPTH_MAX; i++)
        area->stack[i] =
            (struct tattle__call_frame){.function = 0x30, .site = 0x40};
    atomic_store(&area->depth, 40);
}

/* Overwrites every call area of the arena; returns 0, or -1 for an
 * unknown HOSTILE_CALLS. */
static int scribble(const char *how)
{
    struct tattle_trace_arena *arena = tattle_trace_current;
    if (arena == NULL || arena->call_cap == 0)
        return -1;
    uint64_t state = 88172645463325252u;
    if (strncmp(how, "random:", 7) == 0)
        state += strtoull(how + 7, NULL, 10);
    struct tattle__call_area *areas[TATTLE__MAX_ACTORS];
    for (uint32_t i = 0; i < TATTLE__MAX_ACTORS; i++)
        areas[i] = tattle__call_area_at(arena, arena->calls_offset,
                                        arena->call_area_bytes, i);
    for (uint32_t i = 0; i < TATTLE__MAX_ACTORS; i++) {
        struct tattle__call_area *area = areas[i];
        unsigned char *bytes = (unsigned char *)area;
        if (strcmp(how, "ff") == 0)
            memset(bytes, 0xff, arena->call_area_bytes);
        else if (strcmp(how, "zeros") == 0)
            memset(bytes, 0, arena->call_area_bytes);
        else if (strncmp(how, "random:", 7) == 0)
            for (uint32_t b = 0; b < arena->call_area_bytes; b++)
                bytes[b] = (unsigned char)next_random(&state);
        else if (strcmp(how, "forged") == 0)
            forge(area, arena->call_cap);
        else if (strcmp(how, "count") == 0)
            atomic_store(&area->written, UINT64_MAX / 2);
        else
            return -1;
    }
    const char *then = getenv("HOSTILE_THEN");
    if (then && strcmp(then, "die") == 0)
        raise(SIGKILL);
    return 0;
}

TEST(scribbled, calls, .tags = "trace_calls:16")
{
    branch(1);
    const char *how = getenv("HOSTILE_CALLS");
    ASSERT(how != NULL && scribble(how) == 0, "unknown HOSTILE_CALLS %s",
           how ? how : "(unset)");
    branch(2);
}

TEST(scribbled, next, .tags = "trace_calls:16")
{
    leaf(3);
}
