/*
 * fixture_suites.c — suites with before_all and after_all, for
 * test_suites.py: state before_all leaves that every test sees (each in
 * its own copy), evidence files that show how often and in which process
 * each fixture ran, two tests that run only side by side (under -j2),
 * before_all failing by assertion, crash, exit and timeout, fixtures blocked
 * forever (where their threads were is shown), after_all running after a crash
 * and failing itself, and a hostile test that kills the process its suite's
 * tests are forked from. Evidence files go to the working directory the driver
 * gives each run.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tattle/tattle.h>

static void note(const char *file, const char *what)
{
    FILE *out = fopen(file, "a");
    if (!out)
        abort();
    fprintf(out, "%s %d\n", what, (int)getpid());
    fclose(out);
}

/* ---- ready: state set once, seen by every test ---- */

static int ready_value;
static char *ready_corpus; /* heap memory before_all filled */

static void ready_before_all(void)
{
    ready_value = 42;
    ready_corpus = malloc(1 << 20);
    if (!ready_corpus)
        abort();
    memset(ready_corpus, 'x', 1 << 20);
    note("ready_before_all.log", "before_all");
}

static void ready_after_all(void)
{
    /* Tests changed their own copies only. */
    note("ready_after_all.log", ready_value == 42 && ready_corpus[0] == 'x'
                                    ? "after_all-intact"
                                    : "after_all-changed");
}

SUITE(ready, .before_all = ready_before_all, .after_all = ready_after_all);

#define READY_TEST(name)                                                       \
    TEST(ready, name)                                                          \
    {                                                                          \
        note("ready_parents.log", "test");                                     \
        FILE *out = fopen("ready_parents.log", "a");                           \
        ASSERT_NOT_NULL(out);                                                  \
        fprintf(out, "parent %d\n", (int)getppid());                           \
        fclose(out);                                                           \
        ASSERT_EQ(ready_value, 42);                                            \
        ASSERT_EQ(ready_corpus[(1 << 20) - 1], 'x');                           \
    }
READY_TEST(sees_state_1)
READY_TEST(sees_state_2)
READY_TEST(sees_state_3)
READY_TEST(sees_state_4)
READY_TEST(sees_state_5)
READY_TEST(sees_state_6)

/* Changes its copy; the tests after it (and after_all) still see 42. */
TEST(ready, changes_its_own_copy)
{
    ready_value = 7;
    ready_corpus[0] = 'y';
    ASSERT_EQ(ready_value, 7);
}

TEST(ready, sees_state_after_a_change)
{
    ASSERT_EQ(ready_value, 42);
    ASSERT_EQ(ready_corpus[0], 'x');
}

/* ---- side_by_side: under -j2 two tests of one suite run at once, both
 * forked from the one process before_all ran in ---- */

static int side_by_side_server; /* the pid before_all ran in */

static void side_by_side_before_all(void)
{
    side_by_side_server = (int)getpid();
    ASSERT_EQ(mkfifo("side_by_side.fifo", 0600), 0);
}

SUITE(side_by_side, .before_all = side_by_side_before_all);

/* Opening a FIFO blocks until its other end is opened: each test returns
 * only if the other runs at the same time (else it times out). */
TEST(side_by_side, reader)
{
    ASSERT_EQ((int)getppid(), side_by_side_server);
    int fd = open("side_by_side.fifo", O_RDONLY);
    ASSERT_GE(fd, 0);
    close(fd);
}

TEST(side_by_side, writer)
{
    ASSERT_EQ((int)getppid(), side_by_side_server);
    int fd = open("side_by_side.fifo", O_WRONLY);
    ASSERT_GE(fd, 0);
    close(fd);
}

/* ---- crashing: after_all runs after a test crashed ---- */

static void crashing_after_all(void)
{
    note("crashing_after_all.log", "after_all");
}

SUITE(crashing, .before_all = NULL, .after_all = crashing_after_all);

TEST(crashing, passes)
{
    ASSERT(1);
}

TEST(crashing, segfaults)
{
    raise(SIGSEGV);
}

/* ---- before_all failing: assertion, crash, exit, timeout ---- */

static void asserting_before_all(void)
{
    note("asserting_before_all.log", "before_all");
    int connections = 0;
    ASSERT_EQ(connections, 3);
}

SUITE(asserting, .before_all = asserting_before_all);

TEST(asserting, first)
{
    note("asserting_ran.log", "test");
}

TEST(asserting, second)
{
    note("asserting_ran.log", "test");
}

TEST(asserting, third)
{
    note("asserting_ran.log", "test");
}

static void crashing_before_all(void)
{
    raise(SIGABRT);
}

SUITE(aborting, .before_all = crashing_before_all);

TEST(aborting, first)
{
    note("aborting_ran.log", "test");
}

TEST(aborting, second)
{
    note("aborting_ran.log", "test");
}

/* A before_all that segfaults in a function it calls: its frames, those
 * two functions, are shown one per line like a test's crash's. The write
 * is to a page mapped without access (not NULL, so that sanitizer builds
 * see a real SIGSEGV rather than UBSan's null-pointer check). */
__attribute__((noinline)) static void open_a_missing_database(void)
{
    void *page =
        mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        abort();
    *(volatile int *)page = 1;
}

static void segfaulting_before_all(void)
{
    open_a_missing_database();
    note("segfaulting_before_all.log", "not reached"); /* no tail call */
}

SUITE(segfaulting, .before_all = segfaulting_before_all);

TEST(segfaulting, first)
{
    note("segfaulting_ran.log", "test");
}

/* A test that segfaults, then its suite's after_all likewise: one result
 * with both crashes' frames. */
static void crashing_twice_after_all(void)
{
    open_a_missing_database();
    note("crashing_twice_after_all.log", "not reached"); /* no tail call */
}

SUITE(crashing_twice, .after_all = crashing_twice_after_all);

TEST(crashing_twice, segfaults)
{
    open_a_missing_database();
    note("crashing_twice_ran.log", "not reached");
}

static void exiting_before_all(void)
{
    exit(3);
}

SUITE(exiting, .before_all = exiting_before_all);

TEST(exiting, first)
{
    ASSERT(1);
}

/* ---- fixtures that block forever in a named function ---- */

static int never_written[2];

/* Reads a pipe whose write end stays open and is never written: the
 * stacks taken at the fixture's timeout show this function. */
__attribute__((noinline)) static void read_a_pipe_nobody_writes(void)
{
    char byte;
    while (read(never_written[0], &byte, 1) != 0)
        ;
    abort(); /* not reached: the write end stays open */
}

/* A thread the fixture starts, blocked as well: its stack is shown too.
 * It says it is running, from inside its function, on `started`. It
 * blocks every signal, as worker threads often do, so the SIGABRT the
 * runner sends at the timeout reaches the fixture's own thread, whose
 * handler keeps what the fixture recorded. (ThreadSanitizer runs a
 * signal's handler only when the thread that took it is in, or leaves,
 * a call it intercepts; a thread blocked in glibc's pause() never is,
 * and the handler never ran: the case failed under TSan once.) */
static int started[2];
__attribute__((noinline)) static void *blocked_fixture_thread(void *unused)
{
    (void)unused;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    if (write(started[1], "r", 1) != 1)
        abort();
    for (;;)
        pause();
    return NULL;
}

static void hanging_before_all(void)
{
    note("hanging_before_all.log", "before_all");
    /* A helper that would outlive the suite unless it is killed with it. */
    pid_t helper = fork();
    if (helper == 0) {
        for (;;)
            pause();
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)helper);
    note("hanging_helper.pid", pid);
    if (pipe(never_written) != 0 || pipe(started) != 0)
        abort();
    pthread_t thread;
    if (pthread_create(&thread, NULL, blocked_fixture_thread, NULL) != 0)
        abort();
    char running;
    if (read(started[0], &running, 1) != 1) /* inside its function now */
        abort();
    int open_connections = 1;
    EXPECT_EQ(open_connections, 0, "a connection was left open");
    read_a_pipe_nobody_writes();
}

SUITE(hanging, .before_all = hanging_before_all);

TEST(hanging, first, .timeout_ms = 1000)
{
    ASSERT(1);
}

TEST(hanging, second)
{
    ASSERT(1);
}

/* Runs after the hanging suite: its before_all's helper must be gone by
 * then (dead, or a zombie not yet reaped), not left running. */
TEST(after_hanging, helper_is_gone)
{
    FILE *file = fopen("hanging_helper.pid", "r");
    ASSERT_NOT_NULL(file);
    int pid = 0;
    ASSERT_EQ(fscanf(file, "%d", &pid), 1);
    fclose(file);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *stat = fopen(path, "r");
    char state = 'X';
    if (stat) {
        ASSERT_EQ(fscanf(stat, "%*d (%*[^)]) %c", &state), 1);
        fclose(stat);
    }
    /* 'X': gone; 'Z': killed, not yet reaped. */
    ASSERT_EQ(state == 'X' || state == 'Z', 1, "the helper is still running");
}

static void blocked_after_all(void)
{
    if (pipe(never_written) != 0)
        abort();
    printf("after_all waits for a writer\n");
    read_a_pipe_nobody_writes();
}

SUITE(blocked_after, .after_all = blocked_after_all);

TEST(blocked_after, only, .timeout_ms = 1000)
{
    printf("the test's own line\n");
}

/* ---- after_all failing ---- */

static void failing_after_all(void)
{
    int leaked = 2;
    printf("after_all counted %d leaked\n", leaked);
    fprintf(stderr, "after_all stderr line\n");
    EXPECT_EQ(leaked, 0);
}

SUITE(leaky, .after_all = failing_after_all);

/* A suite whose last test never starts (--max-failures stops the run
 * after `fails`): its after_all runs at the end of the run. */
SUITE(leaky_stopped, .after_all = failing_after_all);

TEST(leaky_stopped, passes)
{
    ASSERT(1);
}

TEST(leaky_stopped, fails)
{
    FAIL("stops the run under --max-failures 1");
}

TEST(leaky_stopped, never_starts)
{
    ASSERT(1);
}

TEST(leaky, first)
{
    ASSERT(1);
}

TEST(leaky, last)
{
    ASSERT(1);
}

/* ---- hostile: a test kills its suite server ---- */

static void hostile_before_all(void)
{
    note("hostile_before_all.log", "before_all");
}

SUITE(hostile, .before_all = hostile_before_all);

TEST(hostile, a_runs_first)
{
    ASSERT(1);
}

TEST(hostile, b_kills_its_parent)
{
    kill(getppid(), SIGKILL);
    for (;;)
        pause(); /* its parent-death signal ends it */
}

TEST(hostile, c_runs_after)
{
    note("hostile_after.log", "test");
}
