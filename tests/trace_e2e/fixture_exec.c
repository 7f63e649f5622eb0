/*
 * fixture_exec.c — traced tests that start another program with exec
 * (exec_helper, beside this binary) and exchange messages with it through
 * a pipe and a socketpair, for test_exec_e2e.py: the preload library
 * records the helper's side into the test's arena, named after the
 * program; a hand-down the environment gets wrong (a bad descriptor
 * number, a regular file, a wrong size, text that is not a hand-down)
 * leaves the helper untraced and working; an untraced test hands
 * nothing down; and reuse_helper's files, timers, signals and watches on
 * numbers its pipes had are no messages. No test calls the tracer: the
 * driver reads the traces.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tattle/tattle.h>

#include "exec_exchange.h"

extern char **environ;

/* The path of `file` beside this program. */
static const char *beside_this_program(const char *file)
{
    static char path[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 32);
    if (length <= 0)
        return file;
    path[length] = '\0';
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, 32, "%s", file);
    return path;
}

/* exec_helper's path: beside this program. */
static const char *helper_path(void)
{
    return beside_this_program("exec_helper");
}

/* The environment with TATTLE_TRACE_ARENA replaced by `hand_down` (a
 * static array, enough for the runner's clean environment; the variable
 * holds any hand-down the tests build, up to 511 bytes). */
static char **environment_with(const char *hand_down)
{
    static char *entries[256];
    static char variable[sizeof "TATTLE_TRACE_ARENA=" + 512];
    size_t count = 0;
    for (char **entry = environ; *entry && count < 254; entry++)
        if (strncmp(*entry, "TATTLE_TRACE_ARENA=", 19) != 0)
            entries[count++] = *entry;
    snprintf(variable, sizeof variable, "TATTLE_TRACE_ARENA=%s", hand_down);
    entries[count++] = variable;
    entries[count] = NULL;
    return entries;
}

/* Starts `path` as `name` serving one exchange, runs the client's side
 * and waits for it: true when both sides went as expected. */
static bool exchange_with_program(const char *path, const char *name,
                                  char **environment)
{
    int request[2], sockets[2];
    if (pipe(request) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sockets) != 0)
        return false;
    char pipe_fd[16], socket_fd[16];
    snprintf(pipe_fd, sizeof pipe_fd, "%d", request[0]);
    snprintf(socket_fd, sizeof socket_fd, "%d", sockets[1]);
    char *argv[] = {(char *)name, "serve", pipe_fd, socket_fd, NULL};
    pid_t helper;
    int spawned = posix_spawn(&helper, path, NULL, NULL, argv, environment);
    close(request[0]);
    close(sockets[1]);
    bool exchanged = spawned == 0 && exchange_client(request[1], sockets[0]);
    close(request[1]);
    close(sockets[0]);
    int status = 0;
    return exchanged && waitpid(helper, &status, 0) == helper &&
           WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Starts exec_helper as `name` (see exchange_with_program). */
static bool exchange_with_helper(const char *name, char **environment)
{
    return exchange_with_program(helper_path(), name, environment);
}

/* exec_helper built with -fsanitize=address (exec_helper_asan, beside
 * this program when the compiler builds it): the preload library comes
 * before the ASan runtime in LD_PRELOAD, and the helper still starts. */
TEST(exec, asan_helper, .tags = "trace_messages")
{
    const char *path = beside_this_program("exec_helper_asan");
    ASSERT_EQ(access(path, X_OK), 0, "%s is not built", path);
    EXPECT(exchange_with_program(path, "exec_helper_asan", environ));
}

TEST(exec, spawned_helper, .tags = "trace_messages")
{
    EXPECT(exchange_with_helper("exec_helper", environ));
}

TEST(exec, system_helper, .tags = "trace_messages")
{
    int request[2], sockets[2];
    ASSERT_EQ(pipe(request), 0);
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sockets), 0);
    /* The shell runs the helper in the background; the test is its
     * client meanwhile. */
    char command[PATH_MAX + 64];
    snprintf(command, sizeof command, "'%s' serve %d %d & exec true",
             helper_path(), request[0], sockets[1]);
    EXPECT_EQ(system(command), 0);
    close(request[0]);
    close(sockets[1]);
    EXPECT(exchange_client(request[1], sockets[0]));
    /* The helper ends after the bye: its end of the socket closes. */
    char rest;
    EXPECT_EQ(read(sockets[0], &rest, 1), 0);
}

/* reuse_helper, built fortified, reusing pipes' numbers through the
 * calls that open files or descriptors that are no endpoint: its pipes'
 * messages are all the trace holds of it (test_exec_e2e.py). */
TEST(exec, reuse_helper, .tags = "trace_messages:200")
{
    char *argv[] = {"reuse_helper", NULL};
    pid_t helper;
    ASSERT_EQ(posix_spawn(&helper, beside_this_program("reuse_helper"), NULL,
                          NULL, argv, environ),
              0);
    int status = 0;
    ASSERT_EQ(waitpid(helper, &status, 0), helper);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "reuse_helper ended with status %#x", status);
}

/* The real hand-down's fields: descriptor, size, inode, generation, and
 * the rest (the excluded objects) as text. */
struct hand_down {
    int fd;
    unsigned long long size, inode, generation;
    char rest[256];
};

TEST(exec, hostile_hand_down, .tags = "trace_messages")
{
    /* The real hand-down works: the control is traced. */
    EXPECT(exchange_with_helper("helper-control", environ));
    const char *real = getenv("TATTLE_TRACE_ARENA");
    ASSERT(real != NULL);
    struct hand_down h = {0};
    ASSERT_EQ(sscanf(real, "%d:%llu:%llu:%llu%255s", &h.fd, &h.size, &h.inode,
                     &h.generation, h.rest),
              5);
    char text[512];

    /* A descriptor number nothing is open on. */
    snprintf(text, sizeof text, "987:%llu:%llu:%llu%s", h.size, h.inode,
             h.generation, h.rest);
    EXPECT(exchange_with_helper("helper-badfd", environment_with(text)));

    /* A regular file of the arena's size, its own inode named. */
    char file_path[] = "/tmp/tattle-exec-XXXXXX";
    int file = mkstemp(file_path);
    ASSERT(file >= 0);
    unlink(file_path);
    ASSERT_EQ(ftruncate(file, (off_t)h.size), 0);
    struct stat status;
    ASSERT_EQ(fstat(file, &status), 0);
    snprintf(text, sizeof text, "%d:%llu:%llu:%llu%s", file, h.size,
             (unsigned long long)status.st_ino, h.generation, h.rest);
    EXPECT(exchange_with_helper("helper-file", environment_with(text)));
    close(file);

    /* The arena's own descriptor with a wrong size, larger and smaller. */
    snprintf(text, sizeof text, "%d:%llu:%llu:%llu%s", h.fd, h.size + 4096,
             h.inode, h.generation, h.rest);
    EXPECT(exchange_with_helper("helper-big", environment_with(text)));
    snprintf(text, sizeof text, "%d:%llu:%llu:%llu%s", h.fd, h.size / 2,
             h.inode, h.generation, h.rest);
    EXPECT(exchange_with_helper("helper-small", environment_with(text)));

    /* ... or another session's generation, or text that is no hand-down. */
    snprintf(text, sizeof text, "%d:%llu:%llu:%llu%s", h.fd, h.size, h.inode,
             h.generation + 1, h.rest);
    EXPECT(exchange_with_helper("helper-generation", environment_with(text)));
    snprintf(text, sizeof text, "%d:-1:%llu:x", h.fd, h.inode);
    EXPECT(exchange_with_helper("helper-garbage", environment_with(text)));
}

/* Runs `exec_helper env` and returns what it printed (static). */
static const char *helper_environment(void)
{
    static char output[4096];
    int out[2];
    if (pipe(out) != 0)
        return "";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    char *argv[] = {"exec_helper", "env", NULL};
    pid_t helper;
    int spawned =
        posix_spawn(&helper, helper_path(), &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    size_t used = 0;
    ssize_t got;
    while (used < sizeof output - 1 &&
           (got = read(out[0], output + used, sizeof output - 1 - used)) > 0)
        used += (size_t)got;
    output[used] = '\0';
    close(out[0]);
    if (spawned == 0)
        waitpid(helper, NULL, 0);
    return output;
}

TEST(exec, untraced_hands_nothing_down)
{
    const char *printed = helper_environment();
    EXPECT_NOT_NULL(strstr(printed, "TATTLE_TRACE_ARENA=(unset)"));
    EXPECT_NULL(strstr(printed, "libtattle_preload"));
    printf("%s", printed);
}

TEST(exec, traced_hands_down, .tags = "trace_messages")
{
    const char *printed = helper_environment();
    EXPECT_NULL(strstr(printed, "TATTLE_TRACE_ARENA=(unset)"));
    EXPECT_NOT_NULL(strstr(printed, "libtattle_preload.so"));
    printf("%s", printed);
    /* The arena's descriptor is out of the way of the test's own. */
    const char *hand_down = getenv("TATTLE_TRACE_ARENA");
    ASSERT_NOT_NULL(hand_down);
    int handed = atoi(hand_down);
    int opened = open("/dev/null", O_RDONLY);
    EXPECT_GE(handed, 512);
    EXPECT_LT(opened, handed);
    close(opened);
}
