/*
 * fixture_stacks.c — tests that time out on purpose, for the stacks the
 * runner takes before it kills them (tests/stacks/test_stacks.py), and a
 * traced test that crashes (writing to a page it may not touch) while a second
 * thread waits, for the stacks the runner takes while the crash handler waits.
 *
 * The deadlock is the classic one: two threads each take their first lock,
 * meet at a barrier (so both hold it, without any sleep) and then wait
 * forever for the other's. The others are hostile to the taking: more
 * threads than are shown, a child process, a thread whose stack pointer is
 * garbage, threads that keep starting and ending while they are taken,
 * and (in the address sanitizer's build) a test whose thread is busy
 * inside the sanitizer's runtime. One traced test keeps working until it
 * is stopped, and writes how far it got where the driver can read it
 * after the run: the stacks, the mailbox snapshot and the trace must all
 * show the moment the runner stopped it. One traced test crashes again
 * inside the crash handler (its arena hidden from its own process), and
 * two crash after a vfork child of theirs crashed. One more crashes for
 * the test after it, which checks that the crash mapped no library into
 * the runner. Two (one traced) crash in a callback from a library they
 * loaded with dlopen() (crash_library.c), which only their own maps hold.
 * Every wait of a test that times out is on something that never comes:
 * it ends only by its timeout.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

#include "tests/tools/process_parent.h"

static pthread_mutex_t first_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold_one;

__attribute__((noinline)) static void *lock_first_then_second(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&first_lock);
    pthread_barrier_wait(&both_hold_one);
    pthread_mutex_lock(&second_lock); /* @first_waits */
    return NULL;
}

__attribute__((noinline)) static void *lock_second_then_first(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&second_lock);
    pthread_barrier_wait(&both_hold_one);
    pthread_mutex_lock(&first_lock); /* @second_waits */
    return NULL;
}

TEST(deadlock, two_mutexes, .timeout_ms = 300)
{
    pthread_barrier_init(&both_hold_one, NULL, 2);
    pthread_t one, two;
    pthread_create(&one, NULL, lock_first_then_second, NULL);
    pthread_create(&two, NULL, lock_second_then_first, NULL);
    pthread_join(one, NULL);
    pthread_join(two, NULL);
}

/* Blocks on a pipe nobody writes to. */
__attribute__((noinline)) static void wait_forever(int fd)
{
    char byte;
    while (read(fd, &byte, 1) != 0)
        ;
    abort(); /* not reached: the test keeps the write end open */
}

static int never_written[2];

static void *waiting_thread(void *unused)
{
    (void)unused;
    wait_forever(never_written[0]);
    return NULL;
}

enum { MANY_THREADS = 300 };

TEST(hostile, more_threads_than_shown, .timeout_ms = 1000)
{
    ASSERT_EQ(pipe(never_written), 0);
    static pthread_t threads[MANY_THREADS];
    pthread_attr_t small;
    pthread_attr_init(&small);
    pthread_attr_setstacksize(&small, 64 * 1024);
    for (int i = 0; i < MANY_THREADS; i++)
        ASSERT_EQ(pthread_create(&threads[i], &small, waiting_thread, NULL), 0);
    /* The driver reads this from the output: with it the timeout came after
     * every thread existed, and the bound is what left threads out. */
    printf("all %d threads started\n", MANY_THREADS);
    fflush(stdout);
    wait_forever(never_written[0]);
}

__attribute__((noinline)) static void child_waits(int fd)
{
    wait_forever(fd);
}

TEST(hostile, child_process, .timeout_ms = 300)
{
    ASSERT_EQ(pipe(never_written), 0);
    pid_t child = fork();
    ASSERT_NE(child, -1);
    if (child == 0)
        child_waits(never_written[0]);
    wait_forever(never_written[0]);
}

#if defined(__x86_64__)
static void *garbage_stack_thread(void *unused)
{
    (void)unused;
    /* The stack and frame pointers point at nothing; the thread spins
     * without touching memory. */
    __asm__ volatile("mov $0x10, %%rsp\n"
                     "mov $0x18, %%rbp\n"
                     "1: jmp 1b\n" ::
                         : "memory");
    return NULL;
}

TEST(hostile, garbage_stack, .timeout_ms = 300)
{
    ASSERT_EQ(pipe(never_written), 0);
    pthread_t thread;
    pthread_create(&thread, NULL, garbage_stack_thread, NULL);
    wait_forever(never_written[0]);
}
#endif

static void *ends_at_once(void *unused)
{
    (void)unused;
    return NULL;
}

/* Starts threads that end at once, without a pause: when the timeout comes
 * some of them end between being seized and being stopped, and each must
 * still be reaped by the runner, or the test's process could never be. */
__attribute__((noinline)) static void start_threads_forever(void)
{
    pthread_attr_t detached;
    pthread_attr_init(&detached);
    pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&detached, 64 * 1024);
    for (;;) {
        pthread_t thread;
        pthread_create(&thread, &detached, ends_at_once, NULL);
    }
}

TEST(hostile, threads_come_and_go, .timeout_ms = 300)
{
    start_threads_forever();
}

#if defined(__SANITIZE_ADDRESS__)
#define FIXTURE_ADDRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIXTURE_ADDRESS_SANITIZED 1
#endif
#endif
#ifdef FIXTURE_ADDRESS_SANITIZED
#include <sanitizer/asan_interface.h>

/* Asks the address sanitizer's runtime, without end, whether a large block
 * is addressable: the test's only thread is nearly always inside the
 * runtime's code when its stacks are taken, and must be shown all the
 * same. */
__attribute__((noinline)) static void ask_the_runtime_forever(void)
{
    enum { BLOCK_BYTES = 64 << 20 };
    char *block = malloc(BLOCK_BYTES);
    ASSERT_NOT_NULL(block);
    for (;;)
        ASSERT_NULL(__asan_region_is_poisoned(block, BLOCK_BYTES));
}

TEST(hostile, inside_the_sanitizer_runtime, .timeout_ms = 300)
{
    ask_the_runtime_forever();
}
#endif

enum { BENCH_THREADS = 16 };

TEST(bench, sixteen_threads, .timeout_ms = 300)
{
    ASSERT_EQ(pipe(never_written), 0);
    static pthread_t threads[BENCH_THREADS - 1];
    for (int i = 0; i < BENCH_THREADS - 1; i++)
        ASSERT_EQ(pthread_create(&threads[i], NULL, waiting_thread, NULL), 0);
    wait_forever(never_written[0]);
}

/* Sends step after step into a mailbox (each send and receive recorded in
 * the trace), storing each step's number in `progress` before it is sent,
 * until the process is stopped. Paced by a short pause, so the test's event
 * budget lasts past its timeout; the pause is no synchronisation: the test
 * waits for nothing. */
__attribute__((noinline)) static void record_until_stopped(atomic_int *progress)
{
    tattle_actor_name("stepper");
    tattle_mailbox *box = tattle_mailbox_open("steps", 16);
    if (!box)
        FAIL("tattle_mailbox_open failed");
    char text[32], label[TATTLE_MAILBOX_LABEL_MAX], received[32];
    for (int step = 1;; step++) {
        atomic_store(progress, step);
        int length = snprintf(text, sizeof text, "step %d", step);
        tattle_mailbox_send(box, "step", text, (size_t)length);
        /* The newest four steps stay pending. */
        if (step > 4)
            tattle_mailbox_recv(box, label, sizeof label, received,
                                sizeof received, 0);
        struct timespec pause = {0, 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

TEST(race, records_until_stopped, .timeout_ms = 300, .tags = "trace_messages",
     .trace_budget = 10000000)
{
    /* The driver reads the last step from this file after the run. */
    int fd = open("race_progress.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, 4096) != 0)
        FAIL("cannot create race_progress.bin");
    atomic_int *progress =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (progress == MAP_FAILED)
        FAIL("cannot map race_progress.bin");
    record_until_stopped(progress);
}

/* The second thread of the crash: says it is here, then waits on a pipe
 * nobody writes to, inside this function, until the process dies. */
__attribute__((noinline)) static void worker_waits_for_the_crash(int ready,
                                                                 int never)
{ /* @worker_begins */
    char byte = 'r';
    if (write(ready, &byte, 1) != 1)
        abort();
    while (read(never, &byte, 1) != 0) /* @worker_waits */
        ;
    abort(); /* @worker_ends: not reached, the write end stays open */
}

static int worker_ready[2];

static void *crash_worker(void *unused)
{
    (void)unused;
    worker_waits_for_the_crash(worker_ready[1], never_written[0]);
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

__attribute__((noinline)) static void
write_to_inaccessible(volatile int *pointer)
{
    *pointer = 42; /* @crashes */
}

TEST(crash, traced_with_a_waiting_thread, .tags = "trace_messages",
     .timeout_ms = 20000)
{
    ASSERT_EQ(pipe(never_written), 0);
    ASSERT_EQ(pipe(worker_ready), 0);
    pthread_t worker;
    ASSERT_EQ(pthread_create(&worker, NULL, crash_worker, NULL), 0);
    char byte;
    ASSERT_EQ(read(worker_ready[0], &byte, 1), 1);
    write_to_inaccessible(inaccessible_address());
}

TEST(crash, untraced_with_a_waiting_thread, .timeout_ms = 20000)
{
    ASSERT_EQ(pipe(never_written), 0);
    ASSERT_EQ(pipe(worker_ready), 0);
    pthread_t worker;
    ASSERT_EQ(pthread_create(&worker, NULL, crash_worker, NULL), 0);
    char byte;
    ASSERT_EQ(read(worker_ready[0], &byte, 1), 1);
    write_to_inaccessible(inaccessible_address());
}

/* A traced test whose crash faults again inside the crash handler: its
 * arena is made inaccessible to the test process, so the handler's
 * finishing of the trace (its crash callback) takes a SIGSEGV while it
 * handles the test's SIGBUS (a write past the end of an empty file's
 * mapping). The report must name the signal the process died of, with
 * the first crash's stacktrace. */
__attribute__((noinline)) static void
bus_error_with_the_arena_hidden(volatile char *past_the_end)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t arena = (uintptr_t)tattle_trace_current;
    void *first_page = (void *)(arena - arena % (uintptr_t)page);
    if (mprotect(first_page, (size_t)page, PROT_NONE) == 0)
        *past_the_end = 1; /* @bus_error */
}

TEST(crash, faults_again_in_its_handler, .tags = "trace_messages",
     .timeout_ms = 20000)
{
    ASSERT_NOT_NULL(tattle_trace_current);
    FILE *empty = tmpfile();
    ASSERT_NOT_NULL(empty);
    long page = sysconf(_SC_PAGESIZE);
    void *mapped = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED,
                        fileno(empty), 0);
    ASSERT(mapped != MAP_FAILED);
    bus_error_with_the_arena_hidden(mapped);
    FAIL("the arena could not be made inaccessible");
}

/* A vfork child crashes first (in the parent's memory, before it could
 * exec), then the test's own process crashes: the report names the test's
 * crash, with its own stacktrace, never the child's. */
__attribute__((noinline)) static void
vfork_child_writes_to_inaccessible(volatile int *pointer)
{
    *pointer = 7; /* @vfork_child_crashes */
}

/* The status the vfork child ended with (it writes to `nowhere`). */
__attribute__((noinline)) static int vfork_child_crashing(volatile int *nowhere)
{
    pid_t child = vfork();
    if (child == 0) {
        vfork_child_writes_to_inaccessible(nowhere);
        _exit(0);
    }
    int status = -1;
    if (child < 0 || waitpid(child, &status, 0) != child)
        return -1;
    return status;
}

static void crash_after_a_vfork_child_crashed(void)
{
    volatile int *nowhere = inaccessible_address();
    ASSERT_NOT_NULL((void *)(uintptr_t)nowhere);
    int status = vfork_child_crashing(nowhere);
    ASSERT(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
           "the vfork child ended with status %#x", (unsigned)status);
    tattle_trace_event(1, NULL, NULL, "child crashed", "vfork");
    write_to_inaccessible(nowhere);
}

TEST(crash, vfork_child_then_traced_test, .tags = "trace_messages",
     .timeout_ms = 20000)
{
    crash_after_a_vfork_child_crashed();
}

TEST(crash, vfork_child_then_untraced_test, .timeout_ms = 20000)
{
    crash_after_a_vfork_child_crashed();
}

/* ---- a crash through a library the test loaded itself ---- */

/* Keeps the call before it out of tail position, so that its caller's
 * frame stays on the stack: the test checks every frame of the crash. */
#define KEEP_THIS_FRAME() __asm__ volatile("" ::: "memory")

/* Crashes: called back from crash_library.c's library. */
__attribute__((noinline)) static void crash_in_a_callback(void)
{
    write_to_inaccessible(inaccessible_address());
    KEEP_THIS_FRAME();
}

/* Loads the library STACKS_CRASH_LIBRARY names and has it call back into
 * crash_in_a_callback. */
__attribute__((noinline)) static void crash_through_the_library(void)
{
    const char *path = getenv("STACKS_CRASH_LIBRARY");
    ASSERT(path, "STACKS_CRASH_LIBRARY is not set");
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ASSERT(library, "dlopen %s: %s", path, dlerror());
    void (*call)(void (*)(void));
    *(void **)&call = dlsym(library, "crash_library_call");
    ASSERT(call, "dlsym crash_library_call: %s", dlerror());
    call(crash_in_a_callback);
    KEEP_THIS_FRAME();
}

TEST(dlopened, untraced_crash)
{
    crash_through_the_library();
    KEEP_THIS_FRAME();
}

TEST(dlopened, traced_crash, .tags = "trace_messages")
{
    crash_through_the_library();
    KEEP_THIS_FRAME();
}

/* After a crash, which the runner symbolizes before it hands the crashed
 * test's job its next test (it reads the frames from the job's slot), the
 * runner must hold no library it did not hold at its start: whatever a
 * crash maps into it stays for the rest of the run, and every later fork
 * of the runner copies it. At -j1 this test's parent is the fork server,
 * forked from the runner at its start: the libraries the server maps are
 * the ones the runner started with. libdw's standard debug file lookup
 * ended, for a module with no debug information (this program, when
 * the driver runs a copy stripped of it), in its debuginfod client, which
 * maps libcurl and its TLS libraries. */
TEST(after_a_crash, crashes)
{
    write_to_inaccessible(inaccessible_address());
}

enum { MAX_LIBRARIES = 256 };

struct libraries {
    size_t count;
    char paths[MAX_LIBRARIES][PATH_MAX];
};

/* Whether `path` names a shared library: ".so" at its end or before a
 * version (libc.so.6). */
static bool is_library(const char *path)
{
    for (const char *at = strstr(path, ".so"); at; at = strstr(at + 1, ".so"))
        if (at[3] == '\0' || at[3] == '.')
            return true;
    return false;
}

/* The shared libraries process `pid` maps (each path once); false when its
 * maps cannot be read or hold more than MAX_LIBRARIES of them. */
static bool libraries_of(pid_t pid, struct libraries *libraries)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *maps = fopen(path, "re");
    if (!maps)
        return false;
    libraries->count = 0;
    bool fits = true;
    char *line = NULL;
    size_t room = 0;
    while (fits && getline(&line, &room, maps) > 0) {
        char *file = strchr(line, '/');
        if (!file)
            continue;
        file[strcspn(file, "\n")] = '\0';
        if (!is_library(file) || strlen(file) >= PATH_MAX)
            continue;
        bool known = false;
        for (size_t i = 0; i < libraries->count && !known; i++)
            known = strcmp(libraries->paths[i], file) == 0;
        if (known)
            continue;
        if (libraries->count == MAX_LIBRARIES)
            fits = false;
        else
            strcpy(libraries->paths[libraries->count++], file);
    }
    free(line);
    fclose(maps);
    return fits;
}

/* Whether processes `a` and `b` run the same program file. */
static bool same_program(pid_t a, pid_t b)
{
    char path[64];
    struct stat first, second;
    snprintf(path, sizeof path, "/proc/%d/exe", (int)a);
    if (stat(path, &first) != 0)
        return false;
    snprintf(path, sizeof path, "/proc/%d/exe", (int)b);
    return stat(path, &second) == 0 && first.st_dev == second.st_dev &&
           first.st_ino == second.st_ino;
}

static struct libraries server_libraries, runner_libraries;

TEST(after_a_crash, runner_mapped_no_new_library)
{
    pid_t server = getppid();
    pid_t runner = fixture_parent_of(server);
    ASSERT(runner > 1, "the runner's pid is unknown (server %d)", (int)server);
    ASSERT(same_program(runner, getpid()),
           "process %d, the parent of this test's server, is not the runner",
           (int)runner);
    ASSERT(libraries_of(server, &server_libraries),
           "the server's libraries could not be read");
    ASSERT(libraries_of(runner, &runner_libraries),
           "the runner's libraries could not be read");
    for (size_t i = 0; i < runner_libraries.count; i++) {
        bool held_at_start = false;
        for (size_t j = 0; j < server_libraries.count && !held_at_start; j++)
            held_at_start = strcmp(runner_libraries.paths[i],
                                   server_libraries.paths[j]) == 0;
        EXPECT(held_at_start, "the runner mapped %s after the crash",
               runner_libraries.paths[i]);
    }
}
