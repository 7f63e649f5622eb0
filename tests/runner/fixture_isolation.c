/*
 * fixture_isolation.c — tests that crash, hang, exit, flood their output,
 * leave processes behind, fail only sometimes or wait for each other, so
 * test_runner.py can check that the runner isolates them and reports what
 * happened. Side effects go to files in the working directory (the driver
 * gives each run its own temporary directory) or to $RUNNER_PID_FILE.
 *
 * Part of the runner_fixture program; the driver selects tests by pattern.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/tattle.h>

/* ---- helpers ---- */

static void write_all(int fd, const char *data, size_t length)
{
    while (length > 0) {
        ssize_t n = write(fd, data, length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        length -= (size_t)n;
    }
}

/* Appends "label pid" to $RUNNER_PID_FILE (one line, one write). */
static void record_pid(const char *label)
{
    const char *path = getenv("RUNNER_PID_FILE");
    if (!path)
        return;
    FILE *file = fopen(path, "a");
    if (!file)
        return;
    fprintf(file, "%s %d\n", label, (int)getpid());
    fclose(file);
}

/* Adds one to the counter kept in file `name`; returns the new value. */
static int bump_counter(const char *name)
{
    int value = 0;
    FILE *file = fopen(name, "r");
    if (file) {
        if (fscanf(file, "%d", &value) != 1)
            value = 0;
        fclose(file);
    }
    value++;
    file = fopen(name, "w");
    if (file) {
        fprintf(file, "%d\n", value);
        fclose(file);
    }
    return value;
}

static void touch(const char *name)
{
    FILE *file = fopen(name, "w");
    if (file)
        fclose(file);
}

static int exists(const char *name)
{
    struct stat info;
    return stat(name, &info) == 0;
}

/* The bound of a wait for another test: $FIXTURE_WAIT_MS, or 1 s. */
static long fixture_wait_ms(void)
{
    const char *text = getenv("FIXTURE_WAIT_MS");
    long ms = text ? strtol(text, NULL, 10) : 0;
    return ms > 0 ? ms : 1000;
}

static void pause_a_moment(void)
{
    struct timespec moment = {0, 10000000};
    while (nanosleep(&moment, &moment) != 0 && errno == EINTR)
        ;
}

static TATTLE__NORETURN void hang_forever(void)
{
    for (;;)
        pause();
}

/* ---- crashes ---- */

/* An address that faults when written: a page mapped without access. Not
 * NULL, so that sanitizer builds see a real SIGSEGV rather than UBSan's
 * null-pointer check. */
static volatile int *inaccessible_address(void)
{
    void *page =
        mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return page == MAP_FAILED ? NULL : page;
}

TEST(crash, segv)
{
    volatile int *volatile nowhere = inaccessible_address();
    *nowhere = 42;
}

TEST(crash, survivor_after_segv)
{
    puts("survivor_after_segv ran");
}

TEST(crash, abort)
{
    abort();
}

TEST(crash, survivor_after_abort)
{
    puts("survivor_after_abort ran");
}

static volatile int keep_recursing = 1;

__attribute__((noinline)) static int recurse_forever(volatile char *previous,
                                                     int depth)
{
    volatile char frame[512];
    frame[0] = (char)depth;
    frame[511] = previous ? previous[0] : 0;
    if (keep_recursing)
        return recurse_forever(frame, depth + 1) + frame[0] + frame[511];
    return frame[0];
}

TEST(crash, stack_overflow)
{
    printf("%d\n", recurse_forever(NULL, 0));
}

TEST(crash, survivor_after_stack_overflow)
{
    puts("survivor_after_stack_overflow ran");
}

TEST(crash, printf_then_segv)
{
    printf("partial line without a newline");
    volatile int *volatile nowhere = inaccessible_address();
    *nowhere = 1;
}

/* ---- early exits ---- */

TEST(exits, exit_zero)
{
    puts("leaving with exit(0)");
    exit(0);
}

TEST(exits, underscore_exit_five)
{
    _exit(5);
}

/* ---- hangs: the driver checks every recorded pid is gone afterwards ---- */

TEST(hang, with_grandchild, .timeout_ms = 300)
{
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    record_pid("test");
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        record_pid("grandchild");
        write_all(ready[1], "x", 1);
        hang_forever();
    }
    char byte;
    ASSERT_EQ(read(ready[0], &byte, 1), (ssize_t)1);
    hang_forever();
}

/* A grandchild in its own session and process group, orphaned (its parent
 * exits), ignoring SIGHUP and SIGTERM: only the tree walk can find it. */
TEST(hang, with_setsid_grandchild, .timeout_ms = 300)
{
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    record_pid("test");
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        setsid();
        signal(SIGHUP, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        if (fork() == 0) {
            record_pid("grandchild");
            write_all(ready[1], "x", 1);
            hang_forever();
        }
        _exit(0);
    }
    char byte;
    ASSERT_EQ(read(ready[0], &byte, 1), (ssize_t)1);
    hang_forever();
}

/* Passes, leaving a child and a setsid daemon behind (both holding the
 * test's stdout): the runner must not wait for them, and must kill them. */
TEST(leak, processes_after_pass)
{
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    record_pid("test");
    if (fork() == 0) {
        record_pid("child");
        write_all(ready[1], "x", 1);
        hang_forever();
    }
    pid_t daemon_parent = fork();
    if (daemon_parent == 0) {
        setsid();
        signal(SIGHUP, SIG_IGN);
        if (fork() == 0) {
            record_pid("daemon");
            write_all(ready[1], "x", 1);
            hang_forever();
        }
        _exit(0);
    }
    char bytes[2];
    for (size_t got = 0; got < 2;) {
        ssize_t n = read(ready[0], bytes + got, 2 - got);
        ASSERT_GT(n, 0);
        got += (size_t)n;
    }
    /* The daemon's parent has exited before the test ends: the daemon is
     * an orphan then, not a process whose parent exits while the runner
     * sweeps (a race of its own). */
    ASSERT_EQ(waitpid(daemon_parent, NULL, 0), daemon_parent);
    puts("leaving a child and a daemon behind");
}

TEST(leak, next_test_runs)
{
    puts("next test ran");
}

TEST(hang, forever)
{
    record_pid("test");
    hang_forever();
}

TEST(hang, short_timeout_option, .timeout_ms = 300)
{
    hang_forever();
}

/* ---- output ---- */

enum { MEGABYTE = 1 << 20, FLOOD_MEGABYTES = 50 };

TEST(output, fifty_megabytes)
{
    static char chunk[MEGABYTE];
    for (int i = 0; i < FLOOD_MEGABYTES; i++) {
        memset(chunk, 'a' + i % 26, MEGABYTE);
        chunk[MEGABYTE - 1] = '\n';
        if (i == 0)
            memcpy(chunk, "HEAD-MARKER\n", 12);
        if (i == FLOOD_MEGABYTES - 1)
            memcpy(chunk + MEGABYTE - 12, "TAIL-MARKER\n", 12);
        write_all(STDOUT_FILENO, chunk, MEGABYTE);
    }
    char line[100];
    memset(line, 'e', sizeof line);
    line[sizeof line - 1] = '\n';
    for (int i = 0; i < 10; i++)
        write_all(STDERR_FILENO, line, sizeof line);
}

TEST(output, closed_stdout)
{
    puts("before close");
    close(STDOUT_FILENO);
    printf("after close: goes nowhere\n");
    fprintf(stderr, "stderr still works\n");
    ASSERT_EQ(1, 1);
}

/* ---- stdio a test leaves buffered is flushed at its end, as exit()
 * would flush it ---- */

TEST(output, unflushed_stdout)
{
    static char buffer[BUFSIZ];
    setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    printf("fully buffered, never flushed");
    ASSERT_EQ(1, 1);
}

TEST(output, unflushed_file)
{
    FILE *file = fopen("unflushed.txt", "w");
    ASSERT_NOT_NULL(file);
    fprintf(file, "left open, never flushed");
}

/* ---- in-process runs ---- */

TEST(nofork, writes_pid)
{
    FILE *file = fopen("nofork.pid", "w");
    ASSERT_NOT_NULL(file);
    fprintf(file, "%d\n", (int)getpid());
    fclose(file);
}

TEST(nofork, fails)
{
    ASSERT_EQ(2 + 2, 5, "arithmetic in-process");
}

/* ---- a mixed run: two pass, two fail; each leaves ran.<name> ---- */

TEST(mixed, passes)
{
    touch("ran.passes");
}

TEST(mixed, fails_a)
{
    touch("ran.fails_a");
    ASSERT_EQ(1, 0);
}

TEST(mixed, fails_b)
{
    touch("ran.fails_b");
    FAIL("fails_b fails");
}

TEST(mixed, passes_too)
{
    touch("ran.passes_too");
}

/* ---- controlled by files in the working directory ---- */

TEST(ctl, flaky)
{
    int run = bump_counter("count.flaky");
    printf("flaky run %d\n", run);
    ASSERT_GE(run, 2, "the first run fails");
}

TEST(ctl, fails_twice)
{
    int run = bump_counter("count.twice");
    printf("attempt %d\n", run);
    ASSERT_GE(run, 3, "the first two runs fail");
}

TEST(ctl, fails_on_third_run)
{
    int run = bump_counter("count.third");
    ASSERT_NE(run, 3);
}

TEST(ctl, fails_runs_two_and_three)
{
    int run = bump_counter("count.two_three");
    printf("run %d\n", run);
    ASSERT_EQ(run == 2 || run == 3, 0, "runs 2 and 3 fail");
}

TEST(ctl, fails_after_first_run)
{
    int run = bump_counter("count.after_first");
    printf("run %d\n", run);
    ASSERT_EQ(run, 1, "every run after the first fails");
}

TEST(ctl, always_passes)
{
    bump_counter("count.always");
}

TEST(ctl, always_fails)
{
    bump_counter("count.fails");
    FAIL("always");
}

TEST(ctl, marker)
{
    touch("ran.marker");
}

/* ---- two tests that only pass when they run at the same time ---- */

static void meet(const char *mine, const char *theirs)
{
    touch(mine);
    for (long waited = 0; waited < fixture_wait_ms(); waited += 10) {
        if (exists(theirs))
            return;
        pause_a_moment();
    }
    FAIL("%s never appeared: the other test is not running concurrently",
         theirs);
}

TEST(pair, left)
{
    meet("pair.left", "pair.right");
}

TEST(pair, right)
{
    meet("pair.right", "pair.left");
}

/* ---- for SIGTERM to the runner: one quick test, then one that hangs ---- */

TEST(slowpoke, quick)
{
    puts("quick done");
}

TEST(slowpoke, sleeps)
{
    record_pid("test");
    touch("sleeper.started");
    hang_forever();
}
