/*
 * calls.h — one actor's call area: its shadow stack and its ring of call
 * records, written by the function hooks of a `trace_calls` test.
 *
 * Only the actor's own thread writes its area. The shadow stack holds the
 * function and call site of each call the thread is inside, outermost
 * first, up to TATTLE__CALL_DEPTH_MAX; `depth` is the true depth (deeper
 * calls are counted, never stored past the end). An enter writes its
 * frame before publishing the deeper depth with release order, so a reader
 * that loads `depth` with acquire order reads whole frames below it. The
 * ring keeps the last `call_cap` enter and exit records with the message
 * rings' seqlock (tracer/ring.h): the commit word is cleared, the record
 * filled, then the record's number + 1 stored with release order; a
 * reader keeps a record only when that word is non-zero, names the slot
 * the record belongs in, and is unchanged across its copy, so a thread
 * killed mid-record tears at most that record and it is never reported.
 *
 * A hook is not reentrant: a signal handler that makes instrumented calls
 * while its thread is inside one would rewind the ring's count or write
 * over the frame about to be published. Such calls (a handler's enter and
 * its exit alike, so the stack stays balanced) are counted in `lost`
 * instead of recorded.
 */
#ifndef TATTLE_TRACER_CALLS_H
#define TATTLE_TRACER_CALLS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer/arena.h"

enum {
    TATTLE__CALL_DEPTH_MAX = 64, /* shadow stack frames stored per thread */
    TATTLE__CALL_CAP_DEFAULT = 1000,
    TATTLE__CALL_CAP_MAX = 1000000
};

enum tattle__call_record_kind { TATTLE__CALL_ENTER = 1, TATTLE__CALL_EXIT = 2 };

struct tattle__call_frame {
    uint64_t function; /* the called function's entry, as the test saw it */
    uint64_t site;     /* where it was called from */
};

struct tattle__call_record {
    _Atomic uint64_t commit; /* 0 while being written, else number + 1 */
    uint64_t ticks;
    uint64_t function;
    uint64_t site;
    uint32_t depth; /* calls the thread was inside before this one */
    uint32_t kind;  /* enum tattle__call_record_kind */
};

struct tattle__call_area {
    _Atomic uint64_t written; /* records committed (the owner writes) */
    _Atomic uint32_t depth;   /* the true depth of the shadow stack */
    uint32_t actor;           /* index in the actors table */
    _Atomic uint64_t lost;    /* calls dropped: made inside a hook */
    uint64_t pad_[5];         /* the stack starts on its own cache line */
    struct tattle__call_frame stack[TATTLE__CALL_DEPTH_MAX];
    /* then call_cap records */
};

/** Record `index` of a call area. */
static inline struct tattle__call_record *
tattle__call_record_at(struct tattle__call_area *area, uint64_t index)
{
    return (struct tattle__call_record *)(area + 1) + index;
}

/** The call area of actor `index` (the runner passes its own layout's
 * offsets, the test process its header's). */
static inline struct tattle__call_area *
tattle__call_area_at(struct tattle_trace_arena *arena, uint64_t calls_offset,
                     uint64_t area_bytes, uint32_t index)
{
    return (struct tattle__call_area *)tattle__arena_at(
        arena, calls_offset + (uint64_t)index * area_bytes);
}

#endif /* TATTLE_TRACER_CALLS_H */
