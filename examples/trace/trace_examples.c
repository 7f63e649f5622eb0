/*
 * trace_examples.c — deliberately failing traced examples: what the flight
 * recorder shows when messages go wrong.
 *
 * Each test carries the `trace_messages` tag, so its report holds the last
 * messages its threads and processes exchanged and the messages still
 * waiting in its mailboxes:
 *   - ping_pong_loses_a_message: two threads play ping-pong over traced
 *     mailboxes and the ponger drops one ball; the trace shows which;
 *   - worker_crashes_with_pending_jobs: a forked worker crashes with jobs
 *     still waiting in its mailbox; the snapshot lists them (approximate:
 *     read after a crash);
 *   - actors_deadlock_until_timeout: two actors each wait for the other
 *     until the runner's timeout; the snapshot is taken while they are
 *     still alive, then they are killed;
 *   - exec_server_answers_short: the test starts upcase_server (a program
 *     of its own, beside this one) with fork and exec and talks to it
 *     through a socketpair, with no tracer call on either side; the trace
 *     shows the request the server read and the short answer it wrote.
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

SUITE(trace_demo, .tags = "demo_failure trace_messages");

/* ---- Ping-pong with a lost ball
 * ----------------------------------------------- */

struct table {
    tattle_mailbox *to_ponger;
    tattle_mailbox *to_pinger;
};

static void *ponger(void *arg)
{
    struct table *table = arg;
    tattle_actor_name("ponger");
    for (;;) {
        int ball;
        if (tattle_mailbox_recv(table->to_ponger, NULL, 0, &ball, sizeof ball,
                                1000) != (int)sizeof ball ||
            ball < 0)
            return NULL;
        if (ball == 3) {
            /* The bug this example exists for: ball 3 is never returned. */
            tattle_trace_event(10, "ponger", NULL, "drop", "dropping ball %d",
                               ball);
            continue;
        }
        tattle_mailbox_send(table->to_pinger, "pong", &ball, sizeof ball);
    }
}

static size_t format_ball(const char *label, const void *msg, size_t len,
                          char *out, size_t out_len)
{
    int ball = 0;
    if (len == sizeof ball)
        ball = *(const int *)msg;
    return (size_t)snprintf(out, out_len, "%s ball=%d", label ? label : "?",
                            ball);
}

TEST(trace_demo, ping_pong_loses_a_message, .timeout_ms = 5000)
{
    struct table table;
    ASSERT_NOT_NULL(table.to_ponger = tattle_mailbox_open("ponger", 4));
    ASSERT_NOT_NULL(table.to_pinger = tattle_mailbox_open("pinger", 4));
    tattle_mailbox_set_formatter(table.to_ponger, format_ball);
    tattle_mailbox_set_formatter(table.to_pinger, format_ball);
    tattle_actor_name("pinger");
    pthread_t thread;
    pthread_create(&thread, NULL, ponger, &table);
    int returned = 0;
    for (int ball = 1; ball <= 5; ball++) {
        tattle_mailbox_send(table.to_ponger, "ping", &ball, sizeof ball);
        int back = 0;
        int length = tattle_mailbox_recv(table.to_pinger, NULL, 0, &back,
                                         sizeof back, 200);
        if (length == (int)sizeof back)
            returned++;
    }
    int stop = -1;
    tattle_mailbox_send(table.to_ponger, "stop", &stop, sizeof stop);
    pthread_join(thread, NULL);
    ASSERT_EQ(returned, 5, "every ball served should come back");
}

/* ---- A worker that crashes with jobs pending
 * ---------------------------------- */

struct job {
    int id;
    char file[24];
};

static size_t format_job(const char *label, const void *msg, size_t len,
                         char *out, size_t out_len)
{
    const struct job *job = msg;
    if (len != sizeof *job)
        return (size_t)snprintf(out, out_len, "%s (%zu bytes)", label, len);
    return (size_t)snprintf(out, out_len, "%s #%d %s", label, job->id,
                            job->file);
}

static size_t format_result(const char *label, const void *msg, size_t len,
                            char *out, size_t out_len)
{
    int id = 0;
    if (len == sizeof id)
        id = *(const int *)msg;
    return (size_t)snprintf(out, out_len, "%s job #%d", label, id);
}

TEST(trace_demo, worker_crashes_with_pending_jobs, .timeout_ms = 5000)
{
    tattle_mailbox *jobs, *results; /* usable across fork() */
    ASSERT_NOT_NULL(jobs = tattle_mailbox_open("jobs", 8));
    ASSERT_NOT_NULL(results = tattle_mailbox_open("results", 8));
    tattle_mailbox_set_formatter(jobs, format_job);
    tattle_mailbox_set_formatter(results, format_result);
    static const char *const files[] = {"a.txt", "b.txt", "empty.txt", "c.txt",
                                        "d.txt"};
    for (int i = 0; i < 5; i++) {
        struct job job = {i + 1, ""};
        snprintf(job.file, sizeof job.file, "%s", files[i]);
        tattle_mailbox_send(jobs, "job", &job, sizeof job);
    }
    pid_t worker = fork();
    ASSERT_GE(worker, 0);
    if (worker == 0) {
        tattle_actor_name("worker");
        for (;;) {
            struct job job;
            if (tattle_mailbox_recv(jobs, NULL, 0, &job, sizeof job, 500) < 0)
                _exit(0);
            if (job.file[0] == 'e') {
                /* The worker's bug: for an empty file it gets a buffer with
                 * no usable memory behind it, and writes into it anyway
                 * (a real SIGSEGV in every build, sanitizers included). */
                volatile int *buffer =
                    mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                *buffer = job.id;
            }
            tattle_mailbox_send(results, "done", &job.id, sizeof job.id);
        }
    }
    int status = 0;
    waitpid(worker, &status, 0);
    ASSERT(WIFEXITED(status), "the worker died of signal %d",
           WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- Two actors waiting for each other
 * ------------------------------------------ */

static tattle_mailbox *alice_inbox, *bob_inbox;

static void *bob(void *arg)
{
    (void)arg;
    tattle_actor_name("bob");
    tattle_mailbox_send(alice_inbox, "hello", "hi alice", 8);
    char reply[32];
    /* Bob answers only once Alice has confirmed... */
    tattle_mailbox_recv(bob_inbox, NULL, 0, reply, sizeof reply, -1);
    tattle_mailbox_send(alice_inbox, "confirm", "ok", 2);
    return NULL;
}

TEST(trace_demo, actors_deadlock_until_timeout, .timeout_ms = 300)
{
    ASSERT_NOT_NULL(alice_inbox = tattle_mailbox_open("alice", 4));
    ASSERT_NOT_NULL(bob_inbox = tattle_mailbox_open("bob", 4));
    tattle_actor_name("alice");
    pthread_t thread;
    pthread_create(&thread, NULL, bob, NULL);
    char message[32];
    tattle_mailbox_recv(alice_inbox, NULL, 0, message, sizeof message, -1);
    /* ...and Alice confirms only once Bob has confirmed: a deadlock. */
    tattle_mailbox_recv(alice_inbox, NULL, 0, message, sizeof message, -1);
    tattle_mailbox_send(bob_inbox, "confirm", "ok", 2);
    pthread_join(thread, NULL);
}

/* ---- A server program started with exec, answering short
 * --------------------- */

/* The path of upcase_server: beside this program. */
static const char *server_path(void)
{
    static char path[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 16);
    if (length <= 0)
        return "upcase_server";
    path[length] = '\0';
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, 16, "upcase_server");
    return path;
}

TEST(trace_demo, exec_server_answers_short, .timeout_ms = 5000)
{
    tattle_actor_name("client");
    const char *path = server_path();
    int sockets[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sockets), 0);
    pid_t server = fork();
    ASSERT_NE(server, -1);
    if (server == 0) {
        /* The server's standard input and output are its end of the
         * pair, as inetd would connect them. */
        dup2(sockets[1], STDIN_FILENO);
        dup2(sockets[1], STDOUT_FILENO);
        close(sockets[0]);
        close(sockets[1]);
        execl(path, "upcase_server", (char *)NULL);
        _exit(127);
    }
    close(sockets[1]);
    const char request[] = "hello, exec'd server\n";
    ASSERT_EQ(write(sockets[0], request, strlen(request)),
              (ssize_t)strlen(request));
    char answer[64] = "";
    ssize_t got = read(sockets[0], answer, sizeof answer - 1);
    ASSERT_GT(got, 0, "the server answered");
    answer[got] = '\0';
    int status = 0;
    ASSERT_EQ(waitpid(server, &status, 0), server);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "upcase_server (%s) ran and exited 0", path);
    /* Fails: the server answers only the first word. */
    EXPECT_STR_EQ(answer, "HELLO, EXEC'D SERVER\n");
    close(sockets[0]);
}
