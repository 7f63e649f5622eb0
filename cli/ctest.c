/*
 * ctest.c — `tattle ctest [report options] [ctest args]`: a CMake
 * project's CTest tests run under tattle's runner, with one report.
 *
 * The tests are listed by `ctest --show-only=json-v1` in the current
 * directory (a build tree), with the selection arguments passed through
 * (-R/-E/-L/-LE, --test-dir, -C). Each listed test is run by `tattle run`
 * in a child process of its own (this program re-executed), in its working
 * directory, with its environment, its TIMEOUT as the timeout, its LABELS
 * as tags and the id ctest/NAME, writing a JSON Lines stream into a
 * private temporary directory; at most -j of them run at once. A crash of
 * one cannot harm the others nor this process. When all have ended, the
 * streams are joined into each requested report by `tattle merge`. A
 * test `tattle run` does not report (DISABLED, no command, a working
 * directory that is not there) gets a stream written here, through the
 * jsonl reporter: skipped, or failed with an error saying why.
 *
 * Inner results (GoogleTest's SUITE/NAME) of two CTest tests with equal
 * ids would overwrite each other in one report: that is an error naming
 * both CTest tests, and no report is written (TAP points are already
 * qualified by the CTest name, which is their suite).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/timestamp.h"
#include "cli/cli.h"
#include "results/read.h"

static const char help[] =
    "usage: tattle ctest [report options] [-j N] [ctest selection]\n"
    "\n"
    "Runs the tests of a CMake build tree (the current directory, or\n"
    "--test-dir DIR) under tattle's runner, each by `tattle run`: a timeout\n"
    "(the test's TIMEOUT, else 1500 s) that kills its process tree and shows\n"
    "the stacks of its threads, captured output, and one result per inner\n"
    "test of a GoogleTest or TAP program. Each test is ctest/NAME, run in\n"
    "its WORKING_DIRECTORY with its ENVIRONMENT; its LABELS are its tags;\n"
    "exiting with its SKIP_RETURN_CODE skips it.\n"
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
    "Two CTest tests reporting an inner test of the same id (two GoogleTest\n"
    "programs with a test of the same name) are an error: no report is\n"
    "written.\n"
    "\n"
    "exit status: 0 all passed, 1 a test failed, 2 usage error or ctest\n"
    "could not list the tests.\n";

static const char *const report_formats[] = {"json", "jsonl", "junit",
                                             "tap",  "ctrf",  "html"};
enum { FORMAT_COUNT = sizeof report_formats / sizeof *report_formats };

/* One CTest test, as listed. */
struct ctest_test {
    char *name;
    char **argv; /* NULL-terminated */
    char *working_directory;
    char **environment; /* NAME=VALUE, NULL-terminated */
    char *tags;         /* space-separated, valid tag words */
    long timeout_ms;
    int skip_exit_code; /* SKIP_RETURN_CODE; 0: none */
    bool disabled;
    char *stream; /* its JSON Lines stream */
    pid_t pid;
    int exit_status; /* -1: did not end normally */
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
        free(test->tags);
        if (test->stream)
            unlink(test->stream);
        free(test->stream);
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
        }
    }
    cJSON_Delete(root);
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

/* Starts `tattle run` for one test; its output goes to /dev/null (the
 * stream holds all of it). */
static void start_test(const struct ctest_run *run, size_t index,
                       const char *self)
{
    struct ctest_test *test = &run->tests[index];
    struct tattle__buffer name = {0}, timeout = {0}, skip = {0};
    tattle__buffer_printf(&name, "--name=ctest/%s", test->name);
    tattle__buffer_printf(&timeout, "--timeout=%ld", test->timeout_ms);
    size_t command_count = 0;
    while (test->argv[command_count])
        command_count++;
    char **argv = tattle__calloc(command_count + 12, sizeof *argv);
    size_t n = 0;
    argv[n++] = "tattle";
    argv[n++] = "run";
    argv[n++] = name.data;
    argv[n++] = timeout.data;
    argv[n++] = "--jsonl";
    argv[n++] = test->stream;
    if (test->skip_exit_code) {
        tattle__buffer_printf(&skip, "--skip-exit-code=%d",
                              test->skip_exit_code);
        argv[n++] = skip.data;
    }
    if (test->tags) {
        argv[n++] = "--tags";
        argv[n++] = test->tags;
    }
    argv[n++] = "--";
    for (size_t i = 0; i < command_count; i++)
        argv[n++] = test->argv[i];
    fflush(NULL);
    test->pid = fork();
    if (test->pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        if (test->working_directory && chdir(test->working_directory) != 0)
            _exit(126);
        for (size_t i = 0; test->environment && test->environment[i]; i++)
            putenv(test->environment[i]);
        execv(self, argv);
        _exit(127);
    }
    free(argv);
    tattle__buffer_release(&name);
    tattle__buffer_release(&timeout);
    tattle__buffer_release(&skip);
}

static void print_finished(const struct ctest_test *test, int status)
{
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
    fflush(stdout);
    tattle__buffer_release(&line);
}

/* Runs every test, at most run->jobs at once. Returns whether all
 * passed. */
static bool run_tests(struct ctest_run *run, const char *self)
{
    size_t next = 0, running = 0;
    bool all_passed = true;
    while (next < run->count || running > 0) {
        while (running < (size_t)run->jobs && next < run->count) {
            struct ctest_test *test = &run->tests[next];
            struct tattle__buffer stream = {0};
            tattle__buffer_printf(&stream, "%s/%06zu.jsonl", run->temp_dir,
                                  next);
            test->stream = tattle__buffer_take(&stream);
            if (test->disabled || !test->argv || !test->argv[0]) {
                write_unrun_stream(test, test->disabled,
                                   test->disabled
                                       ? "DISABLED in CTest"
                                       : "CTest has no command for this test "
                                         "(its executable was not found)");
                printf("%s ctest/%s\n", test->disabled ? "SKIP " : "ERROR",
                       test->name);
                test->exit_status = test->disabled ? 0 : 2;
                if (!test->disabled)
                    all_passed = false;
                next++;
                continue;
            }
            start_test(run, next++, self);
            if (run->tests[next - 1].pid > 0)
                running++;
            else
                all_passed = false;
        }
        if (running == 0)
            break;
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (size_t i = 0; i < run->count; i++) {
            if (run->tests[i].pid != pid)
                continue;
            running--;
            run->tests[i].exit_status =
                WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            if (run->tests[i].exit_status != 0)
                all_passed = false;
            struct stat info;
            if (stat(run->tests[i].stream, &info) != 0) {
                /* tattle run refused it (a command not found) or the
                 * working directory is missing: say so in the report. */
                struct tattle__buffer why = {0};
                if (WIFEXITED(status) && WEXITSTATUS(status) == 126)
                    tattle__buffer_printf(
                        &why, "cannot enter its WORKING_DIRECTORY %s",
                        run->tests[i].working_directory);
                else
                    tattle__buffer_printf(&why, "cannot run %s",
                                          run->tests[i].argv[0]);
                write_unrun_stream(&run->tests[i], false, why.data);
                tattle__buffer_release(&why);
            }
            print_finished(&run->tests[i], status);
        }
    }
    return all_passed;
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

/* Streams that exist, and none of whose ids another test's stream has.
 * Returns 0, or 2 after naming the two tests of a shared id. */
static int check_ids(const struct ctest_run *run, size_t *streams)
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
    int status = 0;
    if (count > 1)
        qsort(ids, count, sizeof *ids, compare_owned);
    for (size_t i = 1; i < count && status == 0; i++)
        if (strcmp(ids[i - 1].id, ids[i].id) == 0 &&
            ids[i - 1].test != ids[i].test)
            status = tattle__cli_fail(
                "ctest",
                "test '%s' is reported by both CTest tests '%s' and '%s'; "
                "no report written",
                ids[i].id, run->tests[ids[i - 1].test].name,
                run->tests[ids[i].test].name);
    for (size_t i = 0; i < count; i++)
        free(ids[i].id);
    free(ids);
    return status;
}

/* Writes each requested report by `tattle merge`. Returns 0 or 2. */
static int write_reports(const struct ctest_run *run, const char *self)
{
    int result = 0;
    for (size_t f = 0; f < FORMAT_COUNT; f++) {
        if (!run->reports[f])
            continue;
        char to[32];
        snprintf(to, sizeof to, "--to=%s", report_formats[f]);
        char *argv[] = {"tattle", "merge",       "-o", (char *)run->reports[f],
                        to,       run->temp_dir, NULL};
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            execv(self, argv);
            _exit(127);
        }
        int status = 0;
        while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
            continue;
        if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
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
        bool passed = run_tests(&run, self ? self : "/proc/self/exe");
        size_t streams = 0;
        status = check_ids(&run, &streams);
        if (status == 0 && streams == 0)
            status = tattle__cli_fail("ctest", "no test wrote a result");
        if (status == 0)
            status = write_reports(&run, self ? self : "/proc/self/exe");
        if (status == 0)
            status = passed ? TATTLE__EXIT_OK : TATTLE__EXIT_FAILED;
        free(self);
    }
    release_run(&run);
    return status;
}
