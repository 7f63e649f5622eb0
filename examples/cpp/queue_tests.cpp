/*
 * queue_tests.cpp — a test suite written in C++ (C++20, for the options'
 * designated initializers): a fixture with state, a suite setup paid once
 * (before_all fills a std::vector every test starts from a copy of), an
 * expected death, a death check and a parameterized test, all on the
 * example queue, a C library.
 */
#include <csignal>
#include <cstdlib>
#include <vector>

#include <tattle/tattle.h>

extern "C" {
#include "queue.h"
}

static std::vector<int> *known_values; /* filled once, by before_all */

static void fill_known_values(void)
{
    known_values = new std::vector<int>{3, 1, 4, 1, 5};
}

static void drop_known_values(void)
{
    delete known_values;
}

static void *new_queue(void)
{
    return queue_new(8);
}

static void free_queue(void *q)
{
    queue_free(static_cast<struct queue *>(q));
}

SUITE(queue_cpp, .tags = "area:cpp", .setup = new_queue, .teardown = free_queue,
      .before_all = fill_known_values, .after_all = drop_known_values);

static struct queue *the_queue()
{
    return static_cast<struct queue *>(tattle_fixture());
}

TEST(queue_cpp, keeps_the_known_values_in_order)
{
    ASSERT_NOT_NULL(known_values);
    for (int value : *known_values)
        ASSERT_EQ(queue_push(the_queue(), value), 0);
    for (int expected : *known_values) {
        int value = 0;
        ASSERT_EQ(queue_pop(the_queue(), &value), 0);
        EXPECT_EQ(value, expected);
    }
}

TEST(queue_cpp, an_uncaught_exception_aborts, .expect_signal = SIGABRT)
{
    std::vector<int> none;
    (void)none.at(queue_length(the_queue()));
}

TEST(queue_cpp, exit_status_checked_in_a_child)
{
    ASSERT_EXIT(std::exit(static_cast<int>(queue_length(the_queue()))), 0);
}

TEST_P(queue_cpp, length_after_pushes, int, 1, 3, 8)
{
    int pushes = PARAM(int);
    for (int i = 0; i < pushes; i++)
        ASSERT_EQ(queue_push(the_queue(), i), 0);
    ASSERT_EQ(queue_length(the_queue()), static_cast<size_t>(pushes));
}
