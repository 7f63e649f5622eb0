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
 * sanitizer's build, whose runtime owns those signals). It sends every
 * frame in one stream at the end; the runner reads until the end of the
 * pipe, up to a budget, then kills it.
 */
#include "runner/lookup_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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
 * and the file's bytes (none for an absent one). */
struct frame_header {
    uint64_t address;
    int32_t line;
    uint32_t function_length; /* ABSENT: NULL */
    uint32_t file_length;
    uint32_t unused; /* no padding goes down the pipe unwritten */
};

static const uint32_t ABSENT = UINT32_MAX;

static void put_string(struct tattle__buffer *out, const char *text,
                       uint32_t *length)
{
    size_t bytes = text ? strlen(text) : 0;
    *length = text && bytes < ABSENT ? (uint32_t)bytes : ABSENT;
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

static void free_frames(struct tattle_frame *frames, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free((char *)frames[i].function);
        free((char *)frames[i].file);
        frames[i] = (struct tattle_frame){0};
    }
}

/* Reads the frames in `in` into `frames` (at most `room`); returns how
 * many, or -1 when the stream is not whole frames (then none is kept). */
static long take_frames(const struct tattle__buffer *in,
                        struct tattle_frame *frames, size_t room)
{
    size_t count = 0, at = 0;
    struct frame_header header;
    while (at < in->length) {
        bool whole = count < room && in->length - at >= sizeof header;
        struct tattle_frame frame = {0};
        if (whole) {
            memcpy(&header, in->data + at, sizeof header);
            at += sizeof header;
            frame.address = (uintptr_t)header.address;
            frame.line = header.line;
            whole = take_string(in->data, in->length, &at,
                                header.function_length, &frame.function) &&
                    take_string(in->data, in->length, &at, header.file_length,
                                &frame.file);
        }
        if (!whole) {
            free_frames(&frame, 1);
            free_frames(frames, count);
            return -1;
        }
        frames[count++] = frame;
    }
    return (long)count;
}

/* Reads `fd` to its end into `in`, until `deadline_us`; returns whether
 * the end came in time. */
static bool read_until_end(int fd, struct tattle__buffer *in,
                           unsigned long long deadline_us)
{
    for (;;) {
        unsigned long long now = tattle__now_us();
        if (now >= deadline_us)
            return false;
        struct pollfd ready = {fd, POLLIN, 0};
        int polled = poll(&ready, 1, (int)((deadline_us - now + 999) / 1000));
        if (polled < 0 && errno != EINTR)
            return false;
        if (polled <= 0)
            continue;
        char *room = tattle__buffer_reserve(in, 16384);
        ssize_t n = read(fd, room, 16384);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return false;
        if (n == 0)
            return true;
        in->length += (size_t)n;
        in->data[in->length] = '\0';
    }
}

/* Makes the forked process one of its own (the file's header says how). */
static void become_a_lookup_process(int out, pid_t runner)
{
    in_a_lookup_process = true;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != runner)
        _exit(1); /* the runner died before the line above */
    prctl(PR_SET_NAME, "tattle-lookup");
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (out > 3)
        syscall(SYS_close_range, 3u, (unsigned)out - 1, 0u);
    syscall(SYS_close_range, (unsigned)out + 1, ~0u, 0u);
    if (!TATTLE__SANITIZED) {
        static const int crashes[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
                                      SIGABRT, SIGTRAP, SIGSYS};
        struct sigaction default_action = {.sa_handler = SIG_DFL};
        sigemptyset(&default_action.sa_mask);
        for (size_t i = 0; i < sizeof crashes / sizeof *crashes; i++)
            sigaction(crashes[i], &default_action, NULL);
    }
}

static TATTLE__NORETURN void run_lookup(int out, pid_t runner,
                                        tattle__frames_lookup *look_up,
                                        const void *request, size_t room)
{
    become_a_lookup_process(out, runner);
    struct tattle_frame *frames = tattle__calloc(room, sizeof *frames);
    size_t count = look_up(request, frames, room);
    struct tattle__buffer sent = {0};
    put_frames(&sent, frames, count < room ? count : room);
    /* No exit handlers, no flush of what the runner had buffered. */
    _exit(tattle__write_all(out, sent.data, sent.length) == 0 ? 0 : 1);
}

/* Waits for the lookup process (its pidfd, when one could be opened: a
 * pid alone could be another process's by now, if the program's own
 * SIGCHLD handler reaped it); returns whether it exited with status 0. */
static bool reap(pid_t pid, int pidfd)
{
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
    if (pidfd >= 0)
        close(pidfd);
    /* ECHILD: reaped by someone else, or SIGCHLD ignored; the stream alone
     * says whether the answer is whole. */
    if (waited < 0)
        return errno == ECHILD;
    return info.si_code == CLD_EXITED && info.si_status == 0;
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
        return (long)look_up(request, frames, room);
    pid_t runner = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(ends[0]);
        run_lookup(ends[1], runner, look_up, request, room);
    }
    close(ends[1]);
    if (pid < 0) {
        close(ends[0]);
        return (long)look_up(request, frames, room);
    }
    int pidfd = pidfd_open(pid, 0);
    struct tattle__buffer received = {0};
    bool ended = read_until_end(ends[0], &received,
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
    bool exited = reap(pid, pidfd);
    long count = -1;
    if (ended && exited)
        count = received.length > 0 ? take_frames(&received, frames, room) : 0;
    tattle__buffer_release(&received);
    return count;
}
