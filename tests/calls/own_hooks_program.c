/*
 * own_hooks_program.c — a program built with -finstrument-functions for a
 * profiler of its own (these hooks, which count calls) that links
 * libtattle without tattle_instrument(): it must keep its own hooks, both
 * for its instrumented calls and against libtattle's own use of hooks
 * (tattle_trace_overhead() times them).
 *
 * Prints "entered E exited X" and exits 0 when its hooks saw exactly its
 * own calls: main and twice work() entered, work() exited twice.
 */
#include <stdio.h>

#include <tattle/trace.h>

static unsigned long entered, exited;

/* The profiler's hooks: count, and nothing else. */
#define OWN_HOOK __attribute__((no_instrument_function))

OWN_HOOK void __cyg_profile_func_enter(void *, void *);
OWN_HOOK void __cyg_profile_func_exit(void *, void *);

OWN_HOOK void __cyg_profile_func_enter(void *callee, void *caller)
{
    (void)callee, (void)caller;
    entered++;
}

OWN_HOOK void __cyg_profile_func_exit(void *callee, void *caller)
{
    (void)callee, (void)caller;
    exited++;
}

static volatile int sink;

__attribute__((noinline)) static void work(int value)
{
    sink = value;
}

int main(void)
{
    work(1);
    /* libtattle's calls of the hooks it times must not come here. */
    struct tattle_trace_overhead cost = tattle_trace_overhead(320);
    work(2);
    unsigned long seen_entered = entered, seen_exited = exited;
    printf("entered %lu exited %lu (overhead measured: %d)\n", seen_entered,
           seen_exited, cost.enter_ns > 0);
    return seen_entered == 3 && seen_exited == 2 ? 0 : 1;
}
