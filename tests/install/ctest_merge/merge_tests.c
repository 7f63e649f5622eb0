/*
 * merge_tests.c — the tests of the ctest -j2 + tattle merge check: a few
 * that pass, one that fails and one that is skipped, each run by CTest in
 * its own process, each leaving its own stream.
 */
#include <tattle/tattle.h>

TEST(arithmetic, adds)
{
    ASSERT_EQ(2 + 2, 4);
}
TEST(arithmetic, subtracts)
{
    ASSERT_EQ(5 - 3, 2);
}
TEST(arithmetic, multiplies)
{
    ASSERT_EQ(3 * 4, 12);
}
TEST(arithmetic, divides)
{
    ASSERT_EQ(9 / 3, 3);
}
TEST(strings, compare)
{
    ASSERT_STR_EQ("tattle", "tattle");
}
TEST(strings, differ_on_purpose)
{
    ASSERT_STR_EQ("tattle", "tittle");
}
TEST(skipping, skipped)
{
    SKIP("not on this machine");
}
