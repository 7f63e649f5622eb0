/*
 * utf8.c — validation and repair of UTF-8 (see utf8.h).
 *
 * The decoder follows the table of well-formed byte sequences in the
 * Unicode standard (chapter 3, table 3-7): it rejects overlong forms,
 * surrogates (ED A0..BF) and code points above U+10FFFF, and replaces each
 * maximal subpart of an ill-formed sequence by one U+FFFD, which is what
 * browsers and Python's "replace" error handler do.
 */
#include "base/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char replacement[3] = {'\xEF', '\xBF', '\xBD'}; /* U+FFFD */

/* Length of the well-formed sequence at p (1..4), or 0 when the bytes at p
 * start an ill-formed one; in that case *maximal_subpart says how many
 * bytes (>= 1) one U+FFFD replaces. NUL counts as ill-formed here. */
static size_t sequence_length(const unsigned char *p, size_t available,
                              size_t *maximal_subpart)
{
    unsigned char lead = p[0];
    size_t need;
    unsigned char low = 0x80, high = 0xBF; /* range of the second byte */

    *maximal_subpart = 1;
    if (lead >= 0x01 && lead <= 0x7F)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        need = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) {
        need = 3;
        if (lead == 0xE0)
            low = 0xA0;
        else if (lead == 0xED)
            high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        need = 4;
        if (lead == 0xF0)
            low = 0x90;
        else if (lead == 0xF4)
            high = 0x8F;
    } else
        return 0; /* NUL, continuation byte, C0, C1, F5..FF */

    size_t i = 1;
    for (; i < need && i < available; i++) {
        unsigned char c = p[i];
        if (i == 1 ? (c < low || c > high) : (c < 0x80 || c > 0xBF))
            break;
    }
    if (i == need)
        return need;
    *maximal_subpart = i;
    return 0;
}

bool tattle__utf8_is_clean(const char *bytes, size_t length)
{
    const unsigned char *p = (const unsigned char *)bytes;
    size_t i = 0;
    while (i < length) {
        /* Fast path: eight ASCII bytes without NUL at a time. */
        while (i + 8 <= length) {
            uint64_t word;
            memcpy(&word, p + i, 8);
            if ((word & 0x8080808080808080ull) != 0 ||
                ((word - 0x0101010101010101ull) & ~word &
                 0x8080808080808080ull) != 0)
                break;
            i += 8;
        }
        if (i >= length)
            break;
        size_t subpart;
        size_t n = sequence_length(p + i, length - i, &subpart);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

size_t tattle__utf8_sequence_length(const char *bytes, size_t available)
{
    size_t subpart;
    return sequence_length((const unsigned char *)bytes, available, &subpart);
}

size_t tattle__utf8_ill_formed_length(const char *bytes, size_t available)
{
    size_t subpart;
    sequence_length((const unsigned char *)bytes, available, &subpart);
    return subpart;
}

char *tattle__utf8_sanitize(const char *bytes, size_t length,
                            size_t *sanitized_length)
{
    const unsigned char *p = (const unsigned char *)bytes;

    /* First pass measures, second pass copies. */
    size_t out_length = 0;
    for (size_t i = 0; i < length;) {
        size_t subpart;
        size_t n = sequence_length(p + i, length - i, &subpart);
        if (n) {
            out_length += n;
            i += n;
        } else {
            out_length += sizeof replacement;
            i += subpart;
        }
    }

    char *out = malloc(out_length + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < length;) {
        size_t subpart;
        size_t n = sequence_length(p + i, length - i, &subpart);
        if (n) {
            memcpy(out + o, p + i, n);
            o += n;
            i += n;
        } else {
            memcpy(out + o, replacement, sizeof replacement);
            o += sizeof replacement;
            i += subpart;
        }
    }
    out[o] = '\0';
    if (sanitized_length)
        *sanitized_length = o;
    return out;
}

size_t tattle__utf8_printable_length(const char *bytes, size_t available)
{
    size_t n = tattle__utf8_sequence_length(bytes, available);
    unsigned char first = (unsigned char)bytes[0];
    if (n == 1 && (first < 0x20 || first == 0x7f))
        return 0;
    if (n == 2 && first == 0xc2 && (unsigned char)bytes[1] < 0xa0)
        return 0;
    return n;
}

bool tattle__utf8_is_printable(const char *bytes, size_t length)
{
    for (size_t i = 0; i < length;) {
        char byte = bytes[i];
        if (byte == '\t' || byte == '\n' || byte == '\r') {
            i++;
            continue;
        }
        size_t n = tattle__utf8_printable_length(bytes + i, length - i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}
