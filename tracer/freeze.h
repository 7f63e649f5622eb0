/*
 * freeze.h — turning a stopped arena into the trace reporters read.
 */
#ifndef TATTLE_TRACER_FREEZE_H
#define TATTLE_TRACER_FREEZE_H

#include <tattle/reporter.h>

#include "tracer/arena.h"
#include "tracer/snapshot.h"

/** Builds the trace of `arena` (the mapping of the memfd `fd`, or -1),
 * read through the runner's `layout`, with
 * `taken_live` as its mailbox snapshot (NULL: take it now). On success *out
 * is the trace (free it with tattle__trace_free) and *corruption NULL, or
 * what showed the arena was overwritten (the trace then holds no event and
 * no mailbox). Returns 0 or a negative errno. */
int tattle__freeze(struct tattle_trace_arena *arena, int fd,
                   const struct tattle__arena_layout *layout,
                   const struct tattle__snapshot *taken_live,
                   struct tattle_trace **out, const char **corruption);

/** Names the functions at `count` addresses (each a function's entry as
 * this process sees it): sets frames[i].function and .file (malloc'd; the
 * freeze frees them) and .line, or leaves them NULL and 0. */
typedef void (*tattle__call_symbolizer)(const uint64_t *addresses, size_t count,
                                        struct tattle_frame *frames);

/** The runner: how the freeze names called functions (once per distinct
 * address per test). Without one, calls carry no function names. */
void tattle__freeze_set_call_symbolizer(tattle__call_symbolizer symbolizer);

#endif /* TATTLE_TRACER_FREEZE_H */
