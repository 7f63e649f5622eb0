/*
 * report_output.h — where a report file is written, so that nobody ever
 * reads half of one: the output of the JUnit, TAP, CTRF and GitHub
 * reporters.
 *
 * For a path, the report is written into an anonymous file beside it
 * (O_TMPFILE; a hidden temporary file where the file system cannot) that
 * gets the name only when the report is complete: a killed or failed run
 * leaves the old file as it was and nothing else behind. For stdout ("-"),
 * a stream (TAP, workflow commands) goes out as it is written; a document
 * (JUnit, CTRF) is assembled in a scratch file and copied to stdout at the
 * end. Writes go through a buffered sink on a raw descriptor (never a
 * stdio FILE, which a forked test process could flush a second time).
 */
#ifndef TATTLE_REPORTER_REPORT_OUTPUT_H
#define TATTLE_REPORTER_REPORT_OUTPUT_H

#include <stdbool.h>

#include "base/report_file.h"

struct tattle__report_output {
    bool to_stdout;
    bool live;                       /* stdout written directly */
    char *destination;               /* the path; NULL for stdout */
    char *directory;                 /* where scratch files of this report go */
    bool anonymous;                  /* sink.fd is an O_TMPFILE file */
    struct tattle__atomic_file file; /* else the temporary file, if any */
    struct tattle__sink sink;        /* write the report here */
};

/** Opens the output for `destination`: a path, or "-" (or NULL) for
 * stdout, written directly when `live_stdout`, else copied at commit.
 * Returns 0 or a negative errno (the directory does not exist or is not
 * writable); on failure nothing is left behind and `output` needs no
 * discard. */
int tattle__report_output_open(struct tattle__report_output *output,
                               const char *destination, bool live_stdout);

/** Writes out what the sink holds: to stdout when live, so a stream's
 * reader sees each test as it finishes. Returns the sink's error. */
int tattle__report_output_flush(struct tattle__report_output *output);

/** Completes the report: flushes it and gives the file its name (an
 * existing file is replaced atomically), or copies it to stdout. Returns
 * 0 or a negative errno (the sink's first error, if any); on failure the
 * destination is untouched. Call discard afterwards either way. */
int tattle__report_output_commit(struct tattle__report_output *output);

/** Keeps the first error a reporter meets: sets `*first` to `error` when
 * `error` is one (non-zero) and `*first` is still 0, so a reporter can
 * go on after a failed write and return what went wrong first. */
void tattle__remember_error(int *first, int error);

/** Frees the output; without a commit the report is thrown away and the
 * destination stays as it was. */
void tattle__report_output_discard(struct tattle__report_output *output);

#endif /* TATTLE_REPORTER_REPORT_OUTPUT_H */
