/*
 * deaths.h — recording how a traced test's processes died (deaths.c): the
 * wait family collects the status, and the test's end looks at the
 * children it did not collect.
 */
#ifndef TATTLE_TRACER_DEATHS_H
#define TATTLE_TRACER_DEATHS_H

#include <sys/types.h>

#include "tracer/arena.h"

/** Records that the traced process `pid` was killed by `signal_number`
 * (once per process; nothing when it is not an actor of the current
 * arena). Async-signal-safe. */
void tattle__deaths_record(pid_t pid, int signal_number);

/** Test process, at its end: records the deaths of its children that were
 * killed by a signal and not collected, without collecting them. */
void tattle__deaths_note_unreaped(const struct tattle_trace_arena *arena);

#endif
