/*
 * lookup_process.c — a lookup of frames run in a process forked for it:
 * the fork, the frames' way back through a pipe, and the bounded wait.
 *
 * The process is forked from the runner with fork(), so that glibc's
 * malloc and stdio are usable in it even if a thread of the program (a
 * reporter plugin's, the test binary's own) held their locks; the
 * program's pthread_atfork handlers run as for any fork. It is made a
 * process of its own before the lookup: it dies with the runner, closes
 * every descriptor it inherited but its pipe, dumps no core, and dies of
 * a crash rather than running the program's handlers for it (except in a
 * sanitizer's build, whose runtime owns those signals), and takes every
 * signal the runner blocks (a Ctrl-C ends it too). What the runner's stdio
 * held when it forked (a reporter plugin's buffered lines) is dropped and
 * never written from there, and it ends with the exit system call itself
 * (a sanitizer's _exit flushes stdio). It sends every frame in
 * one stream at the end, closed by an end mark that counts them: without
 * the mark the answer is not whole, whatever the exit status says, which
 * the runner cannot always learn (a program may ignore SIGCHLD or reap
 * children itself). The runner reads until the end of the pipe or the
 * process's exit, up to a budget, then kills it.
 */
#include "runner/lookup_process.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/test_process/child.h"
#include "base/buffer.h"
#include "base/report_file.h"
#include "base/sanitizers.h"
#include "base/timestamp.h"

static bool in_a_lookup_process;

bool tattle__in_a_lookup_process(void)
{
    return in_a_lookup_process;
}

/* How a frame travels through the pipe: this header, then the function's
 * and the file's bytes (none for an absent one). The stream ends with a
 * header whose function_length is END_MARK and whose address is the
 * number of frames before it. */
struct frame_header {
    uint64_t address;
    int32_t line;
    uint32_t function_length; /* ABSENT: NULL */
    uint32_t file_length;
    uint32_t unused; /* no padding goes down the pipe unwritten */
};

static const uint32_t ABSENT = UINT32_MAX, END_MARK = UINT32_MAX - 1;

/* How long the runner waits for a killed lookup process to be gone before
 * it leaves it (in uninterruptible sleep, say) to be reaped later. */
enum { KILLED_GRACE_MS = 1000 };

static void put_string(struct tattle__buffer *out, const char *text,
                       uint32_t *length)
{
    size_t bytes = text ? strlen(text) : 0;
    *length = text && bytes < END_MARK ? (uint32_t)bytes : ABSENT;
    if (*length != ABSENT)
        tattle__buffer_append(out, text, bytes);
}

static void put_frames(struct tattle__buffer *out,
                       const struct tattle_frame *frames, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        size_t at = out->length;
        struct frame_header header = {.address = frames[i].address,
                                      .line = frames[i].line};
        tattle__buffer_append(out, &header, sizeof header);
        put_string(out, frames[i].function, &header.function_length);
        put_string(out, frames[i].file, &header.file_length);
        memcpy(out->data + at, &header, sizeof header);
    }
    struct frame_header end = {.address = count, .function_length = END_MARK};
    tattle__buffer_append(out, &end, sizeof end);
}

/* The string of `length` bytes at *at in `data` (`end` its end), copied;
 * false when the stream ends before it. */
static bool take_string(const char *data, size_t end, size_t *at,
                        uint32_t length, const char **text)
{
    *text = NULL;
    if (length == ABSENT)
        return true;
    if (length > end - *at)
        return false;
    char *copy = tattle__malloc((size_t)length + 1);
    memcpy(copy, data + *at, length);
    copy[length] = '\0';
    *text = copy;
    *at += length;
    return true;
}

void tattle__frames_free(struct tattle_frame *frames, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free((char *)frames[i].function);
        free((char *)frames[i].file);
        frames[i].function = frames[i].file = NULL;
    }
}

/* Reads the frames in `in` into `frames` (at most `room`); returns how
 * many, or -1 when the stream is not whole frames closed by the end mark
 * (then none is kept). */
static long take_frames(const struct tattle__buffer *in,
                        struct tattle_frame *frames, size_t room)
{
    size_t count = 0, at = 0;
    struct frame_header header;
    while (in->length - at >= sizeof header) {
        memcpy(&header, in->data + at, sizeof header);
        at += sizeof header;
        if (header.function_length == END_MARK) {
            if (header.address == count && at == in->length)
                return (long)count;
            break;
        }
        struct tattle_frame frame = {.address = (uintptr_t)header.address,
                                     .line = header.line};
        bool whole = count < room &&
                     take_string(in->data, in->length, &at,
                                 header.function_length, &frame.function) &&
                     take_string(in->data, in->length, &at, header.file_length,
                                 &frame.file);
        if (!whole) {
            tattle__frames_free(&frame, 1);
            break;
        }
        frames[count++] = frame;
    }
    tattle__frames_free(frames, count);
    memset(frames, 0, count * sizeof *frames);
    return -1;
}

/* Appends what `fd` holds now to `in`; returns 1 at its end, 0 when it is
 * empty for now, -1 when it cannot be read. */
static int read_available(int fd, struct tattle__buffer *in)
{
    /* On the stack, small: the runner's heap and stack stay as they were
     * for an answer of a few hundred bytes. */
    char chunk[2048];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n > 0) {
            tattle__buffer_append(in, chunk, (size_t)n);
            continue;
        }
        if (n == 0)
            return 1;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN ? 0 : -1;
    }
}

static int poll_timeout_ms(unsigned long long deadline_us)
{
    unsigned long long now = tattle__now_us();
    if (now >= deadline_us)
        return 0;
    unsigned long long left_ms = (deadline_us - now + 999) / 1000;
    return left_ms > INT_MAX ? INT_MAX : (int)left_ms;
}

/* Reads the lookup's answer from `fd` (non-blocking) into `in` until the
 * pipe's end or the process's exit (`pidfd`, when there is one: a fork by
 * another thread of the program may hold the pipe's write end open), or
 * until `deadline_us`; returns whether the answer ended in time. */
static bool read_answer(int fd, int pidfd, struct tattle__buffer *in,
                        unsigned long long deadline_us)
{
    for (;;) {
        struct pollfd ready[2] = {{fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
        int timeout_ms = poll_timeout_ms(deadline_us);
        int polled = poll(ready, pidfd >= 0 ? 2 : 1, timeout_ms);
        if (polled < 0 && errno != EINTR)
            return false;
        int state = read_available(fd, in);
        if (state != 0)
            return state > 0;
        if (polled > 0 && pidfd >= 0 && ready[1].revents)
            return read_available(fd, in) >= 0; /* it exited: all is in */
        /* Past the budget (or stopped past it with the answer in): what
         * the pipe holds now was read above. */
        if (polled == 0 && timeout_ms == 0)
            return false;
    }
}

/* Ends the lookup process at once: with the system call itself, since a
 * sanitizer's runtime intercepts _exit() and flushes stdio in it, and what
 * the runner's stdio held when it forked (a reporter's buffered lines) is
 * the runner's to write, once. */
static TATTLE__NORETURN void end_lookup_process(int status)
{
    syscall(SYS_exit_group, status);
    _exit(status);
}

/* Makes the forked process one of its own (the file's header says how);
 * returns the descriptor its answer goes to. */
static int become_a_lookup_process(int out, pid_t runner)
{
    in_a_lookup_process = true;
    /* Whatever ends the process, the runner's buffered output is not
     * written from here (tattle__malloc's failure exits with _exit). */
    __fpurge(stdout);
    __fpurge(stderr);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != runner)
        end_lookup_process(1); /* the runner died before the line above */
    prctl(PR_SET_NAME, "tattle-lookup");
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    /* Above the standard streams, which stay (a sanitizer's report, an
     * abort's message go there, not into the answer), even when the
     * runner had them closed. */
    int moved = fcntl(out, F_DUPFD_CLOEXEC, 3);
    if (moved < 0)
        end_lookup_process(1);
    if (out < 3)
        close(out); /* a standard stream's number, which was closed */
    tattle__close_descriptors_between(3, moved - 1);
    tattle__close_descriptors_between(moved + 1, INT_MAX);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (!TATTLE__SANITIZED) {
        static const int crashes[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
                                      SIGABRT, SIGTRAP, SIGSYS};
        struct sigaction default_action = {.sa_handler = SIG_DFL};
        sigemptyset(&default_action.sa_mask);
        for (size_t i = 0; i < sizeof crashes / sizeof *crashes; i++)
            sigaction(crashes[i], &default_action, NULL);
    }
    return moved;
}

static TATTLE__NORETURN void run_lookup(int out, pid_t runner,
                                        tattle__frames_lookup *look_up,
                                        const void *request, size_t room)
{
    out = become_a_lookup_process(out, runner);
    struct tattle_frame *frames = tattle__calloc(room, sizeof *frames);
    size_t count = look_up(request, frames, room);
    struct tattle__buffer sent = {0};
    put_frames(&sent, frames, count < room ? count : room);
    end_lookup_process(tattle__write_all(out, sent.data, sent.length) == 0 ? 0
                                                                           : 1);
}

/* Waits for the lookup process (its pidfd, when one could be opened: a
 * pid alone could be another process's by now, if the program's own
 * SIGCHLD handler reaped it); returns whether it exited with status 0, or
 * was reaped by someone else (the end mark alone then says whether the
 * answer is whole). A killed process is waited for KILLED_GRACE_MS at
 * most; one still there is left to the run's end, which reaps every
 * child. */
static bool reap(pid_t pid, int pidfd, bool killed)
{
    if (killed && pidfd >= 0) {
        struct pollfd gone = {pidfd, POLLIN, 0};
        int polled;
        do
            polled = poll(&gone, 1, KILLED_GRACE_MS);
        while (polled < 0 && errno == EINTR);
        if (polled == 0) {
            close(pidfd);
            return false;
        }
    }
    siginfo_t info = {0};
    int waited;
    do
        waited = pidfd >= 0 ? waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED)
                            : waitid(P_PID, (id_t)pid, &info, WEXITED);
    while (waited < 0 && errno == EINTR);
    if (waited < 0 && errno == EINVAL && pidfd >= 0) { /* before Linux 5.4 */
        do
            waited = waitid(P_PID, (id_t)pid, &info, WEXITED);
        while (waited < 0 && errno == EINTR);
    }
    int wait_error = waited < 0 ? errno : 0;
    if (pidfd >= 0)
        close(pidfd);
    if (waited < 0)
        return wait_error == ECHILD;
    return info.si_code == CLD_EXITED && info.si_status == 0;
}

/* The lookup run here, where no process could be forked for it. */
static long look_up_here(tattle__frames_lookup *look_up, const void *request,
                         struct tattle_frame *frames, size_t room)
{
    size_t count = look_up(request, frames, room);
    return (long)(count < room ? count : room);
}

long tattle__look_up_in_a_process(tattle__frames_lookup *look_up,
                                  const void *request,
                                  struct tattle_frame *frames, size_t room,
                                  unsigned budget_ms)
{
    if (room == 0)
        return 0;
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0)
        return look_up_here(look_up, request, frames, room);
    pid_t runner = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(ends[0]);
        run_lookup(ends[1], runner, look_up, request, room);
    }
    close(ends[1]);
    if (pid < 0) {
        close(ends[0]);
        return look_up_here(look_up, request, frames, room);
    }
    int pidfd = pidfd_open(pid, 0);
    fcntl(ends[0], F_SETFL, O_NONBLOCK);
    struct tattle__buffer received = {0};
    bool ended = read_answer(ends[0], pidfd, &received,
                             tattle__now_us() + budget_ms * 1000ull);
    close(ends[0]);
    if (!ended) {
        /* By its pidfd: its pid alone could name another process by now
         * (see reap). Without one (no pidfd_open before Linux 5.3), the
         * pid: the process has not been waited for. */
        if (pidfd >= 0)
            syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0u);
        else
            kill(pid, SIGKILL);
    }
    bool exited = reap(pid, pidfd, !ended);
    long count = ended && exited ? take_frames(&received, frames, room) : -1;
    tattle__buffer_release(&received);
    return count;
}
