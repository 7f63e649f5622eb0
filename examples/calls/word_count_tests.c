/*
 * word_count_tests.c — a function-heavy example for call tracing: a word
 * counter (split a text into words, count them in a hash table, sort the
 * counts) whose functions are compiled by tattle_instrument(), so the
 * test tagged `trace_calls` records every call. scripts/run-examples.sh
 * writes its flame graph (--flamegraph) and timeline (--chrome-trace):
 * open build/examples/calls.folded or calls.trace.json in speedscope or
 * Perfetto to see where the time goes.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

#define TABLE_SIZE 256
#define WORD_MAX 32

struct entry {
    char word[WORD_MAX];
    int count;
};

struct table {
    struct entry entries[TABLE_SIZE];
    int used;
};

static unsigned hash_word(const char *word)
{
    unsigned hash = 2166136261u;
    for (; *word; word++)
        hash = (hash ^ (unsigned char)*word) * 16777619u;
    return hash;
}

static struct entry *find_slot(struct table *table, const char *word)
{
    unsigned at = hash_word(word) % TABLE_SIZE;
    while (table->entries[at].count > 0 &&
           strcmp(table->entries[at].word, word) != 0)
        at = (at + 1) % TABLE_SIZE;
    return &table->entries[at];
}

static void count_word(struct table *table, const char *word)
{
    struct entry *entry = find_slot(table, word);
    if (entry->count == 0) {
        snprintf(entry->word, sizeof entry->word, "%s", word);
        table->used++;
    }
    entry->count++;
}

static size_t next_word(const char *text, size_t at, char word[WORD_MAX])
{
    while (text[at] && !isalpha((unsigned char)text[at]))
        at++;
    size_t length = 0;
    for (; isalpha((unsigned char)text[at]); at++)
        if (length < WORD_MAX - 1)
            word[length++] = (char)tolower((unsigned char)text[at]);
    word[length] = '\0';
    return at;
}

static void count_text(struct table *table, const char *text)
{
    char word[WORD_MAX];
    for (size_t at = next_word(text, 0, word); word[0];
         at = next_word(text, at, word))
        count_word(table, word);
}

static int by_count(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return x->count != y->count ? y->count - x->count
                                : strcmp(x->word, y->word);
}

static void sort_counts(struct table *table)
{
    qsort(table->entries, TABLE_SIZE, sizeof table->entries[0], by_count);
}

static const char *const verse =
    "The quick brown fox jumps over the lazy dog, and the dog sleeps on; "
    "the fox runs over the hill and over the river to the quick end. ";

TEST(words, most_frequent, .tags = "trace_calls:100000")
{
    static struct table table;
    for (int round = 0; round < 200; round++)
        count_text(&table, verse);
    sort_counts(&table);
    ASSERT_STR_EQ(table.entries[0].word, "the");
    ASSERT_EQ(table.entries[0].count, 200 * 7);
    ASSERT_STR_EQ(table.entries[1].word, "over");
}
