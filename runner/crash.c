/*
 * crash.c — fatal signal handlers for the test process.
 */
#include "runner/crash.h"

#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <string.h>

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE,
                                    SIGABRT, SIGTRAP, SIGSYS};

static struct tattle__slot *crash_slot;
static void (*crash_callback)(void);
static _Alignas(16) unsigned char alternate_stack[128 * 1024];

void tattle__crash_prepare(void)
{
    void *frames[2];
    backtrace(frames, 2);
}

static void crash_handler(int signal_number)
{
    void *frames[TATTLE__MAX_FRAMES];
    int count = backtrace(frames, TATTLE__MAX_FRAMES);
    if (crash_slot)
        tattle__slot_add_crash(crash_slot, signal_number, frames, count);
    if (crash_callback)
        crash_callback();
    /* Die of the same signal, so the runner sees the real cause. */
    struct sigaction default_action;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    sigaction(signal_number, &default_action, NULL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signal_number);
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
    raise(signal_number);
}

int tattle__crash_install(struct tattle__slot *slot, void (*on_crash)(void))
{
    crash_slot = slot;
    crash_callback = on_crash;
    stack_t stack = {.ss_sp = alternate_stack,
                     .ss_size = sizeof alternate_stack};
    if (sigaltstack(&stack, NULL) != 0)
        return -errno;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = crash_handler;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; i++)
        if (sigaction(crash_signals[i], &action, NULL) != 0)
            return -errno;
    return 0;
}
