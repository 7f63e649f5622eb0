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

#include <sys/types.h>

#include "runner/slot.h"

/** Runner, once before the first fork: loads what backtrace() needs, then
 * installs the handlers and the alternate stack. Forked test processes
 * inherit both, so a test pays nothing for them. `on_crash` runs in the
 * crashing process after the frames are recorded. Returns 0 or a negative
 * errno. */
int tattle__crash_install(void (*on_crash)(void));

/** The test process, or the suite server before a fixture: the slot the
 * calling process (`owner`, its pid) writes its crash to, which it then
 * owns (the room kept there for crash records is its own:
 * runner/test_process/slot_write.h). */
void tattle__crash_set_slot(struct tattle__slot *slot, pid_t owner);

/** Suite server, while a fixture runs: the fixture records into a private
 * slot (`from`) that the processes it forks share; should the server
 * itself crash, the handler copies that slot's `bytes` into the job's
 * slot (`to`) once the crash is recorded, so the runner reads what the
 * fixture recorded. Only process `owner` copies: a process the fixture
 * forked has no job slot. NULL `to` stops it. */
void tattle__crash_set_mirror(const struct tattle__slot *from,
                              struct tattle__slot *to, size_t bytes,
                              pid_t owner);

/** Runner, after the last test: restores the previous signal actions and
 * alternate stack. */
void tattle__crash_uninstall(void);

#endif /* TATTLE_RUNNER_CRASH_H */
