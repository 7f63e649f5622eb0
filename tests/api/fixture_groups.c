/*
 * fixture_groups.c — failures for --group-by-error, for test_groups.py:
 * one helper line that fails with two errno values (three tests, one
 * location), the same message from another line, and an exit, which has
 * no location and is grouped by its message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

static void check_call(int error)
{
    ASSERT_EQ(error, 0, "%s", strerror(error)); /* the shared line */
}

TEST(files, missing)
{
    check_call(ENOENT);
}

TEST(files, missing_too)
{
    check_call(ENOENT);
}

TEST(files, refused)
{
    check_call(EACCES);
}

TEST(files, missing_elsewhere)
{
    ASSERT_EQ(ENOENT, 0, "%s", strerror(ENOENT));
}

TEST(files, exits)
{
    exit(3);
}

TEST(files, passes)
{
    ASSERT_EQ(0, 0);
}
