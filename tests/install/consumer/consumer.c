/*
 * consumer.c — the test file of the installed-package check: one passing
 * test with a tag, so the check can see it through CTest's labels.
 */
#include <tattle/tattle.h>
#include <tattle/trace.h>

TEST(consumer, links_and_runs, .tags = "smoke area:install")
{
    tattle_trace_event(1, "consumer", NULL, "hello", "%d", 42);
    ASSERT_EQ(1 + 1, 2);
}
