/*
 * harness.h — a tiny harness for the flight recorder's own tests.
 *
 * The tracer's tests drive the session contract (tracer/session.h) the way
 * the runner does: create the arena, fork, activate in the child, record,
 * end the child (normally, by a crash, by SIGKILL), freeze in the parent
 * and check the frozen trace. Each test is a function selected by name on
 * the command line, so CTest runs one behaviour per test.
 *
 * Tests never sleep to let something happen: they wait for it. A
 * handshake is a pipe (it works between threads and across fork, and its
 * write is async-signal-safe); a condition the code under test exposes is
 * polled. Every wait is bounded, the bound scaled by
 * TATTLE_TIMEOUT_MULTIPLIER (the sanitizer builds set it), and a wait that
 * runs out fails the test with what it was waiting for.
 */
#ifndef TATTLE_TESTS_TRACER_HARNESS_H
#define TATTLE_TESTS_TRACER_HARNESS_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, " " __VA_ARGS__);                                  \
            fputc('\n', stderr);                                               \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

struct harness_test {
    const char *name;
    void (*run)(void);
};

/* How long a wait may last before it counts as a failure, on an idle
 * machine. Nothing in these tests should come near it. */
enum { HARNESS_WAIT_MS = 10000 };

static inline uint64_t harness_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* TATTLE_TIMEOUT_MULTIPLIER when it is a number of at least 1, else 1. */
static inline double harness_scale(void)
{
    const char *text = getenv("TATTLE_TIMEOUT_MULTIPLIER");
    if (text == NULL || *text == '\0')
        return 1.0;
    char *end = NULL;
    double scale = strtod(text, &end);
    return *end == '\0' && scale >= 1.0 && scale <= 1000.0 ? scale : 1.0;
}

/* The deadline of a wait of `ms` (scaled) starting now. */
static inline uint64_t harness_deadline(unsigned ms)
{
    return harness_now_ns() + (uint64_t)(ms * harness_scale() * 1e6);
}

/* A count (of rounds, of attempts) scaled like the waits. */
static inline unsigned harness_scaled_count(unsigned count)
{
    return (unsigned)(count * harness_scale());
}

/* A pause of a few microseconds between two polls of a condition. */
static inline void harness_poll_pause(void)
{
    struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
}

/* A one-way handshake: post() writes a byte, wait() reads one. */
struct harness_handshake {
    int read_fd;
    int write_fd;
};

static inline void harness_handshake_open(struct harness_handshake *handshake)
{
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
    handshake->read_fd = fds[0];
    handshake->write_fd = fds[1];
}

static inline void harness_handshake_close(struct harness_handshake *handshake)
{
    close(handshake->read_fd);
    close(handshake->write_fd);
}

/* Async-signal-safe: usable in a child forked from a threaded process. */
static inline void harness_handshake_post(struct harness_handshake *handshake)
{
    char byte = 1;
    while (write(handshake->write_fd, &byte, 1) != 1 && errno == EINTR)
        ;
}

/* Reads one byte, failing the test (naming `what`) after the scaled bound
 * or when every writer is gone. */
static inline void harness_handshake_wait(struct harness_handshake *handshake,
                                          const char *what)
{
    uint64_t deadline = harness_deadline(HARNESS_WAIT_MS);
    for (;;) {
        uint64_t now = harness_now_ns();
        CHECK(now < deadline, "gave up waiting for %s", what);
        struct pollfd ready = {handshake->read_fd, POLLIN, 0};
        int waited_ms = (int)((deadline - now) / 1000000u) + 1;
        int result = poll(&ready, 1, waited_ms);
        if (result < 0 && errno == EINTR)
            continue;
        CHECK(result >= 0, "poll: %s", strerror(errno));
        if (result == 0)
            continue;
        char byte;
        ssize_t got = read(handshake->read_fd, &byte, 1);
        if (got < 0 && errno == EINTR)
            continue;
        CHECK(got == 1, "%s never came: its writer is gone", what);
        return;
    }
}

#endif /* TATTLE_TESTS_TRACER_HARNESS_H */
