/*
 * html_writer.c — escaping of test strings for HTML (see html_writer.h).
 *
 * Runs of bytes that need nothing are copied at once; every other byte
 * is looked at with base/utf8.h, which repairs ill-formed UTF-8 exactly
 * as the JSON report does.
 */
#include "reporter/html_writer.h"

#include <stdbool.h>
#include <string.h>

#include "base/utf8.h"

/* True for the ASCII bytes copied as they are in text and attributes. */
static bool plain_byte(unsigned char byte)
{
    return byte >= 0x20 && byte < 0x7f && byte != '&' && byte != '<' &&
           byte != '>' && byte != '"' && byte != '\'';
}

void tattle__html_text(struct tattle__buffer *out, const char *bytes,
                       size_t length)
{
    const unsigned char *p = (const unsigned char *)bytes;
    size_t i = 0;
    while (i < length) {
        size_t run = i;
        while (run < length && plain_byte(p[run]))
            run++;
        if (run > i) {
            tattle__buffer_append(out, bytes + i, run - i);
            i = run;
            continue;
        }
        unsigned char byte = p[i];
        const char *entity = NULL;
        switch (byte) {
        case '&':
            entity = "&amp;";
            break;
        case '<':
            entity = "&lt;";
            break;
        case '>':
            entity = "&gt;";
            break;
        case '"':
            entity = "&quot;";
            break;
        case '\'':
            entity = "&#39;";
            break;
        case '\n':
            entity = "\n";
            break;
        case '\t':
            entity = "\t";
            break;
        default:
            break;
        }
        if (entity) {
            tattle__buffer_append_string(out, entity);
            i++;
            continue;
        }
        if (byte < 0x80) { /* a C0 control character or DEL */
            tattle__buffer_append_u_escape(out, byte);
            i++;
            continue;
        }
        size_t n = tattle__utf8_printable_length(bytes + i, length - i);
        if (n) {
            tattle__buffer_append(out, bytes + i, n);
            i += n;
        } else if (tattle__utf8_sequence_length(bytes + i, length - i) == 2) {
            /* a C1 control: U+0080 to U+009F */
            unsigned code = ((byte & 0x1fu) << 6) | (p[i + 1] & 0x3fu);
            tattle__buffer_append_u_escape(out, code);
            i += 2;
        } else {
            tattle__buffer_append_string(out, "\xef\xbf\xbd");
            i += tattle__utf8_ill_formed_length(bytes + i, length - i);
        }
    }
}

void tattle__html_string(struct tattle__buffer *out, const char *text)
{
    if (text)
        tattle__html_text(out, text, strlen(text));
}

void tattle__html_string_cut(struct tattle__buffer *out, const char *text,
                             size_t max_chars)
{
    if (!text)
        return;
    size_t length = strlen(text), end = 0;
    for (size_t chars = 0; end < length && chars < max_chars; chars++) {
        size_t n = tattle__utf8_sequence_length(text + end, length - end);
        end += n ? n : 1;
    }
    tattle__html_text(out, text, end);
    if (end < length)
        tattle__buffer_append_string(out, "\xe2\x80\xa6");
}

void tattle__html_script_string(struct tattle__buffer *out, const char *bytes,
                                size_t length)
{
    const unsigned char *p = (const unsigned char *)bytes;
    tattle__buffer_append(out, "\"", 1);
    size_t i = 0;
    while (i < length) {
        size_t run = i;
        while (run < length && plain_byte(p[run]) && p[run] != '\\')
            run++;
        if (run > i) {
            tattle__buffer_append(out, bytes + i, run - i);
            i = run;
            continue;
        }
        unsigned char byte = p[i];
        if (byte == '\\' || byte == '"') {
            tattle__buffer_append(out, byte == '\\' ? "\\\\" : "\\\"", 2);
            i++;
            continue;
        }
        if (byte == '\n') {
            tattle__buffer_append(out, "\\n", 2);
            i++;
            continue;
        }
        if (byte < 0x80) { /* control, DEL, & < > ' */
            tattle__buffer_append_u_escape(out, byte);
            i++;
            continue;
        }
        size_t n = tattle__utf8_sequence_length(bytes + i, length - i);
        if (n == 0) {
            tattle__buffer_append_string(out, "\\ufffd");
            i += tattle__utf8_ill_formed_length(bytes + i, length - i);
        } else if (n == 3 && byte == 0xe2 && p[i + 1] == 0x80 &&
                   (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
            tattle__buffer_append_u_escape(out, 0x2000u | (p[i + 2] & 0x3fu));
            i += 3;
        } else {
            tattle__buffer_append(out, bytes + i, n);
            i += n;
        }
    }
    tattle__buffer_append(out, "\"", 1);
}
