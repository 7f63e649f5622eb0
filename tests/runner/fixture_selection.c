/*
 * fixture_selection.c — the runner_selection program: passing tests with
 * suite and test tags, for selection by glob, tag, configuration, shard,
 * --list, --seed/--shuffle. Every test prints its id, so the driver can
 * tell which ran.
 */
#include <stdio.h>

#include <tattle/tattle.h>

SUITE(queue, .tags = "area:core");

TEST(queue, push)
{
    puts("queue/push");
}

TEST(queue, pop)
{
    puts("queue/pop");
}

TEST(queue, pop_empty)
{
    puts("queue/pop_empty");
}

SUITE(net, .tags = "area:net");

TEST(net, connect)
{
    puts("net/connect");
}

TEST(net, download, .tags = "slow")
{
    puts("net/download");
}

TEST(stack, pop, .tags = "slow unit")
{
    puts("stack/pop");
}

TEST(stack, peek, .tags = "unit")
{
    puts("stack/peek");
}

/* Enough tests that two shuffles almost never agree. */
#define ORDER_TEST(n)                                                          \
    TEST(order, t##n)                                                          \
    {                                                                          \
        puts("order/t" #n);                                                    \
    }
ORDER_TEST(00)
ORDER_TEST(01)
ORDER_TEST(02)
ORDER_TEST(03)
ORDER_TEST(04)
ORDER_TEST(05)
ORDER_TEST(06)
ORDER_TEST(07)
ORDER_TEST(08)
ORDER_TEST(09)
ORDER_TEST(10)
ORDER_TEST(11)
