/*
 * all_headers.cpp — every public header in one C++ translation unit: a
 * reporter plugin written in C++ that counts finished tests, and a traced
 * test. test_cpp.py compiles it with -std=c++17 -Wall -Wextra -Wpedantic
 * -Werror (it is not linked: the C++ reporter is only declared here).
 */
#include <tattle/reporter.h>
#include <tattle/tattle.h>
#include <tattle/trace.h>

namespace
{

struct counter {
    unsigned long finished = 0;
};

int counter_create(void **self, const char *, const tattle_report_options *)
{
    *self = new counter();
    return 0;
}

void counter_finished(void *self, const tattle_result *)
{
    static_cast<counter *>(self)->finished++;
}

int counter_end(void *, const tattle_summary *)
{
    return 0;
}

void counter_destroy(void *self)
{
    delete static_cast<counter *>(self);
}

const tattle_reporter_type counter_type = {
    "counter",        counter_create, nullptr,        nullptr,
    counter_finished, counter_end,    counter_destroy};

} // namespace

__attribute__((constructor)) static void register_counter()
{
    tattle_reporter_register(&counter_type);
}

TEST(headers, traced_from_cpp)
{
    tattle_actor_name("main");
    tattle_trace_send("peer", "label", "message", 7);
    ASSERT_EQ(tattle_reporter_find("counter"), &counter_type);
}
