/*
 * command.c — `tattle run [options] -- COMMAND [ARGS...]`: an existing test
 * program (a CTest executable, a GoogleTest or Check binary, a script)
 * run as one test under the runner.
 *
 * The command line is split at `--`: what comes before is the runner's
 * own options (those of a test binary, plus --name SUITE/NAME), what
 * comes after is the command. The command is looked up on PATH here,
 * before anything runs, so a missing one is a usage error (exit 2); it
 * is then registered as the one test of the run, whose body execs it in
 * the forked test process. Every descriptor the runner opened is
 * close-on-exec or closed in the test process, so the command inherits
 * only stdin, the captured stdout and stderr, and what the caller
 * handed down. Should the exec itself fail, the test process records an
 * error failure saying why and ends.
 *
 * A GoogleTest program is told to write its JSON report to a private
 * temporary file (GTEST_OUTPUT=json:PATH, set in the test process); when
 * the command's result is final, a program that wrote one, or that died
 * after printing GoogleTest's progress lines, has its result expanded
 * into one result per inner test (runner/gtest.h): id SUITE/NAME (an
 * empty part "(empty)", a repeated id made unique by the test's number),
 * its state, duration and failures. The test that was running when the
 * program crashed or timed out carries the command's failure and output;
 * the tests it never reached are skipped as not run. Another failed test
 * carries its own section of stdout, which the progress lines mark, and
 * the program's output the program did not divide among its tests
 * (stderr, a TAP stdout, a stdout without its section) whole, bounded as
 * captured. The command's own result is kept beside its inner tests only
 * when its failure is no inner test's: it exited non-zero with every test
 * passed, or crashed or timed out when none was running. A program that
 * exited 0 before its last test ended (a TAP plan not reached, a test
 * GoogleTest started and never ended) fails that test with an error.
 *
 * Two options serve `tattle ctest`: --will-fail (CTest's WILL_FAIL: a
 * failing exit passes, a passing one fails, a crash or timeout still
 * fails; the program is then one result; not with --retry or --repeat,
 * whose attempts are judged before it inverts) and --qualify-inner (see
 * name_tests_uniquely).
 */
#include "runner/command.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/name_index.h"
#include "base/text.h"
#include "base/timestamp.h"
#include "results/model.h"
#include "runner/gtest.h"
#include "runner/options.h"
#include "runner/tap_in.h"
#include "runner/run.h"
#include "runner/tags.h"
#include "runner/test_process/child.h"
#include "runner/test_process/slot_write.h"
#include "tracer/exec/hand_down.h"

static const char program_name[] = "tattle run";

/* TAP points a failed program planned but never printed that get a result
 * each; the rest share one. */
enum { UNRUN_POINTS_MAX = 1000 };

/* The wrapped command, set before the run starts; the test process, a
 * fork of this one, reads it from its copy. */
static struct {
    char *path;  /* where it was found, for execv */
    char **argv; /* COMMAND [ARGS...], NULL-terminated */
    char *suite, *name;
    char *id; /* "SUITE/NAME", made when first asked for */
    char *rerun;
    /* Where COMMAND [ARGS...] starts in rerun, COMMAND resolved: the key
     * of the run's outcomes in .tattle/last-run.json. */
    size_t command_line_at;
    /* PROGRAM run OPTIONS, shell-quoted: every option that shapes what the
     * run does, for the reruns. */
    char *rerun_head;
    char *typed_command; /* COMMAND [ARGS...] as given, shell-quoted */
    char *directory;     /* --chdir, absolute; NULL: the caller's */
    /* --env NAME=VALUE and --unset-env NAME (no '='), in their order. */
    char **environment_changes;
    size_t environment_change_count;
    char *report_dir, *report_path; /* GoogleTest's JSON report */
    char *gtest_output;             /* GTEST_OUTPUT=json:PATH */
    char *junit_path;   /* --junit-in: the JUnit report it writes, absolute */
    int skip_exit_code; /* 0: none */
    bool will_fail;     /* CTest's WILL_FAIL: a failing exit passes */
    bool qualify_inner; /* the program's suites become NAME.SUITE */
    struct tattle_test test;
    /* The tattle command's reader of --junit-in's report, or NULL. */
    tattle__junit_reader read_junit;
    /* The inner tests' ids, kept for the whole run (the run's last-run
     * record holds them). */
    struct inner_info {
        struct tattle_test_info info;
        char *id, *suite, *name, *file;
    } * *inner;
    size_t inner_count, inner_capacity;
} wrapped;

static void print_usage(FILE *stream)
{
    fprintf(stream,
            "usage: tattle run [options] -- COMMAND [ARGS...]\n"
            "\n"
            "Runs an existing test program as one test under tattle's "
            "runner: a timeout\n"
            "that kills its whole process tree and shows the stacks of "
            "every thread,\n"
            "its output captured (head and tail kept), and every report a "
            "tattle test\n"
            "binary writes. Exit status 0 passes; another status fails "
            "(failure kind\n"
            "exit), death by a signal is a crash. The test is run/BASENAME "
            "unless\n"
            "--name SUITE/NAME says otherwise. A GoogleTest program, one "
            "printing TAP\n"
            "or one writing a JUnit report (--junit-in) gives one result "
            "per inner test,\n"
            "each failed one with the program's output; the command's own "
            "result stays\n"
            "beside them only for a failure none of them explains. The "
            "options are a\n"
            "test binary's:\n\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n"
            "  %-32s %s\n",
            "    --name SUITE/NAME", "the test's id (default run/BASENAME)",
            "    --trace",
            "record the messages of the command's processes (a preload "
            "library;",
            "",
            "dynamically linked programs) and keep the trace: --trace-all "
            "--trace-passed",
            "    --junit-in FILE",
            "one result per <testcase> of the JUnit XML report", "",
            "the command writes at FILE (removed before it runs)",
            "    --tags 'TAG[:VAL] ...'", "the test's tags, in every report",
            "    --skip-exit-code N",
            "the command exiting with N is skipped (CTest's SKIP_RETURN_CODE)",
            "    --will-fail",
            "a non-zero exit passes, 0 fails (CTest's WILL_FAIL; not with "
            "--retry, --repeat)",
            "    --qualify-inner",
            "the tests the program names are NAME.SUITE/TEST",
            "    --chdir DIR", "run the command in DIR", "    --env NAME=VALUE",
            "set NAME in the command's environment (repeatable)",
            "    --unset-env NAME",
            "remove NAME from the command's environment (repeatable)");
    tattle__options_print_flags(stream);
    fprintf(stream, "\nExit status: 0 passed, 1 the command failed, 2 usage "
                    "error (a command not found),\n3 internal error or "
                    "interrupted.\n");
}

/* One line on stderr; returns the exit status of a usage error. */
TATTLE__PRINTF(1, 2) static int usage_error(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, format, arguments);
    fputs(" (tattle run --help)\n", stderr);
    va_end(arguments);
    return 2;
}

/* How the error of a report left in place begins: the command did not
 * run, and what is at the path is not read. */
static const char report_not_removed[] =
    "cannot remove the earlier JUnit report at ";

/* Removes the regular file at `path`, if there is one: NULL when there is
 * none now, else why not. Never a link (nor what it points to), a
 * directory, a FIFO or a device: what is at the path is not the report
 * an earlier run wrote. */
static const char *earlier_report_removed(const char *path)
{
    struct stat status;
    if (lstat(path, &status) != 0)
        return errno == ENOENT ? NULL : strerror(errno);
    if (S_ISLNK(status.st_mode))
        return "it is a symbolic link, not a regular file";
    if (S_ISDIR(status.st_mode))
        return "it is a directory, not a regular file";
    if (!S_ISREG(status.st_mode))
        return "it is not a regular file";
    if (unlink(path) != 0 && errno != ENOENT)
        return strerror(errno);
    return NULL;
}

/* The length of the NAME of "NAME=VALUE" (all of a NAME alone). */
static size_t variable_name_length(const char *variable)
{
    const char *equals = strchr(variable, '=');
    return equals ? (size_t)(equals - variable) : strlen(variable);
}

static bool same_variable(const char *a, const char *b)
{
    size_t length = variable_name_length(a);
    return length == variable_name_length(b) && strncmp(a, b, length) == 0;
}

/* Removes NAME's entries (of `variable`, NAME=VALUE or NAME) from a
 * NULL-terminated list of `*count` entries. */
static void drop_variable(char **variables, size_t *count, const char *variable)
{
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++)
        if (!same_variable(variables[i], variable))
            variables[kept++] = variables[i];
    *count = kept;
    variables[kept] = NULL;
}

/* The environment the command runs in: this process's with --env and
 * --unset-env applied in their order, its GTEST_OUTPUT replaced by
 * `gtest_output` (NAME=VALUE; NULL: kept, unless `without_gtest_output`).
 * Made before a fork, so that the child only execs; the caller frees the
 * array, not its strings. */
static char **command_environment(const char *gtest_output,
                                  bool without_gtest_output)
{
    size_t count = 0;
    while (environ[count])
        count++;
    char **variables = tattle__calloc(
        count + wrapped.environment_change_count + 2, sizeof *variables);
    memcpy(variables, environ, count * sizeof *variables);
    for (size_t i = 0; i < wrapped.environment_change_count; i++) {
        char *change = wrapped.environment_changes[i];
        drop_variable(variables, &count, change);
        if (strchr(change, '='))
            variables[count++] = change;
    }
    /* After the changes: a GTEST_OUTPUT given with --env gives way to
     * tattle's own report file, as the caller's environment's does. */
    if (gtest_output || without_gtest_output)
        drop_variable(variables, &count, "GTEST_OUTPUT");
    if (gtest_output)
        variables[count++] = (char *)gtest_output;
    variables[count] = NULL;
    return variables;
}

/* Body of the wrapped command's test, in the forked test process. */
static void exec_command(void)
{
    if (wrapped.junit_path) {
        /* A report left from an earlier run would be read as this one's:
         * it is removed, when it is a regular file. Anything else at the
         * path (a link, a directory, a FIFO) is left alone, and the
         * command not run. */
        const char *why_not = earlier_report_removed(wrapped.junit_path);
        if (why_not) {
            struct tattle__buffer message = {0};
            tattle__buffer_printf(&message, "%s%s: %s; the command is not run",
                                  report_not_removed, wrapped.junit_path,
                                  why_not);
            struct tattle__slot_failure failure = {.kind = TATTLE_FAILURE_ERROR,
                                                   .message = message.data};
            tattle__slot_add_failure(tattle__child_slot(), &failure);
            tattle__buffer_release(&message);
            return;
        }
    }
    if (wrapped.report_path)
        unlink(wrapped.report_path);
    struct tattle__buffer message = {0};
    if (wrapped.directory && chdir(wrapped.directory) != 0) {
        tattle__buffer_printf(&message,
                              "cannot enter the directory %s (--chdir): %s",
                              wrapped.directory, strerror(errno));
    } else {
        char **environment = command_environment(wrapped.gtest_output, false);
        /* Under --trace, --env may have replaced LD_PRELOAD or
         * ASAN_OPTIONS, which the trace's hand-down had set in this test
         * process: they are set again over the changes. */
        environ = environment;
        tattle__hand_down_reassert();
        execve(wrapped.path, wrapped.argv, environ);
        tattle__buffer_printf(&message, "cannot run %s: %s", wrapped.path,
                              strerror(errno));
        free(environment);
    }
    struct tattle__slot_failure failure = {.kind = TATTLE_FAILURE_ERROR,
                                           .message = message.data};
    tattle__slot_add_failure(tattle__child_slot(), &failure);
    tattle__buffer_release(&message);
}

void tattle__command_set_junit_reader(tattle__junit_reader reader)
{
    wrapped.read_junit = reader;
}

bool tattle__command_wrapping(void)
{
    return wrapped.path != NULL;
}

const char *tattle__command_last_run_key(void)
{
    return wrapped.rerun ? wrapped.rerun + wrapped.command_line_at : NULL;
}

const char *tattle__command_line(void)
{
    return wrapped.typed_command;
}

const char *tattle__command_test_id(void)
{
    if (!wrapped.path)
        return NULL;
    if (!wrapped.id) {
        struct tattle__buffer id = {0};
        tattle__buffer_printf(&id, "%s/%s", wrapped.suite, wrapped.name);
        wrapped.id = tattle__buffer_take(&id);
    }
    return wrapped.id;
}

bool tattle__command_test_is(const struct tattle_test *test)
{
    return wrapped.path && test == &wrapped.test;
}

char *tattle__command_rerun(void)
{
    return wrapped.rerun ? tattle__strdup(wrapped.rerun) : NULL;
}

/* `path` made absolute against `base` (NULL: the working directory), the
 * symbolic links of its directory resolved; its own name is kept (a
 * multi-call program tells its applets by it). NULL when it is no
 * executable file. */
static char *resolved_executable(const char *base, const char *path)
{
    struct tattle__buffer text = {0};
    if (path[0] != '/') {
        char *here = base ? NULL : getcwd(NULL, 0);
        tattle__buffer_printf(&text, "%s/", base ? base : here ? here : ".");
        free(here);
    }
    tattle__buffer_append_string(&text, path);
    char *slash = strrchr(text.data, '/');
    *slash = '\0';
    char *directory = realpath(text.data[0] ? text.data : "/", NULL);
    struct stat status;
    char *found = NULL;
    if (directory && slash[1]) {
        struct tattle__buffer file = {0};
        tattle__buffer_printf(
            &file, "%s/%s", strcmp(directory, "/") ? directory : "", slash + 1);
        if (stat(file.data, &status) == 0 && S_ISREG(status.st_mode) &&
            access(file.data, X_OK) == 0)
            found = tattle__buffer_take(&file);
        tattle__buffer_release(&file);
    }
    free(directory);
    tattle__buffer_release(&text);
    return found;
}

/* The file execve() runs for `command`, as execvp() finds it: a name with
 * a slash from `base` (NULL: the working directory), any other on
 * `search_path` (a relative entry from `base` too); see
 * resolved_executable(). NULL when there is none. */
static char *find_command(const char *command, const char *base,
                          const char *search_path)
{
    if (strchr(command, '/'))
        return resolved_executable(base, command);
    if (!search_path)
        search_path = "/usr/local/bin:/usr/bin:/bin";
    struct tattle__buffer candidate = {0};
    char *found = NULL;
    for (const char *start = search_path; !found; start++) {
        const char *end = strchr(start, ':');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        tattle__buffer_clear(&candidate);
        if (length == 0)
            tattle__buffer_append_string(&candidate, ".");
        else
            tattle__buffer_append(&candidate, start, length);
        tattle__buffer_printf(&candidate, "/%s", command);
        found = resolved_executable(base, candidate.data);
        if (!end)
            break;
        start = end;
    }
    tattle__buffer_release(&candidate);
    return found;
}

/* The PATH the command is found on: the last --env or --unset-env of
 * PATH, else this process's. */
static const char *command_search_path(void)
{
    for (size_t i = wrapped.environment_change_count; i-- > 0;) {
        const char *change = wrapped.environment_changes[i];
        if (same_variable(change, "PATH"))
            return strchr(change, '=') ? change + 5 : NULL;
    }
    return getenv("PATH");
}

/* " WORD", shell-quoted. */
static void append_word(struct tattle__buffer *text, const char *word)
{
    tattle__buffer_append_string(text, " ");
    tattle__buffer_append_shell_quoted(text, word);
}

/* " --FLAG=VALUE", shell-quoted. */
static void append_flag(struct tattle__buffer *text, const char *flag,
                        const char *value)
{
    struct tattle__buffer word = {0};
    tattle__buffer_printf(&word, "--%s=%s", flag, value);
    append_word(text, word.data);
    tattle__buffer_release(&word);
}

/* " COMMAND ARGS...", each word shell-quoted. */
static void append_command(struct tattle__buffer *text, char **command)
{
    append_word(text, wrapped.path);
    for (size_t i = 1; command[i]; i++)
        append_word(text, command[i]);
}

/* Splits --name's SUITE/NAME, or names the test run/BASENAME. */
static int name_test(const char *given, const char *command)
{
    if (!given) {
        const char *slash = strrchr(command, '/');
        wrapped.suite = tattle__strdup("run");
        wrapped.name = tattle__strdup(slash ? slash + 1 : command);
        return 0;
    }
    const char *slash = strchr(given, '/');
    if (!slash || slash == given || slash[1] == '\0')
        return usage_error("--name: '%s' is not SUITE/NAME", given);
    wrapped.suite = tattle__strdup(given);
    wrapped.suite[slash - given] = '\0';
    wrapped.name = tattle__strdup(slash + 1);
    return 0;
}

/* A private directory for GoogleTest's report; none when it cannot be
 * made (the command then runs as one test, as any program does). */
static void make_report_path(void)
{
    const char *tmp = getenv("TMPDIR");
    struct tattle__buffer dir = {0};
    tattle__buffer_printf(&dir, "%s/tattle-run-XXXXXX",
                          tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir.data)) {
        tattle__buffer_release(&dir);
        return;
    }
    wrapped.report_dir = tattle__buffer_take(&dir);
    struct tattle__buffer path = {0};
    tattle__buffer_printf(&path, "%s/gtest.json", wrapped.report_dir);
    wrapped.report_path = tattle__buffer_take(&path);
    struct tattle__buffer output = {0};
    tattle__buffer_printf(&output, "GTEST_OUTPUT=json:%s", wrapped.report_path);
    wrapped.gtest_output = tattle__buffer_take(&output);
}

static void release_wrapped(void)
{
    if (wrapped.report_path)
        unlink(wrapped.report_path);
    if (wrapped.report_dir)
        rmdir(wrapped.report_dir);
    for (size_t i = 0; i < wrapped.inner_count; i++) {
        free(wrapped.inner[i]->id);
        free(wrapped.inner[i]->suite);
        free(wrapped.inner[i]->name);
        free(wrapped.inner[i]->file);
        free(wrapped.inner[i]);
    }
    free(wrapped.inner);
    free(wrapped.path);
    free(wrapped.suite);
    free(wrapped.name);
    free(wrapped.id);
    free(wrapped.rerun);
    free(wrapped.rerun_head);
    free(wrapped.typed_command);
    free(wrapped.directory);
    free(wrapped.environment_changes);
    free(wrapped.report_dir);
    free(wrapped.report_path);
    free(wrapped.gtest_output);
    free(wrapped.junit_path);
    tattle__junit_reader read_junit = wrapped.read_junit;
    wrapped = (__typeof__(wrapped)){0};
    wrapped.read_junit = read_junit;
}

/* The command line split at `--`: the runner's options (without --name,
 * behind a program name, NULL-terminated) and where the command starts. */
struct split_line {
    char **runner_argv;
    int runner_argc;
    const char *given_name;
    const char *given_tags;
    const char *given_skip_code;
    const char *given_junit_in;
    const char *given_timeout; /* also handed to the runner */
    const char *given_directory;
    bool traced;       /* --trace: its two runner flags are added once */
    int command_start; /* argc when there is none */
};

/* Splits argv (argv[0] the tattle command, argv[1] "run"). Returns -1 to
 * go on, or the exit status of what was answered already: --help,
 * --version, a usage error. */
static int split_command_line(int argc, char **argv, struct split_line *line)
{
    int separator = argc;
    for (int i = 2; i < argc && separator == argc; i++)
        if (strcmp(argv[i], "--") == 0)
            separator = i;
    line->runner_argv =
        tattle__calloc((size_t)argc + 2, sizeof *line->runner_argv);
    line->runner_argv[line->runner_argc++] = (char *)program_name;
    for (int i = 2; i < separator; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return 0;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("tattle %s\n", TATTLE_VERSION);
            return 0;
        }
        if (strcmp(arg, "--no-fork") == 0)
            return usage_error("%s: a command runs in a process of its own",
                               arg);
        if (strncmp(arg, "--name=", 7) == 0) {
            line->given_name = arg + 7;
        } else if (strcmp(arg, "--name") == 0) {
            if (i + 1 >= separator)
                return usage_error("%s needs a value: SUITE/NAME", arg);
            line->given_name = argv[++i];
        } else if (strncmp(arg, "--skip-exit-code=", 17) == 0) {
            line->given_skip_code = arg + 17;
        } else if (strcmp(arg, "--skip-exit-code") == 0) {
            if (i + 1 >= separator)
                return usage_error("%s needs a value: 1 to 255", arg);
            line->given_skip_code = argv[++i];
        } else if (strcmp(arg, "--trace") == 0) {
            if (!line->traced) {
                line->traced = true;
                line->runner_argv[line->runner_argc++] = "--trace-all";
                line->runner_argv[line->runner_argc++] = "--trace-passed";
            }
        } else if (strncmp(arg, "--timeout=", 10) == 0) {
            line->given_timeout = arg + 10;
            line->runner_argv[line->runner_argc++] = argv[i];
        } else if (strcmp(arg, "--timeout") == 0 && i + 1 < separator) {
            line->given_timeout = argv[i + 1];
            line->runner_argv[line->runner_argc++] = argv[i];
            line->runner_argv[line->runner_argc++] = argv[++i];
        } else if (strncmp(arg, "--chdir=", 8) == 0) {
            line->given_directory = arg + 8;
        } else if (strcmp(arg, "--chdir") == 0) {
            if (i + 1 >= separator)
                return usage_error("%s needs a value: DIR", arg);
            line->given_directory = argv[++i];
        } else if (strncmp(arg, "--env=", 6) == 0 ||
                   strncmp(arg, "--unset-env=", 12) == 0 ||
                   strcmp(arg, "--env") == 0 ||
                   strcmp(arg, "--unset-env") == 0) {
            bool set = strncmp(arg, "--env", 5) == 0;
            const char *equals = strchr(arg, '=');
            const char *value = equals ? equals + 1 : NULL;
            if (!value && i + 1 < separator)
                value = argv[++i];
            size_t length = value ? variable_name_length(value) : 0;
            if (!value || length == 0 || (set && !value[length]) ||
                (!set && value[length]))
                return usage_error("%s needs a value: %s",
                                   set ? "--env" : "--unset-env",
                                   set ? "NAME=VALUE" : "NAME");
            wrapped.environment_changes =
                tattle__realloc(wrapped.environment_changes,
                                (wrapped.environment_change_count + 1) *
                                    sizeof *wrapped.environment_changes);
            wrapped.environment_changes[wrapped.environment_change_count++] =
                (char *)value;
        } else if (strcmp(arg, "--will-fail") == 0) {
            wrapped.will_fail = true;
        } else if (strcmp(arg, "--qualify-inner") == 0) {
            wrapped.qualify_inner = true;
        } else if (strncmp(arg, "--junit-in=", 11) == 0) {
            line->given_junit_in = arg + 11;
        } else if (strcmp(arg, "--junit-in") == 0) {
            if (i + 1 >= separator)
                return usage_error("%s needs a value: FILE", arg);
            line->given_junit_in = argv[++i];
        } else if (strncmp(arg, "--tags=", 7) == 0) {
            line->given_tags = arg + 7;
        } else if (strcmp(arg, "--tags") == 0) {
            if (i + 1 >= separator)
                return usage_error("%s needs a value: 'TAG[:VAL] ...'", arg);
            line->given_tags = argv[++i];
        } else {
            line->runner_argv[line->runner_argc++] = argv[i];
        }
    }
    if (line->given_skip_code) {
        char *end = NULL;
        long code = strtol(line->given_skip_code, &end, 10);
        if (!*line->given_skip_code || *end || code < 1 || code > 255)
            return usage_error("--skip-exit-code: '%s' is not a status from "
                               "1 to 255",
                               line->given_skip_code);
        wrapped.skip_exit_code = (int)code;
    }
    if (line->given_tags) {
        char *words = tattle__strdup(line->given_tags);
        const char *bad = NULL;
        for (char *word = strtok(words, " "); word && !bad;
             word = strtok(NULL, " "))
            if (!tattle__tag_is_valid(word))
                bad = word;
        int status = bad ? usage_error("--tags: '%s' is not a tag (TAG or "
                                       "TAG:VALUE)",
                                       bad)
                         : -1;
        free(words);
        if (status >= 0)
            return status;
    }
    if (separator == argc)
        return usage_error("no command: write tattle run [options] -- "
                           "COMMAND [ARGS...]");
    if (separator + 1 == argc)
        return usage_error("no command after --");
    line->command_start = separator + 1;
    return -1;
}

/* A word before -- that is no flag's value would be a PATTERN, able to
 * deselect the one test: it was meant for the command. Returns whether
 * there is none. (A bad flag is left to the run, which says so as a test
 * binary does.) */
static bool no_stray_word(const struct split_line *line)
{
    struct tattle__options parsed;
    struct tattle__buffer ignored = {0};
    tattle__options_init(&parsed);
    bool stray = tattle__options_parse(&parsed, line->runner_argc,
                                       line->runner_argv, &ignored) == 0 &&
                 parsed.patterns.count > 0;
    if (stray)
        usage_error("'%s' is not an option; the command and its arguments "
                    "go after --",
                    parsed.patterns.items[0]);
    /* The verdict is inverted once, after the attempts were judged: with
     * more than one, a failing run would be retried, or counted, as what
     * it is not. */
    bool clash =
        !stray && wrapped.will_fail && (parsed.retry > 0 || parsed.repeat > 1);
    if (clash)
        usage_error("--will-fail cannot be combined with --retry or "
                    "--repeat");
    tattle__options_release(&parsed);
    tattle__buffer_release(&ignored);
    return !stray && !clash;
}

/* ---- one result per inner test of a GoogleTest program ---- */

bool tattle__command_result_is(const struct tattle_result *result)
{
    return wrapped.path && result->test->suite && result->test->name &&
           strcmp(result->test->suite, wrapped.suite) == 0 &&
           strcmp(result->test->name, wrapped.name) == 0;
}

/* What `COMMAND [ARGS...] --gtest_list_tests` prints, or NULL. Bounded by
 * the test's timeout (a minute without one), measured here: at the
 * deadline the listing's process group (it is made a group of its own) is
 * killed, whatever signals the program ignores, and what it printed by
 * then in whole lines is the listing. The group is killed when the
 * listing ends too: nothing it started outlives it. */
static char *list_tests(long timeout_ms)
{
    int pipe_ends[2];
    if (pipe2(pipe_ends, O_CLOEXEC) != 0)
        return NULL;
    size_t argc = 0;
    while (wrapped.argv[argc])
        argc++;
    char **argv = tattle__calloc(argc + 2, sizeof *argv);
    memcpy(argv, wrapped.argv, argc * sizeof *argv);
    argv[argc] = "--gtest_list_tests";
    unsigned long long bound_us =
        (unsigned long long)(timeout_ms > 0 ? timeout_ms : 60000) * 1000;
    /* The command's environment without GTEST_OUTPUT, made before the
     * fork: a listing would otherwise be written where the caller's says.
     */
    char **environment = command_environment(NULL, true);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        dup2(pipe_ends[1], STDOUT_FILENO);
        if (wrapped.directory && chdir(wrapped.directory) != 0)
            _exit(127);
        execve(wrapped.path, argv, environment);
        _exit(127);
    }
    free(argv);
    free(environment);
    close(pipe_ends[1]);
    if (pid < 0) {
        close(pipe_ends[0]);
        return NULL;
    }
    setpgid(pid, pid); /* the child does too: either wins the race */
    unsigned long long deadline = tattle__now_us() + bound_us;
    struct tattle__buffer listing = {0};
    char chunk[4096];
    bool whole = false;
    for (;;) {
        unsigned long long now = tattle__now_us();
        if (now >= deadline || listing.length > 16u << 20)
            break;
        unsigned long long left_ms = (deadline - now + 999) / 1000;
        struct pollfd ready = {.fd = pipe_ends[0], .events = POLLIN};
        int polled =
            poll(&ready, 1, left_ms > INT_MAX ? INT_MAX : (int)left_ms);
        if (polled < 0 && errno == EINTR)
            continue;
        if (polled <= 0)
            continue; /* the deadline is checked above */
        ssize_t got = read(pipe_ends[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            whole = got == 0;
            break;
        }
        tattle__buffer_append(&listing, chunk, (size_t)got);
    }
    close(pipe_ends[0]);
    kill(-pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    if (!whole) {
        /* Cut short: its last line may be part of a name. */
        while (listing.length > 0 && listing.data[listing.length - 1] != '\n')
            listing.length--;
    }
    tattle__buffer_append(&listing, "", 0);
    return tattle__buffer_take(&listing);
}

/* The shard of GoogleTest's tests this run holds, from the command's
 * environment (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX), which the command
 * honours: {0, 0} when it is not sharded. */
static struct tattle__gtest_shard command_shard(void)
{
    const char *total_text = getenv("GTEST_TOTAL_SHARDS");
    const char *index_text = getenv("GTEST_SHARD_INDEX");
    if (!total_text || !index_text || !*total_text || !*index_text)
        return (struct tattle__gtest_shard){0};
    char *end;
    long total = strtol(total_text, &end, 10);
    if (*end)
        return (struct tattle__gtest_shard){0};
    long index = strtol(index_text, &end, 10);
    if (*end || total < 1 || index < 0 || index >= total)
        return (struct tattle__gtest_shard){0};
    return (struct tattle__gtest_shard){.total = total, .index = index};
}

/* Whether the command runs GoogleTest's disabled tests too. */
static bool runs_disabled_tests(void)
{
    const char *variable = getenv("GTEST_ALSO_RUN_DISABLED_TESTS");
    bool runs = variable && *variable && strcmp(variable, "0") != 0;
    for (size_t i = 1; wrapped.argv[i]; i++) {
        const char *arg = wrapped.argv[i];
        if (strcmp(arg, "--gtest_also_run_disabled_tests") == 0)
            runs = true;
        else if (strncmp(arg, "--gtest_also_run_disabled_tests=", 32) == 0)
            runs = !strchr("0fF", arg[32]); /* GoogleTest's rule for flags */
    }
    return runs;
}

/* The test info of Suite/Name, kept until the run ends. */
static const struct tattle_test_info *
inner_info(const struct tattle_test_info *command,
           const struct tattle__gtest_test *test)
{
    struct inner_info *inner = tattle__calloc(1, sizeof *inner);
    struct tattle__buffer id = {0};
    tattle__buffer_printf(&id, "%s/%s", test->suite, test->name);
    inner->id = tattle__buffer_take(&id);
    inner->suite = tattle__strdup(test->suite);
    inner->name = tattle__strdup(test->name);
    inner->file = test->file ? tattle__strdup(test->file) : NULL;
    inner->info = *command;
    inner->info.id = inner->id;
    inner->info.suite = inner->suite;
    inner->info.name = inner->name;
    inner->info.file = inner->file;
    inner->info.line = test->line;
    inner->info.param = NULL;
    if (wrapped.inner_count == wrapped.inner_capacity) {
        /* Grown by doubling: a report of 100,000 tests would otherwise
         * copy the list once per test. */
        wrapped.inner_capacity =
            wrapped.inner_capacity ? 2 * wrapped.inner_capacity : 64;
        wrapped.inner = tattle__realloc(
            wrapped.inner, wrapped.inner_capacity * sizeof *wrapped.inner);
    }
    wrapped.inner[wrapped.inner_count++] = inner;
    return &inner->info;
}

/* PROGRAM run OPTIONS -- COMMAND [ARGS...] --gtest_filter=Suite.Name (the
 * options the run had, --name and --qualify-inner among them, so that the
 * rerun reports the same id); a TAP program's tests cannot be picked:
 * their rerun runs the command again. */
static char *inner_rerun(const struct tattle__gtest_test *test, bool gtest)
{
    if (!gtest)
        return tattle__strdup(wrapped.rerun);
    struct tattle__buffer text = {0};
    tattle__buffer_append_string(&text, wrapped.rerun_head);
    tattle__buffer_append_string(&text, " --");
    append_command(&text, wrapped.argv);
    struct tattle__buffer filter = {0};
    if (test->program_name)
        tattle__buffer_printf(&filter, "--gtest_filter=%s", test->program_name);
    else
        tattle__buffer_printf(&filter, "--gtest_filter=%s.%s", test->suite,
                              test->name);
    tattle__buffer_append_string(&text, " ");
    tattle__buffer_append_shell_quoted(&text, filter.data);
    tattle__buffer_release(&filter);
    return tattle__buffer_take(&text);
}

/* How the program ended, for the tests it never reached. */
static const char *ending_words(const struct tattle__result_record *record)
{
    if (record->result.failure_count == 0)
        return "ended";
    switch (record->result.failures[0].kind) {
    case TATTLE_FAILURE_CRASH:
        return "crashed";
    case TATTLE_FAILURE_TIMEOUT:
        return "timed out";
    default:
        return "ended";
    }
}

/* Whether the progress lines marked the part of `out` that `test`
 * printed. */
static bool inner_section_known(const struct tattle__gtest_test *test,
                                const struct tattle_output *out)
{
    return test->output_end > test->output_start &&
           test->output_end <= out->length;
}

/* `part` of the captured `out`, owned by `record`. */
static struct tattle_output output_part(struct tattle__result_record *record,
                                        const struct tattle_output *out,
                                        size_t start, size_t end)
{
    size_t length = end - start;
    char *part = tattle__malloc(length + 1);
    memcpy(part, out->text + start, length);
    part[length] = '\0';
    return (struct tattle_output){
        .text = tattle__record_own(record, part),
        .length = length,
        .bytes = length,
    };
}

/* The bytes of an undivided stream each failed inner test after the
 * first one carries: the stream's tail. One copy of the whole is enough
 * evidence, and a program with thousands of failed points must not make
 * its report thousands of copies of its output. */
enum { UNDIVIDED_TAIL_BYTES = 2048 };

/* What an inner test with no output of its own carries of the captured
 * `out` (its head and tail when it was cut), owned by `record`: the
 * whole when `first`, else its last UNDIVIDED_TAIL_BYTES, marked cut. */
static struct tattle_output output_whole(struct tattle__result_record *record,
                                         const struct tattle_output *out,
                                         bool first)
{
    size_t start = 0;
    if (!first && out->length > UNDIVIDED_TAIL_BYTES)
        start = out->length - UNDIVIDED_TAIL_BYTES;
    struct tattle_output whole = output_part(record, out, start, out->length);
    whole.bytes = out->bytes;
    whole.truncated = out->truncated || start > 0;
    return whole;
}

/* A JUnit report's own text of a test's stream, held by `record`. */
static struct tattle_output own_output(struct tattle__result_record *record,
                                       const char *text, uint64_t bytes,
                                       bool cut)
{
    return (struct tattle_output){
        .text = tattle__record_copy(record, text),
        .length = strlen(text),
        .bytes = bytes,
        .truncated = cut,
    };
}

/* The result of an inner test that finished, or never started. */
static void build_inner(struct tattle__result_record *inner,
                        const struct tattle__result_record *command,
                        const struct tattle__gtest_test *test,
                        const char *not_run_reason, bool gtest,
                        bool *whole_given)
{
    *inner = (struct tattle__result_record){0};
    struct tattle_result *result = &inner->result;
    result->test = inner_info(command->result.test, test);
    result->attempts = command->result.attempts;
    result->duration_us = test->duration_us;
    result->rerun = inner_rerun(test, gtest);
    result->stdout_output = (struct tattle_output){.text = ""};
    result->stderr_output = (struct tattle_output){.text = ""};
    if (not_run_reason) {
        result->state = TATTLE_STATE_SKIPPED;
        result->skip_reason = tattle__record_copy(inner, not_run_reason);
        return;
    }
    result->state = test->state;
    result->skip_reason = tattle__record_copy(inner, test->skip_reason);
    for (size_t i = 0; i < test->failure_count; i++) {
        struct tattle_failure *failure = tattle__record_add_failure(
            inner, test->failures[i].is_error ? TATTLE_FAILURE_ERROR
                                              : TATTLE_FAILURE_ASSERTION);
        failure->message =
            tattle__record_copy(inner, test->failures[i].message);
        failure->file = tattle__record_copy(inner, test->failures[i].file);
        failure->line = test->failures[i].line;
    }
    /* Each stream of the test is its own where the program said which
     * part is (a JUnit test case's <system-out> or <system-err>, the part
     * of stdout GoogleTest's progress lines mark). A failed test with no
     * part of its own carries the whole of what the program printed on
     * that stream (bounded as captured): TAP points and stderr are not
     * divided, and the program's output is the evidence of its failures.
     * The first such test carries it whole, each later one its tail
     * (whole_given). A test that did not fail carries only its own. */
    bool failed = result->state == TATTLE_STATE_FAILED;
    const struct tattle_output *out = &command->result.stdout_output;
    const struct tattle_output *err = &command->result.stderr_output;
    if (test->stdout_text)
        result->stdout_output = own_output(
            inner, test->stdout_text, test->stdout_bytes, test->stdout_cut);
    else if (failed && inner_section_known(test, out))
        result->stdout_output =
            output_part(inner, out, test->output_start, test->output_end);
    else if (failed && out->bytes > 0) {
        result->stdout_output = output_whole(inner, out, !whole_given[0]);
        whole_given[0] = true;
    }
    if (test->stderr_text)
        result->stderr_output = own_output(
            inner, test->stderr_text, test->stderr_bytes, test->stderr_cut);
    else if (failed && err->bytes > 0) {
        result->stderr_output = output_whole(inner, err, !whole_given[1]);
        whole_given[1] = true;
    }
}

/* Gives every inner test a valid id no other has, as the registry
 * would: an empty suite or name is "(empty)"; a '/' in a suite, which
 * would end it in the id, is ':' (GoogleTest's "Values/Square" is
 * "Values:Square", a TAP or JUnit suite's "a/b" is "a:b"; a rerun does not
 * read the id back, its filter names the test as the program does, from
 * program_name); a repeated id gets the
 * test's number (its TAP point's, or its place in the list) appended as
 * "[N]" until it is new. The first test of an id keeps it. With
 * --qualify-inner a suite the program named (GoogleTest's, Check's TCASE,
 * Criterion's, a JUnit report's) is NAME.SUITE, NAME the wrapped test's,
 * as a TAP point's suite already is NAME (`tattle ctest` gives each CTest
 * test's inner tests ids no other CTest test's can have); the rerun's
 * filter keeps the program's own. */
static void name_tests_uniquely(struct tattle__gtest_tests *tests, bool gtest)
{
    struct tattle__name_index ids = {0};
    struct tattle__buffer id = {0};
    for (size_t i = 0; i < tests->count; i++) {
        struct tattle__gtest_test *test = &tests->tests[i];
        /* The program's own name, for the rerun's filter. */
        struct tattle__buffer own = {0};
        tattle__buffer_printf(&own, "%s.%s", test->suite, test->name);
        bool renamed = false;
        bool qualified_by_name =
            wrapped.qualify_inner &&
            (gtest || strcmp(test->suite, wrapped.name) != 0);
        if (!*test->suite) {
            free(test->suite);
            test->suite = tattle__strdup("(empty)");
            renamed = true;
        }
        if (strchr(test->suite, '/')) {
            /* GoogleTest's "Instance/Suite" of a parameterized test: '/'
             * ends the suite in an id, ':' is in no GoogleTest name. */
            for (char *slash = strchr(test->suite, '/'); slash;
                 slash = strchr(slash, '/'))
                *slash = ':';
            renamed = true;
        }
        if (qualified_by_name) {
            struct tattle__buffer qualified = {0};
            tattle__buffer_printf(&qualified, "%s.%s", wrapped.name,
                                  test->suite);
            free(test->suite);
            test->suite = tattle__buffer_take(&qualified);
            renamed = true;
        }
        if (!*test->name) {
            free(test->name);
            test->name = tattle__strdup("(empty)");
            renamed = true;
        }
        long number = test->number > 0 ? test->number : (long)i + 1;
        for (;;) {
            tattle__buffer_clear(&id);
            tattle__buffer_printf(&id, "%s/%s", test->suite, test->name);
            bool added;
            tattle__name_index_add(&ids, id.data, &added);
            if (added)
                break;
            struct tattle__buffer numbered = {0};
            tattle__buffer_printf(&numbered, "%s[%ld]", test->name, number);
            free(test->name);
            test->name = tattle__buffer_take(&numbered);
            renamed = true;
        }
        if (renamed)
            test->program_name = tattle__buffer_take(&own);
        else
            tattle__buffer_release(&own);
    }
    tattle__buffer_release(&id);
    tattle__name_index_release(&ids);
}

/* The tests of the JUnit report the command wrote (--junit-in). False,
 * with `tests` empty, when there are none to expand into: the file is
 * missing (a command that failed keeps its own failure, as a program that
 * crashed writes no report; one that passed gets an error saying so: its
 * report was expected), it cannot be read (an error naming the file, and
 * where the XML went wrong, joins the command's result), or it holds no
 * test case. */
static bool read_junit_report(struct tattle__result_record *record,
                              struct tattle__gtest_tests *tests)
{
    for (size_t i = 0; i < record->result.failure_count; i++) {
        const char *message = record->result.failures[i].message;
        if (message && strncmp(message, report_not_removed,
                               sizeof report_not_removed - 1) == 0) {
            *tests = (struct tattle__gtest_tests){0};
            return false; /* the command did not run */
        }
    }
    char *problem = NULL;
    enum tattle__junit_read_status status =
        wrapped.read_junit(wrapped.junit_path, wrapped.name, tests, &problem);
    if (status == TATTLE__JUNIT_READ && tests->count > 0)
        return true;
    if (status == TATTLE__JUNIT_MISSING &&
        !tattle__result_failed(&record->result))
        tattle__record_add_error(record,
                                 "the command wrote no JUnit report at %s",
                                 wrapped.junit_path);
    else if (status == TATTLE__JUNIT_BAD)
        tattle__record_add_error(record, "%s", problem);
    if (record->result.failure_count > 0)
        record->result.state = TATTLE_STATE_FAILED;
    free(problem);
    tattle__gtest_tests_release(tests);
    return false;
}

/* Fails the command that exited 0 with a test unfinished: an error
 * saying so, which the unfinished test carries. */
TATTLE__PRINTF(2, 3)
static void fail_unfinished(struct tattle__result_record *record,
                            const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    struct tattle__buffer message = {0};
    tattle__buffer_vprintf(&message, format, arguments);
    va_end(arguments);
    tattle__record_add_error(record, "%s", message.data);
    tattle__buffer_release(&message);
    record->result.state = TATTLE_STATE_FAILED;
}

size_t tattle__command_expand(struct tattle__result_record *record,
                              struct tattle__result_record **records)
{
    *records = NULL;
    if (wrapped.skip_exit_code && record->result.attempts > 0 &&
        tattle__command_result_is(&record->result) &&
        record->result.failure_count == 1 &&
        record->failures[0].kind == TATTLE_FAILURE_EXIT &&
        record->failures[0].exit_code == wrapped.skip_exit_code) {
        /* The program's word that it skipped itself. */
        struct tattle__buffer reason = {0};
        tattle__buffer_printf(&reason,
                              "the command exited with %d, its skip "
                              "status",
                              wrapped.skip_exit_code);
        record->result.state = TATTLE_STATE_SKIPPED;
        record->result.failure_count = 0;
        record->result.skip_reason = tattle__record_copy(record, reason.data);
        tattle__buffer_release(&reason);
        return 0;
    }
    if (wrapped.will_fail && record->result.attempts > 0 &&
        tattle__command_result_is(&record->result)) {
        /* The program is expected to fail, as a whole: its inner tests
         * are not reported one by one. A crash or a timeout still fails,
         * as in CTest. */
        if (record->result.state == TATTLE_STATE_PASSED) {
            struct tattle_failure *failure =
                tattle__record_add_failure(record, TATTLE_FAILURE_EXIT);
            failure->exit_code = 0;
            failure->message = tattle__record_copy(
                record, "the command exited with 0, but WILL_FAIL expects "
                        "it to fail");
            record->result.state = TATTLE_STATE_FAILED;
        } else if (record->result.failure_count == 1 &&
                   record->failures[0].kind == TATTLE_FAILURE_EXIT) {
            record->result.state = TATTLE_STATE_PASSED;
            record->result.failure_count = 0;
        }
        return 0;
    }
    if ((!wrapped.report_path && !wrapped.junit_path) ||
        record->result.attempts == 0 ||
        !tattle__command_result_is(&record->result))
        return 0;
    struct tattle__gtest_tests tests;
    long running = -1;
    bool gtest = true;
    bool from_report;
    if (wrapped.junit_path) {
        if (!read_junit_report(record, &tests))
            return 0;
        from_report = true;
        gtest = false;
    } else {
        from_report = tattle__gtest_read_report(wrapped.report_path, &tests);
        if (from_report)
            tattle__gtest_find_sections(&tests, &record->result.stdout_output);
    }
    const char *printed = record->result.stdout_output.text;
    long planned = -1;
    if (!from_report && !tattle__gtest_printed_progress(printed)) {
        /* TAP on stdout, read whole (a capture cut in the middle would
         * lose test points). */
        if (record->result.stdout_output.truncated ||
            !tattle__tap_read(printed, wrapped.name, &tests, &planned))
            return 0;
        gtest = false;
        if (record->result.state == TATTLE_STATE_PASSED &&
            (long)tests.count < planned)
            /* The plan is the program's word: a program that ended well
             * short of it failed, and the first point it never printed
             * carries that (as a crash would be). */
            fail_unfinished(record,
                            "the program exited 0 after %zu of the "
                            "%ld test points its plan 1..%ld "
                            "announced",
                            tests.count, planned, planned);
        bool command_failed = tattle__result_failed(&record->result);
        /* The test after the last point was running when the program
         * failed; those after it never ran. A plan is the program's word:
         * past UNRUN_POINTS_MAX missing points, one result stands for the
         * rest, named by their range. */
        for (long number = (long)tests.count + 1;
             command_failed && number <= planned; number++) {
            if (running < 0)
                running = (long)tests.count;
            tests.tests = tattle__realloc(tests.tests, (tests.count + 1) *
                                                           sizeof *tests.tests);
            struct tattle__buffer name = {0};
            if (number - running > UNRUN_POINTS_MAX && number < planned) {
                tattle__buffer_printf(&name, "%ld-%ld", number, planned);
                number = planned;
            } else {
                tattle__buffer_printf(&name, "%ld", number);
            }
            tests.tests[tests.count++] = (struct tattle__gtest_test){
                .suite = tattle__strdup(wrapped.name),
                .number = number,
                .name = tattle__buffer_take(&name),
                .state = TATTLE_STATE_PASSED,
            };
        }
    } else if (!from_report) {
        char *listing = list_tests(record->result.test->timeout_ms);
        if (listing)
            tattle__gtest_add_listing(&tests, listing, command_shard(),
                                      runs_disabled_tests());
        free(listing);
        running =
            tattle__gtest_read_progress(&tests, &record->result.stdout_output);
        if (running >= 0 && record->result.state == TATTLE_STATE_PASSED)
            fail_unfinished(record, "the program exited 0 before this test "
                                    "ended");
    }
    if (tests.count == 0) {
        tattle__gtest_tests_release(&tests);
        return 0;
    }
    name_tests_uniquely(&tests, gtest);
    bool command_failed = tattle__result_failed(&record->result);
    bool inner_failed = running >= 0;
    struct tattle__buffer not_run = {0};
    if (running >= 0 && gtest && tests.tests[running].program_name)
        tattle__buffer_printf(&not_run, "not run: the program %s in %s",
                              ending_words(record),
                              tests.tests[running].program_name);
    else if (running >= 0)
        tattle__buffer_printf(&not_run, "not run: the program %s in %s%s%s",
                              ending_words(record), tests.tests[running].suite,
                              gtest ? "." : "/", tests.tests[running].name);
    else
        tattle__buffer_printf(&not_run, "not run: the program %s before it",
                              ending_words(record));
    /* With the output cut, a test never seen to end may have run, and
     * ended any way, in the part that was lost. */
    struct tattle__buffer lost = {0};
    tattle__buffer_printf(&lost,
                          "unknown: the program's output was cut (%" PRIu64
                          " bytes, its head and tail kept) and what was kept "
                          "holds no end of this test",
                          record->result.stdout_output.bytes);
    size_t count = 0;
    bool whole_given[2] = {false, false}; /* stdout, stderr */
    *records = tattle__calloc(tests.count + 1, sizeof **records);
    for (size_t i = 0; i < tests.count; i++) {
        const struct tattle__gtest_test *test = &tests.tests[i];
        struct tattle__result_record *inner = &(*records)[count++];
        if ((long)i == running)
            continue; /* filled below, from the command's own record */
        bool reached = from_report || test->finished;
        const char *unreached = tests.output_cut ? lost.data : not_run.data;
        build_inner(inner, record, test, reached ? NULL : unreached, gtest,
                    whole_given);
        if (inner->result.state == TATTLE_STATE_FAILED)
            inner_failed = true;
    }
    if (running >= 0) {
        /* The running test carries how the program ended: its failure,
         * its stacks, its output. */
        struct tattle__result_record *inner = &(*records)[running];
        /* The earlier attempts were runs of the whole program, not of
         * this test. */
        tattle__record_drop_earlier(record);
        *inner = *record;
        free((char *)inner->result.rerun);
        inner->result.test =
            inner_info(record->result.test, &tests.tests[running]);
        inner->result.rerun = inner_rerun(&tests.tests[running], gtest);
        *record = (struct tattle__result_record){0};
    }
    tattle__buffer_release(&not_run);
    tattle__buffer_release(&lost);
    tattle__gtest_tests_release(&tests);
    /* A crash or timeout no test carries is not explained by the tests
     * that failed before it, as an exit status of 1 is. */
    bool ended_unexplained =
        running < 0 && record->result.failure_count > 0 &&
        record->result.failures[0].kind != TATTLE_FAILURE_EXIT;
    if ((command_failed && !inner_failed) || ended_unexplained) {
        /* How the command failed belongs to no inner test (it exited
         * non-zero with every test passed, or crashed or timed out when
         * none was running): its own result says so, with its output. */
        (*records)[count++] = *record;
    } else if (record->result.test) {
        tattle__record_release(record);
    }
    *record = (struct tattle__result_record){0};
    return count;
}

/* The options of `line` that shape what the run does, as a rerun gives
 * them after PROGRAM run: the test's name, timeout, skip code, WILL_FAIL,
 * qualified inner tests, tags, JUnit report, tracing, directory and
 * environment changes. (The reports it writes are the caller's choice.) */
static void append_rerun_options(struct tattle__buffer *text,
                                 const struct split_line *line)
{
    struct tattle__buffer name = {0};
    tattle__buffer_printf(&name, "%s/%s", wrapped.suite, wrapped.name);
    append_flag(text, "name", name.data);
    tattle__buffer_release(&name);
    if (line->given_timeout)
        append_flag(text, "timeout", line->given_timeout);
    if (wrapped.skip_exit_code) {
        char code[16];
        snprintf(code, sizeof code, "%d", wrapped.skip_exit_code);
        append_flag(text, "skip-exit-code", code);
    }
    if (wrapped.will_fail)
        append_word(text, "--will-fail");
    if (wrapped.qualify_inner)
        append_word(text, "--qualify-inner");
    if (line->given_tags)
        append_flag(text, "tags", line->given_tags);
    if (wrapped.junit_path)
        append_flag(text, "junit-in", wrapped.junit_path);
    if (line->traced)
        append_word(text, "--trace");
    if (wrapped.directory)
        append_flag(text, "chdir", wrapped.directory);
    for (size_t i = 0; i < wrapped.environment_change_count; i++) {
        const char *change = wrapped.environment_changes[i];
        append_flag(text, strchr(change, '=') ? "env" : "unset-env", change);
    }
}

/* Sets the reruns: PROGRAM run OPTIONS -- COMMAND [ARGS...], PROGRAM and
 * COMMAND as absolute paths, so that the rerun pasted in a shell in any
 * directory runs the test as this run did. */
static void make_reruns(const char *program, const struct split_line *line)
{
    char *found = find_command(program, NULL, getenv("PATH"));
    if (!found)
        found = realpath("/proc/self/exe", NULL);
    struct tattle__buffer text = {0};
    tattle__buffer_append_shell_quoted(&text, found ? found : program);
    free(found);
    tattle__buffer_append_string(&text, " run");
    append_rerun_options(&text, line);
    wrapped.rerun_head = tattle__strdup(text.data);
    tattle__buffer_append_string(&text, " --");
    wrapped.command_line_at = text.length + 1;
    append_command(&text, wrapped.argv);
    wrapped.rerun = tattle__buffer_take(&text);
    for (size_t i = 0; wrapped.argv[i]; i++) {
        if (i)
            tattle__buffer_append_string(&text, " ");
        tattle__buffer_append_shell_quoted(&text, wrapped.argv[i]);
    }
    wrapped.typed_command = tattle__buffer_take(&text);
}

int tattle__run_command_main(int argc, char **argv)
{
    struct split_line line = {0};
    int status = split_command_line(argc, argv, &line);
    if (status < 0 && !no_stray_word(&line))
        status = 2;
    char **command = argv + line.command_start;
    if (status < 0 && line.given_directory) {
        /* Absolute, for the rerun in any directory. */
        wrapped.directory = realpath(line.given_directory, NULL);
        struct stat directory;
        if (!wrapped.directory)
            status = usage_error("--chdir: %s: %s", line.given_directory,
                                 strerror(errno));
        else if (stat(wrapped.directory, &directory) != 0 ||
                 !S_ISDIR(directory.st_mode))
            status = usage_error("--chdir: %s: not a directory",
                                 line.given_directory);
        else if (access(wrapped.directory, X_OK) != 0)
            status = usage_error("--chdir: %s: %s", line.given_directory,
                                 strerror(errno));
    }
    if (status < 0) {
        wrapped.path =
            find_command(command[0], wrapped.directory, command_search_path());
        if (!wrapped.path)
            status = usage_error("command not found: %s", command[0]);
    }
    if (status < 0 && name_test(line.given_name, command[0]) != 0)
        status = 2;
    if (status < 0 && line.given_junit_in) {
        if (!*line.given_junit_in) {
            status = usage_error("--junit-in needs a FILE");
        } else if (!wrapped.read_junit) {
            status = usage_error("--junit-in: this program reads no JUnit "
                                 "report (the tattle command does)");
        } else if (line.given_junit_in[0] == '/') {
            wrapped.junit_path = tattle__strdup(line.given_junit_in);
        } else {
            /* Absolute, whatever directory the command works in. */
            char *here = getcwd(NULL, 0);
            struct tattle__buffer path = {0};
            tattle__buffer_printf(&path, "%s/%s", here ? here : ".",
                                  line.given_junit_in);
            free(here);
            wrapped.junit_path = tattle__buffer_take(&path);
        }
    }
    if (status < 0) {
        wrapped.argv = command;
        make_reruns(argv[0], &line);
        make_report_path();
        wrapped.test = (struct tattle_test){
            .suite = wrapped.suite,
            .name = wrapped.name,
            .file = NULL,
            .line = 0,
            .body = exec_command,
            .options = {.tags = line.given_tags},
        };
        tattle_test_register(&wrapped.test);
        status =
            tattle__run_main(line.runner_argc, line.runner_argv, argc, argv);
    }
    free(line.runner_argv);
    release_wrapped();
    return status;
}
