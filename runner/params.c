/*
 * params.c — parameterized tests: TEST_P's registration as one test per
 * value, finding a test's value from its record, and rendering values for
 * reports (see params.h).
 */
#include "runner/params.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "runner/test_process/child.h"

/* Every TEST_P's cases, one block each; written before main() only. */
struct case_block {
    struct tattle__param_case *cases;
    size_t count;
    struct case_block *next;
};

static struct case_block *blocks;

void tattle_test_register_params(const struct tattle_test *test,
                                 const struct tattle_params *params)
{
    struct case_block *block = tattle__calloc(1, sizeof *block);
    block->count = params->count;
    block->cases =
        tattle__calloc(params->count ? params->count : 1, sizeof *block->cases);
    block->next = blocks;
    blocks = block;
    for (size_t i = 0; i < params->count; i++) {
        struct tattle__param_case *pc = &block->cases[i];
        pc->test = *test;
        pc->params = params;
        pc->index = i;
        tattle_test_register(&pc->test);
    }
}

const struct tattle__param_case *
tattle__param_case_find(const struct tattle_test *test)
{
    for (const struct case_block *block = blocks; block; block = block->next) {
        const struct tattle__param_case *first = block->cases;
        if ((uintptr_t)test >= (uintptr_t)first &&
            (uintptr_t)test < (uintptr_t)(first + block->count))
            return &first[((uintptr_t)test - (uintptr_t)first) / sizeof *first];
    }
    return NULL;
}

const void *tattle__param_case_value(const struct tattle__param_case *pc)
{
    return (const unsigned char *)pc->params->values +
           pc->index * pc->params->size;
}

/* The `index`th value as written: the source split at the commas outside
 * brackets, braces, parentheses and literals, trimmed. False when there
 * are not that many. */
static bool source_piece(const char *source, size_t index,
                         struct tattle__buffer *out)
{
    size_t piece = 0, depth = 0;
    const char *start = source;
    char quote = 0;
    for (const char *p = source;; p++) {
        if (*p == '\0' || (*p == ',' && depth == 0 && !quote)) {
            if (piece == index) {
                const char *end = p;
                while (start < end && (*start == ' ' || *start == '\t'))
                    start++;
                while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
                    end--;
                tattle__buffer_append(out, start, (size_t)(end - start));
                return true;
            }
            if (*p == '\0')
                return false;
            piece++;
            start = p + 1;
        } else if (quote) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == quote)
                quote = 0;
        } else if (*p == '"' || *p == '\'') {
            quote = *p;
        } else if (*p == '(' || *p == '[' || *p == '{') {
            depth++;
        } else if ((*p == ')' || *p == ']' || *p == '}') && depth > 0) {
            depth--;
        }
    }
}

static intmax_t read_signed(const void *value, size_t size)
{
    switch (size) {
    case 1: {
        int8_t v;
        memcpy(&v, value, 1);
        return v;
    }
    case 2: {
        int16_t v;
        memcpy(&v, value, 2);
        return v;
    }
    case 4: {
        int32_t v;
        memcpy(&v, value, 4);
        return v;
    }
    default: {
        int64_t v;
        memcpy(&v, value, 8);
        return v;
    }
    }
}

static uintmax_t read_unsigned(const void *value, size_t size)
{
    uint64_t v = 0;
    switch (size) {
    case 1: {
        uint8_t v8;
        memcpy(&v8, value, 1);
        return v8;
    }
    case 2: {
        uint16_t v16;
        memcpy(&v16, value, 2);
        return v16;
    }
    case 4: {
        uint32_t v32;
        memcpy(&v32, value, 4);
        return v32;
    }
    default:
        memcpy(&v, value, 8);
        return v;
    }
}

static long double read_floating(const void *value, size_t size)
{
    if (size == sizeof(float)) {
        float v;
        memcpy(&v, value, sizeof v);
        return v;
    }
    if (size == sizeof(double)) {
        double v;
        memcpy(&v, value, sizeof v);
        return v;
    }
    long double v;
    memcpy(&v, value, sizeof v);
    return v;
}

char *tattle__param_case_render(const struct tattle__param_case *pc)
{
    const struct tattle_params *params = pc->params;
    const void *value = tattle__param_case_value(pc);
    struct tattle__buffer out = {0};
    bool sized = params->size == 1 || params->size == 2 || params->size == 4 ||
                 params->size == 8;
    switch (params->kind) {
    case TATTLE_PARAM_SIGNED:
        if (!sized)
            break;
        tattle__value_render(
            &out, tattle__value_signed(read_signed(value, params->size)));
        return tattle__buffer_take(&out);
    case TATTLE_PARAM_UNSIGNED:
        if (!sized)
            break;
        tattle__value_render(
            &out, tattle__value_unsigned(read_unsigned(value, params->size)));
        return tattle__buffer_take(&out);
    case TATTLE_PARAM_BOOL:
        tattle__buffer_append_string(&out, read_unsigned(value, 1) ? "true"
                                                                   : "false");
        return tattle__buffer_take(&out);
    case TATTLE_PARAM_FLOATING:
        if (params->size != sizeof(float) && params->size != sizeof(double) &&
            params->size != sizeof(long double))
            break;
        tattle__value_render(
            &out, tattle__value_floating(read_floating(value, params->size)));
        return tattle__buffer_take(&out);
    case TATTLE_PARAM_STRING: {
        const char *text;
        memcpy(&text, value, sizeof text);
        tattle__buffer_append_string(&out, text ? text : "NULL");
        return tattle__buffer_take(&out);
    }
    case TATTLE_PARAM_OTHER:
        break;
    }
    /* Only when the pieces are the values (not a struct's members written
     * without braces). */
    struct tattle__buffer beyond = {0};
    bool matches =
        params->source && !source_piece(params->source, params->count, &beyond);
    tattle__buffer_release(&beyond);
    if (!matches || !source_piece(params->source, pc->index, &out) ||
        out.length == 0) {
        tattle__buffer_release(&out);
        tattle__buffer_printf(&out, "value %zu", pc->index);
    }
    return tattle__buffer_take(&out);
}
