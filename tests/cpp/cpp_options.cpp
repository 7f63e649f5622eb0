/*
 * cpp_options.cpp — TEST and SUITE with their options as C++20 designated
 * initializers, written in the order the option structs declare them
 * (.tags, .timeout_ms, .skip, .setup, .teardown, .trace_cap,
 * .trace_budget; a suite's .tags, .setup, .teardown), C++20 rejecting any
 * other order. A setup may return the fixture's pointer and a teardown
 * receive it: the option's type tells the two signatures apart, so the
 * runner calls each exactly as declared. Built with -std=c++20 -Wall -Wextra
 * -Wpedantic -Werror; test_cpp.py checks that each option reaches the report as
 * it does from C.
 */
#include <cstdio>

#include <tattle/trace.h>
#include <tattle/tattle.h>

namespace
{

void suite_setup()
{
    std::puts("suite setup");
}

void suite_teardown()
{
    std::puts("suite teardown");
}

void test_setup()
{
    std::puts("test setup");
}

void test_teardown()
{
    std::puts("test teardown");
}

void *open_counter()
{
    return new int(41);
}

void close_counter(void *fixture)
{
    int *counter = static_cast<int *>(fixture);
    std::printf("teardown got %d\n", *counter);
    delete counter;
}

} // namespace

SUITE(cpp_options, .tags = "area:cpp", .setup = suite_setup,
      .teardown = suite_teardown);

TEST(cpp_options, every_option, .tags = "slowish", .timeout_ms = 5000,
     .setup = test_setup, .teardown = test_teardown, .trace_cap = 10,
     .trace_budget = 100)
{
    std::puts("body");
}

TEST(cpp_options, fixture_with_state, .setup = open_counter,
     .teardown = close_counter)
{
    int *counter = static_cast<int *>(tattle_fixture());
    ASSERT_NOT_NULL(counter);
    ASSERT_EQ(*counter, 41);
    ++*counter;
}

TEST(cpp_options, one_option, .timeout_ms = 4000)
{
    ASSERT(1);
}

TEST(cpp_options, skipped_by_its_option, .skip = "skipped by its option")
{
    ASSERT(0);
}

TEST(cpp_options, no_options)
{
    ASSERT(1);
}

TEST(cpp_options, traced, .tags = "trace_messages")
{
    tattle_actor_name("main");
    tattle_mailbox *box;
    ASSERT_NOT_NULL(box = tattle_mailbox_open("box", 4));
    ASSERT_EQ(tattle_mailbox_send(box, "hello", "hi", 2), 0);
    tattle_trace_event(1, "main", nullptr, "note", "%d messages", 1);
    FAIL("fails so its trace is kept");
}
