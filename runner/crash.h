/*
 * crash.h — catching a test process's fatal signals.
 *
 * In a forked test process, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
 * SIGTRAP and SIGSYS are caught on an alternate signal stack (so a stack
 * overflow is caught too); the handler records the signal and the raw
 * return addresses into the result slot, lets the tracer finish, then
 * re-raises the signal so the runner sees the real cause of death. The
 * runner symbolizes the addresses (runner/symbolize.h).
 */
#ifndef TATTLE_RUNNER_CRASH_H
#define TATTLE_RUNNER_CRASH_H

#include "runner/slot.h"

/** Runner, once before forking: loads what backtrace() needs so the
 * handler never loads anything. */
void tattle__crash_prepare(void);

/** Test process: installs the handlers, writing into `slot`. Returns 0 or
 * a negative errno. */
int tattle__crash_install(struct tattle__slot *slot, void (*on_crash)(void));

#endif /* TATTLE_RUNNER_CRASH_H */
