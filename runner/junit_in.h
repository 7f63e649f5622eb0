/*
 * junit_in.h — the tests of a wrapped program that writes a JUnit XML
 * report (`tattle run --junit-in FILE`: cmocka's CMOCKA_XML_FILE,
 * Criterion's --xml, pytest's --junitxml and others), read into the same
 * list as a GoogleTest program's tests (runner/gtest.h), which
 * runner/command.c turns into results.
 *
 * Reading XML takes libxml2, which the library does not link (every test
 * program would load it, and ICU behind it, at start): the `tattle`
 * command reads the report (cli/junit_in.c) and hands its reader to the
 * runner with tattle__command_set_junit_reader() (runner/command.h).
 */
#ifndef TATTLE_RUNNER_JUNIT_IN_H
#define TATTLE_RUNNER_JUNIT_IN_H

#include "runner/gtest.h"

/** The most test cases read from one report: past it the report is
 * refused, as its results would swamp every report written from them. */
#define TATTLE__JUNIT_TESTCASES_MAX 1000000

enum tattle__junit_read_status {
    TATTLE__JUNIT_READ,    /* `tests` holds its test cases (maybe none) */
    TATTLE__JUNIT_MISSING, /* there is no file at the path */
    TATTLE__JUNIT_BAD,     /* it could not be read: `*problem` says why */
};

/** Reads the JUnit XML report at `path` into `tests`: each <testcase>
 * under <testsuites> or a bare <testsuite>, nested suites included, its
 * suite the classname, else the nearest enclosing suite's name, else
 * `default_suite`. On TATTLE__JUNIT_BAD, `*problem` (the caller frees it)
 * is one line naming the file and, for a parse error, the line:column
 * ("report.xml:3:7: ..."). The file is the program's and may be hostile:
 * only a regular file of at most 64 MiB is read, in UTF-8, nothing is
 * fetched from the network, a document type declaration (the way to
 * entities, local files and exponential expansion) is refused, and the
 * reader bounds what it keeps itself: libxml2's own bounds on depth and
 * on the size of one text node are lifted (XML_PARSE_HUGE), so the depth
 * of nesting is bounded by the reader, each captured text keeps its head
 * and tail, names are cut, and a report that would keep too much in all
 * is refused. */
typedef enum tattle__junit_read_status (*tattle__junit_reader)(
    const char *path, const char *default_suite,
    struct tattle__gtest_tests *tests, char **problem);

#endif /* TATTLE_RUNNER_JUNIT_IN_H */
