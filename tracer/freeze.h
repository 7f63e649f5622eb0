/*
 * freeze.h — turning a stopped arena into the trace reporters read.
 */
#ifndef TATTLE_TRACER_FREEZE_H
#define TATTLE_TRACER_FREEZE_H

#include <tattle/reporter.h>

#include "tracer/arena.h"
#include "tracer/snapshot.h"

/** Builds the trace of `arena`, read through the runner's `layout`, with
 * `taken_live` as its mailbox snapshot (NULL: take it now). On success *out
 * is the trace (free it with tattle__trace_free) and *corruption NULL, or
 * what showed the arena was overwritten (the trace then holds no event and
 * no mailbox). Returns 0 or a negative errno. */
int tattle__freeze(struct tattle_trace_arena *arena,
                   const struct tattle__arena_layout *layout,
                   const struct tattle__snapshot *taken_live,
                   struct tattle_trace **out, const char **corruption);

#endif /* TATTLE_TRACER_FREEZE_H */
