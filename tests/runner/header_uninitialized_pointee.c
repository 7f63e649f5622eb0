/*
 * header_uninitialized_pointee.c — the commonest pointer checks in user
 * code, on memory fresh from malloc() (allocated, not yet written). Like
 * header_all_macros.c it must compile without a warning under -std=c11
 * -Wall -Wextra -Wpedantic -Werror with gcc and clang: the macros pass only
 * the pointer, never read what it points to, and must not make gcc believe
 * they do (-Wmaybe-uninitialized).
 */
#include <stdlib.h>

#include <tattle/tattle.h>

TEST(pointee, not_null_after_malloc)
{
    char *buffer = malloc(16);
    ASSERT_NOT_NULL(buffer);
    free(buffer);
}

TEST(pointee, null_check_after_malloc)
{
    char *buffer = malloc(16);
    EXPECT_NULL(buffer, "message");
    free(buffer);
}

TEST(pointee, pointer_compare_after_malloc)
{
    char *buffer = malloc(16);
    char *same = buffer;
    ASSERT_EQ(buffer, same);
    ASSERT_NE(buffer, NULL, "message %d", 1);
    free(buffer);
}
