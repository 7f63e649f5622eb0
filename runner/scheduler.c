/*
 * scheduler.c — the runner's single-threaded event loop.
 *
 * Per job slot the scheduler keeps a result slot (shared memory), two
 * captures and a stdout and a stderr pipe, all reused from test to test
 * (the fork server holds the pipes' write ends, so they never reach end of
 * file); while a test runs, its pid. One poll() waits on every running
 * test's pipes, the fork server's socket (its exit notices) and its pidfd,
 * the signalfd, the cgroups and strays being killed, and the nearest
 * deadline.
 *
 * A test is finished once its process was reaped and every process it
 * started is known dead: its process group is killed, its job's cgroup
 * (where there is one) is killed and watched until empty, and the fork
 * server's children that belong to no running test (what an ended test
 * left behind) are stopped, killed and waited for. Only then are its
 * pipes drained (nothing can write to them any more), its slot read, its
 * trace frozen, and the outcome handed back. Nothing read from the slot or
 * the arena is trusted (runner/slot.h, tracer/session.h).
 */
#include "runner/scheduler.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner/test_process/child.h"
#include "runner/fork_server.h"
#include "runner/job_cgroup.h"
#include "runner/process_tree.h"
#include "runner/stacks.h"
#include "runner/symbolize.h"
#include "tracer/freeze.h"
#include "base/buffer.h"
#include "base/text.h"
#include "base/timestamp.h"
#include "base/sanitizers.h"

enum {
    SLOT_BYTES = 256 * 1024,
    READ_CHUNK = 64 * 1024,
    STACKS_PROCESSES = 64,    /* processes of one test whose stacks are taken */
    DOORBELL_ANSWERS_MAX = 4, /* rings of one test answered with its maps
                                 (and, traced, stacks) */
    TRACEE_POLL_US = 10 * 1000 /* how often threads left traced are polled */
};

/* What taking the stacks of a timed-out test may cost at most, times
 * TATTLE_TIMEOUT_MULTIPLIER. A runner built with a sanitizer unwinds many
 * times slower (every allocation of libdw's goes through the sanitizer's
 * allocator), so its own budget is larger. */
#if TATTLE__SANITIZED
static const unsigned long stacks_budget_us = 8000 * 1000;
#else
static const unsigned long stacks_budget_us = 1000 * 1000;
#endif

/* How long halting a test (stopping all its processes) may take at most,
 * times TATTLE_TIMEOUT_MULTIPLIER. */
static const unsigned long halt_budget_us = 500 * 1000;

/* The signals that end a run early, like SIGTERM. */
static const int stop_signals[] = {SIGINT,  SIGTERM, SIGHUP,
                                   SIGQUIT, SIGUSR1, SIGUSR2};

struct running {
    bool busy;
    struct tattle__job job;
    pid_t pid;         /* 0 while spawning */
    bool spawning;     /* asked of its server, the answer not read yet */
    int output_fds[2]; /* the job's pipes' read ends (non-blocking) */
    struct tattle__capture captures[2];
    struct tattle__slot *slot;
    uint64_t started_us;
    uint64_t deadline_us; /* 0: none */
    bool reaped;          /* the server reported the test process's end */
    int wait_status;
    bool killing; /* its cgroup was killed: wait until empty */
    bool frozen;  /* its cgroup was frozen: thawed after the kill */
    bool timed_out;
    int interrupted_by;
    struct tattle__trace_session *trace;
    const char *trace_error;        /* the arena could not be created */
    struct tattle__stacks stacks;   /* taken when it timed out or, traced,
                                       when it rang at a crash */
    bool doorbell_closed;           /* it was stopped: no ring is answered */
    unsigned rings_answered;        /* rings answered (maps, stacks), bounded:
                                       the runner's count, not the slot's */
    unsigned stacks_ring;           /* the ring `stacks` were taken at, or 0 */
    uint32_t crash_records_at_ring; /* the test process's crash records */
    uint32_t failures_dropped_at_ring; /* and dropped ones, at that ring */
    char *crash_maps;    /* owned: the test process's maps at that ring */
    pid_t *tracees;      /* owned: threads a taking of stacks left traced by
                            the runner, released once they show a stop */
    size_t tracee_count; /* (or their end): never dropped while they live */
    struct tattle__fork_server *server; /* the server that spawned it */
    int suite;           /* its index in the suite servers, or -1 */
    bool server_lost;    /* its suite server died under it */
    char *fixture_error; /* owned: the suite's fixture failed */
    /* and where the fixture crashed: its suite's frames, which live as
     * long as the scheduler */
    const struct tattle_frame *fixture_frames;
    size_t fixture_frame_count;
    /* owned: after_all after it failed (message NULL: it did not) */
    struct tattle__fixture_failure after_all_error;
    /* Where the threads of a suite fixture that ran out of time in this
     * job were: before_all's, when this test started its suite, or
     * after_all's, run after this test. */
    struct tattle__stacks fixture_stacks;
    /* While after_all runs after this test: the line put before what it
     * prints on each stream, once (headed), so its output follows the
     * test's, marked as its own. */
    const char *output_heading;
    bool headed[2];
};

/* A suite with before_all or after_all, once its first test came up. */
struct suite_server {
    const struct tattle_suite *suite;
    struct tattle__fork_server *server; /* NULL: not running */
    pid_t pid;
    bool exited; /* the fork server told how it ended */
    int exit_status;
    /* owned; message non-NULL: its tests fail with this error */
    struct tattle__fixture_failure failure;
    unsigned running; /* its tests running now */
    /* The server and what before_all left running in it (helper
     * processes: a server its tests talk to): not a test's leftovers,
     * they live until the suite server ends after after_all. */
    struct tattle__pid_list helpers;
    long timeout_ms; /* the timeout of the test that started it */
};

struct tattle__scheduler {
    struct tattle__schedule_config config;
    const struct tattle__schedule_callbacks *callbacks;
    struct running *running;
    unsigned job_count; /* job slots: 1 with --no-fork */
    unsigned running_count;
    struct tattle__job_cgroups cgroups;
    /* per job: the server that forks its tests (runner/fork_server.h);
     * the first also starts the suite servers */
    struct tattle__fork_server **servers;
    int *write_fds; /* per job stdout, stderr: the servers' copies */
    struct tattle__pid_list strays; /* killed, not yet known dead */
    int *stray_pidfds;
    int signal_fd;
    sigset_t old_mask;
    int stopping; /* the signal (or -1) that stops the run */
    int result;
    int spawn_error; /* a test could not be forked: the run stops on it */
    bool exhausted;  /* `next` had nothing this round */
    struct suite_server *suites;
    size_t suite_count;
    double timeout_multiplier;      /* scales stacks_budget_us */
    unsigned late_fixture_failures; /* after_all failed after the last
                                       test of its suite was reported */
};

static bool has_suite_fixture(const struct tattle_suite *suite)
{
    return suite && (suite->options.before_all || suite->options.after_all);
}

/* Whether job `job` is the first its server serves (each server is met
 * once when the jobs are walked in order). */
static bool first_job_of_its_server(const struct tattle__scheduler *scheduler,
                                    unsigned job)
{
    return job == 0 || scheduler->servers[job] != scheduler->servers[job - 1];
}

/* ---- killing what a test left behind ---- */

static bool belongs_to_running_test(const struct tattle__scheduler *scheduler,
                                    pid_t pid)
{
    for (size_t i = 0; i < scheduler->suite_count; i++)
        if (scheduler->suites[i].server &&
            (scheduler->suites[i].pid == pid ||
             tattle__pid_list_has(&scheduler->suites[i].helpers, pid)))
            return true;
    pid_t group = getpgid(pid);
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        const struct running *run = &scheduler->running[i];
        if (run->busy && !run->reaped && (run->pid == pid || run->pid == group))
            return true;
    }
    return false;
}

/* Waits on the killed strays through pidfds (readable once they exited). */
static void watch_strays(struct tattle__scheduler *scheduler, size_t from)
{
    scheduler->stray_pidfds = tattle__realloc(
        scheduler->stray_pidfds, (scheduler->strays.count + 1) * sizeof(int));
    for (size_t i = from; i < scheduler->strays.count; i++)
        scheduler->stray_pidfds[i] = pidfd_open(scheduler->strays.items[i], 0);
}

static void forget_dead_strays(struct tattle__scheduler *scheduler)
{
    size_t kept = 0;
    for (size_t i = 0; i < scheduler->strays.count; i++) {
        int fd = scheduler->stray_pidfds[i];
        struct pollfd probe = {fd, POLLIN, 0};
        if (fd < 0 || poll(&probe, 1, 0) != 0) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        scheduler->strays.items[kept] = scheduler->strays.items[i];
        scheduler->stray_pidfds[kept++] = fd;
    }
    scheduler->strays.count = kept;
}

/* The server's answer to a run's spawn request: its test process runs,
 * or it could not be forked. A test that could not be is reported as
 * stopped on an internal error, and so is the run (stop_on_start_error,
 * from the loop: this is called from within the reading of notices). */
static void take_spawn_answer(struct tattle__scheduler *scheduler,
                              struct running *run, int error, pid_t pid)
{
    run->spawning = false;
    if (error == 0 && pid > 0) {
        run->pid = pid;
        return;
    }
    run->pid = 0;
    run->reaped = true;
    run->server_lost = true;
    run->deadline_us = 0;
    if (!run->interrupted_by)
        run->interrupted_by = -1;
    if (!scheduler->spawn_error)
        scheduler->spawn_error = error < 0 ? error : -EPROTO;
}

/* Waits for the server's answer to a run's spawn request if it is still
 * open; settle_spawns does so for every run. The answers are waited for
 * before anything is done to a test by its pid or to the processes the
 * servers hold: a test process just forked is among them before the
 * runner knows its pid (it must not be taken for a stray), and may
 * already ring its crash doorbell or need stopping. The answers are on
 * their way: a server answers each request as soon as it forked. */
static void settle_spawn(struct tattle__scheduler *scheduler,
                         struct running *run)
{
    if (!run->busy || !run->spawning)
        return;
    pid_t pid = 0;
    int error = tattle__fork_server_await_started(
        run->server, (unsigned)(run - scheduler->running), &pid);
    take_spawn_answer(scheduler, run, error, pid);
}

static void settle_spawns(struct tattle__scheduler *scheduler)
{
    for (unsigned i = 0; i < scheduler->job_count; i++)
        settle_spawn(scheduler, &scheduler->running[i]);
}

/* Whether a spawn request sent to `server` still waits for its answer. */
static bool spawn_open_on(const struct tattle__scheduler *scheduler,
                          const struct tattle__fork_server *server)
{
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        const struct running *run = &scheduler->running[i];
        if (run->busy && run->spawning && run->server == server)
            return true;
    }
    return false;
}

/* Appends the children of fork, job and suite servers to `children`: the
 * tests they run and what ended tests left behind (what a suite's test
 * leaves behind is its suite server's). With `ended_on` NULL every server
 * is listed, every open spawn answered first. Otherwise only the spawns
 * open on `ended_on` are waited for (it forked the test that ended), and
 * a server with a spawn still open is left out: a test it just forked may
 * be among its children before the runner knows its pid, and what a test
 * leaves behind hangs off the server that forked it, swept when that
 * test ends. Waiting for another server's fork there made each job's
 * next test wait on the other jobs' forks. */
static void list_server_children(struct tattle__scheduler *scheduler,
                                 const struct tattle__fork_server *ended_on,
                                 struct tattle__pid_list *children)
{
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        struct running *run = &scheduler->running[i];
        if (!ended_on || run->server == ended_on)
            settle_spawn(scheduler, run);
    }
    for (unsigned i = 0; i < scheduler->job_count; i++)
        if (first_job_of_its_server(scheduler, i) &&
            !spawn_open_on(scheduler, scheduler->servers[i]))
            tattle__fork_server_children(scheduler->servers[i], children);
    for (size_t i = 0; i < scheduler->suite_count; i++)
        if (scheduler->suites[i].server &&
            !spawn_open_on(scheduler, scheduler->suites[i].server))
            tattle__fork_server_children(scheduler->suites[i].server, children);
}

/* Kills every process the servers hold that belongs to no running test:
 * what ended tests left behind, however they got away. `ended_on` is the
 * server of the test that ended (NULL: every server, as above). */
static void kill_strays(struct tattle__scheduler *scheduler,
                        const struct tattle__fork_server *ended_on)
{
    struct tattle__pid_list children = {0};
    list_server_children(scheduler, ended_on, &children);
    size_t before = scheduler->strays.count;
    for (size_t i = 0; i < children.count; i++)
        if (!belongs_to_running_test(scheduler, children.items[i]))
            tattle__process_tree_kill(children.items[i], true,
                                      &scheduler->strays);
    tattle__pid_list_release(&children);
    watch_strays(scheduler, before);
}

/* When halting a test's processes must be done by: the halt budget from
 * now. */
static uint64_t halt_deadline(const struct tattle__scheduler *scheduler)
{
    return tattle__now_us() +
           (uint64_t)((double)halt_budget_us * scheduler->timeout_multiplier);
}

/* Once a test's cgroup was killed: a frozen one is thawed, so that every
 * process in it, SIGKILL pending, dies, and the job's next test starts in
 * a cgroup that is not frozen. */
static void thaw_killed(struct tattle__scheduler *scheduler,
                        struct running *run)
{
    if (!run->frozen)
        return;
    tattle__job_cgroup_thaw(&scheduler->cgroups,
                            (unsigned)(run - scheduler->running));
    run->frozen = false;
}

/* Halts the processes a test left alive once its test process was
 * reaped and lists them into `halted`: its job's cgroup is frozen where
 * there is one, or else every process of the fork server's (and suite
 * servers') that belongs to no running test and is not a stray already
 * killed is sent SIGSTOP with its tree. Bounded by the halt budget. */
static void halt_leftovers(struct tattle__scheduler *scheduler,
                           struct running *run, struct tattle__pid_list *halted)
{
    unsigned job = (unsigned)(run - scheduler->running);
    uint64_t deadline_us = halt_deadline(scheduler);
    if (tattle__job_cgroups_available(&scheduler->cgroups)) {
        if (!tattle__job_cgroup_populated(&scheduler->cgroups, job))
            return;
        run->frozen = true; /* thawed after the kill, whatever happened */
        tattle__job_cgroup_freeze(&scheduler->cgroups, job, deadline_us);
        /* One more than is ever peeked: a list cut short shows as longer
         * than the peek takes, and the peek is then not whole. */
        pid_t listed[STACKS_PROCESSES + 1];
        size_t count = tattle__job_cgroup_list(&scheduler->cgroups, job, listed,
                                               STACKS_PROCESSES + 1);
        for (size_t i = 0; i < count; i++)
            if (listed[i] > 0)
                tattle__pid_list_add(halted, listed[i]);
        return;
    }
    struct tattle__pid_list children = {0};
    list_server_children(scheduler, NULL, &children);
    for (size_t i = 0; i < children.count; i++)
        if (!belongs_to_running_test(scheduler, children.items[i]) &&
            !tattle__pid_list_has(&scheduler->strays, children.items[i]))
            tattle__process_tree_stop(children.items[i], true, halted);
    tattle__pid_list_release(&children);
    tattle__process_tree_wait_stopped(halted, deadline_us);
}

/* Without a cgroup, a process the servers hold that belongs to no running
 * test may still be another test's (one that left its group with
 * CLONE_PARENT and setpgid): its descriptors are not this test's to read.
 * Only processes still in the test's process group or session are kept
 * in `halted`; the others are halted and killed, their endpoints counted
 * by the capture alone. */
static void keep_the_tests_own(struct tattle__pid_list *halted, pid_t test)
{
    size_t kept = 0;
    for (size_t i = 0; i < halted->count; i++) {
        pid_t pid = halted->items[i];
        if (getpgid(pid) == test || getsid(pid) == test)
            halted->items[kept++] = pid;
    }
    halted->count = kept;
}

/* Before what a traced test left alive is killed: what the kernel still
 * holds in the endpoints those processes have open is peeked, with them
 * halted (the test process peeked only its own, at its end). */
static void peek_leftovers(struct tattle__scheduler *scheduler,
                           struct running *run)
{
    if (!tattle__trace_session_peeks_processes(run->trace))
        return;
    struct tattle__pid_list halted = {0};
    halt_leftovers(scheduler, run, &halted);
    if (!tattle__job_cgroups_available(&scheduler->cgroups))
        keep_the_tests_own(&halted, run->pid);
    tattle__trace_session_peek_processes(run->trace, halted.items,
                                         halted.count);
    tattle__pid_list_release(&halted);
}

/* After the test process was reaped: everything it started dies too, on
 * every ending. */
static void kill_leftovers(struct tattle__scheduler *scheduler,
                           struct running *run)
{
    peek_leftovers(scheduler, run);
    kill(-run->pid, SIGKILL);
    unsigned job = (unsigned)(run - scheduler->running);
    if (tattle__job_cgroups_available(&scheduler->cgroups) &&
        tattle__job_cgroup_populated(&scheduler->cgroups, job)) {
        tattle__job_cgroup_kill(&scheduler->cgroups, job);
        run->killing = tattle__job_cgroup_populated(&scheduler->cgroups, job);
    }
    thaw_killed(scheduler, run);
    kill_strays(scheduler, run->server);
}

/* Kills a test that is still running (timeout, interrupted run). */
static void kill_running_test(struct tattle__scheduler *scheduler,
                              struct running *run)
{
    unsigned job = (unsigned)(run - scheduler->running);
    if (tattle__job_cgroups_available(&scheduler->cgroups))
        tattle__job_cgroup_kill(&scheduler->cgroups, job);
    tattle__process_tree_kill(run->pid, true, NULL);
    kill(-run->pid, SIGKILL);
    thaw_killed(scheduler, run);
}

/* ---- reading output ---- */

/* Reads what is available from one output pipe, at most a bounded amount
 * per call so one chatty test cannot starve the others. Returns false when
 * the pipe is empty. */
static bool read_output(struct running *run, int stream)
{
    char buffer[READ_CHUNK];
    for (int rounds = 0; rounds < 16; rounds++) {
        ssize_t n = read(run->output_fds[stream], buffer, sizeof buffer);
        if (n > 0) {
            if (run->output_heading && !run->headed[stream]) {
                tattle__capture_note(&run->captures[stream],
                                     run->output_heading);
                run->headed[stream] = true;
            }
            tattle__capture_feed(&run->captures[stream], buffer, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return false; /* EAGAIN: empty (end of file would mean the server died)
                       */
    }
    return true;
}

/* After the test's processes are dead, nothing writes to the pipes any
 * more: what is in them is the rest of the test's output. */
static void drain_outputs(struct running *run)
{
    for (int s = 0; s < 2; s++)
        while (read_output(run, s))
            ;
}

/* ---- halting processes and taking their stacks ---- */

/* Sends SIGSTOP to `root` and to every process below it as it is found,
 * until a walk finds no new one, and waits until their threads show
 * stopped. Bounded by `deadline_us`: a thread in an uninterruptible sleep
 * halts only when it leaves it. */
static void halt_tree(pid_t root, uint64_t deadline_us)
{
    struct tattle__pid_list tree = {0};
    tattle__process_tree_stop(root, true, &tree);
    tattle__process_tree_wait_stopped(&tree, deadline_us);
    tattle__pid_list_release(&tree);
}

/* Takes the stacks of every thread of the first STACKS_PROCESSES of
 * `processes` into *stacks (which must be zero), within the stacks
 * budget; `before` are the threads' states before they were halted. */
static void take_stacks_of(const struct tattle__scheduler *scheduler,
                           const struct tattle__pid_list *processes,
                           const struct tattle__thread_states *before,
                           struct tattle__stacks *stacks)
{
    tattle__stacks_take(processes->items,
                        processes->count < STACKS_PROCESSES ? processes->count
                                                            : STACKS_PROCESSES,
                        before,
                        (unsigned long)((double)stacks_budget_us *
                                        scheduler->timeout_multiplier),
                        stacks);
}

/* ---- suite servers ---- */

enum { SUITE_SERVER_EXIT_WAIT_MS = 10000 };

static void describe_status(struct tattle__buffer *text, int status)
{
    char name[16];
    if (WIFSIGNALED(status))
        tattle__buffer_printf(text, "was killed by %s (%s)",
                              tattle__signal_name(WTERMSIG(status), name),
                              strsignal(WTERMSIG(status)));
    else
        tattle__buffer_printf(text, "exited with status %d",
                              WEXITSTATUS(status));
}

/* How the suite server ended, as the fork server saw it reaped. */
static void suite_server_status(struct tattle__scheduler *scheduler,
                                struct suite_server *suite)
{
    if (suite->exited)
        return;
    if (tattle__fork_server_await_exit(scheduler->servers[0], suite->pid,
                                       SUITE_SERVER_EXIT_WAIT_MS,
                                       &suite->exit_status) == 0)
        suite->exited = true;
}

/* Frees what a fixture's failure owns, and empties it. */
static void fixture_failure_release(struct tattle__fixture_failure *failure)
{
    struct tattle_frame *frames = (struct tattle_frame *)failure->frames;
    tattle__frames_free(frames, failure->frame_count);
    free(frames);
    free((char *)failure->message);
    *failure = (struct tattle__fixture_failure){0};
}

/* The failure of a suite fixture, in one line: what failed, then each
 * failure it recorded, and how its process ended when that was not its
 * end; when it crashed, the frames of its crash record (`reading` is of
 * the suite server's own process, never of one the fixture forked). */
static struct tattle__fixture_failure
fixture_failure(struct tattle__scheduler *scheduler, struct suite_server *suite,
                const char *fixture, const struct tattle__slot_reading *reading,
                bool timed_out, long timeout_ms, int interrupted,
                bool server_gone)
{
    struct tattle__fixture_failure failed = {0};
    struct tattle__buffer text = {0};
    tattle__buffer_printf(&text, "%s of suite '%s' failed", fixture,
                          suite->suite->name);
    const char *separator = ": ";
    for (size_t i = 0; i < reading->failure_count; i++) {
        const struct tattle__slot_failure *failure = &reading->failures[i];
        tattle__buffer_printf(&text, "%s%s", separator,
                              failure->message && failure->message[0]
                                  ? failure->message
                                  : "a failure");
        if (failure->expr)
            tattle__buffer_printf(&text, " (%s)", failure->expr);
        if (failure->file)
            tattle__buffer_printf(&text, " at %s:%d", failure->file,
                                  failure->line);
        separator = "; ";
    }
    if (reading->skipped) {
        tattle__buffer_printf(&text, "%sit called SKIP()", separator);
        separator = "; ";
    }
    char name[16];
    if (interrupted > 0) {
        tattle__buffer_printf(&text, "%sthe run was interrupted (%s)",
                              separator,
                              tattle__signal_name(interrupted, name));
    } else if (timed_out) {
        tattle__buffer_printf(&text, "%sit did not finish within %ld ms",
                              separator, timeout_ms);
    } else if (server_gone) {
        suite_server_status(scheduler, suite);
        tattle__buffer_printf(&text, "%sits process ", separator);
        if (suite->exited)
            describe_status(&text, suite->exit_status);
        else
            tattle__buffer_printf(&text, "ended");
        if (suite->exited && WIFSIGNALED(suite->exit_status) &&
            reading->crashed &&
            reading->crash_signal == WTERMSIG(suite->exit_status)) {
            size_t count;
            failed.frames =
                tattle__symbolize(reading->crash_frames,
                                  reading->crash_frame_count, NULL, &count);
            failed.frame_count = count;
        }
    }
    failed.message = tattle__buffer_take(&text);
    return failed;
}

/* Drains job output while a fixture runs: kept in the job's captures, or
 * dropped. */
static void drain_fixture_output(struct running *run, int stream, bool keep)
{
    if (keep) {
        read_output(run, stream);
        return;
    }
    char buffer[4096];
    while (read(run->output_fds[stream], buffer, sizeof buffer) > 0)
        ;
}

/* Stops a suite server whose fixture ran out of time. It is halted
 * first, with its helpers, as a timed-out test is, and the stacks of all
 * their threads are taken into *stacks (which must be zero): where the
 * fixture was. Its helpers are then killed, while they are still its
 * descendants (once it is dead they belong to the fork server and no walk
 * from it finds them). Then it is asked to abort, and let go on: its
 * crash handler copies what the fixture had recorded into the job's slot,
 * so the failure keeps the fixture's own failures. A server that does not
 * die of it within a short grace (it may block the signal) is killed,
 * with anything it forked meanwhile. */
static void stop_timed_out_fixture(struct tattle__scheduler *scheduler,
                                   struct suite_server *suite,
                                   struct tattle__stacks *stacks)
{
    enum { ABORT_GRACE_MS = 250 };
    struct tattle__pid_list processes = {0};
    tattle__process_tree_list(suite->pid, &processes);
    struct tattle__thread_states states = {0};
    tattle__thread_states_read(processes.items, processes.count, &states);
    halt_tree(suite->pid, halt_deadline(scheduler));
    take_stacks_of(scheduler, &processes, &states, stacks);
    tattle__thread_states_release(&states);
    tattle__pid_list_release(&processes);
    tattle__process_tree_kill(suite->pid, false, NULL);
    int pidfd = tattle__fork_server_pidfd(suite->server);
    if (pidfd >= 0 && pidfd_send_signal(pidfd, SIGABRT, NULL, 0) == 0) {
        pidfd_send_signal(pidfd, SIGCONT, NULL, 0);
        struct pollfd gone = {pidfd, POLLIN, 0};
        int grace_ms = (int)(ABORT_GRACE_MS * scheduler->timeout_multiplier);
        while (poll(&gone, 1, grace_ms) < 0 && errno == EINTR)
            ;
    }
    tattle__process_tree_kill(suite->pid, true, NULL);
    /* Threads that never showed a stop are still traced: dead now, they
     * are reaped here. */
    tattle__stacks_forget_tracees(stacks);
}

static int read_stop_signal(struct tattle__scheduler *scheduler);
static void release_stopped_tracees(struct running *run);
static void
forget_what_an_earlier_ring_took(struct running *run,
                                 const struct tattle__slot_reading *reading);

/* Waits for the suite server's fixture (before_all or after_all) in job
 * slot `run`: for its report, its death, its deadline or a stop signal.
 * At its deadline the stacks of its threads are taken into *stacks.
 * Returns 0 passed, 1 failed, or a negative errno when the server is gone
 * or was killed. */
static int wait_fixture(struct tattle__scheduler *scheduler,
                        struct suite_server *suite, struct running *run,
                        long timeout_ms, bool keep_output,
                        struct tattle__stacks *stacks, bool *timed_out,
                        int *interrupted)
{
    uint64_t deadline =
        timeout_ms > 0 ? tattle__now_us() + (uint64_t)timeout_ms * 1000u : 0;
    *timed_out = false;
    *interrupted = 0;
    for (;;) {
        int result = tattle__fork_server_fixture_result(suite->server);
        if (result != -EAGAIN) {
            /* The server wrote the fixture's output before it reported:
             * all of it is in the pipes now, and none of it is the next
             * test's. */
            for (int stream = 0; stream < 2; stream++) {
                if (!keep_output)
                    drain_fixture_output(run, stream, false);
                else
                    while (read_output(run, stream))
                        ;
            }
            return result;
        }
        struct pollfd fds[5] = {
            {tattle__fork_server_fd(suite->server), POLLIN, 0},
            {tattle__fork_server_pidfd(suite->server), POLLIN, 0},
            {run->output_fds[0], POLLIN, 0},
            {run->output_fds[1], POLLIN, 0},
            {scheduler->signal_fd, POLLIN, 0},
        };
        int wait_ms = -1;
        if (deadline) {
            uint64_t now = tattle__now_us();
            if (now >= deadline) {
                *timed_out = true;
                stop_timed_out_fixture(scheduler, suite, stacks);
                return -ETIMEDOUT;
            }
            wait_ms = (int)((deadline - now + 999) / 1000);
        }
        if (poll(fds, 5, wait_ms) < 0 && errno != EINTR)
            return -errno;
        for (int stream = 0; stream < 2; stream++)
            if (fds[2 + stream].revents)
                drain_fixture_output(run, stream, keep_output);
        if (fds[4].revents) {
            int signal_number = read_stop_signal(scheduler);
            if (signal_number) {
                *interrupted = signal_number;
                tattle__process_tree_kill(suite->pid, true, NULL);
                return -EINTR;
            }
        }
        if (fds[1].revents) {
            result = tattle__fork_server_fixture_result(suite->server);
            return result == -EAGAIN ? -EPIPE : result;
        }
    }
}

/* After a fixture ended in failure, the server is gone: its status, its
 * output drained, its handle closed. */
static void forget_suite_server(struct tattle__scheduler *scheduler,
                                struct suite_server *suite)
{
    suite_server_status(scheduler, suite);
    tattle__fork_server_stop(suite->server);
    suite->server = NULL;
    tattle__pid_list_release(&suite->helpers);
    for (unsigned i = 0; i < scheduler->job_count; i++)
        if (scheduler->running[i].server &&
            scheduler->running[i].suite == (int)(suite - scheduler->suites))
            scheduler->running[i].server = NULL;
}

static struct suite_server *suite_of(struct tattle__scheduler *scheduler,
                                     const struct tattle_suite *suite)
{
    for (size_t i = 0; i < scheduler->suite_count; i++)
        if (scheduler->suites[i].suite == suite)
            return &scheduler->suites[i];
    scheduler->suites =
        tattle__realloc(scheduler->suites, (scheduler->suite_count + 1) *
                                               sizeof *scheduler->suites);
    struct suite_server *added = &scheduler->suites[scheduler->suite_count++];
    *added = (struct suite_server){.suite = suite};
    return added;
}

static size_t live_suite_servers(const struct tattle__scheduler *scheduler)
{
    size_t live = 0;
    for (size_t i = 0; i < scheduler->suite_count; i++)
        live += scheduler->suites[i].server != NULL;
    return live;
}

static void end_reported_suite_server(struct tattle__scheduler *scheduler,
                                      struct suite_server *suite,
                                      struct running *run);

/* Starts the suite server of `suite` in `run`'s job slot and waits for its
 * before_all; a failure is kept as the suite's. */
static void start_suite_server(struct tattle__scheduler *scheduler,
                               struct suite_server *suite, struct running *run,
                               long timeout_ms)
{
    /* Bounded: a suite server with no test running ends early (after_all
     * runs; before_all runs again if its suite comes back). */
    for (size_t i = 0;
         i < scheduler->suite_count &&
         live_suite_servers(scheduler) >= TATTLE__SUITE_SERVERS_MAX;
         i++) {
        struct suite_server *idle = &scheduler->suites[i];
        if (!idle->server || idle->running > 0)
            continue;
        end_reported_suite_server(scheduler, idle, run);
    }
    unsigned job = (unsigned)(run - scheduler->running);
    tattle__slot_reset(run->slot, SLOT_BYTES);
    suite->exited = false;
    suite->timeout_ms = timeout_ms;
    int error = tattle__fork_server_start_suite(scheduler->servers[0], job,
                                                suite->suite, &suite->server);
    if (error != 0) {
        suite->server = NULL;
        struct tattle__buffer text = {0};
        tattle__buffer_printf(&text,
                              "before_all of suite '%s' could not start: %s",
                              suite->suite->name, strerror(-error));
        suite->failure.message = tattle__buffer_take(&text);
        return;
    }
    suite->pid = tattle__fork_server_pid(suite->server);
    bool timed_out;
    int interrupted;
    int result = wait_fixture(scheduler, suite, run, timeout_ms, true,
                              &run->fixture_stacks, &timed_out, &interrupted);
    if (result == 0) {
        /* Nothing of the suite's tests runs yet: every process below the
         * server is before_all's. */
        tattle__process_tree_list(suite->pid, &suite->helpers);
        return;
    }
    if (interrupted)
        scheduler->stopping = interrupted;
    forget_suite_server(scheduler, suite);
    drain_outputs(run);
    struct tattle__slot_reading reading;
    tattle__slot_read_of(run->slot, SLOT_BYTES, suite->pid, &reading);
    suite->failure =
        fixture_failure(scheduler, suite, "before_all", &reading, timed_out,
                        timeout_ms, interrupted, result != 1);
    tattle__slot_reading_release(&reading);
    tattle__slot_reset(run->slot, SLOT_BYTES);
}

/* Runs after_all in `run`'s job slot (its test has finished and nothing of
 * it is left) and ends the suite server; *failure says how it failed, and
 * *stacks (which must be zero) where its threads were when it ran out of
 * time. What after_all prints is added to the job's captures when
 * `keep_output`, else dropped. */
static void end_suite_server(struct tattle__scheduler *scheduler,
                             struct suite_server *suite, struct running *run,
                             long timeout_ms, bool keep_output,
                             struct tattle__stacks *stacks,
                             struct tattle__fixture_failure *failure)
{
    *failure = (struct tattle__fixture_failure){0};
    tattle__slot_reset(run->slot, SLOT_BYTES);
    int result = tattle__fork_server_end_suite(
        suite->server, (unsigned)(run - scheduler->running));
    bool timed_out = false;
    int interrupted = 0;
    if (result == 0)
        result = wait_fixture(scheduler, suite, run, timeout_ms, keep_output,
                              stacks, &timed_out, &interrupted);
    if (interrupted)
        scheduler->stopping = interrupted;
    /* It ends after reporting: wait for that, so its pipes are quiet. */
    forget_suite_server(scheduler, suite);
    for (int stream = 0; stream < 2; stream++) {
        if (keep_output)
            while (read_output(run, stream))
                ;
        else
            drain_fixture_output(run, stream, false);
    }
    if (result != 0 && suite->suite->options.after_all) {
        struct tattle__slot_reading reading;
        tattle__slot_read_of(run->slot, SLOT_BYTES, suite->pid, &reading);
        *failure =
            fixture_failure(scheduler, suite, "after_all", &reading, timed_out,
                            timeout_ms, interrupted, result != 1);
        tattle__slot_reading_release(&reading);
    }
    tattle__slot_reset(run->slot, SLOT_BYTES);
}

/* An after_all that failed after its suite's tests had been reported:
 * the failure goes to the callbacks as a result of its own, with what
 * the fixture printed (NULL captures: nothing was captured) and where its
 * threads were when it ran out of time (NULL: nothing was taken), and
 * fails the run. */
static void report_late_after_all(struct tattle__scheduler *scheduler,
                                  struct suite_server *suite,
                                  const struct tattle__fixture_failure *failure,
                                  uint64_t started_us,
                                  const struct tattle__capture *captures,
                                  struct tattle__stacks *stacks)
{
    scheduler->late_fixture_failures++;
    const struct tattle__schedule_callbacks *callbacks = scheduler->callbacks;
    if (callbacks->late_after_all_failed)
        callbacks->late_after_all_failed(
            callbacks->ctx, suite->suite, failure,
            tattle__now_us() - started_us, captures ? &captures[0] : NULL,
            captures ? &captures[1] : NULL, stacks);
    else
        fprintf(stderr, "tattle: %s\n", failure->message);
}

/* Ends a suite server whose tests have all been reported, in `run`'s job
 * slot (idle, or a test's that has not started yet): what its after_all
 * prints is captured in the slot for that fixture alone. */
static void end_reported_suite_server(struct tattle__scheduler *scheduler,
                                      struct suite_server *suite,
                                      struct running *run)
{
    uint64_t started_us = tattle__now_us();
    struct tattle__fixture_failure failure;
    tattle__capture_reset(&run->captures[0]);
    tattle__capture_reset(&run->captures[1]);
    struct tattle__stacks stacks = {0};
    end_suite_server(scheduler, suite, run, suite->timeout_ms, true, &stacks,
                     &failure);
    if (failure.message)
        report_late_after_all(scheduler, suite, &failure, started_us,
                              run->captures, &stacks);
    tattle__capture_reset(&run->captures[0]);
    tattle__capture_reset(&run->captures[1]);
    tattle__stacks_release(&stacks);
    fixture_failure_release(&failure);
}

/* A suite server died while its tests ran (a test killed it, or it
 * crashed): they died with it (their parent-death signal). Each is
 * reported with the error, and so is every later test of the suite. */
static void suite_server_died(struct tattle__scheduler *scheduler,
                              struct suite_server *suite)
{
    int index = (int)(suite - scheduler->suites);
    /* Tests that ended before it did have their notices queued (its
     * spawns are answered before start_next goes on). */
    struct tattle__server_notice notice;
    while (tattle__fork_server_read_notice(suite->server, &notice) == 1) {
        if (notice.kind != TATTLE__NOTICE_EXITED ||
            notice.job >= scheduler->job_count)
            continue;
        struct running *run = &scheduler->running[notice.job];
        if (!run->busy || run->reaped || run->pid != notice.pid ||
            run->server != suite->server)
            continue;
        run->reaped = true;
        run->wait_status = notice.status;
        run->deadline_us = 0;
        kill_leftovers(scheduler, run);
    }
    suite_server_status(scheduler, suite);
    struct tattle__buffer how = {0};
    if (suite->exited)
        describe_status(&how, suite->exit_status);
    else
        tattle__buffer_printf(&how, "ended");
    struct tattle__buffer text = {0};
    tattle__buffer_printf(
        &text,
        "the suite server of '%s' (the process before_all ran in, pid %d) %s "
        "while this test ran; the test was killed with it and after_all did "
        "not run",
        suite->suite->name, (int)suite->pid, how.data ? how.data : "");
    char *while_running = tattle__buffer_take(&text);
    tattle__buffer_printf(&text,
                          "the suite server of '%s' (the process before_all "
                          "ran in, pid %d) %s before this test could start",
                          suite->suite->name, (int)suite->pid,
                          how.data ? how.data : "");
    suite->failure.message = tattle__buffer_take(&text);
    tattle__buffer_release(&how);
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        struct running *run = &scheduler->running[i];
        if (!run->busy || run->suite != index || run->reaped)
            continue;
        run->reaped = true;
        run->server_lost = true;
        run->deadline_us = 0;
        free(run->fixture_error);
        run->fixture_error = tattle__strdup(while_running);
        kill_leftovers(scheduler, run);
    }
    free(while_running);
    forget_suite_server(scheduler, suite);
    /* What its tests and helpers left behind is the fork server's now (the
     * suite server's parent, a subreaper too): swept there, once the
     * fork server's open spawns are answered. */
    kill_strays(scheduler, scheduler->servers[0]);
}

/* ---- starting and finishing ---- */

static void finish(struct tattle__scheduler *scheduler, struct running *run)
{
    drain_outputs(run);
    struct tattle__outcome outcome = {
        .forked = !run->server_lost && run->pid > 0,
        .wait_status = run->wait_status,
        .timed_out = run->timed_out,
        .interrupted_by = run->interrupted_by,
        .started_us = run->started_us,
        .duration_us = tattle__now_us() - run->started_us,
        .stdout_capture = &run->captures[0],
        .stderr_capture = &run->captures[1],
        .trace_error = run->trace_error,
        .stacks = &run->stacks,
    };
    tattle__slot_read_of(run->slot, SLOT_BYTES, run->pid, &outcome.reading);
    forget_what_an_earlier_ring_took(run, &outcome.reading);
    outcome.crash_maps = run->crash_maps;
    if (run->trace) {
        int error = tattle__trace_session_freeze(run->trace, &outcome.trace);
        if (error != 0)
            outcome.trace_error = strerror(-error);
        outcome.trace_corruption = tattle__trace_session_corruption(run->trace);
        /* Every process that mapped the arena is dead: it may serve again. */
        tattle__trace_session_mark_reusable(run->trace);
        tattle__trace_session_destroy(run->trace);
        run->trace = NULL;
    }
    if (run->suite >= 0) {
        /* The suite's last test: after_all, reported with this test,
         * what it prints after the test's own output, under a heading. */
        struct suite_server *suite = &scheduler->suites[run->suite];
        suite->running--;
        const struct tattle__schedule_callbacks *callbacks =
            scheduler->callbacks;
        if (suite->server && suite->running == 0 && !scheduler->stopping &&
            !(callbacks->suite_pending &&
              callbacks->suite_pending(callbacks->ctx, suite->suite,
                                       &run->job))) {
            struct tattle__buffer heading = {0};
            tattle__buffer_printf(
                &heading, "[tattle: what after_all of suite '%s' printed]",
                suite->suite->name);
            run->output_heading = heading.data;
            end_suite_server(scheduler, suite, run, run->job.timeout_ms, true,
                             &run->fixture_stacks, &run->after_all_error);
            run->output_heading = NULL;
            run->headed[0] = run->headed[1] = false;
            tattle__buffer_release(&heading);
        }
    }
    struct tattle__fixture_failure fixture_error = {
        run->fixture_error, run->fixture_frames, run->fixture_frame_count};
    outcome.fixture_error = run->fixture_error ? &fixture_error : NULL;
    outcome.after_all_error =
        run->after_all_error.message ? &run->after_all_error : NULL;
    outcome.fixture_stacks = &run->fixture_stacks;
    run->busy = false;
    scheduler->running_count--;
    scheduler->callbacks->finished(scheduler->callbacks->ctx, &run->job,
                                   &outcome);
    tattle__slot_reading_release(&outcome.reading);
    tattle__stacks_release(&run->stacks);
    tattle__stacks_release(&run->fixture_stacks);
    free(run->crash_maps);
    run->crash_maps = NULL;
    /* Reaped with their process: nothing of them is left to wait for. */
    release_stopped_tracees(run);
    free(run->tracees);
    run->tracees = NULL;
    run->tracee_count = 0;
    free(run->fixture_error);
    run->fixture_error = NULL;
    run->fixture_frames = NULL;
    run->fixture_frame_count = 0;
    fixture_failure_release(&run->after_all_error);
}

/* Finishes the test once it was reaped and nothing of it is left. */
static void finish_when_gone(struct tattle__scheduler *scheduler,
                             struct running *run)
{
    if (!run->busy || !run->reaped)
        return;
    unsigned job = (unsigned)(run - scheduler->running);
    if (run->killing)
        run->killing = tattle__job_cgroup_populated(&scheduler->cgroups, job);
    forget_dead_strays(scheduler);
    if (!run->killing && scheduler->strays.count == 0)
        finish(scheduler, run);
}

/* Moves the threads a taking of stacks left traced into the run's own
 * list: a thread still traced by the runner traps at its next stop and, once
 * dead, is a zombie only the runner can reap, so it is never dropped. */
static void keep_tracees(struct running *run, struct tattle__stacks *stacks)
{
    if (stacks->still_traced_count > 0) {
        run->tracees = tattle__realloc(
            run->tracees, (run->tracee_count + stacks->still_traced_count) *
                              sizeof *run->tracees);
        memcpy(run->tracees + run->tracee_count, stacks->still_traced,
               stacks->still_traced_count * sizeof *run->tracees);
        run->tracee_count += stacks->still_traced_count;
    }
    free(stacks->still_traced);
    stacks->still_traced = NULL;
    stacks->still_traced_count = 0;
}

/* Stacks and maps taken at a ring of the crash doorbell belong with the
 * crash the test died of only when that crash had rung: an honest crash handler
 * adds its crash record to the slot before it rings, so a crash record of
 * the test process (or one dropped for want of room) that came after the
 * ring the runner last answered is a crash that did not ring, and the
 * stacks are of another moment (a forged ring). The runner compares what
 * it counted at the ring with what it reads now, both of the test process
 * alone: a process the test forked that crashed after the ring (at the
 * test's death, say) leaves the stacks of the test's crash in place. A crash
 * failure carries stacks only with the slot's crash record of its signal
 * (runner/outcome.c), so a test that replaced tattle's handler keeps stale
 * stacks only by forging that record too, before its ring: then the frames it
 * reports are forged as well. Stacks taken at a timeout are left alone. */
static void
forget_what_an_earlier_ring_took(struct running *run,
                                 const struct tattle__slot_reading *reading)
{
    if (reading->crash_records == run->crash_records_at_ring &&
        reading->failures_dropped == run->failures_dropped_at_ring)
        return;
    /* Its maps too: the crash's addresses are looked up in the runner's
     * image, as for a crash that never rang. */
    free(run->crash_maps);
    run->crash_maps = NULL;
    if (run->stacks_ring == 0 || !run->stacks.taken)
        return;
    keep_tracees(run, &run->stacks);
    tattle__stacks_release(&run->stacks);
    run->stacks.taken = true;
    run->stacks.note = "the crash doorbell was last answered before this "
                       "crash: none were taken at it";
    run->stacks_ring = 0;
}

/* Lets go of every tracee of the run that shows a stop (detached, with the
 * signal it stopped for) or its end (reaped); never waits. */
static void release_stopped_tracees(struct running *run)
{
    size_t kept = 0;
    for (size_t i = 0; i < run->tracee_count; i++) {
        int status;
        pid_t tid = run->tracees[i];
        pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
        bool released = got < 0 || (got > 0 && !WIFSTOPPED(status));
        if (got > 0 && WIFSTOPPED(status)) {
            /* An event stop (the interrupt) resumes with no signal; a
             * signal's delivery stop hands the signal back. */
            int resume = status >> 16 != 0 ? 0 : WSTOPSIG(status);
            released =
                ptrace(PTRACE_DETACH, tid, NULL, (void *)(intptr_t)resume) == 0;
        }
        if (!released)
            run->tracees[kept++] = tid;
    }
    run->tracee_count = kept;
}

/* Once the test was killed: its tracees die and are reaped, within a
 * bounded wait; any left are polled by the loop until they are. */
static void reap_killed_tracees(struct running *run)
{
    if (run->tracee_count == 0)
        return;
    struct tattle__stacks leftover = {
        .still_traced = run->tracees,
        .still_traced_count = run->tracee_count,
    };
    tattle__stacks_forget_tracees(&leftover);
    run->tracee_count = leftover.still_traced_count;
}

/* Lists the live processes of a test, the test process first: its
 * threads are the ones that matter. */
static void list_test_processes(struct tattle__scheduler *scheduler,
                                struct running *run,
                                struct tattle__pid_list *processes)
{
    unsigned job = (unsigned)(run - scheduler->running);
    if (tattle__job_cgroups_available(&scheduler->cgroups)) {
        /* One more than the stacks or the peek take: see halt_leftovers. */
        pid_t listed[STACKS_PROCESSES + 1];
        size_t count = tattle__job_cgroup_list(&scheduler->cgroups, job, listed,
                                               STACKS_PROCESSES + 1);
        tattle__pid_list_add(processes, run->pid);
        for (size_t i = 0; i < count; i++)
            if (listed[i] > 0 && !tattle__pid_list_has(processes, listed[i]))
                tattle__pid_list_add(processes, listed[i]);
    } else {
        tattle__process_tree_list(run->pid, processes);
    }
}

/* Takes the stacks of every thread of every live process of a test that
 * timed out, once it was halted and before it is killed; `before` are the
 * threads' states just before the halt. */
static void take_stacks(struct tattle__scheduler *scheduler,
                        struct running *run,
                        const struct tattle__thread_states *before)
{
    /* Stacks taken at a crash doorbell the test went on from are not where
     * it is now; their threads still traced stay in the run's list. */
    keep_tracees(run, &run->stacks);
    tattle__stacks_release(&run->stacks);
    run->stacks_ring = 0;
    struct tattle__pid_list processes = {0};
    list_test_processes(scheduler, run, &processes);
    take_stacks_of(scheduler, &processes, before, &run->stacks);
    tattle__pid_list_release(&processes);
}

/* Whether `pid` is among the processes of job `job`'s cgroup. */
static bool in_job_cgroup(struct tattle__scheduler *scheduler, unsigned job,
                          pid_t pid)
{
    pid_t listed[STACKS_PROCESSES];
    size_t count = tattle__job_cgroup_list(&scheduler->cgroups, job, listed,
                                           STACKS_PROCESSES);
    for (size_t i = 0; i < count; i++)
        if (listed[i] == pid)
            return true;
    return false;
}

/* Halts every process of a test where it is, before anything of it is
 * read: its job's cgroup is frozen where there is one (a process forked
 * meanwhile starts frozen), or else every process of its tree is sent
 * SIGSTOP as it is found until a walk finds no new one, and the runner
 * waits until their threads show stopped. Bounded: a thread in an
 * uninterruptible sleep halts only when it leaves it. The test stays
 * halted until it is killed. */
static void halt_test(struct tattle__scheduler *scheduler, struct running *run)
{
    unsigned job = (unsigned)(run - scheduler->running);
    uint64_t deadline_us = halt_deadline(scheduler);
    if (tattle__job_cgroups_available(&scheduler->cgroups)) {
        run->frozen = true; /* thawed after the kill, whatever happened */
        if (tattle__job_cgroup_freeze(&scheduler->cgroups, job, deadline_us) &&
            in_job_cgroup(scheduler, job, run->pid))
            return;
        /* A test that has not joined its cgroup yet is not frozen with it:
         * its tree is stopped as where there are no cgroups. */
    }
    halt_tree(run->pid, deadline_us);
}

/* TATTLE_TEST_DELAY_BEFORE_KILL_MS, a hook for the project's own tests
 * only: the runner waits that long between reading a stopped test (its
 * live mailboxes and stacks) and killing it, which makes any work the test
 * could still do in between certain to show. */
static void test_hook_delay_before_kill(void)
{
    const char *text = getenv("TATTLE_TEST_DELAY_BEFORE_KILL_MS");
    long delay_ms = text ? strtol(text, NULL, 10) : 0;
    if (delay_ms <= 0 || delay_ms > 10000)
        return;
    struct timespec delay = {delay_ms / 1000, (delay_ms % 1000) * 1000000};
    while (nanosleep(&delay, &delay) != 0 && errno == EINTR)
        ;
}

/* The signal a crashing test rings the runner with. */
static int doorbell_signal(void)
{
    return SIGRTMIN + 3;
}

/* The runner's thread that reads the signalfd while a run goes on, or 0. */
static _Atomic pid_t doorbell_reader;
/* The runner process that installed forward_doorbell. */
static _Atomic pid_t doorbell_runner;

/* A process forked in the runner (a reporter's, a listing's, before it
 * execs) is not the runner: the doorbell's signal does there what it does
 * anywhere, it ends the process. The forwarding handler and the runner's
 * blocking of the signal are undone in the child, right after the fork. */
static void default_doorbell_in_child(void)
{
    struct sigaction default_action = {.sa_handler = SIG_DFL};
    sigemptyset(&default_action.sa_mask);
    sigaction(doorbell_signal(), &default_action, NULL);
    sigset_t doorbell;
    sigemptyset(&doorbell);
    sigaddset(&doorbell, doorbell_signal());
    sigprocmask(SIG_UNBLOCK, &doorbell, NULL);
}

/* A ring delivered to another thread of the runner (a thread of the test
 * binary's own that does not block it) goes on to the reader, where the
 * signalfd sees it; the default action would end the runner. In a child
 * the signal reached before default_doorbell_in_child ran, it takes its
 * default action (once this handler returns and unblocks it). */
static void forward_doorbell(int signal_number)
{
    int saved_errno = errno;
    if (getpid() != atomic_load(&doorbell_runner)) {
        default_doorbell_in_child();
        raise(signal_number);
        errno = saved_errno;
        return;
    }
    pid_t reader = atomic_load(&doorbell_reader);
    if (reader > 0 && (pid_t)syscall(SYS_gettid) != reader)
        syscall(SYS_tgkill, getpid(), reader, signal_number);
    errno = saved_errno;
}

/* Moves the thread that crashed first and drops the frames of the crash
 * handler above the signal's return trampoline: its top frame is where it
 * crashed. `tid` comes from the slot: it only picks a thread. */
static void put_crashed_thread_first(struct tattle__stacks *stacks, pid_t tid)
{
    size_t index = 0;
    while (index < stacks->thread_count && stacks->threads[index].tid != tid)
        index++;
    if (index == stacks->thread_count)
        return;
    struct tattle_thread_stack crashed = stacks->threads[index];
    memmove(&stacks->threads[1], &stacks->threads[0],
            index * sizeof *stacks->threads);
    stacks->threads[0] = crashed;
    struct tattle_frame *frames = (struct tattle_frame *)crashed.frames;
    size_t trampoline = 0;
    while (
        trampoline < crashed.frame_count &&
        !(frames[trampoline].function &&
          (strcmp(frames[trampoline].function, "__restore_rt") == 0 ||
           strcmp(frames[trampoline].function, "__kernel_rt_sigreturn") == 0)))
        trampoline++;
    if (trampoline == crashed.frame_count)
        return;
    size_t dropped = trampoline + 1;
    for (size_t f = 0; f < dropped; f++) {
        free((char *)frames[f].function);
        free((char *)frames[f].file);
    }
    memmove(frames, frames + dropped,
            (crashed.frame_count - dropped) * sizeof *frames);
    stacks->threads[0].frame_count = crashed.frame_count - dropped;
}

/* The process thread `tid` belongs to (its Tgid), or 0 when it is gone. */
static pid_t process_of_thread(pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *status = fopen(path, "re");
    if (!status)
        return 0;
    char line[256];
    int tgid = 0;
    while (fgets(line, sizeof line, status))
        if (sscanf(line, "Tgid: %d", &tgid) == 1)
            break;
    fclose(status);
    return (pid_t)tgid;
}

/* Answers a ring at once: the handler stops waiting. */
static void answer_ring(struct running *run, uint32_t answer)
{
    atomic_store(&run->slot->crash_stop, answer);
    syscall(SYS_futex, (uint32_t *)&run->slot->crash_stop, FUTEX_WAKE,
            INT32_MAX, NULL, NULL, 0);
}

/* What the slot holds that the test's crash handler adds before it rings:
 * counted at each ring answered, compared once the test is gone
 * (forget_what_an_earlier_ring_took); and what the process has mapped
 * where its crash's addresses lie, to name them by (what it loaded itself
 * among them). */
static void take_what_the_ring_shows(struct running *run)
{
    struct tattle__slot_reading reading;
    tattle__slot_read_of(run->slot, SLOT_BYTES, run->pid, &reading);
    run->crash_records_at_ring = reading.crash_records;
    run->failures_dropped_at_ring = reading.failures_dropped;
    free(run->crash_maps);
    run->crash_maps = tattle__symbolize_take_maps(
        run->pid, reading.crash_frames, reading.crash_frame_count);
    tattle__slot_reading_release(&reading);
}

/* A doorbell rang: every test whose crash handler waits has its maps
 * read (where its crash's addresses are looked up) and, traced, the
 * stacks of all its threads taken, and is answered. A later ring (the
 * crash after a forged one) takes them again and replaces them, up to
 * DOORBELL_ANSWERS_MAX rings per test; a ring past those is answered at
 * once without stacks, so a flood of forgeries costs little. */
static void answer_doorbells(struct tattle__scheduler *scheduler)
{
    settle_spawns(scheduler);
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        struct running *run = &scheduler->running[i];
        /* A test stopped (timed out, interrupted, killed) keeps the stacks
         * it was stopped with: a late ring replaces nothing. */
        if (!run->busy || run->reaped || run->doorbell_closed ||
            run->timed_out || run->interrupted_by || run->killing ||
            run->pid <= 0 ||
            atomic_load(&run->slot->crash_stop) != TATTLE__CRASH_STOP_RUNG)
            continue;
        pid_t crashed = atomic_load(&run->slot->crash_tid);
        if (crashed <= 0 || process_of_thread(crashed) != run->pid ||
            run->rings_answered >= DOORBELL_ANSWERS_MAX) {
            /* A process the test forked crashed (or the ring is forged, or
             * one too many): the test goes on untouched, and may ring
             * again for itself. */
            answer_ring(run, TATTLE__CRASH_STOP_NONE);
            continue;
        }
        run->rings_answered++;
        take_what_the_ring_shows(run);
        if (!run->job.traced) {
            answer_ring(run, TATTLE__CRASH_STOP_TAKEN);
            continue;
        }
        take_stacks(scheduler, run, NULL);
        run->stacks_ring = run->rings_answered;
        put_crashed_thread_first(&run->stacks, crashed);
        answer_ring(run, TATTLE__CRASH_STOP_TAKEN);
        /* Threads never seen stopped are let go once they stop (or end):
         * the test may live on, so they are kept, never dropped. */
        keep_tracees(run, &run->stacks);
        release_stopped_tracees(run);
    }
}

/* Reads one signal from the signalfd: the one that stops the run, or 0
 * when it was a crash doorbell (answered here). */
static int read_stop_signal(struct tattle__scheduler *scheduler)
{
    struct signalfd_siginfo info = {0};
    ssize_t got = read(scheduler->signal_fd, &info, sizeof info);
    if (got == (ssize_t)sizeof info &&
        (int)info.ssi_signo == doorbell_signal()) {
        answer_doorbells(scheduler);
        return 0;
    }
    if (got < 0 && errno == EAGAIN)
        return 0;
    return info.ssi_signo ? (int)info.ssi_signo : SIGINT;
}

static void stop_test(struct tattle__scheduler *scheduler, struct running *run)
{
    /* The on-exit barrier: the test is halted first, so its live
     * mailboxes, its stacks and (after the kill) its frozen trace all show
     * the same moment; the mailboxes are read while the processes that own
     * them are still alive, then the whole tree is killed. The threads'
     * states are read before the halt, which would show them all
     * stopped. */
    bool want_stacks = run->timed_out && !run->interrupted_by;
    struct tattle__thread_states states = {0};
    if (want_stacks) {
        struct tattle__pid_list processes = {0};
        list_test_processes(scheduler, run, &processes);
        tattle__thread_states_read(processes.items, processes.count, &states);
        tattle__pid_list_release(&processes);
    }
    /* A doorbell read from now on is not answered: the test is stopped. */
    run->doorbell_closed = true;
    halt_test(scheduler, run);
    if (run->trace) {
        struct tattle__pid_list halted = {0};
        if (tattle__trace_session_peeks_processes(run->trace))
            list_test_processes(scheduler, run, &halted);
        tattle__trace_session_snapshot_live(run->trace, halted.items,
                                            halted.count);
        tattle__pid_list_release(&halted);
    }
    if (want_stacks)
        take_stacks(scheduler, run, &states);
    tattle__thread_states_release(&states);
    test_hook_delay_before_kill();
    kill_running_test(scheduler, run);
    keep_tracees(run, &run->stacks);
    reap_killed_tracees(run);
    run->deadline_us = 0;
}

static int start_next(struct tattle__scheduler *scheduler, struct running *run)
{
    struct tattle__job job;
    if (!scheduler->callbacks->next(scheduler->callbacks->ctx, &job)) {
        scheduler->exhausted = true;
        return 0;
    }
    *run = (struct running){
        .job = job,
        .output_fds = {run->output_fds[0], run->output_fds[1]},
        .captures = {run->captures[0], run->captures[1]},
        .slot = run->slot,
        .suite = -1,
    };
    tattle__slot_reset(run->slot, SLOT_BYTES);
    tattle__capture_reset(&run->captures[0]);
    tattle__capture_reset(&run->captures[1]);
    if (job.traced) {
        int error =
            tattle__trace_session_create(&run->trace, &job.trace_config);
        if (error != 0) {
            /* The test still runs; its result says why it has no trace. */
            run->trace = NULL;
            run->trace_error = strerror(-error);
        }
    }
    scheduler->callbacks->started(scheduler->callbacks->ctx, &run->job);
    run->server = scheduler->servers[run - scheduler->running];
    if (has_suite_fixture(job.entry->suite)) {
        struct suite_server *suite = suite_of(scheduler, job.entry->suite);
        run->suite = (int)(suite - scheduler->suites);
        if (!suite->server && !suite->failure.message)
            start_suite_server(scheduler, suite, run, job.timeout_ms);
        if (suite->failure.message) {
            /* The test cannot run: it is reported with the suite's error
             * (and, first after a failed before_all, with its output). */
            suite->running++;
            run->busy = true;
            scheduler->running_count++;
            run->fixture_error = tattle__strdup(suite->failure.message);
            run->fixture_frames = suite->failure.frames;
            run->fixture_frame_count = suite->failure.frame_count;
            run->started_us = tattle__now_us();
            run->pid = 0;
            run->reaped = true;
            run->server_lost = true;
            finish(scheduler, run);
            return 0;
        }
        run->server = suite->server;
        /* What before_all printed is not this test's output. */
        tattle__capture_reset(&run->captures[0]);
        tattle__capture_reset(&run->captures[1]);
        tattle__slot_reset(run->slot, SLOT_BYTES);
    }
    /* At a crash the test rings and waits while its maps are read and,
     * traced, every thread's stack is taken: as long as taking may cost,
     * and a second more. */
    double wait_ms = ((double)stacks_budget_us / 1000.0 + 1000.0) *
                     scheduler->timeout_multiplier;
    atomic_store(&run->slot->doorbell_pid,
                 (int32_t)atomic_load(&doorbell_runner));
    atomic_store(&run->slot->doorbell_signal, doorbell_signal());
    atomic_store(&run->slot->doorbell_wait_ms, (uint32_t)wait_ms);
    struct tattle__spawn_request request = {
        .job = (unsigned)(run - scheduler->running),
        .test = job.entry->test,
        .suite = job.entry->suite,
        .arena_fd = run->trace ? tattle__trace_session_fd(run->trace) : -1,
        .arena_size = run->trace ? tattle__trace_session_size(run->trace) : 0,
    };
    run->started_us = tattle__now_us();
    int error = tattle__fork_server_request_spawn(run->server, &request);
    /* A suite server's answer is waited for here: how it failed is told
     * on the suite's tests. The fork server's comes with its notices. */
    if (error == 0 && run->suite >= 0)
        error = tattle__fork_server_await_started(run->server, request.job,
                                                  &run->pid);
    if (error != 0 && run->suite >= 0) {
        /* The suite server died (before or while it was asked): reported
         * on this test and the rest of the suite. */
        struct suite_server *suite = &scheduler->suites[run->suite];
        if (error != -EPIPE)
            tattle__process_tree_kill(suite->pid, true, NULL);
        run->pid = 0;
        run->reaped = true;
        run->server_lost = true;
        suite_server_died(scheduler, suite);
        struct tattle__buffer text = {0};
        tattle__buffer_printf(&text,
                              "the suite server of '%s' (the process "
                              "before_all ran in, pid %d) ended while this "
                              "test was being started (the test may have "
                              "run and ended it); after_all did not run",
                              suite->suite->name, (int)suite->pid);
        run->fixture_error = tattle__buffer_take(&text);
        suite->running++;
        run->busy = true;
        scheduler->running_count++;
        finish(scheduler, run);
        return 0;
    }
    if (error != 0) {
        if (run->trace)
            tattle__trace_session_destroy(run->trace);
        run->trace = NULL;
        return error;
    }
    if (run->suite >= 0)
        scheduler->suites[run->suite].running++;
    else
        run->spawning = true;
    run->deadline_us = job.timeout_ms > 0
                           ? run->started_us + (uint64_t)job.timeout_ms * 1000u
                           : 0;
    run->busy = true;
    scheduler->running_count++;
    return 0;
}

/* Stops every running test and reports it as interrupted once it is
 * gone: its output is drained and its trace frozen like any other's, so
 * the report still says what it was doing. */
static void stop_all(struct tattle__scheduler *scheduler, int interrupted_by)
{
    if (!scheduler->stopping)
        scheduler->stopping = interrupted_by;
    settle_spawns(scheduler);
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        struct running *run = &scheduler->running[i];
        if (!run->busy || run->interrupted_by)
            continue;
        run->interrupted_by = interrupted_by;
        if (!run->reaped)
            stop_test(scheduler, run);
    }
}

/* A test could not be started: the run stops (the tests running are
 * reported as interrupted). */
static void stop_on_start_error(struct tattle__scheduler *scheduler, int error)
{
    fprintf(stderr, "tattle: cannot start a test: %s\n", strerror(-error));
    scheduler->result = error;
    stop_all(scheduler, -1);
}

/* A failed spawn, read with the notices, stops the run (not from there:
 * stopping reads notices too). */
static void act_on_spawn_error(struct tattle__scheduler *scheduler)
{
    if (!scheduler->spawn_error)
        return;
    int error = scheduler->spawn_error;
    scheduler->spawn_error = 0;
    if (scheduler->result == 0) /* said once: the run is stopping already */
        stop_on_start_error(scheduler, error);
}

/* Takes the notices of one server (a fork, job or suite server): spawns
 * answered and tests ended. Returns 0 or what reading them failed with. */
static int take_server_notices(struct tattle__scheduler *scheduler,
                               struct tattle__fork_server *server)
{
    struct tattle__server_notice notice;
    int got;
    while ((got = tattle__fork_server_read_notice(server, &notice)) == 1) {
        if (notice.kind == TATTLE__NOTICE_STARTED) {
            struct running *run = notice.job < scheduler->job_count
                                      ? &scheduler->running[notice.job]
                                      : NULL;
            if (run && run->busy && run->spawning && run->server == server)
                take_spawn_answer(scheduler, run, notice.status, notice.pid);
            continue;
        }
        if (notice.job == TATTLE__SUITE_SERVER_JOB) {
            for (size_t i = 0; i < scheduler->suite_count; i++) {
                struct suite_server *suite = &scheduler->suites[i];
                if (suite->pid == notice.pid && !suite->exited) {
                    suite->exited = true;
                    suite->exit_status = notice.status;
                }
            }
            continue;
        }
        if (notice.job >= scheduler->job_count)
            continue;
        struct running *run = &scheduler->running[notice.job];
        if (!run->busy || run->reaped || run->pid != notice.pid ||
            run->server != server)
            continue;
        run->reaped = true;
        run->wait_status = notice.status;
        run->deadline_us = 0;
        kill_leftovers(scheduler, run);
    }
    return got < 0 ? got : 0;
}

static void take_notices(struct tattle__scheduler *scheduler)
{
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        if (!first_job_of_its_server(scheduler, i))
            continue;
        int got = take_server_notices(scheduler, scheduler->servers[i]);
        if (got < 0 && !scheduler->stopping)
            scheduler->result = got;
    }
    for (size_t i = 0; i < scheduler->suite_count; i++) {
        struct suite_server *suite = &scheduler->suites[i];
        if (suite->server && take_server_notices(scheduler, suite->server) < 0)
            suite_server_died(scheduler, suite);
    }
}

/* A suite server that died outside its fixtures: a test killed it, or it
 * crashed. */
static void check_suite_servers(struct tattle__scheduler *scheduler)
{
    for (size_t i = 0; i < scheduler->suite_count; i++) {
        struct suite_server *suite = &scheduler->suites[i];
        if (!suite->server)
            continue;
        struct pollfd probe = {tattle__fork_server_pidfd(suite->server), POLLIN,
                               0};
        if (probe.fd >= 0 && poll(&probe, 1, 0) == 1)
            suite_server_died(scheduler, suite);
    }
}

/* Ends the suite servers still running when the run is over: after_all
 * runs (in job slot 0, bounded by the timeout of the test that started
 * the suite) unless the run was stopped; the test its failure belongs
 * with was already reported, so it is reported on its own. */
static void end_suite_servers(struct tattle__scheduler *scheduler)
{
    for (size_t i = 0; i < scheduler->suite_count; i++) {
        struct suite_server *suite = &scheduler->suites[i];
        if (!suite->server)
            continue;
        if (scheduler->stopping || scheduler->result < 0) {
            tattle__process_tree_kill(suite->pid, true, NULL);
            forget_suite_server(scheduler, suite);
            continue;
        }
        end_reported_suite_server(scheduler, suite, &scheduler->running[0]);
    }
}

/* The fork or job server whose pidfd is `pidfd`. */
static const struct tattle__fork_server *
server_of_pidfd(const struct tattle__scheduler *scheduler, int pidfd)
{
    for (unsigned i = 0; i < scheduler->job_count; i++)
        if (tattle__fork_server_pidfd(scheduler->servers[i]) == pidfd)
            return scheduler->servers[i];
    return NULL;
}

/* Waits, bounded, until the process `pid` (not the runner's child: its
 * server reaps it) is gone. */
static void await_gone(pid_t pid, int timeout_ms)
{
    int pidfd = pidfd_open(pid, 0);
    if (pidfd < 0)
        return; /* gone already */
    struct pollfd gone = {pidfd, POLLIN, 0};
    while (poll(&gone, 1, timeout_ms) < 0 && errno == EINTR)
        ;
    close(pidfd);
}

/* A fork or job server died under the running tests: the run stops on an
 * internal error. The tests it forked died with it (their parent-death
 * signal; suite servers, forked by the fork server, die with it too) and
 * come to the runner, the subreaper, to be collected; every other running
 * test is killed, and its end awaited, so that none is reported while it
 * still runs. No after_all runs. */
static void server_died(struct tattle__scheduler *scheduler,
                        const struct tattle__fork_server *dead)
{
    if (scheduler->result == 0)
        scheduler->result = -EPIPE;
    if (!scheduler->stopping)
        scheduler->stopping = -1;
    bool suites_lost = dead == scheduler->servers[0];
    int wait_ms =
        (int)(SUITE_SERVER_EXIT_WAIT_MS * scheduler->timeout_multiplier);
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        struct running *run = &scheduler->running[i];
        if (!run->busy)
            continue;
        if (!run->interrupted_by)
            run->interrupted_by = -1;
        bool lost = run->server == dead || (run->suite >= 0 && suites_lost);
        if (!lost)
            settle_spawn(scheduler, run);
        if (run->spawning) {
            /* Forked or not, its process died with the server (the
             * parent-death signal), which cannot say which it was. */
            run->spawning = false;
            run->reaped = true;
            run->server_lost = true;
        }
        /* What it may have started dies with its job's cgroup: also when
         * its spawn's answer was read before (a sweep waiting on the
         * dead server's spawns takes the end of its channel for one). */
        if (run->server_lost &&
            tattle__job_cgroups_available(&scheduler->cgroups))
            tattle__job_cgroup_kill(&scheduler->cgroups, i);
        if (!run->reaped) {
            kill_running_test(scheduler, run);
            if (lost)
                while (waitpid(run->pid, &run->wait_status, __WALL) < 0 &&
                       errno == EINTR)
                    ;
            else
                await_gone(run->pid, wait_ms);
            run->reaped = true;
        }
        run->killing = false;
        finish(scheduler, run);
    }
}

/* Sends SIGCONT to every server: the fork and job servers and the suite
 * servers. */
static void continue_servers(const struct tattle__scheduler *scheduler)
{
    for (unsigned i = 0; i < scheduler->job_count; i++)
        if (first_job_of_its_server(scheduler, i))
            tattle__fork_server_continue(scheduler->servers[i]);
    for (size_t i = 0; i < scheduler->suite_count; i++)
        tattle__fork_server_continue(scheduler->suites[i].server);
}

/* Adds a server's two descriptors to the poll array at `count` (its
 * notices with `notice_role`, its death with `death_role`); notes
 * whether notices already read wait in its queue. Returns the new count. */
static size_t poll_server(struct pollfd *fds, int *roles, size_t count,
                          const struct tattle__fork_server *server,
                          int notice_role, int death_role, bool *has_notice)
{
    fds[count] = (struct pollfd){tattle__fork_server_fd(server), POLLIN, 0};
    roles[count++] = notice_role;
    fds[count] = (struct pollfd){tattle__fork_server_pidfd(server), POLLIN, 0};
    roles[count++] = death_role;
    if (tattle__fork_server_has_notice(server))
        *has_notice = true;
    return count;
}

static int loop_forked(struct tattle__scheduler *scheduler)
{
    unsigned jobs = scheduler->job_count;
    /* One block for the poll array and its owners: every page the runner
     * writes per test used to cost a page fault after each fork; it still
     * keeps the loop compact. */
    size_t room = jobs * 6 + 2 + 2 * TATTLE__SUITE_SERVERS_MAX;
    struct pollfd *fds = tattle__calloc(room, sizeof *fds);
    struct running **owners = tattle__calloc(room, sizeof *owners);
    int *roles = tattle__calloc(room, sizeof *roles);
    enum {
        ROLE_SIGNAL = -1,
        ROLE_SERVER = -2,
        ROLE_SERVER_DEATH = -3,
        ROLE_CGROUP = 2
    };

    for (;;) {
        /* A spawn's failure may have been read anywhere in the round (a
         * doorbell answered while after_all ran settles the spawns). */
        act_on_spawn_error(scheduler);
        /* Ask again every round: a finished test may have queued a retry. */
        scheduler->exhausted = false;
        for (unsigned i = 0;
             i < jobs && !scheduler->exhausted && !scheduler->stopping; i++) {
            if (scheduler->running[i].busy)
                continue;
            int error = start_next(scheduler, &scheduler->running[i]);
            if (error != 0) {
                stop_on_start_error(scheduler, error);
            } else if (!scheduler->running[i].busy) {
                i--; /* reported without running (its suite's fixture
                        failed): the slot takes the next test */
            }
        }
        if (scheduler->running_count == 0)
            break;

        size_t count = 0;
        uint64_t nearest = 0;
        bool has_queued_notice = false;
        fds[count] = (struct pollfd){scheduler->signal_fd, POLLIN, 0};
        roles[count++] = ROLE_SIGNAL;
        /* The servers' notices and deaths: the run ends with a fork or
         * job server, a suite server's death is its suite's. */
        for (unsigned i = 0; i < jobs; i++)
            if (first_job_of_its_server(scheduler, i))
                count = poll_server(fds, roles, count, scheduler->servers[i],
                                    ROLE_SERVER, ROLE_SERVER_DEATH,
                                    &has_queued_notice);
        for (size_t i = 0; i < scheduler->suite_count; i++)
            if (scheduler->suites[i].server)
                count =
                    poll_server(fds, roles, count, scheduler->suites[i].server,
                                ROLE_SERVER, ROLE_SERVER, &has_queued_notice);
        for (unsigned i = 0; i < jobs; i++) {
            struct running *run = &scheduler->running[i];
            if (!run->busy)
                continue;
            for (int s = 0; s < 2; s++) {
                fds[count] = (struct pollfd){run->output_fds[s], POLLIN, 0};
                owners[count] = run;
                roles[count++] = s;
            }
            if (run->killing) {
                fds[count] =
                    (struct pollfd){scheduler->cgroups.events[i], POLLPRI, 0};
                owners[count] = run;
                roles[count++] = ROLE_CGROUP;
            }
            if (run->deadline_us && !run->spawning &&
                (!nearest || run->deadline_us < nearest))
                nearest = run->deadline_us;
            if (run->tracee_count > 0) {
                /* Its tracees show their stops only to waitpid: poll. */
                uint64_t soon = tattle__now_us() + TRACEE_POLL_US;
                if (!nearest || soon < nearest)
                    nearest = soon;
            }
        }
        /* Strays being killed: their pidfds, bounded to what poll takes. */
        for (size_t i = 0; i < scheduler->strays.count && count < room; i++)
            if (scheduler->stray_pidfds[i] >= 0) {
                fds[count] =
                    (struct pollfd){scheduler->stray_pidfds[i], POLLIN, 0};
                roles[count++] = ROLE_CGROUP;
            }
        int wait_ms = -1;
        if (nearest) {
            uint64_t now = tattle__now_us();
            wait_ms = nearest > now ? (int)((nearest - now + 999) / 1000) : 0;
        }
        if (has_queued_notice)
            wait_ms = 0;
        /* A test may stop its server (SIGSTOP to its parent): the servers
         * are sent SIGCONT whenever a wait this long passes unanswered. */
        if (wait_ms < 0 || wait_ms > TATTLE__SERVER_NUDGE_MS)
            wait_ms = TATTLE__SERVER_NUDGE_MS;
        int ready = poll(fds, (nfds_t)count, wait_ms);
        if (ready == 0)
            continue_servers(scheduler);
        if (ready < 0 && errno != EINTR) {
            scheduler->result = -errno;
            stop_all(scheduler, -1);
            ready = 0;
        }
        for (size_t i = 0; ready > 0 && i < count; i++) {
            if (!fds[i].revents)
                continue;
            if (roles[i] == ROLE_SIGNAL) {
                int signal_number = read_stop_signal(scheduler);
                if (signal_number)
                    stop_all(scheduler, signal_number);
            } else if (roles[i] == ROLE_SERVER_DEATH) {
                take_notices(scheduler);
                server_died(scheduler, server_of_pidfd(scheduler, fds[i].fd));
                goto done;
            } else if (roles[i] == 0 || roles[i] == 1) {
                if (owners[i]->busy)
                    read_output(owners[i], roles[i]);
            }
        }
        for (unsigned i = 0; i < jobs; i++)
            if (scheduler->running[i].busy)
                release_stopped_tracees(&scheduler->running[i]);
        take_notices(scheduler);
        act_on_spawn_error(scheduler);
        check_suite_servers(scheduler);
        for (unsigned i = 0; i < jobs; i++)
            finish_when_gone(scheduler, &scheduler->running[i]);
        uint64_t now = tattle__now_us();
        for (unsigned i = 0; i < jobs; i++) {
            struct running *run = &scheduler->running[i];
            if (run->busy && !run->reaped && !run->spawning &&
                run->deadline_us && now >= run->deadline_us) {
                run->timed_out = true;
                stop_test(scheduler, run);
            }
        }
    }
done:
    end_suite_servers(scheduler);
    free(fds);
    free(owners);
    free(roles);
    if (scheduler->result < 0)
        return scheduler->result;
    return scheduler->stopping ? 1 : 0;
}

/* ---- --no-fork ---- */

static volatile sig_atomic_t in_process_interrupted;

static void note_interrupt(int signal_number)
{
    (void)signal_number;
    in_process_interrupted = 1;
}

/* --no-fork: when stdout carries a machine report, what a test or suite
 * fixture prints goes to stderr for as long as it runs. Returns the saved
 * stdout for stdout_restore, or -1 when nothing was swapped. */
static int stdout_to_stderr(const struct tattle__scheduler *scheduler)
{
    if (!scheduler->config.stdout_carries_report)
        return -1;
    fflush(stdout);
    int saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved_stdout >= 0)
        dup2(STDERR_FILENO, STDOUT_FILENO);
    return saved_stdout;
}

static void stdout_restore(int saved_stdout)
{
    if (saved_stdout < 0)
        return;
    fflush(stdout);
    dup2(saved_stdout, STDOUT_FILENO);
    close(saved_stdout);
}

/* --no-fork: a suite fixture in this process, recording into job 0's
 * slot. Returns its failure (message NULL: none). */
static struct tattle__fixture_failure
run_fixture_in_process(struct tattle__scheduler *scheduler,
                       struct suite_server *suite, const char *fixture,
                       void (*fn)(void), enum tattle__phase phase)
{
    struct running *run = &scheduler->running[0];
    struct tattle__fixture_failure failure = {0};
    if (!fn)
        return failure;
    tattle__slot_reset(run->slot, SLOT_BYTES);
    int saved_stdout = stdout_to_stderr(scheduler);
    bool completed = tattle__child_run_suite_fixture(fn, phase, run->slot);
    stdout_restore(saved_stdout);
    struct tattle__slot_reading reading;
    tattle__slot_read_of(run->slot, SLOT_BYTES, getpid(), &reading);
    if (!completed || !tattle__slot_reading_is_clean(&reading))
        failure = fixture_failure(scheduler, suite, fixture, &reading, false, 0,
                                  0, false);
    tattle__slot_reading_release(&reading);
    tattle__slot_reset(run->slot, SLOT_BYTES);
    return failure;
}

/* --no-fork: the run is over. A suite whose after_all has not run yet (a
 * --retry or --repeat run of its tests could still have come after its
 * last one, or --max-failures stopped the run first) runs it now; its
 * tests were reported, so a failure is a result of its own. */
static void end_suites_in_process(struct tattle__scheduler *scheduler)
{
    for (size_t i = 0; i < scheduler->suite_count; i++) {
        struct suite_server *suite = &scheduler->suites[i];
        if (!suite->pid || suite->failure.message)
            continue;
        uint64_t started_us = tattle__now_us();
        struct tattle__fixture_failure failure = run_fixture_in_process(
            scheduler, suite, "after_all", suite->suite->options.after_all,
            TATTLE__PHASE_TEARDOWN);
        suite->pid = 0;
        if (failure.message)
            report_late_after_all(scheduler, suite, &failure, started_us, NULL,
                                  NULL);
        fixture_failure_release(&failure);
    }
}

/* --no-fork: every test in this process, one after the other. The stop
 * signals only set a flag, checked between tests. */
static int loop_in_process(struct tattle__scheduler *scheduler)
{
    struct running *run = &scheduler->running[0];
    /* Asked once, not per test: a system call costs more than a trivial
     * test's whole run here. */
    const pid_t runner_pid = getpid();
    const pthread_t runner_thread = pthread_self();
    for (;;) {
        struct tattle__job job;
        if (!scheduler->callbacks->next(scheduler->callbacks->ctx, &job)) {
            end_suites_in_process(scheduler);
            return 0;
        }
        run->job = job;
        tattle__slot_reset_own(run->slot, SLOT_BYTES);
        scheduler->callbacks->started(scheduler->callbacks->ctx, &run->job);
        struct suite_server *suite = NULL;
        if (has_suite_fixture(job.entry->suite)) {
            suite = suite_of(scheduler, job.entry->suite);
            if (!suite->pid && !suite->failure.message)
                suite->failure = run_fixture_in_process(
                    scheduler, suite, "before_all",
                    suite->suite->options.before_all, TATTLE__PHASE_SETUP);
            suite->pid = getpid(); /* before_all ran in this process */
        }
        if (suite && suite->failure.message) {
            struct tattle__outcome failed = {.started_us = tattle__now_us(),
                                             .fixture_error = &suite->failure};
            tattle__slot_read(run->slot, SLOT_BYTES, &failed.reading);
            scheduler->callbacks->finished(scheduler->callbacks->ctx, &run->job,
                                           &failed);
            tattle__slot_reading_release(&failed.reading);
            if (in_process_interrupted)
                return 1;
            continue;
        }
        struct tattle__outcome outcome = {.started_us = tattle__now_us()};
        /* The same trace life cycle as a forked test, in this process; a
         * thread the test leaves running must not record after it. */
        struct tattle__trace_session *trace = NULL;
        if (job.traced &&
            tattle__trace_session_create(&trace, &job.trace_config) == 0)
            tattle__trace_session_activate(trace);
        int saved_stdout = stdout_to_stderr(scheduler);
        tattle__child_run(job.entry->test, job.entry->suite, run->slot,
                          runner_pid, runner_thread);
        stdout_restore(saved_stdout);
        if (trace)
            tattle__trace_session_child_finish(false);
        outcome.duration_us = tattle__now_us() - outcome.started_us;
        tattle__slot_read(run->slot, SLOT_BYTES, &outcome.reading);
        if (trace) {
            int error = tattle__trace_session_freeze(trace, &outcome.trace);
            if (error != 0)
                outcome.trace_error = strerror(-error);
            outcome.trace_corruption = tattle__trace_session_corruption(trace);
            tattle__trace_session_destroy(trace);
        }
        struct tattle__fixture_failure after_all_error = {0};
        const struct tattle__schedule_callbacks *callbacks =
            scheduler->callbacks;
        if (suite && !(callbacks->suite_pending &&
                       callbacks->suite_pending(callbacks->ctx, suite->suite,
                                                &run->job))) {
            tattle__slot_reset_own(run->slot, SLOT_BYTES);
            after_all_error = run_fixture_in_process(
                scheduler, suite, "after_all", suite->suite->options.after_all,
                TATTLE__PHASE_TEARDOWN);
            suite->pid = 0; /* a later run of the suite starts it again */
            if (after_all_error.message)
                outcome.after_all_error = &after_all_error;
        }
        scheduler->callbacks->finished(scheduler->callbacks->ctx, &run->job,
                                       &outcome);
        tattle__slot_reading_release(&outcome.reading);
        fixture_failure_release(&after_all_error);
        if (in_process_interrupted)
            return 1;
    }
}

/* ---- life cycle ---- */

/* How many servers fork the tests of `jobs` jobs: one per job, up to as
 * many as there are processors (forks beyond those cannot run side by
 * side); each serves a block of jobs that follow one another. */
static unsigned server_count(unsigned jobs)
{
    /* The processors this process may run on, not those the machine has:
     * a container given 2 of 64 runs 2 forks at a time. */
    cpu_set_t allowed;
    long processors = sched_getaffinity(0, sizeof allowed, &allowed) == 0
                          ? CPU_COUNT(&allowed)
                          : sysconf(_SC_NPROCESSORS_ONLN);
    if (processors < 1)
        processors = 1;
    return jobs < (unsigned long)processors ? jobs : (unsigned)processors;
}

/* Starts the job server of jobs `first` to `first + count - 1` (a block
 * past the first): it is given their slots, pipes and cgroups only, and no
 * other job's slot is mapped into it (each is kept out of the fork that
 * makes it). */
static int start_job_server(struct tattle__scheduler *scheduler,
                            const struct tattle__fork_server_config *all,
                            unsigned first, unsigned count)
{
    const struct tattle__job_cgroups *cgroups = &scheduler->cgroups;
    struct tattle__job_cgroups own = {0};
    if (tattle__job_cgroups_available(cgroups))
        own = (struct tattle__job_cgroups){
            .run_path = cgroups->run_path,
            .jobs = count,
            .directories = &cgroups->directories[first],
            .procs = &cgroups->procs[first],
            .events = &cgroups->events[first],
        };
    struct tattle__fork_server_config config = *all;
    config.jobs = count;
    config.job_base = first;
    config.slots = &all->slots[first];
    config.stdout_fds = &all->stdout_fds[first];
    config.stderr_fds = &all->stderr_fds[first];
    config.cgroups = &own;
    int result = 0;
    for (unsigned i = 0; i < all->jobs && result == 0; i++)
        if ((i < first || i >= first + count) &&
            madvise(all->slots[i], all->slot_bytes, MADV_DONTFORK) != 0)
            result = -errno; /* the slot would reach the server's tests */
    struct tattle__fork_server *server = NULL;
    if (result == 0)
        result = tattle__fork_server_start(&server, &config);
    for (unsigned i = 0; i < all->jobs; i++)
        if (i < first || i >= first + count)
            madvise(all->slots[i], all->slot_bytes, MADV_DOFORK);
    for (unsigned i = first; i < first + count; i++)
        scheduler->servers[i] = server;
    return result;
}

int tattle__scheduler_create(struct tattle__scheduler **out,
                             const struct tattle__schedule_config *config)
{
    struct tattle__scheduler *scheduler = tattle__calloc(1, sizeof *scheduler);
    scheduler->config = *config;
    tattle__freeze_set_call_symbolizer(tattle__symbolize_calls);
    scheduler->signal_fd = -1;
    scheduler->job_count = config->no_fork ? 1 : config->jobs;
    scheduler->timeout_multiplier =
        config->timeout_multiplier > 0 ? config->timeout_multiplier : 1.0;
    unsigned jobs = scheduler->job_count;
    scheduler->running = tattle__calloc(jobs, sizeof *scheduler->running);
    scheduler->write_fds =
        tattle__calloc(jobs * 2, sizeof *scheduler->write_fds);
    struct tattle__slot **slots = tattle__calloc(jobs, sizeof *slots);
    for (unsigned i = 0; i < jobs; i++) {
        struct running *run = &scheduler->running[i];
        run->output_fds[0] = run->output_fds[1] = -1;
        scheduler->write_fds[2 * i] = scheduler->write_fds[2 * i + 1] = -1;
    }
    int result = 0;
    for (unsigned i = 0; i < jobs && result == 0; i++) {
        struct running *run = &scheduler->running[i];
        run->slot = slots[i] = tattle__slot_create(SLOT_BYTES);
        if (!run->slot) {
            result = -errno;
            break;
        }
        if (config->no_fork)
            continue;
        tattle__capture_init(&run->captures[0], TATTLE__CAPTURE_HEAD,
                             TATTLE__CAPTURE_TAIL);
        tattle__capture_init(&run->captures[1], TATTLE__CAPTURE_HEAD,
                             TATTLE__CAPTURE_TAIL);
        for (int stream = 0; stream < 2 && result == 0; stream++) {
            int ends[2];
            if (pipe2(ends, O_CLOEXEC) != 0) {
                result = -errno;
                break;
            }
            fcntl(ends[0], F_SETFL, O_NONBLOCK);
            run->output_fds[stream] = ends[0];
            scheduler->write_fds[2 * i + (unsigned)stream] = ends[1];
        }
    }
    if (result == 0 && !config->no_fork) {
        tattle__job_cgroups_create(&scheduler->cgroups, jobs);
        int *stdout_fds = tattle__calloc(jobs, sizeof(int));
        int *stderr_fds = tattle__calloc(jobs, sizeof(int));
        for (unsigned i = 0; i < jobs; i++) {
            stdout_fds[i] = scheduler->write_fds[2 * i];
            stderr_fds[i] = scheduler->write_fds[2 * i + 1];
        }
        struct tattle__fork_server_config server_config = {
            .jobs = jobs,
            .slots = slots,
            .slot_bytes = SLOT_BYTES,
            .stdout_fds = stdout_fds,
            .stderr_fds = stderr_fds,
            .program_fds = config->program_fds,
            .program_fd_count = config->program_fd_count,
            .cgroups = &scheduler->cgroups,
            .original_sigpipe = config->original_sigpipe,
            .fixture_output_limit = TATTLE__CAPTURE_HEAD + TATTLE__CAPTURE_TAIL,
        };
        scheduler->servers = tattle__calloc(jobs, sizeof *scheduler->servers);
        unsigned servers = server_count(jobs);
        unsigned first_block = jobs / servers; /* block k: k*jobs/servers on */
        result =
            tattle__fork_server_start(&scheduler->servers[0], &server_config);
        for (unsigned i = 1; i < first_block; i++)
            scheduler->servers[i] = scheduler->servers[0];
        for (unsigned k = 1; k < servers && result == 0; k++) {
            unsigned first = k * jobs / servers;
            unsigned end = (k + 1) * jobs / servers;
            result =
                start_job_server(scheduler, &server_config, first, end - first);
        }
        free(stdout_fds);
        free(stderr_fds);
        /* The server holds the write ends now; the runner needs none. */
        for (unsigned i = 0; i < jobs * 2; i++) {
            if (scheduler->write_fds[i] >= 0)
                close(scheduler->write_fds[i]);
            scheduler->write_fds[i] = -1;
        }
    }
    free(slots);
    *out = scheduler;
    if (result != 0) {
        tattle__scheduler_destroy(scheduler);
        *out = NULL;
    }
    return result;
}

int tattle__scheduler_run(struct tattle__scheduler *scheduler,
                          const struct tattle__schedule_callbacks *callbacks)
{
    scheduler->callbacks = callbacks;
    if (scheduler->config.no_fork) {
        struct sigaction action = {.sa_handler = note_interrupt};
        struct sigaction
            old_actions[sizeof stop_signals / sizeof *stop_signals];
        sigemptyset(&action.sa_mask);
        in_process_interrupted = 0;
        for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
            sigaction(stop_signals[i], &action, &old_actions[i]);
        int result = loop_in_process(scheduler);
        for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
            sigaction(stop_signals[i], &old_actions[i], NULL);
        return result;
    }
    sigset_t mask;
    sigemptyset(&mask);
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
        sigaddset(&mask, stop_signals[i]);
    sigaddset(&mask, doorbell_signal());
    /* Installed for good: a ring after the run is dropped, not fatal. */
    atomic_store(&doorbell_reader, (pid_t)syscall(SYS_gettid));
    atomic_store(&doorbell_runner, getpid());
    struct sigaction forward = {.sa_handler = forward_doorbell,
                                .sa_flags = SA_RESTART};
    sigfillset(&forward.sa_mask);
    sigaction(doorbell_signal(), &forward, NULL);
    static bool child_default_registered;
    if (!child_default_registered)
        child_default_registered =
            pthread_atfork(NULL, NULL, default_doorbell_in_child) == 0;
    sigprocmask(SIG_BLOCK, &mask, &scheduler->old_mask);
    scheduler->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    int result;
    if (scheduler->signal_fd < 0) {
        result = -errno;
    } else {
        /* A process the tests left behind when the server is gone comes to
         * the runner, not to init. */
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        result = loop_forked(scheduler);
    }
    if (scheduler->signal_fd >= 0)
        close(scheduler->signal_fd);
    scheduler->signal_fd = -1;
    /* Doorbells still queued (a test may ring a thousand times): every
     * test is gone, drop them; later ones reach the handler, which drops
     * them too. */
    atomic_store(&doorbell_reader, 0);
    sigset_t doorbell;
    sigemptyset(&doorbell);
    sigaddset(&doorbell, doorbell_signal());
    struct timespec no_wait = {0, 0};
    while (sigtimedwait(&doorbell, NULL, &no_wait) > 0)
        ;
    sigprocmask(SIG_SETMASK, &scheduler->old_mask, NULL);
    return result;
}

unsigned tattle__scheduler_late_fixture_failures(
    const struct tattle__scheduler *scheduler)
{
    return scheduler->late_fixture_failures;
}

void tattle__scheduler_destroy(struct tattle__scheduler *scheduler)
{
    if (!scheduler)
        return;
    for (unsigned i = 0; scheduler->servers && i < scheduler->job_count; i++)
        if (scheduler->servers[i] && first_job_of_its_server(scheduler, i))
            tattle__fork_server_stop(scheduler->servers[i]);
    free(scheduler->servers);
    /* What the server left (it kills its tree on its way out) is gone;
     * orphans of a dead server came to the runner. */
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG | __WALL);
        if (pid <= 0)
            break;
    }
    tattle__job_cgroups_destroy(&scheduler->cgroups);
    for (size_t i = 0; i < scheduler->strays.count; i++)
        if (scheduler->stray_pidfds[i] >= 0)
            close(scheduler->stray_pidfds[i]);
    free(scheduler->stray_pidfds);
    tattle__pid_list_release(&scheduler->strays);
    for (unsigned i = 0; i < scheduler->job_count; i++) {
        struct running *run = &scheduler->running[i];
        tattle__slot_destroy(run->slot, SLOT_BYTES);
        if (!scheduler->config.no_fork) {
            tattle__capture_release(&run->captures[0]);
            tattle__capture_release(&run->captures[1]);
        }
        for (int stream = 0; stream < 2; stream++)
            if (run->output_fds[stream] >= 0)
                close(run->output_fds[stream]);
    }
    for (unsigned i = 0; i < scheduler->job_count * 2; i++)
        if (scheduler->write_fds[i] >= 0)
            close(scheduler->write_fds[i]);
    free(scheduler->write_fds);
    for (size_t i = 0; i < scheduler->suite_count; i++) {
        if (scheduler->suites[i].server)
            tattle__fork_server_stop(scheduler->suites[i].server);
        fixture_failure_release(&scheduler->suites[i].failure);
        tattle__pid_list_release(&scheduler->suites[i].helpers);
    }
    free(scheduler->suites);
    free(scheduler->running);
    free(scheduler);
}
