/*
 * child.h — what runs inside a test's process.
 *
 * tattle__child_main() is the whole life of a forked test process: it
 * takes what the fork server handed it (its own slot, its job's output
 * pipes, its trace arena), lets go of everything else the server holds,
 * runs the test and ends. tattle__child_run() runs one test: suite and
 * test setup, the body, teardowns, then the tattle_on_exit() callbacks in
 * LIFO order, recording into the test's result slot. A fatal assertion or
 * SKIP() leaves the current phase (longjmp on the test's main thread,
 * pthread_exit on another thread, _exit(1) in a process the test forked);
 * the remaining phases still run in the test's own process.
 *
 * Everything here runs where test code runs: whatever it writes (the
 * slot, the arena) the runner reads as untrusted input.
 */
#ifndef TATTLE_RUNNER_CHILD_H
#define TATTLE_RUNNER_CHILD_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tattle/tattle.h>

#include "runner/slot.h"

/** Closes every descriptor from `first` to `last` (close_range, or one by
 * one where the kernel has none). Also what a lookup process forked from
 * the runner lets go of (runner/lookup_process.c). */
void tattle__close_descriptors_between(int first, int last);

/** What a test process starts from, as the fork server hands it over. */
/* A signal's disposition as the kernel holds it (rt_sigaction's own layout,
 * read and set again whole, never interpreted), so a test process gets the
 * program's back with a system call and runs no libc code for it. */
struct tattle__kernel_sigaction {
    _Alignas(8) unsigned char bytes[64];
};

/* Run once in the fork server: installs each of `signals[count]`'s
 * `actions` in turn and reads it back into `captured` as the kernel holds
 * it, leaving every disposition as it found it. (Under a sanitizer, whose
 * interceptors must see each sigaction(), the test process uses `actions`
 * instead and `captured` stays zeroed.) */
void tattle__child_capture_signal_actions(
    const int *signals, const struct sigaction *actions, size_t count,
    struct tattle__kernel_sigaction *captured);

struct tattle__child_start {
    const struct tattle_test *test;
    const struct tattle_suite *suite;
    struct tattle__slot *slot;
    size_t slot_bytes; /* > 0: the slot is made writable first (a suite
                          server keeps it out of its own reach) */
    int stdin_fd, stdout_fd, stderr_fd;
    int arena_fd; /* the trace arena's memfd, or -1 */
    uint64_t arena_size;
    int first_server_fd;         /* the server's descriptors: from here up */
    int cgroup_procs_fd;         /* >= 0: join this cgroup first */
    const sigset_t *signal_mask; /* the program's own signal mask */
    const int *signals;          /* signals whose dispositions come back */
    const struct sigaction *signal_actions;
    /* the same, as tattle__child_capture_signal_actions() read them */
    const struct tattle__kernel_sigaction *kernel_signal_actions;
    size_t signal_count;
    pid_t server_pid;
    pthread_t thread; /* the server's thread, which the test process runs */
};

/** Runs the test in a freshly forked process and ends the process. */
TATTLE__NORETURN void
tattle__child_main(const struct tattle__child_start *start);

/** Appends an assertion operand's value as reports show it (integers in
 * decimal, the shortest floating-point form that reads back, pointers,
 * true/false, characters). Defined in runner/test_process/assertions.c. */
struct tattle__buffer;
void tattle__value_render(struct tattle__buffer *out,
                          struct tattle_value value);

/** Runs the test in the calling process (also used with --no-fork), whose
 * pid (`process`) and thread (`thread`, the one calling) the caller
 * knows: asked here they would cost a system call and, in a forked test
 * process, faults on libc's text. */
void tattle__child_run(const struct tattle_test *test,
                       const struct tattle_suite *suite,
                       struct tattle__slot *slot, pid_t process,
                       pthread_t thread);

/** Runs a suite's before_all or after_all (`phase`: setup or teardown) in
 * the calling process, recording into `slot`. Returns whether it ran to
 * its end (no ASSERT or SKIP left it); whether it recorded a failure is
 * the slot's to say (tattle__slot_reading_is_clean, read for the calling
 * process: a crash of a process it forked is not its own). A process the
 * fixture forked that returns from it ends (_exit(0)) instead of
 * returning. */
bool tattle__child_run_suite_fixture(void (*fn)(void), enum tattle__phase phase,
                                     struct tattle__slot *slot);

/** The crash handler's last step in a test process (async-signal-safe):
 * lets the flight recorder finish. */
void tattle__child_on_crash(void);

/** The slot of the test running in this process, or NULL outside a test. */
struct tattle__slot *tattle__child_slot(void);

/** Leaves the current phase after a fatal failure or a skip. */
TATTLE__NORETURN void tattle__child_leave_phase(void);

#endif /* TATTLE_RUNNER_CHILD_H */
