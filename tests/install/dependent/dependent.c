/*
 * dependent.c — the test file of the project that uses tattle as a
 * dependency: two tests, so its CTest list can be told from tattle's.
 */
#include <tattle/tattle.h>

TEST(dependent, adds)
{
    ASSERT_EQ(1 + 1, 2);
}

TEST(dependent, compares_strings)
{
    ASSERT_STR_EQ("tattle", "tattle");
}
