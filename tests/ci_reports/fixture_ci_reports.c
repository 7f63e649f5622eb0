/*
 * fixture_ci_reports.c — a suite with one test of every outcome the
 * formats CI reads must tell apart, for test_ci_reports.py: a pass, an
 * assertion with values, a crash, a timeout, an exit, a skip with its
 * reason, a test that fails once and then passes (flaky, with --retry),
 * tags, and a test whose message, values and output hold every byte XML
 * forbids, invalid UTF-8, `]]>`, quotes and workflow commands. Tests
 * registered by hand carry such bytes in their names. The driver keeps
 * its own copy of the hostile bytes (HOSTILE_* there) and checks the
 * reports against it.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tattle/tattle.h>

/* Every C0 control character but NUL (a message is a C string), DEL, a
 * C1 control, U+FFFE and U+FFFF, invalid UTF-8 (a stray byte, a truncated
 * sequence, an encoded surrogate, an overlong form), the end of a CDATA
 * section, quotes, markup, and workflow commands on lines of their own. */
#define HOSTILE_MESSAGE                                                        \
    "hostile \x01\x02\x03\x04\x05\x06\x07\x08|\t|\x0b\x0c|\r|\x0e\x0f"         \
    "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"         \
    "\x7f \xc2\x85 \xef\xbf\xbe\xef\xbf\xbf \xff \xe2\x9c \xed\xa0\x80 "       \
    "\xc0\xaf ]]> ]]]> \"double\" 'single' <tag attr=\"v\"> &amp; & % %25 "    \
    "a:b,c\n::error::injected from a message\n"                                \
    "\r::warning file=x,line=1::injected after a carriage return\r\n"          \
    "%0A::error::escaped newline\n##[error]legacy command"

/* The same, and NUL bytes, for the output. */
static const char hostile_output[] =
    "out \x00\x01\x02\x03\x04\x05\x06\x07\x08|\t|\x0b\x0c|\r|\x0e\x0f"
    "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
    "\x7f \xc2\x85 \xef\xbf\xbe\xef\xbf\xbf \xff \xe2\x9c \xed\xa0\x80 "
    "\xc0\xaf ]]> \"double\" 'single' <tag> & % \n"
    "::error::injected from stdout\n"
    "::endgroup::\n"
    "::stop-commands::guessed\n"
    "  ::error file=a,line=2::indented\n"
    "\r::error::after a carriage return\n"
    "##[error]legacy command\n";

TEST(outcomes, passes, .tags = "area:ci smoke")
{
    printf("a passing test's output\n");
}

TEST(outcomes, assertion_fails, .tags = "area:ci")
{
    int length = 3;
    printf("output of the failing assertion\n");
    fprintf(stderr, "its stderr\n");
    ASSERT_EQ(length, 4, "the queue lost an element");
}

TEST(outcomes, crashes)
{
    fprintf(stderr, "about to crash\n");
    raise(SIGSEGV);
}

TEST(outcomes, times_out, .timeout_ms = 300)
{
    printf("waiting forever\n");
    fflush(stdout);
    for (;;)
        pause();
}

TEST(outcomes, exits)
{
    exit(3);
}

TEST(outcomes, skipped)
{
    SKIP("needs a GPU");
}

/* Fails on its first run in a working directory, passes on its second:
 * the marker file is the memory between the two processes. */
TEST(outcomes, flaky)
{
    int fd = open("flaky.marker", O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
        close(fd);
        printf("first attempt\n");
        FAIL("the first attempt fails");
    }
}

TEST(hostile, everything, .tags = "area:hostile")
{
    fwrite(hostile_output, 1, sizeof hostile_output - 1, stdout);
    fwrite(hostile_output, 1, sizeof hostile_output - 1, stderr);
    fflush(stdout);
    EXPECT_STR_EQ("left " HOSTILE_MESSAGE, "right " HOSTILE_MESSAGE);
    FAIL("%s", HOSTILE_MESSAGE);
}

static void hostile_name_body(void)
{
    printf("ran\n");
    FAIL("a test with a hostile name fails");
}

#define HAND_BUILT(suite_, name_)                                              \
    {                                                                          \
        suite_, name_, __FILE__, __LINE__, hostile_name_body,                  \
        {                                                                      \
            0                                                                  \
        }                                                                      \
    }

/* Valid ids (they run and fail) and ids that are not (reported invalid):
 * both reach the reports by name. */
static const struct tattle_test hostile_names[] = {
    HAND_BUILT("names", "quotes \"double\" 'single' ]]> <tag> & %25 a:b,c"),
    HAND_BUILT("names", "::error::not a command"),
    HAND_BUILT("names", "pipe | cell ``` fence"),
    HAND_BUILT("names", "line\nbreak ::error::x"),
    HAND_BUILT("names", "carriage\rreturn"),
    HAND_BUILT("names", "control \x01\x1b[31m \x7f"),
    HAND_BUILT("names", "invalid \xff utf-8 \xed\xa0\x80"),
};

__attribute__((constructor)) static void register_hostile_names(void)
{
    for (size_t i = 0; i < sizeof hostile_names / sizeof *hostile_names; i++)
        tattle_test_register(&hostile_names[i]);
}

/* A source file whose name holds what a workflow command's property must
 * escape (`,` ends a property, `:` the properties, `%` starts an escape;
 * compilers take no line break in a file name). Last in the file:
 * __FILE__ stays so to its end. */
#line 1 "odd,dir/a:b %25 c.c"
TEST(places, in_an_odd_file)
{
    FAIL("a failure in a file with an odd name");
}
