/*
 * environment.h — what the environment asks of a run: the protocols of the
 * tools that start test binaries.
 *
 * TATTLE_TIMEOUT_MULTIPLIER scales every timeout (slow machines,
 * sanitizers). GoogleTest's GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX and
 * Bazel's TEST_TOTAL_SHARDS/TEST_SHARD_INDEX select a shard when --shard
 * does not, and Bazel's TEST_SHARD_STATUS_FILE is touched to say sharding
 * is understood. Bazel's TESTBRIDGE_TEST_ONLY is a pattern when the
 * command line gives none, XML_OUTPUT_FILE is where the JUnit report goes
 * when the command line asks for none, and TEST_PREMATURE_EXIT_FILE exists
 * while the tests run, so an exit in the middle is seen. Under CTest,
 * TATTLE_SKIP_RETURN_CODE (set by tattle_discover_tests) is the exit
 * status of a run whose tests were all skipped, and TATTLE_REPORT_DIR is
 * --report-dir when the command line gives none. NO_COLOR and TERM=dumb
 * turn the console's automatic colour off.
 */
#ifndef TATTLE_RUNNER_ENVIRONMENT_H
#define TATTLE_RUNNER_ENVIRONMENT_H

#include <stdbool.h>
#include <stdio.h>

#include <tattle/reporter.h>

#include "base/buffer.h"
#include "runner/options.h"

struct tattle__environment {
    double timeout_multiplier;       /* 1 when unset */
    const char *premature_exit_file; /* NULL when unset */
};

/** Reads the environment into `environment` and applies what it selects
 * (shard, pattern, junit report) to `options`, after the command line:
 * a flag given there wins. A wrapped command's run (`tattle run`) takes
 * no shard or pattern from the environment: the command does. Returns 0, or
 * -EINVAL with a one-line message naming the variable in `error`. */
int tattle__environment_read(struct tattle__environment *environment,
                             struct tattle__options *options,
                             struct tattle__buffer *error);

/** The tests are about to run: creates TEST_PREMATURE_EXIT_FILE. */
void tattle__environment_run_started(
    const struct tattle__environment *environment);

/** The run is over: removes TEST_PREMATURE_EXIT_FILE, unless the run was
 * interrupted (then it did end prematurely). */
void tattle__environment_run_ended(
    const struct tattle__environment *environment, bool interrupted);

/** The exit status of a run that would exit with `status`:
 * TATTLE_SKIP_RETURN_CODE instead of 0 when every test that was not
 * excluded was skipped. */
int tattle__environment_exit_status(const struct tattle_summary *summary,
                                    int status);

/** Whether the console on `stream` is coloured in `mode`. */
bool tattle__environment_color_wanted(enum tattle__color_mode mode,
                                      FILE *stream);

#endif /* TATTLE_RUNNER_ENVIRONMENT_H */
