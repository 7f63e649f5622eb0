/*
 * exec_helper.c — a program that is not a tattle test, started with exec
 * by the traced tests of fixture_exec.c and by `tattle run --trace` in
 * test_exec_e2e.py, to show what the preload library records of it.
 *
 *   exec_helper serve PIPE_FD SOCKET_FD   the server side of exec_exchange.h
 *   exec_helper pair                      both sides: starts itself (as
 *                                         "echo-server") with posix_spawn
 *   exec_helper env                       prints LD_PRELOAD and
 *                                         TATTLE_TRACE_ARENA
 *
 * Exits 0 when its part went as expected, 1 otherwise, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "exec_exchange.h"

extern char **environ;

static int parse_fd(const char *text)
{
    char *end;
    long value = strtol(text, &end, 10);
    return *end == '\0' && value >= 0 && value < 1024 ? (int)value : -1;
}

static int pair(void)
{
    int request[2], sockets[2];
    if (pipe(request) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sockets) != 0)
        return 1;
    char pipe_fd[16], socket_fd[16];
    snprintf(pipe_fd, sizeof pipe_fd, "%d", request[0]);
    snprintf(socket_fd, sizeof socket_fd, "%d", sockets[1]);
    char *argv[] = {"echo-server", "serve", pipe_fd, socket_fd, NULL};
    pid_t server;
    if (posix_spawn(&server, "/proc/self/exe", NULL, NULL, argv, environ) != 0)
        return 1;
    close(request[0]);
    close(sockets[1]);
    bool exchanged = exchange_client(request[1], sockets[0]);
    int status;
    if (waitpid(server, &status, 0) != server)
        return 1;
    return exchanged && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "serve") == 0) {
        int pipe_in = parse_fd(argv[2]), socket = parse_fd(argv[3]);
        if (pipe_in < 0 || socket < 0)
            return 2;
        return exchange_serve(pipe_in, socket) ? 0 : 1;
    }
    if (argc == 2 && strcmp(argv[1], "pair") == 0)
        return pair();
    if (argc == 2 && strcmp(argv[1], "env") == 0) {
        const char *preload = getenv("LD_PRELOAD");
        const char *arena = getenv("TATTLE_TRACE_ARENA");
        printf("LD_PRELOAD=%s\nTATTLE_TRACE_ARENA=%s\n",
               preload ? preload : "(unset)", arena ? arena : "(unset)");
        return 0;
    }
    fputs("usage: exec_helper serve PIPE_FD SOCKET_FD | pair | env\n", stderr);
    return 2;
}
