/*
 * child.h — what runs inside a test's process.
 *
 * tattle__child_run() runs one test: suite and test setup, the body,
 * teardowns, then the tattle_on_exit() callbacks in LIFO order, recording
 * into the test's result slot. A fatal assertion or SKIP() leaves the
 * current phase (longjmp on the test's main thread, pthread_exit on
 * another thread, _exit(1) in a process the test forked); the remaining
 * phases still run in the test's own process.
 */
#ifndef TATTLE_RUNNER_CHILD_H
#define TATTLE_RUNNER_CHILD_H

#include <stdbool.h>

#include <tattle/tattle.h>

#include "runner/registry.h"
#include "runner/slot.h"

/** Runs the test in the calling process. `forked` says whether this is a
 * forked test process (crash handlers installed, output redirected). */
void tattle__child_run(const struct tattle__test_entry *entry,
                       struct tattle__slot *slot, bool forked);

/** The slot of the test running in this process, or NULL outside a test. */
struct tattle__slot *tattle__child_slot(void);

/** Leaves the current phase after a fatal failure or a skip. */
TATTLE__NORETURN void tattle__child_leave_phase(void);

#endif /* TATTLE_RUNNER_CHILD_H */
