/*
 * json_writer.c — JSON numbers and strings written straight into a buffer
 * (see json_writer.h for what the bytes promise).
 *
 * A string is copied in runs: the bytes JSON holds as they are (printable
 * ASCII but '"' and '\\') go at once, a well-formed multi-byte character
 * as a whole, and everything else is escaped or repaired one at a time.
 */
#include "results/json_writer.h"

#include <string.h>

#include "base/utf8.h"

void tattle__json_write_uint(struct tattle__buffer *out, uint64_t value)
{
    char digits[24];
    char *p = digits + sizeof digits;
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    tattle__buffer_append(out, p, (size_t)(digits + sizeof digits - p));
}

void tattle__json_write_int(struct tattle__buffer *out, long long value)
{
    if (value < 0)
        TATTLE__JSON_WRITE_LITERAL(out, "-");
    tattle__json_write_uint(out, value < 0 ? (uint64_t)0 - (uint64_t)value
                                           : (uint64_t)value);
}

void tattle__json_write_bool(struct tattle__buffer *out, bool value)
{
    if (value)
        TATTLE__JSON_WRITE_LITERAL(out, "true");
    else
        TATTLE__JSON_WRITE_LITERAL(out, "false");
}

/* True for the bytes a JSON string holds as they are, one at a time. */
static bool plain_ascii(unsigned char byte)
{
    return byte >= 0x20 && byte < 0x80 && byte != '"' && byte != '\\';
}

/* The escape of control character or quote `byte`, as cJSON writes it. */
static void write_escape(struct tattle__buffer *out, unsigned char byte)
{
    char letter = 0;
    switch (byte) {
    case '"':
        letter = '"';
        break;
    case '\\':
        letter = '\\';
        break;
    case '\b':
        letter = 'b';
        break;
    case '\f':
        letter = 'f';
        break;
    case '\n':
        letter = 'n';
        break;
    case '\r':
        letter = 'r';
        break;
    case '\t':
        letter = 't';
        break;
    default:
        tattle__buffer_append_u_escape(out, byte);
        return;
    }
    char escape[2] = {'\\', letter};
    tattle__buffer_append(out, escape, sizeof escape);
}

void tattle__json_write_bytes(struct tattle__buffer *out, const char *bytes,
                              size_t length)
{
    const unsigned char *p = (const unsigned char *)bytes;
    TATTLE__JSON_WRITE_LITERAL(out, "\"");
    size_t i = 0;
    while (i < length) {
        size_t run = i;
        while (run < length && plain_ascii(p[run]))
            run++;
        if (run > i) {
            tattle__buffer_append(out, bytes + i, run - i);
            i = run;
            continue;
        }
        if (p[i] != 0 && p[i] < 0x80) { /* a control character or quote */
            write_escape(out, p[i]);
            i++;
            continue;
        }
        size_t n = tattle__utf8_sequence_length(bytes + i, length - i);
        if (n) {
            tattle__buffer_append(out, bytes + i, n);
            i += n;
        } else {
            TATTLE__JSON_WRITE_LITERAL(out, "\xef\xbf\xbd");
            i += tattle__utf8_ill_formed_length(bytes + i, length - i);
        }
    }
    TATTLE__JSON_WRITE_LITERAL(out, "\"");
}

void tattle__json_write_text(struct tattle__buffer *out, const char *text)
{
    if (text)
        tattle__json_write_bytes(out, text, strlen(text));
    else
        TATTLE__JSON_WRITE_LITERAL(out, "null");
}
