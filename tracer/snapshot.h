/*
 * snapshot.h — reading a test's mailboxes and actors from its arena.
 *
 * Runs in the runner, either while the test's processes are still alive
 * (a timeout: the snapshot is approximate) or after they are gone. The
 * arena is treated as untrusted input: every count, index and offset read
 * from it is bounded before use, and nothing in it is ever locked or
 * written, except the liveness bits of the actors table.
 */
#ifndef TATTLE_TRACER_SNAPSHOT_H
#define TATTLE_TRACER_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer/arena.h"

/** One mailbox (or watched queue) as read; strings are malloc'd. */
struct tattle__snapshot_mailbox {
    char *name;
    int32_t owner; /* actor index, or -1 */
    bool approx;
    uint64_t pending;
    char **messages; /* rendered, oldest first */
    size_t message_count;
};

struct tattle__snapshot {
    struct tattle__snapshot_mailbox *mailboxes;
    size_t count;
};

/** Reads every open mailbox and watched queue of the arena, through the
 * runner's own `layout` (never the header's), keeping at most layout->cap
 * messages of each, each rendered to at most layout->payload_bytes bytes.
 * `live` marks all of them approximate. Returns 0 or -ENOMEM (the snapshot
 * then holds what was read). Free with tattle__snapshot_clear(). */
int tattle__snapshot_take(struct tattle__snapshot *snapshot,
                          struct tattle_trace_arena *arena,
                          const struct tattle__arena_layout *layout, bool live);

void tattle__snapshot_clear(struct tattle__snapshot *snapshot);

/** Renders a payload as text into `out` (NUL-terminated, at most
 * `out_size` bytes): well-formed UTF-8 without control characters (tab,
 * newline and carriage return allowed) as it is, without the one NUL that
 * may end a C string; anything else as "hex:" followed by all the bytes in
 * hexadecimal. `truncated` says the payload was cut from a longer message:
 * a character it cut in half is then left out rather than making the text
 * binary. Returns the text length. */
size_t tattle__snapshot_render(const unsigned char *data, size_t length,
                               bool text, bool truncated, char *out,
                               size_t out_size);

/** Probes whether a thread is alive (not gone, not a zombie), with
 * async-signal-safe calls only. */
bool tattle__snapshot_probe_alive(int pid, int tid);

/** Records in the actors table which actors are alive now (async-signal-
 * safe). */
void tattle__snapshot_probe_actors(struct tattle_trace_arena *arena);

/** Whether the actor's process ended through a normal path (exit, or the
 * end of the test), as far as the arena tells. */
bool tattle__snapshot_actor_ended_cleanly(
    const struct tattle_trace_arena *arena, int32_t actor);

#endif /* TATTLE_TRACER_SNAPSHOT_H */
