/*
 * fixture_options.c — small traced and untraced tests for the tracing
 * options end to end (test_trace_e2e.py): how a test opts in (tag, tag
 * value, test fields, --trace-all, tattle.yml) and what --trace-cap,
 * --trace-budget, --trace-level and --trace-passed do to its trace, and
 * what the console prints of a failed traced test.
 *
 * Every test records `count` numbered sends ("opts msg 0", "opts msg 1",
 * ...) so the driver can tell exactly which were kept.
 */
#include <stdio.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

static void record_sends(int count)
{
    tattle_actor_name("sender");
    for (int i = 0; i < count; i++) {
        char text[32];
        int length = snprintf(text, sizeof text, "opts msg %d", i);
        tattle_trace_send("receiver", "note", text, (size_t)length);
    }
}

TEST(opts, untraced)
{
    record_sends(10);
    FAIL("untraced fails");
}

TEST(opts, untraced_passes)
{
    record_sends(10);
}

TEST(opts, tag_cap, .tags = "trace_messages:7")
{
    record_sends(20);
    FAIL("tag_cap fails");
}

TEST(opts, field_cap_budget, .tags = "trace_messages", .trace_cap = 9,
     .trace_budget = 30)
{
    record_sends(100);
    FAIL("field_cap_budget fails");
}

TEST(opts, many, .tags = "trace_messages")
{
    record_sends(200);
    FAIL("many fails");
}

TEST(opts, levels, .tags = "trace_messages")
{
    tattle_actor_name("sender");
    tattle_trace_send("receiver", "note", "before", 6);
    tattle_trace_event(5, NULL, NULL, "level5", "event at level %d", 5);
    tattle_trace_event(39, NULL, NULL, "level39", "event at level %d", 39);
    tattle_trace_event(40, NULL, NULL, "level40", "event at level %d", 40);
    tattle_trace_event(41, NULL, NULL, "level41", "event at level %d", 41);
    tattle_trace_event(99, NULL, NULL, "level99", "event at level %d", 99);
    tattle_trace_event(100, NULL, NULL, "level100", "event at level %d", 100);
    tattle_trace_recv("receiver", "note", "after", 5);
    FAIL("levels fails");
}

TEST(opts, traced_passes, .tags = "trace_messages")
{
    record_sends(5);
}

/* What the console prints: the last messages and the mailboxes. */
TEST(console, fails_with_messages, .tags = "trace_messages")
{
    tattle_actor_name("client");
    tattle_mailbox *requests;
    ASSERT_NOT_NULL(requests = tattle_mailbox_open("requests", 8));
    tattle_trace_send("server", "hello", "greetings", 9);
    tattle_trace_recv("server", "welcome", "come in", 7);
    tattle_mailbox_send(requests, "get", "GET /index", 10);
    tattle_mailbox_send(requests, "put", "PUT /upload", 11);
    FAIL("the server never answered");
}
