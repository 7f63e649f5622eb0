/*
 * junit_in.h — the `tattle` command's reader of the JUnit XML reports
 * `tattle run --junit-in FILE` reads, with libxml2 (which only the
 * command links). It is what runner/junit_in.h describes; cli/main.c
 * hands it to the runner before `tattle run` starts.
 */
#ifndef TATTLE_CLI_JUNIT_IN_H
#define TATTLE_CLI_JUNIT_IN_H

#include "runner/junit_in.h"

/** A tattle__junit_reader (runner/junit_in.h). */
enum tattle__junit_read_status
tattle__junit_read(const char *path, const char *default_suite,
                   struct tattle__gtest_tests *tests, char **problem);

#endif /* TATTLE_CLI_JUNIT_IN_H */
