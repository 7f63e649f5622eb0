/*
 * recorder.h — the test process's side of the flight recorder.
 *
 * Holds the process-wide switch (the arena the process records into, NULL
 * when the test is not traced), each thread's attachment to its ring, and
 * the fork and thread-exit hooks that keep actors and rings apart. The
 * public recording functions of trace.h live in recorder.c; the mailbox
 * module records through tattle__recorder_record().
 */
#ifndef TATTLE_TRACER_RECORDER_H
#define TATTLE_TRACER_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tattle/call_hooks.h>
#include <tattle/trace.h>

#include "base/utf8.h"
#include "tracer/arena.h"
#include "tracer/ring.h"

/** Runner, before forking a traced test: does the once-per-process setup
 * (the fork and thread-exit hooks, the program's read-only range) so the
 * test process inherits it instead of paying for it. */
void tattle__recorder_prepare(void);

/** Test process: starts recording into `arena` (installs the fork and
 * thread-exit hooks once per process, names the calling thread "main"). */
void tattle__recorder_activate(struct tattle_trace_arena *arena);

/** A process started with exec from a traced test (the preload library,
 * tracer/exec/preload.c): records into the test's `arena` from now on as
 * a new actor named `name`, its parent unknown, with a `spawn` event;
 * strings are always copied (its read-only data is not the runner's). */
void tattle__recorder_join(struct tattle_trace_arena *arena, const char *name);

/** Stops this process from recording into `arena` if it does (used when a
 * session is frozen in the process that recorded it, as with --no-fork). */
void tattle__recorder_forget(struct tattle_trace_arena *arena);

/** The calling thread's actor index in the current arena (attaching it if
 * needed), or -1 when not traced or the actors table is full. */
int32_t tattle__recorder_actor(void);

/** Who an event is from or to: the recording actor itself, a name (copied
 * bounded, or kept as a pointer when it is a static string), or nobody. */
struct tattle__party {
    bool self;
    const char *name; /* NULL and not self: nobody */
};

#define TATTLE__SELF ((struct tattle__party){.self = true})
#define TATTLE__NAMED(name_) ((struct tattle__party){.name = (name_)})

/** One event, as a recording call describes it. */
struct tattle__event {
    enum tattle_trace_event_kind kind;
    int level;
    struct tattle__party from, to;
    const char *label;     /* NULL: none */
    const void *payload;   /* the message's first bytes */
    size_t payload_length; /* cut to the arena's payload_bytes */
    uint64_t size;         /* the whole message's size */
    bool text;             /* the payload is rendered text */
    uint32_t endpoint;     /* captured message: the endpoint's index + 1 */
    uint64_t offset;       /* ... and where it starts in the endpoint */
    uint64_t ticks;        /* when it happened; 0: now */
};

/** Records one event from the calling thread (when the process records). */
void tattle__recorder_record(const struct tattle__event *event);

/** Gives the calling thread's unused budget back to the arena, so other
 * actors can record it (async-signal-safe). */
void tattle__recorder_release_budget(void);

/** Child process made without fork handlers (_Fork, a fork or clone
 * system call), found out by the capture: gives its calling thread an
 * actor and ring of its own, as the fork handler would have, without
 * recording its exit (async-signal-safe). */
void tattle__recorder_forked_unseen(void);

/** Test process started from a handed-over arena: starts capturing the
 * messages its processes exchange through the kernel when the arena asks
 * for it (tracer/test_process/ipc.c). */
void tattle__ipc_start(struct tattle_trace_arena *arena);

/** A process started with exec from a traced test: starts capturing like
 * tattle__ipc_start, but never through the objects whose keys the test
 * process excluded (`count` keys, from tattle__ipc_excluded_keys). */
void tattle__ipc_join(struct tattle_trace_arena *arena,
                      const uint64_t *excluded_keys, size_t count);

/** Copies the keys of the objects this process never records through (its
 * runner's stdout and stderr pipes, ...) into `keys`; returns how many. */
size_t tattle__ipc_excluded_keys(uint64_t *keys, size_t capacity);

/** Never records messages through the object `fd` refers to (a pipe or
 * socket of tattle's own that the test's code may write to, as a death
 * check's child does to its stderr), by any descriptor of it. */
void tattle__ipc_exclude(int fd);

/** Forked child: the descriptor cache of the capture is this process's
 * now (a vfork child, which runs no fork handler, only borrows it; a
 * child made without fork handlers takes it at its first call that asks,
 * tracer/test_process/ipc.c). */
void tattle__ipc_forked(void);

/** The test process at its end or in its crash handler: writes what the
 * kernel still holds in every captured endpoint it has a descriptor of
 * into the arena, without consuming it (tracer/peek.h); nothing when it
 * does not capture. Async-signal-safe. */
void tattle__ipc_peek_pending(void);

/** Stops capturing in this process (benchmarks, in-process sessions). */
void tattle__ipc_stop(void);

/** Benchmarks: exchanges the real write and read the interposed ones call
 * with *write_fn and *read_fn (which get the previous ones), to measure
 * the interposer without the kernel's noise. */
void tattle__ipc_swap_io(ssize_t (**write_fn)(int, const void *, size_t),
                         ssize_t (**read_fn)(int, void *, size_t));

/** The calling thread's shadow stack depth when it records calls, else
 * 0: what a setjmp point saves to unwind to (tattle__calls_unwind). */
uint32_t tattle__calls_depth(void);

/** After a longjmp out of instrumented calls (a fatal assertion leaving
 * its phase): pops the calling thread's shadow stack down to `depth`,
 * recording an exit, innermost first, for each call left. No lock, no
 * malloc; a no-op when the thread records no calls. */
void tattle__calls_unwind(uint32_t depth);

#endif /* TATTLE_TRACER_RECORDER_H */
