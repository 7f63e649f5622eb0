/*
 * queue_tests.c — the example suite a newcomer reads first: tests of the
 * bounded queue, using fixtures, tags, type-generic assertions, messages,
 * a producer thread and tattle_on_exit(). All of these pass.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

#include "queue.h"

static struct queue *shared_queue;

static void open_queue(void)
{
    shared_queue = queue_new(4);
    ASSERT_NOT_NULL(shared_queue, "queue_new(4) must succeed");
}

static void close_queue(void)
{
    queue_free(shared_queue);
    shared_queue = NULL;
}

SUITE(queue, .tags = "area:core", .setup = open_queue, .teardown = close_queue);

TEST(queue, push_then_pop)
{
    int value = 0;
    ASSERT_EQ(queue_push(shared_queue, 7), 0);
    ASSERT_EQ(queue_pop(shared_queue, &value), 0);
    ASSERT_EQ(value, 7, "pop after one push");
}

TEST(queue, keeps_fifo_order)
{
    for (int i = 1; i <= 4; i++)
        ASSERT_EQ(queue_push(shared_queue, i * 10), 0, "push #%d", i);
    for (int i = 1; i <= 4; i++) {
        int value;
        ASSERT_EQ(queue_pop(shared_queue, &value), 0);
        EXPECT_EQ(value, i * 10, "value #%d", i);
    }
}

TEST(queue, refuses_push_when_full)
{
    for (int i = 0; i < 4; i++)
        ASSERT_EQ(queue_push(shared_queue, i), 0);
    EXPECT_EQ(queue_push(shared_queue, 99), -1);
    EXPECT_EQ(queue_length(shared_queue), queue_capacity(shared_queue));
}

TEST(queue, pop_on_empty_fails)
{
    int value = 12345;
    EXPECT_EQ(queue_pop(shared_queue, &value), -1);
    EXPECT_EQ(value, 12345, "an empty pop leaves the output alone");
}

TEST(queue, rejects_zero_capacity)
{
    ASSERT_NULL(queue_new(0));
}

static void *producer(void *arg)
{
    struct queue *q = arg;
    for (int i = 0; i < 100; i++)
        while (queue_push(q, i) != 0)
            ;
    return NULL;
}

static void free_queue(void *q)
{
    queue_free(q);
}

TEST(queue, consumer_sees_every_value_in_order, .tags = "threads",
     .timeout_ms = 5000)
{
    struct queue *q = queue_new(8);
    ASSERT_NOT_NULL(q);
    tattle_on_exit(free_queue, q);
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, producer, q), 0);
    for (int expected = 0; expected < 100; expected++) {
        int value;
        ASSERT_EQ(queue_pop_wait(q, &value, 1000), 0, "waiting for value %d",
                  expected);
        ASSERT_EQ(value, expected);
    }
    pthread_join(thread, NULL);
}

TEST(queue, average_of_values_is_near, .tags = "math")
{
    double sum = 0;
    for (int i = 1; i <= 3; i++)
        sum += i * 0.1;
    ASSERT_NEAR(sum / 3, 0.2, 1e-12);
    ASSERT_GT(sum, 0.5);
}

TEST(queue, names_compare_as_strings)
{
    char name[16];
    strcpy(name, "queue");
    ASSERT_STR_EQ(name, "queue");
    ASSERT_STR_NE(name, "stack");
    ASSERT_MEM_EQ(name, "queue", 5);
}

TEST(queue, huge_capacity_is_declined_politely,
     .skip = "needs a machine with 64 GiB")
{
    FAIL("never runs");
}
