/*
 * death_examples.c — expected deaths: a test that passes only when the
 * code under test kills its process the way it should (`.expect_signal`,
 * `.expect_exit`), and death checks inside a test (`ASSERT_SIGNAL`,
 * `EXPECT_EXIT`), whose statement runs in a child forked from the test so
 * the test goes on. The code under test is the example queue and two
 * guards written here: one that aborts on a caller's bug, one that exits
 * as a command-line tool would.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <tattle/tattle.h>

#include "queue.h"

/* Pops a value the caller knows is there: an empty queue is the caller's
 * bug, so it aborts. */
static int pop_or_abort(struct queue *q)
{
    int value = 0;
    if (queue_pop(q, &value) != 0) {
        fputs("pop_or_abort: the queue is empty\n", stderr);
        abort();
    }
    return value;
}

/* Ends the program with status 2, as a tool does on bad input, when the
 * queue holds fewer than `wanted` values. */
static void require_values_or_exit(const struct queue *q, size_t wanted)
{
    if (queue_length(q) < wanted)
        exit(2);
}

static void *new_queue(void)
{
    return queue_new(4);
}

static void free_queue(void *q)
{
    queue_free(q);
}

SUITE(deaths, .tags = "area:deaths", .setup = new_queue,
      .teardown = free_queue);

TEST(deaths, popping_an_empty_queue_aborts, .expect_signal = SIGABRT)
{
    pop_or_abort(tattle_fixture());
}

TEST(deaths, too_few_values_exit_with_status_2, .expect_exit = 2)
{
    require_values_or_exit(tattle_fixture(), 1);
}

TEST(deaths, death_checks_inside_a_test)
{
    struct queue *q = tattle_fixture();
    ASSERT_SIGNAL(pop_or_abort(q), SIGABRT);
    ASSERT_EQ(queue_push(q, 7), 0);
    EXPECT_EXIT(require_values_or_exit(q, 2), 2);
    /* The statements ran in children: the test's queue still holds 7. */
    ASSERT_EQ(pop_or_abort(q), 7);
}
