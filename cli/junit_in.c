/*
 * junit_in.c — reading the JUnit XML report a wrapped program wrote, for
 * `tattle run --junit-in FILE`. Only the `tattle` command links it (and
 * libxml2): cli/main.c hands tattle__junit_read to the runner.
 *
 * The report is read with libxml2's SAX2 parser, event by event: no tree
 * is built, nothing the file holds is expanded, and memory follows what
 * is kept of the test case being read. Each <testcase> becomes a test:
 * its suite the `classname` attribute (pytest, Ant), else the name of the
 * nearest <testsuite> around it (cmocka, Criterion), else the program's
 * name; its name the `name` attribute; its duration `time` in seconds;
 * its definition `file` and `line` when given. A <failure> is a failed
 * assertion and an <error> an error, each with its `message` attribute
 * and its text (Criterion puts "1 assertion(s) failed." in the one and
 * "file.c:4: what failed" in the other; pytest a summary and the
 * traceback), and the place it happened from its own `file` and `line`
 * attributes, else the first line of its text that starts "FILE:LINE:"
 * (cmocka's "file.c:9: error: Failure!"), else the test case's. A
 * <skipped> is skipped with its `message` or text as the reason;
 * <system-out> and <system-err> are the test's output.
 *
 * What is kept of a test case is bounded as a captured output stream is
 * (runner/capture.h): its <system-out> and <system-err>, each failure's
 * message and text, keep their first and last bytes with the omission
 * marked ("[... tattle: N bytes omitted ...]"), and past
 * JUNIT_FAILURES_KEPT failures the rest are counted, not kept; a name,
 * classname, file or type keeps its first JUNIT_NAME_MAX bytes, on one
 * line with no mark (each test case of a suite copies the suite's name).
 * Past JUNIT_KEPT_MAX bytes kept of the whole report it is refused. Text is
 * taken as the parser passes it on, so a test case with more output than
 * libxml2's bound on one text node (10 MB) is still read: that bound is
 * lifted (XML_PARSE_HUGE), the file being at most 64 MiB and the nesting
 * bounded here (JUNIT_DEPTH_MAX).
 *
 * The file is the wrapped program's, so it is read as hostile input: no
 * network access, no entity substitution and no entity looked up (no
 * getEntity handler: only XML's five predefined ones exist), no DTD
 * loaded, and a document type declaration refused outright wherever it
 * stands in the prolog (JUnit reports have none; it is the way in for
 * external entities and for the exponential expansion of nested ones).
 * It is read as UTF-8 whatever its XML declaration says, and refused when
 * its first bytes say another encoding: no converter the file names
 * (iconv) runs on it, and the bytes the parser reads are the ones looked
 * at for a document type declaration. A start tag of more than
 * JUNIT_ATTRIBUTES_MAX attributes is refused before parsing too (libxml2
 * takes time growing with their square). A report that is not well-formed,
 * or that the parser stopped in before its end, is a problem naming the
 * file and the line:column libxml2 stopped at.
 */
#include "cli/junit_in.h"

#include <libxml/SAX2.h>
#include <libxml/encoding.h>
#include <libxml/parser.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/utf8.h"
#include "runner/capture.h"

enum {
    /* The failures and errors kept of one test case; the rest are
     * counted in the last one's message. */
    JUNIT_FAILURES_KEPT = 100,
    /* The deepest nesting of elements read (libxml2's own bound, 256,
     * is lifted with the bound on text). */
    JUNIT_DEPTH_MAX = 256,
    /* The most bytes kept of a name-like attribute (a suite's or test
     * case's name, a classname, a file, a type), cut at a character's
     * start with no mark: a test id stays one line of sane length, and
     * the suite name each test case of a suite copies stays small. */
    JUNIT_NAME_MAX = 1024,
    /* The most attributes of one start tag: libxml2 (2.9) checks each
     * against every other for a repeat, in time growing with the square
     * of their count (a megabyte of them takes seconds, eight megabytes
     * minutes). */
    JUNIT_ATTRIBUTES_MAX = 1000,
};

/* The most bytes of names, messages and output kept of one report, the
 * suite and name of each test counted twice (its id repeats them): past
 * it the report is refused. Each of the at most 1,000,000 test cases
 * keeps little, but a short <testcase/> inherits its suite's name and
 * may carry a hundred failures. */
#define JUNIT_KEPT_MAX ((size_t)256 * 1024 * 1024)

/* A <testsuite> (or <testsuites>) still open around the parser, at
 * `depth`, and its name. */
struct open_suite {
    int depth;
    char *name;
};

/* The child of a <testcase> whose text is being taken. */
enum collecting {
    COLLECTING_NOTHING,
    COLLECTING_FAILURE,
    COLLECTING_SKIPPED,
    COLLECTING_STDOUT,
    COLLECTING_STDERR,
};

struct reading {
    const char *path;
    const char *default_suite;
    struct tattle__gtest_tests *tests;
    size_t capacity;
    xmlParserCtxtPtr parser;
    int depth; /* of the innermost open element; 0 outside the root */
    bool root_seen;
    struct open_suite *suites;
    size_t suite_count;
    /* The <testcase> being read (the last of `tests`), at this depth; 0
     * when none is. */
    int testcase_depth;
    bool skipped;
    size_t failures_omitted;
    /* Its child whose text is being taken, at this depth. */
    enum collecting collecting;
    int collecting_depth;
    bool collecting_error; /* an <error>, not a <failure> */
    char *summary;         /* its `message` attribute, or NULL */
    char *type;            /* its `type` attribute, or NULL */
    char *place_file;      /* its own `file` attribute, or NULL */
    int place_line;
    struct tattle__capture text;       /* the child's text */
    struct tattle__capture printed[2]; /* <system-out>, <system-err> */
    bool has_printed[2];
    struct tattle__capture attribute; /* an attribute's value, capped */
    struct tattle__buffer problem;    /* the first one, empty while none */
    /* The bytes of names, messages and output kept so far. */
    size_t kept;
};

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* What `capture` kept, as a string the caller frees. */
static char *kept_text(const struct tattle__capture *capture)
{
    struct tattle__buffer text = {0};
    struct tattle_output output;
    tattle__capture_render(capture, &output, &text);
    return tattle__buffer_take(&text);
}

/* `text` without the white space around it, in place. */
static char *trim(char *text)
{
    size_t start = 0, length = strlen(text);
    while (start < length && is_space(text[start]))
        start++;
    while (length > start && is_space(text[length - 1]))
        length--;
    memmove(text, text + start, length - start);
    text[length - start] = '\0';
    return text;
}

/* The attribute `name` (without a namespace) among SAX2's attributes
 * (localname, prefix, URI, value, end of value: five pointers each),
 * trimmed and capped (the caller frees it), or NULL. Entities left
 * unsubstituted, libxml2 hands an '&' in a value on as "&#38;": it is
 * turned back. */
static char *attribute(struct reading *reading, const xmlChar **attributes,
                       int count, const char *name)
{
    for (int i = 0; i < count; i++) {
        const xmlChar **one = attributes + 5 * i;
        if (one[1] || strcmp((const char *)one[0], name) != 0)
            continue;
        const char *value = (const char *)one[3];
        const char *end = (const char *)one[4];
        while (value < end && is_space(*value))
            value++;
        while (end > value && is_space(end[-1]))
            end--;
        tattle__capture_reset(&reading->attribute);
        while (value < end) {
            const char *ampersand =
                memmem(value, (size_t)(end - value), "&#38;", 5);
            const char *stop = ampersand ? ampersand : end;
            tattle__capture_feed(&reading->attribute, value,
                                 (size_t)(stop - value));
            if (!ampersand)
                break;
            tattle__capture_feed(&reading->attribute, "&", 1);
            value = ampersand + 5;
        }
        return kept_text(&reading->attribute);
    }
    return NULL;
}

/* The name-like attribute `name`, as attribute() gives it, cut to
 * JUNIT_NAME_MAX bytes at the start of a character. */
static char *name_attribute(struct reading *reading, const xmlChar **attributes,
                            int count, const char *name)
{
    char *value = attribute(reading, attributes, count, name);
    if (value && strlen(value) > JUNIT_NAME_MAX)
        value[tattle__utf8_cut_length(value, JUNIT_NAME_MAX)] = '\0';
    return value;
}

/* "123" as a line number; 0 for what is not one. */
static int line_number(const char *text)
{
    if (!text || *text < '0' || *text > '9')
        return 0;
    char *end;
    long value = strtol(text, &end, 10);
    return *end == '\0' && value > 0 && value <= 100000000 ? (int)value : 0;
}

/* The file and line an element names in its own attributes (pytest,
 * Criterion): true and *file malloc'd when it names a file. */
static bool named_place(struct reading *reading, const xmlChar **attributes,
                        int count, char **file, int *line)
{
    char *named = name_attribute(reading, attributes, count, "file");
    if (!named || !*named) {
        free(named);
        return false;
    }
    char *number = name_attribute(reading, attributes, count, "line");
    *file = named;
    *line = line_number(number);
    free(number);
    return true;
}

/* Stops the parser with a problem at the place it has reached. */
TATTLE__PRINTF(2, 3)
static void stop(struct reading *reading, const char *format, ...)
{
    if (reading->problem.length == 0) {
        va_list arguments;
        va_start(arguments, format);
        tattle__buffer_vprintf(&reading->problem, format, arguments);
        va_end(arguments);
    }
    xmlStopParser(reading->parser);
}

/* Counts `bytes` more kept of the report; stops the parser past
 * JUNIT_KEPT_MAX. */
static void keep(struct reading *reading, size_t bytes)
{
    reading->kept += bytes;
    if (reading->kept > JUNIT_KEPT_MAX)
        stop(reading,
             "%s:%d:%d: the JUnit report holds more than %zu MiB of names, "
             "messages and output: refused",
             reading->path, xmlSAX2GetLineNumber(reading->parser),
             xmlSAX2GetColumnNumber(reading->parser),
             JUNIT_KEPT_MAX / (1024 * 1024));
}

/* The length of `text`, 0 for NULL. */
static size_t length_of(const char *text)
{
    return text ? strlen(text) : 0;
}

/* The name of the nearest suite open around the parser, or NULL. */
static const char *enclosing_suite(const struct reading *reading)
{
    for (size_t i = reading->suite_count; i > 0; i--)
        if (reading->suites[i - 1].name && *reading->suites[i - 1].name)
            return reading->suites[i - 1].name;
    return NULL;
}

static struct tattle__gtest_test *current_test(struct reading *reading)
{
    return &reading->tests->tests[reading->tests->count - 1];
}

static void start_testcase(struct reading *reading, const xmlChar **attributes,
                           int count)
{
    struct tattle__gtest_tests *tests = reading->tests;
    if (tests->count == TATTLE__JUNIT_TESTCASES_MAX) {
        stop(reading,
             "%s: the JUnit report holds more than %d test cases: refused",
             reading->path, TATTLE__JUNIT_TESTCASES_MAX);
        return;
    }
    if (tests->count == reading->capacity) {
        reading->capacity = reading->capacity ? 2 * reading->capacity : 64;
        tests->tests = tattle__realloc(tests->tests, reading->capacity *
                                                         sizeof *tests->tests);
    }
    struct tattle__gtest_test *test = &tests->tests[tests->count++];
    *test = (struct tattle__gtest_test){
        .number = (long)tests->count,
        .state = TATTLE_STATE_PASSED,
        .started = true,
        .finished = true,
    };
    char *classname = name_attribute(reading, attributes, count, "classname");
    const char *suite =
        classname && *classname ? classname : enclosing_suite(reading);
    test->suite = tattle__strdup(suite ? suite : reading->default_suite);
    free(classname);
    test->name = name_attribute(reading, attributes, count, "name");
    if (!test->name)
        test->name = tattle__strdup("");
    char *time = name_attribute(reading, attributes, count, "time");
    test->duration_us = tattle__gtest_seconds_us(time);
    free(time);
    named_place(reading, attributes, count, &test->file, &test->line);
    size_t id_length = strlen(test->suite) + strlen(test->name);
    keep(reading, 2 * id_length + length_of(test->file));
    reading->testcase_depth = reading->depth;
    reading->skipped = false;
    reading->failures_omitted = 0;
    for (int stream = 0; stream < 2; stream++) {
        reading->has_printed[stream] = false;
        tattle__capture_reset(&reading->printed[stream]);
    }
}

static void start_testcase_child(struct reading *reading, const char *name,
                                 const xmlChar **attributes, int count)
{
    struct tattle__gtest_test *test = current_test(reading);
    enum collecting collecting = COLLECTING_NOTHING;
    if (strcmp(name, "failure") == 0 || strcmp(name, "error") == 0) {
        if (test->failure_count == JUNIT_FAILURES_KEPT) {
            reading->failures_omitted++;
            return;
        }
        collecting = COLLECTING_FAILURE;
        reading->collecting_error = name[0] == 'e';
        reading->type = name_attribute(reading, attributes, count, "type");
        if (!named_place(reading, attributes, count, &reading->place_file,
                         &reading->place_line))
            reading->place_file = NULL;
    } else if (strcmp(name, "skipped") == 0 && !reading->skipped) {
        reading->skipped = true;
        collecting = COLLECTING_SKIPPED;
    } else if (strcmp(name, "system-out") == 0) {
        collecting = COLLECTING_STDOUT;
        reading->has_printed[0] = true;
    } else if (strcmp(name, "system-err") == 0) {
        collecting = COLLECTING_STDERR;
        reading->has_printed[1] = true;
    } else {
        return;
    }
    if (collecting == COLLECTING_FAILURE || collecting == COLLECTING_SKIPPED)
        reading->summary = attribute(reading, attributes, count, "message");
    reading->collecting = collecting;
    reading->collecting_depth = reading->depth;
    tattle__capture_reset(&reading->text);
}

static void add_failure(struct reading *reading)
{
    struct tattle__gtest_test *test = current_test(reading);
    test->failures = tattle__realloc(
        test->failures, (test->failure_count + 1) * sizeof *test->failures);
    struct tattle__gtest_failure *failure =
        &test->failures[test->failure_count++];
    *failure =
        (struct tattle__gtest_failure){.is_error = reading->collecting_error};
    const char *summary = reading->summary;
    char *text = trim(kept_text(&reading->text));
    /* The summary, then the text when it says more. */
    struct tattle__buffer message = {0};
    if (summary && *summary)
        tattle__buffer_append_string(&message, summary);
    if (*text && (!summary || strcmp(summary, text) != 0)) {
        if (message.length > 0)
            tattle__buffer_append(&message, "\n", 1);
        tattle__buffer_append_string(&message, text);
    }
    if (message.length == 0) {
        const char *type = reading->type;
        tattle__buffer_printf(
            &message, "%s%s%s", failure->is_error ? "error" : "failure",
            type && *type ? " of type " : "", type && *type ? type : "");
    }
    failure->message = tattle__buffer_take(&message);
    if (reading->place_file) {
        failure->file = reading->place_file;
        failure->line = reading->place_line;
        reading->place_file = NULL;
    } else {
        tattle__gtest_find_location(text, &failure->file, &failure->line);
    }
    if (!failure->file && test->file) {
        failure->file = tattle__strdup(test->file);
        failure->line = test->line;
    }
    keep(reading, strlen(failure->message) + length_of(failure->file));
    free(text);
}

static void end_testcase_child(struct reading *reading)
{
    if (reading->collecting == COLLECTING_FAILURE) {
        add_failure(reading);
    } else if (reading->collecting == COLLECTING_SKIPPED) {
        char *reason = reading->summary;
        reading->summary = NULL;
        if (!reason || !*reason) {
            free(reason);
            reason = trim(kept_text(&reading->text));
        }
        if (!*reason) {
            free(reason);
            reason = tattle__strdup("skipped in the JUnit report");
        }
        current_test(reading)->skip_reason = reason;
        keep(reading, strlen(reason));
    }
    free(reading->summary);
    free(reading->type);
    free(reading->place_file);
    reading->summary = reading->type = reading->place_file = NULL;
    reading->collecting = COLLECTING_NOTHING;
}

static void end_testcase(struct reading *reading)
{
    struct tattle__gtest_test *test = current_test(reading);
    for (int stream = 0; stream < 2; stream++) {
        if (!reading->has_printed[stream])
            continue;
        struct tattle__buffer text = {0};
        struct tattle_output output;
        tattle__capture_render(&reading->printed[stream], &output, &text);
        if (stream == 0) {
            test->stdout_text = tattle__buffer_take(&text);
            test->stdout_bytes = output.bytes;
            test->stdout_cut = output.truncated;
        } else {
            test->stderr_text = tattle__buffer_take(&text);
            test->stderr_bytes = output.bytes;
            test->stderr_cut = output.truncated;
        }
        keep(reading,
             length_of(stream == 0 ? test->stdout_text : test->stderr_text));
    }
    if (reading->failures_omitted > 0) {
        struct tattle__gtest_failure *last =
            &test->failures[test->failure_count - 1];
        struct tattle__buffer message = {0};
        tattle__buffer_printf(&message,
                              "%s\n[... tattle: %zu more failures and "
                              "errors of this test case omitted ...]",
                              last->message, reading->failures_omitted);
        free(last->message);
        last->message = tattle__buffer_take(&message);
    }
    if (test->failure_count > 0) {
        test->state = TATTLE_STATE_FAILED;
        free(test->skip_reason);
        test->skip_reason = NULL;
    } else if (reading->skipped) {
        test->state = TATTLE_STATE_SKIPPED;
    }
    reading->testcase_depth = 0;
}

static void open_suite(struct reading *reading, const xmlChar **attributes,
                       int count)
{
    reading->suites = tattle__realloc(
        reading->suites, (reading->suite_count + 1) * sizeof *reading->suites);
    reading->suites[reading->suite_count++] = (struct open_suite){
        .depth = reading->depth,
        .name = name_attribute(reading, attributes, count, "name"),
    };
}

static void start_element(void *data, const xmlChar *local_name,
                          const xmlChar *prefix, const xmlChar *uri,
                          int namespace_count, const xmlChar **namespaces,
                          int attribute_count, int defaulted_count,
                          const xmlChar **attributes)
{
    (void)prefix, (void)uri, (void)namespace_count, (void)namespaces,
        (void)defaulted_count;
    struct reading *reading = data;
    if (reading->problem.length > 0)
        return;
    const char *name = (const char *)local_name;
    int depth = ++reading->depth;
    if (depth > JUNIT_DEPTH_MAX) {
        stop(reading,
             "%s:%d:%d: the JUnit report nests elements deeper than %d: "
             "refused",
             reading->path, xmlSAX2GetLineNumber(reading->parser),
             xmlSAX2GetColumnNumber(reading->parser), JUNIT_DEPTH_MAX);
        return;
    }
    bool is_suite =
        strcmp(name, "testsuite") == 0 || strcmp(name, "testsuites") == 0;
    if (!reading->root_seen) {
        reading->root_seen = true;
        if (!is_suite) {
            stop(reading,
                 "%s: not a JUnit report: its root element is <%s>, not "
                 "<testsuites> or <testsuite>",
                 reading->path, name);
            return;
        }
    }
    if (reading->testcase_depth > 0) {
        if (depth == reading->testcase_depth + 1)
            start_testcase_child(reading, name, attributes, attribute_count);
    } else if (is_suite) {
        open_suite(reading, attributes, attribute_count);
    } else if (strcmp(name, "testcase") == 0) {
        start_testcase(reading, attributes, attribute_count);
    }
}

static void end_element(void *data, const xmlChar *local_name,
                        const xmlChar *prefix, const xmlChar *uri)
{
    (void)local_name, (void)prefix, (void)uri;
    struct reading *reading = data;
    if (reading->problem.length > 0)
        return;
    int depth = reading->depth--;
    if (reading->collecting != COLLECTING_NOTHING &&
        depth == reading->collecting_depth)
        end_testcase_child(reading);
    else if (depth == reading->testcase_depth)
        end_testcase(reading);
    else if (reading->suite_count > 0 &&
             reading->suites[reading->suite_count - 1].depth == depth)
        free(reading->suites[--reading->suite_count].name);
}

/* Text and CDATA sections, in pieces: kept when a child of a test case
 * that is read wants it. */
static void characters(void *data, const xmlChar *text, int length)
{
    struct reading *reading = data;
    if (reading->problem.length > 0 || length <= 0)
        return;
    switch (reading->collecting) {
    case COLLECTING_NOTHING:
        return;
    case COLLECTING_FAILURE:
    case COLLECTING_SKIPPED:
        tattle__capture_feed(&reading->text, text, (size_t)length);
        return;
    case COLLECTING_STDOUT:
    case COLLECTING_STDERR:
        tattle__capture_feed(
            &reading->printed[reading->collecting == COLLECTING_STDERR], text,
            (size_t)length);
        return;
    }
}

/* A document type declaration, met before its internal subset is read.
 * has_doctype() finds it first: it reads the bytes the parser reads, the
 * text being UTF-8 (is_utf8()). This stays as a second guard. */
static void refuse_doctype(void *data, const xmlChar *name,
                           const xmlChar *external_id, const xmlChar *system_id)
{
    (void)name, (void)external_id, (void)system_id;
    struct reading *reading = data;
    stop(reading,
         "%s: a JUnit report has no document type declaration "
         "(<!DOCTYPE>): refused",
         reading->path);
}

/* Notes libxml2's first error, with where it stopped. */
#if LIBXML_VERSION >= 21200
static void note_parse_error(void *data, const xmlError *error)
#else
static void note_parse_error(void *data, xmlErrorPtr error)
#endif
{
    struct reading *reading = data;
    if (reading->problem.length > 0 || !error || error->level < XML_ERR_ERROR)
        return;
    const char *message = error->message ? error->message : "parse error";
    size_t length = strlen(message);
    while (length > 0 && is_space(message[length - 1]))
        length--;
    tattle__buffer_printf(&reading->problem,
                          "%s:%d:%d: the JUnit report is not well-formed "
                          "XML: ",
                          reading->path, error->line, error->int2);
    /* libxml2 may say more on a second line ("Bytes: 0x81 ..."): the
     * problem stays one line, its lines joined by "; ". */
    for (size_t at = 0; at < length; at++) {
        if (message[at] == '\n')
            tattle__buffer_append(&reading->problem, "; ", 2);
        else if (message[at] != '\r')
            tattle__buffer_append(&reading->problem, &message[at], 1);
    }
}

/* Whether the prolog of `text` (before its first element: a byte order
 * mark, the XML declaration, processing instructions, comments, white
 * space) holds a document type declaration. Looked for before parsing;
 * the parser meets it too (refuse_doctype) before anything it declares. */
static bool has_doctype(const char *text)
{
    if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
        text += 3;
    for (;;) {
        while (is_space(*text))
            text++;
        const char *end = NULL;
        if (strncmp(text, "<?", 2) == 0)
            end = strstr(text + 2, "?>");
        else if (strncmp(text, "<!--", 4) == 0)
            end = strstr(text + 4, "-->");
        else
            return strncmp(text, "<!DOCTYPE", 9) == 0;
        if (!end)
            return false; /* the parser says what is wrong */
        text = strchr(end, '>') + 1;
    }
}

/* Moves `*text` past the next `end` (or to the end of the text), counting
 * the lines it passes in `*line`. Its time grows with the bytes passed
 * only (strstr() would do, but a sanitizer's strstr measures the whole
 * rest of the text first, making the scan of a report quadratic). */
static void skip_past(const char **text, const char *end, int *line)
{
    size_t end_length = strlen(end);
    const char *c = *text;
    for (; *c; c++) {
        if (*c == end[0] && strncmp(c, end, end_length) == 0) {
            c += end_length;
            break;
        }
        if (*c == '\n')
            (*line)++;
    }
    *text = c;
}

/* The line of the first start tag of `text` with more than
 * JUNIT_ATTRIBUTES_MAX attributes (an '=' outside quotes), or 0 when
 * there is none; comments, CDATA sections, processing instructions and
 * other markup are passed over. Looked for before parsing, in time
 * growing with the text's length. */
static int crowded_start_tag(const char *text)
{
    int line = 1;
    while (*text) {
        if (*text != '<') {
            if (*text++ == '\n')
                line++;
            continue;
        }
        if (strncmp(text, "<!--", 4) == 0) {
            skip_past(&text, "-->", &line);
        } else if (strncmp(text, "<![CDATA[", 9) == 0) {
            skip_past(&text, "]]>", &line);
        } else if (text[1] == '?') {
            skip_past(&text, "?>", &line);
        } else if (text[1] == '!' || text[1] == '/') {
            skip_past(&text, ">", &line);
        } else {
            int tag_line = line, attributes = 0;
            char quote = '\0';
            for (text++; *text && (quote || *text != '>'); text++) {
                if (*text == '\n')
                    line++;
                else if (quote && *text == quote)
                    quote = '\0';
                else if (!quote && (*text == '"' || *text == '\''))
                    quote = *text;
                else if (!quote && *text == '=' &&
                         ++attributes > JUNIT_ATTRIBUTES_MAX)
                    return tag_line;
            }
        }
    }
    return 0;
}

/* Whether the first bytes of `text` leave it UTF-8 (or ASCII), as
 * libxml2 tells an encoding from them: a UTF-16, UCS-4 or EBCDIC report
 * would be decoded by a converter the file chooses (iconv), and read as
 * has_doctype() does not see it. The encoding its XML declaration names
 * is ignored (XML_PARSE_IGNORE_ENC): the text is read as UTF-8. */
static bool is_utf8(const char *text, size_t length)
{
    xmlCharEncoding encoding = xmlDetectCharEncoding(
        (const unsigned char *)text, length < 4 ? (int)length : 4);
    return encoding == XML_CHAR_ENCODING_NONE ||
           encoding == XML_CHAR_ENCODING_UTF8;
}

/* Parses `text` (`length` bytes) into `reading`. */
static void parse(struct reading *reading, const char *text, size_t length)
{
    xmlSAXHandler handler = {
        .initialized = XML_SAX2_MAGIC,
        .startElementNs = start_element,
        .endElementNs = end_element,
        .characters = characters,
        .cdataBlock = characters,
        .internalSubset = refuse_doctype,
        .serror = note_parse_error,
    };
    reading->parser =
        xmlCreatePushParserCtxt(&handler, reading, NULL, 0, reading->path);
    if (!reading->parser) {
        tattle__buffer_printf(&reading->problem,
                              "%s: the JUnit report cannot be read",
                              reading->path);
        return;
    }
    /* No XML_PARSE_NOENT (entities stay unsubstituted), no
     * XML_PARSE_DTDLOAD; XML_PARSE_HUGE lifts the bound on one text
     * node, which the captures make harmless. */
    xmlCtxtUseOptions(reading->parser,
                      XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_IGNORE_ENC);
    for (int stream = 0; stream < 2; stream++)
        tattle__capture_init(&reading->printed[stream], TATTLE__CAPTURE_HEAD,
                             TATTLE__CAPTURE_TAIL);
    tattle__capture_init(&reading->text, TATTLE__CAPTURE_HEAD,
                         TATTLE__CAPTURE_TAIL);
    tattle__capture_init(&reading->attribute, TATTLE__CAPTURE_HEAD,
                         TATTLE__CAPTURE_TAIL);
    /* In pieces, as a stream of any size would come. The report is read
     * to its end only when the last piece was taken without a complaint
     * and every element closed: libxml2 may halt on a piece (an encoding
     * error, for one) with the document still counted well-formed. */
    enum { PIECE = 1 << 20 };
    size_t done = 0;
    bool read_to_end = false;
    do {
        size_t piece = length - done < PIECE ? length - done : PIECE;
        bool last = done + piece == length;
        if (xmlParseChunk(reading->parser, text + done, (int)piece, last) != 0)
            break;
        done += piece;
        read_to_end = last;
    } while (done < length && reading->problem.length == 0);
    if (reading->problem.length == 0 && !reading->parser->wellFormed)
        tattle__buffer_printf(&reading->problem,
                              "%s: the JUnit report is not well-formed XML",
                              reading->path);
    else if (reading->problem.length == 0 &&
             (!read_to_end || reading->depth != 0))
        tattle__buffer_printf(&reading->problem,
                              "%s:%d:%d: the JUnit report could not be read "
                              "to its end",
                              reading->path,
                              xmlSAX2GetLineNumber(reading->parser),
                              xmlSAX2GetColumnNumber(reading->parser));
    else if (reading->problem.length == 0 && !reading->root_seen)
        tattle__buffer_printf(&reading->problem,
                              "%s: the JUnit report holds no element",
                              reading->path);
    if (reading->collecting != COLLECTING_NOTHING)
        end_testcase_child(reading); /* frees what it holds */
    xmlFreeParserCtxt(reading->parser);
    for (int stream = 0; stream < 2; stream++)
        tattle__capture_release(&reading->printed[stream]);
    tattle__capture_release(&reading->text);
    tattle__capture_release(&reading->attribute);
}

enum tattle__junit_read_status
tattle__junit_read(const char *path, const char *default_suite,
                   struct tattle__gtest_tests *tests, char **problem)
{
    *tests = (struct tattle__gtest_tests){0};
    *problem = NULL;
    const char *why_not;
    char *text = tattle__gtest_read_file(path, &why_not);
    if (!text && !why_not)
        return TATTLE__JUNIT_MISSING;
    int crowded_line;
    struct reading reading = {
        .path = path,
        .default_suite = default_suite,
        .tests = tests,
    };
    if (!text)
        tattle__buffer_printf(&reading.problem,
                              "%s: the JUnit report is not read: %s", path,
                              why_not);
    else if (!is_utf8(text, strlen(text)))
        tattle__buffer_printf(&reading.problem,
                              "%s: the JUnit report is not read: it is not "
                              "UTF-8 (its first bytes say another encoding)",
                              path);
    else if (has_doctype(text))
        tattle__buffer_printf(&reading.problem,
                              "%s: a JUnit report has no document type "
                              "declaration (<!DOCTYPE>): refused",
                              path);
    else if ((crowded_line = crowded_start_tag(text)) > 0)
        tattle__buffer_printf(&reading.problem,
                              "%s:%d: the JUnit report has a start tag with "
                              "more than %d attributes: refused",
                              path, crowded_line, JUNIT_ATTRIBUTES_MAX);
    else
        parse(&reading, text, strlen(text));
    free(text);
    while (reading.suite_count > 0)
        free(reading.suites[--reading.suite_count].name);
    free(reading.suites);
    if (reading.problem.length > 0) {
        tattle__gtest_tests_release(tests);
        *problem = tattle__buffer_take(&reading.problem);
        return TATTLE__JUNIT_BAD;
    }
    return TATTLE__JUNIT_READ;
}
