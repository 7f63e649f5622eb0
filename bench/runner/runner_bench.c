/*
 * runner_bench.c — how much the runner costs per test.
 *
 * In one process (so fork copies the same address space each time) it
 * measures: a bare fork+pipe+waitpid loop (the baseline: the least any
 * fork-per-test runner must do), then tattle_main() running the 10,000
 * generated trivial tests fork-per-test at -j1 and -j2, and in-process
 * (--no-fork). It prints tests per second and the ratio of each
 * fork-per-test run to the baseline. Targets (SPEC section 9): -j1 within
 * 1.25x of the bare loop; in-process >= 200,000 tests per second.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/tattle.h>

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The baseline: what a fork-per-test runner does at the least. */
static double bare_fork_loop(int count)
{
    double start = now_seconds();
    for (int i = 0; i < count; i++) {
        int fds[2];
        if (pipe(fds) != 0)
            abort();
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            _exit(0);
        }
        close(fds[1]);
        char buffer[256];
        while (read(fds[0], buffer, sizeof buffer) > 0)
            ;
        close(fds[0]);
        waitpid(pid, NULL, 0);
    }
    return now_seconds() - start;
}

/* Runs tattle_main with stdout/stderr sent to /dev/null. */
static double run_tattle(const char *jobs, int no_fork)
{
    char *argv[8];
    int argc = 0;
    argv[argc++] = "runner_bench";
    argv[argc++] = "--quiet";
    argv[argc++] = "--color=never";
    if (no_fork) {
        argv[argc++] = "--no-fork";
    } else {
        argv[argc++] = "-j";
        argv[argc++] = (char *)jobs;
    }
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    double start = now_seconds();
    int status = tattle_main(argc, argv);
    double elapsed = now_seconds() - start;
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    close(null_fd);
    if (status != 0) {
        fprintf(stderr, "runner_bench: tattle_main exited %d\n", status);
        exit(1);
    }
    return elapsed;
}

int main(void)
{
    /* --failed state and reports stay out of the caller's directory. */
    char directory[] = "/tmp/tattle-runner-bench-XXXXXX";
    if (!mkdtemp(directory) || chdir(directory) != 0)
        return 1;
    const int count = TRIVIAL_TEST_COUNT;
    /* Warm up once, then measure the baseline on both sides of the runs. */
    bare_fork_loop(500);
    double bare_before = bare_fork_loop(count);
    double j1 = run_tattle("1", 0);
    double j2 = run_tattle("2", 0);
    double in_process = run_tattle("1", 1);
    double bare_after = bare_fork_loop(count);
    double bare = bare_before < bare_after ? bare_before : bare_after;

    printf("runner benchmark: %d trivial tests\n", count);
    printf("  baseline  bare fork+pipe+waitpid   %8.0f per s  (%.1f us each)\n",
           count / bare, bare / count * 1e6);
    printf("  tattle    fork per test, -j1       %8.0f per s  (%.1f us each)  "
           "%.2fx the baseline (target <= 1.25x)\n",
           count / j1, j1 / count * 1e6, j1 / bare);
    printf("  tattle    fork per test, -j2       %8.0f per s  (%.1f us each)  "
           "%.2fx the baseline\n",
           count / j2, j2 / count * 1e6, j2 / bare);
    printf("  tattle    in-process (--no-fork)   %8.0f per s  (target >= "
           "200000)\n",
           count / in_process);
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (chdir("/") == 0 && system(command) != 0)
        return 1;
    return 0;
}
