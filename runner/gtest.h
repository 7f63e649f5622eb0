/*
 * gtest.h — the tests inside a wrapped GoogleTest program, read from what
 * it wrote: its JSON report (GTEST_OUTPUT=json:PATH, which `tattle run`
 * sets) or, when it died before writing one, the progress lines it printed
 * on stdout together with the list `--gtest_list_tests` gives.
 *
 * runner/command.c turns each inner test into a result of its own.
 */
#ifndef TATTLE_RUNNER_GTEST_H
#define TATTLE_RUNNER_GTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "base/name_index.h"

/** The largest GoogleTest report read: a bigger one (or anything but a
 * regular file at the path) is not read, and the command stays one test. */
#define TATTLE__GTEST_REPORT_MAX (64L * 1024 * 1024)

/** The report at `path` a wrapped program wrote, read whole (the caller
 * frees it, NUL-terminated) when it is a regular file of at most
 * TATTLE__GTEST_REPORT_MAX bytes. The program knows the path and may have
 * put a FIFO there (opened without O_NONBLOCK, it would block the runner),
 * a link to /dev/zero (an endless read) or a file of any size. NULL
 * otherwise, with `*why_not` saying why in a few words, or NULL when
 * there is no file. */
char *tattle__gtest_read_file(const char *path, const char **why_not);

/** "0.012s" (or "0.012") as microseconds; what no duration can be
 * ("1e300s", "inf", "nan", a negative) is 0. */
uint64_t tattle__gtest_seconds_us(const char *text);

/** Finds the first line of `text` that starts "FILE:LINE:" (FILE without
 * white space or a colon, LINE a positive number, as compilers and most
 * frameworks write a place): sets `*file` (the caller frees it) and
 * `*line`; leaves them alone when there is none. */
void tattle__gtest_find_location(const char *text, char **file, int *line);

/** One failure GoogleTest recorded: "file:line\nmessage" split. */
struct tattle__gtest_failure {
    char *file; /* NULL when GoogleTest gave none ("unknown file") */
    int line;
    char *message;
    bool is_error; /* a JUnit <error>: not an assertion that failed */
};

/** One test of the program, Suite.Name. */
struct tattle__gtest_test {
    char *suite, *name;
    long number; /* a TAP point's number; 0 for a GoogleTest test */
    /* "Suite.Name" as the program knows it, when the id's parts had to
     * change (runner/command.c); NULL when they are the program's. */
    char *program_name;
    char *file; /* where the test is defined, when the report says */
    int line;
    enum tattle_state state;
    bool started, finished; /* from the progress lines */
    /* Its section of the captured stdout, from its RUN line to the end of
     * its OK, FAILED or SKIPPED line; output_end 0 when there is none. */
    size_t output_start, output_end;
    uint64_t duration_us;
    struct tattle__gtest_failure *failures;
    size_t failure_count;
    char *skip_reason;
    /* What a JUnit report's <system-out> and <system-err> hold for the
     * test, NULL when it has none: as much as a captured stream keeps
     * (runner/capture.h), the head and tail of a longer one with the
     * omission marked; `*_bytes` counts what the report held. */
    char *stdout_text, *stderr_text;
    uint64_t stdout_bytes, stderr_bytes;
    bool stdout_cut, stderr_cut;
};

struct tattle__gtest_tests {
    struct tattle__gtest_test *tests;
    size_t count;
    /* "Suite.Name" of each test, and the index of the test it names: a
     * lookup in constant time. */
    struct tattle__name_index full_names;
    size_t *test_of_name;
    /* The progress lines were read from an output the capture cut: a
     * test never seen to end may have run in the lost middle. */
    bool output_cut;
};

/** Reads the JSON report GoogleTest wrote at `path`. Returns false, with
 * `tests` empty, when there is no such file or it is not a GoogleTest
 * report (the program was not GoogleTest). */
bool tattle__gtest_read_report(const char *path,
                               struct tattle__gtest_tests *tests);

/** Whether a program's stdout shows GoogleTest's progress lines. */
bool tattle__gtest_printed_progress(const char *stdout_text);

/** The shard of a sharded GoogleTest run (GTEST_TOTAL_SHARDS,
 * GTEST_SHARD_INDEX); total 0 when the run is not sharded. */
struct tattle__gtest_shard {
    long total, index;
};

/** Adds the tests `--gtest_list_tests` printed (`listing`), not started.
 * The listing names every test the filter selects, whatever the shard:
 * a test another shard runs is left out, as GoogleTest deals them (the
 * N-th test that is not disabled, unless `runs_disabled`, goes to shard
 * N mod total). */
void tattle__gtest_add_listing(struct tattle__gtest_tests *tests,
                               const char *listing,
                               struct tattle__gtest_shard shard,
                               bool runs_disabled);

/** Reads GoogleTest's progress lines ([ RUN ], [ OK ], [ FAILED ],
 * [ SKIPPED ]) from the captured stdout `output` into `tests`, adding the
 * tests it names that are missing. Returns the index of the test that
 * started and never finished (the one running when the program died), or
 * -1. When the capture cut the output (head and tail kept), only whole
 * lines of each are read, `tests->output_cut` is set, a test whose end
 * was lost is left unfinished and never taken for the running one, and
 * an end line in the tail counts even when its start was lost (or in the
 * head). */
long tattle__gtest_read_progress(struct tattle__gtest_tests *tests,
                                 const struct tattle_output *output);

/** Finds each test's section of the captured stdout `output` from the
 * progress lines, for tests read from the JSON report. */
void tattle__gtest_find_sections(struct tattle__gtest_tests *tests,
                                 const struct tattle_output *output);

void tattle__gtest_tests_release(struct tattle__gtest_tests *tests);

#endif /* TATTLE_RUNNER_GTEST_H */
