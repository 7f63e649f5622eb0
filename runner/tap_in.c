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
 *
 * A "#" line is a comment; one after a point is not taken for that
 * point's message by itself, since nothing in TAP tells a diagnostic of
 * the point before from a comment on the next or a plain remark (the
 * point's message is then "not ok N - description", and the failed
 * point carries the whole stdout, diagnostics among it: runner/command.c
 * gives it to each failed point). A framework's own way is read only
 * once the stream is known to be that framework's by a shape no one line
 * has:
 *
 * - cmocka, which ends each group with a commented point, "# ok - GROUP"
 *   or "# not ok - GROUP", writes a failure's diagnostics as "# " lines
 *   after its point, the place among them ("file.c:27: error:
 *   Failure!"): those lines are the message, up to the first that is not
 *   a comment or reads as a point itself.
 * - Check, whose usual output holds its summary line
 *   "NN%: Checks: N, Failures: N, Errors: N", describes each point
 *   "FILE:TCASE:TEST: MESSAGE" and prints among that output
 *   "FILE:LINE:F:TCASE:TEST:0: MESSAGE" for each failure (E for an
 *   error): such a point is test TEST of suite TCASE, its failure MESSAGE
 *   at FILE, at LINE when that line is there.
 * - Criterion's stream (after its "# Criterion v..." line) names each
 *   point "SUITE::TEST  (0.01s)", or "SUITE::TEST what ended it" for a
 *   crash, and lists a failure in YAML as "failures:", "- FILE:LINE: |+"
 *   and the message indented below.
 */
#include "runner/tap_in.h"

#include <ctype.h>
#include <stdint.h>
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

/* Where the text of a line of a run starts, or -1 when the line ends the
 * run: how read_block and read_comments tell their lines. */
typedef long line_text_start(const char *line, size_t length, bool trim);

/* The lines from *cursor while `start` takes them, each from where its
 * text starts, joined by line breaks into `text`; *cursor is left at the
 * first line not taken. */
static void join_lines(const char **cursor, line_text_start *start, bool trim,
                       struct tattle__buffer *text)
{
    const char *line;
    size_t length;
    for (;;) {
        const char *before = *cursor;
        if (!next_line(cursor, &line, &length))
            break;
        long at = start(line, length, trim);
        if (at < 0) {
            *cursor = before;
            break;
        }
        if (text->length > 0)
            tattle__buffer_append(text, "\n", 1);
        tattle__buffer_append(text, line + at, length - (size_t)at);
    }
}

/* A YAML block scalar's line: indented 4 spaces or more (or empty). */
static long block_text_start(const char *line, size_t length, bool trim)
{
    if (!starts_with(line, length, "    ") && length > 0)
        return -1;
    size_t at = length > 4 ? 4 : length;
    while (trim && at < length && line[at] == ' ')
        at++;
    return (long)at;
}

/* A YAML block scalar's lines (indented 4 spaces or more), without the
 * 4 spaces, or without all of their leading spaces when `trim`. */
static char *read_block(const char **cursor, bool trim)
{
    struct tattle__buffer text = {0};
    join_lines(cursor, block_text_start, trim, &text);
    tattle__buffer_append(&text, "", 0);
    return tattle__buffer_take(&text);
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
                value = read_block(cursor, false);
            } else if (value[0] == '\'' || value[0] == '"') {
                size_t n = strlen(value);
                if (n >= 2 && value[n - 1] == value[0]) {
                    memmove(value, value + 1, n - 2);
                    value[n - 2] = '\0';
                }
            }
            free(failure->message);
            failure->message = value;
        } else if (starts_with(key, rest, "- ") && !failure->message) {
            /* Criterion's list of failures: "- FILE:LINE: |+", then the
             * message indented. */
            char *item = copy_span(key + 2, rest - 2);
            tattle__gtest_find_location(item, &failure->file, &failure->line);
            bool block = strchr(item, '|') != NULL;
            free(item);
            if (block)
                failure->message = read_block(cursor, true);
        } else if (starts_with(key, rest, "file:") && !failure->file) {
            failure->file = value_after(key, rest, 5);
        } else if (starts_with(key, rest, "line:") && failure->line == 0) {
            failure->line = atoi(key + 5);
        }
    }
}

/* A comment line of cmocka's diagnostics: "#" or "# ", not a commented
 * test point. */
static long comment_text_start(const char *line, size_t length, bool trim)
{
    (void)trim;
    bool comment = starts_with(line, length, "#");
    size_t at = comment && starts_with(line, length, "# ") ? 2 : 1;
    if (!comment || starts_with(line + at, length - at, "ok") ||
        starts_with(line + at, length - at, "not ok"))
        return -1;
    return (long)at;
}

/* cmocka's diagnostics: the "# " comment lines after a point, into its
 * failure's message (and place, when one of them starts "FILE:LINE:"). */
static void read_comments(const char **cursor,
                          struct tattle__gtest_failure *failure)
{
    struct tattle__buffer text = {0};
    join_lines(cursor, comment_text_start, false, &text);
    if (text.length == 0) {
        tattle__buffer_release(&text);
        return;
    }
    tattle__buffer_append(&text, "", 0);
    failure->message = tattle__buffer_take(&text);
    tattle__gtest_find_location(failure->message, &failure->file,
                                &failure->line);
}

/* The length of the run of `text` (at most `length`) up to a character of
 * `stops`. */
static size_t span_until(const char *text, size_t length, const char *stops)
{
    size_t n = 0;
    while (n < length && !strchr(stops, text[n]))
        n++;
    return n;
}

/* Check's "FILE:TCASE:TEST: MESSAGE": the lengths of FILE, TCASE and TEST
 * (FILE without white space, with a dot; TEST a C name), or false. */
static bool is_check_description(const char *text, size_t length,
                                 size_t parts[3])
{
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        parts[i] = span_until(text + at, length - at, i == 0 ? ": \t" : ":");
        if (parts[i] == 0 || at + parts[i] >= length ||
            text[at + parts[i]] != ':')
            return false;
        at += parts[i] + 1;
    }
    if (!memchr(text, '.', parts[0]))
        return false;
    const char *test = text + parts[0] + parts[1] + 2;
    for (size_t i = 0; i < parts[2]; i++)
        if (!isalnum((unsigned char)test[i]) && test[i] != '_')
            return false;
    return at < length && text[at] == ' ';
}

/* Criterion's "SUITE::TEST  (0.01s)" or "SUITE::TEST what ended it". */
struct criterion_description {
    size_t suite, test; /* their lengths */
    uint64_t duration_us;
    size_t said; /* where what ended it starts; the length when none */
};

static bool is_criterion_description(const char *text, size_t length,
                                     struct criterion_description *found)
{
    const char *colons = memmem(text, length, "::", 2);
    if (!colons || colons == text)
        return false;
    *found = (struct criterion_description){.suite = (size_t)(colons - text)};
    if (memchr(text, ' ', found->suite))
        return false;
    size_t at = found->suite + 2;
    while (at + found->test < length &&
           (isalnum((unsigned char)text[at + found->test]) ||
            text[at + found->test] == '_'))
        found->test++;
    size_t end = at + found->test;
    if (found->test == 0 || (end < length && text[end] != ' '))
        return false;
    found->said = end;
    while (found->said < length && text[found->said] == ' ')
        found->said++;
    if (found->said < length && text[found->said] == '(' &&
        text[length - 1] == ')') {
        char *seconds =
            copy_span(text + found->said + 1, length - found->said - 2);
        found->duration_us = tattle__gtest_seconds_us(seconds);
        free(seconds);
        found->said = length;
    }
    return true;
}

/* Check's line of a failure, "FILE:LINE:F:TCASE:TEST:" (or E), in the
 * program's output `text`; 0 when it is not there. */
static int check_failure_line(const char *text, const char *file,
                              const char *suite, const char *name)
{
    size_t file_length = strlen(file);
    struct tattle__buffer after = {0};
    tattle__buffer_printf(&after, ":%s:%s:", suite, name);
    int found = 0;
    for (const char *line = text; line && *line && !found;) {
        if (strncmp(line, file, file_length) == 0 && line[file_length] == ':') {
            const char *digits = line + file_length + 1;
            char *end;
            long number = strtol(digits, &end, 10);
            if (end > digits && number > 0 && number <= INT_MAX &&
                end[0] == ':' && (end[1] == 'F' || end[1] == 'E') &&
                strncmp(end + 2, after.data, after.length) == 0)
                found = (int)number;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    tattle__buffer_release(&after);
    return found;
}

/* The frameworks whose own reading a stream gets (see the top). */
struct tap_dialect {
    bool cmocka, check, criterion;
};

/* Check's summary, "NN%: Checks: N, Failures: N, Errors: N". */
static bool is_check_summary(const char *line, size_t length)
{
    size_t at = 0;
    while (at < length && isdigit((unsigned char)line[at]))
        at++;
    return at > 0 && starts_with(line + at, length - at, "%: Checks: ") &&
           memmem(line, length, ", Failures: ", 12) &&
           memmem(line, length, ", Errors: ", 10);
}

/* Which framework's shape the whole of `text` has. */
static struct tap_dialect identify_dialect(const char *text)
{
    struct tap_dialect dialect = {0};
    const char *cursor = text;
    const char *line;
    size_t length;
    while (next_line(&cursor, &line, &length)) {
        if (starts_with(line, length, "# Criterion v"))
            dialect.criterion = true;
        else if (starts_with(line, length, "# ok - ") ||
                 starts_with(line, length, "# not ok - "))
            dialect.cmocka = true;
        else if (is_check_summary(line, length))
            dialect.check = true;
    }
    return dialect;
}

static void add_point(struct tattle__gtest_tests *tests, const char *suite,
                      bool ok, long number, const char *text, size_t length,
                      const char **cursor, struct tap_dialect dialect)
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
    size_t check_parts[3];
    struct criterion_description criterion;
    if (dialect.check && !skip && !todo &&
        is_check_description(text, described, check_parts)) {
        /* Check's point: the description holds where and what. */
        free(test->suite);
        free(test->name);
        test->suite = copy_span(text + check_parts[0] + 1, check_parts[1]);
        test->name = copy_span(text + check_parts[0] + check_parts[1] + 2,
                               check_parts[2]);
        size_t said = check_parts[0] + check_parts[1] + check_parts[2] + 4;
        if (!ok && !failure.message) {
            failure.message = copy_span(text + said, described - said);
            free(failure.file);
            failure.file = copy_span(text, check_parts[0]);
        }
    } else if (dialect.criterion &&
               is_criterion_description(text, described, &criterion)) {
        /* Criterion's point: SUITE::TEST, then its time or what ended it. */
        free(test->suite);
        free(test->name);
        test->suite = copy_span(text, criterion.suite);
        test->name = copy_span(text + criterion.suite + 2, criterion.test);
        test->duration_us = criterion.duration_us;
        if (!ok && !failure.message && criterion.said < described)
            failure.message =
                copy_span(text + criterion.said, described - criterion.said);
    } else if (dialect.cmocka && !ok && !skip && !todo && !failure.message) {
        read_comments(cursor, &failure);
    }
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
    struct tap_dialect dialect = identify_dialect(stdout_text);
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
        add_point(tests, suite, ok, number, line + at, length - at, &cursor,
                  dialect);
    }
    for (size_t i = 0; dialect.check && i < tests->count; i++) {
        struct tattle__gtest_test *test = &tests->tests[i];
        if (test->failure_count == 1 && test->failures[0].file &&
            test->failures[0].line == 0)
            test->failures[0].line = check_failure_line(
                stdout_text, test->failures[0].file, test->suite, test->name);
    }
    if (*planned < 0 || tests->count == 0) {
        tattle__gtest_tests_release(tests);
        return false;
    }
    return true;
}
