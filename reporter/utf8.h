/*
 * utf8.h — turning arbitrary bytes into valid UTF-8 for the reports.
 *
 * Everything a report carries (test names, messages, rendered values,
 * captured output, trace strings) may hold any byte a test produced: NUL
 * bytes, invalid or truncated UTF-8, overlong forms, UTF-16 surrogates.
 * JSON needs valid UTF-8 and cJSON works on NUL-terminated strings, so every
 * string goes through this module first: valid text passes unchanged, every
 * maximal invalid subsequence (Unicode's "substitution of maximal subparts")
 * and every NUL byte becomes U+FFFD. cJSON then escapes control characters.
 */
#ifndef TATTLE_REPORTER_UTF8_H
#define TATTLE_REPORTER_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/** True when `bytes[0..length)` is well-formed UTF-8 without a NUL byte,
 * i.e. can be handed to cJSON as it is. */
bool tattle__utf8_is_clean(const char *bytes, size_t length);

/** Length (1..4) of the well-formed UTF-8 sequence that starts
 * `bytes[0..available)`, or 0 when those bytes start an ill-formed one or
 * a NUL byte. `available` must be at least 1. */
size_t tattle__utf8_sequence_length(const char *bytes, size_t available);

/** Returns a newly allocated, NUL-terminated, well-formed UTF-8 copy of
 * `bytes[0..length)` in which NUL bytes and invalid sequences are replaced
 * by U+FFFD, and stores its length (without the terminator) in
 * `*sanitized_length` when that is not NULL. The caller frees the copy with
 * free(). Returns NULL when memory runs out. */
char *tattle__utf8_sanitize(const char *bytes, size_t length,
                            size_t *sanitized_length);

#endif /* TATTLE_REPORTER_UTF8_H */
