/*
 * harness.h — a tiny harness for the flight recorder's own tests.
 *
 * The tracer's tests drive the session contract (tracer/session.h) the way
 * the runner does: create the arena, fork, activate in the child, record,
 * end the child (normally, by a crash, by SIGKILL), freeze in the parent
 * and check the frozen trace. Each test is a function selected by name on
 * the command line, so CTest runs one behaviour per test.
 */
#ifndef TATTLE_TESTS_TRACER_HARNESS_H
#define TATTLE_TESTS_TRACER_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, " " __VA_ARGS__);                                  \
            fputc('\n', stderr);                                               \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

struct harness_test {
    const char *name;
    void (*run)(void);
};

#endif /* TATTLE_TESTS_TRACER_HARNESS_H */
