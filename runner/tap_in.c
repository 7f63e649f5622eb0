/*
 * tap_in.c — reading TAP a wrapped program printed on stdout.
 *
 * Only the top level is read (a subtest's indented lines belong to its
 * parent's point): the plan "1..N" (before or after the points), each
 * "ok N - description" or "not ok N - description", a "# SKIP reason"
 * directive (skipped) or "# TODO reason" (a known failure: skipped with
 * that reason, as it fails nothing), and after a point its YAML block
 * ("  ---" to "  ..."), whose "message" (one line, or a "|" block) and
 * "file" and "line" keys become the failure's.
 */
#include "runner/tap_in.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"

static char *copy_span(const char *start, size_t length)
{
    char *text = tattle__malloc(length + 1);
    memcpy(text, start, length);
    text[length] = '\0';
    return text;
}

/* The line at `*cursor` (without its newline), advancing past it. */
static bool next_line(const char **cursor, const char **line, size_t *length)
{
    if (!*cursor || !**cursor)
        return false;
    *line = *cursor;
    const char *end = strchr(*cursor, '\n');
    *length = end ? (size_t)(end - *cursor) : strlen(*cursor);
    if (*length > 0 && (*line)[*length - 1] == '\r')
        (*length)--;
    *cursor = end ? end + 1 : NULL;
    return true;
}

static bool starts_with(const char *line, size_t length, const char *prefix)
{
    size_t n = strlen(prefix);
    return length >= n && memcmp(line, prefix, n) == 0;
}

/* A YAML value after "key:" with the spaces trimmed, quotes left alone. */
static char *value_after(const char *line, size_t length, size_t at)
{
    while (at < length && line[at] == ' ')
        at++;
    return copy_span(line + at, length - at);
}

/* The YAML block after a point: its message, file and line, into the
 * point's one failure. Stops at "  ..." or at a line that is not
 * indented. */
static void read_yaml(const char **cursor,
                      struct tattle__gtest_failure *failure)
{
    const char *line;
    size_t length;
    const char *before = *cursor;
    if (!next_line(cursor, &line, &length) ||
        !starts_with(line, length, "  ---")) {
        *cursor = before;
        return;
    }
    for (;;) {
        before = *cursor;
        if (!next_line(cursor, &line, &length))
            return;
        if (starts_with(line, length, "  ..."))
            return;
        if (!starts_with(line, length, "  ") && length > 0) {
            *cursor = before;
            return;
        }
        const char *key = line + 2;
        size_t rest = length >= 2 ? length - 2 : 0;
        if (starts_with(key, rest, "message:")) {
            char *value = value_after(key, rest, 8);
            if (value[0] == '|' || value[0] == '>') {
                free(value);
                struct tattle__buffer text = {0};
                for (;;) {
                    before = *cursor;
                    if (!next_line(cursor, &line, &length))
                        break;
                    if (!starts_with(line, length, "    ") && length > 0) {
                        *cursor = before;
                        break;
                    }
                    if (text.length > 0)
                        tattle__buffer_append(&text, "\n", 1);
                    if (length > 4)
                        tattle__buffer_append(&text, line + 4, length - 4);
                }
                tattle__buffer_append(&text, "", 0);
                value = tattle__buffer_take(&text);
            } else if (value[0] == '\'' || value[0] == '"') {
                size_t n = strlen(value);
                if (n >= 2 && value[n - 1] == value[0]) {
                    memmove(value, value + 1, n - 2);
                    value[n - 2] = '\0';
                }
            }
            free(failure->message);
            failure->message = value;
        } else if (starts_with(key, rest, "file:") && !failure->file) {
            failure->file = value_after(key, rest, 5);
        } else if (starts_with(key, rest, "line:") && failure->line == 0) {
            failure->line = atoi(key + 5);
        }
    }
}

static void add_point(struct tattle__gtest_tests *tests, const char *suite,
                      bool ok, long number, const char *text, size_t length,
                      const char **cursor)
{
    /* "- description # DIRECTIVE reason" */
    while (length > 0 && (*text == ' ' || *text == '-')) {
        text++;
        length--;
    }
    const char *hash = memchr(text, '#', length);
    size_t described = hash ? (size_t)(hash - text) : length;
    while (described > 0 && text[described - 1] == ' ')
        described--;
    tests->tests = tattle__realloc(tests->tests,
                                   (tests->count + 1) * sizeof *tests->tests);
    struct tattle__gtest_test *test = &tests->tests[tests->count++];
    *test = (struct tattle__gtest_test){.suite = tattle__strdup(suite),
                                        .number = number,
                                        .state = TATTLE_STATE_PASSED,
                                        .started = true,
                                        .finished = true};
    if (described > 0) {
        test->name = copy_span(text, described);
    } else {
        struct tattle__buffer name = {0};
        tattle__buffer_printf(&name, "%ld", number);
        test->name = tattle__buffer_take(&name);
    }
    const char *directive = hash ? hash + 1 : NULL;
    size_t directive_length = hash ? length - (size_t)(directive - text) : 0;
    while (directive_length > 0 && *directive == ' ') {
        directive++;
        directive_length--;
    }
    bool skip = directive_length >= 4 && strncasecmp(directive, "skip", 4) == 0;
    bool todo = directive_length >= 4 && strncasecmp(directive, "todo", 4) == 0;
    struct tattle__gtest_failure failure = {0};
    read_yaml(cursor, &failure);
    if (skip || (todo && !ok)) {
        test->state = TATTLE_STATE_SKIPPED;
        size_t at = 4;
        while (at < directive_length && directive[at] == ' ')
            at++;
        struct tattle__buffer reason = {0};
        tattle__buffer_printf(&reason, "%s%.*s", todo ? "TODO: " : "",
                              (int)(directive_length - at), directive + at);
        test->skip_reason = tattle__buffer_take(&reason);
    } else if (!ok) {
        test->state = TATTLE_STATE_FAILED;
        if (!failure.message) {
            struct tattle__buffer message = {0};
            tattle__buffer_printf(&message, "not ok %ld", number);
            if (described > 0)
                tattle__buffer_printf(&message, " - %.*s", (int)described,
                                      text);
            failure.message = tattle__buffer_take(&message);
        }
        test->failures = tattle__malloc(sizeof *test->failures);
        test->failures[0] = failure;
        test->failure_count = 1;
        return;
    }
    free(failure.file);
    free(failure.message);
}

bool tattle__tap_read(const char *stdout_text, const char *suite,
                      struct tattle__gtest_tests *tests, long *planned)
{
    *tests = (struct tattle__gtest_tests){0};
    *planned = -1;
    const char *cursor = stdout_text;
    const char *line;
    size_t length;
    while (next_line(&cursor, &line, &length)) {
        if (starts_with(line, length, "1..") && length > 3 &&
            isdigit((unsigned char)line[3])) {
            /* A plan past what any run holds is clamped: it only names
             * the points never printed (runner/command.c). */
            long count = strtol(line + 3, NULL, 10);
            *planned = count > INT_MAX ? INT_MAX : count;
            continue;
        }
        bool ok = starts_with(line, length, "ok");
        bool not_ok = starts_with(line, length, "not ok");
        if (!ok && !not_ok)
            continue;
        size_t at = ok ? 2 : 6;
        if (at < length && line[at] != ' ')
            continue; /* "okay", not a point */
        while (at < length && line[at] == ' ')
            at++;
        long number = (long)tests->count + 1;
        if (at < length && isdigit((unsigned char)line[at])) {
            number = strtol(line + at, NULL, 10);
            while (at < length && isdigit((unsigned char)line[at]))
                at++;
        }
        add_point(tests, suite, ok, number, line + at, length - at, &cursor);
    }
    if (*planned < 0 || tests->count == 0) {
        tattle__gtest_tests_release(tests);
        return false;
    }
    return true;
}
