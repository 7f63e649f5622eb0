/*
 * corpus_tests.c — suite setup paid once: before_all builds a word index
 * (the expensive part, here a small one) once, and every test of the
 * suite starts from its own copy of it; after_all checks that no test's
 * changes reached it.
 */
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

static const char *const corpus[] = {"apple", "banana", "cherry", "date",
                                     "elderberry"};
enum { CORPUS_SIZE = sizeof corpus / sizeof *corpus };

static size_t *word_lengths; /* built once, by before_all */

static void build_index(void)
{
    word_lengths = calloc(CORPUS_SIZE, sizeof *word_lengths);
    ASSERT_NOT_NULL(word_lengths);
    for (size_t i = 0; i < CORPUS_SIZE; i++)
        word_lengths[i] = strlen(corpus[i]);
}

static void check_index_untouched(void)
{
    EXPECT_EQ(word_lengths[0], 5u, "a test's change reached after_all");
    free(word_lengths);
}

SUITE(corpus, .before_all = build_index, .after_all = check_index_untouched);

TEST(corpus, index_is_built)
{
    ASSERT_NOT_NULL(word_lengths);
    ASSERT_EQ(word_lengths[2], 6u);
}

TEST(corpus, a_test_changes_only_its_copy)
{
    word_lengths[0] = 0;
    ASSERT_EQ(word_lengths[0], 0u);
}

TEST(corpus, longest_word)
{
    size_t longest = 0;
    for (size_t i = 0; i < CORPUS_SIZE; i++)
        if (word_lengths[i] > word_lengths[longest])
            longest = i;
    ASSERT_STR_EQ(corpus[longest], "elderberry");
}
