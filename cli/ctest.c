/*
 * ctest.c — `tattle ctest [report options] [ctest args]`: a CMake
 * project's CTest tests run under tattle's runner, with one report.
 *
 * The tests are listed by `ctest --show-only=json-v1` in the current
 * directory (a build tree), with the selection arguments passed through
 * (-R/-E/-L/-LE, --test-dir, -C); ctest adds the setup and cleanup tests
 * of the fixtures the selected ones require. Each listed test is run by
 * `tattle run` in a child process of its own (this program re-executed)
 * and a process group of its own, in its working directory (and with
 * --chdir to it), its ENVIRONMENT and ENVIRONMENT_MODIFICATION given as
 * --env and --unset-env of each variable they change, its TIMEOUT as the
 * timeout, its LABELS as tags, its WILL_FAIL and SKIP_RETURN_CODE, and
 * the id ctest/NAME, writing a JSON Lines stream into a private temporary
 * directory. Being options of tattle run, all of them are in each
 * result's rerun, which thus runs the test as the run did from any
 * directory. At most -j of them run at once, in CTest's order as far as
 * DEPENDS, the fixtures (setup tests first, cleanup tests after the tests
 * requiring them), RUN_SERIAL and RESOURCE_LOCK allow; one loop waits on
 * a signalfd for the children's ends and the signals that stop the run.
 * A crash of one cannot harm the others nor this process. When all have
 * ended, the streams are joined into each requested report as `tattle
 * merge` joins them, in this process. A test `tattle run` does not report
 * (DISABLED, no command, a working directory that is not there, a
 * required fixture whose setup failed, a process that could not be
 * started) gets a stream written here, through the jsonl reporter:
 * skipped, or failed with an error saying why.
 *
 * Inner tests are qualified by the CTest test's name, always (not only
 * when two would meet, so that an id does not change with the
 * selection): a GoogleTest program's are NAME.SUITE/TEST (tattle run
 * --qualify-inner), a TAP program's NAME/DESCRIPTION. An id two CTest tests
 * still share (names made to meet) is named on stderr and the report keeps the
 * later.
 *
 * SIGINT, SIGTERM or SIGHUP stop the run: the running tests' process
 * groups get SIGTERM (each `tattle run` reports its test interrupted),
 * SIGTERM again after STOP_GRACE_MS or at a second signal, SIGKILL
 * KILL_GRACE_MS later; a tattle run that dies before it reported has its
 * test reported an error saying so; the tests not started are reported
 * not run, the reports are written (the run marked
 * interrupted), the temporary directory removed, and the exit status is
 * 3, as the runner's.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/timestamp.h"
#include "cli/cli.h"
#include "results/read.h"

/* The exit status of an interrupted run, the runner's. */
enum { TATTLE__EXIT_INTERRUPTED = 3 };

extern char **environ;

static const char help[] =
    "usage: tattle ctest [report options] [-j N] [ctest selection]\n"
    "\n"
    "Runs the tests of a CMake build tree (the current directory, or\n"
    "--test-dir DIR) under tattle's runner, each by `tattle run`: a timeout\n"
    "(the test's TIMEOUT, else 1500 s) that kills its process tree and shows\n"
    "the stacks of its threads, captured output, and one result per inner\n"
    "test of a GoogleTest or TAP program (ctest/NAME beside them only for a\n"
    "failure none of them explains). Each test is ctest/NAME, run in\n"
    "its WORKING_DIRECTORY with its ENVIRONMENT and ENVIRONMENT_MODIFICATION;\n"
    "its LABELS are its tags; exiting with its SKIP_RETURN_CODE skips it;\n"
    "WILL_FAIL inverts its exit status (a crash or timeout still fails).\n"
    "Each result's rerun runs the test so, from any directory.\n"
    "DEPENDS, FIXTURES_SETUP/CLEANUP/REQUIRED, RUN_SERIAL and RESOURCE_LOCK\n"
    "order the tests as CTest does; a test whose fixture's setup failed is\n"
    "skipped. Inner tests are NAME.SUITE/TEST (GoogleTest) or NAME/POINT "
    "(TAP).\n"
    "One line is printed per finished test, then the reports are written.\n"
    "A DISABLED test is reported skipped; one that cannot run, failed.\n"
    "\n"
    "report options (FILE):\n"
    "  --json --jsonl --junit --tap --ctrf --html\n"
    "options:\n"
    "  -j, --parallel N        run at most N tests at once (default 1)\n"
    "passed to ctest --show-only=json-v1 to select the tests:\n"
    "  -R REGEX  -E REGEX  -L REGEX  -LE REGEX  -C CONFIG  --test-dir DIR\n"
    "\n"
    "Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops the running tests and still\n"
    "writes the reports, marked interrupted.\n"
    "\n"
    "exit status: 0 all passed, 1 a test failed, 2 usage error or ctest\n"
    "could not list the tests, 3 interrupted.\n";

static const char *const report_formats[] = {"json", "jsonl", "junit",
                                             "tap",  "ctrf",  "html"};
enum { FORMAT_COUNT = sizeof report_formats / sizeof *report_formats };

/* Where a test is in the run. */
enum test_phase { TEST_WAITING, TEST_RUNNING, TEST_DONE };

/* One CTest test, as listed. The string lists are NULL-terminated (NULL
 * when the property is not set). */
struct ctest_test {
    char *name;
    char **argv;
    char *working_directory;
    char **environment;              /* ENVIRONMENT: NAME=VALUE */
    char **environment_modification; /* NAME=OP:VALUE */
    char *tags;                      /* space-separated, valid tag words */
    long timeout_ms;
    int skip_exit_code; /* SKIP_RETURN_CODE; 0: none */
    bool disabled, will_fail, run_serial;
    char **resource_locks;
    char **depends; /* names; those not selected are no constraint */
    char **fixtures_setup, **fixtures_cleanup, **fixtures_required;
    /* The selected tests that must end before this one starts: its
     * DEPENDS, the setup tests of the fixtures it requires, and for a
     * cleanup test the tests requiring its fixtures. */
    size_t *after;
    size_t after_count;
    enum test_phase phase;
    char *stream;     /* its JSON Lines stream */
    char *cut_stream; /* what a tattle run that died early wrote, or NULL */
    pid_t pid;
    bool failed; /* it ended and did not pass (nor was skipped) */
};

struct ctest_run {
    const char *reports[FORMAT_COUNT];
    long jobs;
    char **list_argv; /* ctest --show-only=json-v1 [selection], NULL-ended */
    size_t list_argc;
    struct ctest_test *tests;
    size_t count;
    char *temp_dir;
};

static void add_list_arg(struct ctest_run *run, const char *arg)
{
    run->list_argv = tattle__realloc(
        run->list_argv, (run->list_argc + 2) * sizeof *run->list_argv);
    run->list_argv[run->list_argc++] = tattle__strdup(arg);
    run->list_argv[run->list_argc] = NULL;
}

static void free_strings(char **strings)
{
    for (size_t i = 0; strings && strings[i]; i++)
        free(strings[i]);
    free(strings);
}

static void release_run(struct ctest_run *run)
{
    for (size_t i = 0; i < run->count; i++) {
        struct ctest_test *test = &run->tests[i];
        free(test->name);
        free_strings(test->argv);
        free(test->working_directory);
        free_strings(test->environment);
        free_strings(test->environment_modification);
        free(test->tags);
        free_strings(test->resource_locks);
        free_strings(test->depends);
        free_strings(test->fixtures_setup);
        free_strings(test->fixtures_cleanup);
        free_strings(test->fixtures_required);
        free(test->after);
        if (test->stream)
            unlink(test->stream);
        free(test->stream);
        if (test->cut_stream)
            unlink(test->cut_stream);
        free(test->cut_stream);
    }
    free(run->tests);
    free_strings(run->list_argv);
    if (run->temp_dir)
        rmdir(run->temp_dir);
    free(run->temp_dir);
}

/* Parses the command line (argv[0] is "ctest"). Returns -1 to go on, or
 * the exit status of what was answered already. */
static int parse_arguments(struct ctest_run *run, int argc, char **argv)
{
    static const char *const selection[] = {"-R",  "-E", "-L",
                                            "-LE", "-C", "--test-dir"};
    add_list_arg(run, "ctest");
    add_list_arg(run, "--show-only=json-v1");
    run->jobs = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        bool missing = false;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(help, stdout);
            return TATTLE__EXIT_OK;
        }
        bool matched = false;
        for (size_t f = 0; f < FORMAT_COUNT && !matched; f++) {
            char flag[16];
            snprintf(flag, sizeof flag, "--%s", report_formats[f]);
            if (tattle__cli_option(argc, argv, &i, flag, NULL, &value,
                                   &missing)) {
                matched = true;
                if (missing || !*value)
                    return tattle__cli_fail("ctest", "%s needs a FILE", flag);
                run->reports[f] = value;
            }
        }
        if (matched)
            continue;
        if (tattle__cli_option(argc, argv, &i, "--parallel", "-j", &value,
                               &missing)) {
            char *end = NULL;
            long jobs = missing ? 0 : strtol(value, &end, 10);
            if (missing || !end || *end || jobs < 1 || jobs > 1024)
                return tattle__cli_fail("ctest",
                                        "-j needs a number from 1 to 1024");
            run->jobs = jobs;
            continue;
        }
        for (size_t s = 0; s < sizeof selection / sizeof *selection; s++) {
            if (strcmp(arg, selection[s]) != 0)
                continue;
            if (i + 1 >= argc)
                return tattle__cli_fail("ctest", "%s needs a value", arg);
            add_list_arg(run, arg);
            add_list_arg(run, argv[++i]);
            matched = true;
            break;
        }
        if (!matched)
            return tattle__cli_fail("ctest",
                                    "unknown argument '%s' (tattle ctest "
                                    "--help)",
                                    arg);
    }
    return -1;
}

/* Runs ctest to list the tests; returns its standard output, or NULL
 * after printing why there is none. */
static char *list_tests(struct ctest_run *run)
{
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) {
        tattle__cli_fail("ctest", "cannot list the tests: pipe: %s",
                         strerror(errno));
        return NULL;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        execvp("ctest", run->list_argv);
        fprintf(stderr, "cannot run ctest: %s\n", strerror(errno));
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        tattle__cli_fail("ctest", "cannot list the tests: fork: %s",
                         strerror(errno));
        return NULL;
    }
    /* ctest writes little on stderr: read stdout whole, then stderr. */
    struct tattle__buffer listing = {0}, errors = {0};
    int fds[2] = {out[0], err[0]};
    struct tattle__buffer *targets[2] = {&listing, &errors};
    for (int k = 0; k < 2; k++) {
        char chunk[4096];
        ssize_t got;
        while ((got = read(fds[k], chunk, sizeof chunk)) != 0) {
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                break;
            if (targets[k]->length < (64u << 20))
                tattle__buffer_append(targets[k], chunk, (size_t)got);
        }
        close(fds[k]);
    }
    tattle__buffer_append(&listing, "", 0);
    tattle__buffer_append(&errors, "", 0);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        /* The first line of what it said names why. */
        char *why = errors.data;
        while (*why == '\n' || *why == ' ')
            why++;
        char *end = strchr(why, '\n');
        if (end)
            *end = '\0';
        if (*why)
            tattle__cli_fail("ctest", "ctest cannot list the tests: %s", why);
        else if (WIFEXITED(status))
            tattle__cli_fail("ctest",
                             "ctest cannot list the tests: it exited with "
                             "status %d saying nothing (not a build tree?)",
                             WEXITSTATUS(status));
        else
            tattle__cli_fail("ctest",
                             "ctest cannot list the tests: it was "
                             "killed by signal %d",
                             WTERMSIG(status));
        tattle__buffer_release(&listing);
        tattle__buffer_release(&errors);
        return NULL;
    }
    tattle__buffer_release(&errors);
    return tattle__buffer_take(&listing);
}

/* A NULL-terminated copy of a JSON array of strings (NULL if not one). */
static char **string_array(const cJSON *array)
{
    if (!cJSON_IsArray(array))
        return NULL;
    size_t count = (size_t)cJSON_GetArraySize(array), n = 0;
    char **strings = tattle__calloc(count + 1, sizeof *strings);
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (cJSON_IsString(item))
            strings[n++] = tattle__strdup(item->valuestring);
    }
    return strings;
}

/* LABELS as tag words: a character a tag cannot hold becomes '_'. */
static char *labels_as_tags(const cJSON *labels)
{
    struct tattle__buffer tags = {0};
    const cJSON *label;
    cJSON_ArrayForEach(label, labels)
    {
        if (!cJSON_IsString(label) || !label->valuestring[0])
            continue;
        if (tags.length)
            tattle__buffer_append_string(&tags, " ");
        for (const char *p = label->valuestring; *p; p++) {
            char c = *p;
            bool fits = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                        c == '.';
            tattle__buffer_append(&tags, fits ? p : "_", 1);
        }
    }
    return tags.length ? tattle__buffer_take(&tags) : NULL;
}

static bool has_string(char *const *strings, const char *wanted)
{
    for (size_t i = 0; strings && strings[i]; i++)
        if (strcmp(strings[i], wanted) == 0)
            return true;
    return false;
}

static void add_after(struct ctest_test *test, size_t before)
{
    for (size_t i = 0; i < test->after_count; i++)
        if (test->after[i] == before)
            return;
    test->after = tattle__realloc(test->after, (test->after_count + 1) *
                                                   sizeof *test->after);
    test->after[test->after_count++] = before;
}

/* Fills each test's `after`: what it waits for. ctest's listing folds the
 * fixtures into DEPENDS already (and adds the setup and cleanup tests a
 * selection left out); they are added here too, for a ctest that does
 * not. A setup or cleanup test of a fixture does not wait for the
 * fixture's other roles it plays itself. */
static void order_tests(struct ctest_run *run)
{
    for (size_t t = 0; t < run->count; t++) {
        struct ctest_test *test = &run->tests[t];
        for (size_t o = 0; o < run->count; o++) {
            if (o == t)
                continue;
            const struct ctest_test *other = &run->tests[o];
            if (has_string(test->depends, other->name))
                add_after(test, o);
            for (size_t f = 0;
                 test->fixtures_required && test->fixtures_required[f]; f++) {
                const char *fixture = test->fixtures_required[f];
                if (has_string(other->fixtures_setup, fixture) &&
                    !has_string(test->fixtures_setup, fixture))
                    add_after(test, o);
            }
            for (size_t f = 0;
                 test->fixtures_cleanup && test->fixtures_cleanup[f]; f++) {
                const char *fixture = test->fixtures_cleanup[f];
                if ((has_string(other->fixtures_required, fixture) ||
                     has_string(other->fixtures_setup, fixture)) &&
                    !has_string(other->fixtures_cleanup, fixture))
                    add_after(test, o);
            }
        }
    }
}

/* Reads the json-v1 listing into run->tests. Returns 0, or 2 after
 * printing why. */
static int read_listing(struct ctest_run *run, const char *text)
{
    cJSON *root = cJSON_Parse(text);
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(root, "tests");
    if (!cJSON_IsArray(tests)) {
        cJSON_Delete(root);
        return tattle__cli_fail("ctest", "ctest --show-only=json-v1 printed "
                                         "no list of tests");
    }
    size_t count = (size_t)cJSON_GetArraySize(tests);
    run->tests = tattle__calloc(count ? count : 1, sizeof *run->tests);
    const cJSON *entry;
    cJSON_ArrayForEach(entry, tests)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "name");
        if (!cJSON_IsString(name))
            continue;
        struct ctest_test *test = &run->tests[run->count++];
        test->name = tattle__strdup(name->valuestring);
        test->argv =
            string_array(cJSON_GetObjectItemCaseSensitive(entry, "command"));
        test->timeout_ms = 1500 * 1000L;
        const cJSON *property;
        cJSON_ArrayForEach(
            property, cJSON_GetObjectItemCaseSensitive(entry, "properties"))
        {
            const cJSON *key =
                cJSON_GetObjectItemCaseSensitive(property, "name");
            const cJSON *value =
                cJSON_GetObjectItemCaseSensitive(property, "value");
            if (!cJSON_IsString(key))
                continue;
            const char *k = key->valuestring;
            if (strcmp(k, "WORKING_DIRECTORY") == 0 && cJSON_IsString(value))
                test->working_directory = tattle__strdup(value->valuestring);
            else if (strcmp(k, "TIMEOUT") == 0 && cJSON_IsNumber(value) &&
                     value->valuedouble > 0 && value->valuedouble < 1e7)
                test->timeout_ms = (long)ceil(value->valuedouble * 1000);
            else if (strcmp(k, "LABELS") == 0)
                test->tags = labels_as_tags(value);
            else if (strcmp(k, "ENVIRONMENT") == 0)
                test->environment = string_array(value);
            else if (strcmp(k, "SKIP_RETURN_CODE") == 0 &&
                     cJSON_IsNumber(value) && value->valuedouble >= 1 &&
                     value->valuedouble <= 255)
                test->skip_exit_code = (int)value->valuedouble;
            else if (strcmp(k, "DISABLED") == 0)
                test->disabled = cJSON_IsTrue(value);
            else if (strcmp(k, "WILL_FAIL") == 0)
                test->will_fail = cJSON_IsTrue(value);
            else if (strcmp(k, "RUN_SERIAL") == 0)
                test->run_serial = cJSON_IsTrue(value);
            else if (strcmp(k, "ENVIRONMENT_MODIFICATION") == 0)
                test->environment_modification = string_array(value);
            else if (strcmp(k, "RESOURCE_LOCK") == 0)
                test->resource_locks = string_array(value);
            else if (strcmp(k, "DEPENDS") == 0)
                test->depends = string_array(value);
            else if (strcmp(k, "FIXTURES_SETUP") == 0)
                test->fixtures_setup = string_array(value);
            else if (strcmp(k, "FIXTURES_CLEANUP") == 0)
                test->fixtures_cleanup = string_array(value);
            else if (strcmp(k, "FIXTURES_REQUIRED") == 0)
                test->fixtures_required = string_array(value);
        }
    }
    cJSON_Delete(root);
    order_tests(run);
    return 0;
}

/* Writes the stream of a test that `tattle run` did not report: one
 * result, skipped (a DISABLED test) or failed with an error saying why it
 * could not run. */
static void write_unrun_stream(struct ctest_test *test, bool skipped,
                               const char *reason)
{
    struct tattle__buffer id = {0};
    tattle__buffer_printf(&id, "ctest/%s", test->name);
    struct tattle_tag tags[64];
    size_t tag_count = 0;
    char *words = test->tags ? tattle__strdup(test->tags) : NULL;
    char *save = NULL;
    for (char *word = words ? strtok_r(words, " ", &save) : NULL;
         word && tag_count < sizeof tags / sizeof *tags;
         word = strtok_r(NULL, " ", &save))
        tags[tag_count++] = (struct tattle_tag){.name = word};
    struct tattle_test_info info = {
        .id = id.data,
        .suite = "ctest",
        .name = test->name,
        .tags = tags,
        .tag_count = tag_count,
        .timeout_ms = test->timeout_ms,
    };
    struct tattle_failure failure = {.kind = TATTLE_FAILURE_ERROR,
                                     .message = reason};
    struct tattle_result result = {
        .test = &info,
        .state = skipped ? TATTLE_STATE_SKIPPED : TATTLE_STATE_FAILED,
        .failures = skipped ? NULL : &failure,
        .failure_count = skipped ? 0 : 1,
        .skip_reason = skipped ? reason : NULL,
        .stdout_output = {.text = ""},
        .stderr_output = {.text = ""},
    };
    char started_at[32];
    tattle__timestamp_utc(started_at);
    char *argv[] = {"tattle", "ctest", NULL};
    struct tattle_run_info run_info = {
        .started_at = started_at,
        .jobs = 1,
        .argc = 2,
        .argv = argv,
        .executable = "tattle",
        .planned = 1,
    };
    struct tattle_summary summary = {.total = 1,
                                     .passed = 0,
                                     .failed = skipped ? 0 : 1,
                                     .skipped = skipped ? 1 : 0};
    struct tattle_report_options options = {0};
    struct tattle__cli_writer writer = {0};
    if (tattle__cli_writer_open(&writer, "ctest", "jsonl", test->stream,
                                &options) == 0) {
        tattle__cli_writer_begin(&writer, &run_info);
        tattle__cli_writer_test(&writer, &result);
        tattle__cli_writer_end(&writer, "ctest", &summary);
    }
    free(words);
    tattle__buffer_release(&id);
}

/* ---- The environment of a test ---- */

/* An environment being built: NAME=VALUE strings, each malloc'd. */
struct environment {
    char **variables; /* NULL-terminated */
    size_t count;
};

static size_t name_length(const char *variable)
{
    const char *equals = strchr(variable, '=');
    return equals ? (size_t)(equals - variable) : strlen(variable);
}

/* The index of NAME's variable, or env->count. */
static size_t find_variable(const struct environment *env, const char *name,
                            size_t length)
{
    for (size_t i = 0; i < env->count; i++)
        if (name_length(env->variables[i]) == length &&
            strncmp(env->variables[i], name, length) == 0)
            return i;
    return env->count;
}

/* Sets NAME (of `length` bytes) to `value`, or unsets it (NULL). */
static void set_variable(struct environment *env, const char *name,
                         size_t length, const char *value)
{
    size_t at = find_variable(env, name, length);
    if (!value) {
        if (at == env->count)
            return;
        free(env->variables[at]);
        env->variables[at] = env->variables[--env->count];
        env->variables[env->count] = NULL;
        return;
    }
    struct tattle__buffer text = {0};
    tattle__buffer_append(&text, name, length);
    tattle__buffer_printf(&text, "=%s", value);
    if (at == env->count) {
        env->variables = tattle__realloc(
            env->variables, (env->count + 2) * sizeof *env->variables);
        env->count++;
        env->variables[env->count] = NULL;
    } else {
        free(env->variables[at]);
    }
    env->variables[at] = tattle__buffer_take(&text);
}

static const char *variable_value(const struct environment *env,
                                  const char *name, size_t length)
{
    size_t at = find_variable(env, name, length);
    return at == env->count ? NULL : env->variables[at] + length + 1;
}

static void release_environment(struct environment *env)
{
    for (size_t i = 0; i < env->count; i++)
        free(env->variables[i]);
    free(env->variables);
    *env = (struct environment){0};
}

/* Applies one ENVIRONMENT_MODIFICATION entry, NAME=OP:VALUE, as CTest
 * does: `unmodified` is the environment after ENVIRONMENT, what reset
 * goes back to. Returns false, with `why` written, for an entry CTest
 * refuses (the test then fails before it runs). */
static bool modify_environment(struct environment *env,
                               const struct environment *unmodified,
                               const char *entry, struct tattle__buffer *why)
{
    const char *equals = strchr(entry, '=');
    const char *colon = equals ? strchr(equals + 1, ':') : NULL;
    if (!equals || equals == entry || !colon) {
        tattle__buffer_printf(why,
                              "ENVIRONMENT_MODIFICATION '%s' is not "
                              "NAME=OP:VALUE",
                              entry);
        return false;
    }
    size_t length = (size_t)(equals - entry);
    size_t op_length = (size_t)(colon - equals - 1);
    const char *op = equals + 1, *value = colon + 1;
#define OP_IS(word)                                                            \
    (op_length == strlen(word) && strncmp(op, word, op_length) == 0)
    const char *separator = NULL;
    bool prepend = false;
    if (OP_IS("reset")) {
        set_variable(env, entry, length,
                     variable_value(unmodified, entry, length));
        return true;
    }
    if (OP_IS("set")) {
        set_variable(env, entry, length, value);
        return true;
    }
    if (OP_IS("unset")) {
        set_variable(env, entry, length, NULL);
        return true;
    }
    if (OP_IS("string_append") || OP_IS("string_prepend"))
        separator = "";
    else if (OP_IS("path_list_append") || OP_IS("path_list_prepend"))
        separator = ":";
    else if (OP_IS("cmake_list_append") || OP_IS("cmake_list_prepend"))
        separator = ";";
    prepend = OP_IS("string_prepend") || OP_IS("path_list_prepend") ||
              OP_IS("cmake_list_prepend");
#undef OP_IS
    if (!separator) {
        tattle__buffer_printf(why,
                              "ENVIRONMENT_MODIFICATION '%s': unknown "
                              "operation '%.*s'",
                              entry, (int)op_length, op);
        return false;
    }
    /* A list operation on an unset or empty variable adds no separator. */
    const char *current = variable_value(env, entry, length);
    struct tattle__buffer joined = {0};
    if (!current || !*current)
        tattle__buffer_append_string(&joined, value);
    else if (prepend)
        tattle__buffer_printf(&joined, "%s%s%s", value, separator, current);
    else
        tattle__buffer_printf(&joined, "%s%s%s", current, separator, value);
    set_variable(env, entry, length, joined.data);
    tattle__buffer_release(&joined);
    return true;
}

/* The environment `test` runs in: this one, then its ENVIRONMENT, then its
 * ENVIRONMENT_MODIFICATION. NULL, with `why` written, when a modification
 * is refused. */
static char **test_environment(const struct ctest_test *test,
                               struct tattle__buffer *why)
{
    struct environment env = {0}, unmodified = {0};
    for (size_t i = 0; environ[i]; i++) {
        const char *variable = environ[i];
        size_t length = name_length(variable);
        if (variable[length] == '=')
            set_variable(&env, variable, length, variable + length + 1);
    }
    for (size_t i = 0; test->environment && test->environment[i]; i++) {
        const char *variable = test->environment[i];
        size_t length = name_length(variable);
        if (length > 0)
            set_variable(&env, variable, length,
                         variable[length] == '=' ? variable + length + 1 : "");
    }
    bool good = true;
    for (size_t i = 0; test->environment_modification &&
                       test->environment_modification[i] && good;
         i++) {
        if (i == 0)
            for (size_t v = 0; v < env.count; v++) {
                const char *variable = env.variables[v];
                size_t length = name_length(variable);
                set_variable(&unmodified, variable, length,
                             variable + length + 1);
            }
        good = modify_environment(&env, &unmodified,
                                  test->environment_modification[i], why);
    }
    release_environment(&unmodified);
    if (!good) {
        release_environment(&env);
        return NULL;
    }
    if (!env.variables)
        env.variables = tattle__calloc(1, sizeof *env.variables);
    return env.variables;
}

/* Adds "--FLAG=TEXT" to a NULL-terminated list of `*count` words. */
static void add_option(char ***words, size_t *count, const char *flag,
                       const char *text, size_t length)
{
    struct tattle__buffer word = {0};
    tattle__buffer_printf(&word, "--%s=", flag);
    tattle__buffer_append(&word, text, length);
    *words = tattle__realloc(*words, (*count + 2) * sizeof **words);
    (*words)[(*count)++] = tattle__buffer_take(&word);
    (*words)[*count] = NULL;
}

/* Whether `test`'s ENVIRONMENT or ENVIRONMENT_MODIFICATION names the
 * variable NAME (of `length` bytes). */
static bool test_names_variable(const struct ctest_test *test, const char *name,
                                size_t length)
{
    char **lists[] = {test->environment, test->environment_modification};
    for (size_t l = 0; l < 2; l++)
        for (size_t i = 0; lists[l] && lists[l][i]; i++)
            if (name_length(lists[l][i]) == length &&
                strncmp(lists[l][i], name, length) == 0)
                return true;
    return false;
}

/* `tattle run`'s options that give the command `environment`, the one
 * `test` runs in: --unset-env=NAME for a variable it lacks,
 * --env=NAME=VALUE for one it sets, for every variable the test's
 * properties name and every other one where this process's environment
 * differs. They are in the reruns, which thus run the test in the
 * environment the run gave it. NULL when there is none. */
static char **environment_options(char **environment,
                                  const struct ctest_test *test)
{
    struct environment given = {.variables = environment}, here = {0};
    while (environment[given.count])
        given.count++;
    char **options = NULL;
    size_t count = 0;
    for (size_t i = 0; environ[i]; i++) {
        const char *variable = environ[i];
        size_t length = name_length(variable);
        if (variable[length] != '=')
            continue;
        set_variable(&here, variable, length, variable + length + 1);
    }
    /* Removed: a variable of this environment or one the test names
     * that the test's environment lacks, each once. */
    struct environment removed = {0};
    char **lists[] = {environ, test->environment,
                      test->environment_modification};
    for (size_t l = 0; l < 3; l++)
        for (size_t i = 0; lists[l] && lists[l][i]; i++) {
            const char *variable = lists[l][i];
            size_t length = name_length(variable);
            if (length == 0 || (l == 0 && variable[length] != '=') ||
                find_variable(&given, variable, length) != given.count ||
                find_variable(&removed, variable, length) != removed.count)
                continue;
            set_variable(&removed, variable, length, "");
            add_option(&options, &count, "unset-env", variable, length);
        }
    release_environment(&removed);
    for (size_t i = 0; i < given.count; i++) {
        const char *variable = given.variables[i];
        size_t length = name_length(variable);
        const char *value = variable_value(&here, variable, length);
        if (!value || strcmp(value, variable + length + 1) != 0 ||
            test_names_variable(test, variable, length))
            add_option(&options, &count, "env", variable, strlen(variable));
    }
    release_environment(&here);
    return options;
}

/* ---- Running the tests ---- */

/* What the process started for a test says when it could not become
 * `tattle run`: which step failed, and errno. */
struct start_error {
    int step; /* 1: chdir, 2: exec */
    int error;
};

/* Starts `tattle run` for one test, in a process group of its own (so
 * that it and what it started can be signalled together); its output
 * goes to /dev/null (the stream holds all of it). Returns its pid, or -1
 * with `why` written when it could not start. */
static pid_t start_test(const struct ctest_run *run, size_t index,
                        const char *self, const sigset_t *old_mask,
                        struct tattle__buffer *why)
{
    struct ctest_test *test = &run->tests[index];
    char **environment = test_environment(test, why);
    if (!environment)
        return -1;
    char **environment_changes = environment_options(environment, test);
    free_strings(environment);
    size_t change_count = 0;
    while (environment_changes && environment_changes[change_count])
        change_count++;
    /* Absolute, for the reruns in any directory. */
    char *directory = test->working_directory
                          ? realpath(test->working_directory, NULL)
                          : NULL;
    struct tattle__buffer name = {0}, timeout = {0}, skip = {0};
    tattle__buffer_printf(&name, "--name=ctest/%s", test->name);
    tattle__buffer_printf(&timeout, "--timeout=%ld", test->timeout_ms);
    size_t command_count = 0;
    while (test->argv[command_count])
        command_count++;
    char **argv =
        tattle__calloc(command_count + change_count + 16, sizeof *argv);
    size_t n = 0;
    argv[n++] = (char *)self; /* the reruns name it */
    argv[n++] = "run";
    argv[n++] = name.data;
    argv[n++] = timeout.data;
    argv[n++] = "--qualify-inner";
    argv[n++] = "--jsonl";
    argv[n++] = test->stream;
    if (test->skip_exit_code) {
        tattle__buffer_printf(&skip, "--skip-exit-code=%d",
                              test->skip_exit_code);
        argv[n++] = skip.data;
    }
    if (test->will_fail)
        argv[n++] = "--will-fail";
    if (test->tags) {
        argv[n++] = "--tags";
        argv[n++] = test->tags;
    }
    if (directory) {
        argv[n++] = "--chdir";
        argv[n++] = directory;
    }
    for (size_t i = 0; i < change_count; i++)
        argv[n++] = environment_changes[i];
    argv[n++] = "--";
    for (size_t i = 0; i < command_count; i++)
        argv[n++] = test->argv[i];
    int report[2] = {-1, -1};
    pid_t pid = -1;
    if (pipe2(report, O_CLOEXEC) != 0) {
        tattle__buffer_printf(why, "cannot start tattle run: pipe: %s",
                              strerror(errno));
    } else {
        fflush(NULL);
        pid = fork();
        if (pid < 0)
            tattle__buffer_printf(why, "cannot start tattle run: fork: %s",
                                  strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL); /* ignored here only for the progress */
        sigprocmask(SIG_SETMASK, old_mask, NULL);
        close(report[0]);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        struct start_error failed = {.step = 1};
        if (!test->working_directory || chdir(test->working_directory) == 0) {
            execv(self, argv);
            failed.step = 2;
        }
        failed.error = errno;
        ssize_t written = write(report[1], &failed, sizeof failed);
        (void)written;
        _exit(127);
    }
    if (report[1] >= 0)
        close(report[1]);
    if (pid > 0) {
        setpgid(pid, pid); /* the child does too: either wins the race */
        /* The pipe ends at the exec (close-on-exec), or brings why not. */
        struct start_error failed = {0};
        ssize_t got;
        while ((got = read(report[0], &failed, sizeof failed)) < 0 &&
               errno == EINTR)
            continue;
        if (got == (ssize_t)sizeof failed) {
            int status;
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                continue;
            pid = -1;
            if (failed.step == 1)
                tattle__buffer_printf(why,
                                      "cannot enter its WORKING_DIRECTORY "
                                      "%s: %s",
                                      test->working_directory,
                                      strerror(failed.error));
            else
                tattle__buffer_printf(why, "cannot start tattle run (%s): %s",
                                      self, strerror(failed.error));
        }
    }
    if (report[0] >= 0)
        close(report[0]);
    free_strings(environment_changes);
    free(directory);
    free(argv);
    tattle__buffer_release(&name);
    tattle__buffer_release(&timeout);
    tattle__buffer_release(&skip);
    return pid;
}

/* Set once printing the progress failed (a pipe whose reader is gone, as
 * `tattle ctest | head -1`): the run goes on without it. */
static bool progress_closed;

static void end_progress_line(void)
{
    if (fflush(stdout) != 0)
        progress_closed = true;
}

static void print_finished(const struct ctest_test *test, int status)
{
    if (progress_closed)
        return;
    const char *word = "ERROR";
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        word = "PASS";
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
        word = "FAIL";
    struct tattle__buffer line = {0};
    tattle__cli_append_printable(&line, test->name, strlen(test->name), false,
                                 0);
    printf("%-5s ctest/%s", word, line.data);
    if (WIFEXITED(status) && WEXITSTATUS(status) > 1)
        printf(" (tattle run exited %d)", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf(" (tattle run killed by signal %d)", WTERMSIG(status));
    putchar('\n');
    end_progress_line();
    tattle__buffer_release(&line);
}

/* Ends a test that did not run: its stream written here, one line
 * printed. */
static void finish_unrun(struct ctest_test *test, bool skipped,
                         const char *reason)
{
    write_unrun_stream(test, skipped, reason);
    if (!progress_closed) {
        struct tattle__buffer line = {0};
        tattle__cli_append_printable(&line, test->name, strlen(test->name),
                                     false, 0);
        printf("%-5s ctest/%s\n", skipped ? "SKIP" : "ERROR", line.data);
        end_progress_line();
        tattle__buffer_release(&line);
    }
    test->phase = TEST_DONE;
    test->failed = !skipped;
}

/* The setup test that failed of a fixture `test` requires, or NULL. */
static const struct ctest_test *failed_setup(const struct ctest_run *run,
                                             const struct ctest_test *test,
                                             const char **fixture)
{
    for (size_t f = 0; test->fixtures_required && test->fixtures_required[f];
         f++) {
        if (has_string(test->fixtures_setup, test->fixtures_required[f]))
            continue;
        for (size_t o = 0; o < run->count; o++) {
            const struct ctest_test *other = &run->tests[o];
            if (other != test && other->phase == TEST_DONE && other->failed &&
                has_string(other->fixtures_setup, test->fixtures_required[f])) {
                *fixture = test->fixtures_required[f];
                return other;
            }
        }
    }
    return NULL;
}

/* What is running, for the rules of RUN_SERIAL and RESOURCE_LOCK. */
struct schedule {
    size_t running;
    bool serial_running;
};

static bool lock_held(const struct ctest_run *run, const char *lock)
{
    for (size_t i = 0; i < run->count; i++)
        if (run->tests[i].phase == TEST_RUNNING &&
            has_string(run->tests[i].resource_locks, lock))
            return true;
    return false;
}

/* Whether `test`, whose tests to wait for have ended, may start now. */
static bool may_start(const struct ctest_run *run,
                      const struct ctest_test *test,
                      const struct schedule *schedule)
{
    if (schedule->serial_running || schedule->running >= (size_t)run->jobs)
        return false;
    if (test->run_serial && schedule->running > 0)
        return false;
    for (size_t i = 0; test->resource_locks && test->resource_locks[i]; i++)
        if (lock_held(run, test->resource_locks[i]))
            return false;
    return true;
}

static bool waits_for_none(const struct ctest_run *run,
                           const struct ctest_test *test)
{
    for (size_t i = 0; i < test->after_count; i++)
        if (run->tests[test->after[i]].phase != TEST_DONE)
            return false;
    return true;
}

/* Starts what may start, in CTest's order; tests that cannot run end
 * here. Returns whether anything changed. */
static bool start_ready(struct ctest_run *run, const char *self,
                        const sigset_t *old_mask, struct schedule *schedule)
{
    bool changed = false;
    for (size_t t = 0; t < run->count; t++) {
        struct ctest_test *test = &run->tests[t];
        if (test->phase != TEST_WAITING || !waits_for_none(run, test))
            continue;
        if (!test->stream) {
            struct tattle__buffer stream = {0};
            tattle__buffer_printf(&stream, "%s/%06zu.jsonl", run->temp_dir, t);
            test->stream = tattle__buffer_take(&stream);
        }
        const char *fixture = NULL;
        const struct ctest_test *setup = failed_setup(run, test, &fixture);
        if (test->disabled || setup || !test->argv || !test->argv[0]) {
            struct tattle__buffer why = {0};
            if (test->disabled)
                tattle__buffer_append_string(&why, "DISABLED in CTest");
            else if (setup)
                tattle__buffer_printf(&why,
                                      "not run: the setup test '%s' of its "
                                      "fixture '%s' failed",
                                      setup->name, fixture);
            else
                tattle__buffer_append_string(
                    &why, "CTest has no command for this test (its "
                          "executable was not found)");
            finish_unrun(test, test->disabled || setup, why.data);
            tattle__buffer_release(&why);
            changed = true;
            continue;
        }
        if (!may_start(run, test, schedule)) {
            /* A RUN_SERIAL test waits for the running ones to end; none
             * starts before it meanwhile. */
            if (test->run_serial)
                break;
            continue;
        }
        struct tattle__buffer why = {0};
        test->pid = start_test(run, t, self, old_mask, &why);
        if (test->pid < 0) {
            finish_unrun(test, false, why.data);
        } else {
            test->phase = TEST_RUNNING;
            schedule->running++;
            schedule->serial_running = test->run_serial;
        }
        tattle__buffer_release(&why);
        changed = true;
    }
    return changed;
}

/* Whether the stream at `path` holds a finished test. */
static bool reported_a_test(const char *path)
{
    struct tattle__reader *reader = NULL;
    bool reported = false;
    if (tattle__reader_open(&reader, path) == 0) {
        char *id;
        if (tattle__reader_next_id(reader, &id) > 0) {
            reported = true;
            free(id);
        }
    }
    tattle__reader_close(reader);
    return reported;
}

/* Reaps the tests that ended. */
static void reap(struct ctest_run *run, struct schedule *schedule)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (size_t i = 0; i < run->count; i++) {
            struct ctest_test *test = &run->tests[i];
            if (test->phase != TEST_RUNNING || test->pid != pid)
                continue;
            test->phase = TEST_DONE;
            schedule->running--;
            if (test->run_serial)
                schedule->serial_running = false;
            test->failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
            struct stat info;
            bool refused = stat(test->stream, &info) != 0;
            bool broke = WIFSIGNALED(status) ||
                         (WIFEXITED(status) && WEXITSTATUS(status) > 1);
            if (refused || (broke && !reported_a_test(test->stream))) {
                /* tattle run refused it (a command not found), or died
                 * before it reported: say so in the report, in a stream
                 * of its own beside what tattle run wrote. */
                struct tattle__buffer why = {0};
                if (WIFSIGNALED(status))
                    tattle__buffer_printf(&why,
                                          "tattle run was killed by signal "
                                          "%d before it reported",
                                          WTERMSIG(status));
                else if (!refused)
                    tattle__buffer_printf(&why,
                                          "tattle run exited %d before it "
                                          "reported",
                                          WEXITSTATUS(status));
                else
                    tattle__buffer_printf(&why, "cannot run %s", test->argv[0]);
                if (!refused) {
                    struct tattle__buffer extra = {0};
                    tattle__buffer_printf(&extra, "%.*s-ended.jsonl",
                                          (int)(strlen(test->stream) - 6),
                                          test->stream);
                    test->cut_stream = test->stream;
                    test->stream = tattle__buffer_take(&extra);
                }
                write_unrun_stream(test, false, why.data);
                tattle__buffer_release(&why);
            }
            print_finished(test, status);
        }
    }
}

/* How long the tests are given to report once the run is interrupted;
 * then (or at a second signal) each tattle run is told again, and its
 * process group is killed when it takes KILL_GRACE_MS more. (SIGKILL
 * reaches tattle run only: the test runs in a process group of its own,
 * which tattle run kills when it is told to stop.) */
enum { STOP_GRACE_MS = 10000, KILL_GRACE_MS = 2000 };

/* Signals every running test's process group. */
static void signal_running(const struct ctest_run *run, int signal_number)
{
    for (size_t i = 0; i < run->count; i++)
        if (run->tests[i].phase == TEST_RUNNING)
            kill(-run->tests[i].pid, signal_number);
}

/* Runs every test, at most run->jobs at once, in CTest's order as far as
 * DEPENDS, the fixtures, RUN_SERIAL and RESOURCE_LOCK allow. SIGINT,
 * SIGTERM and SIGHUP stop the run: the running tests are told (SIGTERM
 * to their process groups; they report themselves interrupted), killed
 * when they take longer than STOP_GRACE_MS or at a second signal, and the
 * tests not started are reported not run. Returns the signal that stopped
 * the run, or 0. */
static int run_tests(struct ctest_run *run, const char *self)
{
    /* Started with SIGCHLD ignored, the kernel would reap the tests
     * unseen and queue no SIGCHLD: the run would wait forever. */
    struct sigaction child_default = {.sa_handler = SIG_DFL};
    sigemptyset(&child_default.sa_mask);
    sigaction(SIGCHLD, &child_default, NULL);
    sigset_t mask, old_mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, &old_mask);
    /* A closed stdout ends the progress lines, not the run (the reports,
     * the temporary directory and the running tests are still seen to). */
    signal(SIGPIPE, SIG_IGN);
    int signals = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    struct schedule schedule = {0};
    int stopped_by = 0;
    unsigned long long kill_at = 0;
    bool told_twice = false;
    for (;;) {
        if (!stopped_by)
            while (start_ready(run, self, &old_mask, &schedule))
                continue;
        if (schedule.running == 0) {
            bool waiting = false;
            for (size_t i = 0; i < run->count; i++)
                waiting = waiting || run->tests[i].phase == TEST_WAITING;
            if (!waiting)
                break;
            /* What still waits, waits for itself: a cycle of DEPENDS. */
            for (size_t i = 0; i < run->count; i++)
                if (run->tests[i].phase == TEST_WAITING) {
                    if (!run->tests[i].stream) {
                        struct tattle__buffer stream = {0};
                        tattle__buffer_printf(&stream, "%s/%06zu.jsonl",
                                              run->temp_dir, i);
                        run->tests[i].stream = tattle__buffer_take(&stream);
                    }
                    finish_unrun(&run->tests[i], stopped_by != 0,
                                 stopped_by ? "not run: the run was "
                                              "interrupted"
                                            : "not run: its DEPENDS (or "
                                              "fixtures) wait for each "
                                              "other in a cycle");
                }
            continue;
        }
        int timeout_ms = -1;
        if (kill_at) {
            unsigned long long now = tattle__now_us();
            timeout_ms = now >= kill_at ? 0 : (int)((kill_at - now) / 1000 + 1);
        }
        struct pollfd ready = {.fd = signals, .events = POLLIN};
        int polled = signals >= 0 ? poll(&ready, 1, timeout_ms) : 0;
        if (polled < 0 && errno != EINTR)
            break;
        struct signalfd_siginfo info;
        while (signals >= 0 &&
               read(signals, &info, sizeof info) == (ssize_t)sizeof info) {
            if (info.ssi_signo == SIGCHLD)
                continue;
            if (!stopped_by) {
                stopped_by = (int)info.ssi_signo;
                signal_running(run, SIGTERM);
                kill_at = tattle__now_us() + STOP_GRACE_MS * 1000ULL;
            } else if (!told_twice) {
                kill_at = tattle__now_us(); /* a second signal: at once */
            }
        }
        if (kill_at && tattle__now_us() >= kill_at) {
            if (!told_twice) {
                told_twice = true;
                signal_running(run, SIGTERM);
                kill_at = tattle__now_us() + KILL_GRACE_MS * 1000ULL;
            } else {
                signal_running(run, SIGKILL);
                kill_at = 0; /* they end now: wait for that */
            }
        }
        if (signals < 0) {
            /* No signalfd: wait for a test to end. */
            siginfo_t ended;
            while (waitid(P_ALL, 0, &ended, WEXITED | WNOWAIT) < 0 &&
                   errno == EINTR)
                continue;
        }
        reap(run, &schedule);
    }
    /* The signals stay blocked: one that comes while the reports are
     * written waits until they are (and the process ends). */
    if (signals >= 0)
        close(signals);
    return stopped_by;
}

/* An id and the test whose stream holds it. */
struct owned_id {
    char *id;
    size_t test;
};

static int compare_owned(const void *a, const void *b)
{
    const struct owned_id *x = a, *y = b;
    int order = strcmp(x->id, y->id);
    return order ? order : (x->test > y->test) - (x->test < y->test);
}

/* Counts the streams that exist. Returns whether an id is in two tests'
 * streams, after naming the first such on stderr. (The inner tests of
 * each CTest test are qualified by its name, so that takes names made to
 * meet, as a CTest test "ctest" with TAP point 1 and one named "1".) */
static bool check_ids(const struct ctest_run *run, size_t *streams)
{
    struct owned_id *ids = NULL;
    size_t count = 0;
    *streams = 0;
    for (size_t i = 0; i < run->count; i++) {
        struct stat info;
        if (!run->tests[i].stream || stat(run->tests[i].stream, &info) != 0)
            continue;
        ++*streams;
        struct tattle__reader *reader = NULL;
        if (tattle__reader_open(&reader, run->tests[i].stream) != 0) {
            tattle__reader_close(reader);
            continue; /* merge names what is wrong with it */
        }
        char *id;
        while (tattle__reader_next_id(reader, &id) > 0) {
            ids = tattle__realloc(ids, (count + 1) * sizeof *ids);
            ids[count++] = (struct owned_id){.id = id, .test = i};
        }
        tattle__reader_close(reader);
    }
    bool shared = false;
    if (count > 1)
        qsort(ids, count, sizeof *ids, compare_owned);
    for (size_t i = 1; i < count && !shared; i++)
        if (strcmp(ids[i - 1].id, ids[i].id) == 0 &&
            ids[i - 1].test != ids[i].test) {
            shared = true;
            fprintf(stderr,
                    "tattle ctest: test '%s' is reported by both CTest "
                    "tests '%s' and '%s'; the reports keep the later\n",
                    ids[i].id, run->tests[ids[i - 1].test].name,
                    run->tests[ids[i].test].name);
        }
    for (size_t i = 0; i < count; i++)
        free(ids[i].id);
    free(ids);
    return shared;
}

/* Writes each requested report as `tattle merge` does, in this process
 * (one that can no longer start processes still writes them). Returns 0
 * or 2. */
static int write_reports(const struct ctest_run *run, bool keep_last)
{
    int result = 0;
    for (size_t f = 0; f < FORMAT_COUNT; f++) {
        if (!run->reports[f])
            continue;
        char to[32];
        snprintf(to, sizeof to, "--to=%s", report_formats[f]);
        /* As main() hands it: the run's command line is argv[-1]... */
        char *argv[] = {
            "tattle", "merge",       "-o",          (char *)run->reports[f],
            to,       run->temp_dir, "--keep-last", NULL};
        if (!keep_last)
            argv[6] = NULL;
        if (tattle__cli_merge(keep_last ? 6 : 5, argv + 1) != 0)
            result = tattle__cli_fail("ctest", "the %s report was not written",
                                      report_formats[f]);
    }
    return result;
}

int tattle__cli_ctest(int argc, char **argv)
{
    struct ctest_run run = {0};
    int status = parse_arguments(&run, argc, argv);
    char *listing = status < 0 ? list_tests(&run) : NULL;
    if (status < 0 && !listing)
        status = TATTLE__EXIT_BAD_INPUT;
    if (status < 0 && read_listing(&run, listing) != 0)
        status = TATTLE__EXIT_BAD_INPUT;
    free(listing);
    if (status < 0 && run.count == 0)
        status = tattle__cli_fail(
            "ctest", "ctest lists no test here (none selected, or not a "
                     "build tree)");
    if (status < 0) {
        const char *tmp = getenv("TMPDIR");
        struct tattle__buffer dir = {0};
        tattle__buffer_printf(&dir, "%s/tattle-ctest-XXXXXX",
                              tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(dir.data)) {
            run.temp_dir = tattle__buffer_take(&dir);
        } else {
            status = tattle__cli_fail("ctest", "%s: cannot make: %s", dir.data,
                                      strerror(errno));
            tattle__buffer_release(&dir);
        }
    }
    if (status < 0) {
        char *self = realpath("/proc/self/exe", NULL);
        int stopped_by = run_tests(&run, self ? self : "/proc/self/exe");
        bool passed = true;
        for (size_t i = 0; i < run.count; i++)
            passed = passed && !run.tests[i].failed;
        size_t streams = 0;
        bool shared = check_ids(&run, &streams);
        if (streams == 0)
            status = tattle__cli_fail("ctest", "no test wrote a result");
        else
            status = write_reports(&run, shared);
        if (status == 0 && stopped_by)
            status = TATTLE__EXIT_INTERRUPTED;
        else if (status == 0)
            status = passed && !shared ? TATTLE__EXIT_OK : TATTLE__EXIT_FAILED;
        free(self);
    }
    release_run(&run);
    return status;
}
