/*
 * header_all_macros.c — every public macro of tattle.h, with and without
 * its optional message and with and without the optional initializers,
 * as user code writes them. It must compile without a single warning under
 * -std=c11 -Wall -Wextra -Wpedantic -Werror with gcc and clang (the
 * runner_headers_compile_cleanly_* tests), and when run every test passes
 * except header/fail_* (failed) and header/skip_* (skipped).
 */
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <tattle/tattle.h>

static void fixture_setup(void)
{
}

static void fixture_teardown(void)
{
}

static int fixture_value = 5;

static void *fixture_with_state_setup(void)
{
    return &fixture_value;
}

static void fixture_with_state_teardown(void *fixture)
{
    *(int *)fixture = 0;
}

static void on_exit_callback(void *context)
{
    (void)context;
}

SUITE(header);
SUITE(header_options, .tags = "area:headers compile", .setup = fixture_setup,
      .teardown = fixture_teardown);

TEST(header, no_options)
{
    int i = 3;
    unsigned u = 3u;
    long l = -3L;
    unsigned long long ull = 3ull;
    short s = 3;
    unsigned char uc = 3;
    signed char sc = -3;
    char c = 'x';
    _Bool b = 1;
    float f = 1.5f;
    double d = 2.5;
    long double ld = 3.5L;
    size_t z = 3;
    const char *text = "text";
    const char *null_text = NULL;
    int *pointer = &i;
    int *null_pointer = NULL;
    unsigned char bytes[4] = {1, 2, 3, 4};

    ASSERT(i == 3);
    ASSERT(i == 3, "with a message");
    ASSERT(i == 3, "with a message and %d argument", 1);
    EXPECT(i == 3);
    EXPECT(i == 3, "message %s", "arg");

    ASSERT_EQ(i, 3);
    ASSERT_EQ(u, 3u, "u=%u", u);
    ASSERT_NE(l, 3L);
    ASSERT_NE(l, 3L, "l=%ld", l);
    ASSERT_LT(s, 4);
    ASSERT_LT(s, 4, "message");
    ASSERT_LE(uc, 3);
    ASSERT_LE(uc, 3, "message %d %d", 1, 2);
    ASSERT_GT(ull, 2ull);
    ASSERT_GT(ull, 2ull, "message");
    ASSERT_GE(sc, -3);
    ASSERT_GE(sc, -3, "message");
    EXPECT_EQ(c, 'x');
    EXPECT_EQ(c, 'x', "message");
    EXPECT_NE(b, 0);
    EXPECT_NE(b, 0, "message");
    EXPECT_LT(f, 2.0f);
    EXPECT_LT(f, 2.0f, "message");
    EXPECT_LE(d, 2.5);
    EXPECT_LE(d, 2.5, "message");
    EXPECT_GT(ld, 3.0L);
    EXPECT_GT(ld, 3.0L, "message");
    EXPECT_GE(z, (size_t)3);
    EXPECT_GE(z, (size_t)3, "message");
    ASSERT_EQ(pointer, &i);
    ASSERT_NE(pointer, NULL, "pointers too");
    ASSERT_LT(-1, 1u);

    ASSERT_STR_EQ(text, "text");
    ASSERT_STR_EQ(text, "text", "message %s", text);
    ASSERT_STR_NE(text, "other");
    ASSERT_STR_NE(text, null_text, "message");
    EXPECT_STR_EQ(text, "text");
    EXPECT_STR_EQ(text, "text", "message");
    EXPECT_STR_NE(text, "other");
    EXPECT_STR_NE(text, "other", "message");

    ASSERT_MEM_EQ(bytes, bytes, sizeof bytes);
    ASSERT_MEM_EQ(bytes, bytes, sizeof bytes, "message %zu", sizeof bytes);
    EXPECT_MEM_EQ(bytes, bytes, 4);
    EXPECT_MEM_EQ(bytes, bytes, 4, "message");

    ASSERT_NULL(null_pointer);
    ASSERT_NULL(null_pointer, "message");
    ASSERT_NOT_NULL(pointer);
    ASSERT_NOT_NULL(pointer, "message %p", (void *)pointer);
    EXPECT_NULL(null_text);
    EXPECT_NULL(null_text, "message");
    EXPECT_NOT_NULL(text);
    EXPECT_NOT_NULL(text, "message");

    ASSERT_NEAR(d, 2.5, 0.001);
    ASSERT_NEAR(f, 1.5f, 0.001, "message");
    EXPECT_NEAR(ld, 3.5L, 0.001L);
    EXPECT_NEAR(i, 3, 1, "message %d", i);

    ASSERT_SIGNAL(abort(), SIGABRT);
    ASSERT_SIGNAL(abort(), SIGABRT, "message");
    EXPECT_SIGNAL(raise(SIGTERM), SIGTERM);
    EXPECT_SIGNAL(raise(SIGTERM), SIGTERM, "message %d", i);
    ASSERT_EXIT(exit(3), 3);
    ASSERT_EXIT(_Exit(0), 0, "message");
    EXPECT_EXIT(exit(i), 3);
    EXPECT_EXIT(exit(i), i, "message %d", i);

    ASSERT_EQ(tattle_on_exit(on_exit_callback, NULL), 0);
}

TEST(header, every_option, .tags = "slowish area:headers", .timeout_ms = 5000,
     .setup = fixture_setup, .teardown = fixture_teardown, .trace_cap = 10,
     .trace_budget = 100, .expect_signal = 0, .expect_exit = 0)
{
    ASSERT(1);
}

TEST(header, fixture_with_state, .setup = fixture_with_state_setup,
     .teardown = fixture_with_state_teardown)
{
    ASSERT_EQ(tattle_fixture(), (void *)&fixture_value);
    ASSERT_EQ(*(int *)tattle_fixture(), 5);
    ASSERT_NULL(tattle_suite_fixture());
}

struct header_point {
    int x;
    int y;
};

TEST_P(header, param_values, struct header_point, {.x = 1, .y = 2},
       {.x = 3, .y = 4})
{
    struct header_point p = PARAM(struct header_point);
    ASSERT_EQ(p.y - p.x, 1);
    ASSERT_NOT_NULL(tattle_param());
}

TEST(header, one_option, .timeout_ms = 4000)
{
    ASSERT(1);
}

TEST(header_options, in_suite_with_options)
{
    ASSERT(1);
}

TEST(header, fail_without_arguments)
{
    FAIL("plain");
}

TEST(header, fail_with_arguments)
{
    FAIL("formatted %d %s", 1, "two");
}

TEST(header, skip_without_arguments)
{
    SKIP("plain");
}

TEST(header, skip_with_arguments)
{
    SKIP("formatted %d", 1);
}

TEST(header, skip_option, .skip = "skipped by its option")
{
    ASSERT(0);
}
