/*
 * fixture_suite_server.c — suites whose before_all and after_all do what
 * fixtures of real projects do, and what hostile ones do, for
 * test_suite_server.py: look at their signal state and wait for a child
 * through SIGCHLD, fork a child that returns from the fixture, start a
 * helper process that serves the suite's tests over pipes, start a helper
 * that writes garbage into every descriptor it inherited, scribble over
 * every shared mapping they can find, hang in an end-of-run after_all,
 * start a helper that fails and crashes after before_all returned, fork
 * from a thread before_all left running, flood the output, crash after a
 * child they forked crashed, and fork more crashing children than the
 * result slot has room for.
 *
 * Evidence goes to files in the working directory the driver gives each
 * run; waits are bounded by SUITE_WAIT_MS (the driver scales it) and meet
 * on files and pipes, never on sleeps.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/tattle.h>

static long wait_ms(void)
{
    const char *text = getenv("SUITE_WAIT_MS");
    long value = text ? strtol(text, NULL, 10) : 0;
    return value > 0 ? value : 10000;
}

static void note(const char *file, const char *what)
{
    FILE *out = fopen(file, "a");
    if (!out)
        abort();
    fprintf(out, "%s %d\n", what, (int)getpid());
    fclose(out);
}

static bool file_exists(const char *name)
{
    struct stat info;
    return stat(name, &info) == 0;
}

/* Waits (bounded) for a file another process creates: a directory's
 * inotify would do too, a short poll loop is enough for a test. */
static bool wait_for_file(const char *name, long bound_ms)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!file_exists(name)) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long spent = (now.tv_sec - start.tv_sec) * 1000 +
                     (now.tv_nsec - start.tv_nsec) / 1000000;
        if (spent > bound_ms)
            return false;
        struct timespec pause = {0, 2 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return true;
}

/* Waits (bounded) for a child to end, through a pidfd; returns its
 * waitpid status, or -1 when it did not end in time. */
static int wait_child(pid_t child, long bound_ms)
{
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    if (pidfd < 0)
        return -1;
    struct pollfd ended = {pidfd, POLLIN, 0};
    int ready = poll(&ended, 1, (int)bound_ms);
    close(pidfd);
    int status;
    if (ready != 1 || waitpid(child, &status, 0) != child)
        return -1;
    return status;
}

/* ---- signals: a fixture gets the signal state a test body gets ---- */

static const int program_signals[] = {SIGINT,  SIGTERM, SIGHUP,
                                      SIGQUIT, SIGUSR1, SIGUSR2};

static volatile sig_atomic_t child_signals;

static void count_child_signal(int number)
{
    (void)number;
    child_signals++;
}

/* Writes to `file` what this process's signal state is (one line each)
 * and whether a child's end reached it through a SIGCHLD handler. */
static void record_signal_state(const char *file)
{
    FILE *out = fopen(file, "a");
    if (!out)
        abort();
    sigset_t mask;
    sigprocmask(SIG_SETMASK, NULL, &mask);
    fprintf(out, "SIGCHLD blocked %d\n", sigismember(&mask, SIGCHLD));
    for (size_t i = 0; i < sizeof program_signals / sizeof *program_signals;
         i++) {
        struct sigaction action;
        sigaction(program_signals[i], NULL, &action);
        fprintf(out, "%s blocked %d default %d\n",
                sigabbrev_np(program_signals[i]),
                sigismember(&mask, program_signals[i]),
                action.sa_handler == SIG_DFL);
    }
    /* The child's end is pending once waitpid returns; it is delivered
     * on the way back from waitpid when it is not blocked. */
    struct sigaction counting = {.sa_handler = count_child_signal};
    struct sigaction before;
    sigemptyset(&counting.sa_mask);
    sigaction(SIGCHLD, &counting, &before);
    child_signals = 0;
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    int status = child > 0 ? wait_child(child, wait_ms()) : -1;
    fprintf(out, "child exited %d SIGCHLD handled %d\n", status == 0,
            child_signals > 0);
    sigaction(SIGCHLD, &before, NULL);
    fclose(out);
}

static void signals_before_all(void)
{
    record_signal_state("signals_before_all.txt");
}

static void signals_after_all(void)
{
    record_signal_state("signals_after_all.txt");
}

SUITE(signals, .before_all = signals_before_all,
      .after_all = signals_after_all);

TEST(signals, body)
{
    record_signal_state("signals_body.txt");
}

/* ---- twin: a child forked in a fixture returns from it ---- */

/* Forks a child that returns from the fixture, as a careless fixture's
 * child does (it forgot to exit); the fixture waits for it to be gone. */
static void fork_a_returning_child(const char *file)
{
    pid_t child = fork();
    if (child == 0) {
        note(file, "child-returns");
        return;
    }
    ASSERT_GT(child, 0);
    int status = wait_child(child, wait_ms());
    FILE *out = fopen(file, "a");
    ASSERT_NOT_NULL(out);
    if (status == -1)
        fprintf(out, "child ended never\n");
    else if (WIFSIGNALED(status))
        fprintf(out, "child ended signal %d\n", WTERMSIG(status));
    else
        fprintf(out, "child ended exit %d\n", WEXITSTATUS(status));
    fclose(out);
    note(file, "fixture-ends");
}

static void twin_before_all(void)
{
    fork_a_returning_child("twin_before_all.txt");
}

static void twin_after_all(void)
{
    fork_a_returning_child("twin_after_all.txt");
}

SUITE(twin, .before_all = twin_before_all, .after_all = twin_after_all);

#define TWIN_TEST(name)                                                        \
    TEST(twin, name)                                                           \
    {                                                                          \
        note("twin_tests.txt", #name);                                         \
        printf("twin " #name " output\n");                                     \
    }
TWIN_TEST(first)
TWIN_TEST(second)
TWIN_TEST(third)
TWIN_TEST(fourth)

/* ---- helper: before_all starts a server every test talks to ---- */

static int helper_requests = -1, helper_answers = -1;
static pid_t helper_pid;

/* The helper: answers each byte it reads with "ok"; ends at end of
 * file. */
static _Noreturn void helper_main(int requests, int answers)
{
    note("helper_pid.txt", "helper");
    char byte;
    while (read(requests, &byte, 1) == 1)
        if (write(answers, "ok", 2) != 2)
            _exit(1);
    _exit(0);
}

static void helper_before_all(void)
{
    int requests[2], answers[2];
    ASSERT_EQ(pipe(requests), 0);
    ASSERT_EQ(pipe(answers), 0);
    helper_pid = fork();
    ASSERT_GE(helper_pid, 0);
    if (helper_pid == 0) {
        close(requests[1]);
        close(answers[0]);
        helper_main(requests[0], answers[1]);
    }
    close(requests[0]);
    close(answers[1]);
    helper_requests = requests[1];
    helper_answers = answers[0];
}

/* Asks the helper once; returns whether it answered in time. */
static bool ask_helper(void)
{
    if (write(helper_requests, "?", 1) != 1)
        return false;
    struct pollfd answer = {helper_answers, POLLIN, 0};
    char reply[2];
    return poll(&answer, 1, (int)wait_ms()) == 1 &&
           read(helper_answers, reply, 2) == 2 && memcmp(reply, "ok", 2) == 0;
}

static void helper_after_all(void)
{
    note("helper_after_all.txt", ask_helper() && kill(helper_pid, 0) == 0
                                     ? "helper-answers"
                                     : "helper-gone");
}

SUITE(helper, .before_all = helper_before_all, .after_all = helper_after_all);

#define HELPER_TEST(name)                                                      \
    TEST(helper, name)                                                         \
    {                                                                          \
        ASSERT(ask_helper(), "the helper before_all started answers");         \
    }
HELPER_TEST(first)
HELPER_TEST(second)
HELPER_TEST(third)
HELPER_TEST(fourth)

/* ---- leaky: a helper writes into every descriptor it inherited ---- */

static const char garbage[] = "LEAKED-GARBAGE\x00\xff{\"event\":\n";
static int leaky_trigger = -1, leaky_done = -1;

/* Writes garbage into every descriptor this process holds but its own
 * two pipe ends; returns how many took some. */
static int write_everywhere(int keep_a, int keep_b)
{
    int written = 0;
    DIR *directory = opendir("/proc/self/fd");
    if (!directory)
        return -1;
    int fds[512];
    size_t count = 0;
    int own = dirfd(directory);
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL && count < 512) {
        if (entry->d_name[0] == '.')
            continue;
        int fd = atoi(entry->d_name);
        if (fd != own && fd != keep_a && fd != keep_b)
            fds[count++] = fd;
    }
    closedir(directory);
    for (size_t i = 0; i < count; i++) {
        /* A full pipe would block: only what fits goes in. */
        struct pollfd room = {fds[i], POLLOUT, 0};
        if (poll(&room, 1, 0) == 1 && (room.revents & POLLOUT) &&
            write(fds[i], garbage, sizeof garbage - 1) > 0)
            written++;
    }
    return written;
}

static void leaky_before_all(void)
{
    int trigger[2], done[2];
    ASSERT_EQ(pipe2(trigger, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(done, O_CLOEXEC), 0);
    pid_t helper = fork();
    ASSERT_GE(helper, 0);
    if (helper == 0) {
        close(trigger[1]);
        close(done[0]);
        /* Once now, while before_all runs, and once per trigger. */
        write_everywhere(trigger[0], done[1]);
        char byte;
        while (read(trigger[0], &byte, 1) == 1) {
            char count[32];
            int length = snprintf(count, sizeof count, "%d\n",
                                  write_everywhere(trigger[0], done[1]));
            if (write(done[1], count, (size_t)length) != length)
                _exit(1);
        }
        _exit(0);
    }
    close(trigger[0]);
    close(done[1]);
    leaky_trigger = trigger[1];
    leaky_done = done[0];
    printf("leaky before_all output\n");
}

SUITE(leaky, .before_all = leaky_before_all);

/* Sends a byte down `trigger`, waits for the line that comes back on
 * `done` (how many descriptors took garbage) and notes it in `evidence`. */
static void trigger_and_note(int trigger, int done, const char *evidence)
{
    ASSERT_EQ(write(trigger, "!", 1), 1);
    struct pollfd answer = {done, POLLIN, 0};
    ASSERT_EQ(poll(&answer, 1, (int)wait_ms()), 1);
    char count[32] = {0};
    ASSERT_GT(read(done, count, sizeof count - 1), 0);
    count[strcspn(count, "\n")] = '\0';
    note(evidence, count);
}

/* Has the helper write garbage while the other tests run. */
TEST(leaky, trigger)
{
    printf("leaky trigger output\n");
    ASSERT(wait_for_file("leaky_printer_started", wait_ms()));
    trigger_and_note(leaky_trigger, leaky_done, "leaky_trigger.txt");
    printf("leaky trigger done\n");
}

/* Another suite's test, running next to the trigger at -j2: its output
 * must be its own. */
TEST(printer, prints)
{
    printf("printer line 1\n");
    note("leaky_printer_started", "printer");
    ASSERT(wait_for_file("leaky_trigger.txt", wait_ms()));
    printf("printer line 2\n");
    fprintf(stderr, "printer error line\n");
}

TEST(leaky, later)
{
    printf("leaky later output\n");
}

/* ---- scribble: before_all writes over every shared mapping ---- */

/* Another suite's test that recorded its failure before the scribbling
 * and waits for it to be over. */
TEST(victim, recorded)
{
    EXPECT_EQ(1, 2, "the victim's own failure");
    printf("victim output\n");
    note("victim_recorded", "victim");
    EXPECT(wait_for_file("scribbled.txt", wait_ms()));
}

static void scribble_before_all(void)
{
    if (!wait_for_file("victim_recorded", wait_ms()))
        note("scribbled.txt", "victim-not-seen");
    FILE *maps = fopen("/proc/self/maps", "re");
    ASSERT_NOT_NULL(maps);
    char line[1024];
    int filled = 0;
    struct {
        unsigned long start, end;
    } found[64];
    while (filled < 64 && fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char permissions[8] = {0};
        if (sscanf(line, "%lx-%lx %7s", &start, &end, permissions) != 3)
            continue;
        if (permissions[1] == 'w' && permissions[3] == 's') {
            found[filled].start = start;
            found[filled].end = end;
            filled++;
        }
    }
    fclose(maps);
    FILE *log = fopen("scribbled.txt.part", "w");
    ASSERT_NOT_NULL(log);
    fprintf(log, "shared mappings written %d\n", filled);
    fclose(log);
    rename("scribbled.txt.part", "scribbled.txt");
    for (int i = 0; i < filled; i++)
        memset((void *)found[i].start, 0xff, found[i].end - found[i].start);
}

SUITE(scribble, .before_all = scribble_before_all);

TEST(scribble, first)
{
    printf("scribble first\n");
}

/* ---- hang: an after_all that never ends ---- */

static void hang_after_all(void)
{
    note("hang_after_all.txt", "after_all");
    /* Waits for a file nobody writes, far longer than the run's
     * timeout. */
    wait_for_file("never", 60 * wait_ms());
}

SUITE(hang, .after_all = hang_after_all);

TEST(hang, passes)
{
    note("hang_tests.txt", "test");
}

/* ---- late: a helper of before_all fails after before_all returned ---- */

static int late_trigger = -1, late_done = -1;

/* The helper: on the first byte it fails an EXPECT and says so, on the
 * second it crashes (its done pipe reaches end of file). It inherited
 * before_all's result slot, as any process before_all forks does. */
static _Noreturn void late_helper_main(int trigger, int done)
{
    char byte;
    if (read(trigger, &byte, 1) != 1)
        _exit(1);
    EXPECT_EQ(1, 2, "a late failure of before_all's helper");
    note("late_helper.txt", "expect-failed");
    if (write(done, "e", 1) != 1)
        _exit(1);
    if (read(trigger, &byte, 1) != 1)
        _exit(1);
    note("late_helper.txt", "crashing");
    raise(SIGSEGV);
    _exit(1);
}

static void late_before_all(void)
{
    int trigger[2], done[2];
    ASSERT_EQ(pipe2(trigger, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(done, O_CLOEXEC), 0);
    pid_t helper = fork();
    ASSERT_GE(helper, 0);
    if (helper == 0) {
        close(trigger[1]);
        close(done[0]);
        late_helper_main(trigger[0], done[1]);
    }
    close(trigger[0]);
    close(done[1]);
    late_trigger = trigger[1];
    late_done = done[0];
}

SUITE(late, .before_all = late_before_all);

/* Has the helper fail an EXPECT while this test runs, and waits for it. */
TEST(late, helper_expects)
{
    ASSERT_EQ(write(late_trigger, "!", 1), 1);
    struct pollfd done = {late_done, POLLIN, 0};
    ASSERT_EQ(poll(&done, 1, (int)wait_ms()), 1);
    char byte;
    ASSERT_EQ(read(late_done, &byte, 1), 1);
    note("late_tests.txt", "helper_expects");
}

/* Has the helper crash while this test runs, and waits for its end. */
TEST(late, helper_crashes)
{
    ASSERT_EQ(write(late_trigger, "!", 1), 1);
    struct pollfd done = {late_done, POLLIN, 0};
    ASSERT_EQ(poll(&done, 1, (int)wait_ms()), 1);
    char byte;
    ASSERT_EQ(read(late_done, &byte, 1), 0);
    note("late_tests.txt", "helper_crashes");
}

/* ---- threaded: a thread before_all left running forks later ---- */

static int threaded_trigger = -1, threaded_done = -1;

struct threaded_pipes {
    int trigger, done, started;
};

/* The thread: on a byte from a test it forks a child that writes garbage
 * into every descriptor it inherited and tells the test how many took
 * some. */
static void *threaded_main(void *argument)
{
    struct threaded_pipes pipes = *(struct threaded_pipes *)argument;
    free(argument);
    /* Started, and done with the allocator: a test forked while this
     * thread held a lock of ASan's allocator (which, unlike glibc's
     * malloc, fork does not take) would deadlock on its first malloc. */
    if (write(pipes.started, "s", 1) != 1)
        return NULL;
    close(pipes.started);
    char byte;
    if (read(pipes.trigger, &byte, 1) != 1)
        return NULL;
    pid_t child = fork();
    if (child == 0) {
        char count[32];
        int length = snprintf(count, sizeof count, "%d\n",
                              write_everywhere(pipes.trigger, pipes.done));
        if (write(pipes.done, count, (size_t)length) != length)
            _exit(1);
        _exit(0);
    }
    if (child < 0 || wait_child(child, wait_ms()) != 0)
        if (write(pipes.done, "-1\n", 3) != 3)
            return NULL;
    return NULL;
}

static void threaded_before_all(void)
{
    int trigger[2], done[2], started[2];
    ASSERT_EQ(pipe2(trigger, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(done, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(started, O_CLOEXEC), 0);
    struct threaded_pipes *pipes = malloc(sizeof *pipes);
    ASSERT_NOT_NULL(pipes);
    *pipes = (struct threaded_pipes){trigger[0], done[1], started[1]};
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, threaded_main, pipes), 0);
    pthread_detach(thread);
    char byte;
    ASSERT_EQ(read(started[0], &byte, 1), 1);
    close(started[0]);
    threaded_trigger = trigger[1];
    threaded_done = done[0];
}

SUITE(threaded, .before_all = threaded_before_all);

/* Has the thread fork its child while this test runs, and waits for the
 * child's count. */
TEST(threaded, trigger)
{
    printf("threaded trigger output\n");
    trigger_and_note(threaded_trigger, threaded_done, "threaded_trigger.txt");
    printf("threaded trigger done\n");
}

TEST(threaded, later)
{
    printf("threaded later output\n");
}

/* ---- flood: before_all's helper prints far more than is kept ---- */

enum { FLOOD_BYTES = 4 * 1024 * 1024 };

/* before_all forks a helper that prints FLOOD_BYTES of lines to its
 * stdout (the suite server's file for what fixtures' processes print),
 * waits for it to finish, and fails, so what was printed is shown on the
 * suite's test. */
static void flood_before_all(void)
{
    pid_t helper = fork();
    ASSERT_GE(helper, 0);
    if (helper == 0) {
        static char chunk[64 * 1024];
        for (size_t at = 0; at < sizeof chunk; at += 16)
            memcpy(chunk + at, "flood line 0123\n", 16);
        for (size_t written = 0; written < FLOOD_BYTES;) {
            ssize_t n = write(STDOUT_FILENO, chunk, sizeof chunk);
            if (n <= 0)
                _exit(1);
            written += (size_t)n;
        }
        _exit(0);
    }
    ASSERT_EQ(wait_child(helper, wait_ms()), 0);
    note("flood_before_all.txt", "flooded");
    EXPECT_EQ(1, 2, "flood before_all fails");
}

SUITE(flood, .before_all = flood_before_all);

TEST(flood, first)
{
    note("flood_ran.txt", "test");
}

/* A test of the suite whose thread forks a child that fails an EXPECT:
 * the failure is the test's, as in any test. */
static void *thread_forks_failing_child(void *argument)
{
    (void)argument;
    pid_t child = fork();
    if (child == 0) {
        EXPECT_EQ(1, 2, "a failure in a child of the test's thread");
        _exit(0);
    }
    intptr_t status = child > 0 ? wait_child(child, wait_ms()) : -1;
    return (void *)status;
}

TEST(threaded, thread_child_fails)
{
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, thread_forks_failing_child, NULL),
              0);
    void *status;
    ASSERT_EQ(pthread_join(thread, &status), 0);
    note("threaded_child.txt", (intptr_t)status == 0 ? "exit-0" : "other");
}

/* ---- crashing: a fixture crashes after a child it forked crashed ---- */

/* The child's crash: SIGSEGV, in a function of its own, on a page mapped
 * without access (not NULL, so that sanitizer builds see a real SIGSEGV
 * rather than UBSan's null-pointer check). */
__attribute__((noinline)) static void child_segfaults(void)
{
    void *page =
        mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        _exit(2);
    *(volatile int *)page = 1;
    _exit(3);
}

/* Forks a child that crashes (its crash record goes into the fixture's
 * slot) and waits for it; notes in `evidence` whether it died of SIGSEGV. */
static void fork_a_segfaulting_child(const char *evidence)
{
    fflush(NULL);
    pid_t child = fork();
    if (child == 0)
        child_segfaults();
    int status = child > 0 ? wait_child(child, wait_ms()) : -1;
    note(evidence,
         status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV
             ? "child-segfaulted"
             : "child-did-not-segfault");
}

/* The fixture's own crash: SIGABRT, once its child is dead of SIGSEGV
 * (its crash record is in the fixture's slot first). */
__attribute__((noinline)) static void
fixture_aborts_after_its_child(const char *evidence)
{
    fork_a_segfaulting_child(evidence);
    abort();
}

static void crashing_before_all(void)
{
    fixture_aborts_after_its_child("crashing_before_all.txt");
}

SUITE(crashing, .before_all = crashing_before_all);

TEST(crashing, first)
{
    note("crashing_ran.txt", "test");
}

static void crashing_after_all(void)
{
    fixture_aborts_after_its_child("crashing_after_all.txt");
}

SUITE(crashing_late, .after_all = crashing_after_all);

TEST(crashing_late, first)
{
    note("crashing_late_ran.txt", "test");
}

/* A before_all whose child crashes, and which then returns: the child's
 * crash is no failure of before_all's, as a crash of a process a test
 * forked is none of the test's. */
static void surviving_before_all(void)
{
    fork_a_segfaulting_child("surviving_before_all.txt");
}

SUITE(surviving, .before_all = surviving_before_all);

TEST(surviving, first)
{
    note("surviving_ran.txt", "test");
}

/* ---- crash_flood: more crashed children than the slot has room for ---- */

/* More than the crash records a 256 KiB slot holds (about 490). */
enum { FLOODING_CHILDREN = 600 };

__attribute__((noinline)) static void
vfork_child_writes_to(volatile int *inaccessible)
{
    *inaccessible = 1;
}

/* Starts a child that writes to `inaccessible`; returns its waitpid
 * status, or -1. vfork: a child costs no copy of the address space, which
 * under a sanitizer makes hundreds of forks take longer than any
 * fixture's time. */
__attribute__((noinline)) static int
vfork_a_crashing_child(volatile int *inaccessible)
{
    pid_t child = vfork();
    if (child == 0) {
        vfork_child_writes_to(inaccessible);
        _exit(3);
    }
    return child > 0 ? wait_child(child, wait_ms()) : -1;
}

/* Starts FLOODING_CHILDREN children that crash (SIGSEGV), one after the
 * other, and notes in `evidence` how many died of it. */
static void fork_crashing_children(const char *evidence)
{
    volatile int *inaccessible =
        mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int segfaulted = 0;
    for (int i = 0; inaccessible != MAP_FAILED && i < FLOODING_CHILDREN; i++) {
        int status = vfork_a_crashing_child(inaccessible);
        if (status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
            segfaulted++;
    }
    char line[64];
    snprintf(line, sizeof line, "segfaulted-%d", segfaulted);
    note(evidence, line);
}

/* The crash records of the children fill the slot and the last ones find
 * no room: neither the fixture nor the test lost anything of its own, and
 * both pass. */
static void crash_flood_before_all(void)
{
    fork_crashing_children("crash_flood_before_all.txt");
}

SUITE(crash_flood, .before_all = crash_flood_before_all);

TEST(crash_flood, first)
{
    note("crash_flood_ran.txt", "test");
}

TEST(crash_flood_in_test, first)
{
    fork_crashing_children("crash_flood_test.txt");
}
