/*
 * json.h — the JSON report (schema v1) and its agent modes.
 *
 * The "json" reporter writes one report file (SPEC section 6,
 * schemas/report.schema.json) atomically, or to stdout for "-". Its memory
 * does not grow with the number of tests: each finished test is printed
 * as it finishes into an anonymous file (O_TMPFILE) beside the destination,
 * after room kept for the header; `end` appends the error groups, writes
 * version, tool, run and summary into that room (padded with spaces) and
 * gives the file its name with link + rename, so a reader of the first
 * kilobytes knows the outcome and a killed run leaves nothing behind. Where
 * O_TMPFILE is not supported, and for stdout ("-"), the tests go to a
 * scratch file and `end` copies them after the header (in-kernel copy).
 * (--compact asks for the "compact" reporter instead, reporter/compact.c.)
 * The error groups of --group-by-error are the one thing kept in memory:
 * one entry per distinct message plus the ids of the failed tests.
 */
#ifndef TATTLE_REPORTER_JSON_H
#define TATTLE_REPORTER_JSON_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_json;

#endif /* TATTLE_REPORTER_JSON_H */
