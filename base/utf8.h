/*
 * utf8.h — UTF-8 text as tattle handles it: valid for the reports,
 * printable for the terminal, cut only between characters.
 *
 * Everything a report carries (test names, messages, rendered values,
 * captured output, trace strings) may hold any byte a test produced: NUL
 * bytes, invalid or truncated UTF-8, overlong forms, UTF-16 surrogates.
 * JSON needs valid UTF-8 and cJSON works on NUL-terminated strings, so every
 * string goes through this module first: valid text passes unchanged, every
 * maximal invalid subsequence (Unicode's "substitution of maximal subparts")
 * and every NUL byte becomes U+FFFD. cJSON then escapes control characters.
 */
#ifndef TATTLE_BASE_UTF8_H
#define TATTLE_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/** True when `bytes[0..length)` is well-formed UTF-8 without a NUL byte,
 * i.e. can be handed to cJSON as it is. */
bool tattle__utf8_is_clean(const char *bytes, size_t length);

/** Length (1..4) of the well-formed UTF-8 sequence that starts
 * `bytes[0..available)`, or 0 when those bytes start an ill-formed one or
 * a NUL byte. `available` must be at least 1. */
size_t tattle__utf8_sequence_length(const char *bytes, size_t available);

/** When tattle__utf8_sequence_length() returns 0: how many bytes (1..3)
 * the ill-formed sequence at `bytes` spans, i.e. how many one U+FFFD
 * replaces (the maximal subpart), so that a writer with its own escaping
 * repairs text exactly as tattle__utf8_sanitize() does. 1 for a NUL
 * byte. `available` must be at least 1. */
size_t tattle__utf8_ill_formed_length(const char *bytes, size_t available);

/** Returns a newly allocated, NUL-terminated, well-formed UTF-8 copy of
 * `bytes[0..length)` in which NUL bytes and invalid sequences are replaced
 * by U+FFFD, and stores its length (without the terminator) in
 * `*sanitized_length` when that is not NULL. The caller frees the copy with
 * free(). Returns NULL when memory runs out. */
char *tattle__utf8_sanitize(const char *bytes, size_t length,
                            size_t *sanitized_length);

/** The length of the longest prefix of `text[0..length)` that does not end
 * in the middle of a UTF-8 character: where to cut text that does not fit
 * without leaving half a character. Reads nothing past `length`, and is
 * async-signal-safe (the recorder cuts names with it). */
static inline size_t tattle__utf8_cut_length(const char *text, size_t length)
{
    const unsigned char *bytes = (const unsigned char *)text;
    for (size_t back = 1; back <= 3 && back <= length; back++) {
        unsigned char byte = bytes[length - back];
        if ((byte & 0xc0u) == 0x80u)
            continue; /* a continuation byte: look further back */
        size_t needed = byte >= 0xf0u   ? 4
                        : byte >= 0xe0u ? 3
                        : byte >= 0xc0u ? 2
                                        : 1;
        return needed > back ? length - back : length;
    }
    return length;
}

/** Length (1..4) of the printable character that starts
 * `bytes[0..available)`, or 0 when it is not one: ill-formed UTF-8, a NUL,
 * a C0 control character, DEL, or a C1 control character (U+0080 to
 * U+009F: some terminals take U+009B as the start of an escape sequence). */
size_t tattle__utf8_printable_length(const char *bytes, size_t available);

/** True when `bytes[0..length)` is printable text: every character
 * printable, or a tab, newline or carriage return. */
bool tattle__utf8_is_printable(const char *bytes, size_t length);

#endif /* TATTLE_BASE_UTF8_H */
