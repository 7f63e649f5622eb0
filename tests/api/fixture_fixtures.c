/*
 * fixture_fixtures.c — fixtures with state, for test_fixtures.py: a suite
 * setup whose pointer the tests read, a test setup that takes precedence
 * over it, teardowns that receive the pointer (and print what they
 * received, so the driver sees it in the test's output), plain
 * `void fn(void)` fixtures beside them, and setups that fail by an
 * assertion or a crash, which must name the fixture.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

struct account {
    int magic;
    int balance;
    char owner[16];
};

static void *open_account(void)
{
    struct account *account = calloc(1, sizeof *account);
    account->magic = 42;
    account->balance = 100;
    strcpy(account->owner, "suite");
    return account;
}

static void close_account(void *fixture)
{
    struct account *account = fixture;
    printf("suite teardown got magic %d balance %d\n", account->magic,
           account->balance);
    free(account);
}

SUITE(stateful, .setup = open_account, .teardown = close_account);

TEST(stateful, body_reads_the_suite_fixture)
{
    struct account *account = tattle_fixture();
    ASSERT_NOT_NULL(account);
    ASSERT_EQ(account->magic, 42);
    ASSERT_STR_EQ(account->owner, "suite");
    ASSERT_EQ(tattle_suite_fixture(), (void *)account);
    account->balance = 250; /* the suite teardown prints it */
}

static void *open_private_account(void)
{
    struct account *account = calloc(1, sizeof *account);
    account->magic = 7;
    strcpy(account->owner, "test");
    return account;
}

static void check_and_close_private_account(void *fixture)
{
    struct account *account = fixture;
    printf("test teardown got owner %s balance %d\n", account->owner,
           account->balance);
    free(account);
}

TEST(stateful, test_setup_takes_precedence, .setup = open_private_account,
     .teardown = check_and_close_private_account)
{
    struct account *mine = tattle_fixture();
    struct account *suite = tattle_suite_fixture();
    ASSERT_NOT_NULL(mine);
    ASSERT_NOT_NULL(suite);
    ASSERT_STR_EQ(mine->owner, "test");
    ASSERT_STR_EQ(suite->owner, "suite");
    mine->balance = 5; /* the test teardown prints it */
}

/* ---- plain fixtures, as before ---- */

static int plain_ready;

static void plain_setup(void)
{
    plain_ready = 1;
}

static void plain_teardown(void)
{
    printf("plain teardown ran with %d\n", plain_ready);
}

TEST(plain, void_fixtures_still_run, .setup = plain_setup,
     .teardown = plain_teardown)
{
    ASSERT_EQ(plain_ready, 1);
    plain_ready = 2;
}

TEST(plain, signatures_said_exactly, .setup = plain_setup,
     .setup_signature = TATTLE_FIXTURE_PLAIN, .teardown = plain_teardown,
     .teardown_signature = TATTLE_FIXTURE_PLAIN)
{
    ASSERT_EQ(plain_ready, 1);
    plain_ready = 3;
}

TEST(plain, no_fixture_is_null)
{
    ASSERT_NULL(tattle_fixture());
    ASSERT_NULL(tattle_suite_fixture());
}

/* ---- setups that fail ---- */

static void *refuse_to_connect(void)
{
    int connected = 0;
    ASSERT(connected, "the database did not answer");
    return NULL;
}

TEST(broken, test_setup_fails, .setup = refuse_to_connect)
{
    puts("the body ran");
}

static void *crash_while_loading(void)
{
    raise(SIGSEGV);
    return NULL;
}

TEST(broken, test_setup_crashes, .setup = crash_while_loading)
{
    puts("the body ran");
}

static void *refuse_suite(void)
{
    FAIL("the suite's server did not start");
}

SUITE(broken_suite, .setup = refuse_suite);

TEST(broken_suite, suite_setup_fails)
{
    puts("the body ran");
}
