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
 * mailbox and a join, never by sleeping. profile/twins runs two threads
 * that both name themselves "twin" and whose calls overlap: twin_one()
 * is still open when the other thread enters twin_two(), and returns
 * before twin_two() does (semaphores order them), so a replay that
 * merged the two threads would nest one call in the other.
 */
#include <pthread.h>
#include <semaphore.h>
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

/* Posted in this order: the first thread is inside twin_one(), the
 * second inside twin_two(), the first has left twin_one(). */
static sem_t one_entered, two_entered, one_left;

/* Waits for `posted`, through interruptions by signals. */
__attribute__((no_instrument_function)) static void wait_for(sem_t *posted)
{
    while (sem_wait(posted) != 0) {
    }
}

__attribute__((noinline)) static void twin_one(void)
{
    sem_post(&one_entered);
    wait_for(&two_entered);
}

__attribute__((noinline)) static void twin_two(void)
{
    sem_post(&two_entered);
    wait_for(&one_left);
}

__attribute__((noinline)) static void *first_twin(void *unused)
{
    (void)unused;
    tattle_actor_name("twin");
    twin_one();
    sem_post(&one_left);
    return NULL;
}

__attribute__((noinline)) static void *second_twin(void *unused)
{
    (void)unused;
    tattle_actor_name("twin");
    wait_for(&one_entered);
    twin_two();
    return NULL;
}

TEST(profile, twins, .tags = "trace_calls")
{
    ASSERT_EQ(sem_init(&one_entered, 0, 0), 0);
    ASSERT_EQ(sem_init(&two_entered, 0, 0), 0);
    ASSERT_EQ(sem_init(&one_left, 0, 0), 0);
    pthread_t first, second;
    ASSERT_EQ(pthread_create(&first, NULL, first_twin, NULL), 0);
    ASSERT_EQ(pthread_create(&second, NULL, second_twin, NULL), 0);
    ASSERT_EQ(pthread_join(first, NULL), 0);
    ASSERT_EQ(pthread_join(second, NULL), 0);
}
