/*
 * trace_overhead.c — the extra time of a traced test over an untraced one,
 * through the real runner (SPEC section 9, "traced test overhead").
 *
 * The program is a tattle test binary of 1000 empty tests. Run with
 * --bench it runs itself, alternately with and without --trace-all (-j1,
 * output discarded), and prints the extra time per test with both runs'
 * figures: the untraced run is the baseline. Without --bench it is a
 * plain tattle test binary.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

#define OVERHEAD_TEST(id)                                                      \
    TEST(overhead, id)                                                         \
    {                                                                          \
        tattle_trace_send("peer", "hello", "x", 1);                            \
    }
/* clang-format does not settle on a layout for these lines. */
/* clang-format off */
#define TEN(m, p)                                                              \
    m(p##0) m(p##1) m(p##2) m(p##3) m(p##4) m(p##5) m(p##6) m(p##7) m(p##8)    \
        m(p##9)
#define HUNDRED(m, p)                                                          \
    TEN(m, p##0)                                                               \
    TEN(m, p##1) TEN(m, p##2) TEN(m, p##3) TEN(m, p##4) TEN(m, p##5)           \
        TEN(m, p##6) TEN(m, p##7) TEN(m, p##8) TEN(m, p##9)
#define THOUSAND(m, p)                                                         \
    HUNDRED(m, p##0)                                                           \
    HUNDRED(m, p##1) HUNDRED(m, p##2) HUNDRED(m, p##3) HUNDRED(m, p##4)        \
        HUNDRED(m, p##5) HUNDRED(m, p##6) HUNDRED(m, p##7) HUNDRED(m, p##8)    \
            HUNDRED(m, p##9)
/* clang-format on */

THOUSAND(OVERHEAD_TEST, t)

enum { TESTS = 1000, ROUNDS = 7 };

static double run_self(const char *self, bool traced)
{
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid == 0) {
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, STDOUT_FILENO);
        dup2(null_fd, STDERR_FILENO);
        if (traced)
            execl(self, self, "-j1", "--trace-all", "--quiet", (char *)NULL);
        else
            execl(self, self, "-j1", "--quiet", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "trace_overhead: the run failed (status %#x)\n",
                status);
        exit(1);
    }
    return (double)(end.tv_sec - start.tv_sec) * 1e6 +
           (double)(end.tv_nsec - start.tv_nsec) / 1e3;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--bench") != 0)
        return tattle_main(argc, argv);
    double best_traced = 1e30, best_bare = 1e30;
    for (int round = 0; round < ROUNDS; round++) {
        double bare = run_self("/proc/self/exe", false);
        double traced = run_self("/proc/self/exe", true);
        if (bare < best_bare)
            best_bare = bare;
        if (traced < best_traced)
            best_traced = traced;
    }
    printf(
        "traced test overhead (runner): %6.1f us/test   traced %.1f us/test, "
        "untraced (baseline) %.1f us/test; %d empty tests, -j1, best of %d   "
        "target <= 100 us\n",
        (best_traced - best_bare) / TESTS, best_traced / TESTS,
        best_bare / TESTS, TESTS, ROUNDS);
    return 0;
}
