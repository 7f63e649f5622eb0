/*
 * fixture_html.c — tests whose names, messages, output and traces carry
 * markup, for test_html.py, which writes their HTML report and checks in
 * a browser that every such string renders as text: `</script>`, an
 * `<img onerror>`, quotes of both kinds, invalid UTF-8 and control bytes,
 * in test ids (registered by hand: TEST takes identifiers), assertion
 * values, failure messages, captured output, actor names, message labels
 * and payloads, and the messages left pending in a mailbox. A traced
 * test crashes with a worker's message never received, another passes
 * with tags the filters offer, a third passes printing what would end or
 * break the inert block its output is deferred into.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

/* Each would run script or add an element if written into the page raw:
 * the browser check looks for window.pwned and for any <img>. */
#define SCRIPT_END "</script><script>window.pwned=1</script>"
#define IMAGE "<img src=x onerror=\"window.pwned=2\">"
#define QUOTES "\"double\" 'single' `back` &amp; &lt;"
#define BAD_BYTES "invalid \xff\xfe utf-8, controls \x01\x1b[31m\x7f \xc2\x9b"
#define HOSTILE SCRIPT_END " " IMAGE " " QUOTES " " BAD_BYTES

TEST(html, hostile_failure, .tags = "area:web hostile")
{
    printf("stdout " HOSTILE "\n");
    fprintf(stderr, "stderr " HOSTILE "\n");
    fflush(stdout);
    EXPECT_STR_EQ("left " HOSTILE, "right " HOSTILE);
    FAIL("message " HOSTILE);
}

TEST(html, passes_with_tags, .tags = "area:web quick")
{
    printf("a quiet pass\n");
}

/* A passed test's output is deferred into the page's inert block: these
 * must stay text there and not end the block or open a comment or a
 * script inside it. */
#define BLOCK_BREAKERS                                                         \
    "</script><script>window.pwned=3</script> <!-- <script> "                  \
    "<!--<script>window.pwned=4//-->"

TEST(html, passes_with_hostile_output, .tags = "area:web")
{
    printf("deferred-hostile " BLOCK_BREAKERS " " BAD_BYTES "\n");
    fprintf(stderr, "stderr " BLOCK_BREAKERS "\n");
}

static size_t format_job(const char *label, const void *message, size_t length,
                         char *out, size_t out_length)
{
    (void)label;
    int written = snprintf(out, out_length, "job %.*s", (int)length,
                           (const char *)message);
    return written < 0                    ? 0
           : (size_t)written < out_length ? (size_t)written
                                          : out_length - 1;
}

TEST(html, traced_crash, .tags = "trace_messages hostile", .timeout_ms = 5000)
{
    tattle_mailbox *inbox = tattle_mailbox_open("inbox " IMAGE, 8);
    ASSERT_NOT_NULL(inbox);
    tattle_mailbox_set_formatter(inbox, format_job);
    tattle_actor_name("boss " SCRIPT_END);
    tattle_mailbox_send(inbox, "label " QUOTES, "first " IMAGE,
                        sizeof "first " IMAGE);
    tattle_mailbox_send(inbox, "label " QUOTES, "second " BAD_BYTES,
                        sizeof "second " BAD_BYTES);
    char label[64], message[128];
    ASSERT(tattle_mailbox_recv(inbox, label, sizeof label, message,
                               sizeof message, 1000) >= 0);
    tattle_trace_event(1, "boss " SCRIPT_END, NULL, "event " IMAGE, "note %s",
                       BAD_BYTES);
    tattle_trace_send("nobody " IMAGE, "lost " QUOTES, "never read", 10);
    raise(SIGSEGV);
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

/* Ids no TEST could spell; the runner reports the ones that are not valid
 * ids as invalid, and the report still carries them. */
static const struct tattle_test hand_built[] = {
    HAND_BUILT("names", SCRIPT_END),
    HAND_BUILT("names", IMAGE),
    HAND_BUILT("names", QUOTES),
    HAND_BUILT("names", BAD_BYTES),
};

__attribute__((constructor)) static void register_hand_built_tests(void)
{
    for (size_t i = 0; i < sizeof hand_built / sizeof *hand_built; i++)
        tattle_test_register(&hand_built[i]);
}
