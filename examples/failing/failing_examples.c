/*
 * failing_examples.c — deliberately failing examples, kept apart from the
 * passing suite, so the demo report shows what tattle records for each way
 * a test can fail: an assertion with both values, a non-fatal EXPECT that
 * lets the test continue, a crash with its stack trace, an abort, a
 * timeout and an exit() in the middle of a test.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tattle/tattle.h>

#include "../queue/queue.h"

SUITE(demo, .tags = "demo_failure");

TEST(demo, off_by_one_capacity)
{
    struct queue *q = queue_new(3);
    for (int i = 0; i < 4; i++)
        queue_push(q, i);
    printf("pushed 4 values into a queue of capacity %zu\n", queue_capacity(q));
    ASSERT_EQ(queue_length(q), 4u, "all four pushes should have been kept");
    queue_free(q);
}

TEST(demo, expectations_keep_going)
{
    const char *greeting = "hello, world";
    EXPECT_STR_EQ(greeting, "hello world");
    EXPECT_EQ(strlen(greeting), 11u);
    puts("still running after two failed expectations");
}

static int read_through(const int *p)
{
    return *p;
}

/* A pointer into memory that has been unmapped: the read is a SIGSEGV in
 * every build (a NULL read would be caught earlier by UBSan's checks). */
static const int *dangling_pointer(void)
{
    long page = sysconf(_SC_PAGESIZE);
    void *memory = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(memory, (size_t)page);
    return memory;
}

TEST(demo, dangling_pointer_crashes)
{
    fprintf(stderr, "about to read through a dangling pointer\n");
    const int *volatile gone = dangling_pointer();
    ASSERT_EQ(read_through(gone), 0);
}

TEST(demo, hangs_until_timeout, .timeout_ms = 300)
{
    puts("waiting for a message that never comes");
    for (;;)
        pause();
}

TEST(demo, exits_in_the_middle)
{
    puts("calling exit(3) from the test body");
    exit(3);
}
