/*
 * overhead.c — tattle_trace_overhead(): what the call hooks cost here.
 *
 * The hooks' bodies (include/tattle/call_hooks.h, what the hooks
 * tattle_instrument() adds run) are timed the way an instrumented
 * program calls them, in
 * batches of 32 entries then 32 exits (a nest 32 calls deep, so the shadow
 * stack is written as in real code), each batch between two reads of
 * CLOCK_MONOTONIC so the clock's own cost is spread over 32 calls; the
 * traced figures come from a session with call tracing of its own,
 * activated in this process, and the untraced one from the same hooks
 * once that session is gone. The best of several rounds is kept: the
 * machine's noise only ever adds.
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <tattle/trace.h>

#include "tracer/session.h"
#include "tracer/test_process/recorder.h"

enum { BATCH = 32, ROUNDS = 5, DEFAULT_CALLS = 1000000 };

static uint64_t now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* A function address and call site for the hooks (never called). */
static void measured(void)
{
}

struct timing {
    uint64_t enter_ns;
    uint64_t exit_ns;
};

static struct timing time_hooks(unsigned calls)
{
    void *function = (void *)(uintptr_t)&measured;
    void *site = (void *)(uintptr_t)&time_hooks;
    struct timing total = {0};
    for (unsigned done = 0; done < calls; done += BATCH) {
        uint64_t start = now_ns();
        for (int i = 0; i < BATCH; i++)
            tattle__call_hook_enter(function, site);
        uint64_t middle = now_ns();
        for (int i = 0; i < BATCH; i++)
            tattle__call_hook_exit(function, site);
        uint64_t end = now_ns();
        total.enter_ns += middle - start;
        total.exit_ns += end - middle;
    }
    return total;
}

struct tattle_trace_overhead tattle_trace_overhead(unsigned n)
{
    struct tattle_trace_overhead result = {0};
    if (tattle_trace_current != NULL) {
        errno = EBUSY;
        return result;
    }
    unsigned calls = n != 0 ? n : DEFAULT_CALLS;
    calls = (calls + BATCH - 1) / BATCH * BATCH;
    struct tattle__trace_config config = TATTLE__TRACE_CONFIG_DEFAULT;
    config.call_cap = 4096;
    struct tattle__trace_session *session = NULL;
    int error = tattle__trace_session_create(&session, &config);
    if (error != 0) {
        errno = -error;
        return result;
    }
    tattle__trace_session_activate(session);
    struct timing best = {UINT64_MAX, UINT64_MAX};
    for (int round = 0; round < ROUNDS; round++) {
        struct timing timing = time_hooks(calls);
        if (timing.enter_ns < best.enter_ns)
            best.enter_ns = timing.enter_ns;
        if (timing.exit_ns < best.exit_ns)
            best.exit_ns = timing.exit_ns;
    }
    tattle__trace_session_destroy(session);
    uint64_t untraced = UINT64_MAX;
    for (int round = 0; round < ROUNDS; round++) {
        struct timing timing = time_hooks(calls);
        if (timing.enter_ns + timing.exit_ns < untraced)
            untraced = timing.enter_ns + timing.exit_ns;
    }
    result.enter_ns = (double)best.enter_ns / calls;
    result.exit_ns = (double)best.exit_ns / calls;
    result.untraced_ns = (double)untraced / (2.0 * calls);
    return result;
}
