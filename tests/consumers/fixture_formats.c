/*
 * fixture_formats.c — a suite with one test of every outcome, for
 * test_formats.py, which runs it with --json, --tap and --ctrf and hands
 * the TAP and CTRF reports to their real consumers (prove's TAP::Parser,
 * npm's tap-parser and ctrf): a pass, an assertion failure, a crash, a
 * skip, a timeout, a flaky test (fails once, passes on --retry), a
 * failure whose output and message hold an empty line, a traced failure, a
 * tagged test, output and messages of hostile bytes (every byte value, invalid
 * UTF-8, TAP's `#` and `\`, YAML and XML metacharacters), and ids registered by
 * hand that TAP must escape or that are not valid at all. The interrupt/ suite
 * waits inside a test until the driver interrupts the runner (a handshake
 * through a file in the working directory, never a sleep).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

/* Control bytes, an escape sequence, DEL, invalid UTF-8, a C1 control,
 * and what TAP, YAML, XML and JSON treat specially. */
#define HOSTILE                                                                \
    "\x01\x1b[31m\x7f\xff\xfe \xc2\x9b # hash \\ backslash ]]> \"q\" 'a' "     \
    "- ? : {x} [y] ... --- not ok 99 Bail out!"

TEST(formats, passes)
{
    printf("a passing test's output\n");
}

TEST(formats, fails_an_assertion)
{
    printf("before the failed assertion\n");
    /* A message of two lines without a final line break: TAP must write
     * it in a form prove reads (not a `|-` block). */
    EXPECT_EQ(1 + 1, 3, "arithmetic is broken\nsince the second line");
    EXPECT_STR_EQ("true", "null");
}

TEST(formats, fails_with_blank_lines)
{
    /* Output and a message with an empty line inside: a literal block
     * would hold a line without the block's indentation, which prove reads
     * as the end of the YAML. */
    printf("first paragraph\n\nsecond paragraph\n");
    /* A line that starts with U+2028, which YAML also takes for a line
     * break. */
    fprintf(stderr, "a line\n\xe2\x80\xa8 after a line separator\n");
    FAIL("one paragraph\n\nand another\n");
}

TEST(formats, crashes)
{
    fprintf(stderr, "about to abort\n");
    abort();
}

TEST(formats, skipped)
{
    SKIP("needs a # sign and a \\ backslash in its reason");
}

TEST(formats, times_out, .timeout_ms = 200)
{
    printf("waiting forever\n");
    fflush(stdout);
    for (;;)
        pause();
}

/* Fails on its first attempt (no marker file yet), passes on the next. */
TEST(formats, flaky)
{
    if (access("flaky.marker", F_OK) != 0) {
        FILE *marker = fopen("flaky.marker", "w");
        if (marker)
            fclose(marker);
        printf("first attempt fails\n");
        FAIL("the first attempt fails");
    }
    printf("a later attempt passes\n");
}

TEST(formats, tagged, .tags = "area:net slow")
{
    printf("tagged\n");
}

TEST(formats, traced_failure, .tags = "trace_messages")
{
    tattle_trace_send("peer", "hello", "payload " HOSTILE,
                      sizeof "payload " HOSTILE);
    tattle_trace_event(1, "me", NULL, "event", "text %s", HOSTILE);
    FAIL("see the trace");
}

TEST(formats, hostile_bytes)
{
    char every_byte[256];
    for (int i = 0; i < 256; i++)
        every_byte[i] = (char)(i == 0 ? 1 : i);
    fwrite(every_byte, 1, sizeof every_byte, stdout);
    fputc(0, stdout);
    printf("\n  ---\nmessage: not yaml\n  ...\n" HOSTILE "\n");
    fprintf(stderr, "stderr " HOSTILE "\n");
    fflush(stdout);
    EXPECT(0, "message " HOSTILE "\nsecond line " HOSTILE);
    EXPECT_STR_EQ("left " HOSTILE, "right " HOSTILE);
}

static void hand_built_passes(void)
{
    printf("hand built\n");
}

#define HAND_BUILT(suite, name)                                                \
    {                                                                          \
        (suite), (name), __FILE__, __LINE__, hand_built_passes,                \
        {                                                                      \
            0                                                                  \
        }                                                                      \
    }

/* Ids a TAP description must escape, and ids that are not valid (the
 * runner reports those invalid, so the formats still carry them). */
static const struct tattle_test hand_built[] = {
    HAND_BUILT("names", "hash # and back\\slash"),
    HAND_BUILT("names", "runs # SKIP unless # is escaped"),
    HAND_BUILT("names", "two \\\\# backslashes"),
    HAND_BUILT("names", "trailing\\"),
    HAND_BUILT("names", "caf\xc3\xa9 \xe2\x9c\x93"),
    HAND_BUILT("names", "line\nbreak # not ok 1"),
    HAND_BUILT("names", "invalid \xff utf-8"),
    HAND_BUILT("names", "esc\x1b[31m red"),
};

__attribute__((constructor)) static void register_hand_built_tests(void)
{
    for (size_t i = 0; i < sizeof hand_built / sizeof *hand_built; i++)
        tattle_test_register(&hand_built[i]);
}

/* ---- interrupt/: the driver interrupts the runner inside `waits` ---- */

TEST(interrupt, first)
{
    printf("done before the interrupt\n");
}

/* Says it is inside its body, then waits until the runner is interrupted
 * (the runner kills it); the bound only keeps a broken run finite. */
TEST(interrupt, waits, .timeout_ms = 60000)
{
    FILE *inside = fopen("inside.body", "w");
    if (inside)
        fclose(inside);
    for (int i = 0; i < 600; i++)
        usleep(100 * 1000);
    FAIL("the runner was never interrupted");
}

TEST(interrupt, never_started)
{
    printf("never started\n");
}
