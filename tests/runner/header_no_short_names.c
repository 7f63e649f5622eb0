/*
 * header_no_short_names.c — with TATTLE_NO_SHORT_NAMES the short aliases
 * are absent (the #ifdef checks below stop the compile if one leaks) and
 * the user's own names are free; the TATTLE_ names work. Compiled with the
 * same strict flags as header_all_macros.c; when run every test passes
 * except prefixed/fails (failed) and prefixed/skips (skipped).
 */
#define TATTLE_NO_SHORT_NAMES
#include <stddef.h>
#include <stdlib.h>

#include <tattle/tattle.h>

#if defined(TEST) || defined(SUITE) || defined(ASSERT) || defined(EXPECT) ||   \
    defined(ASSERT_EQ) || defined(ASSERT_NE) || defined(ASSERT_LT) ||          \
    defined(ASSERT_LE) || defined(ASSERT_GT) || defined(ASSERT_GE) ||          \
    defined(EXPECT_EQ) || defined(EXPECT_NE) || defined(EXPECT_LT) ||          \
    defined(EXPECT_LE) || defined(EXPECT_GT) || defined(EXPECT_GE) ||          \
    defined(ASSERT_STR_EQ) || defined(ASSERT_STR_NE) ||                        \
    defined(EXPECT_STR_EQ) || defined(EXPECT_STR_NE) ||                        \
    defined(ASSERT_MEM_EQ) || defined(EXPECT_MEM_EQ) ||                        \
    defined(ASSERT_NULL) || defined(ASSERT_NOT_NULL) ||                        \
    defined(EXPECT_NULL) || defined(EXPECT_NOT_NULL) ||                        \
    defined(ASSERT_NEAR) || defined(EXPECT_NEAR) || defined(ASSERT_SIGNAL) ||  \
    defined(EXPECT_SIGNAL) || defined(ASSERT_EXIT) || defined(EXPECT_EXIT) ||  \
    defined(FAIL) || defined(SKIP)
#error "TATTLE_NO_SHORT_NAMES left a short name defined"
#endif

/* The user's own names, free again. */
static int FAIL(int code)
{
    return code + 1;
}

#define TEST 0

TATTLE_SUITE(prefixed, .tags = "area:prefix");

TATTLE_TEST(prefixed, works)
{
    int value = FAIL(1) + TEST;
    const char *text = "text";
    unsigned char bytes[2] = {1, 2};
    TATTLE_ASSERT(value == 2);
    TATTLE_EXPECT(value == 2, "message");
    TATTLE_ASSERT_EQ(value, 2);
    TATTLE_ASSERT_NE(value, 3, "message %d", value);
    TATTLE_ASSERT_LT(value, 3);
    TATTLE_ASSERT_LE(value, 2);
    TATTLE_ASSERT_GT(value, 1);
    TATTLE_ASSERT_GE(value, 2);
    TATTLE_EXPECT_EQ(value, 2);
    TATTLE_EXPECT_NE(value, 3);
    TATTLE_EXPECT_LT(value, 3);
    TATTLE_EXPECT_LE(value, 2);
    TATTLE_EXPECT_GT(value, 1);
    TATTLE_EXPECT_GE(value, 2);
    TATTLE_ASSERT_STR_EQ(text, "text");
    TATTLE_ASSERT_STR_NE(text, "other");
    TATTLE_EXPECT_STR_EQ(text, "text");
    TATTLE_EXPECT_STR_NE(text, "other");
    TATTLE_ASSERT_MEM_EQ(bytes, bytes, 2);
    TATTLE_EXPECT_MEM_EQ(bytes, bytes, 2, "message");
    TATTLE_ASSERT_NULL(NULL);
    TATTLE_ASSERT_NOT_NULL(text);
    TATTLE_EXPECT_NULL(NULL);
    TATTLE_EXPECT_NOT_NULL(text);
    TATTLE_ASSERT_NEAR(1.0, 1.0, 0.1);
    TATTLE_EXPECT_NEAR(1.0, 1.05, 0.1, "message");
    TATTLE_ASSERT_EXIT(_Exit(2), 2);
    TATTLE_EXPECT_EXIT(_Exit(2), 2, "message");
}

TATTLE_TEST(prefixed, fails, .tags = "expected_failure")
{
    TATTLE_FAIL("prefixed FAIL %d", 7);
}

TATTLE_TEST(prefixed, skips)
{
    TATTLE_SKIP("prefixed SKIP");
}
