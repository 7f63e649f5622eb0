/*
 * fixture_calls.c — tests whose functions are compiled by
 * tattle_instrument(), for the calls and shadow stacks a `trace_calls`
 * test records (tests/calls/test_calls.py).
 *
 * Each test makes a known sequence of calls: nested calls with a message
 * between them, calls from a second thread and a forked child, a crash
 * three calls deep, a recursion deeper than the shadow stack stores, more
 * calls than are kept, and the same calls in a test without the tag
 * (which records nothing), calls from a signal handler that a fast
 * timer runs while the thread is making calls (often inside a call hook),
 * and a fatal assertion that leaves two calls before the teardown runs.
 * The threads and the child meet through joins and waitpid, never by
 * sleeping.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

/* Keeps the compiler from folding the calls away. */
static volatile int sink;

__attribute__((noinline)) static void inner(int value)
{
    sink = value; /* @inner */
}

__attribute__((noinline)) static void middle(int value)
{
    inner(value);
    inner(value + 1);
}

__attribute__((noinline)) static void outer(void)
{
    middle(1);
    tattle_trace_event(1, NULL, NULL, "between", "after the first middle");
    middle(2);
}

TEST(calls, nested, .tags = "trace_calls")
{
    outer();
}

TEST(calls, untagged)
{
    outer();
}

TEST(calls, untagged_traced, .tags = "trace_messages")
{
    outer();
}

__attribute__((noinline)) static void crash_here(void)
{
    raise(SIGSEGV); /* @crash */
}

__attribute__((noinline)) static void on_the_way(void)
{
    crash_here();
}

TEST(calls, crash_inside, .tags = "trace_calls")
{
    middle(0);
    on_the_way();
}

__attribute__((noinline)) static void *worker(void *unused)
{
    (void)unused;
    inner(7);
    return NULL;
}

TEST(calls, thread, .tags = "trace_calls")
{
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, worker, NULL), 0);
    ASSERT_EQ(pthread_join(thread, NULL), 0);
}

__attribute__((noinline)) static void in_child(void)
{
    inner(9);
}

TEST(calls, forked_child, .tags = "trace_calls")
{
    pid_t child = fork();
    ASSERT(child >= 0);
    if (child == 0) {
        in_child();
        _exit(0);
    }
    int status;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

__attribute__((noinline)) static void recurse(int levels)
{
    if (levels == 0) {
        raise(SIGABRT); /* @bottom */
        return;
    }
    recurse(levels - 1);
    sink = levels;
}

TEST(calls, deeper_than_stored, .tags = "trace_calls")
{
    recurse(100);
}

TEST(calls, more_than_kept, .tags = "trace_calls:10")
{
    for (int i = 0; i < 50; i++)
        inner(i);
}

/* Signals handled in calls/signal_handler: each handler run makes two
 * instrumented calls (on_tick and on_tick_work). */
static volatile sig_atomic_t ticks_seen;

__attribute__((noinline)) static void on_tick_work(void)
{
    sink = 3;
}

static void on_tick(int signal_number)
{
    (void)signal_number;
    on_tick_work();
    ticks_seen = ticks_seen + 1;
}

/* Not instrumented: only the loop's and the handler's calls are counted. */
__attribute__((no_instrument_function)) static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Calls inner() in a loop while a 20 us timer interrupts it, until 3000
 * signals were handled (or a bounded time passed: a sanitizer may hold
 * signals back), then reports the calls it made as the event "made":
 * "<inner calls> <handler runs>". */
TEST(calls, signal_handler, .tags = "trace_calls")
{
    ticks_seen = 0;
    struct sigaction action = {.sa_handler = on_tick};
    sigemptyset(&action.sa_mask);
    ASSERT_EQ(sigaction(SIGALRM, &action, NULL), 0);
    const char *scale = getenv("TATTLE_TIMEOUT_MULTIPLIER");
    double limit = 5.0 * (scale != NULL && atof(scale) > 1 ? atof(scale) : 1);
    double deadline = seconds_now() + limit;
    struct itimerval fast = {.it_interval = {0, 20}, .it_value = {0, 20}};
    ASSERT_EQ(setitimer(ITIMER_REAL, &fast, NULL), 0);
    unsigned long loops = 0;
    while (ticks_seen < 3000 && (loops % 1024 != 0 || seconds_now() < deadline))
        inner((int)loops++);
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    sigprocmask(SIG_BLOCK, &alarm, NULL);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    tattle_trace_event(1, NULL, NULL, "made", "%lu %d", loops, (int)ticks_seen);
    signal(SIGALRM, SIG_IGN);
    sigprocmask(SIG_UNBLOCK, &alarm, NULL);
}

/* A fatal assertion two calls deep leaves fails_deep and fails_here by
 * longjmp; the teardown that runs next, and the on-exit callback after
 * it, are called at depth 0 again. */
__attribute__((noinline)) static void fails_here(void)
{
    ASSERT(sink < 0, "fails two calls deep");
}

__attribute__((noinline)) static void fails_deep(void)
{
    fails_here();
    sink = 2;
}

__attribute__((noinline)) static void tears_down(void)
{
    inner(5);
}

__attribute__((noinline)) static void on_exit_after_failure(void *unused)
{
    (void)unused;
    inner(6);
}

TEST(calls, fatal_failure_unwinds, .tags = "trace_calls",
     .teardown = tears_down)
{
    tattle_on_exit(on_exit_after_failure, NULL);
    fails_deep();
}

TEST(calls, bad_cap, .tags = "trace_calls:0")
{
    inner(0);
}

TEST(overhead, measured)
{
    struct tattle_trace_overhead cost = tattle_trace_overhead(3200);
    /* A traced hook writes a record: a batch of 32 takes hundreds of ns,
     * far above the clock reads' own jitter. An untraced hook is one
     * branch, which that jitter can hide: its figure, the median batch
     * less the median of the clock alone, may come out as 0 (it did, on a
     * loaded machine); what holds is that it costs less than a traced
     * pair, by some tenfold. */
    ASSERT(cost.enter_ns > 0 && cost.exit_ns > 0 &&
               cost.untraced_ns < cost.enter_ns + cost.exit_ns,
           "enter %f exit %f untraced %f", cost.enter_ns, cost.exit_ns,
           cost.untraced_ns);
    /* The recorder is as it was: this untraced test still has no trace. */
    ASSERT(tattle_trace_current == NULL);
}

TEST(overhead, refused_in_a_traced_test, .tags = "trace_calls")
{
    errno = 0;
    struct tattle_trace_overhead cost = tattle_trace_overhead(3200);
    ASSERT_EQ(errno, EBUSY);
    ASSERT(cost.enter_ns == 0 && cost.exit_ns == 0 && cost.untraced_ns == 0);
    inner(1);
}
