/*
 * command.h — `tattle run [options] -- COMMAND [ARGS...]`: a test program
 * that was not written with tattle, run as one test of the runner.
 *
 * The command is registered as one test whose body execs it in the
 * forked test process, so it gets what every test gets (a timeout that
 * kills its process tree, stacks at the timeout, bounded output, every
 * report). Its process never reports through the result slot: the
 * runner judges it by how it ended (runner/outcome.c), exit status 0
 * passed.
 */
#ifndef TATTLE_RUNNER_COMMAND_H
#define TATTLE_RUNNER_COMMAND_H

#include <stdbool.h>

#include <stddef.h>

#include <tattle/tattle.h>

#include "results/record.h"
#include "runner/junit_in.h"

/** Sets how `tattle run --junit-in` reads a JUnit report: the `tattle`
 * command hands its reader (cli/junit_in.c) before it runs
 * tattle__run_command_main(); without one, --junit-in is a usage error. */
void tattle__command_set_junit_reader(tattle__junit_reader reader);

/** Whether this run is `tattle run`'s, of a wrapped command. */
bool tattle__command_wrapping(void);

/** The wrapped command as given, "COMMAND ARGS..." shell-quoted, or NULL
 * when this run wraps none. */
const char *tattle__command_line(void);

/** The id of the wrapped command's own result ("SUITE/NAME"), or NULL
 * when this run wraps none. */
const char *tattle__command_test_id(void);

/** The key of this run's outcomes in .tattle/last-run.json: the wrapped
 * command shell-quoted, COMMAND as the absolute path of the file it runs
 * (its directory's symbolic links resolved), so that `./x` and `/abs/x`
 * meet; NULL when this run wraps none. */
const char *tattle__command_last_run_key(void);

/** Whether `test` is the test of a wrapped command. */
bool tattle__command_test_is(const struct tattle_test *test);

/** A copy (the caller frees it) of the shell command that runs the
 * wrapped command again, alone, under tattle, as this run did (its
 * options that shape the run, absolute paths), from any directory. */
char *tattle__command_rerun(void);

/** Whether `result` is the wrapped command's own. */
bool tattle__command_result_is(const struct tattle_result *result);

/** When the wrapped command turned out to be a GoogleTest program (it
 * wrote its JSON report, or printed its progress lines before it died),
 * one result per inner test, built from the command's final `record`,
 * which is taken over: returns their count and sets `*records` to an
 * array the caller releases (each record, then free). Returns 0 and
 * leaves `record` as it is otherwise. */
size_t tattle__command_expand(struct tattle__result_record *record,
                              struct tattle__result_record **records);

#endif /* TATTLE_RUNNER_COMMAND_H */
