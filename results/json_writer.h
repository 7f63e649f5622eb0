/*
 * json_writer.h — JSON values written straight into a buffer, byte for
 * byte what cJSON_PrintUnformatted prints for the same items.
 *
 * The TEST objects of a report and the events of a trace are most of the
 * bytes tattle writes (a report may hold 100,000 traced tests, `tattle
 * merge` rewrites every test of every shard). Building a cJSON tree for
 * each and printing it costs an allocation per value and a second pass,
 * so they are written here instead: numbers from their digits (exact for
 * every 64-bit value), strings repaired as base/utf8.h repairs them (NUL
 * bytes and every maximal ill-formed subsequence become U+FFFD) and
 * escaped as cJSON escapes them ('"', '\\', \b \f \n \r \t by letter, the
 * other control characters as \u00XX in lowercase hex, every other byte
 * as it is). The writers never fail: the buffer ends the process when
 * memory runs out. tests/report checks the output equals cJSON's on
 * hostile data.
 */
#ifndef TATTLE_RESULTS_JSON_WRITER_H
#define TATTLE_RESULTS_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"

/** Appends the string literal `literal` (a JSON fragment) to `out`. */
#define TATTLE__JSON_WRITE_LITERAL(out, literal)                               \
    tattle__buffer_append(out, literal, sizeof literal - 1)

/** Appends `,"key":` (the comma and the quotes added here) to `out`. */
#define TATTLE__JSON_WRITE_KEY(out, key)                                       \
    TATTLE__JSON_WRITE_LITERAL(out, ",\"" key "\":")

/** Appends the digits of `value`. */
void tattle__json_write_uint(struct tattle__buffer *out, uint64_t value);
/** Appends the digits of `value`, with '-' when it is negative. */
void tattle__json_write_int(struct tattle__buffer *out, long long value);
/** Appends `true` or `false`. */
void tattle__json_write_bool(struct tattle__buffer *out, bool value);
/** Appends `bytes[0..length)` (any bytes: NUL and invalid UTF-8 are
 * repaired) as a JSON string. */
void tattle__json_write_bytes(struct tattle__buffer *out, const char *bytes,
                              size_t length);
/** Appends NUL-terminated `text` as a JSON string, or null when `text` is
 * NULL. */
void tattle__json_write_text(struct tattle__buffer *out, const char *text);

#endif /* TATTLE_RESULTS_JSON_WRITER_H */
