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

#include <tattle/tattle.h>

/** Whether `test` is the test of a wrapped command. */
bool tattle__command_test_is(const struct tattle_test *test);

/** A copy (the caller frees it) of the shell command that runs the
 * wrapped command again, alone, under tattle. */
char *tattle__command_rerun(void);

#endif /* TATTLE_RUNNER_COMMAND_H */
