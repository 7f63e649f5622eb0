/*
 * scheduler.c — the runner's single-threaded event loop.
 *
 * Per job slot the scheduler keeps a result slot (shared memory), two
 * captures and a stdout and a stderr pipe, all reused from test to test;
 * while a test runs, its pid and pidfd. One poll() waits on every running
 * test's pidfd and pipes, the signalfd of SIGINT/SIGTERM, and the nearest
 * deadline. A test is finished once its process was reaped and its tree
 * stopped and killed: only then are its pipes drained (nothing can write
 * to them any more) and the outcome handed back.
 */
#include "runner/scheduler.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/child.h"
#include "runner/crash.h"
#include "runner/process_tree.h"
#include "runner/text.h"

enum {
    SLOT_BYTES = 256 * 1024,
    CAPTURE_HEAD = 32 * 1024,
    CAPTURE_TAIL = 32 * 1024,
    READ_CHUNK = 64 * 1024
};

struct running {
    bool busy;
    struct tattle__job job;
    pid_t pid;
    int pidfd;
    /* The job slot's stdout and stderr pipes, kept open across tests (the
     * runner holds both ends, so they never reach EOF: the pidfd says when
     * a test ended). Read ends are non-blocking. */
    int output_fds[2];
    int output_write_fds[2];
    struct tattle__capture captures[2];
    struct tattle__slot *slot;
    uint64_t started_us;
    uint64_t deadline_us;       /* 0: none */
    bool reaped;
    int wait_status;
    bool timed_out;
    struct tattle__trace_session *trace;
    const char *trace_error;    /* the arena could not be created */
};

struct scheduler {
    const struct tattle__schedule_config *config;
    const struct tattle__schedule_callbacks *callbacks;
    struct running *running;
    unsigned running_count;
    int signal_fd;              /* SIGINT/SIGTERM, forked mode */
    int null_fd;                /* /dev/null, the tests' stdin */
    sigset_t old_mask;
    bool interrupted;
    bool exhausted;             /* `next` had nothing this round */
};

/* ---- the test process ---- */

static struct tattle__trace_session *child_trace;

static void child_crash_callback(void)
{
    if (child_trace)
        tattle__trace_session_child_finish(true);
}

/* `entry` is a copy on the stack: the registry itself lives in memory
 * test processes do not inherit (runner/private_memory.h). */
static TATTLE__NORETURN void run_in_child(struct scheduler *scheduler,
                                          struct running *run,
                                          const struct tattle__test_entry *entry,
                                          int out_w, int err_w)
{
    /* Crash handlers, their alternate stack and RLIMIT_CORE = 0 were set
     * once in the runner and are inherited: a test process only sets what
     * is its own. Every call here is a cost paid per test. */
    setpgid(0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &scheduler->old_mask, NULL);
    close(scheduler->signal_fd);
    dup2(scheduler->null_fd, STDIN_FILENO);
    close(scheduler->null_fd);
    dup2(out_w, STDOUT_FILENO);
    dup2(err_w, STDERR_FILENO);
    close(out_w);
    close(err_w);
    /* stdout is already unbuffered (set once by the runner): nothing the
     * test prints is lost when it dies. */

    child_trace = run->trace;
    if (run->trace)
        tattle__trace_session_activate(run->trace);
    tattle__child_run(entry, run->slot, true);
    if (run->trace)
        tattle__trace_session_child_finish(false);
    fflush(NULL);
    /* As a subreaper this process holds every descendant the test left
     * behind; killing them here spares the runner a /proc sweep. */
    /* One syscall: ECHILD means no child at all, and as a subreaper this
     * process would have inherited any orphaned descendant. */
    siginfo_t child;
    if (waitid(P_ALL, 0, &child, WEXITED | WNOHANG | WNOWAIT) == 0)
        tattle__process_tree_kill(getpid(), 0);
    atomic_store(&run->slot->tree_clean, 1);
    _exit(0);
}

/* ---- starting and finishing ---- */

static int start_forked(struct scheduler *scheduler, struct running *run)
{
    /* No fflush here: stdout and stderr are unbuffered while tests run
     * and the console has its own stream, flushed after each callback. */
    tattle__crash_set_slot(run->slot);
    const struct tattle__test_entry entry = *run->job.entry;
    run->started_us = tattle__now_us();
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0)
        run_in_child(scheduler, run, &entry, run->output_write_fds[0],
                     run->output_write_fds[1]);

    setpgid(pid, pid);
    run->pid = pid;
    run->pidfd = pidfd_open(pid, 0);
    if (run->pidfd < 0) {
        int error = -errno;
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return error;
    }
    run->deadline_us = run->job.timeout_ms > 0
                           ? run->started_us + (uint64_t)run->job.timeout_ms * 1000u
                           : 0;
    return 0;
}

/* Reads what is available from one output pipe, at most a bounded amount
 * per call so one chatty test cannot starve the others. Returns false when
 * the pipe is empty. */
static bool read_output(struct running *run, int stream)
{
    char buffer[READ_CHUNK];
    for (int rounds = 0; rounds < 16; rounds++) {
        ssize_t n = read(run->output_fds[stream], buffer, sizeof buffer);
        if (n > 0) {
            tattle__capture_feed(&run->captures[stream], buffer, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return false; /* EAGAIN: empty (EOF cannot happen: we hold a writer) */
    }
    return true;
}

/* After the test's processes are dead or stopped, nothing writes to the
 * pipes any more: what is in them is the rest of the test's output. */
static void drain_outputs(struct running *run)
{
    for (int s = 0; s < 2; s++)
        while (read_output(run, s))
            ;
}

/* Reaps children that are not waited for through their pidfd: strays
 * killed after their test died, and a test reaped early by this loop. */
static void reap_children(struct scheduler *scheduler)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (unsigned i = 0; i < scheduler->config->jobs; i++) {
            struct running *run = &scheduler->running[i];
            if (run->busy && run->pid == pid && !run->reaped) {
                run->reaped = true;
                run->wait_status = status;
            }
        }
    }
}

static void kill_leftovers(struct scheduler *scheduler, struct running *run)
{
    if (WIFEXITED(run->wait_status) && atomic_load(&run->slot->tree_clean))
        return; /* the test process killed its own descendants */
    /* Same process group first (cheap), then strays reparented to us;
     * stopped before killed, so none writes after the pipes are drained. */
    kill(-run->pid, SIGSTOP);
    kill(-run->pid, SIGKILL);
    pid_t *keep = tattle__calloc(scheduler->config->jobs, sizeof *keep);
    size_t keep_count = 0;
    for (unsigned i = 0; i < scheduler->config->jobs; i++)
        if (scheduler->running[i].busy && &scheduler->running[i] != run)
            keep[keep_count++] = scheduler->running[i].pid;
    tattle__process_kill_strays(keep, keep_count);
    free(keep);
}

/* Hands back the outcome of a test whose process ended, timed out, or was
 * killed because the run was interrupted (`interrupted_by`: the signal,
 * -1 for an internal error, 0 when not interrupted). */
static void finish(struct scheduler *scheduler, struct running *run,
                   int interrupted_by)
{
    if (!run->reaped) {
        while (waitpid(run->pid, &run->wait_status, 0) < 0 && errno == EINTR)
            ;
        run->reaped = true;
    }
    kill_leftovers(scheduler, run);
    drain_outputs(run);
    close(run->pidfd);
    run->pidfd = -1;
    reap_children(scheduler);

    struct tattle__outcome outcome = {
        .forked = true,
        .wait_status = run->wait_status,
        .timed_out = run->timed_out,
        .interrupted_by = interrupted_by,
        .started_us = run->started_us,
        .duration_us = tattle__now_us() - run->started_us,
        .stdout_capture = &run->captures[0],
        .stderr_capture = &run->captures[1],
    };
    tattle__slot_read(run->slot, &outcome.reading);
    outcome.trace_error = run->trace_error;
    if (run->trace) {
        int error = tattle__trace_session_freeze(run->trace, &outcome.trace);
        if (error != 0)
            outcome.trace_error = strerror(-error);
        tattle__trace_session_destroy(run->trace);
        run->trace = NULL;
    }
    run->busy = false;
    scheduler->running_count--;
    scheduler->callbacks->finished(scheduler->callbacks->ctx, &run->job,
                                   &outcome);
    tattle__slot_reading_release(&outcome.reading);
}

static void time_out(struct scheduler *scheduler, struct running *run)
{
    run->timed_out = true;
    /* The on-exit barrier: the mailboxes are read while the processes that
     * own them are still alive, then the whole tree is killed. */
    if (run->trace)
        tattle__trace_session_snapshot_live(run->trace, run->pid);
    tattle__process_tree_kill(run->pid, 1);
    finish(scheduler, run, 0);
}

static int start_next(struct scheduler *scheduler, struct running *run)
{
    struct tattle__job job;
    if (!scheduler->callbacks->next(scheduler->callbacks->ctx, &job)) {
        scheduler->exhausted = true;
        return 0;
    }
    run->job = job;
    run->reaped = false;
    run->timed_out = false;
    run->wait_status = 0;
    run->trace = NULL;
    tattle__slot_reset(run->slot);
    tattle__capture_reset(&run->captures[0]);
    tattle__capture_reset(&run->captures[1]);
    run->trace_error = NULL;
    if (job.traced) {
        int error = tattle__trace_session_create(&run->trace, &job.trace_config);
        if (error != 0) {
            /* The test still runs; its result says why it has no trace. */
            run->trace = NULL;
            run->trace_error = strerror(-error);
        }
    }
    scheduler->callbacks->started(scheduler->callbacks->ctx, &run->job);
    int error = start_forked(scheduler, run);
    if (error != 0) {
        if (run->trace)
            tattle__trace_session_destroy(run->trace);
        return error;
    }
    run->busy = true;
    scheduler->running_count++;
    return 0;
}

/* Stops every running test and reports it as interrupted: its output is
 * drained and its trace frozen like any other's, so the report still says
 * what it was doing. */
static void kill_all_running(struct scheduler *scheduler, int interrupted_by)
{
    for (unsigned i = 0; i < scheduler->config->jobs; i++) {
        struct running *run = &scheduler->running[i];
        if (!run->busy)
            continue;
        if (run->trace)
            tattle__trace_session_snapshot_live(run->trace, run->pid);
        tattle__process_tree_kill(run->pid, 1);
        finish(scheduler, run, interrupted_by);
    }
    tattle__process_kill_strays(NULL, 0);
    reap_children(scheduler);
}

static int loop_forked(struct scheduler *scheduler)
{
    unsigned jobs = scheduler->config->jobs;
    /* One block for the three parallel arrays: every page the runner
     * writes per test costs a page fault after each fork. */
    size_t entries = jobs * 3 + 1;
    char *block = tattle__calloc(entries, sizeof(struct pollfd) +
                                              sizeof(struct running *) + sizeof(int));
    struct running **owners = (struct running **)block;
    struct pollfd *fds = (struct pollfd *)(block + entries * sizeof *owners);
    int *roles = (int *)(block + entries * (sizeof *owners + sizeof *fds));
    int result = 0;

    for (;;) {
        /* Ask again every round: a finished test may have queued a retry. */
        scheduler->exhausted = false;
        for (unsigned i = 0; i < jobs && !scheduler->exhausted; i++) {
            if (scheduler->running[i].busy)
                continue;
            int error = start_next(scheduler, &scheduler->running[i]);
            if (error != 0) {
                fprintf(stderr, "tattle: cannot start a test: %s\n",
                        strerror(-error));
                kill_all_running(scheduler, -1);
                result = error;
                goto done;
            }
        }
        if (scheduler->running_count == 0)
            break;

        nfds_t count = 0;
        uint64_t nearest = 0;
        fds[count] = (struct pollfd){scheduler->signal_fd, POLLIN, 0};
        owners[count] = NULL;
        roles[count++] = -1;
        for (unsigned i = 0; i < jobs; i++) {
            struct running *run = &scheduler->running[i];
            if (!run->busy)
                continue;
            fds[count] = (struct pollfd){run->pidfd, POLLIN, 0};
            owners[count] = run;
            roles[count++] = 2;
            for (int s = 0; s < 2; s++) {
                fds[count] = (struct pollfd){run->output_fds[s], POLLIN, 0};
                owners[count] = run;
                roles[count++] = s;
            }
            if (run->deadline_us && (!nearest || run->deadline_us < nearest))
                nearest = run->deadline_us;
        }
        int wait_ms = -1;
        if (nearest) {
            uint64_t now = tattle__now_us();
            wait_ms = nearest > now ? (int)((nearest - now + 999) / 1000) : 0;
        }
        int ready = poll(fds, count, wait_ms);
        if (ready < 0 && errno != EINTR) {
            result = -errno;
            kill_all_running(scheduler, -1);
            goto done;
        }
        if (ready > 0 && fds[0].revents) {
            struct signalfd_siginfo info = {0};
            ssize_t ignored = read(scheduler->signal_fd, &info, sizeof info);
            (void)ignored;
            scheduler->interrupted = true;
            kill_all_running(scheduler, info.ssi_signo ? (int)info.ssi_signo : SIGINT);
            result = 1;
            goto done;
        }
        for (nfds_t i = 1; ready > 0 && i < count; i++) {
            if (!fds[i].revents || roles[i] == 2)
                continue;
            if (owners[i]->busy)
                read_output(owners[i], roles[i]);
        }
        for (nfds_t i = 1; ready > 0 && i < count; i++)
            if (fds[i].revents && roles[i] == 2 && owners[i]->busy)
                finish(scheduler, owners[i], 0);
        uint64_t now = tattle__now_us();
        for (unsigned i = 0; i < jobs; i++) {
            struct running *run = &scheduler->running[i];
            if (run->busy && run->deadline_us && now >= run->deadline_us)
                time_out(scheduler, run);
        }
    }
done:
    free(block);
    return result;
}

static volatile sig_atomic_t in_process_interrupted;

static void note_interrupt(int signal_number)
{
    (void)signal_number;
    in_process_interrupted = 1;
}

/* --no-fork: every test in this process, one after the other. SIGINT and
 * SIGTERM only set a flag, checked between tests. */
static int loop_in_process(struct scheduler *scheduler)
{
    struct running *run = &scheduler->running[0];
    for (;;) {
        struct tattle__job job;
        if (!scheduler->callbacks->next(scheduler->callbacks->ctx, &job))
            return 0;
        run->job = job;
        tattle__slot_reset(run->slot);
        scheduler->callbacks->started(scheduler->callbacks->ctx, &run->job);
        struct tattle__outcome outcome = {.started_us = tattle__now_us()};
        /* The same trace life cycle as a forked test, in this process; a
         * thread the test leaves running must not record after it. */
        struct tattle__trace_session *trace = NULL;
        if (job.traced && tattle__trace_session_create(&trace, &job.trace_config) == 0)
            tattle__trace_session_activate(trace);
        /* stdout carries a machine report: what the test prints goes to
         * stderr for as long as it runs. */
        int saved_stdout = -1;
        if (scheduler->config->stdout_carries_report) {
            fflush(stdout);
            saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
            dup2(STDERR_FILENO, STDOUT_FILENO);
        }
        tattle__child_run(job.entry, run->slot, false);
        if (saved_stdout >= 0) {
            fflush(stdout);
            dup2(saved_stdout, STDOUT_FILENO);
            close(saved_stdout);
        }
        if (trace)
            tattle__trace_session_child_finish(false);
        outcome.duration_us = tattle__now_us() - outcome.started_us;
        tattle__slot_read(run->slot, &outcome.reading);
        if (trace) {
            int error = tattle__trace_session_freeze(trace, &outcome.trace);
            if (error != 0)
                outcome.trace_error = strerror(-error);
            tattle__trace_session_destroy(trace);
        }
        scheduler->callbacks->finished(scheduler->callbacks->ctx, &run->job,
                                       &outcome);
        tattle__slot_reading_release(&outcome.reading);
        if (in_process_interrupted) {
            scheduler->interrupted = true;
            return 1;
        }
    }
}

int tattle__schedule_run(const struct tattle__schedule_config *config,
                         const struct tattle__schedule_callbacks *callbacks)
{
    struct scheduler scheduler = {.config = config, .callbacks = callbacks,
                                  .signal_fd = -1, .null_fd = -1};
    unsigned jobs = config->no_fork ? 1 : config->jobs;
    scheduler.running = tattle__calloc(jobs, sizeof *scheduler.running);
    for (unsigned i = 0; i < jobs; i++) {
        struct running *run = &scheduler.running[i];
        run->pidfd = -1;
        run->output_fds[0] = run->output_fds[1] = -1;
        run->output_write_fds[0] = run->output_write_fds[1] = -1;
    }
    int result = 0;
    for (unsigned i = 0; i < jobs; i++) {
        struct running *run = &scheduler.running[i];
        run->slot = tattle__slot_create(SLOT_BYTES);
        if (!run->slot) {
            result = -errno;
            goto cleanup;
        }
        if (config->no_fork)
            continue;
        tattle__capture_init(&run->captures[0], CAPTURE_HEAD, CAPTURE_TAIL);
        tattle__capture_init(&run->captures[1], CAPTURE_HEAD, CAPTURE_TAIL);
        for (int stream = 0; stream < 2; stream++) {
            int ends[2];
            if (pipe2(ends, O_CLOEXEC) != 0) {
                result = -errno;
                goto cleanup;
            }
            fcntl(ends[0], F_SETFL, O_NONBLOCK);
            run->output_fds[stream] = ends[0];
            run->output_write_fds[stream] = ends[1];
        }
    }

    if (config->no_fork) {
        struct sigaction action = {.sa_handler = note_interrupt}, old_int, old_term;
        sigemptyset(&action.sa_mask);
        in_process_interrupted = 0;
        sigaction(SIGINT, &action, &old_int);
        sigaction(SIGTERM, &action, &old_term);
        struct tattle__schedule_config one = *config;
        one.jobs = 1;
        scheduler.config = &one;
        result = loop_in_process(&scheduler);
        scheduler.config = config;
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        goto cleanup;
    }

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_BLOCK, &mask, &scheduler.old_mask);
    scheduler.signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    scheduler.null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    struct rlimit old_core, no_core = {0, 0};
    getrlimit(RLIMIT_CORE, &old_core);
    if (scheduler.signal_fd < 0 || scheduler.null_fd < 0) {
        result = -errno;
    } else if ((result = tattle__crash_install(child_crash_callback)) == 0) {
        /* Test processes inherit these: no core files from crashing tests,
         * and an unbuffered stdout, so nothing a test printed is lost when
         * it dies. Set once here, they cost the test processes nothing. */
        setrlimit(RLIMIT_CORE, &no_core);
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        fflush(stdout);
        setvbuf(stdout, NULL, _IONBF, 0);
        result = loop_forked(&scheduler);
        fflush(stdout);
        setvbuf(stdout, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
        tattle__crash_uninstall();
        setrlimit(RLIMIT_CORE, &old_core);
    }
    if (scheduler.signal_fd >= 0)
        close(scheduler.signal_fd);
    if (scheduler.null_fd >= 0)
        close(scheduler.null_fd);
    sigprocmask(SIG_SETMASK, &scheduler.old_mask, NULL);
cleanup:
    for (unsigned i = 0; i < jobs; i++) {
        struct running *run = &scheduler.running[i];
        tattle__slot_destroy(run->slot);
        if (!config->no_fork) {
            tattle__capture_release(&run->captures[0]);
            tattle__capture_release(&run->captures[1]);
        }
        for (int stream = 0; stream < 2; stream++) {
            if (run->output_fds[stream] >= 0)
                close(run->output_fds[stream]);
            if (run->output_write_fds[stream] >= 0)
                close(run->output_write_fds[stream]);
        }
    }
    free(scheduler.running);
    return result;
}
