/*
 * cpp_options.cpp — TEST and SUITE with their options as C++20 designated
 * initializers, written in the order the option structs declare them
 * (.tags, .timeout_ms, .skip, .setup, .teardown, .trace_cap,
 * .trace_budget, .expect_signal, .expect_exit; a suite's .tags, .setup,
 * .teardown, .before_all, .after_all), C++20 rejecting any other order.
 * The suite cpp_deaths holds what C++ users write for suite setup paid once
 * and expected deaths: state before_all left, declared deaths (one that
 * does not die) and the death checks, holding and not. A setup may return the
 * fixture's pointer and a teardown receive it: the option's type tells the two
 * signatures apart, so the runner calls each exactly as declared. Built with
 * -std=c++20 -Wall -Wextra -Wpedantic -Werror; test_cpp.py checks that each
 * option reaches the report as it does from C.
 */
#include <csignal>
#include <cstdio>
#include <cstdlib>

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

/* ---- cpp_deaths: before_all, after_all and expected deaths ---- */

namespace
{

int prepared_connections; /* set once, by before_all */

void prepare_connections()
{
    prepared_connections = 3;
}

void check_connections()
{
    EXPECT_EQ(prepared_connections, 3, "a test's change reached after_all");
}

} // namespace

SUITE(cpp_deaths, .tags = "area:cpp", .before_all = prepare_connections,
      .after_all = check_connections);

TEST(cpp_deaths, sees_before_all_state)
{
    ASSERT_EQ(prepared_connections, 3);
    prepared_connections = 0; /* its own copy only */
}

TEST(cpp_deaths, aborts_as_declared, .timeout_ms = 5000,
     .expect_signal = SIGABRT)
{
    std::abort();
}

TEST(cpp_deaths, exits_as_declared, .expect_exit = 3)
{
    std::exit(prepared_connections);
}

TEST(cpp_deaths, does_not_die, .expect_signal = SIGABRT)
{
    ASSERT_EQ(prepared_connections, 3);
}

TEST(cpp_deaths, death_checks)
{
    ASSERT_SIGNAL(std::abort(), SIGABRT);
    ASSERT_EXIT(std::exit(prepared_connections), 3);
    EXPECT_EXIT(std::exit(0), 0);
    EXPECT_SIGNAL((void)prepared_connections, SIGSEGV, "returns instead");
}
