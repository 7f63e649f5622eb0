/*
 * xml_writer.c — the escaping XML writer (see xml_writer.h for the rules).
 *
 * Escaping is one pass over the bytes: runs of the bytes that need no
 * look are copied with one memcpy, so the 100,000
 * traced results of a big JUnit report cost little more than copying them.
 */
#include "reporter/xml_writer.h"

#include <assert.h>
#include <string.h>

#include "base/utf8.h"

/* Whether a byte needs more than copying: in text the C0 controls but
 * tab and newline, '&', '<', '>' and every non-ASCII byte; in attributes
 * also tab, newline and '"'. */
static inline bool needs_look(unsigned char byte, bool attribute)
{
    if (byte >= 0x80 || byte == '&' || byte == '<' || byte == '>')
        return true;
    if (byte < 0x20)
        return attribute || (byte != '\t' && byte != '\n');
    return attribute && byte == '"';
}

void tattle__xml_escape(struct tattle__buffer *out, const char *bytes,
                        size_t length, bool attribute)
{
    const unsigned char *p = (const unsigned char *)bytes;
    size_t i = 0;
    while (i < length) {
        size_t run = i;
        while (run < length && !needs_look(p[run], attribute))
            run++;
        if (run > i)
            tattle__buffer_append(out, bytes + i, run - i);
        if (run == length)
            break;
        i = run;
        unsigned char byte = p[i];
        switch (byte) {
        case '&':
            tattle__buffer_append_string(out, "&amp;");
            i++;
            continue;
        case '<':
            tattle__buffer_append_string(out, "&lt;");
            i++;
            continue;
        case '>':
            /* Only "]]>" is forbidden in text; ']' is never escaped, so
             * the output's last two bytes tell. */
            if (out->length >= 2 && out->data[out->length - 1] == ']' &&
                out->data[out->length - 2] == ']')
                tattle__buffer_append_string(out, "&gt;");
            else
                tattle__buffer_append(out, ">", 1);
            i++;
            continue;
        case '"':
            tattle__buffer_append_string(out, "&quot;");
            i++;
            continue;
        case '\t':
            tattle__buffer_append_string(out, "&#9;");
            i++;
            continue;
        case '\n':
            tattle__buffer_append_string(out, "&#10;");
            i++;
            continue;
        case '\r':
            tattle__buffer_append_string(out, "&#13;");
            i++;
            continue;
        default:
            break;
        }
        if (byte < 0x20) {
            tattle__buffer_append_u_escape(out, byte);
            i++;
            continue;
        }
        size_t n = tattle__utf8_sequence_length(bytes + i, length - i);
        if (n == 0) {
            tattle__buffer_append_string(out, "\xEF\xBF\xBD");
            i += tattle__utf8_ill_formed_length(bytes + i, length - i);
        } else if (n == 3 && byte == 0xEF && p[i + 1] == 0xBF &&
                   p[i + 2] >= 0xBE) {
            tattle__buffer_append_u_escape(out, 0xFFFEu + (p[i + 2] - 0xBEu));
            i += 3;
        } else {
            tattle__buffer_append(out, bytes + i, n);
            i += n;
        }
    }
}

static void indent(struct tattle__xml *xml, size_t depth)
{
    size_t spaces = 2 * (xml->base_depth + depth);
    char *at = tattle__buffer_reserve(xml->out, spaces);
    memset(at, ' ', spaces);
    xml->out->length += spaces;
    xml->out->data[xml->out->length] = '\0';
}

/* Ends the open start tag with '>' (and a newline when elements follow). */
static void close_start_tag(struct tattle__xml *xml, bool elements_follow)
{
    if (!xml->start_tag_open)
        return;
    tattle__buffer_append(xml->out, elements_follow ? ">\n" : ">",
                          elements_follow ? 2 : 1);
    xml->start_tag_open = false;
}

void tattle__xml_declaration(struct tattle__xml *xml)
{
    tattle__buffer_append_string(
        xml->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
}

void tattle__xml_start(struct tattle__xml *xml, const char *name)
{
    assert(xml->depth < TATTLE__XML_MAX_DEPTH);
    if (xml->depth > 0) {
        close_start_tag(xml, true);
        xml->has_children[xml->depth - 1] = true;
    }
    indent(xml, xml->depth);
    tattle__buffer_append(xml->out, "<", 1);
    tattle__buffer_append_string(xml->out, name);
    xml->open_elements[xml->depth] = name;
    xml->has_children[xml->depth] = false;
    xml->depth++;
    xml->start_tag_open = true;
}

/* ` name="` */
static void attribute_opening(struct tattle__xml *xml, const char *name)
{
    assert(xml->start_tag_open);
    tattle__buffer_append(xml->out, " ", 1);
    tattle__buffer_append_string(xml->out, name);
    tattle__buffer_append(xml->out, "=\"", 2);
}

void tattle__xml_attribute_bytes(struct tattle__xml *xml, const char *name,
                                 const char *bytes, size_t length)
{
    attribute_opening(xml, name);
    tattle__xml_escape(xml->out, bytes, length, true);
    tattle__buffer_append(xml->out, "\"", 1);
}

void tattle__xml_attribute(struct tattle__xml *xml, const char *name,
                           const char *value)
{
    if (value)
        tattle__xml_attribute_bytes(xml, name, value, strlen(value));
}

void tattle__xml_attribute_uint(struct tattle__xml *xml, const char *name,
                                uint64_t value)
{
    char digits[24];
    size_t n = sizeof digits;
    do {
        digits[--n] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    attribute_opening(xml, name);
    tattle__buffer_append(xml->out, digits + n, sizeof digits - n);
    tattle__buffer_append(xml->out, "\"", 1);
}

void tattle__xml_attribute_seconds(struct tattle__xml *xml, const char *name,
                                   uint64_t microseconds)
{
    char text[32];
    uint64_t whole = microseconds / 1000000u;
    unsigned fraction = (unsigned)(microseconds % 1000000u);
    size_t n = sizeof text;
    for (int digit = 0; digit < 6; digit++) {
        text[--n] = (char)('0' + fraction % 10);
        fraction /= 10;
    }
    text[--n] = '.';
    do {
        text[--n] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    attribute_opening(xml, name);
    tattle__buffer_append(xml->out, text + n, sizeof text - n);
    tattle__buffer_append(xml->out, "\"", 1);
}

void tattle__xml_text(struct tattle__xml *xml, const char *bytes, size_t length)
{
    assert(xml->depth > 0 && !xml->has_children[xml->depth - 1]);
    close_start_tag(xml, false);
    tattle__xml_escape(xml->out, bytes, length, false);
}

void tattle__xml_elements_follow(struct tattle__xml *xml)
{
    assert(xml->depth > 0);
    close_start_tag(xml, true);
    xml->has_children[xml->depth - 1] = true;
}

void tattle__xml_end(struct tattle__xml *xml)
{
    assert(xml->depth > 0);
    xml->depth--;
    if (xml->start_tag_open) {
        tattle__buffer_append(xml->out, "/>\n", 3);
        xml->start_tag_open = false;
        return;
    }
    if (xml->has_children[xml->depth])
        indent(xml, xml->depth);
    tattle__buffer_append(xml->out, "</", 2);
    tattle__buffer_append_string(xml->out, xml->open_elements[xml->depth]);
    tattle__buffer_append(xml->out, ">\n", 2);
}
