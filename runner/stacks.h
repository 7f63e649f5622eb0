/*
 * stacks.h — where every thread of a timed-out test was.
 *
 * Before the runner kills a test that ran out of time, it takes the stack
 * of every thread of every live process of the test: each thread is
 * seized and interrupted with ptrace (the runner is the ancestor of every
 * test process, which is what Yama's ptrace_scope=1 requires), its state
 * read from /proc first, its stack unwound with libdw and each distinct
 * address symbolized once to function and file:line. The threads are
 * detached again before the kill. Everything is bounded (threads, frames
 * per thread, total time), as the test may be hostile: threads that come
 * and go, processes that exit half-way, stacks that are garbage. When
 * ptrace is refused the threads are still listed, without frames, and the
 * note says why.
 */
#ifndef TATTLE_RUNNER_STACKS_H
#define TATTLE_RUNNER_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <tattle/reporter.h>

enum {
    TATTLE__STACKS_MAX_THREADS = 256,
    TATTLE__STACKS_MAX_FRAMES = 64,
};

/** The stacks taken from one test. Every string and array is malloc'd and
 * owned here until tattle__stacks_release (or until a caller takes
 * `threads` over, then sets it to NULL). */
struct tattle__stacks {
    struct tattle_thread_stack *threads;
    size_t thread_count;
    const char *note; /* static text: why some or all stacks are missing */
    bool taken;       /* stacks were asked for */
    /* Threads seized but never seen stopped: detached once they die. */
    pid_t *still_traced;
    size_t still_traced_count;
};

/** The one-letter /proc states of threads, read before the test was
 * stopped: once stopped (or frozen) every thread would show 'T' (or 'S'),
 * which says nothing of where it was. */
struct tattle__thread_states {
    pid_t *tids;
    char *states;
    size_t count;
};

/** Reads the state of every thread of the `pid_count` processes `pids`
 * (at most TATTLE__STACKS_MAX_THREADS) into *states (which must be zero). */
void tattle__thread_states_read(const pid_t *pids, size_t pid_count,
                                struct tattle__thread_states *states);

/** Frees what *states holds and zeroes it. */
void tattle__thread_states_release(struct tattle__thread_states *states);

/** Takes the stack of every thread of the `pid_count` processes `pids`
 * into *stacks (which must be zero), within `budget_us` microseconds. A
 * thread's state is the one in `before` (may be NULL) when it is listed
 * there and still alive, else the one it has now.
 * The processes may be stopped (SIGSTOP) or frozen (cgroup.freeze) first:
 * a seized thread then shows its stop to the wait like any interrupt, and
 * goes back to its stop when detached.
 * Leaves every thread running again, except those it could not see
 * stopped in time, which stay in stacks->still_traced until
 * tattle__stacks_forget_tracees (call it after killing them). */
void tattle__stacks_take(const pid_t *pids, size_t pid_count,
                         const struct tattle__thread_states *before,
                         unsigned long budget_us,
                         struct tattle__stacks *stacks);

/** Reaps the threads left traced once they were killed (bounded wait). */
void tattle__stacks_forget_tracees(struct tattle__stacks *stacks);

/** Frees what *stacks holds and zeroes it. */
void tattle__stacks_release(struct tattle__stacks *stacks);

#endif /* TATTLE_RUNNER_STACKS_H */
