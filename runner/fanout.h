/*
 * fanout.h — the reporter fan-out: every report of a run, opened, fed and
 * closed together.
 *
 * The console is always one of the reporters (on stderr when a report
 * goes to standard output, so stdout carries that report alone); the
 * others are those the command line and the configuration asked for, in
 * their order, as many as there are. Every reporter and destination is
 * checked before any is opened: opening may truncate a file, and a usage
 * error leaves every existing file as it was. Each event then goes to
 * every reporter in turn.
 *
 * With --report-dir DIR (or TATTLE_REPORT_DIR) the run also writes its
 * JSON Lines stream to a file of its own in DIR, named
 * PROGRAM-PID-RANDOM.jsonl and created with O_EXCL, so runs started side by
 * side (ctest -j, CI shards) never write over each other's streams.
 */
#ifndef TATTLE_RUNNER_FANOUT_H
#define TATTLE_RUNNER_FANOUT_H

#include <stdbool.h>
#include <stddef.h>

#include <tattle/reporter.h>

#include "base/buffer.h"
#include "runner/options.h"

struct tattle__open_reporter {
    const struct tattle_reporter_type *type;
    void *self;
};

struct tattle__fanout {
    struct tattle_report_options options; /* every reporter points here */
    struct tattle__open_reporter *reporters;
    size_t count, capacity;
    char *report_dir_stream; /* --report-dir: this run's stream; or NULL */
};

/** True when one of the requested reports goes to standard output: to
 * "-", or a reporter other than the console named without a file. */
bool tattle__fanout_takes_stdout(const struct tattle__options *options);

/** Checks, then opens the console and every requested reporter into
 * `fanout` (zeroed by the caller). Returns 0, or a negative code with a
 * one-line message in `error` (nothing is opened when a check fails); call
 * tattle__fanout_close() either way. */
int tattle__fanout_open(struct tattle__fanout *fanout,
                        const struct tattle__options *options,
                        struct tattle__buffer *error);

void tattle__fanout_begin(struct tattle__fanout *fanout,
                          const struct tattle_run_info *run);
void tattle__fanout_test_started(struct tattle__fanout *fanout,
                                 const struct tattle_test_info *test);
void tattle__fanout_test_finished(struct tattle__fanout *fanout,
                                  const struct tattle_result *result);

/** Ends every report, saying on stderr (after `program`) which could not
 * be written. Returns true when all were. */
bool tattle__fanout_end(struct tattle__fanout *fanout,
                        const struct tattle_summary *summary,
                        const char *program);

/** Destroys every reporter (one not ended discards its output). */
void tattle__fanout_close(struct tattle__fanout *fanout);

#endif /* TATTLE_RUNNER_FANOUT_H */
