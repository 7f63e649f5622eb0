/*
 * json.h — the results model as JSON (report schema v1).
 *
 * One place turns tattle_result, tattle_summary and tattle_run_info into the
 * JSON objects of SPEC section 6 (schemas/report.schema.json): the json
 * reporter writes them into the report file, the jsonl reporter into its
 * stream, and both get byte-identical TEST objects. Every string goes
 * through utf8.h first, so whatever a test printed becomes valid UTF-8.
 *
 * Speed matters here (a report may hold 100,000 traced tests, `tattle
 * merge` rewrites every test of every shard), so a TEST object is written
 * straight into a buffer (results/json_writer.h), never built as a tree;
 * the run and the summary, once per report, are cJSON objects whose
 * builders avoid copies: keys are string literals added by reference, and
 * strings that are already clean UTF-8 are referenced, not copied.
 */
#ifndef TATTLE_RESULTS_JSON_H
#define TATTLE_RESULTS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <tattle/reporter.h>

#include "base/buffer.h"

/** The version of the report and stream schemas this module writes. */
#define TATTLE__JSON_SCHEMA_VERSION 1

/** Adds `text` (NUL-terminated; NULL adds null) under the literal `key`,
 * replacing invalid UTF-8. The object references `text` when it is clean:
 * keep `text` alive until the object is deleted. Returns false when memory
 * runs out (the object is unchanged). */
bool tattle__json_add_text(cJSON *object, const char *key, const char *text);
/** A string item for `text` (NULL: a null item): a reference when it is
 * clean UTF-8, else a repaired copy. Returns NULL when memory runs out. */
cJSON *tattle__json_text(const char *text);

/** A string item holding a repaired copy of `bytes[0..length)` (which may
 * hold NUL bytes and invalid UTF-8). Returns NULL when memory runs out. */
cJSON *tattle__json_bytes(const char *bytes, size_t length);

/** As tattle__json_add_text(), for `length` bytes that may hold NUL bytes.
 * Always copies. */
bool tattle__json_add_bytes(cJSON *object, const char *key, const char *bytes,
                            size_t length);
/** Adds an exact unsigned integer (values above 2^31 are printed from their
 * digits, never through a double). */
bool tattle__json_add_uint(cJSON *object, const char *key, uint64_t value);

/** {"name":"tattle","version":...}. Returns a new object or NULL. */
cJSON *tattle__json_tool(void);
/** The `run` object. With `summary` NULL (the stream's run_started) it has
 * no duration_us and no interrupted. Strings are copied. Returns a new
 * object or NULL. */
cJSON *tattle__json_run(const struct tattle_run_info *run,
                        const struct tattle_summary *summary);
/** The `summary` object, with "result". Returns a new object or NULL. */
cJSON *tattle__json_summary(const struct tattle_summary *summary);
/** Appends the TEST object of `result` to `out`, printed as cJSON prints
 * it without whitespace, with failures matching options->filter_out
 * (`options` may be NULL) marked "filtered". Allocates nothing but the
 * buffer's growth: this is how every report and stream writes a test. */
void tattle__json_write_test(struct tattle__buffer *out,
                             const struct tattle_result *result,
                             const struct tattle_report_options *options);
/** The TEST object of tattle__json_write_test() as a new cJSON object
 * (parsed from the written text: it references nothing of `result`), for
 * a reporter that takes parts of it. Returns NULL when memory runs out. */
cJSON *tattle__json_test(const struct tattle_result *result,
                         const struct tattle_report_options *options);
/** Prints `item` without whitespace into `out` (replacing what it held;
 * the buffer is kept for the next call, so one serves a whole report).
 * Returns false when memory runs out. */
bool tattle__json_print(const cJSON *item, struct tattle__buffer *out);

#endif /* TATTLE_RESULTS_JSON_H */
