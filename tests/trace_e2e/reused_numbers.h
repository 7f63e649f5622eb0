/*
 * reused_numbers.h — a pipe's descriptor number closed where the message
 * capture does not see it (a raw close system call, or freopen's own
 * close), then handed out again by a call that opens a file or a
 * descriptor that is no message endpoint: fortified open (__open_2 and
 * its 64 and openat forms), freopen, tmpfile, mkostemp, timerfd_create,
 * signalfd, inotify_init and inotify_init1. Each of these calls is
 * interposed only to forget what the capture's cache said of the number;
 * were it not, the bytes written into the file or read from the timer,
 * the signal or the watch would be recorded as messages through the pipe.
 *
 * Plain C with no tattle call, shared by the traced tests that link
 * libtattle (fixture_capture.c, fixture_fortified.c) and by
 * reuse_helper.c, which a traced test starts with exec so that the
 * preload library does the capturing. Each scenario sends one message
 * ("through the pipe") through its pipe, then does one transfer through
 * the reused number; it also checks that the call's results and errno are
 * libc's, on success and on a failure. It returns NULL, or what went
 * wrong. The driver checks that the trace holds the pipes' messages and
 * nothing else.
 */
#ifndef TATTLE_TESTS_REUSED_NUMBERS_H
#define TATTLE_TESTS_REUSED_NUMBERS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define REUSED_PIPE_TEXT "through the pipe"

/* Flags the compiler cannot see, so that a fortified open calls
 * __open_2 (a constant without O_CREAT calls open itself). */
static volatile int reused_read_only = O_RDONLY;
static volatile int reused_write_only = O_WRONLY;

/* A pipe with one message through it, its write end then closed by a raw
 * close system call: that end's number, free again (its read end in
 * *read_end), or -1. */
static inline int reused_pipe_closed_unseen(int *read_end)
{
    int fds[2];
    char back[sizeof REUSED_PIPE_TEXT];
    size_t length = sizeof REUSED_PIPE_TEXT - 1;
    if (pipe(fds) != 0)
        return -1;
    *read_end = fds[0];
    if (write(fds[1], REUSED_PIPE_TEXT, length) != (ssize_t)length ||
        read(fds[0], back, sizeof back) != (ssize_t)length ||
        syscall(SYS_close, fds[1]) != 0)
        return -1;
    return fds[1];
}

/* The number `got` is `wanted`; writes `text` into it when `text` is not
 * NULL; closes it and the pipe's read end. */
static inline const char *reused_number_written(int got, int wanted,
                                                int read_end, const char *text)
{
    const char *wrong = NULL;
    if (got != wanted)
        wrong = "the call did not hand out the pipe's number";
    else if (text != NULL &&
             write(got, text, strlen(text)) != (ssize_t)strlen(text))
        wrong = "the write into the reused number failed";
    if (got >= 0)
        close(got);
    close(read_end);
    return wrong;
}

/* A call that failed as libc's does: -1 and `wanted` in errno. */
static inline const char *reused_failed_with(int result, int wanted,
                                             const char *wrong)
{
    return result == -1 && errno == wanted ? NULL : wrong;
}

/* A file to open, made empty: its path in `path` (a template). */
static inline const char *reused_file(char *path)
{
    int made = mkstemp(path);
    if (made < 0)
        return "mkstemp failed";
    close(made);
    return NULL;
}

/* open, open64, openat and openat64 of flags the compiler cannot see:
 * built with -D_FORTIFY_SOURCE=2 -O2, they call __open_2, __open64_2,
 * __openat_2 and __openat64_2. */
static inline const char *reused_by_fortified_open(void)
{
    char path[] = "/tmp/tattle-reused-XXXXXX";
    const char *wrong = reused_file(path);
    for (int form = 0; wrong == NULL && form < 4; form++) {
        int read_end;
        int number = reused_pipe_closed_unseen(&read_end);
        if (number < 0)
            return "the pipe failed";
        int flags = reused_write_only;
        int got = form == 0   ? open(path, flags)
                  : form == 1 ? open64(path, flags)
                  : form == 2 ? openat(AT_FDCWD, path, flags)
                              : openat64(AT_FDCWD, path, flags);
        wrong = reused_number_written(got, number, read_end, "file by open");
    }
    if (wrong == NULL) {
        errno = 0;
        wrong =
            reused_failed_with(open("/nonexistent/tattle", reused_read_only),
                               ENOENT, "open of no file: not ENOENT");
    }
    if (wrong == NULL) {
        errno = 0;
        wrong =
            reused_failed_with(openat(-1, "relative/tattle", reused_read_only),
                               EBADF, "openat from no directory: not EBADF");
    }
    unlink(path);
    return wrong;
}

/* A stream on a pipe's write end, a message written through its number,
 * then freopen onto a file: libc closes the pipe's end itself and puts
 * the file on the same number. */
static inline const char *reused_by_freopen(void)
{
    char path[] = "/tmp/tattle-reused-XXXXXX";
    const char *wrong = reused_file(path);
    if (wrong != NULL)
        return wrong;
    int fds[2];
    char back[sizeof REUSED_PIPE_TEXT];
    size_t length = sizeof REUSED_PIPE_TEXT - 1;
    FILE *stream = pipe(fds) == 0 ? fdopen(fds[1], "w") : NULL;
    bool stream_open = stream != NULL;
    if (stream == NULL ||
        write(fds[1], REUSED_PIPE_TEXT, length) != (ssize_t)length ||
        read(fds[0], back, sizeof back) != (ssize_t)length)
        wrong = "the pipe failed";
    else if ((stream_open = freopen(path, "w", stream) == stream) == false)
        wrong = "freopen failed"; /* it closed the stream */
    else if (fileno(stream) != fds[1])
        wrong = "freopen's file is not on the pipe's number";
    else if (write(fds[1], "file by freopen", 15) != 15)
        wrong = "the write into freopen's file failed";
    if (stream_open)
        fclose(stream);
    close(fds[0]);
    unlink(path);
    return wrong;
}

static inline const char *reused_by_tmpfile(void)
{
    int read_end;
    int number = reused_pipe_closed_unseen(&read_end);
    if (number < 0)
        return "the pipe failed";
    FILE *stream = tmpfile();
    if (stream == NULL) {
        close(read_end);
        return "tmpfile failed";
    }
    const char *wrong = NULL;
    if (fileno(stream) != number)
        wrong = "tmpfile did not hand out the pipe's number";
    else if (write(number, "file by tmpfile", 15) != 15)
        wrong = "the write into tmpfile's file failed";
    fclose(stream);
    close(read_end);
    return wrong;
}

static inline const char *reused_by_mkostemp(void)
{
    int read_end;
    int number = reused_pipe_closed_unseen(&read_end);
    if (number < 0)
        return "the pipe failed";
    char path[] = "/tmp/tattle-reused-XXXXXX";
    int got = mkostemp(path, O_CLOEXEC);
    if (got >= 0)
        unlink(path);
    const char *wrong =
        reused_number_written(got, number, read_end, "file by mkostemp");
    if (wrong == NULL) {
        char bad[] = "/tmp/no-template";
        errno = 0;
        wrong = reused_failed_with(mkostemp(bad, 0), EINVAL,
                                   "mkostemp of no template: not EINVAL");
    }
    return wrong;
}

/* A timer armed to expire at once, read through the reused number. */
static inline const char *reused_by_timerfd_create(void)
{
    int read_end;
    int number = reused_pipe_closed_unseen(&read_end);
    if (number < 0)
        return "the pipe failed";
    int timer = timerfd_create(CLOCK_MONOTONIC, 0);
    struct itimerspec soon = {.it_value = {.tv_nsec = 1}};
    unsigned long long expirations = 0;
    const char *wrong = NULL;
    if (timer == number && (timerfd_settime(timer, 0, &soon, NULL) != 0 ||
                            read(timer, &expirations, sizeof expirations) !=
                                (ssize_t)sizeof expirations ||
                            expirations == 0))
        wrong = "the timer's read failed";
    if (wrong == NULL) {
        errno = 0;
        wrong = reused_failed_with(timerfd_create(-1, 0), EINVAL,
                                   "timerfd_create of no clock: not EINVAL");
    }
    const char *reused = reused_number_written(timer, number, read_end, NULL);
    return reused != NULL ? reused : wrong;
}

/* SIGURG blocked and raised, read through the reused number. */
static inline const char *reused_by_signalfd(void)
{
    int read_end;
    int number = reused_pipe_closed_unseen(&read_end);
    if (number < 0)
        return "the pipe failed";
    sigset_t mask, old;
    sigemptyset(&mask);
    sigaddset(&mask, SIGURG);
    if (sigprocmask(SIG_BLOCK, &mask, &old) != 0)
        return "sigprocmask failed";
    int got = signalfd(-1, &mask, 0);
    struct signalfd_siginfo info = {0};
    const char *wrong = NULL;
    if (got == number &&
        (raise(SIGURG) != 0 ||
         read(got, &info, sizeof info) != (ssize_t)sizeof info ||
         info.ssi_signo != SIGURG))
        wrong = "the signal's read failed";
    if (wrong == NULL) {
        errno = 0;
        wrong = reused_failed_with(signalfd(read_end, &mask, 0), EINVAL,
                                   "signalfd of a pipe: not EINVAL");
    }
    const char *reused = reused_number_written(got, number, read_end, NULL);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return reused != NULL ? reused : wrong;
}

/* A watch on a new directory, the creation of a file in it read through
 * the reused number: by inotify_init (`init1` false) or inotify_init1. */
static inline const char *reused_by_inotify(bool init1)
{
    char directory[] = "/tmp/tattle-reused-XXXXXX";
    if (mkdtemp(directory) == NULL)
        return "mkdtemp failed";
    int read_end;
    int number = reused_pipe_closed_unseen(&read_end);
    if (number < 0)
        return "the pipe failed";
    int got = init1 ? inotify_init1(IN_CLOEXEC) : inotify_init();
    char file[sizeof directory + 8];
    snprintf(file, sizeof file, "%s/made", directory);
    union {
        struct inotify_event event;
        char bytes[sizeof(struct inotify_event) + 64];
    } read_back;
    const char *wrong = NULL;
    int made = -1;
    if (got == number && (inotify_add_watch(got, directory, IN_CREATE) < 0 ||
                          (made = creat(file, 0600)) < 0 ||
                          read(got, &read_back, sizeof read_back) <
                              (ssize_t)sizeof read_back.event ||
                          !(read_back.event.mask & IN_CREATE)))
        wrong = "the watch's read failed";
    if (made >= 0)
        close(made);
    unlink(file);
    rmdir(directory);
    if (wrong == NULL && init1) {
        errno = 0;
        wrong = reused_failed_with(inotify_init1(-1), EINVAL,
                                   "inotify_init1 of bad flags: not EINVAL");
    }
    const char *reused = reused_number_written(got, number, read_end, NULL);
    return reused != NULL ? reused : wrong;
}

/* Every scenario but the fortified one: NULL, or what went wrong (its
 * scenario's name in *which). */
static inline const char *reused_by_every_call(const char **which)
{
    const char *wrong;
    if ((wrong = reused_by_freopen()) != NULL)
        *which = "freopen";
    else if ((wrong = reused_by_tmpfile()) != NULL)
        *which = "tmpfile";
    else if ((wrong = reused_by_mkostemp()) != NULL)
        *which = "mkostemp";
    else if ((wrong = reused_by_timerfd_create()) != NULL)
        *which = "timerfd_create";
    else if ((wrong = reused_by_signalfd()) != NULL)
        *which = "signalfd";
    else if ((wrong = reused_by_inotify(false)) != NULL)
        *which = "inotify_init";
    else if ((wrong = reused_by_inotify(true)) != NULL)
        *which = "inotify_init1";
    return wrong;
}

#endif /* TATTLE_TESTS_REUSED_NUMBERS_H */
