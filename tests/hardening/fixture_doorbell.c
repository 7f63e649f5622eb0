/*
 * fixture_doorbell.c — tests that abuse the crash doorbell, for
 * test_doorbell.py.
 *
 * A traced test's crash handler rings the runner (a signal, with the
 * result slot's crash_stop word set to RUNG) and waits until the runner
 * has taken every thread's stack (TAKEN). A test can do all of that by
 * itself: it finds its result slot among its writable shared mappings (the
 * one whose header names the runner, its grandparent, as the doorbell's
 * pid) and rings without crashing, rings ever again, re-arms the word
 * while its real crash handler waits, or closes the doorbell before it
 * crashes. The runner must answer a bounded number of rings per test,
 * never wait on the test, and report each test as what it did: the
 * stacks of a crash are the ones taken when that crash rang, never those
 * of a forged ring before it. Two threads crashing at once are reported
 * as the first one's crash. A reporter of this binary's own forks a
 * process in the runner that raises the doorbell's signal: it dies of it.
 *
 * Tests wait on conditions (the slot's word, bounded by HOSTILE_WAIT_MS,
 * which the driver scales), never by sleeping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/reporter.h>
#include <tattle/tattle.h>

#include "runner/slot.h"
#include "tests/tools/process_parent.h"

static long wait_ms(void)
{
    const char *text = getenv("HOSTILE_WAIT_MS");
    long value = text ? strtol(text, NULL, 10) : 0;
    return value > 0 ? value : 10000;
}

/* This test's result slot: the writable shared mapping whose header says
 * the runner (the fork server's parent) is to be rung. NULL if none. */
static struct tattle__slot *own_slot(void)
{
    pid_t runner = fixture_parent_of(getppid());
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps || runner <= 0)
        return NULL;
    struct tattle__slot *found = NULL;
    char line[1024];
    while (!found && fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char permissions[8] = {0};
        if (sscanf(line, "%lx-%lx %7s", &start, &end, permissions) < 3)
            continue;
        if (permissions[1] != 'w' || permissions[3] != 's' ||
            end - start < sizeof(struct tattle__slot))
            continue;
        struct tattle__slot *slot = (struct tattle__slot *)start;
        if (slot->capacity ==
                end - start - offsetof(struct tattle__slot, records) &&
            atomic_load(&slot->doorbell_pid) == runner)
            found = slot;
    }
    fclose(maps);
    return found;
}

/* A thread of the binary's own, started before main, that blocks no
 * signal: a ring the kernel hands to it must still reach the runner's
 * reader, not end the runner by the signal's default action. */
#ifndef __SANITIZE_THREAD__
static void *idle_library_thread(void *unused)
{
    (void)unused;
    for (;;)
        pause();
    return NULL;
}
#endif

/* Not under ThreadSanitizer: a test process forked from a multi-threaded
 * runner may not start threads there (the sanitizer ends it, exit 66), and
 * the re-arming case starts one. The other builds keep the check. */
__attribute__((constructor)) static void start_library_thread(void)
{
#ifndef __SANITIZE_THREAD__
    pthread_t thread;
    sigset_t nothing;
    sigemptyset(&nothing);
    pthread_sigmask(SIG_SETMASK, &nothing, NULL);
    if (pthread_create(&thread, NULL, idle_library_thread, NULL) == 0)
        pthread_detach(thread);
#endif
}

/* Rings as a crash handler does: naming the calling thread. */
static void ring(struct tattle__slot *slot)
{
    atomic_store(&slot->crash_tid, (int32_t)syscall(SYS_gettid));
    atomic_store(&slot->crash_stop, TATTLE__CRASH_STOP_RUNG);
    kill(atomic_load(&slot->doorbell_pid), atomic_load(&slot->doorbell_signal));
}

/* Waits, bounded, until the slot's crash_stop is no longer `value`. */
static bool wait_while(struct tattle__slot *slot, uint32_t value)
{
    struct timespec now, deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += wait_ms() / 1000;
    deadline.tv_nsec += (wait_ms() % 1000) * 1000000;
    while (atomic_load(&slot->crash_stop) == value) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long left_ns =
            (long long)(deadline.tv_sec - now.tv_sec) * 1000000000 +
            (deadline.tv_nsec - now.tv_nsec);
        if (left_ns <= 0)
            return false;
        struct timespec timeout = {(time_t)(left_ns / 1000000000),
                                   (long)(left_ns % 1000000000)};
        syscall(SYS_futex, (uint32_t *)&slot->crash_stop, FUTEX_WAIT, value,
                &timeout, NULL, 0);
    }
    return true;
}

enum { RINGS = 1000 };

/* Rings without crashing, is answered, rings a thousand times more (no
 * more answers), then passes. */
TEST(doorbell, forged_then_passes, .tags = "trace_messages")
{
    struct tattle__slot *slot = own_slot();
    ASSERT_NOT_NULL(slot);
    ring(slot);
    ASSERT(wait_while(slot, TATTLE__CRASH_STOP_RUNG));
    ASSERT_EQ(atomic_load(&slot->crash_stop), TATTLE__CRASH_STOP_TAKEN);
    printf("answered once\n"); /* the driver checks it */
    for (int i = 0; i < RINGS; i++)
        ring(slot);
    printf("rang %d times more\n", RINGS);
}

/* A process the test forked rings (as its crash handler would): the
 * runner answers it at once without touching the test, which then rings
 * for itself and is answered with its stacks. */
TEST(doorbell, child_rings_then_passes, .tags = "trace_messages")
{
    struct tattle__slot *slot = own_slot();
    ASSERT_NOT_NULL(slot);
    pid_t child = fork();
    ASSERT(child >= 0);
    if (child == 0) {
        ring(slot);
        _exit(wait_while(slot, TATTLE__CRASH_STOP_RUNG) ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_EQ(atomic_load(&slot->crash_stop), TATTLE__CRASH_STOP_NONE);
    printf("the child's ring answered without stacks\n");
    ring(slot);
    ASSERT(wait_while(slot, TATTLE__CRASH_STOP_RUNG));
    ASSERT_EQ(atomic_load(&slot->crash_stop), TATTLE__CRASH_STOP_TAKEN);
    printf("its own ring answered with stacks\n");
}

/* Sends the doorbell's signal a thousand times, never with the word set:
 * nothing to answer. */
TEST(doorbell, signals_only, .tags = "trace_messages")
{
    struct tattle__slot *slot = own_slot();
    ASSERT_NOT_NULL(slot);
    for (int i = 0; i < RINGS; i++)
        kill(atomic_load(&slot->doorbell_pid),
             atomic_load(&slot->doorbell_signal));
    ASSERT_EQ(atomic_load(&slot->crash_stop), TATTLE__CRASH_STOP_NONE);
    printf("signalled %d times\n", RINGS);
}

static struct tattle__slot *rearmed_slot;

/* Puts the word back to RUNG whenever the runner answers, so the crash
 * handler waits for an answer that never stays: it must give up at the
 * bound the runner set and die of its signal. */
static void *keep_rearming(void *unused)
{
    (void)unused;
    for (;;) {
        wait_while(rearmed_slot, TATTLE__CRASH_STOP_NONE);
        if (atomic_load(&rearmed_slot->crash_stop) ==
            TATTLE__CRASH_STOP_TAKEN) {
            atomic_store(&rearmed_slot->crash_stop, TATTLE__CRASH_STOP_RUNG);
            kill(atomic_load(&rearmed_slot->doorbell_pid),
                 atomic_load(&rearmed_slot->doorbell_signal));
        }
        wait_while(rearmed_slot, TATTLE__CRASH_STOP_RUNG);
    }
    return NULL;
}

/* An address that faults when written: a page mapped without access. Not
 * NULL, so that sanitizer builds see a real SIGSEGV rather than UBSan's
 * null-pointer check (and the optimiser sees no NULL store to trap). */
static volatile int *inaccessible_address(void)
{
    void *page =
        mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return page == MAP_FAILED ? NULL : page;
}

TEST(doorbell, rearmed_while_crashing, .tags = "trace_messages",
     .timeout_ms = 60000)
{
    rearmed_slot = own_slot();
    ASSERT_NOT_NULL(rearmed_slot);
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, keep_rearming, NULL), 0);
    *inaccessible_address() = 1;
}

/* Closes the doorbell (no runner to ring) before it crashes: reported as
 * a crash, without the other threads' stacks. */
TEST(doorbell, closed_then_crashes, .tags = "trace_messages")
{
    struct tattle__slot *slot = own_slot();
    ASSERT_NOT_NULL(slot);
    atomic_store(&slot->doorbell_pid, 0);
    *inaccessible_address() = 2;
}

/* Where the crash after a forged ring happens: its stack must be the
 * one reported. */
__attribute__((noinline)) static void
crash_after_the_forgery(volatile int *pointer)
{
    *pointer = 3;
}

/* Rings without crashing, is answered (the runner takes the stacks of
 * that moment), then crashes somewhere else: the crash rings again and
 * its own stacks are reported. */
TEST(doorbell, forged_then_crashes, .tags = "trace_messages")
{
    struct tattle__slot *slot = own_slot();
    ASSERT_NOT_NULL(slot);
    ring(slot);
    ASSERT(wait_while(slot, TATTLE__CRASH_STOP_RUNG));
    ASSERT_EQ(atomic_load(&slot->crash_stop), TATTLE__CRASH_STOP_TAKEN);
    crash_after_the_forgery(inaccessible_address());
}

/* Rings without crashing, is answered, then closes the doorbell and
 * crashes: the crash never rang, so the stacks of the forged ring are not
 * reported as the crash's. */
TEST(doorbell, forged_then_closed_then_crashes, .tags = "trace_messages")
{
    struct tattle__slot *slot = own_slot();
    ASSERT_NOT_NULL(slot);
    ring(slot);
    ASSERT(wait_while(slot, TATTLE__CRASH_STOP_RUNG));
    ASSERT_EQ(atomic_load(&slot->crash_stop), TATTLE__CRASH_STOP_TAKEN);
    atomic_store(&slot->doorbell_pid, 0);
    crash_after_the_forgery(inaccessible_address());
}

static struct tattle__slot *crashing_slot;

/* The second thread to crash: SIGABRT, in a function of its own. */
__attribute__((noinline)) static void crash_second(void)
{
    abort();
}

/* Waits until the first thread's crash handler rang, then crashes too,
 * while that handler waits for the runner. The handler does not wake the
 * word's waiters when it rings (the runner's answer does): the word is
 * watched, bounded, so that this crash comes before the answer. */
static void *crash_while_the_first_rings(void *unused)
{
    (void)unused;
    struct timespec now, deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += wait_ms() / 1000 + 1;
    while (atomic_load(&crashing_slot->crash_stop) != TATTLE__CRASH_STOP_RUNG) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > deadline.tv_sec)
            break;
    }
    crash_second();
    return NULL;
}

__attribute__((noinline)) static void crash_first(volatile int *pointer)
{
    *pointer = 4;
}

/* The test's own thread crashes (SIGSEGV) and, while its handler waits for
 * the runner, a second thread crashes (SIGABRT): the test is reported as
 * the first crash, with the first thread's stack first, and dies of its
 * signal. */
TEST(doorbell, two_threads_crash, .tags = "trace_messages", .timeout_ms = 60000)
{
    crashing_slot = own_slot();
    ASSERT_NOT_NULL(crashing_slot);
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, crash_while_the_first_rings, NULL),
              0);
    crash_first(inaccessible_address());
}

/* Records a crash of this process as its crash handler does
 * (runner/test_process/slot_write.c lays the record out): claimed, written,
 * then committed by its type. The frames are this thread's own. */
static bool record_own_crash(struct tattle__slot *slot, int signal_number)
{
    struct {
        struct tattle__slot_record_header header;
        struct tattle__slot_crash_payload crash;
    } record = {.header = {.size = sizeof record}};
    void *frames[TATTLE__MAX_FRAMES];
    int count = backtrace(frames, TATTLE__MAX_FRAMES);
    record.crash.signal_number = signal_number;
    record.crash.frame_count = count;
    record.crash.pid = (int32_t)getpid();
    for (int i = 0; i < count; i++)
        record.crash.frames[i] = (uint64_t)(uintptr_t)frames[i];
    uint32_t at = atomic_fetch_add(&slot->reserved, (uint32_t)sizeof record);
    if (at + sizeof record > slot->capacity)
        return false;
    struct tattle__slot_record_header *header =
        (struct tattle__slot_record_header *)(slot->records + at);
    header->size = record.header.size;
    memcpy(header + 1, &record.crash, sizeof record.crash);
    atomic_store_explicit(&header->type, TATTLE__RECORD_CRASH,
                          memory_order_release);
    return true;
}

/* Forks a worker that crashes (SIGABRT); returns once it is dead of it. */
static bool worker_crashed(void)
{
    fflush(NULL);
    pid_t worker = fork();
    if (worker == 0)
        abort();
    int status = 0;
    return worker > 0 && waitpid(worker, &status, 0) == worker &&
           WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* Where the test's own crash happens: its thread's stack must show it. */
__attribute__((noinline)) static void crash_while_a_worker_crashes(void)
{
    struct tattle__slot *slot = own_slot();
    if (!slot || !record_own_crash(slot, SIGABRT))
        _exit(3);
    ring(slot);
    if (!wait_while(slot, TATTLE__CRASH_STOP_RUNG) ||
        atomic_load(&slot->crash_stop) != TATTLE__CRASH_STOP_TAKEN)
        _exit(4);
    if (!worker_crashed())
        _exit(5);
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
}

/* The test crashes as its handler would (its record, then its ring,
 * answered with its stacks), and a worker it forked crashes after the
 * runner answered, before the test dies: the worker's crash record, the
 * later one in the slot, is not the test's, and leaves the stacks taken
 * for the test's crash in place. (An honest handler dies as soon as it is
 * answered; a worker crashing at that moment, say of the test's end,
 * leaves its record in the same place.) */
TEST(doorbell, worker_crashes_after_the_ring, .tags = "trace_messages")
{
    crash_while_a_worker_crashes();
}

TEST(doorbell, after_passes)
{
    printf("after passes\n");
}

/* ---- the doorbell's signal in a process the runner forks ---- */

/* How a child forked here ended after raising the doorbell's signal
 * (SIGRTMIN+3, the runner's): "killed by N" or "exited N". */
static void fork_a_child_raising_the_doorbell(FILE *out, const char *when)
{
    fflush(out);
    pid_t child = fork();
    if (child == 0) {
        raise(SIGRTMIN + 3);
        _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child)
        fprintf(out, "%s: no child\n", when);
    else if (WIFSIGNALED(status))
        fprintf(out, "%s: killed by %s\n", when,
                WTERMSIG(status) == SIGRTMIN + 3 ? "SIGRTMIN+3" : "another");
    else
        fprintf(out, "%s: exited %d\n", when, WEXITSTATUS(status));
}

/* A reporter run in the runner: forks while the runner runs tests (its
 * doorbell signal blocked and handled there) and after the run. */
static int forking_create(void **self, const char *destination,
                          const struct tattle_report_options *options)
{
    (void)options;
    FILE *out = fopen(destination ? destination : "forks.txt", "we");
    if (!out)
        return -errno;
    *self = out;
    return 0;
}

static void forking_begin(void *self, const struct tattle_run_info *run)
{
    (void)self;
    (void)run;
}

static void forking_started(void *self, const struct tattle_test_info *test)
{
    (void)self;
    (void)test;
}

static void forking_finished(void *self, const struct tattle_result *result)
{
    (void)result;
    fork_a_child_raising_the_doorbell(self, "during the run");
}

static int forking_end(void *self, const struct tattle_summary *summary)
{
    (void)summary;
    fork_a_child_raising_the_doorbell(self, "after the run");
    return fflush(self) == 0 ? 0 : -errno;
}

static void forking_destroy(void *self)
{
    fclose(self);
}

static const struct tattle_reporter_type forking_reporter = {
    .name = "doorbell-forks",
    .create = forking_create,
    .begin = forking_begin,
    .test_started = forking_started,
    .test_finished = forking_finished,
    .end = forking_end,
    .destroy = forking_destroy,
};

__attribute__((constructor)) static void register_forking_reporter(void)
{
    tattle_reporter_register(&forking_reporter);
}
