/*
 * exec_exchange.h — the exchange between a traced test (or a program run
 * by `tattle run --trace`) and the helper program it starts with exec
 * (exec_helper.c), shared by both sides so their bytes agree: the client
 * writes a request into a pipe, the server answers on a socketpair, and
 * the client says goodbye on the socketpair. Plain C, no tattle call: the
 * messages are captured by the preload library.
 */
#ifndef TATTLE_TESTS_EXEC_EXCHANGE_H
#define TATTLE_TESTS_EXEC_EXCHANGE_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define EXCHANGE_REQUEST "request:ping"
#define EXCHANGE_REPLY "reply:pong"
#define EXCHANGE_BYE "bye"

/* Reads exactly `length` bytes (EINTR retried); false at EOF or error. */
static inline bool exchange_read_all(int fd, char *buffer, size_t length)
{
    size_t done = 0;
    while (done < length) {
        ssize_t got = read(fd, buffer + done, length - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        done += (size_t)got;
    }
    return true;
}

static inline bool exchange_expect(int fd, const char *expected)
{
    char buffer[32] = {0};
    size_t length = strlen(expected);
    return exchange_read_all(fd, buffer, length) &&
           memcmp(buffer, expected, length) == 0;
}

static inline bool exchange_write(int fd, const char *text)
{
    size_t length = strlen(text);
    return write(fd, text, length) == (ssize_t)length;
}

/* The client's side: request on `pipe_out`, reply and bye on `socket`. */
static inline bool exchange_client(int pipe_out, int socket)
{
    return exchange_write(pipe_out, EXCHANGE_REQUEST) &&
           exchange_expect(socket, EXCHANGE_REPLY) &&
           exchange_write(socket, EXCHANGE_BYE);
}

/* The server's side: request from `pipe_in`, reply and bye on `socket`. */
static inline bool exchange_serve(int pipe_in, int socket)
{
    return exchange_expect(pipe_in, EXCHANGE_REQUEST) &&
           exchange_write(socket, EXCHANGE_REPLY) &&
           exchange_expect(socket, EXCHANGE_BYE);
}

#endif /* TATTLE_TESTS_EXEC_EXCHANGE_H */
