/*
 * fixture_plugin.c — the suite the plugin tests run through reporter
 * plugins: tests that leave bytes in stdio's buffer when they end (by
 * returning, by exit(), by a crash), a failure with characters a Markdown
 * table must escape, and a test that fails if any reporter plugin is
 * mapped into the test process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

TEST(stdio, returns_with_unflushed_output)
{
    printf("UNFLUSHED-RETURN");
}

TEST(stdio, exits_with_unflushed_output)
{
    printf("UNFLUSHED-EXIT");
    exit(0);
}

TEST(stdio, fails_with_unflushed_output)
{
    printf("UNFLUSHED-FAIL");
    ASSERT_EQ(1 + 1, 3, "a | pipe and a `tick` in the message");
}

TEST(stdio, crashes_with_unflushed_output)
{
    printf("UNFLUSHED-CRASH");
    abort();
}

/* Flushes every stdio stream of the test's process: a reporter plugin's
 * buffered bytes must not be among them. */
TEST(stdio, flushes_every_stream)
{
    printf("FLUSHED-BY-TEST");
    fflush(NULL);
}

/* The plugin is loaded after the fork server that test processes come
 * from: none of its code is in a test's address space. */
TEST(isolation, no_plugin_is_mapped_in_the_test)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    ASSERT(maps != NULL);
    char line[4096];
    int plugin_lines = 0;
    while (fgets(line, sizeof line, maps))
        plugin_lines += strstr(line, "libtattle_markdown.so") != NULL ||
                        strstr(line, "libplugin_") != NULL;
    fclose(maps);
    ASSERT_EQ(plugin_lines, 0, "a reporter plugin is mapped in the test");
}
