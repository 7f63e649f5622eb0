/*
 * junit_in.c — reading the JUnit XML report a wrapped program wrote.
 *
 * The report is read with libxml2's streaming reader, one <testcase> at a
 * time (its subtree expanded, then let go), so memory follows one test
 * case, not the whole document. Each becomes a test: its suite the
 * `classname` attribute (pytest, Ant), else the name of the nearest
 * <testsuite> around it (cmocka, Criterion), else the program's name; its
 * name the `name` attribute; its duration `time` in seconds; its
 * definition `file` and `line` when given. A <failure> is a failed
 * assertion and an <error> an error, each with its `message` attribute
 * and its text (Criterion puts "1 assertion(s) failed." in the one and
 * "file.c:4: what failed" in the other; pytest a summary and the
 * traceback), and the place it happened from its own `file` and `line`
 * attributes, else the first line of its text that starts "FILE:LINE:"
 * (cmocka's "file.c:9: error: Failure!"), else the test case's. A
 * <skipped> is skipped with its `message` or text as the reason;
 * <system-out> and <system-err> are the test's output.
 *
 * The file is the wrapped program's, so it is read as hostile input: no
 * network access, no entity substitution, no DTD loaded, and a document
 * type declaration refused outright (JUnit reports have none; it is the
 * way in for external entities and for the exponential expansion of
 * nested ones). A report that is not well-formed is a problem naming the
 * file and the line:column libxml2 stopped at.
 */
#include "cli/junit_in.h"

#include <libxml/xmlreader.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"

/* A <testsuite> (or <testsuites>) still open around the reader, at
 * `depth`, and its name. */
struct open_suite {
    int depth;
    char *name;
};

struct reading {
    const char *path;
    const char *default_suite;
    struct tattle__gtest_tests *tests;
    size_t capacity;
    struct open_suite *suites;
    size_t suite_count;
    struct tattle__buffer problem; /* the first one, empty while none */
};

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A copy of `text` without the white space around it; NULL for NULL. */
static char *trimmed_copy(const char *text)
{
    if (!text)
        return NULL;
    while (is_space(*text))
        text++;
    size_t length = strlen(text);
    while (length > 0 && is_space(text[length - 1]))
        length--;
    char *copy = tattle__malloc(length + 1);
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

/* An attribute of `node` (trimmed, the caller frees it), or NULL. */
static char *node_attribute(xmlNodePtr node, const char *name)
{
    xmlChar *value = xmlGetProp(node, (const xmlChar *)name);
    char *copy = trimmed_copy((const char *)value);
    xmlFree(value);
    return copy;
}

/* The text inside `node` (trimmed, the caller frees it), "" when none. */
static char *node_text(xmlNodePtr node)
{
    xmlChar *content = xmlNodeGetContent(node);
    char *copy = trimmed_copy(content ? (const char *)content : "");
    xmlFree(content);
    return copy;
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
static bool node_place(xmlNodePtr node, char **file, int *line)
{
    char *named = node_attribute(node, "file");
    if (!named || !*named) {
        free(named);
        return false;
    }
    char *number = node_attribute(node, "line");
    *file = named;
    *line = line_number(number);
    free(number);
    return true;
}

static void add_failure(struct tattle__gtest_test *test, xmlNodePtr node,
                        bool is_error)
{
    test->failures = tattle__realloc(
        test->failures, (test->failure_count + 1) * sizeof *test->failures);
    struct tattle__gtest_failure *failure =
        &test->failures[test->failure_count++];
    *failure = (struct tattle__gtest_failure){.is_error = is_error};
    char *summary = node_attribute(node, "message");
    char *text = node_text(node);
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
        char *type = node_attribute(node, "type");
        tattle__buffer_printf(
            &message, "%s%s%s", is_error ? "error" : "failure",
            type && *type ? " of type " : "", type && *type ? type : "");
        free(type);
    }
    failure->message = tattle__buffer_take(&message);
    if (!node_place(node, &failure->file, &failure->line))
        tattle__gtest_find_location(text, &failure->file, &failure->line);
    if (!failure->file && test->file) {
        failure->file = tattle__strdup(test->file);
        failure->line = test->line;
    }
    free(summary);
    free(text);
}

/* Appends `node`'s text to `output` (several <system-out> elements add
 * up). */
static void add_output(struct tattle__buffer *output, xmlNodePtr node)
{
    xmlChar *content = xmlNodeGetContent(node);
    if (content)
        tattle__buffer_append_string(output, (const char *)content);
    xmlFree(content);
}

/* The name of the nearest suite open around depth `depth`, or NULL. */
static const char *enclosing_suite(const struct reading *reading)
{
    for (size_t i = reading->suite_count; i > 0; i--)
        if (reading->suites[i - 1].name && *reading->suites[i - 1].name)
            return reading->suites[i - 1].name;
    return NULL;
}

static void read_testcase(struct reading *reading, xmlTextReaderPtr reader)
{
    xmlNodePtr node = xmlTextReaderExpand(reader);
    if (!node)
        return; /* the parse error it met is the problem */
    struct tattle__gtest_tests *tests = reading->tests;
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
    char *classname = node_attribute(node, "classname");
    const char *suite =
        classname && *classname ? classname : enclosing_suite(reading);
    test->suite = tattle__strdup(suite ? suite : reading->default_suite);
    free(classname);
    test->name = node_attribute(node, "name");
    if (!test->name)
        test->name = tattle__strdup("");
    char *time = node_attribute(node, "time");
    test->duration_us = tattle__gtest_seconds_us(time);
    free(time);
    node_place(node, &test->file, &test->line);
    bool skipped = false;
    struct tattle__buffer printed[2] = {{0}, {0}}; /* stdout, stderr */
    bool has_printed[2] = {false, false};
    for (xmlNodePtr child = node->children; child; child = child->next) {
        if (child->type != XML_ELEMENT_NODE)
            continue;
        const char *name = (const char *)child->name;
        if (strcmp(name, "failure") == 0 || strcmp(name, "error") == 0) {
            add_failure(test, child, name[0] == 'e');
        } else if (strcmp(name, "skipped") == 0 && !skipped) {
            skipped = true;
            char *reason = node_attribute(child, "message");
            if (!reason || !*reason) {
                free(reason);
                reason = node_text(child);
            }
            if (!*reason) {
                free(reason);
                reason = tattle__strdup("skipped in the JUnit report");
            }
            test->skip_reason = reason;
        } else if (strcmp(name, "system-out") == 0 ||
                   strcmp(name, "system-err") == 0) {
            int stream = strcmp(name, "system-err") == 0;
            has_printed[stream] = true;
            add_output(&printed[stream], child);
        }
    }
    if (has_printed[0])
        test->stdout_text = tattle__buffer_take(&printed[0]);
    if (has_printed[1])
        test->stderr_text = tattle__buffer_take(&printed[1]);
    if (test->failure_count > 0) {
        test->state = TATTLE_STATE_FAILED;
        free(test->skip_reason);
        test->skip_reason = NULL;
    } else if (skipped) {
        test->state = TATTLE_STATE_SKIPPED;
    }
}

/* Notes libxml2's first error, with where it stopped. */
static void note_parse_error(void *data, xmlErrorPtr error)
{
    struct reading *reading = data;
    if (reading->problem.length > 0 || !error)
        return;
    const char *message = error->message ? error->message : "parse error";
    size_t length = strlen(message);
    while (length > 0 && is_space(message[length - 1]))
        length--;
    tattle__buffer_printf(&reading->problem,
                          "%s:%d:%d: the JUnit report is not well-formed "
                          "XML: %.*s",
                          reading->path, error->line, error->int2, (int)length,
                          message);
}

/* Closes the suites that end before an element at `depth`. */
static void close_suites(struct reading *reading, int depth)
{
    while (reading->suite_count > 0 &&
           reading->suites[reading->suite_count - 1].depth >= depth)
        free(reading->suites[--reading->suite_count].name);
}

static void open_suite(struct reading *reading, xmlTextReaderPtr reader,
                       int depth)
{
    reading->suites = tattle__realloc(
        reading->suites, (reading->suite_count + 1) * sizeof *reading->suites);
    xmlChar *name = xmlTextReaderGetAttribute(reader, (const xmlChar *)"name");
    reading->suites[reading->suite_count++] = (struct open_suite){
        .depth = depth,
        .name = trimmed_copy((const char *)name),
    };
    xmlFree(name);
}

/* Whether the prolog of `text` (before its first element: a byte order
 * mark, the XML declaration, processing instructions, comments, white
 * space) holds a document type declaration. Looked for before parsing,
 * as the parser reads ahead: an entity it declares could otherwise be
 * met (and refused in other words) before the declaration is seen. */
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
        text = end + 2;
    }
}

/* Reads the elements of the document; stops at the first problem. */
static void read_elements(struct reading *reading, xmlTextReaderPtr reader)
{
    bool root_seen = false;
    int status = 1;
    while (reading->problem.length == 0 &&
           (status = xmlTextReaderRead(reader)) == 1) {
        int type = xmlTextReaderNodeType(reader);
        if (type == XML_READER_TYPE_DOCUMENT_TYPE) {
            tattle__buffer_printf(&reading->problem,
                                  "%s: a JUnit report has no document type "
                                  "declaration (<!DOCTYPE>): refused",
                                  reading->path);
            return;
        }
        if (type != XML_READER_TYPE_ELEMENT)
            continue;
        const char *name = (const char *)xmlTextReaderConstLocalName(reader);
        int depth = xmlTextReaderDepth(reader);
        bool is_suite =
            strcmp(name, "testsuite") == 0 || strcmp(name, "testsuites") == 0;
        if (!root_seen) {
            root_seen = true;
            if (!is_suite) {
                tattle__buffer_printf(&reading->problem,
                                      "%s: not a JUnit report: its root "
                                      "element is <%s>, not <testsuites> or "
                                      "<testsuite>",
                                      reading->path, name);
                return;
            }
        }
        close_suites(reading, depth);
        if (is_suite && !xmlTextReaderIsEmptyElement(reader)) {
            open_suite(reading, reader, depth);
        } else if (strcmp(name, "testcase") == 0) {
            if (reading->tests->count == TATTLE__JUNIT_TESTCASES_MAX) {
                tattle__buffer_printf(&reading->problem,
                                      "%s: the JUnit report holds more than "
                                      "%d test cases: refused",
                                      reading->path,
                                      TATTLE__JUNIT_TESTCASES_MAX);
                return;
            }
            read_testcase(reading, reader);
        }
    }
    if (reading->problem.length == 0 && status < 0)
        tattle__buffer_printf(&reading->problem,
                              "%s: the JUnit report is not well-formed XML",
                              reading->path);
    else if (reading->problem.length == 0 && !root_seen)
        tattle__buffer_printf(&reading->problem,
                              "%s: the JUnit report holds no element",
                              reading->path);
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
    struct reading reading = {
        .path = path,
        .default_suite = default_suite,
        .tests = tests,
    };
    if (!text) {
        tattle__buffer_printf(&reading.problem,
                              "%s: the JUnit report is not read: %s", path,
                              why_not);
    } else if (has_doctype(text)) {
        tattle__buffer_printf(&reading.problem,
                              "%s: a JUnit report has no document type "
                              "declaration (<!DOCTYPE>): refused",
                              path);
        free(text);
    } else {
        /* No XML_PARSE_NOENT (entities stay unsubstituted), no
         * XML_PARSE_DTDLOAD, no XML_PARSE_HUGE (libxml2's limits on
         * depth and text size hold). */
        xmlTextReaderPtr reader =
            xmlReaderForMemory(text, (int)strlen(text), NULL, NULL,
                               XML_PARSE_NONET | XML_PARSE_NOCDATA);
        if (!reader) {
            tattle__buffer_printf(&reading.problem,
                                  "%s: the JUnit report cannot be read", path);
        } else {
            xmlTextReaderSetStructuredErrorHandler(reader, note_parse_error,
                                                   &reading);
            read_elements(&reading, reader);
            xmlFreeTextReader(reader);
        }
        free(text);
    }
    close_suites(&reading, -1);
    free(reading.suites);
    if (reading.problem.length > 0) {
        tattle__gtest_tests_release(tests);
        *problem = tattle__buffer_take(&reading.problem);
        return TATTLE__JUNIT_BAD;
    }
    return TATTLE__JUNIT_READ;
}
