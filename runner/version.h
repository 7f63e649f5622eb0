/*
 * version.h — what `--version` prints, for a test binary and for the
 * `tattle` command alike: the version and, with `--verbose`, what call
 * tracing costs on this machine, measured then by tattle_trace_overhead().
 */
#ifndef TATTLE_RUNNER_VERSION_H
#define TATTLE_RUNNER_VERSION_H

#include <stdbool.h>
#include <stdio.h>

/** Prints "tattle VERSION" and, when `verbose`, a line with the measured
 * cost of an instrumented call, traced (enter+exit pair, each hook) and
 * untraced, or why it could not be measured. */
void tattle__version_print(FILE *out, bool verbose);

#endif /* TATTLE_RUNNER_VERSION_H */
