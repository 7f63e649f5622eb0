/*
 * cli.h — what the subcommands of the `tattle` command share.
 *
 * Each subcommand is one module (merge.c, convert.c, summary.c, show.c,
 * validate.c) with one entry point taking its own arguments. Exit statuses
 * follow SPEC section 8: 0 success, 1 when the answer to the question asked
 * is "failures" (summary) or "invalid" (validate), 2 for a usage error or
 * a bad input, with one line on stderr naming the file and the place, and
 * nothing written.
 */
#ifndef TATTLE_CLI_CLI_H
#define TATTLE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

enum {
    TATTLE__EXIT_OK = 0,
    TATTLE__EXIT_FAILED = 1,
    TATTLE__EXIT_BAD_INPUT = 2
};

int tattle__cli_merge(int argc, char **argv);
int tattle__cli_convert(int argc, char **argv);
int tattle__cli_summary(int argc, char **argv);
int tattle__cli_show(int argc, char **argv);
int tattle__cli_validate(int argc, char **argv);
int tattle__cli_ctest(int argc, char **argv);

/** Prints "tattle COMMAND: MESSAGE" on stderr (one line) and returns 2. */
int tattle__cli_fail(const char *command, const char *format, ...)
    TATTLE__PRINTF(2, 3);

/** True when argv[i] is `--name` or `--name=VALUE` (or the short form);
 * stores the value (the next argument when not joined, advancing *i) and
 * reports a missing one through *missing. */
bool tattle__cli_option(int argc, char **argv, int *i, const char *long_name,
                        const char *short_name, const char **value,
                        bool *missing);

/** Appends `text[0..length)` so that it cannot drive a terminal: printable
 * UTF-8 passes, control bytes, DEL, C1 characters and invalid bytes become
 * \xNN; newlines too unless `keep_newlines`. Stops after `max_chars`
 * characters (0: no limit), adding "...". */
void tattle__cli_append_printable(struct tattle__buffer *out, const char *text,
                                  size_t length, bool keep_newlines,
                                  size_t max_chars);

/** "file:line" where a failure happened: its own place, else its innermost
 * frame with a file, else the test's declaration; NULL file when unknown. */
const char *tattle__cli_failure_place(const struct tattle_result *result,
                                      const struct tattle_failure *failure,
                                      int *line);

/* ---- Writing through a reporter (write.c) ---- */

/** A reporter writing to a temporary file that becomes the destination
 * (or is copied to stdout) only when everything went well. */
struct tattle__cli_writer {
    const struct tattle_reporter_type *type;
    void *self;
    char *destination; /* NULL: standard output */
    char *temp_path;
    bool begun;
};

/** Creates the reporter `format` writing to `destination` (NULL or "-":
 * stdout). On failure prints the error (an unknown format lists the ones
 * that exist) and returns 2; nothing is left behind. */
int tattle__cli_writer_open(struct tattle__cli_writer *writer,
                            const char *command, const char *format,
                            const char *destination,
                            const struct tattle_report_options *options);
void tattle__cli_writer_begin(struct tattle__cli_writer *writer,
                              const struct tattle_run_info *run);
/** Hands one result to the reporter (test_started first when it ran). */
void tattle__cli_writer_test(struct tattle__cli_writer *writer,
                             const struct tattle_result *result);
/** Ends the report and gives it its name (or copies it to stdout).
 * Returns 0, or prints the error and returns 2 (nothing left behind). */
int tattle__cli_writer_end(struct tattle__cli_writer *writer,
                           const char *command,
                           const struct tattle_summary *summary);
/** Drops everything written so far (after a bad input). */
void tattle__cli_writer_abort(struct tattle__cli_writer *writer);

/** Opens the report or stream at `path` for `command`; on a bad input
 * prints the reader's one-line error and returns NULL. */
struct tattle__reader *tattle__cli_open_report(const char *command,
                                               const char *path);

/** The summary the input carries; for a stream cut short, `counted` (the
 * tests read so far) marked interrupted, with the stream's duration. */
const struct tattle_summary *
tattle__cli_report_summary(struct tattle__reader *reader,
                           struct tattle_summary *counted);

#endif /* TATTLE_CLI_CLI_H */
