/*
 * fixture_deaths.c — tests that expect to die, for test_deaths.py: tests
 * declared with .expect_signal / .expect_exit that die as declared, die
 * otherwise or do not die, and death checks (ASSERT_SIGNAL, ASSERT_EXIT,
 * EXPECT_ forms) whose statement dies as expected, dies otherwise,
 * returns, or writes to stderr before it dies.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <tattle/tattle.h>

static void abort_after_message(void)
{
    fputs("about to abort: state is bad\n", stderr);
    abort();
}

static int untouched = 1;

/* ---- declared deaths ---- */

TEST(declared, aborts_as_declared, .expect_signal = SIGABRT)
{
    abort();
}

TEST(declared, exits_as_declared, .expect_exit = 3)
{
    exit(3);
}

TEST(declared, killed_by_another_signal, .expect_signal = SIGABRT)
{
    raise(SIGTERM);
}

TEST(declared, exits_with_another_status, .expect_exit = 3)
{
    exit(4);
}

TEST(declared, does_not_die, .expect_signal = SIGABRT)
{
    untouched = 2;
}

TEST(declared, dies_with_a_failed_check_too, .expect_exit = 5)
{
    EXPECT_EQ(untouched, 7);
    exit(5);
}

static void die_in_setup(void)
{
    abort();
}

TEST(declared, dies_in_setup, .expect_signal = SIGABRT, .setup = die_in_setup)
{
}

/* ---- death checks inside a test ---- */

TEST(checks, statement_dies_as_expected)
{
    ASSERT_SIGNAL(abort(), SIGABRT);
    ASSERT_EXIT(exit(9), 9);
    ASSERT_EXIT(_exit(0), 0);
    /* The statement ran in a child: this process is untouched. */
    ASSERT_SIGNAL(untouched = 5; abort(), SIGABRT);
    ASSERT_EQ(untouched, 1);
}

TEST(checks, statement_returns)
{
    ASSERT_SIGNAL(untouched = 3, SIGABRT, "the guard must abort");
    FAIL("not reached: ASSERT_SIGNAL is fatal");
}

TEST(checks, statement_dies_otherwise_with_stderr)
{
    EXPECT_EXIT(abort_after_message(), 2);
    EXPECT_SIGNAL(exit(1), SIGSEGV);
    fputs("after the checks\n", stderr);
}

TEST(checks, output_before_the_check_is_written_once)
{
    printf("before the check\n");
    ASSERT_EXIT(exit(0), 0);
}
