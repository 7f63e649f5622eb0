/*
 * scheduler.h — running tests: fork per test, `-j N`, timeouts, capture.
 *
 * The scheduler is single-threaded. It is created before any reporter
 * opens a file: creating it starts the fork server (runner/fork_server.h),
 * from which every test process is forked, so nothing the runner opens or
 * allocates afterwards reaches a test. Running it pulls the next test to
 * run from the caller, has the server start it (or runs it in-process with
 * --no-fork), polls the job slots' output pipes, the server's exit notices
 * and the deadline, and when the test has ended (exit, crash, timeout) and
 * every process it started is gone, hands the raw outcome back. SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 arrive through a
 * signalfd: running tests are killed and the schedule ends early, marked
 * interrupted.
 *
 * A suite with before_all or after_all runs its tests from a suite server
 * (runner/fork_server.h), started at the suite's first test: the runner
 * waits for before_all (bounded by that test's timeout), draining its
 * output, and routes every test of the suite to that server, under -j N
 * too. When the suite's last test has finished and the caller has no more
 * of its tests to run, after_all runs (in the job slot that test used)
 * before that test is reported, and a failure of it is reported on that
 * test. A failed before_all, or a suite server that died, fails every test
 * of the suite with an error naming the fixture. With --no-fork both run
 * in the runner's process.
 */
#ifndef TATTLE_RUNNER_SCHEDULER_H
#define TATTLE_RUNNER_SCHEDULER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "runner/capture.h"
#include "runner/registry.h"
#include "runner/slot.h"
#include "tracer/session.h"

/** One run of one test, as asked for by the caller. */
struct tattle__job {
    struct tattle__test_entry *entry;
    long timeout_ms;
    bool traced;
    struct tattle__trace_config trace_config;
    unsigned attempt; /* 1-based */
    void *caller_data;
};

/** What happened to one run. Everything is owned by the scheduler and
 * valid during the finished callback only, except `trace`, which the
 * callback takes over (and must free with tattle__trace_free). */
struct tattle__stacks;

/** How a suite fixture (before_all, after_all) failed, or its suite server
 * died: a one-line message and, when the fixture crashed, the frames of
 * its crash record, symbolized as a test's crash's are (innermost first,
 * as far as the fixture's own function; none when it did not crash). */
struct tattle__fixture_failure {
    const char *message;
    const struct tattle_frame *frames;
    size_t frame_count;
};

struct tattle__outcome {
    struct tattle__slot_reading reading;
    bool forked;
    int wait_status; /* as from waitpid (forked runs) */
    bool timed_out;
    int interrupted_by;  /* the run was stopped while this test ran:
                            the signal, or -1 for an internal error */
    uint64_t started_us; /* monotonic */
    uint64_t duration_us;
    const struct tattle__capture *stdout_capture; /* NULL with --no-fork */
    const struct tattle__capture *stderr_capture;
    struct tattle_trace *trace;
    const char *trace_error;      /* non-NULL: the trace could not be kept */
    const char *trace_corruption; /* non-NULL: the arena was overwritten and
                                     its events discarded */
    /* A timed-out test's stacks (NULL when none were taken); the callback
     * may take its threads over. */
    struct tattle__stacks *stacks;
    /* The crashed test process's /proc maps, taken while its crash handler
     * waited (NULL: it did not ring, or they could not be read): where its
     * crash's addresses are looked up (runner/symbolize.h). */
    const char *crash_maps;
    /* non-NULL: the suite's before_all failed or its suite server died:
     * why */
    const struct tattle__fixture_failure *fixture_error;
    /* non-NULL: the suite's after_all, run after this test, failed: how */
    const struct tattle__fixture_failure *after_all_error;
    /* Where the threads of the suite fixture that failed were, when it ran
     * out of time (before_all's, which this test's job ran, or
     * after_all's); the callback may take its threads over. */
    struct tattle__stacks *fixture_stacks;
};

struct tattle__schedule_callbacks {
    /* Fills *job with the next run; returns false when there is none now. */
    bool (*next)(void *ctx, struct tattle__job *job);
    void (*started)(void *ctx, const struct tattle__job *job);
    void (*finished)(void *ctx, const struct tattle__job *job,
                     struct tattle__outcome *outcome);
    /* Whether another run of a test of `suite` may still come from `next`
     * after `finishing` (NULL: none will). */
    bool (*suite_pending)(void *ctx, const struct tattle_suite *suite,
                          const struct tattle__job *finishing);
    /* The after_all of `suite` failed when it ran after the last of the
     * suite's tests had been reported (at the end of the run, or to make
     * room for another suite server): `failure` says how, `duration_us`
     * what it took, the captures what it printed (NULL with --no-fork),
     * `stacks` where its threads were when it ran out of time (NULL or not
     * taken: none; the callback may take its threads over). */
    void (*late_after_all_failed)(void *ctx, const struct tattle_suite *suite,
                                  const struct tattle__fixture_failure *failure,
                                  uint64_t duration_us,
                                  const struct tattle__capture *stdout_capture,
                                  const struct tattle__capture *stderr_capture,
                                  struct tattle__stacks *stacks);
    void *ctx;
};

struct tattle__schedule_config {
    unsigned jobs;
    bool no_fork;
    bool stdout_carries_report;        /* a report goes to stdout (`-`): with
                                          --no-fork, tests print to stderr */
    struct sigaction original_sigpipe; /* what tests get back */
    const int *program_fds; /* open before the run began: tests keep them */
    size_t program_fd_count;
    double timeout_multiplier; /* TATTLE_TIMEOUT_MULTIPLIER: scales the
                                  time taking a timeout's stacks may cost */
};

struct tattle__scheduler;

/** Prepares the job slots and starts the fork server (not with --no-fork).
 * Call it before opening report files. Returns 0 or a negative errno. */
int tattle__scheduler_create(struct tattle__scheduler **out,
                             const struct tattle__schedule_config *config);

/** Runs jobs until `next` has none and none is running, or until a
 * terminating signal. Returns 0, 1 when interrupted, or a negative errno on
 * internal error; either way the tests that were running are killed and
 * reported through `finished` with `interrupted_by` set. */
int tattle__scheduler_run(struct tattle__scheduler *scheduler,
                          const struct tattle__schedule_callbacks *callbacks);

/** How many suites' after_all failed (or hung) when it ran after the
 * last of its suite's tests had been reported (at the end of the run, or
 * to make room for another suite server): each went to
 * `late_after_all_failed`, and the run fails with it. */
unsigned tattle__scheduler_late_fixture_failures(
    const struct tattle__scheduler *scheduler);

/** Stops the fork server and frees everything. */
void tattle__scheduler_destroy(struct tattle__scheduler *scheduler);

#endif /* TATTLE_RUNNER_SCHEDULER_H */
