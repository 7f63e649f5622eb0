/*
 * fixture_inputs.c — tests for test_inputs.py, which checks what the runner
 * does with what comes from outside a test: sixteen failing tests that
 * several runs in one working directory record in .tattle/last-run.json at
 * once (held at a barrier so that their runs end together); tests whose
 * ids hold glob characters, a backslash, quotes or a leading dash, and
 * tests whose ids are not valid at all (a control character, an empty
 * part, invalid UTF-8), both registered by hand through
 * tattle_test_register() as a program generating its tests would; and a
 * few tests whose JSON Lines stream a full disk cuts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tattle/tattle.h>

/* ---- concurrent runs: concurrent/f00 .. concurrent/f15 ---- */

/* With TATTLE_FIXTURE_BARRIER=DIR (a directory holding the FIFOs `ready`
 * and `go`, both held open by the driver), a test says it is running with
 * one byte into `ready`, then waits until the driver closes `go`, so that
 * every run ends at the same moment. `go` is opened before `ready` is
 * written: the driver may close it as soon as the last byte arrives. */
static void wait_at_barrier(void)
{
    const char *directory = getenv("TATTLE_FIXTURE_BARRIER");
    if (!directory || !*directory)
        return;
    char ready_path[4096], go_path[4096];
    snprintf(ready_path, sizeof ready_path, "%s/ready", directory);
    snprintf(go_path, sizeof go_path, "%s/go", directory);
    int go = open(go_path, O_RDONLY);
    ASSERT(go >= 0, "open %s: %s", go_path, strerror(errno));
    int ready = open(ready_path, O_WRONLY);
    ASSERT(ready >= 0, "open %s: %s", ready_path, strerror(errno));
    ASSERT_EQ(write(ready, "r", 1), 1);
    close(ready);
    char byte;
    ssize_t n;
    while ((n = read(go, &byte, 1)) != 0)
        ASSERT(n > 0 || errno == EINTR, "read %s: %s", go_path,
               strerror(errno));
    close(go);
}

#define CONCURRENT_TEST(name)                                                  \
    TEST(concurrent, name)                                                     \
    {                                                                          \
        wait_at_barrier();                                                     \
        FAIL("%s fails on purpose", #name);                                    \
    }
CONCURRENT_TEST(f00)
CONCURRENT_TEST(f01)
CONCURRENT_TEST(f02)
CONCURRENT_TEST(f03)
CONCURRENT_TEST(f04)
CONCURRENT_TEST(f05)
CONCURRENT_TEST(f06)
CONCURRENT_TEST(f07)
CONCURRENT_TEST(f08)
CONCURRENT_TEST(f09)
CONCURRENT_TEST(f10)
CONCURRENT_TEST(f11)
CONCURRENT_TEST(f12)
CONCURRENT_TEST(f13)
CONCURRENT_TEST(f14)
CONCURRENT_TEST(f15)

/* ---- ids registered by hand ---- */

/* The body of every hand-built test: the driver sees in the report's
 * output that it really ran. */
static void print_ran(void)
{
    printf("ran\n");
}

#define HAND_BUILT(suite_, name_)                                              \
    {                                                                          \
        suite_, name_, __FILE__, __LINE__, print_ran,                          \
        {                                                                      \
            0                                                                  \
        }                                                                      \
    }

/* Valid ids that a glob, a shell or an option parser would misread. */
static const struct tattle_test hostile_ids[] = {
    HAND_BUILT("glob", "[ab]"),
    HAND_BUILT("glob", "a"), /* what the glob glob/[ab] matches */
    HAND_BUILT("glob", "star*"),
    HAND_BUILT("glob", "starry"), /* ... and glob/star* */
    HAND_BUILT("glob", "question?"),
    HAND_BUILT("glob", "questions"),
    HAND_BUILT("escape", "back\\slash"),
    HAND_BUILT("escape", "backslash"), /* ... and escape/back\slash */
    HAND_BUILT("-dash", "suite"),
    HAND_BUILT("--double-dash", "suite"),
    HAND_BUILT("--id=other", "suite"),
    HAND_BUILT("names", "-dash"),
    HAND_BUILT("names", "with space"),
    HAND_BUILT("names", "single'quote"),
    HAND_BUILT("names", "double\"quote $HOME `id` ;|&<>()"),
    HAND_BUILT("names", "caf\xc3\xa9 \xe2\x9c\x93"),
};

/* Ids that are not valid: each test is reported invalid, never run. */
static const struct tattle_test invalid_ids[] = {
    HAND_BUILT("names", "line\nbreak"),
    HAND_BUILT("names", "tab\there"),
    HAND_BUILT("names", "delete\x7f"),
    HAND_BUILT("names", "c1 \xc2\x85 next line"),
    HAND_BUILT("names", "invalid \xff utf-8"),
    HAND_BUILT("names", "truncated \xe2\x9c"),
    HAND_BUILT("", "empty_suite"),
    HAND_BUILT("empty_name", ""),
    HAND_BUILT("esc\x1b[31m", "in_suite"),
    HAND_BUILT("slash/in", "suite"),
};

/* A record with a NULL name or suite, registered only when
 * TATTLE_FIXTURE_NULL_NAMES is set (a runner without the check crashes on
 * it, and the other cases must not depend on that). */
static const struct tattle_test null_ids[] = {
    {"names", NULL, __FILE__, __LINE__, print_ran, {0}},
    {NULL, "null_suite", __FILE__, __LINE__, print_ran, {0}},
};

__attribute__((constructor)) static void register_hand_built_tests(void)
{
    for (size_t i = 0; i < sizeof hostile_ids / sizeof *hostile_ids; i++)
        tattle_test_register(&hostile_ids[i]);
    for (size_t i = 0; i < sizeof invalid_ids / sizeof *invalid_ids; i++)
        tattle_test_register(&invalid_ids[i]);
    const char *null_names = getenv("TATTLE_FIXTURE_NULL_NAMES");
    if (null_names && *null_names)
        for (size_t i = 0; i < sizeof null_ids / sizeof *null_ids; i++)
            tattle_test_register(&null_ids[i]);
}

/* ---- the stream ---- */

TEST(stream, first)
{
    printf("some output of the first test\n");
}

TEST(stream, second_fails)
{
    EXPECT_EQ(1 + 1, 3, "a failure with a message long enough to be cut");
}

TEST(stream, third)
{
    printf("some output of the third test\n");
}

TEST(stream, fourth_fails)
{
    FAIL("the last failure of the stream");
}

/* ---- configuration ---- */

TEST(config, passes)
{
}
