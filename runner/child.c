/*
 * child.c — running one test inside its process: phases, fatal-assertion
 * unwinding, and the on-exit callbacks.
 */
#include "runner/child.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <unistd.h>

#include "runner/text.h"

struct on_exit_callback {
    void (*fn)(void *ctx);
    void *ctx;
};

static struct tattle__slot *current_slot;
static jmp_buf *current_phase_exit;
static pthread_t test_thread;
static pid_t test_process;
static struct on_exit_callback *on_exit_callbacks;
static size_t on_exit_count, on_exit_capacity;

struct tattle__slot *tattle__child_slot(void)
{
    return current_slot;
}

int tattle_on_exit(void (*fn)(void *ctx), void *ctx)
{
    if (!fn)
        return -EINVAL;
    if (!current_slot)
        return -ENOENT;
    if (on_exit_count == on_exit_capacity) {
        on_exit_capacity = on_exit_capacity ? on_exit_capacity * 2 : 8;
        on_exit_callbacks = tattle__realloc(
            on_exit_callbacks, on_exit_capacity * sizeof *on_exit_callbacks);
    }
    on_exit_callbacks[on_exit_count++] = (struct on_exit_callback){fn, ctx};
    return 0;
}

void tattle__child_leave_phase(void)
{
    /* A process the test forked shares the test thread's id and its jump
     * buffers, but the test's phases are not its to unwind: the failure is
     * already recorded (the slot is shared), so the worker just ends, with
     * a status its parent can see. */
    if (current_slot && getpid() != test_process)
        _exit(1);
    if (current_phase_exit && pthread_equal(pthread_self(), test_thread))
        longjmp(*current_phase_exit, 1);
    if (current_slot && !pthread_equal(pthread_self(), test_thread))
        pthread_exit(NULL);
    /* Outside any phase (a fatal assertion outside a test): stop here. */
    abort();
}

/* Runs fn in `phase`; returns false when it was left by a fatal failure
 * or a skip. */
static bool run_phase(enum tattle__phase phase, void (*fn)(void))
{
    if (!fn)
        return true;
    atomic_store(&current_slot->phase, phase);
    jmp_buf exit_point;
    jmp_buf *outer = current_phase_exit;
    volatile bool completed = false;
    current_phase_exit = &exit_point;
    if (setjmp(exit_point) == 0) {
        fn();
        completed = true;
    }
    current_phase_exit = outer;
    return completed;
}

static void run_on_exit_callbacks(void)
{
    atomic_store(&current_slot->phase, TATTLE__PHASE_ON_EXIT);
    while (on_exit_count > 0) {
        struct on_exit_callback callback = on_exit_callbacks[--on_exit_count];
        jmp_buf exit_point;
        jmp_buf *outer = current_phase_exit;
        current_phase_exit = &exit_point;
        if (setjmp(exit_point) == 0)
            callback.fn(callback.ctx);
        current_phase_exit = outer;
    }
}

void tattle__child_run(const struct tattle__test_entry *entry,
                       struct tattle__slot *slot, bool forked)
{
    (void)forked;
    const struct tattle_suite *suite = entry->suite;
    const struct tattle_test *test = entry->test;
    current_slot = slot;
    test_thread = pthread_self();
    test_process = getpid();
    on_exit_count = 0;

    bool ready = run_phase(TATTLE__PHASE_SETUP,
                           suite ? suite->options.setup : NULL);
    if (ready)
        ready = run_phase(TATTLE__PHASE_SETUP, test->options.setup);
    if (!ready)
        atomic_store(&slot->setup_failed, 1);
    else
        run_phase(TATTLE__PHASE_BODY, test->body);
    run_phase(TATTLE__PHASE_TEARDOWN, test->options.teardown);
    run_phase(TATTLE__PHASE_TEARDOWN, suite ? suite->options.teardown : NULL);
    run_on_exit_callbacks();
    atomic_store(&slot->phase, TATTLE__PHASE_DONE);
    current_slot = NULL;
}
