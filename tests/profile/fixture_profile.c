/*
 * fixture_profile.c — `trace_calls` tests whose calls take known times,
 * for the flame graph and the Chrome trace (tests/profile/
 * test_profile.py).
 *
 * Each instrumented function busy-waits on the monotonic clock for a
 * fixed time of its own (spin_for() itself is not instrumented), so the
 * self time of every stack is known from below: at least what it spun,
 * more only by what the machine added. profile/weighted is one thread;
 * profile/threads has a second thread that receives a message the main
 * thread sends through a mailbox between its calls (a flow arrow in the
 * timeline) and leaves one message pending (a mailbox snapshot), and it
 * fails on purpose (a failure instant). The threads meet through the
 * mailbox and a join, never by sleeping.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

/* The microseconds of the monotonic clock. */
__attribute__((no_instrument_function)) static uint64_t now_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/* Busy-waits `us` microseconds: the caller's own time. */
__attribute__((no_instrument_function)) static void spin_for(uint64_t us)
{
    uint64_t until = now_us() + us;
    while (now_us() < until) {
    }
}

/* The self times, in microseconds, that test_profile.py expects. */
#define PARENT_US 4000
#define HEAVY_US 24000
#define LIGHT_US 8000
#define WORKER_US 12000

__attribute__((noinline)) static void heavy(void)
{
    spin_for(HEAVY_US);
}

__attribute__((noinline)) static void light(void)
{
    spin_for(LIGHT_US);
}

__attribute__((noinline)) static void parent(void)
{
    spin_for(PARENT_US);
    heavy();
    light();
}

TEST(profile, weighted, .tags = "trace_calls")
{
    parent();
    light();
}

static tattle_mailbox *work;

__attribute__((noinline)) static void handle(void)
{
    spin_for(WORKER_US);
}

__attribute__((noinline)) static void *worker(void *unused)
{
    (void)unused;
    tattle_actor_name("worker");
    char label[32], text[32];
    if (tattle_mailbox_recv(work, label, sizeof label, text, sizeof text, -1) >=
        0)
        handle();
    return NULL;
}

TEST(profile, threads, .tags = "trace_calls trace_messages")
{
    work = tattle_mailbox_open("work", 4);
    ASSERT(work != NULL);
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, worker, NULL), 0);
    light();
    ASSERT_EQ(tattle_mailbox_send(work, "job", "one", 3), 0);
    ASSERT_EQ(pthread_join(thread, NULL), 0);
    ASSERT_EQ(tattle_mailbox_send(work, "left", "two", 3), 0);
    heavy();
    EXPECT_EQ(1, 2);
}
