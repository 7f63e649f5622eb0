/*
 * environment.c — the environment variables of the tools that start test
 * binaries (GoogleTest, Bazel, CTest) and of tattle itself.
 *
 * A variable set to something it cannot mean (a multiplier that is not a
 * positive number, a shard index past the count) is a usage error naming
 * it, as a bad flag is. The files the protocols ask for are best effort:
 * failing to create one does not stop the run. Under `tattle run` the
 * shard and test-filter variables are left to the wrapped command.
 */
#include "runner/environment.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/command.h"

static const char *variable(const char *name)
{
    const char *value = getenv(name);
    return value && *value ? value : NULL;
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

static int read_timeout_multiplier(struct tattle__environment *environment,
                                   struct tattle__buffer *error)
{
    environment->timeout_multiplier = 1.0;
    const char *multiplier = variable("TATTLE_TIMEOUT_MULTIPLIER");
    if (!multiplier)
        return 0;
    char *end;
    double value = strtod(multiplier, &end);
    if (*end != '\0' || !(value > 0) || !isfinite(value)) {
        tattle__buffer_printf(
            error, "TATTLE_TIMEOUT_MULTIPLIER: '%s' is not a positive number",
            multiplier);
        return -EINVAL;
    }
    environment->timeout_multiplier = value;
    return 0;
}

/* GoogleTest's variables, then Bazel's; --shard wins over both. */
static int read_shard(struct tattle__options *options,
                      struct tattle__buffer *error)
{
    static const char *const protocols[][2] = {
        {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"},
        {"TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"}};
    for (size_t p = 0;
         p < sizeof protocols / sizeof *protocols && !options->sharded; p++) {
        const char *total = getenv(protocols[p][0]);
        const char *index = getenv(protocols[p][1]);
        if (!total || !index)
            continue;
        char *end_total, *end_index;
        unsigned long t = strtoul(total, &end_total, 10);
        unsigned long i = strtoul(index, &end_index, 10);
        /* Digits only (strtoul takes a sign and wraps "-1"), and a count
         * that the shard fields hold. */
        bool digits = strspn(total, "0123456789") == strlen(total) &&
                      strspn(index, "0123456789") == strlen(index);
        if (!digits || *end_total || *end_index || t == 0 || t > UINT_MAX ||
            i >= t) {
            tattle__buffer_printf(error, "%s=%s, %s=%s: not a valid shard",
                                  protocols[p][0], total, protocols[p][1],
                                  index);
            return -EINVAL;
        }
        options->sharded = true;
        options->shard_total = (unsigned)t;
        options->shard_index = (unsigned)i;
    }
    return 0;
}

/* --junit (or --reporter junit) wins over XML_OUTPUT_FILE. */
static bool junit_requested(const struct tattle__options *options)
{
    for (size_t i = 0; i < options->reporter_count; i++)
        if (strcmp(options->reporters[i].name, "junit") == 0)
            return true;
    return false;
}

int tattle__environment_read(struct tattle__environment *environment,
                             struct tattle__options *options,
                             struct tattle__buffer *error)
{
    int rc = read_timeout_multiplier(environment, error);
    /* A wrapped command (`tattle run`) is one test: sharding and a test
     * filter from the environment are the command's to apply to its own
     * tests, which it reads from the same variables. Applied to the one
     * test, they would leave most shards running nothing, passing. */
    bool selects = !tattle__command_wrapping();
    if (rc == 0 && selects)
        rc = read_shard(options, error);
    if (rc != 0)
        return rc;
    const char *status_file = variable("TEST_SHARD_STATUS_FILE");
    if (options->sharded && status_file)
        touch(status_file);
    const char *only = variable("TESTBRIDGE_TEST_ONLY");
    if (selects && only && options->patterns.count == 0 &&
        options->ids.count == 0)
        tattle__string_list_add(&options->patterns, only);
    const char *xml = variable("XML_OUTPUT_FILE");
    if (xml && !junit_requested(options))
        tattle__options_add_reporter(options, "junit", xml, NULL);
    const char *report_dir = variable("TATTLE_REPORT_DIR");
    if (report_dir && !options->report_dir)
        options->report_dir = tattle__strdup(report_dir);
    environment->premature_exit_file = variable("TEST_PREMATURE_EXIT_FILE");
    return 0;
}

void tattle__environment_run_started(
    const struct tattle__environment *environment)
{
    if (environment->premature_exit_file)
        touch(environment->premature_exit_file);
}

void tattle__environment_run_ended(
    const struct tattle__environment *environment, bool interrupted)
{
    if (environment->premature_exit_file && !interrupted)
        unlink(environment->premature_exit_file);
}

int tattle__environment_exit_status(const struct tattle_summary *summary,
                                    int status)
{
    const char *code = variable("TATTLE_SKIP_RETURN_CODE");
    if (status != 0 || !code || summary->skipped == 0 ||
        summary->passed + summary->failed + summary->invalid > 0)
        return status;
    char *end;
    long value = strtol(code, &end, 10);
    return *end == '\0' && value > 0 && value < 256 ? (int)value : status;
}

bool tattle__environment_color_wanted(enum tattle__color_mode mode,
                                      FILE *stream)
{
    if (mode == TATTLE__COLOR_ALWAYS)
        return true;
    if (mode == TATTLE__COLOR_NEVER)
        return false;
    if (variable("NO_COLOR"))
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(fileno(stream));
}
