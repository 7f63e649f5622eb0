/*
 * shared_suite.c — one suite written in the common ground of C and C++:
 * every assertion macro, passing and failing on purpose, with and without
 * its message, and TEST and SUITE without options. It is built twice: as
 * ISO C11 (the cpp_c_twin program) and, included by cpp_suite.cpp, as
 * C++17. test_cpp.py runs both and checks that their JSON reports agree
 * test by test, so a C++ user gets the report a C user gets. Both builds
 * see this file's name and lines, so even locations must agree.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <tattle/tattle.h>

SUITE(shared);

static void print_on_exit(void *context)
{
    printf("on exit: %s\n", (const char *)context);
}

TEST(shared, every_macro_holds)
{
    int i = 3;
    unsigned u = 3u;
    long l = -3L;
    unsigned long long ull = 3ull;
    short s = 3;
    unsigned char uc = 3;
    signed char sc = -3;
    char c = 'x';
    char other_c = 'x';
    bool b = true;
    bool other_b = true;
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
    EXPECT_EQ(c, other_c);
    EXPECT_EQ(c, other_c, "message");
    EXPECT_EQ(b, other_b);
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
    ASSERT_NE(pointer, null_pointer, "pointers too");
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

    ASSERT_EQ(tattle_on_exit(print_on_exit, (void *)"first"), 0);
    ASSERT_EQ(tattle_on_exit(print_on_exit, (void *)"second"), 0);
}

/* Each fails_* test fails on purpose; the EXPECT_ forms keep it going, so
 * one test shows several renderings. */
TEST(shared, fails_integers)
{
    int i = 3;
    unsigned u = 3u;
    long long ll = -5;
    EXPECT_EQ(i, 4);
    EXPECT_NE(i, 3, "i is %d", i);
    EXPECT_GT(u, 4u, "unsigned");
    EXPECT_LE(ll, -6);
    EXPECT_GT(-1, 1u);
    ASSERT_LT(i, 2, "the last one is fatal");
    puts("not reached");
}

TEST(shared, fails_bool_and_char)
{
    bool b = false;
    bool yes = true;
    char c = 'x';
    char y = 'y';
    EXPECT_EQ(b, yes);
    EXPECT_EQ(c, y, "chars");
}

TEST(shared, fails_floating)
{
    float f = 1.5f;
    double d = 2.5;
    long double ld = 3.5L;
    EXPECT_EQ(d, 2.75);
    EXPECT_GT(f, 2.0f);
    EXPECT_LT(ld, 3.0L);
    EXPECT_NEAR(d, 3.0, 0.1, "near %s", "enough?");
}

TEST(shared, fails_pointers)
{
    int first = 1, second = 2;
    int *null_pointer = NULL;
    EXPECT_EQ(&first, &second);
    EXPECT_NULL(&first);
    EXPECT_NOT_NULL(null_pointer, "must be set");
}

TEST(shared, fails_strings_and_memory)
{
    const char *greeting = "hello, world";
    const char *null_text = NULL;
    unsigned char left[4] = {1, 2, 3, 4};
    unsigned char right[4] = {1, 2, 9, 4};
    EXPECT_STR_EQ(greeting, "hello world");
    EXPECT_STR_NE(greeting, "hello, world", "the same");
    EXPECT_STR_EQ(greeting, null_text);
    EXPECT_MEM_EQ(left, right, sizeof left);
}

TEST(shared, fails_truth_with_message)
{
    int i = 3;
    ASSERT(i == 4, "i is %d", i);
}

TEST(shared, fail_formats_its_arguments)
{
    FAIL("formatted %d %s", 1, "two");
}

TEST(shared, skip_formats_its_reason)
{
    SKIP("formatted %d", 1);
}

static int calls;

static int next_value(void)
{
    return ++calls;
}

TEST(shared, operands_are_evaluated_once)
{
    EXPECT_EQ(next_value(), 1);
    EXPECT_EQ(next_value(), next_value() - 1);
    ASSERT_EQ(calls, 3, "three calls for three operands");
}
