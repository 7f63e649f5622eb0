/*
 * params.h — parameterized tests (TEST_P): one registered test per value.
 *
 * tattle_test_register_params() makes one copy of the TEST_P's record per
 * value, before main(), and registers each like a TEST. The copies live as
 * long as the program, in every process forked from it, so a test's own
 * record pointer is enough to find its value, in the runner (ids,
 * rendering) and in the test process (tattle_param()) alike.
 */
#ifndef TATTLE_RUNNER_PARAMS_H
#define TATTLE_RUNNER_PARAMS_H

#include <stddef.h>

#include <tattle/tattle.h>

/** One value of a TEST_P: a registered test record and where its value
 * is. */
struct tattle__param_case {
    struct tattle_test test; /* registered; its address identifies the case */
    const struct tattle_params *params;
    size_t index;
};

/** The case whose registered record is `test`, or NULL when `test` is a
 * plain TEST. */
const struct tattle__param_case *
tattle__param_case_find(const struct tattle_test *test);

/** The case's value. */
const void *tattle__param_case_value(const struct tattle__param_case *pc);

/** The value as reports show it, malloc'd: integers, floating point and
 * booleans by value, strings as their text ("NULL" for a null pointer),
 * anything else by its source text (the TEST_P's values split at their
 * top-level commas). */
char *tattle__param_case_render(const struct tattle__param_case *pc);

#endif /* TATTLE_RUNNER_PARAMS_H */
