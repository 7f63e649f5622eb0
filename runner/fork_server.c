/*
 * fork_server.c — the fork server: its protocol, its loop, and how it
 * forks a test process into a job slot's cgroup.
 *
 * Runner and server talk over one SOCK_SEQPACKET socket pair: the runner
 * sends a spawn request (with the trace arena's memfd attached as
 * SCM_RIGHTS when the test is traced) and goes on with its other jobs;
 * the server answers each request with a started notice (the pid, or why
 * it could not fork) and sends one exit notice per test process it reaps.
 * The runner reads them in the order they were sent, and queues those that
 * arrive while it waits for one in particular (a suite server's start, a
 * spawn it must know the pid of now). Waiting for each fork's answer made
 * the runner and the server take turns: with two jobs, neither ran while
 * the other worked, and -j2 was no faster than -j1.
 *
 * Forking into a cgroup needs clone3(CLONE_INTO_CGROUP), which glibc does
 * not wrap; joining after a fork instead costs a cgroup migration, several
 * times the fork itself. The raw clone3 child is made as sound as glibc's
 * own fork child, since the server is single-threaded and holds no lock:
 * the kernel writes the child's thread id into glibc's thread descriptor
 * (CLONE_CHILD_SETTID at the address glibc gave set_tid_address, read back
 * with PR_GET_TID_ADDRESS), and the child registers glibc's robust mutex
 * list again (the kernel clears it on fork). pthread_atfork handlers do not
 * run in it: they ran when the server itself was forked, and the server
 * changes nothing since. Under ThreadSanitizer, whose runtime intercepts
 * fork() to keep its own state consistent, and where PR_GET_TID_ADDRESS is
 * missing, the server uses fork() and the child joins its cgroup by
 * writing to cgroup.procs.
 */
#include "runner/fork_server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/test_process/child.h"
#include "runner/test_process/crash.h"
#include "runner/test_process/slot_write.h"
#include "runner/process_tree.h"
#include "tracer/session.h"
#include "base/buffer.h"
#include "base/report_file.h"
#include "base/child_path.h"
#include "base/sanitizers.h"
#include "base/timestamp.h"

enum message_type {
    MESSAGE_SPAWN = 1,
    MESSAGE_REPLY = 2, /* to a suite start */
    MESSAGE_EXITED = 3,
    MESSAGE_SUITE_START = 4,  /* to the fork server: fork a suite server */
    MESSAGE_SUITE_END = 5,    /* to a suite server: run after_all, end */
    MESSAGE_FIXTURE_DONE = 6, /* from a suite server: value 0 or 1 */
    MESSAGE_STARTED = 7       /* to a spawn: the pid, or value -errno */
};

struct message {
    uint32_t type;
    uint32_t job;
    int32_t pid;
    int32_t value; /* reply, started: 0 or -errno; exited: the status */
    const struct tattle_test *test;
    const struct tattle_suite *suite;
    uint64_t arena_size; /* spawn: the arena's size, 0 when none */
};

/* Signals the server ignores (they are the runner's to handle: a Ctrl-C
 * reaches the whole foreground process group) and a test gets back as the
 * program had them. SIGPIPE last: the runner ignores it for itself. */
static const int ignored_signals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                                      SIGUSR1, SIGUSR2, SIGPIPE};
enum { IGNORED_COUNT = sizeof ignored_signals / sizeof *ignored_signals };

/* ---- the runner's side ---- */

struct tattle__fork_server {
    unsigned job_base; /* its job 0 is the runner's job `job_base` */
    pid_t pid;
    int pidfd;
    int channel;
    int children_fd;    /* the server thread's /proc children file, or -1 */
    bool suite_server;  /* a child of the fork server, not of the runner */
    int fixture_result; /* -1 until FIXTURE_DONE came: then its value */
    struct tattle__server_notice *queued; /* notices read, not yet taken */
    size_t queued_count, queued_capacity;
};

static int send_message(int fd, const struct message *message, int passed_fd)
{
    struct iovec data = {(void *)message, sizeof *message};
    union {
        struct cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr header = {.msg_iov = &data, .msg_iovlen = 1};
    if (passed_fd >= 0) {
        memset(&control, 0, sizeof control);
        header.msg_control = control.bytes;
        header.msg_controllen = sizeof control.bytes;
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&header);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &passed_fd, sizeof(int));
    }
    for (;;) {
        ssize_t sent = sendmsg(fd, &header, MSG_NOSIGNAL);
        if (sent == (ssize_t)sizeof *message)
            return 0;
        if (sent < 0 && errno == EINTR)
            continue;
        return sent < 0 ? -errno : -EPIPE;
    }
}

/* Receives one message (and a passed descriptor, or -1). Returns 1, 0 at
 * end of file, or a negative errno (-EAGAIN when non-blocking and empty). */
static int receive_message(int fd, struct message *message, int *passed_fd,
                           int flags)
{
    struct iovec data = {message, sizeof *message};
    union {
        struct cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr header = {.msg_iov = &data,
                            .msg_iovlen = 1,
                            .msg_control = control.bytes,
                            .msg_controllen = sizeof control.bytes};
    if (passed_fd)
        *passed_fd = -1;
    ssize_t received;
    do
        received = recvmsg(fd, &header, flags | MSG_CMSG_CLOEXEC);
    while (received < 0 && errno == EINTR);
    if (received < 0)
        return -errno;
    for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&header); cmsg;
         cmsg = CMSG_NXTHDR(&header, cmsg)) {
        if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
            int fd_received;
            memcpy(&fd_received, CMSG_DATA(cmsg), sizeof fd_received);
            if (passed_fd && *passed_fd < 0)
                *passed_fd = fd_received;
            else
                close(fd_received);
        }
    }
    if (received == 0)
        return 0;
    if (received != (ssize_t)sizeof *message || (header.msg_flags & MSG_TRUNC))
        return -EPROTO;
    return 1;
}

static void queue_notice(struct tattle__fork_server *server,
                         const struct message *message)
{
    if (server->queued_count == server->queued_capacity) {
        server->queued_capacity =
            server->queued_capacity ? server->queued_capacity * 2 : 16;
        server->queued = tattle__realloc(
            server->queued, server->queued_capacity * sizeof *server->queued);
    }
    bool started = message->type == MESSAGE_STARTED;
    unsigned job = message->job;
    if (job != TATTLE__SUITE_SERVER_JOB)
        job += server->job_base;
    server->queued[server->queued_count++] = (struct tattle__server_notice){
        .kind = started ? TATTLE__NOTICE_STARTED : TATTLE__NOTICE_EXITED,
        .job = job,
        .pid = message->pid,
        .status = message->value};
}

/* Takes the first queued notice of `kind` for `job` (and, when pid > 0,
 * of that pid) out of the queue; returns whether there was one. */
static bool unqueue_notice(struct tattle__fork_server *server,
                           enum tattle__notice_kind kind, unsigned job,
                           pid_t pid, struct tattle__server_notice *notice)
{
    for (size_t i = 0; i < server->queued_count; i++) {
        const struct tattle__server_notice *queued = &server->queued[i];
        if (queued->kind != kind || queued->job != job ||
            (pid > 0 && queued->pid != pid))
            continue;
        *notice = *queued;
        memmove(server->queued + i, server->queued + i + 1,
                (--server->queued_count - i) * sizeof *server->queued);
        return true;
    }
    return false;
}

/* Reads one message from the server, waiting up to `timeout_ms` (-1: as
 * long as it takes) for it: notices are queued, a suite server's fixture
 * result kept, and the answer to a suite start (the only message the
 * runner asks for and waits on) stored in *reply with its channel, when
 * the caller waits for one. Returns 1 when a message was taken, 0 when
 * none came in time, or a negative errno (-EPIPE: the server is gone,
 * -EPROTO: a message nobody waits for). */
static int take_message(struct tattle__fork_server *server, int timeout_ms,
                        struct message *reply, int *reply_channel)
{
    uint64_t deadline_us =
        timeout_ms > 0 ? tattle__now_us() + (uint64_t)timeout_ms * 1000u : 0;
    for (;;) {
        if (timeout_ms != 0) {
            /* In slices: a server a test stopped (SIGSTOP to its parent)
             * is sent SIGCONT after each, or it would never answer. */
            int slice = TATTLE__SERVER_NUDGE_MS;
            if (timeout_ms > 0) {
                uint64_t now = tattle__now_us();
                if (now >= deadline_us)
                    return 0;
                uint64_t left_ms = (deadline_us - now + 999) / 1000;
                if (left_ms < (uint64_t)slice)
                    slice = (int)left_ms;
            }
            struct pollfd ready = {server->channel, POLLIN, 0};
            int polled = poll(&ready, 1, slice);
            if (polled < 0 && errno == EINTR)
                continue;
            if (polled < 0)
                return -errno;
            if (polled == 0) {
                tattle__fork_server_continue(server);
                continue;
            }
        }
        struct message message;
        int channel = -1;
        int received = receive_message(server->channel, &message,
                                       reply ? &channel : NULL, MSG_DONTWAIT);
        if (received == -EAGAIN) {
            if (timeout_ms == 0)
                return 0;
            continue;
        }
        if (received <= 0)
            return received == 0 ? -EPIPE : received;
        switch (message.type) {
        case MESSAGE_STARTED:
        case MESSAGE_EXITED:
            queue_notice(server, &message);
            break;
        case MESSAGE_FIXTURE_DONE:
            server->fixture_result = message.value;
            break;
        case MESSAGE_REPLY:
            if (reply) {
                *reply = message;
                *reply_channel = channel;
                return 1;
            }
            return -EPROTO; /* nobody waits for one (and no channel came) */
        default:
            if (channel >= 0)
                close(channel);
            return -EPROTO;
        }
        if (channel >= 0)
            close(channel);
        return 1;
    }
}

int tattle__fork_server_request_spawn(
    struct tattle__fork_server *server,
    const struct tattle__spawn_request *request)
{
    if (request->job < server->job_base)
        return -EINVAL;
    struct message message = {
        .type = MESSAGE_SPAWN,
        .job = request->job - server->job_base,
        .test = request->test,
        .suite = request->suite,
        .arena_size = request->arena_fd >= 0 ? request->arena_size : 0};
    int error = send_message(server->channel, &message, request->arena_fd);
    return error == -ECONNRESET ? -EPIPE : error;
}

int tattle__fork_server_await_started(struct tattle__fork_server *server,
                                      unsigned job, pid_t *pid)
{
    struct tattle__server_notice notice;
    while (!unqueue_notice(server, TATTLE__NOTICE_STARTED, job, 0, &notice)) {
        int taken = take_message(server, -1, NULL, NULL);
        if (taken < 0)
            return taken;
    }
    if (notice.status != 0)
        return notice.status < 0 ? notice.status : -EPROTO;
    *pid = notice.pid;
    return 0;
}

int tattle__fork_server_read_notice(struct tattle__fork_server *server,
                                    struct tattle__server_notice *notice)
{
    while (server->queued_count == 0) {
        int taken = take_message(server, 0, NULL, NULL);
        if (taken <= 0)
            return taken;
    }
    *notice = server->queued[0];
    memmove(server->queued, server->queued + 1,
            --server->queued_count * sizeof *server->queued);
    return 1;
}

int tattle__fork_server_fd(const struct tattle__fork_server *server)
{
    return server->channel;
}

bool tattle__fork_server_has_notice(const struct tattle__fork_server *server)
{
    return server->queued_count > 0;
}

int tattle__fork_server_pidfd(const struct tattle__fork_server *server)
{
    return server->pidfd;
}

pid_t tattle__fork_server_pid(const struct tattle__fork_server *server)
{
    return server->pid;
}

void tattle__fork_server_continue(const struct tattle__fork_server *server)
{
    if (server && server->pid > 0)
        kill(server->pid, SIGCONT);
}

void tattle__fork_server_children(const struct tattle__fork_server *server,
                                  struct tattle__pid_list *out)
{
    if (server->children_fd >= 0)
        tattle__process_children_read(server->children_fd, out);
    else
        tattle__process_children(server->pid, out);
}

int tattle__fork_server_stop(struct tattle__fork_server *server)
{
    if (!server)
        return 0;
    /* End of file on the socket: the server kills what is left and exits. */
    close(server->channel);
    int status = 0;
    while (!server->suite_server && waitpid(server->pid, &status, 0) < 0 &&
           errno == EINTR)
        ;
    if (server->pidfd >= 0)
        close(server->pidfd);
    if (server->children_fd >= 0)
        close(server->children_fd);
    free(server->queued);
    free(server);
    return status;
}

int tattle__fork_server_start_suite(struct tattle__fork_server *server,
                                    unsigned job,
                                    const struct tattle_suite *suite,
                                    struct tattle__fork_server **out)
{
    struct message message = {
        .type = MESSAGE_SUITE_START, .job = job, .suite = suite};
    int error = send_message(server->channel, &message, -1);
    if (error != 0)
        return error == -ECONNRESET ? -EPIPE : error;
    struct message answer = {0};
    int channel = -1;
    int taken;
    do
        taken = take_message(server, -1, &answer, &channel);
    while (taken == 1 && answer.type != MESSAGE_REPLY);
    if (taken < 0)
        return taken;
    if (answer.job != job || (answer.value == 0 && channel < 0)) {
        if (channel >= 0)
            close(channel);
        return -EPROTO;
    }
    if (answer.value != 0) {
        if (channel >= 0)
            close(channel);
        return answer.value;
    }
    struct tattle__fork_server *suite_server =
        tattle__calloc(1, sizeof *suite_server);
    suite_server->pid = answer.pid;
    suite_server->channel = channel;
    suite_server->pidfd = pidfd_open(answer.pid, 0);
    suite_server->children_fd = -1;
    suite_server->suite_server = true;
    suite_server->fixture_result = -1;
    *out = suite_server;
    return 0;
}

int tattle__fork_server_fixture_result(struct tattle__fork_server *server)
{
    while (server->fixture_result < 0) {
        int taken = take_message(server, 0, NULL, NULL);
        if (taken == 0)
            break;
        if (taken < 0)
            return taken;
    }
    return server->fixture_result < 0 ? -EAGAIN : server->fixture_result;
}

int tattle__fork_server_end_suite(struct tattle__fork_server *server,
                                  unsigned job)
{
    server->fixture_result = -1;
    struct message message = {.type = MESSAGE_SUITE_END, .job = job};
    int error = send_message(server->channel, &message, -1);
    return error == -ECONNRESET ? -EPIPE : error;
}

int tattle__fork_server_await_exit(struct tattle__fork_server *server,
                                   pid_t pid, int timeout_ms, int *status)
{
    struct tattle__server_notice notice;
    while (!unqueue_notice(server, TATTLE__NOTICE_EXITED,
                           TATTLE__SUITE_SERVER_JOB, pid, &notice)) {
        int taken = take_message(server, timeout_ms, NULL, NULL);
        if (taken == 0)
            return -ETIMEDOUT;
        if (taken < 0)
            return taken;
    }
    *status = notice.status;
    return 0;
}

/* ---- the server's side ---- */

struct server_state {
    const struct tattle__fork_server_config *config;
    struct tattle__job_cgroups cgroups; /* the server's own descriptors */
    int channel;
    int signal_fd;
    int null_fd;
    int *stdout_fds, *stderr_fds;
    int first_own_fd;   /* the server's descriptors start here */
    pid_t *running;     /* per job: the test's pid, or 0 */
    int fixture_output; /* in a suite server: where its own stdout and
                           stderr go outside fixtures, and those of the
                           processes a fixture forks (a memfd), or -1 */
    pid_t pid;
    const struct tattle_suite *suite; /* in a suite server: its suite */
    pid_t *suite_servers;             /* in the fork server: its suite
                                         servers alive, 0 for a free place */
    size_t suite_server_room;
    sigset_t test_mask; /* the mask a test runs with */
    struct sigaction test_actions[IGNORED_COUNT]; /* and its dispositions */
    /* the same as the kernel holds them, and the signals' numbers: what a
     * test process reads here costs it no fault (rodata would) */
    struct tattle__kernel_sigaction test_kernel_actions[IGNORED_COUNT];
    int test_signals[IGNORED_COUNT];
    pthread_t thread;     /* the server's thread: every test process's too */
    bool raw_clone;       /* clone3 with the fixes above */
    bool reap_by_polling; /* threads before_all left may take SIGCHLD */
    int *thread_id_address;
    void *robust_list_head;
    size_t robust_list_length;
};

/* What a process a fixture forks (fork(), not exec) must not keep of the
 * suite server: its descriptors (the runner's channel, every job's output
 * pipes, the cgroups), closed by the pthread_atfork child handler; its
 * stdout and stderr become the fixture's output file, whose content goes
 * to the fixture's job when the fixture returns. The handler acts on every
 * fork in a suite server but the server's own spawn of a test: a fork
 * while a fixture runs, and any fork from a thread that is not the
 * server's (one before_all left running), whenever it comes. Such a child
 * also loses every job's slot, which a fork from a thread gets while the
 * server spawns a test (the slot is MADV_DOFORK for that fork). */
static struct {
    atomic_bool active; /* a fixture runs in the server's thread */
    bool suite_server;  /* this process is a suite server */
    pthread_t server_thread;
    int output;
    int *fds;
    size_t count;
    struct tattle__slot *const *slots;
    unsigned jobs;
    size_t slot_bytes;
} fixture_fork = {.output = -1};

/* Moves a descriptor to the first free number at or above `at`. */
static int move_descriptor(int fd, int at)
{
    if (fd < 0)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, at);
    if (moved < 0)
        return fd;
    close(fd);
    return moved;
}

static bool is_own_descriptor(const struct server_state *state, int fd)
{
    if (fd == state->channel)
        return true;
    for (unsigned j = 0; j < state->config->jobs; j++)
        if (fd == state->stdout_fds[j] || fd == state->stderr_fds[j])
            return true;
    const struct tattle__job_cgroups *cgroups = &state->cgroups;
    for (unsigned j = 0; cgroups->run_path && j < cgroups->jobs; j++)
        if (fd == cgroups->directories[j] || fd == cgroups->procs[j] ||
            fd == cgroups->events[j])
            return true;
    for (size_t i = 0; i < state->config->program_fd_count; i++)
        if (fd == state->config->program_fds[i])
            return true;
    return false;
}

/* Closes what the runner opened for itself before the server was forked:
 * whatever it is (the pipes' read ends, the runner's end of the socket, a
 * file a later change opens early), no test may reach it. */
static void close_foreign_descriptors(const struct server_state *state)
{
    DIR *directory = opendir("/proc/self/fd");
    if (!directory)
        return;
    int own = dirfd(directory);
    struct dirent *entry;
    int foreign[256];
    size_t count = 0;
    while ((entry = readdir(directory)) != NULL && count < 256) {
        if (entry->d_name[0] == '.')
            continue;
        int fd = atoi(entry->d_name);
        if (fd > 2 && fd != own && !is_own_descriptor(state, fd))
            foreign[count++] = fd;
    }
    closedir(directory);
    for (size_t i = 0; i < count; i++)
        close(foreign[i]);
    if (count == 256)
        close_foreign_descriptors(state);
}

static int highest_open_descriptor(void)
{
    int highest = 2;
    DIR *directory = opendir("/proc/self/fd");
    if (!directory)
        return 1024;
    int own = dirfd(directory);
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        int fd = atoi(entry->d_name);
        if (fd != own && fd > highest)
            highest = fd;
    }
    closedir(directory);
    return highest;
}

/* Gathers the server's descriptors in one block above every other open
 * descriptor, so a test process closes them all with one close_range()
 * and keeps the ones the program itself had open. */
static void gather_descriptors(struct server_state *state)
{
    int at = highest_open_descriptor() + 1;
    state->first_own_fd = at;
    state->channel = move_descriptor(state->channel, at);
    state->signal_fd = move_descriptor(state->signal_fd, at);
    state->null_fd = move_descriptor(state->null_fd, at);
    for (unsigned j = 0; j < state->config->jobs; j++) {
        state->stdout_fds[j] = move_descriptor(state->stdout_fds[j], at);
        state->stderr_fds[j] = move_descriptor(state->stderr_fds[j], at);
    }
    struct tattle__job_cgroups *cgroups = &state->cgroups;
    for (unsigned j = 0; cgroups->run_path && j < cgroups->jobs; j++) {
        cgroups->directories[j] = move_descriptor(cgroups->directories[j], at);
        cgroups->procs[j] = move_descriptor(cgroups->procs[j], at);
        cgroups->events[j] = move_descriptor(cgroups->events[j], at);
    }
}

static void prepare_raw_clone(struct server_state *state)
{
    state->raw_clone = false;
    if (TATTLE__THREAD_SANITIZER ||
        !tattle__job_cgroups_available(&state->cgroups))
        return;
    int *address = NULL;
    if (prctl(PR_GET_TID_ADDRESS, &address, 0, 0, 0) != 0 || !address ||
        *address != (int)syscall(SYS_gettid))
        return;
    void *head = NULL;
    size_t length = 0;
    if (syscall(SYS_get_robust_list, 0, &head, &length) != 0)
        return;
    state->thread_id_address = address;
    state->robust_list_head = head;
    state->robust_list_length = length;
    state->raw_clone = true;
}

/* Whether every job's slot stays in what the server forks, so that a
 * spawn need not mark its job's slot inherited and back (two system calls
 * that each rewrite the mapping's flags under the mmap lock): with one job
 * the fork server forks nothing but that job's tests and suite servers,
 * which keep every slot anyway. A suite server forks fixtures' processes
 * too, and with more jobs a test must not reach another job's slot. */
static bool slots_always_inherited(const struct server_state *state)
{
    return state->config->jobs == 1 && !state->suite;
}

/* Forks the test process of `job`; returns its pid in the server, 0 in the
 * child, or a negative errno. */
TATTLE__CHILD_PATH static pid_t fork_into_job(struct server_state *state,
                                              unsigned job, bool *joined)
{
    *joined = false;
    if (state->raw_clone) {
        struct clone_args arguments = {
            .flags =
                CLONE_INTO_CGROUP | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID,
            .child_tid = (uint64_t)(uintptr_t)state->thread_id_address,
            .exit_signal = SIGCHLD,
            .cgroup = (unsigned long long)state->cgroups.directories[job],
        };
        long pid = syscall(SYS_clone3, &arguments, sizeof arguments);
        if (pid >= 0) {
            *joined = true;
            if (pid == 0)
                syscall(SYS_set_robust_list, state->robust_list_head,
                        state->robust_list_length);
            return (pid_t)pid;
        }
        if (errno != ENOSYS && errno != EINVAL && errno != E2BIG)
            return -errno;
        state->raw_clone = false; /* an older kernel: fork and join */
    }
    pid_t pid = fork();
    return pid < 0 ? -errno : pid;
}

/* Empties a suite server's fixture output file (what is in it was
 * forwarded, or has no home). */
static void empty_fixture_output(const struct server_state *state)
{
    if (state->fixture_output < 0)
        return;
    int emptied = ftruncate(state->fixture_output, 0);
    (void)emptied;
}

TATTLE__CHILD_PATH static void
spawn(struct server_state *state, const struct message *request, int arena_fd)
{
    const struct tattle__fork_server_config *config = state->config;
    struct message reply = {.type = MESSAGE_STARTED, .job = request->job};
    unsigned job = request->job;
    if (job >= config->jobs || state->running[job] != 0) {
        reply.value = -EINVAL;
    } else {
        struct tattle__slot *slot = config->slots[job];
        bool mark_slot = !slots_always_inherited(state);
        if (mark_slot)
            madvise(slot, config->slot_bytes, MADV_DOFORK);
        /* What before_all's helpers printed since has no home: dropped,
         * so it cannot grow without bound. */
        empty_fixture_output(state);
        bool joined;
        pid_t pid = fork_into_job(state, job, &joined);
        if (pid == 0) {
            /* A test process is no suite server: what its threads fork
             * keeps its descriptors and its slot. Written only when it
             * changes: the write would copy a data page in every test. */
            if (fixture_fork.suite_server)
                fixture_fork.suite_server = false;
            struct tattle__child_start start = {
                .test = request->test,
                .suite = request->suite,
                .slot = slot,
                /* A suite server keeps the slots out of its own reach. */
                .slot_bytes = state->suite ? config->slot_bytes : 0,
                .stdin_fd = state->null_fd,
                .stdout_fd = state->stdout_fds[job],
                .stderr_fd = state->stderr_fds[job],
                .arena_fd = arena_fd,
                .arena_size = request->arena_size,
                .first_server_fd = state->first_own_fd,
                .cgroup_procs_fd =
                    !joined && tattle__job_cgroups_available(&state->cgroups)
                        ? state->cgroups.procs[job]
                        : -1,
                .signal_mask = &state->test_mask,
                .signals = state->test_signals,
                .signal_actions = state->test_actions,
                .kernel_signal_actions = state->test_kernel_actions,
                .signal_count = IGNORED_COUNT,
                .server_pid = state->pid,
                .thread = state->thread,
            };
            tattle__child_main(&start);
        }
        if (mark_slot)
            madvise(slot, config->slot_bytes, MADV_DONTFORK);
        if (pid < 0) {
            reply.value = pid;
        } else {
            state->running[job] = pid;
            reply.pid = pid;
        }
    }
    if (arena_fd >= 0)
        close(arena_fd);
    send_message(state->channel, &reply, -1);
}

static void reap(struct server_state *state)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG | __WALL);
        if (pid <= 0)
            return;
        for (size_t i = 0; i < state->suite_server_room; i++) {
            if (state->suite_servers[i] != pid)
                continue;
            state->suite_servers[i] = 0;
            struct message notice = {.type = MESSAGE_EXITED,
                                     .job = TATTLE__SUITE_SERVER_JOB,
                                     .pid = pid,
                                     .value = status};
            send_message(state->channel, &notice, -1);
        }
        for (unsigned j = 0; j < state->config->jobs; j++) {
            if (state->running[j] != pid)
                continue;
            state->running[j] = 0;
            struct message notice = {
                .type = MESSAGE_EXITED, .job = j, .pid = pid, .value = status};
            send_message(state->channel, &notice, -1);
        }
        /* Anything else was a stray of an ended test: reaped, forgotten. */
    }
}

/* The runner is gone, or done: nothing of any test may outlive it. */
static TATTLE__NORETURN void shut_down(struct server_state *state)
{
    /* The tree first, while every test process still holds its children:
     * each process is stopped as it is found, so none forks or moves on.
     * Killing a test first would hand its children (a setsid grandchild)
     * to this process while the walk is under way, and the walk could
     * miss them. Then the cgroups and groups, for what the walk missed. */
    tattle__process_tree_kill(getpid(), false, NULL);
    if (!state->suite) /* the cgroups hold other suites' tests too */
        tattle__job_cgroups_kill_all(&state->cgroups);
    for (unsigned j = 0; state->running && j < state->config->jobs; j++)
        if (state->running[j] > 0)
            kill(-state->running[j], SIGKILL);
    tattle__process_tree_kill(getpid(), false, NULL);
    reap(state);
    _exit(0);
}

static TATTLE__NORETURN void serve(struct server_state *state);

/* The signal state of the server that a fixture's run changes: the mask
 * (SIGCHLD blocked, read through the signalfd), the ignored signals, and
 * SIGCHLD's disposition (a fixture that ignores SIGCHLD would have the
 * kernel reap the tests before the server sees how they ended). */
struct server_signals {
    sigset_t mask;
    struct sigaction child_action;
};

/* A fixture runs with the signal state a test body gets: the program's
 * mask and dispositions, SIGCHLD delivered. */
static void give_test_signals(const struct server_state *state,
                              struct server_signals *saved)
{
    sigaction(SIGCHLD, NULL, &saved->child_action);
    for (int i = 0; i < IGNORED_COUNT; i++)
        sigaction(ignored_signals[i], &state->test_actions[i], NULL);
    sigprocmask(SIG_SETMASK, &state->test_mask, &saved->mask);
}

/* Back to the server's own signal state after a fixture. */
static void take_server_signals(const struct server_signals *saved)
{
    sigprocmask(SIG_SETMASK, &saved->mask, NULL);
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    for (int i = 0; i < IGNORED_COUNT; i++)
        sigaction(ignored_signals[i], &ignore, NULL);
    sigaction(SIGCHLD, &saved->child_action, NULL);
}

static void fixture_child_after_fork(void)
{
    bool from_fixture = atomic_load(&fixture_fork.active);
    bool from_other_thread =
        fixture_fork.suite_server &&
        !pthread_equal(pthread_self(), fixture_fork.server_thread);
    if (!from_fixture && !from_other_thread)
        return;
    /* This child is not the server: its own forks are its own. */
    atomic_store(&fixture_fork.active, false);
    fixture_fork.suite_server = false;
    dup2(fixture_fork.output, STDOUT_FILENO);
    dup2(fixture_fork.output, STDERR_FILENO);
    for (size_t i = 0; i < fixture_fork.count; i++)
        close(fixture_fork.fds[i]);
    for (unsigned j = 0; j < fixture_fork.jobs; j++)
        munmap(fixture_fork.slots[j], fixture_fork.slot_bytes);
}

/* Lists the suite server's own descriptors and the job slots for the
 * fork handler, once, before before_all runs (a thread may fork at any
 * time after it). */
static void list_server_descriptors(const struct server_state *state)
{
    size_t room =
        8 + 2 * (size_t)state->config->jobs + 3 * (size_t)state->cgroups.jobs;
    fixture_fork.fds =
        tattle__realloc(fixture_fork.fds, room * sizeof *fixture_fork.fds);
    size_t count = 0;
    int singles[] = {state->channel, state->signal_fd, state->null_fd,
                     state->fixture_output};
    for (size_t i = 0; i < sizeof singles / sizeof *singles; i++)
        if (singles[i] >= 0)
            fixture_fork.fds[count++] = singles[i];
    for (unsigned j = 0; j < state->config->jobs; j++) {
        fixture_fork.fds[count++] = state->stdout_fds[j];
        fixture_fork.fds[count++] = state->stderr_fds[j];
    }
    const struct tattle__job_cgroups *cgroups = &state->cgroups;
    for (unsigned j = 0; cgroups->run_path && j < cgroups->jobs; j++) {
        fixture_fork.fds[count++] = cgroups->directories[j];
        fixture_fork.fds[count++] = cgroups->procs[j];
        fixture_fork.fds[count++] = cgroups->events[j];
    }
    fixture_fork.count = count;
    fixture_fork.output = state->fixture_output;
    fixture_fork.slots = state->config->slots;
    fixture_fork.jobs = state->config->jobs;
    fixture_fork.slot_bytes = state->config->slot_bytes;
    fixture_fork.server_thread = pthread_self();
    fixture_fork.suite_server = true;
}

/* Moves what the fixture's processes wrote to its output file into the
 * job's stdout pipe (the runner drains it while it waits), then empties
 * the file. Only what the file held when the fixture returned, and no
 * more than the configured limit of it, with a note of what was cut: its
 * processes may go on printing faster than the pipe drains. */
static void forward_fixture_output(struct server_state *state, unsigned job,
                                   const char *fixture)
{
    if (state->fixture_output < 0)
        return;
    struct stat info;
    uint64_t held = fstat(state->fixture_output, &info) == 0 && info.st_size > 0
                        ? (uint64_t)info.st_size
                        : 0;
    uint64_t limit = state->config->fixture_output_limit;
    uint64_t forward = limit > 0 && held > limit ? limit : held;
    char buffer[16384];
    int out = state->stdout_fds[job];
    for (uint64_t at = 0; at < forward;) {
        size_t want = forward - at < sizeof buffer ? (size_t)(forward - at)
                                                   : sizeof buffer;
        ssize_t got = pread(state->fixture_output, buffer, want, (off_t)at);
        if (got <= 0)
            break;
        at += (uint64_t)got;
        if (tattle__write_all(out, buffer, (size_t)got) != 0)
            break;
    }
    if (held > forward) {
        int length = snprintf(buffer, sizeof buffer,
                              "\n[... tattle: %" PRIu64
                              " bytes printed by %s's processes were cut "
                              "...]\n",
                              held - forward, fixture);
        if (length > 0)
            tattle__write_all(out, buffer, (size_t)length);
    }
    empty_fixture_output(state);
}

/* Every job's slot out of reach of the suite server's own code (what
 * before_all left running: threads), and none in what it forks; `open_job`
 * (or none, when it is the job count) stays writable in the server alone,
 * for the fixture's result to be copied into. Test processes get theirs
 * back (tattle__child_main). */
static void protect_slots(const struct server_state *state, unsigned open_job)
{
    const struct tattle__fork_server_config *config = state->config;
    for (unsigned j = 0; j < config->jobs; j++) {
        madvise(config->slots[j], config->slot_bytes, MADV_DONTFORK);
        mprotect(config->slots[j], config->slot_bytes,
                 j == open_job ? PROT_READ | PROT_WRITE : PROT_NONE);
    }
}

/* Copies what a fixture recorded in its private slot into the job's slot,
 * read as any slot a hostile writer had is read (runner/slot.h): only
 * records an honest writer leaves are written again, and an impossible
 * one becomes an error. A crash is copied only when the record is of the
 * server (`server`) itself, never that of a process the fixture forked.
 * Returns whether it recorded nothing. */
static bool copy_fixture_result(const struct tattle__slot *own,
                                struct tattle__slot *job, size_t bytes,
                                pid_t server)
{
    struct tattle__slot_reading reading;
    tattle__slot_read_of(own, bytes, server, &reading);
    for (size_t i = 0; i < reading.failure_count; i++)
        tattle__slot_add_failure(job, &reading.failures[i]);
    if (reading.skipped)
        tattle__slot_add_skip(job, reading.skip_reason, reading.skip_file,
                              reading.skip_line);
    if (reading.crashed) {
        void *frames[TATTLE__MAX_FRAMES];
        for (int i = 0; i < reading.crash_frame_count; i++)
            frames[i] = (void *)reading.crash_frames[i];
        tattle__slot_add_crash(job, server, reading.crash_signal, frames,
                               reading.crash_frame_count);
    }
    if (reading.corruption) {
        char message[160];
        snprintf(message, sizeof message,
                 "the fixture's result slot was overwritten: %s",
                 reading.corruption);
        struct tattle__slot_failure failure = {.kind = TATTLE_FAILURE_ERROR,
                                               .message = message};
        tattle__slot_add_failure(job, &failure);
    }
    atomic_fetch_add(&job->failures_dropped, reading.failures_dropped);
    atomic_store(&job->setup_failed, reading.setup_failed ? 1u : 0u);
    atomic_store(&job->fixture, (uint32_t)reading.fixture);
    atomic_store(&job->phase, (uint32_t)reading.phase);
    bool clean = tattle__slot_reading_is_clean(&reading);
    tattle__slot_reading_release(&reading);
    return clean;
}

/* Runs a suite's before_all or after_all in this suite server with job
 * `job`'s output pipes, as a test would run, with the signal state a test
 * gets and no job's slot in reach of what it forks. It records into a
 * slot of its own, which the processes it forks share; when it returns
 * the server copies its result into the job's slot, so what they record
 * later reaches no test. Returns whether it finished without a failure.
 * Outside fixtures the server's stdout and stderr are its fixture output
 * file, not the runner's. */
static bool run_suite_fixture(struct server_state *state, unsigned job,
                              void (*fn)(void), enum tattle__phase phase)
{
    protect_slots(state, job);
    if (!fn)
        return true;
    const struct tattle__fork_server_config *config = state->config;
    struct tattle__slot *slot = config->slots[job];
    struct tattle__slot *own = tattle__slot_create(config->slot_bytes);
    if (!own) {
        struct tattle__slot_failure failure = {
            .kind = TATTLE_FAILURE_ERROR,
            .message = "the fixture's result slot could not be mapped"};
        tattle__slot_add_failure(slot, &failure);
        return false;
    }
    fflush(NULL);
    empty_fixture_output(state);
    dup2(state->stdout_fds[job], STDOUT_FILENO);
    dup2(state->stderr_fds[job], STDERR_FILENO);
    tattle__crash_set_slot(own, state->pid);
    tattle__crash_set_mirror(own, slot, config->slot_bytes, state->pid);
    struct server_signals server_signals;
    give_test_signals(state, &server_signals);
    atomic_store(&fixture_fork.active, true);
    bool completed = tattle__child_run_suite_fixture(fn, phase, own);
    if (getpid() != state->pid)
        _exit(0); /* a child the fixture forked returned from it */
    atomic_store(&fixture_fork.active, false);
    take_server_signals(&server_signals);
    tattle__crash_set_mirror(NULL, NULL, 0, 0);
    tattle__crash_set_slot(NULL, 0);
    bool passed =
        copy_fixture_result(own, slot, config->slot_bytes, state->pid) &&
        completed;
    tattle__slot_destroy(own, config->slot_bytes);
    fflush(NULL);
    forward_fixture_output(
        state, job, phase == TATTLE__PHASE_SETUP ? "before_all" : "after_all");
    if (state->fixture_output >= 0) {
        dup2(state->fixture_output, STDOUT_FILENO);
        dup2(state->fixture_output, STDERR_FILENO);
    }
    return passed;
}

static bool single_threaded(void)
{
    DIR *directory = opendir("/proc/self/task");
    if (!directory)
        return false;
    int threads = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL)
        if (entry->d_name[0] != '.')
            threads++;
    closedir(directory);
    return threads == 1;
}

static void prepare_raw_clone(struct server_state *state);

/* The suite server's life: a child of the fork server that runs the
 * suite's before_all, then serves its tests' spawn requests on its own
 * channel with the same loop, so they are its children and start from
 * its memory. */
static TATTLE__NORETURN void suite_server_main(struct server_state *state,
                                               const struct message *request,
                                               int channel, pid_t parent)
{
    close(state->channel);
    state->channel = move_descriptor(channel, state->first_own_fd);
    state->pid = getpid();
    state->suite = request->suite;
    memset(state->running, 0, state->config->jobs * sizeof *state->running);
    memset(state->suite_servers, 0,
           state->suite_server_room * sizeof *state->suite_servers);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(3);
    dup2(state->null_fd, STDIN_FILENO);
    int output = memfd_create("tattle-fixture-output", MFD_CLOEXEC);
    if (output >= 0)
        fcntl(output, F_SETFL, O_APPEND);
    state->fixture_output = move_descriptor(output, state->first_own_fd);
    /* From here on, what is forked in this process but the server's own
     * spawn of a test keeps nothing of the server's. */
    list_server_descriptors(state);
    bool ready =
        run_suite_fixture(state, request->job, state->suite->options.before_all,
                          TATTLE__PHASE_SETUP);
    protect_slots(state, state->config->jobs);
    struct message done = {.type = MESSAGE_FIXTURE_DONE,
                           .job = request->job,
                           .pid = state->pid,
                           .value = ready ? 0 : 1};
    send_message(state->channel, &done, -1);
    if (!ready)
        shut_down(state);
    /* before_all may have started threads: then a raw clone would copy
     * locks held by them, and glibc's fork() is the sound way. */
    prepare_raw_clone(state);
    if (!single_threaded()) {
        state->raw_clone = false;
        /* A thread before_all left running with SIGCHLD unblocked takes
         * the signal a test's end raises, and the signalfd never sees
         * it: the server looks for ended tests every 50 ms as well. */
        state->reap_by_polling = true;
    }
    serve(state);
}

static void start_suite_server(struct server_state *state,
                               const struct message *request)
{
    const struct tattle__fork_server_config *config = state->config;
    struct message reply = {.type = MESSAGE_REPLY, .job = request->job};
    size_t place = state->suite_server_room;
    for (size_t i = 0; i < state->suite_server_room; i++)
        if (state->suite_servers[i] == 0)
            place = i;
    int ends[2] = {-1, -1};
    if (state->suite || request->job >= config->jobs || !request->suite ||
        place == state->suite_server_room) {
        reply.value = -EINVAL;
    } else if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) !=
               0) {
        reply.value = -errno;
    } else {
        int room = (int)(config->jobs + 16) * 1024;
        if (room < 256 * 1024)
            room = 256 * 1024;
        setsockopt(ends[1], SOL_SOCKET, SO_SNDBUF, &room, sizeof room);
        /* The suite server serves every job: it keeps every slot. */
        for (unsigned j = 0; j < config->jobs; j++)
            madvise(config->slots[j], config->slot_bytes, MADV_DOFORK);
        pid_t pid = fork();
        if (pid == 0) {
            close(ends[0]);
            suite_server_main(state, request, ends[1], state->pid);
        }
        for (unsigned j = 0; j < config->jobs && !slots_always_inherited(state);
             j++)
            madvise(config->slots[j], config->slot_bytes, MADV_DONTFORK);
        close(ends[1]);
        if (pid < 0) {
            reply.value = -errno;
            close(ends[0]);
            ends[0] = -1;
        } else {
            state->suite_servers[place] = pid;
            reply.pid = pid;
        }
    }
    send_message(state->channel, &reply, ends[0]);
    if (ends[0] >= 0)
        close(ends[0]);
}

/* The suite's last test ended: after_all, then the server ends (and with
 * it whatever its tests left). */
static TATTLE__NORETURN void end_suite_server(struct server_state *state,
                                              const struct message *request)
{
    if (!state->suite || request->job >= state->config->jobs)
        shut_down(state);
    bool passed =
        run_suite_fixture(state, request->job, state->suite->options.after_all,
                          TATTLE__PHASE_TEARDOWN);
    struct message done = {.type = MESSAGE_FIXTURE_DONE,
                           .job = request->job,
                           .pid = state->pid,
                           .value = passed ? 0 : 1};
    send_message(state->channel, &done, -1);
    shut_down(state);
}

TATTLE__CHILD_PATH static TATTLE__NORETURN void
serve(struct server_state *state)
{
    /* After each fork every page the server writes is copied again. The
     * table of running tests, written at each spawn and each end, is kept
     * on the stack next to the loop's own frame (written anyway), not on a
     * page of the heap that would cost a fault per test of its own. */
    pid_t running[state->config->jobs];
    if (state->running) /* a suite server: what its parent knew */
        memcpy(running, state->running, sizeof running);
    else
        memset(running, 0, sizeof running);
    state->running = running;
    for (;;) {
        struct pollfd fds[2] = {{state->channel, POLLIN, 0},
                                {state->signal_fd, POLLIN, 0}};
        int polled = poll(fds, 2, state->reap_by_polling ? 50 : -1);
        if (polled < 0) {
            if (errno == EINTR)
                continue;
            shut_down(state);
        }
        if (polled == 0) {
            reap(state);
            continue;
        }
        if (fds[1].revents) {
            /* One read takes it: SIGCHLD, a standard signal, is pending
             * once at most. A second read would fail with EAGAIN, and its
             * errno write cost a fault on the thread's page per test. */
            struct signalfd_siginfo info;
            ssize_t taken = read(state->signal_fd, &info, sizeof info);
            (void)taken;
            reap(state);
        }
        if (fds[0].revents) {
            struct message request;
            int arena_fd;
            int received = receive_message(state->channel, &request, &arena_fd,
                                           MSG_DONTWAIT);
            if (received == -EAGAIN)
                continue;
            if (received > 0 && request.type == MESSAGE_SUITE_START &&
                arena_fd < 0) {
                start_suite_server(state, &request);
                continue;
            }
            if (received > 0 && request.type == MESSAGE_SUITE_END &&
                arena_fd < 0)
                end_suite_server(state, &request);
            if (received <= 0 || request.type != MESSAGE_SPAWN) {
                if (arena_fd >= 0)
                    close(arena_fd);
                shut_down(state);
            }
            spawn(state, &request, arena_fd);
        }
    }
}

static TATTLE__NORETURN void
server_main(const struct tattle__fork_server_config *config, int channel)
{
    struct server_state state = {.config = config,
                                 .channel = channel,
                                 .fixture_output = -1,
                                 .pid = getpid()};
    /* The runner may close its copies; the server works on its own. */
    state.cgroups = *config->cgroups;
    if (config->cgroups->run_path) {
        size_t bytes = config->jobs * sizeof(int);
        int *lists[3];
        int *const sources[3] = {config->cgroups->directories,
                                 config->cgroups->procs,
                                 config->cgroups->events};
        for (int l = 0; l < 3; l++) {
            lists[l] = tattle__malloc(bytes);
            memcpy(lists[l], sources[l], bytes);
        }
        state.cgroups.directories = lists[0];
        state.cgroups.procs = lists[1];
        state.cgroups.events = lists[2];
        state.cgroups.run_path = tattle__strdup(config->cgroups->run_path);
    }
    state.stdout_fds = tattle__malloc(config->jobs * sizeof(int));
    state.stderr_fds = tattle__malloc(config->jobs * sizeof(int));
    memcpy(state.stdout_fds, config->stdout_fds, config->jobs * sizeof(int));
    memcpy(state.stderr_fds, config->stderr_fds, config->jobs * sizeof(int));
    state.running = NULL; /* on serve()'s stack, from there on */
    state.suite_server_room = TATTLE__SUITE_SERVERS_MAX;
    state.suite_servers =
        tattle__calloc(state.suite_server_room, sizeof *state.suite_servers);
    close_foreign_descriptors(&state);

    /* What a test gets back: the mask and dispositions of the program. */
    sigprocmask(SIG_SETMASK, NULL, &state.test_mask);
    for (int i = 0; i < IGNORED_COUNT; i++)
        sigaction(ignored_signals[i], NULL, &state.test_actions[i]);
    state.test_actions[IGNORED_COUNT - 1] = config->original_sigpipe;
    /* Captured while every disposition but SIGPIPE's is still the
     * program's, so the capture changes none of them for a moment. */
    memcpy(state.test_signals, ignored_signals, sizeof state.test_signals);
    tattle__child_capture_signal_actions(state.test_signals, state.test_actions,
                                         IGNORED_COUNT,
                                         state.test_kernel_actions);
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    for (int i = 0; i < IGNORED_COUNT; i++)
        sigaction(ignored_signals[i], &ignore, NULL);
    state.thread = pthread_self();

    /* SIGCHLD ignored (inherited so) would have the kernel reap the
     * tests unseen and queue no SIGCHLD: the server would wait forever. */
    struct sigaction child_default = {.sa_handler = SIG_DFL};
    sigemptyset(&child_default.sa_mask);
    sigaction(SIGCHLD, &child_default, NULL);
    sigset_t child_signal;
    sigemptyset(&child_signal);
    sigaddset(&child_signal, SIGCHLD);
    sigprocmask(SIG_BLOCK, &child_signal, NULL);
    state.signal_fd = signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
    state.null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (state.signal_fd < 0 || state.null_fd < 0)
        _exit(3);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    gather_descriptors(&state);
    prepare_raw_clone(&state);
    pthread_atfork(NULL, NULL, fixture_child_after_fork);

    /* Test processes inherit these: no core files from crashing tests, an
     * unbuffered stdout (nothing a test printed is lost when it dies), the
     * crash handlers and their alternate stack. Set once here, they cost a
     * test nothing. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    setvbuf(stdout, NULL, _IONBF, 0);
    if (tattle__crash_install(tattle__child_on_crash) != 0)
        _exit(3);
    tattle__trace_prepare_process();
    for (unsigned j = 0; j < config->jobs && !slots_always_inherited(&state);
         j++)
        madvise(config->slots[j], config->slot_bytes, MADV_DONTFORK);
    serve(&state);
}

int tattle__fork_server_start(struct tattle__fork_server **out,
                              const struct tattle__fork_server_config *config)
{
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0)
        return -errno;
    /* Room for one notice per job, so the server never blocks on them. */
    int room = (int)(config->jobs + 16) * 1024;
    if (room < 256 * 1024)
        room = 256 * 1024;
    setsockopt(ends[1], SOL_SOCKET, SO_SNDBUF, &room, sizeof room);
    /* Nothing buffered may be written twice. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int error = -errno;
        close(ends[0]);
        close(ends[1]);
        return error;
    }
    if (pid == 0) {
        close(ends[0]);
        server_main(config, ends[1]);
    }
    close(ends[1]);
    struct tattle__fork_server *server = tattle__calloc(1, sizeof *server);
    server->job_base = config->job_base;
    server->pid = pid;
    server->channel = ends[0];
    server->pidfd = pidfd_open(pid, 0);
    /* Its only thread is the one fork() made: its id is the pid. */
    char children_path[64];
    snprintf(children_path, sizeof children_path, "/proc/%d/task/%d/children",
             (int)pid, (int)pid);
    server->children_fd = open(children_path, O_RDONLY | O_CLOEXEC);
    *out = server;
    return 0;
}
