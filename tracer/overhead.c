/*
 * overhead.c — tattle_trace_overhead(): what the call hooks cost here.
 *
 * The hooks' bodies (include/tattle/call_hooks.h, what the hooks
 * tattle_instrument() adds run) are timed the way an instrumented
 * program calls them, in batches of 32 entries then 32 exits (a nest 32
 * calls deep, so the shadow stack is written as in real code), each half
 * between two reads of CLOCK_MONOTONIC. The figure is the median batch,
 * less the median interval between two reads of the clock with nothing
 * between them: a batch is a microsecond or so, so on a loaded machine
 * most batches run whole, and the few a preemption or a page fault lands
 * in are outliers the median leaves out (a total over every batch, or the
 * best total of a few rounds, carried them and moved by several times
 * from run to run). The traced figures come from a session with call
 * tracing of its own, activated in this process, and the untraced one
 * from the same hooks once that session is gone.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <tattle/trace.h>

#include "tracer/session.h"
#include "tracer/test_process/recorder.h"

enum { BATCH = 32, DEFAULT_CALLS = 1000000, MAX_BATCHES = 1 << 16 };

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

/* Nanoseconds of each timed batch: entries, exits and, for the clock's
 * own cost, nothing. */
struct samples {
    uint64_t *enter;
    uint64_t *exit;
    uint64_t *clock;
    unsigned count;
};

static void time_hooks(struct samples *samples, unsigned batches)
{
    void *function = (void *)(uintptr_t)&measured;
    void *site = (void *)(uintptr_t)&time_hooks;
    for (unsigned batch = 0; batch < batches; batch++) {
        uint64_t start = now_ns();
        for (int i = 0; i < BATCH; i++)
            tattle__call_hook_enter(function, site);
        uint64_t middle = now_ns();
        for (int i = 0; i < BATCH; i++)
            tattle__call_hook_exit(function, site);
        uint64_t end = now_ns();
        uint64_t after_clock = now_ns();
        unsigned slot = batch % MAX_BATCHES;
        samples->enter[slot] = middle - start;
        samples->exit[slot] = end - middle;
        samples->clock[slot] = after_clock - end;
    }
    samples->count = batches < MAX_BATCHES ? batches : MAX_BATCHES;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median(uint64_t *values, unsigned count)
{
    qsort(values, count, sizeof *values, compare_u64);
    return (double)values[count / 2];
}

/* ns per call of the median batch of `calls` calls, less the `clock_ns`
 * its clock reads took. */
static double per_call(uint64_t *batch_ns, unsigned count, double clock_ns,
                       unsigned calls)
{
    double cost = (median(batch_ns, count) - clock_ns) / calls;
    return cost > 0 ? cost : 0;
}

struct tattle_trace_overhead tattle_trace_overhead(unsigned n)
{
    struct tattle_trace_overhead result = {0};
    if (tattle_trace_current != NULL) {
        errno = EBUSY;
        return result;
    }
    unsigned calls = n != 0 ? n : DEFAULT_CALLS;
    unsigned batches = (calls + BATCH - 1) / BATCH;
    unsigned stored = batches < MAX_BATCHES ? batches : MAX_BATCHES;
    struct samples samples = {.enter = malloc(stored * sizeof(uint64_t)),
                              .exit = malloc(stored * sizeof(uint64_t)),
                              .clock = malloc(stored * sizeof(uint64_t))};
    struct tattle__trace_session *session = NULL;
    int error = samples.enter && samples.exit && samples.clock ? 0 : -ENOMEM;
    if (error == 0) {
        struct tattle__trace_config config = TATTLE__TRACE_CONFIG_DEFAULT;
        config.call_cap = 4096;
        error = tattle__trace_session_create(&session, &config);
    }
    if (error != 0) {
        free(samples.enter);
        free(samples.exit);
        free(samples.clock);
        errno = -error;
        return result;
    }
    tattle__trace_session_activate(session);
    time_hooks(&samples, batches);
    tattle__trace_session_destroy(session);
    double clock_ns = median(samples.clock, samples.count);
    result.enter_ns = per_call(samples.enter, samples.count, clock_ns, BATCH);
    result.exit_ns = per_call(samples.exit, samples.count, clock_ns, BATCH);
    time_hooks(&samples, batches);
    for (unsigned i = 0; i < samples.count; i++)
        samples.enter[i] += samples.exit[i];
    clock_ns = median(samples.clock, samples.count);
    result.untraced_ns =
        per_call(samples.enter, samples.count, 2 * clock_ns, 2 * BATCH);
    free(samples.enter);
    free(samples.exit);
    free(samples.clock);
    return result;
}
