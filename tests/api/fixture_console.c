/*
 * fixture_console.c — traced tests for test_console.py: more messages
 * than the console shows, in a test that passes and one that fails, and a
 * crash in a test body, so the console's trace header, --trace-passed and
 * the naming of the body's frame can be checked; and a worker process
 * killed by a signal, collected by the test or not, whose death the trace
 * and the console show.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

enum { MESSAGES = 40 };

static void send_messages(void)
{
    tattle_actor_name("main");
    for (int i = 0; i < MESSAGES; i++)
        tattle_trace_send("peer", "n", &i, sizeof i);
}

TEST(console, traced_passes, .tags = "trace_messages:100")
{
    send_messages();
}

TEST(console, traced_fails, .tags = "trace_messages:100")
{
    send_messages();
    FAIL("after %d messages", MESSAGES);
}

/* A page no access is allowed to: a store there is a SIGSEGV that the
 * sanitizers do not turn into an error exit first (a NULL one they do). */
static volatile int *inaccessible_address(void)
{
    void *page =
        mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return page == MAP_FAILED ? NULL : page;
}

TEST(console, crashes)
{
    volatile int *volatile nowhere = inaccessible_address();
    *nowhere = 42;
}

/* A worker process that is killed: `reaped` collects it with waitpid,
 * otherwise the test ends with it a zombie. */
static void run_killed_worker(bool reaped)
{
    tattle_actor_name("main");
    pid_t worker = fork();
    ASSERT_GE(worker, 0);
    if (worker == 0) {
        tattle_actor_name("worker");
        tattle_trace_send("main", "hello", "hi", 2);
        kill(getpid(), SIGKILL);
        _exit(0);
    }
    if (reaped) {
        int status = 0;
        ASSERT_EQ(waitpid(worker, &status, 0), worker);
        ASSERT(WIFSIGNALED(status));
    } else {
        siginfo_t info = {0};
        ASSERT_EQ(waitid(P_PID, (id_t)worker, &info, WEXITED | WNOWAIT), 0);
    }
    FAIL("after the worker died");
}

TEST(console, worker_killed_reaped, .tags = "trace_messages")
{
    run_killed_worker(true);
}

TEST(console, worker_killed_unreaped, .tags = "trace_messages")
{
    run_killed_worker(false);
}
