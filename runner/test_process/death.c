/*
 * death.c — the child a death check (ASSERT_SIGNAL, ASSERT_EXIT) runs its
 * statement in, and how that child ended.
 *
 * The test process forks; the child runs the statement with its stderr on
 * a pipe and without the test's crash handlers (its death is expected,
 * not a crash of the test: it must not write crash frames into the test's
 * result slot nor finish the test's trace). When the statement returns,
 * the child says so on a second pipe and exits 0, so "returned" and
 * "called exit(0)" stay apart. The parent keeps the end of the child's
 * stderr, waits for it, and describes its ending for the check
 * (assertions.c).
 *
 * The check's pipes are tattle's own, not the test's messages: the parent
 * and the child use them through raw system calls, which the message
 * capture of a traced test (tracer/test_process/ipc.c) does not see, and
 * the child's stderr, which the statement may write to, is excluded from
 * the capture.
 */
#include "runner/test_process/death.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/test_process/crash.h"
#include "tracer/test_process/recorder.h"

/* The check's own I/O, past the message capture. */
static ssize_t own_read(int fd, void *buffer, size_t length)
{
    return (ssize_t)syscall(SYS_read, fd, buffer, length);
}

static ssize_t own_write(int fd, const void *buffer, size_t length)
{
    return (ssize_t)syscall(SYS_write, fd, buffer, length);
}

static void own_close(int fd)
{
    syscall(SYS_close, fd);
}

int tattle__death_fork(struct tattle__death *death)
{
    *death =
        (struct tattle__death){.pid = -1, .stderr_fd = -1, .returned_fd = -1};
    int stderr_pipe[2], returned_pipe[2];
    if (pipe2(stderr_pipe, O_CLOEXEC) != 0) {
        death->error = errno;
        return 0;
    }
    if (pipe2(returned_pipe, O_CLOEXEC) != 0) {
        death->error = errno;
        own_close(stderr_pipe[0]);
        own_close(stderr_pipe[1]);
        return 0;
    }
    /* What the test buffered is written once, by the test. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        tattle__crash_uninstall();
        own_close(stderr_pipe[0]);
        own_close(returned_pipe[0]);
        dup2(stderr_pipe[1], STDERR_FILENO);
        own_close(stderr_pipe[1]);
        tattle__ipc_exclude(STDERR_FILENO);
        death->returned_fd = returned_pipe[1];
        return 1;
    }
    int fork_errno = errno;
    own_close(stderr_pipe[1]);
    own_close(returned_pipe[1]);
    if (pid < 0) {
        death->error = fork_errno;
        own_close(stderr_pipe[0]);
        own_close(returned_pipe[0]);
        return 0;
    }
    death->pid = pid;
    death->stderr_fd = stderr_pipe[0];
    death->returned_fd = returned_pipe[0];
    return 0;
}

void tattle__death_returned(struct tattle__death *death)
{
    char returned = 'r';
    ssize_t written = own_write(death->returned_fd, &returned, 1);
    (void)written;
    fflush(NULL);
    _exit(0);
}

/* Reads the child's stderr to its end, keeping the last bytes. */
static void keep_stderr_tail(int fd, struct tattle__death_ending *ending)
{
    char chunk[4096];
    for (;;) {
        ssize_t got = own_read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        size_t size = (size_t)got;
        size_t room = sizeof ending->stderr_tail - 1;
        if (size >= room) {
            memcpy(ending->stderr_tail, chunk + size - room, room);
            ending->stderr_length = room;
        } else {
            size_t keep = ending->stderr_length + size > room
                              ? room - size
                              : ending->stderr_length;
            memmove(ending->stderr_tail,
                    ending->stderr_tail + ending->stderr_length - keep, keep);
            memcpy(ending->stderr_tail + keep, chunk, size);
            ending->stderr_length = keep + size;
        }
    }
    ending->stderr_tail[ending->stderr_length] = '\0';
}

void tattle__death_wait(struct tattle__death *death,
                        struct tattle__death_ending *ending)
{
    *ending = (struct tattle__death_ending){0};
    if (death->pid < 0) {
        ending->how = TATTLE__ENDED_NOT_STARTED;
        ending->value = death->error;
        return;
    }
    keep_stderr_tail(death->stderr_fd, ending);
    own_close(death->stderr_fd);
    int status = 0;
    while (waitpid(death->pid, &status, 0) < 0 && errno == EINTR)
        ;
    char returned;
    ssize_t got;
    do
        got = own_read(death->returned_fd, &returned, 1);
    while (got < 0 && errno == EINTR);
    own_close(death->returned_fd);
    if (WIFSIGNALED(status)) {
        ending->how = TATTLE__ENDED_BY_SIGNAL;
        ending->value = WTERMSIG(status);
    } else if (got == 1) {
        ending->how = TATTLE__ENDED_RETURNED;
    } else {
        ending->how = TATTLE__ENDED_BY_EXIT;
        ending->value = WEXITSTATUS(status);
    }
}
