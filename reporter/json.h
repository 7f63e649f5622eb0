/*
 * json.h — the JSON report (schema v1) and its agent modes.
 *
 * The "json" reporter writes one report file (SPEC section 6,
 * schemas/report.schema.json) atomically, or to stdout for "-". Its memory
 * does not grow with the number of tests: each finished test is printed to
 * an anonymous scratch file as it finishes, and `end` assembles the report
 * (version, tool, run and summary first, then the tests, then the error
 * groups) in a temporary file beside the destination and renames it. With
 * --compact it writes one short line per test and a summary line instead.
 * The error groups of --group-by-error are the one thing kept in memory:
 * one entry per distinct message plus the ids of the failed tests.
 */
#ifndef TATTLE_REPORTER_JSON_H
#define TATTLE_REPORTER_JSON_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_json;

#endif /* TATTLE_REPORTER_JSON_H */
