// gtest_program.cpp — a GoogleTest program that knows nothing of tattle,
// for `tattle run`'s per-test results: tests that pass, fail (EXPECT_EQ,
// whose file:line the report must carry), skip (GTEST_SKIP), segfault and
// hang. Linked with gtest_main; --gtest_filter picks what a case runs.
#include <gtest/gtest.h>

#include <unistd.h>

TEST(Basics, Passes)
{
    EXPECT_EQ(2, 1 + 1);
}

TEST(Basics, Fails)
{
    int sum = 1 + 1;
    EXPECT_EQ(3, sum); // the failing assertion
}

TEST(Basics, Skips)
{
    GTEST_SKIP() << "no network here";
}

TEST(Crashes, Segfaults)
{
    volatile int *nowhere = nullptr;
    *nowhere = 1;
}

TEST(Hangs, Forever)
{
    for (;;)
        pause();
}

TEST(After, NeverReached)
{
    EXPECT_TRUE(true);
}
