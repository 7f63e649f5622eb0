/*
 * fixture_params.c — parameterized tests, for test_params.py: TEST_P over
 * integers (one value fails), unsigned and floating-point values,
 * booleans, strings and structs written with designated initializers,
 * in a suite with tags, beside a plain TEST of the same suite.
 */
#include <stdbool.h>
#include <string.h>

#include <tattle/tattle.h>

SUITE(math, .tags = "area:math");

TEST_P(math, is_even, int, 2, 4, 7)
{
    int value = PARAM(int);
    ASSERT_EQ(value % 2, 0, "%d is odd", value);
}

TEST_P(math, fits_a_byte, unsigned char, 0, 200, 255)
{
    ASSERT_LE(PARAM(unsigned char), 255);
}

TEST_P(math, halves_exactly, double, 0.5, 1e3, -2.25)
{
    double value = PARAM(double);
    ASSERT_EQ(value / 2 * 2, value);
}

TEST_P(math, truth, bool, true, false)
{
    bool value = PARAM(bool);
    ASSERT_EQ(value || !value, true);
}

TEST(math, plain_test)
{
    ASSERT_NULL(tattle_param());
}

TEST_P(words, not_empty, const char *, "alpha", "beta, with a comma")
{
    const char *word = PARAM(const char *);
    ASSERT_NE(strlen(word), 0u);
}

struct point {
    int x;
    int y;
};

TEST_P(points, on_the_diagonal, struct point, {.x = 1, .y = 1},
       {.x = 2, .y = 3}, {.x = -4, .y = -4})
{
    struct point p = PARAM(struct point);
    ASSERT_EQ(p.x, p.y, "(%d, %d)", p.x, p.y);
}
