/*
 * read.h — reports and streams read back into the results model.
 *
 * The one reader of what tattle writes: a JSON report (SPEC section 6,
 * schemas/report.schema.json) or a JSON Lines stream
 * (schemas/stream.schema.json), told apart by their first member. Each test
 * comes back as an owned result (struct tattle__read_result) that the
 * reporters take as they take the runner's, so a report read back and
 * written again is the same report. The reader streams: it holds one test
 * at a time (and a stream's running tests), never the whole file.
 *
 * A stream cut short by a killed runner is read as far as it goes: its
 * finished tests come back as they are, then each test it started but
 * never finished comes back failed, with an error naming the kill.
 *
 * Bad input is one error: a message of one line that names the file and
 * the place (line and byte offset for broken JSON, line and JSON path such
 * as `.tests[3].duration_us` for a value of the wrong type), kept in the
 * reader and given by tattle__reader_error().
 */
#ifndef TATTLE_RESULTS_READ_H
#define TATTLE_RESULTS_READ_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <tattle/reporter.h>

#include "results/json_scan.h"
#include "results/record.h"

enum tattle__input_kind { TATTLE__INPUT_REPORT, TATTLE__INPUT_STREAM };

/** One test read back. `record.result` is what reporters take; its test
 * info, tags and strings live in this struct and the parsed tree. */
struct tattle__read_result {
    struct tattle__result_record record;
    struct tattle_test_info test;
    struct tattle_tag *tags;
    cJSON *tree;
    struct tattle__json_arena arena; /* the tree's memory, when it has one */
    uint64_t line;                   /* where it starts in its file (1-based) */
};

/** Frees what the result holds and zeroes it. */
void tattle__read_result_release(struct tattle__read_result *result);

struct tattle__reader;

/** Opens `path` ("-" reads standard input: it is copied once, at the
 * first open, and every open of "-" reads that copy again from its start)
 * and reads what precedes the
 * tests: the kind, and for a report its version, tool, run, summary and
 * which members it has; for a stream its run_started line. Always stores
 * a reader in *reader (close it with tattle__reader_close()); returns 0,
 * or -1 with the message in tattle__reader_error(). */
int tattle__reader_open(struct tattle__reader **reader, const char *path);

/** The one-line message of the first error, or NULL when none. */
const char *tattle__reader_error(const struct tattle__reader *reader);

const char *tattle__reader_path(const struct tattle__reader *reader);
enum tattle__input_kind
tattle__reader_kind(const struct tattle__reader *reader);

/** What the input says of its run (strings owned by the reader). */
const struct tattle_run_info *
tattle__reader_run(const struct tattle__reader *reader);

/** The run's duration: a report's run.duration_us; for a stream that
 * finished its summary's, else the sum of its tests' durations so far. */
uint64_t tattle__reader_duration_us(const struct tattle__reader *reader);

/** The input's own summary: a report's, a finished stream's (known once
 * its tests are read), or NULL. */
const struct tattle_summary *
tattle__reader_summary(const struct tattle__reader *reader);

/** True when the report lists tests (not --summary-only). */
bool tattle__reader_has_tests(const struct tattle__reader *reader);
/** The report's error_groups array (owned by the reader), or NULL. */
const cJSON *tattle__reader_error_groups(const struct tattle__reader *reader);

/** True once a stream has been read to its end without run_finished: the
 * runner was killed, and its running tests came back failed. */
bool tattle__reader_cut_short(const struct tattle__reader *reader);

/** Reads the next test into *result (released by the caller). Returns 1,
 * 0 at the end, or -1 on bad input (see tattle__reader_error()). */
int tattle__reader_next(struct tattle__reader *reader,
                        struct tattle__read_result *result);

/** Reads only the next test's id, without building its result: the quick
 * first pass of `tattle merge`. A stream's test lines are read only as far
 * as their id (tattle__reader_next() checks the rest). *id is malloc'd
 * (free() it). Returns 1, 0 at the end, or -1 on bad input. */
int tattle__reader_next_id(struct tattle__reader *reader, char **id);

void tattle__reader_close(struct tattle__reader *reader);

#endif /* TATTLE_RESULTS_READ_H */
