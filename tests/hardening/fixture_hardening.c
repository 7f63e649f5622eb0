/*
 * fixture_hardening.c — tests that fail on purpose with hostile data, for
 * test_hardening.py: control bytes, escape sequences and invalid UTF-8 in
 * every string the console prints; binary trace payloads that look like
 * short strings; more failures than the result slot holds; a message far
 * larger than the slot. Lines the driver checks carry a marker comment.
 */
#include <stdio.h>
#include <string.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

/* ESC, a colour sequence, a control byte, DEL and invalid UTF-8 (and, in
 * one message, U+009B: CSI for some terminals, well-formed UTF-8). */
#define HOSTILE "\x1b[31m\x01\x7f\xff\xfe"

static size_t hostile_formatter(const char *label, const void *msg, size_t len,
                                char *out, size_t out_len)
{
    (void)label, (void)msg, (void)len;
    return (size_t)snprintf(out, out_len, "formatted " HOSTILE);
}

TEST(console, hostile_failure, .tags = "trace_messages")
{
    /* The summary keeps 160 bytes of the first line: 159 bytes, then a
     * two-byte character across byte 160. */
    char message[256];
    size_t used = (size_t)snprintf(message, sizeof message, "%s", HOSTILE);
    memset(message + used, 'a', 159 - used);
    snprintf(message + 159, sizeof message - 159,
             "\xc3\xa9 tail\nsecond " HOSTILE " C1 CSI \xc2\x9b");
    EXPECT(0, "%s", message);
    EXPECT_STR_EQ("left " HOSTILE, "right " HOSTILE);
    printf("stdout " HOSTILE "\ttab\n");
    fprintf(stderr, "stderr " HOSTILE "\n");
    fflush(stdout);

    tattle_actor_name("actor " HOSTILE);
    tattle_trace_send("to " HOSTILE, "label " HOSTILE, "payload " HOSTILE,
                      sizeof "payload " HOSTILE);
    tattle_trace_event(1, "from " HOSTILE, NULL, "event", "text " HOSTILE);
    tattle_mailbox *mailbox;
    ASSERT_NOT_NULL(mailbox = tattle_mailbox_open("box " HOSTILE, 4));
    tattle_mailbox_set_formatter(mailbox, hostile_formatter);
    tattle_mailbox_send(mailbox, "l " HOSTILE, "x", 1);
}

TEST(console, hostile_skip)
{
    SKIP("reason " HOSTILE);
}

TEST(trace, binary_payloads, .tags = "trace_messages")
{
    static const int values[] = {0, 65, 10, 0x4142};
    tattle_mailbox *mailbox;
    ASSERT_NOT_NULL(mailbox = tattle_mailbox_open("box", 8));
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        tattle_trace_send("peer", "int", &values[i], sizeof values[i]);
        tattle_mailbox_send(mailbox, "int", &values[i], sizeof values[i]);
    }
    tattle_trace_send("peer", "string", "hello", sizeof "hello");
    tattle_mailbox_send(mailbox, "string", "hello", sizeof "hello");
    FAIL("see the trace");
}

/* The runner's result slot holds 256 KiB. Fifteen 16000-byte failures and
 * one of 8000 leave between 7 and 12 KiB free (whatever the length of this
 * file's path, up to a few hundred bytes); the next five do not fit, and
 * "last" does: a record that was dropped must not use up the space. */
TEST(slot, dropped_records_keep_the_space)
{
    static char big[16001], medium[8001];
    memset(big, 'b', sizeof big - 1);
    memset(medium, 'm', sizeof medium - 1);
    EXPECT(0, "first"); /* @first */
    for (int i = 0; i < 15; i++)
        EXPECT(0, "%s", big);
    EXPECT(0, "%s", medium);
    for (int i = 0; i < 5; i++)
        EXPECT(0, "%s", big);
    EXPECT(0, "last"); /* @last */
}

TEST(slot, huge_message_is_cut)
{
    static char message[400001];
    memset(message, 'h', sizeof message - 1);
    FAIL("%s", message); /* @huge */
}

TEST(config, passes)
{
}
