/*
 * json_scan.c — the JSON scanner of the reader (see json_scan.h).
 *
 * One pass over the bytes with an explicit stack of open containers (no
 * recursion, so no input can exhaust the C stack), checking the grammar
 * of RFC 8259 as it goes: a value is whole or the scanner says where it
 * stops being JSON. Strings are skipped in runs of ordinary bytes; only
 * quotes, backslashes and control bytes are looked at one by one.
 */
#include "results/json_scan.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"

void tattle__json_numbers_release(struct tattle__json_numbers *numbers)
{
    free(numbers->spans);
    *numbers = (struct tattle__json_numbers){0};
}

static void add_number(struct tattle__json_numbers *numbers, size_t offset,
                       size_t length)
{
    if (!numbers)
        return;
    if (numbers->count == numbers->capacity) {
        numbers->capacity = numbers->capacity ? 2 * numbers->capacity : 64;
        numbers->spans = tattle__realloc(
            numbers->spans, numbers->capacity * sizeof *numbers->spans);
    }
    numbers->spans[numbers->count++] =
        (struct tattle__json_span){offset, length};
}

static bool is_space(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

size_t tattle__json_skip_space(const char *text, size_t length, size_t from)
{
    while (from < length && is_space(text[from]))
        from++;
    return from;
}

static enum tattle__json_scan_status fail(struct tattle__json_scan_error *error,
                                          size_t offset, const char *message)
{
    error->offset = offset;
    snprintf(error->message, sizeof error->message, "%s", message);
    return TATTLE__JSON_SCAN_ERROR;
}

/* Scans the string that starts with the quote at text[*pos]; leaves *pos
 * just past the closing quote. */
static enum tattle__json_scan_status
scan_string(const char *text, size_t length, size_t *pos,
            struct tattle__json_scan_error *error)
{
    size_t i = *pos + 1;
    for (;;) {
        while (i < length) {
            unsigned char c = (unsigned char)text[i];
            if (c == '"' || c == '\\' || c < 0x20)
                break;
            i++;
        }
        if (i >= length)
            return TATTLE__JSON_SCAN_MORE;
        unsigned char c = (unsigned char)text[i];
        if (c == '"') {
            *pos = i + 1;
            return TATTLE__JSON_SCAN_OK;
        }
        if (c < 0x20)
            return fail(
                error, i,
                "a control character inside a string (it must be escaped)");
        if (i + 1 >= length)
            return TATTLE__JSON_SCAN_MORE;
        char escape = text[i + 1];
        if (escape == 'u') {
            for (size_t k = 2; k < 6; k++) {
                if (i + k >= length)
                    return TATTLE__JSON_SCAN_MORE;
                if (!is_hex(text[i + k]))
                    return fail(error, i, "a bad \\u escape in a string");
            }
            i += 6;
        } else if (strchr("\"\\/bfnrt", escape) && escape) {
            i += 2;
        } else
            return fail(error, i, "an unknown escape in a string");
    }
}

/* Scans the number at text[*pos] (RFC 8259's grammar). A number that runs
 * to the end of the text is whole only when `last` says no more can come. */
static enum tattle__json_scan_status
scan_number(const char *text, size_t length, size_t *pos, bool last,
            struct tattle__json_scan_error *error)
{
    size_t start = *pos, i = *pos;
    if (text[i] == '-')
        i++;
    if (i >= length)
        return last ? fail(error, start, "a bad number")
                    : TATTLE__JSON_SCAN_MORE;
    if (text[i] == '0')
        i++;
    else if (is_digit(text[i]))
        while (i < length && is_digit(text[i]))
            i++;
    else
        return fail(error, start, "a bad number");
    if (i < length && text[i] == '.') {
        i++;
        if (i < length && !is_digit(text[i]))
            return fail(error, start, "a bad number (no digit after '.')");
        while (i < length && is_digit(text[i]))
            i++;
    }
    if (i < length && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        if (i < length && (text[i] == '+' || text[i] == '-'))
            i++;
        if (i < length && !is_digit(text[i]))
            return fail(error, start,
                        "a bad number (no digit in the exponent)");
        while (i < length && is_digit(text[i]))
            i++;
    }
    if (i >= length && !last)
        return TATTLE__JSON_SCAN_MORE;
    if (!is_digit(text[i - 1]))
        return fail(error, start, "a bad number");
    if (i < length && (is_digit(text[i]) || text[i] == '.' || text[i] == 'e' ||
                       text[i] == 'E' || text[i] == '-' || text[i] == '+'))
        return fail(error, i, "a bad number");
    *pos = i;
    return TATTLE__JSON_SCAN_OK;
}

enum expect {
    EXPECT_VALUE,
    EXPECT_VALUE_OR_CLOSE,
    EXPECT_KEY,
    EXPECT_KEY_OR_CLOSE,
    EXPECT_COLON,
    EXPECT_AFTER_VALUE
};

enum tattle__json_scan_status
tattle__json_scan_value(const char *text, size_t length, size_t *end,
                        struct tattle__json_numbers *numbers,
                        struct tattle__json_scan_error *error)
{
    char open[TATTLE__JSON_SCAN_MAX_DEPTH];
    size_t depth = 0;
    size_t numbers_before = numbers ? numbers->count : 0;
    enum expect expect = EXPECT_VALUE;
    size_t i = 0;
    enum tattle__json_scan_status status;
    for (;;) {
        if (expect == EXPECT_AFTER_VALUE && depth == 0) {
            *end = i;
            return TATTLE__JSON_SCAN_OK;
        }
        while (i < length && is_space(text[i]))
            i++;
        if (i >= length) {
            status = TATTLE__JSON_SCAN_MORE;
            goto stop;
        }
        char c = text[i];
        switch (expect) {
        case EXPECT_VALUE:
        case EXPECT_VALUE_OR_CLOSE:
            if (c == ']' && expect == EXPECT_VALUE_OR_CLOSE) {
                depth--;
                i++;
                expect = EXPECT_AFTER_VALUE;
            } else if (c == '{' || c == '[') {
                if (depth == TATTLE__JSON_SCAN_MAX_DEPTH) {
                    status = fail(error, i,
                                  "nested too deeply (more than 512 levels)");
                    goto stop;
                }
                open[depth++] = c;
                i++;
                expect = c == '{' ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
            } else if (c == '"') {
                status = scan_string(text, length, &i, error);
                if (status != TATTLE__JSON_SCAN_OK)
                    goto stop;
                expect = EXPECT_AFTER_VALUE;
            } else if (c == '-' || is_digit(c)) {
                size_t start = i;
                status = scan_number(text, length, &i, depth == 0, error);
                if (status != TATTLE__JSON_SCAN_OK)
                    goto stop;
                add_number(numbers, start, i - start);
                expect = EXPECT_AFTER_VALUE;
            } else if (c == 't' || c == 'f' || c == 'n') {
                const char *word = c == 't'   ? "true"
                                   : c == 'f' ? "false"
                                              : "null";
                size_t n = strlen(word);
                size_t have = length - i < n ? length - i : n;
                if (memcmp(text + i, word, have) != 0) {
                    status = fail(error, i, "expected a value");
                    goto stop;
                }
                if (have < n) {
                    status = TATTLE__JSON_SCAN_MORE;
                    goto stop;
                }
                i += n;
                expect = EXPECT_AFTER_VALUE;
            } else {
                status = fail(error, i, "expected a value");
                goto stop;
            }
            break;
        case EXPECT_KEY:
        case EXPECT_KEY_OR_CLOSE:
            if (c == '}' && expect == EXPECT_KEY_OR_CLOSE) {
                depth--;
                i++;
                expect = EXPECT_AFTER_VALUE;
            } else if (c == '"') {
                status = scan_string(text, length, &i, error);
                if (status != TATTLE__JSON_SCAN_OK)
                    goto stop;
                expect = EXPECT_COLON;
            } else {
                status = fail(error, i, "expected a member name in quotes");
                goto stop;
            }
            break;
        case EXPECT_COLON:
            if (c != ':') {
                status = fail(error, i, "expected ':'");
                goto stop;
            }
            i++;
            expect = EXPECT_VALUE;
            break;
        case EXPECT_AFTER_VALUE:
            if (c == ',') {
                i++;
                expect = open[depth - 1] == '{' ? EXPECT_KEY : EXPECT_VALUE;
            } else if ((c == '}' && open[depth - 1] == '{') ||
                       (c == ']' && open[depth - 1] == '[')) {
                depth--;
                i++;
            } else {
                status = fail(error, i,
                              open[depth - 1] == '{' ? "expected ',' or '}'"
                                                     : "expected ',' or ']'");
                goto stop;
            }
            break;
        }
    }
stop:
    if (numbers)
        numbers->count = numbers_before;
    return status;
}

/* True when the literal is an integer of at most 15 digits: its double
 * is exact and prints back as the same digits, so it needs no copy (most
 * numbers of a report are such: lines, durations, counts). */
static bool exact_as_double(const char *literal, size_t length)
{
    size_t i = length > 0 && literal[0] == '-' ? 1 : 0;
    if (length - i == 0 || length - i > 15 || literal[i] == '0')
        return length - i == 1 && literal[i] == '0';
    for (; i < length; i++)
        if (literal[i] < '0' || literal[i] > '9')
            return false;
    return true;
}

/* Gives the number items of `item`, in document order, their literals
 * (those a double holds exactly keep none). */
static bool attach_literals(cJSON *item, const char *text,
                            const struct tattle__json_numbers *numbers,
                            size_t *next)
{
    for (; item; item = item->next) {
        if (cJSON_IsNumber(item)) {
            if (*next >= numbers->count)
                return false;
            const struct tattle__json_span *span = &numbers->spans[(*next)++];
            if (exact_as_double(text + span->offset, span->length))
                continue;
            char *literal = cJSON_malloc(span->length + 1);
            if (!literal)
                return false;
            memcpy(literal, text + span->offset, span->length);
            literal[span->length] = '\0';
            item->valuestring = literal;
        } else if (item->child &&
                   !attach_literals(item->child, text, numbers, next))
            return false;
    }
    return true;
}

/* ---- Trees in an arena ------------------------------------------------ */

struct tattle__json_arena_chunk {
    struct tattle__json_arena_chunk *previous;
    size_t used, size;
    _Alignas(max_align_t) unsigned char bytes[];
};

enum { ARENA_FIRST_CHUNK = 32 * 1024 };

/* The arena cJSON allocates from while tattle__json_scan_parse() fills
 * one; cJSON's hooks are the library's own at every other moment. */
static struct tattle__json_arena *filling;

/* The largest chunk an arena gave back, kept for the next arena: reading
 * a stream fills and drops one arena per test, and a chunk malloc'd and
 * freed each time costs more than the test's parse (free of a chunk that
 * large makes malloc consolidate its free lists). One chunk at most is
 * kept, so memory stays that of the largest test. */
static struct tattle__json_arena_chunk *spare;

static struct tattle__json_arena_chunk *new_chunk(size_t bytes)
{
    if (spare && spare->size >= bytes) {
        struct tattle__json_arena_chunk *reused = spare;
        spare = NULL;
        return reused;
    }
    struct tattle__json_arena_chunk *added = malloc(sizeof *added + bytes);
    if (added)
        added->size = bytes;
    return added;
}

static void *CJSON_CDECL arena_allocate(size_t size)
{
    size_t align = _Alignof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
    struct tattle__json_arena_chunk *chunk = filling->chunks;
    if (!chunk || chunk->size - chunk->used < size) {
        size_t bytes = chunk ? 2 * chunk->size : ARENA_FIRST_CHUNK;
        while (bytes < size)
            bytes *= 2;
        struct tattle__json_arena_chunk *added = new_chunk(bytes);
        if (!added)
            return NULL;
        added->previous = chunk;
        added->used = 0;
        filling->chunks = chunk = added;
    }
    void *at = chunk->bytes + chunk->used;
    chunk->used += size;
    return at;
}

/* A tree in an arena is dropped with the arena, never item by item. */
static void CJSON_CDECL arena_deallocate(void *pointer)
{
    (void)pointer;
}

void tattle__json_arena_release(struct tattle__json_arena *arena)
{
    while (arena->chunks) {
        struct tattle__json_arena_chunk *chunk = arena->chunks;
        arena->chunks = chunk->previous;
        if (!spare || spare->size < chunk->size) {
            free(spare);
            spare = chunk;
        } else
            free(chunk);
    }
}

cJSON *tattle__json_scan_parse(const char *text, size_t length,
                               const struct tattle__json_numbers *numbers,
                               struct tattle__json_scan_error *error)
{
    return tattle__json_scan_parse_in(text, length, numbers, NULL, error);
}

cJSON *tattle__json_scan_parse_in(const char *text, size_t length,
                                  const struct tattle__json_numbers *numbers,
                                  struct tattle__json_arena *arena,
                                  struct tattle__json_scan_error *error)
{
    if (arena) {
        cJSON_Hooks hooks = {arena_allocate, arena_deallocate};
        filling = arena;
        cJSON_InitHooks(&hooks);
    }
    const char *stop = NULL;
    cJSON *tree = cJSON_ParseWithLengthOpts(text, length, &stop, false);
    size_t next = 0;
    bool literals_ok = tree && attach_literals(tree, text, numbers, &next) &&
                       next == numbers->count;
    if (tree && !literals_ok)
        cJSON_Delete(tree);
    if (arena) {
        cJSON_InitHooks(NULL);
        filling = NULL;
    }
    if (!tree) {
        error->offset = stop && stop >= text && stop <= text + length
                            ? (size_t)(stop - text)
                            : 0;
        snprintf(error->message, sizeof error->message,
                 "not JSON (a string cJSON cannot read, such as a lone UTF-16 "
                 "surrogate)");
        return NULL;
    }
    if (!literals_ok) {
        error->offset = 0;
        snprintf(error->message, sizeof error->message,
                 "numbers could not be read");
        return NULL;
    }
    return tree;
}

const char *tattle__json_describe(const cJSON *item)
{
    if (cJSON_IsString(item))
        return "a string";
    if (cJSON_IsNumber(item))
        return isfinite(item->valuedouble) &&
                       item->valuedouble == floor(item->valuedouble)
                   ? "an integer"
                   : "a number";
    if (cJSON_IsBool(item))
        return "a boolean";
    if (cJSON_IsNull(item))
        return "null";
    if (cJSON_IsArray(item))
        return "an array";
    if (cJSON_IsObject(item))
        return "an object";
    return "something else";
}

bool tattle__json_integer(const cJSON *item, bool *negative,
                          uint64_t *magnitude)
{
    if (!cJSON_IsNumber(item))
        return false;
    const char *literal = item->valuestring;
    if (literal) {
        const char *p = literal;
        bool minus = *p == '-';
        if (minus)
            p++;
        if (p[strspn(p, "0123456789")] == '\0') {
            uint64_t value = 0;
            for (; *p; p++) {
                unsigned digit = (unsigned)(*p - '0');
                if (value > (UINT64_MAX - digit) / 10)
                    return false;
                value = value * 10 + digit;
            }
            *negative = minus && value != 0;
            *magnitude = value;
            return true;
        }
    }
    /* 1.0, 2e3: integers written otherwise, exact below 2^53. */
    double value = item->valuedouble;
    if (!isfinite(value) || value != floor(value) ||
        fabs(value) > 9007199254740992.0)
        return false;
    *negative = value < 0;
    *magnitude = (uint64_t)fabs(value);
    return true;
}

char *tattle__json_scan_string(const char *text, size_t length)
{
    if (length < 2 || text[0] != '"' || text[length - 1] != '"')
        return NULL;
    if (!memchr(text, '\\', length)) {
        char *copy = tattle__malloc(length - 1);
        memcpy(copy, text + 1, length - 2);
        copy[length - 2] = '\0';
        return copy;
    }
    cJSON *item = cJSON_ParseWithLength(text, length);
    char *copy =
        cJSON_IsString(item) ? tattle__strdup(item->valuestring) : NULL;
    cJSON_Delete(item);
    return copy;
}

bool tattle__json_scan_member(const char *text, size_t length, const char *key,
                              size_t *value_offset, size_t *value_length)
{
    struct tattle__json_scan_error error;
    size_t key_length = strlen(key);
    size_t i = tattle__json_skip_space(text, length, 0);
    if (i >= length || text[i] != '{')
        return false;
    i = tattle__json_skip_space(text, length, i + 1);
    while (i < length && text[i] == '"') {
        size_t key_end;
        if (tattle__json_scan_value(text + i, length - i, &key_end, NULL,
                                    &error) != TATTLE__JSON_SCAN_OK)
            return false;
        const char *name = text + i;
        size_t name_length = key_end;
        i = tattle__json_skip_space(text, length, i + key_end);
        if (i >= length || text[i] != ':')
            return false;
        i = tattle__json_skip_space(text, length, i + 1);
        if (i >= length)
            return false;
        bool match;
        if (memchr(name, '\\', name_length)) {
            char *decoded = tattle__json_scan_string(name, name_length);
            match = decoded && strcmp(decoded, key) == 0;
            free(decoded);
        } else
            match = name_length == key_length + 2 &&
                    memcmp(name + 1, key, key_length) == 0;
        if (match && !value_length) {
            *value_offset = i;
            return true;
        }
        size_t value_end;
        if (tattle__json_scan_value(text + i, length - i, &value_end, NULL,
                                    &error) != TATTLE__JSON_SCAN_OK)
            return false;
        if (match) {
            *value_offset = i;
            *value_length = value_end;
            return true;
        }
        i = tattle__json_skip_space(text, length, i + value_end);
        if (i >= length || text[i] != ',')
            return false;
        i = tattle__json_skip_space(text, length, i + 1);
    }
    return false;
}
