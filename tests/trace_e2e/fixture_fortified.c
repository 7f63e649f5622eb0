/*
 * fixture_fortified.c — tests built with -D_FORTIFY_SOURCE=2 -O2 whose
 * reads would overflow their buffers, for test_capture_e2e.py: the
 * fortified entry points (__read_chk, __recv_chk, __recvfrom_chk) that the
 * message capture defines must end such a test as glibc's do, with
 * "*** buffer overflow detected ***" and SIGABRT, traced or not. Each test
 * declares that death, so it passes when it dies so. One more test opens
 * files with flags the compiler cannot see, so that open calls the
 * fortified __open_2 and its 64 and openat forms, on numbers a pipe had
 * (reused_numbers.h): what is written into them is no message.
 */
#define _GNU_SOURCE /* open64, openat64 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <tattle/tattle.h>

#include "reused_numbers.h"

#if !defined(_FORTIFY_SOURCE) || _FORTIFY_SOURCE < 2
#error "fixture_fortified.c is built with -D_FORTIFY_SOURCE=2"
#endif

/* A length the compiler cannot see, so the check is made at run time. */
static volatile size_t too_long = 32;

static int pipe_holding_bytes(void)
{
    int fds[2];
    if (pipe(fds) != 0 ||
        write(fds[1], "thirty-two bytes of a message...", 32) != 32)
        return -1;
    return fds[0];
}

static void read_too_much(void)
{
    char small[8];
    int fd = pipe_holding_bytes();
    ssize_t got = read(fd, small, too_long);
    printf("read %zd bytes into 8: %.8s\n", got, small);
}

TEST(fortified, read_overflow_traced, .tags = "trace_messages",
     .expect_signal = SIGABRT)
{
    read_too_much();
}

TEST(fortified, read_overflow_untraced, .expect_signal = SIGABRT)
{
    read_too_much();
}

TEST(fortified, recv_overflow_traced, .tags = "trace_messages",
     .expect_signal = SIGABRT)
{
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    ASSERT_EQ(send(pair[0], "thirty-two bytes of a message...", 32, 0), 32);
    char small[8];
    ssize_t got = recv(pair[1], small, too_long, 0);
    printf("recv %zd bytes into 8: %.8s\n", got, small);
}

TEST(fortified, recvfrom_overflow_traced, .tags = "trace_messages",
     .expect_signal = SIGABRT)
{
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, pair), 0);
    ASSERT_EQ(send(pair[0], "thirty-two bytes of a message...", 32, 0), 32);
    char small[8];
    ssize_t got = recvfrom(pair[1], small, too_long, 0, NULL, NULL);
    printf("recvfrom %zd bytes into 8: %.8s\n", got, small);
}

TEST(fortified, reused_by_open_2, .tags = "trace_messages")
{
    const char *wrong = reused_by_fortified_open();
    EXPECT(wrong == NULL, "%s", wrong);
}
