/*
 * tap_in.h — the test points of a wrapped program that prints TAP on
 * stdout (Check, cmocka and others do): its plan, each `ok` / `not ok`,
 * their # SKIP and # TODO directives and the message of their YAML
 * diagnostics, read into the same list as a GoogleTest program's tests
 * (runner/gtest.h), which runner/command.c turns into results.
 */
#ifndef TATTLE_RUNNER_TAP_IN_H
#define TATTLE_RUNNER_TAP_IN_H

#include <stdbool.h>

#include "runner/gtest.h"

/** Reads the TAP in `stdout_text` into `tests` (suite `suite`, each named
 * by its description, or its number without one). Returns false, with
 * `tests` empty, when the text holds no plan or no test point: it was not
 * TAP. `*planned` is the plan's count. */
bool tattle__tap_read(const char *stdout_text, const char *suite,
                      struct tattle__gtest_tests *tests, long *planned);

#endif /* TATTLE_RUNNER_TAP_IN_H */
