/*
 * main.c — the `tattle` command: dispatch to a subcommand, the help, and
 * the small helpers every subcommand shares (cli.h).
 *
 * The command reads what test binaries wrote (reports, streams,
 * directories of streams) through the one reader of the results module
 * and writes through the reporters the test binaries use, so a report it
 * writes is a report a test binary could have written. `tattle run`
 * hands its command line to the runner (runner/command.c), which runs an
 * existing test program as one tattle test.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

#include "base/utf8.h"
#include "cli/cli.h"
#include "cli/junit_in.h"
#include "results/read.h"
#include "runner/command.h"
#include "runner/version.h"

static const char usage[] =
    "usage: tattle COMMAND [ARGS]   (tattle COMMAND --help for more)\n"
    "\n"
    "Reads the reports and streams tattle test binaries write, and runs "
    "test\nprograms written without tattle as tattle tests (run).\n"
    "\n"
    "commands:\n"
    "  merge -o OUT.json IN...     one report from reports, streams and "
    "directories\n"
    "                              of streams (shards, CTest runs, killed "
    "runs)\n"
    "  summary REPORT              counts, error groups, one line per failure "
    "and\n"
    "                              its rerun command; exit 1 when something "
    "failed\n"
    "  show REPORT [ID]            one test in full, its trace as a sequence "
    "chart\n"
    "                              (--mermaid: a Mermaid sequenceDiagram)\n"
    "  validate FILE...            check reports, streams, compact reports and "
    "test\n"
    "                              lists against the schemas built in\n"
    "  convert REPORT --to FORMAT [-o FILE]\n"
    "                              write a report again in another format\n"
    "  run [OPTIONS] -- COMMAND [ARGS...]\n"
    "                              run an existing test program as one test: "
    "timeout,\n"
    "                              stacks, captured output and every report "
    "flag of\n"
    "                              a tattle test binary (tattle run --help)\n"
    "  ctest [REPORT OPTIONS] [-j N] [-R/-E/-L/-LE ...]\n"
    "                              run a CMake project's CTest tests, each "
    "by run,\n"
    "                              into one report (tattle ctest --help)\n"
    "\n"
    "  --version [--verbose]       the version; --verbose adds what call "
    "tracing\n"
    "                              costs on this machine, measured then\n"
    "\n"
    "REPORT may be a JSON report or a JSON Lines stream ('-' reads stdin).\n"
    "exit status: 0 success, 1 failures (summary) or invalid files "
    "(validate),\n"
    "2 usage error or bad input (one line names the file and the place;\n"
    "nothing is written).\n";

int tattle__cli_fail(const char *command, const char *format, ...)
{
    struct tattle__buffer message = {0};
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(&message, format, args);
    va_end(args);
    struct tattle__buffer line = {0};
    tattle__cli_append_printable(&line, message.data, message.length, false, 0);
    fprintf(stderr, "tattle%s%s: %s\n", command ? " " : "",
            command ? command : "", line.data);
    tattle__buffer_release(&message);
    tattle__buffer_release(&line);
    return TATTLE__EXIT_BAD_INPUT;
}

bool tattle__cli_option(int argc, char **argv, int *i, const char *long_name,
                        const char *short_name, const char **value,
                        bool *missing)
{
    const char *arg = argv[*i];
    size_t n = strlen(long_name);
    *missing = false;
    if (strncmp(arg, long_name, n) == 0 && arg[n] == '=') {
        *value = arg + n + 1;
        return true;
    }
    bool matches = strcmp(arg, long_name) == 0 ||
                   (short_name && strcmp(arg, short_name) == 0);
    if (!matches && short_name &&
        strncmp(arg, short_name, strlen(short_name)) == 0 &&
        arg[strlen(short_name)] != '\0') {
        *value = arg + strlen(short_name);
        return true;
    }
    if (!matches)
        return false;
    if (*i + 1 >= argc) {
        *missing = true;
        return true;
    }
    *value = argv[++*i];
    return true;
}

void tattle__cli_append_printable(struct tattle__buffer *out, const char *text,
                                  size_t length, bool keep_newlines,
                                  size_t max_chars)
{
    size_t shown = 0;
    for (size_t i = 0; i < length;) {
        if (max_chars && shown == max_chars) {
            tattle__buffer_append_string(out, "...");
            return;
        }
        unsigned char byte = (unsigned char)text[i];
        if ((byte == '\n' && keep_newlines) || byte == '\t') {
            tattle__buffer_append(out, &byte, 1);
            i++;
        } else {
            size_t n = tattle__utf8_printable_length(text + i, length - i);
            if (n) {
                tattle__buffer_append(out, text + i, n);
                i += n;
            } else {
                tattle__buffer_printf(out, "\\x%02x", byte);
                i++;
            }
        }
        shown++;
    }
}

const char *tattle__cli_failure_place(const struct tattle_result *result,
                                      const struct tattle_failure *failure,
                                      int *line)
{
    const char *file = failure->file;
    *line = failure->line;
    for (size_t i = 0; !file && i < failure->frame_count; i++) {
        file = failure->frames[i].file;
        *line = failure->frames[i].line;
    }
    if (!file) {
        file = result->test->file;
        *line = result->test->line;
    }
    return file;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } commands[] = {
        {"merge", tattle__cli_merge},     {"summary", tattle__cli_summary},
        {"show", tattle__cli_show},       {"validate", tattle__cli_validate},
        {"convert", tattle__cli_convert}, {"ctest", tattle__cli_ctest},
    };
    tattle__command_set_junit_reader(tattle__junit_read);
    if (argc < 2) {
        fputs(usage, stderr);
        return TATTLE__EXIT_BAD_INPUT;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
        strcmp(name, "help") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0 &&
            strcmp(argv[2], "run") == 0) {
            char run[] = "run", help[] = "--help";
            char *args[] = {argv[0], run, help, NULL};
            return tattle__run_command_main(3, args);
        }
        if (argc > 2 && strcmp(name, "help") == 0) {
            char help[] = "--help";
            char *args[] = {argv[2], help, NULL};
            for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
                if (strcmp(commands[i].name, argv[2]) == 0)
                    return commands[i].run(2, args);
        }
        fputs(usage, stdout);
        return TATTLE__EXIT_OK;
    }
    /* --version, alone or with --verbose, in either order. */
    bool version = false, verbose = false, other = false;
    for (int i = 1; i < argc && i < 3; i++) {
        if (strcmp(argv[i], "--version") == 0)
            version = true;
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = true;
        else
            other = true;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "--verbose") == 0) {
        if (!version || other || argc > 3) {
            fputs("tattle: --verbose is used only with --version, and "
                  "--version takes no other argument\n",
                  stderr);
            return TATTLE__EXIT_BAD_INPUT;
        }
        tattle__version_print(stdout, verbose);
        return TATTLE__EXIT_OK;
    }
    if (strcmp(name, "run") == 0)
        return tattle__run_command_main(argc, argv);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    tattle__cli_fail(NULL,
                     "no command named '%s' (commands: merge, summary, show, "
                     "validate, convert, run, ctest; tattle --help)",
                     name);
    return TATTLE__EXIT_BAD_INPUT;
}

struct tattle__reader *tattle__cli_open_report(const char *command,
                                               const char *path)
{
    struct tattle__reader *reader;
    if (tattle__reader_open(&reader, path) != 0) {
        tattle__cli_fail(command, "%s", tattle__reader_error(reader));
        tattle__reader_close(reader);
        return NULL;
    }
    return reader;
}

const struct tattle_summary *
tattle__cli_report_summary(struct tattle__reader *reader,
                           struct tattle_summary *counted)
{
    const struct tattle_summary *summary = tattle__reader_summary(reader);
    if (summary)
        return summary;
    counted->duration_us = tattle__reader_duration_us(reader);
    counted->interrupted = true;
    return counted;
}
