/*
 * json_scan.h — where a JSON value ends, and its numbers exactly.
 *
 * Reports can be far larger than memory should hold, and cJSON only
 * parses whole texts, so the reader (results/read.c) cuts a report into
 * its values first: the scanner finds where one value ends (strings,
 * escapes and nesting followed, the grammar of numbers, literals and
 * whitespace checked) without building anything, and cJSON then parses
 * that one value. The scanner also notes where each number literal is:
 * cJSON reads numbers as doubles, which cannot hold every 64-bit seed or
 * count, so tattle__json_scan_parse() gives every number item a double
 * may not hold exactly its literal text (in valuestring) and
 * tattle__json_integer() reads integers from it exactly.
 */
#ifndef TATTLE_RESULTS_JSON_SCAN_H
#define TATTLE_RESULTS_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/** The deepest nesting the scanner accepts (cJSON's limit is 1000). */
#define TATTLE__JSON_SCAN_MAX_DEPTH 512

/** Where the number literals of one scanned value are (offsets from the
 * start of the scanned text). Zero-initialize; release with
 * tattle__json_numbers_release(). */
struct tattle__json_numbers {
    struct tattle__json_span {
        size_t offset, length;
    } * spans;
    size_t count, capacity;
};

void tattle__json_numbers_release(struct tattle__json_numbers *numbers);

enum tattle__json_scan_status {
    TATTLE__JSON_SCAN_OK,   /* a whole value */
    TATTLE__JSON_SCAN_MORE, /* the text ends inside the value */
    TATTLE__JSON_SCAN_ERROR /* not JSON */
};

/** What went wrong, and where (an offset into the scanned text). */
struct tattle__json_scan_error {
    size_t offset;
    char message[96];
};

/** Scans the one value that starts at `text[0]` (no leading whitespace).
 * On OK, `*end` is the offset just past it and `numbers` (when not NULL)
 * holds its number literals, appended. MORE means the value does not end
 * within `length` bytes; ERROR fills `error`. */
enum tattle__json_scan_status
tattle__json_scan_value(const char *text, size_t length, size_t *end,
                        struct tattle__json_numbers *numbers,
                        struct tattle__json_scan_error *error);

/** Parses `text[0..length)`, one value scanned whole with `numbers`, with
 * cJSON, then gives each number item its literal (valuestring, freed by
 * cJSON_Delete) unless it is an integer of at most 15 digits, which its
 * double holds exactly. Returns the tree, or NULL with `error` filled. */
cJSON *tattle__json_scan_parse(const char *text, size_t length,
                               const struct tattle__json_numbers *numbers,
                               struct tattle__json_scan_error *error);

/** Memory that parsed trees are built in and dropped with, all at once:
 * a test's tree is made of a hundred small items, and allocating and
 * freeing each one is most of what reading it costs. Zero-initialize. */
struct tattle__json_arena {
    struct tattle__json_arena_chunk *chunks;
};

/** Frees the arena's memory, and with it every tree parsed into it (never
 * cJSON_Delete such a tree). The arena is empty again. Its largest chunk
 * is kept for the next arena to fill (one chunk in all, on the one thread
 * that parses: see tattle__json_scan_parse_in()). */
void tattle__json_arena_release(struct tattle__json_arena *arena);

/** tattle__json_scan_parse() into `arena` (NULL: cJSON's allocator). It
 * sets cJSON's hooks while it parses and gives cJSON back its own
 * allocator after, so it is for a program that parses on one thread and
 * has no hooks of its own (the tattle command). */
cJSON *tattle__json_scan_parse_in(const char *text, size_t length,
                                  const struct tattle__json_numbers *numbers,
                                  struct tattle__json_arena *arena,
                                  struct tattle__json_scan_error *error);

/** Reads a number item as an exact integer: its sign in *negative and its
 * magnitude in *magnitude (from the literal when the item has one, so
 * every 64-bit value is exact). Returns false when the item is not a
 * number, not an integer, or its magnitude does not fit in 64 bits. */
bool tattle__json_integer(const cJSON *item, bool *negative,
                          uint64_t *magnitude);

/** What a parsed item is, for a message: "a string", "an integer" (a
 * number with no fraction), "a number", "a boolean", "null", "an array" or
 * "an object". */
const char *tattle__json_describe(const cJSON *item);

/** Finds the member `key` of the object text `text[0..length)` (a value
 * the scanner accepted) without parsing it: stores the span of its value
 * and returns true, or returns false when there is none. Keys with escapes
 * are decoded before comparing. With `value_length` NULL the value is not
 * scanned: only where it starts is stored (the text may then be a prefix
 * of the object, unchecked past that member). */
bool tattle__json_scan_member(const char *text, size_t length, const char *key,
                              size_t *value_offset, size_t *value_length);

/** Decodes the JSON string literal `text[0..length)` into a new string
 * (malloc'd; free() it), or NULL when it is not a string. */
char *tattle__json_scan_string(const char *text, size_t length);

/** The offset of the first byte at or after `from` that is not JSON
 * whitespace (space, tab, newline, carriage return), or `length`. */
size_t tattle__json_skip_space(const char *text, size_t length, size_t from);

#endif /* TATTLE_RESULTS_JSON_SCAN_H */
