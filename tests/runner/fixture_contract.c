/*
 * fixture_contract.c — tests that pin the runner's contract at its edges,
 * for test_runner.py: a forked worker failing a fatal assertion, a test
 * leaving hundreds of children behind, many concurrent jobs next to a
 * crash, output printed while stdout carries a report, tags and fields
 * whose values are out of range or not UTF-8, and the error codes of the
 * public functions. The binary registers a reporter plugin of its own,
 * "contract-plugin", so the reporters it knows are more than the
 * built-in ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/reporter.h>
#include <tattle/tattle.h>

static void note_teardown(void)
{
    fprintf(stderr, "teardown in %d\n", (int)getpid());
}

static void note_on_exit(void *ctx)
{
    (void)ctx;
    fprintf(stderr, "on_exit in %d\n", (int)getpid());
}

TEST(contract, worker_fatal_assert_ends_only_the_worker,
     .teardown = note_teardown)
{
    tattle_on_exit(note_on_exit, NULL);
    pid_t worker = fork();
    ASSERT_GE(worker, 0);
    if (worker == 0) {
        ASSERT_EQ(1, 2, "the worker's own check");
        _exit(0); /* not reached */
    }
    int status = 0;
    waitpid(worker, &status, 0);
    fprintf(stderr, "worker status %d\n",
            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Leaves 600 children behind (each blocked in pause()) and passes; their
 * pids go to $CONTRACT_PID_FILE. */
TEST(contract, leaves_many_children)
{
    const char *path = getenv("CONTRACT_PID_FILE");
    FILE *pids = path ? fopen(path, "w") : NULL;
    for (int i = 0; i < 600; i++) {
        pid_t child = fork();
        if (child == 0) {
            for (;;)
                pause();
        }
        if (child > 0 && pids)
            fprintf(pids, "child %d\n", (int)child);
    }
    if (pids)
        fclose(pids);
}

TEST(contract, prints_to_stdout)
{
    printf("{\"not\": \"a report\"}\n");
    fputs("raw \x01 bytes\n", stdout);
    fflush(stdout);
}

TEST(contract, tag_value_not_utf8, .tags = "area:\xff\xfe")
{
}

TEST(contract, tag_cap_out_of_range, .tags = "trace_messages:4294967297")
{
}

TEST(contract, field_cap_out_of_range, .tags = "trace_messages",
     .trace_cap = 2000000000)
{
}

/* Many jobs at once: 69 tests run while one crashes; none of them may be
 * taken for the crashed test's leftovers. Handshakes, not delays: each
 * sleeper appends a byte to crowd.started, the crasher crashes once all
 * 69 have, and each sleeper ends only once the stream (the driver runs
 * with --jsonl stream.jsonl) says the crasher finished, i.e. after the
 * runner cleaned up after it. Waits are bounded by $FIXTURE_WAIT_MS. */
enum { CROWD_SLEEPERS = 69 };

static long fixture_wait_ms(void)
{
    const char *text = getenv("FIXTURE_WAIT_MS");
    long ms = text ? strtol(text, NULL, 10) : 0;
    return ms > 0 ? ms : 10000;
}

static void pause_a_moment(void)
{
    struct timespec moment = {0, 20000000};
    nanosleep(&moment, NULL);
}

static bool crasher_finished(void)
{
    FILE *stream = fopen("stream.jsonl", "r");
    if (stream == NULL)
        return false;
    char line[8192];
    bool finished = false;
    while (!finished && fgets(line, sizeof line, stream) != NULL)
        finished = strstr(line, "\"test_finished\"") != NULL &&
                   strstr(line, "\"crowd/crasher\"") != NULL;
    fclose(stream);
    return finished;
}

static void sleeper(void)
{
    int started = open("crowd.started", O_WRONLY | O_APPEND | O_CREAT, 0644);
    ASSERT_GE(started, 0);
    ASSERT_EQ(write(started, "s", 1), (ssize_t)1);
    close(started);
    for (long waited = 0; !crasher_finished(); waited += 20) {
        if (waited >= fixture_wait_ms())
            FAIL("the crasher's end never showed in stream.jsonl");
        pause_a_moment();
    }
}

#define SLEEPER(n)                                                             \
    TEST(crowd, sleeper_##n)                                                   \
    {                                                                          \
        sleeper();                                                             \
    }

/* clang-format does not settle on a layout for these lines. */
/* clang-format off */
#define TEN_SLEEPERS(d)                                                        \
    SLEEPER(d##0) SLEEPER(d##1) SLEEPER(d##2) SLEEPER(d##3) SLEEPER(d##4)      \
    SLEEPER(d##5) SLEEPER(d##6) SLEEPER(d##7) SLEEPER(d##8) SLEEPER(d##9)
TEN_SLEEPERS(1) TEN_SLEEPERS(2) TEN_SLEEPERS(3) TEN_SLEEPERS(4)
TEN_SLEEPERS(5) TEN_SLEEPERS(6)
SLEEPER(70) SLEEPER(71) SLEEPER(72) SLEEPER(73) SLEEPER(74) SLEEPER(75)
SLEEPER(76) SLEEPER(77) SLEEPER(78)
TEST(crowd, crasher)
{
    struct stat started = {0};
    for (long waited = 0; stat("crowd.started", &started) != 0 ||
                          started.st_size < CROWD_SLEEPERS;
         waited += 20) {
        if (waited >= fixture_wait_ms())
            FAIL("only %lld of %d sleepers started", (long long)started.st_size,
                 CROWD_SLEEPERS);
        pause_a_moment();
    }
    volatile int *nowhere = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *nowhere = 1;
}
/* clang-format on */

/* A reporter plugin that writes nothing. */
static int plugin_create(void **self, const char *destination,
                         const struct tattle_report_options *options)
{
    (void)destination, (void)options;
    *self = NULL;
    return 0;
}

static void plugin_begin(void *self, const struct tattle_run_info *run)
{
    (void)self, (void)run;
}

static void plugin_test_finished(void *self, const struct tattle_result *result)
{
    (void)self, (void)result;
}

static int plugin_end(void *self, const struct tattle_summary *summary)
{
    (void)self, (void)summary;
    return 0;
}

static void plugin_destroy(void *self)
{
    (void)self;
}

#define PLUGIN(name)                                                           \
    {                                                                          \
        name, plugin_create, plugin_begin, NULL, plugin_test_finished,         \
            plugin_end, plugin_destroy                                         \
    }

static const struct tattle_reporter_type contract_plugin =
    PLUGIN("contract-plugin");

__attribute__((constructor)) static void register_contract_plugin(void)
{
    if (tattle_reporter_register(&contract_plugin) != 0)
        abort();
}

TEST(errors, codes_have_names_and_messages)
{
    ASSERT_STR_EQ(tattle_error_name(-EINVAL), "EINVAL");
    ASSERT_STR_EQ(tattle_error_message(-EINVAL), "invalid argument");
    ASSERT_STR_EQ(tattle_error_name(-ETIMEDOUT), "ETIMEDOUT");
    ASSERT_STR_EQ(tattle_error_name(-EPIPE), "EPIPE");
    ASSERT_STR_EQ(tattle_error_name(0), "OK");
    ASSERT_STR_EQ(tattle_error_message(0), "success");
    /* Positive numbers and codes tattle never returns are unknown. */
    ASSERT_STR_EQ(tattle_error_name(EINVAL), "UNKNOWN");
    ASSERT_STR_EQ(tattle_error_name(-ENOTRECOVERABLE), "UNKNOWN");
    ASSERT_STR_EQ(tattle_error_message(-ENOTRECOVERABLE), "unknown error");
}

/* tattle_reporter_register's two failures, as documented. */
TEST(errors, reporter_register_returns_named_codes)
{
    int rc = tattle_reporter_register(&contract_plugin);
    ASSERT_EQ(rc, -EEXIST);
    ASSERT_STR_EQ(tattle_error_name(rc), "EEXIST");
    static char names[TATTLE_REPORTER_PLUGIN_MAX][16];
    static struct tattle_reporter_type more[TATTLE_REPORTER_PLUGIN_MAX];
    int registered = 0;
    for (; registered < TATTLE_REPORTER_PLUGIN_MAX; registered++) {
        snprintf(names[registered], sizeof names[registered], "more-%d",
                 registered);
        more[registered] =
            (struct tattle_reporter_type)PLUGIN(names[registered]);
        rc = tattle_reporter_register(&more[registered]);
        if (rc != 0)
            break;
    }
    /* contract-plugin took one place. */
    ASSERT_EQ(registered, TATTLE_REPORTER_PLUGIN_MAX - 1);
    ASSERT_EQ(rc, -ENOSPC);
    ASSERT_STR_EQ(tattle_error_name(rc), "ENOSPC");
    ASSERT_STR_EQ(tattle_error_message(rc), "no space left");
}
