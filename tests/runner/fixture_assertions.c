/*
 * fixture_assertions.c — tests that fail on purpose, one way each, so that
 * test_runner.py can check what the report records about an assertion: the
 * macro, the expression, both values rendered, the message, file and line.
 * Lines the driver checks carry a marker comment (@name) that it looks up
 * in this file, so the expected line numbers are never written twice.
 *
 * Part of the runner_fixture program; the driver selects tests by pattern.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

TEST(assert, int_eq)
{
    int answer = 41;
    ASSERT_EQ(answer, 42); /* @int_eq */
}

TEST(assert, int_eq_with_message)
{
    int answer = 41;
    ASSERT_EQ(answer, 42, "answer is %d, the %s wants %d", answer, "guide", 42);
}

TEST(assert, unsigned_eq)
{
    unsigned int big = UINT_MAX;
    ASSERT_EQ(big, 0u);
}

/* -1 < 1u is false in C (the -1 converts to UINT_MAX); tattle compares the
 * values, so all of these hold. */
TEST(assert, signed_unsigned_compare_by_value)
{
    ASSERT_LT(-1, 1u);
    ASSERT_GT(1u, -1);
    ASSERT_NE(-1, UINT_MAX);
    ASSERT_LE((long long)-5, (unsigned long long)0);
    ASSERT_GE(0ul, (signed char)-1);
    puts("all signed-vs-unsigned comparisons held");
}

TEST(assert, signed_unsigned_failure_renders_minus_one)
{
    ASSERT_GT(-1, 1u);
}

TEST(assert, float_sum_eq)
{
    ASSERT_EQ(0.1 + 0.2, 0.3);
}

TEST(assert, near_fails)
{
    double measured = 1.25;
    ASSERT_NEAR(measured, 1.0, 0.1);
}

TEST(assert, near_holds)
{
    ASSERT_NEAR(0.1 + 0.2, 0.3, 1e-9);
    ASSERT_NEAR(1.0f, 1.05f, 0.1);
    ASSERT_NEAR(-2.0, -2.0, 0.0);
}

TEST(assert, pointer_eq)
{
    int first = 1, second = 2;
    printf("%p %p\n", (void *)&first, (void *)&second);
    ASSERT_EQ(&first, &second);
}

TEST(assert, str_eq)
{
    const char *greeting = "hello";
    ASSERT_STR_EQ(greeting, "help");
}

TEST(assert, str_ne)
{
    const char *left = "same";
    char right[] = "same";
    ASSERT_STR_NE(left, right);
}

TEST(assert, str_eq_null)
{
    const char *missing = NULL;
    ASSERT_STR_EQ(missing, "x");
}

TEST(assert, str_eq_hostile)
{
    ASSERT_STR_EQ("quote\" tab\t nl\n", "other");
}

TEST(assert, mem_eq)
{
    unsigned char left[12], right[12];
    for (int i = 0; i < 12; i++)
        left[i] = right[i] = (unsigned char)i;
    right[5] = 0xff;
    ASSERT_MEM_EQ(left, right, sizeof left);
}

TEST(assert, null_fails)
{
    int local = 0;
    int *pointer = &local;
    printf("%p\n", (void *)pointer);
    ASSERT_NULL(pointer);
}

TEST(assert, not_null_fails)
{
    int *pointer = NULL;
    ASSERT_NOT_NULL(pointer);
}

TEST(assert, truth_fails)
{
    int a = 1;
    ASSERT(a == 2); /* @truth */
}

TEST(assert, fail_with_format)
{
    FAIL("gave up after %d tries", 3); /* @fail */
}

TEST(assert, skip_with_format)
{
    SKIP("needs %s", "a network");
    puts("after SKIP: must not be printed");
}

TEST(assert, skip_option, .skip = "not on Tuesdays")
{
    puts("a test with .skip must not run");
}

/* Operands are evaluated exactly once: each operand goes through count(). */
static int evaluations;

static int count_int(int value)
{
    evaluations++;
    return value;
}

static const char *count_str(const char *value)
{
    evaluations++;
    return value;
}

static const void *count_ptr(const void *value)
{
    evaluations++;
    return value;
}

static double count_double(double value)
{
    evaluations++;
    return value;
}

static size_t count_size(size_t value)
{
    evaluations++;
    return value;
}

TEST(assert, operands_evaluated_once)
{
    static const char bytes_a[4] = "abc", bytes_b[4] = "abd";
    int local = 0;
    evaluations = 0;
    /* Failing forms (non-fatal, so the body goes on). */
    EXPECT_EQ(count_int(1), count_int(2));         /* 2 */
    EXPECT_NE(count_int(3), count_int(3));         /* 4 */
    EXPECT_LT(count_int(5), count_int(4));         /* 6 */
    EXPECT(count_int(0));                          /* 7 */
    EXPECT_STR_EQ(count_str("a"), count_str("b")); /* 9 */
    EXPECT_MEM_EQ(count_ptr(bytes_a), count_ptr(bytes_b),
                  count_size(4));   /* 12 */
    EXPECT_NULL(count_ptr(&local)); /* 13 */
    EXPECT_NEAR(count_double(1.0), count_double(2.0),
                count_double(0.5)); /* 16 */
    /* Holding forms. */
    ASSERT_EQ(count_int(7), count_int(7)); /* 18 */
    ASSERT(count_int(1));                  /* 19 */
    ASSERT_STR_NE(count_str("a"), count_str("b"), "with a message %d",
                  1);                   /* 21 */
    ASSERT_NOT_NULL(count_ptr(&local)); /* 22 */
    printf("evaluations=%d\n", evaluations);
}

TEST(assert, expect_continues_after_failure)
{
    EXPECT_EQ(1 + 1, 3);
    EXPECT_STR_EQ("left", "right");
    puts("reached the end of the body");
    EXPECT(0 > 1, "third failure");
}

static void note_on_exit(void *context)
{
    printf("on_exit %s\n", (const char *)context);
}

static void announce_teardown(void)
{
    puts("teardown");
}

TEST(assert, fatal_stops_body, .teardown = announce_teardown)
{
    tattle_on_exit(note_on_exit, "first");
    tattle_on_exit(note_on_exit, "second");
    tattle_on_exit(note_on_exit, "third");
    puts("body before");
    ASSERT_EQ(1, 2);
    puts("body after the failed ASSERT: must not be printed");
}

static void failing_setup(void)
{
    ASSERT_EQ(0, 1, "setup could not open the database");
}

TEST(assert, setup_fails_invalid, .setup = failing_setup)
{
    puts("body ran although setup failed");
}

static void failing_suite_setup(void)
{
    FAIL("suite setup refused");
}

SUITE(badsetup, .setup = failing_suite_setup);

TEST(badsetup, body_never_runs)
{
    puts("body ran although the suite setup failed");
}
