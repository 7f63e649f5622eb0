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
 */
#include "runner/command.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/text.h"
#include "runner/options.h"
#include "runner/run.h"
#include "runner/test_process/child.h"
#include "runner/test_process/slot_write.h"

static const char program_name[] = "tattle run";

/* The wrapped command, set before the run starts; the test process, a
 * fork of this one, reads it from its copy. */
static struct {
    char *path;  /* where it was found, for execv */
    char **argv; /* COMMAND [ARGS...], NULL-terminated */
    char *suite, *name;
    char *rerun;
    struct tattle_test test;
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
            "--name SUITE/NAME says otherwise. The options are a test "
            "binary's:\n\n"
            "  %-32s %s\n",
            "    --name SUITE/NAME", "the test's id (default run/BASENAME)");
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

/* Body of the wrapped command's test, in the forked test process. */
static void exec_command(void)
{
    execv(wrapped.path, wrapped.argv);
    struct tattle__buffer message = {0};
    tattle__buffer_printf(&message, "cannot run %s: %s", wrapped.path,
                          strerror(errno));
    struct tattle__slot_failure failure = {.kind = TATTLE_FAILURE_ERROR,
                                           .message = message.data};
    tattle__slot_add_failure(tattle__child_slot(), &failure);
    tattle__buffer_release(&message);
}

bool tattle__command_test_is(const struct tattle_test *test)
{
    return wrapped.path && test == &wrapped.test;
}

char *tattle__command_rerun(void)
{
    return wrapped.rerun ? tattle__strdup(wrapped.rerun) : NULL;
}

static bool is_executable_file(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0 && S_ISREG(status.st_mode) &&
           access(path, X_OK) == 0;
}

/* The file execv() runs for `command`, as a shell finds it: a name with a
 * slash as it is, any other on PATH. NULL when there is none. */
static char *find_command(const char *command)
{
    if (strchr(command, '/'))
        return is_executable_file(command) ? tattle__strdup(command) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    struct tattle__buffer candidate = {0};
    for (const char *start = path;; start++) {
        const char *end = strchr(start, ':');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        tattle__buffer_clear(&candidate);
        if (length == 0)
            tattle__buffer_append_string(&candidate, ".");
        else
            tattle__buffer_append(&candidate, start, length);
        tattle__buffer_printf(&candidate, "/%s", command);
        if (is_executable_file(candidate.data))
            return tattle__buffer_take(&candidate);
        if (!end)
            break;
        start = end;
    }
    tattle__buffer_release(&candidate);
    return NULL;
}

/* PROGRAM run --name=SUITE/NAME -- COMMAND [ARGS...], quoted for a POSIX
 * shell. */
static char *rerun_command(const char *program, char **command)
{
    struct tattle__buffer text = {0};
    tattle__buffer_append_shell_quoted(&text, program);
    tattle__buffer_append_string(&text, " run ");
    struct tattle__buffer name = {0};
    tattle__buffer_printf(&name, "--name=%s/%s", wrapped.suite, wrapped.name);
    tattle__buffer_append_shell_quoted(&text, name.data);
    tattle__buffer_release(&name);
    tattle__buffer_append_string(&text, " --");
    for (size_t i = 0; command[i]; i++) {
        tattle__buffer_append_string(&text, " ");
        tattle__buffer_append_shell_quoted(&text, command[i]);
    }
    return tattle__buffer_take(&text);
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

static void release_wrapped(void)
{
    free(wrapped.path);
    free(wrapped.suite);
    free(wrapped.name);
    free(wrapped.rerun);
    wrapped.path = wrapped.suite = wrapped.name = wrapped.rerun = NULL;
}

/* The command line split at `--`: the runner's options (without --name,
 * behind a program name, NULL-terminated) and where the command starts. */
struct split_line {
    char **runner_argv;
    int runner_argc;
    const char *given_name;
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
        tattle__calloc((size_t)argc + 1, sizeof *line->runner_argv);
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
        } else {
            line->runner_argv[line->runner_argc++] = argv[i];
        }
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
    tattle__options_release(&parsed);
    tattle__buffer_release(&ignored);
    return !stray;
}

int tattle__run_command_main(int argc, char **argv)
{
    struct split_line line = {0};
    int status = split_command_line(argc, argv, &line);
    if (status < 0 && !no_stray_word(&line))
        status = 2;
    char **command = argv + line.command_start;
    if (status < 0) {
        wrapped.path = find_command(command[0]);
        if (!wrapped.path)
            status = usage_error("command not found: %s", command[0]);
    }
    if (status < 0 && name_test(line.given_name, command[0]) != 0)
        status = 2;
    if (status < 0) {
        wrapped.argv = command;
        wrapped.rerun = rerun_command(argv[0], command);
        wrapped.test = (struct tattle_test){
            .suite = wrapped.suite,
            .name = wrapped.name,
            .file = NULL,
            .line = 0,
            .body = exec_command,
        };
        tattle_test_register(&wrapped.test);
        status =
            tattle__run_main(line.runner_argc, line.runner_argv, argc, argv);
    }
    free(line.runner_argv);
    release_wrapped();
    return status;
}
