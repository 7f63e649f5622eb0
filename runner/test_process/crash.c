/*
 * crash.c — fatal signal handlers for the test process.
 *
 * The runner installs them once; every forked test process inherits the
 * handlers and the alternate stack, and points crash_slot at its own result
 * slot (of which it becomes the owner) before it runs. A suite server running a
 * fixture also names a mirror: the fixture's private slot, copied into
 * the job's slot when the server itself crashes.
 *
 * One crash per process is reported: the first thread to crash claims it
 * (in the process's own memory, which the slot is not) and is the one whose
 * record, doorbell ring and signal the runner sees; a thread that crashes
 * while another holds the claim waits in its handler until the first one's
 * signal ends the process, for a bounded time (wait_for_other_crash). A
 * crash with another signal inside the handler (a fault in the crash
 * callback, say) comes back to the handler, which ends the process with
 * the first crash's signal: the process dies of what its slot records.
 */
#include "runner/test_process/crash.h"
#include "runner/test_process/slot_write.h"
#include "base/child_path.h"

#include <errno.h>
#include <execinfo.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const int crash_signals[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
                                    SIGABRT, SIGTRAP, SIGSYS};

enum { CRASH_SIGNAL_COUNT = sizeof crash_signals / sizeof *crash_signals };

TATTLE__CHILD_STATE static struct tattle__slot *crash_slot;
static const struct tattle__slot *mirror_from;
static struct tattle__slot *mirror_to;
static size_t mirror_bytes;
static pid_t mirror_owner;
static void (*crash_callback)(void);
static _Alignas(16) unsigned char alternate_stack[128 * 1024];
static struct sigaction previous_actions[CRASH_SIGNAL_COUNT];
static stack_t previous_stack;
static bool installed;

TATTLE__CHILD_PATH void tattle__crash_set_slot(struct tattle__slot *slot,
                                               pid_t owner)
{
    crash_slot = slot;
    if (slot)
        tattle__slot_claim_ownership(slot, owner);
}

void tattle__crash_set_mirror(const struct tattle__slot *from,
                              struct tattle__slot *to, size_t bytes,
                              pid_t owner)
{
    mirror_to = NULL;
    mirror_from = from;
    mirror_bytes = bytes;
    mirror_owner = owner;
    mirror_to = to;
}

/* The longest a crashing process waits for the runner, whatever the slot
 * says: the slot is the test's to write. */
enum { DOORBELL_WAIT_MS_MAX = 120 * 1000 };

static uint64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Tells the runner this thread is crashing and waits until it took what
 * it takes of the living process (its maps and, when the test is traced,
 * every thread's stack), or until the wait the runner allowed is over. */
static void ring_and_wait_for_stacks(struct tattle__slot *slot)
{
    pid_t runner = atomic_load(&slot->doorbell_pid);
    int doorbell = atomic_load(&slot->doorbell_signal);
    uint32_t wait_ms = atomic_load(&slot->doorbell_wait_ms);
    if (runner <= 0 || doorbell <= 0 || wait_ms == 0)
        return;
    /* A process the test forked does not ring: the runner takes nothing
     * for it, and its answer would only keep it waiting. */
    if (atomic_load(&slot->owner_pid) != (int32_t)getpid())
        return;
    if (wait_ms > DOORBELL_WAIT_MS_MAX)
        wait_ms = DOORBELL_WAIT_MS_MAX;
    /* Rung whatever the word says: a forged ring before this crash may
     * have left it answered, and only a ring after the crash has the
     * runner take the stacks of this one. */
    atomic_store(&slot->crash_tid, (int32_t)syscall(SYS_gettid));
    atomic_store(&slot->crash_stop, TATTLE__CRASH_STOP_RUNG);
    if (kill(runner, doorbell) != 0)
        return;
    uint64_t deadline = monotonic_ns() + (uint64_t)wait_ms * 1000000u;
    while (atomic_load(&slot->crash_stop) == TATTLE__CRASH_STOP_RUNG) {
        uint64_t now = monotonic_ns();
        if (now >= deadline)
            return;
        uint64_t left = deadline - now;
        struct timespec timeout = {(time_t)(left / 1000000000u),
                                   (long)(left % 1000000000u)};
        /* Shared memory: a process-wide (not private) futex. It returns
         * at once when the word changed, on EINTR when the runner stopped
         * the thread, else when woken or timed out. */
        syscall(SYS_futex, (uint32_t *)&slot->crash_stop, FUTEX_WAIT,
                TATTLE__CRASH_STOP_RUNG, &timeout, NULL, 0);
    }
}

/* The thread whose crash this process reports and dies of, or 0. */
static _Atomic pid_t crashing_thread;
/* The signal of that crash, as the slot records it: what the process
 * dies of, even when the handler faults again with another signal. */
static _Atomic int crash_signal;

enum crash_claim { CLAIMED, CLAIMED_BEFORE_BY_THIS_THREAD, CLAIMED_BY_ANOTHER };

/* Claims the crash for the calling thread. A claim copied into a forked
 * child names a thread of the parent: no thread of this process, so the
 * child's own crash takes it over. */
static enum crash_claim claim_crash(void)
{
    pid_t self = (pid_t)syscall(SYS_gettid);
    pid_t holder = 0;
    while (!atomic_compare_exchange_strong(&crashing_thread, &holder, self)) {
        if (holder == self)
            return CLAIMED_BEFORE_BY_THIS_THREAD;
        if (syscall(SYS_tgkill, getpid(), holder, 0) == 0 || errno != ESRCH)
            return CLAIMED_BY_ANOTHER;
        /* holder stays what the store holds: try to take it over */
    }
    return CLAIMED;
}

static void die_of(int signal_number)
{
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

/* Waits while another thread of this process holds the crash: its
 * signal ends the process, this thread included, once the runner took the
 * stacks. Were that thread gone without it, or still there past the
 * longest the runner lets a handler wait and a 5 s grace (its handler
 * blocked in a crash callback, say), this thread takes the crash over and
 * reports its own. */
static enum crash_claim wait_for_other_crash(void)
{
    enum crash_claim claim;
    uint32_t wait_ms =
        crash_slot ? atomic_load(&crash_slot->doorbell_wait_ms) : 0;
    if (wait_ms > DOORBELL_WAIT_MS_MAX)
        wait_ms = DOORBELL_WAIT_MS_MAX;
    uint64_t deadline = monotonic_ns() + ((uint64_t)wait_ms + 5000) * 1000000u;
    while ((claim = claim_crash()) == CLAIMED_BY_ANOTHER) {
        if (monotonic_ns() >= deadline) {
            atomic_store(&crashing_thread, (pid_t)syscall(SYS_gettid));
            return CLAIMED;
        }
        struct timespec pause_time = {0, 1000000}; /* 1 ms */
        nanosleep(&pause_time, NULL);
    }
    return claim;
}

static void crash_handler(int signal_number)
{
    enum crash_claim claim = claim_crash();
    if (claim == CLAIMED_BY_ANOTHER)
        claim = wait_for_other_crash();
    if (claim == CLAIMED_BEFORE_BY_THIS_THREAD) {
        /* A crash inside this thread's own handling (another signal than
         * its first, which stays blocked while it is handled): no second
         * report, and the process dies of the crash its slot names. */
        int first = atomic_load(&crash_signal);
        die_of(first > 0 ? first : signal_number);
        return;
    }
    atomic_store(&crash_signal, signal_number);
    void *frames[TATTLE__MAX_FRAMES];
    int count = backtrace(frames, TATTLE__MAX_FRAMES);
    if (crash_slot)
        tattle__slot_add_crash(crash_slot, getpid(), signal_number, frames,
                               count);
    if (mirror_to && mirror_from && getpid() == mirror_owner)
        memcpy(mirror_to, mirror_from, mirror_bytes);
    if (crash_callback)
        crash_callback();
    if (crash_slot)
        ring_and_wait_for_stacks(crash_slot);
    die_of(signal_number);
}

int tattle__crash_install(void (*on_crash)(void))
{
    if (installed)
        return 0;
    /* The first backtrace() loads libgcc's unwinder: never in a handler. */
    void *frames[2];
    backtrace(frames, 2);
    crash_callback = on_crash;
    stack_t stack = {.ss_sp = alternate_stack,
                     .ss_size = sizeof alternate_stack};
    if (sigaltstack(&stack, &previous_stack) != 0)
        return -errno;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = crash_handler;
    /* Not SA_RESETHAND: a second thread crashing with the same signal
     * must come to the handler too, to wait for the first (claim_crash).
     * A fault inside the handler, its signal blocked there, ends the
     * process by the default action all the same. */
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++)
        if (sigaction(crash_signals[i], &action, &previous_actions[i]) != 0)
            return -errno;
    installed = true;
    return 0;
}

void tattle__crash_uninstall(void)
{
    if (!installed)
        return;
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++)
        sigaction(crash_signals[i], &previous_actions[i], NULL);
    sigaltstack(&previous_stack, NULL);
    crash_slot = NULL;
    installed = false;
}
