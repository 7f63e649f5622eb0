/*
 * xml_writer.h — the one way tattle writes XML: a small escaping writer
 * that appends to a buffer (there is no XML library in the dependencies).
 *
 * Element and attribute names are literals of tattle's own code and are
 * written as they are; every value and every text may hold any byte a test
 * produced and is escaped here, one rule for the whole project:
 *
 *   - `&` and `<` become `&amp;` and `&lt;`, and `>` becomes `&gt;` after
 *     `]]` (so `]]>` never appears, and no CDATA section is needed), in
 *     text and in attributes; `"` becomes `&quot;` in attributes;
 *   - tab, newline and carriage return are written as `&#9;`, `&#10;` and
 *     `&#13;` in attributes (a parser would turn them into spaces), and a
 *     carriage return as `&#13;` in text (a parser would drop it before a
 *     newline);
 *   - the characters XML 1.0 forbids — the C0 control characters other
 *     than tab, newline and carriage return (NUL among them), U+FFFE and
 *     U+FFFF — are shown visibly as the six characters `\u001b` (JSON's
 *     notation, lower-case hex), never dropped;
 *   - every maximal ill-formed UTF-8 subsequence becomes one U+FFFD, as in
 *     the JSON report (a surrogate encoded in UTF-8 is ill-formed, so none
 *     reaches the file).
 *
 * A backslash is written as it is, so a report may show `\u001b` that a
 * test printed literally; the JSON report keeps the exact bytes apart.
 *
 * Output is indented two spaces a level; an element holds either text or
 * elements, never both (JUnit needs no mixed content).
 */
#ifndef TATTLE_REPORTER_XML_WRITER_H
#define TATTLE_REPORTER_XML_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"

enum { TATTLE__XML_MAX_DEPTH = 16 };

/** A writer appending to `out`. Zero-initialize, set `out` (and
 * `base_depth` for a fragment that will sit that deep in a document). The
 * writer owns nothing; element names must outlive the element. */
struct tattle__xml {
    struct tattle__buffer *out;
    size_t base_depth;
    size_t depth;
    const char *open_elements[TATTLE__XML_MAX_DEPTH];
    bool has_children[TATTLE__XML_MAX_DEPTH];
    bool start_tag_open; /* "<name ..." written, its '>' not yet */
};

/** Appends `<?xml version="1.0" encoding="UTF-8"?>` and a newline. */
void tattle__xml_declaration(struct tattle__xml *xml);

/** Opens element `name` (a literal) inside the current one. */
void tattle__xml_start(struct tattle__xml *xml, const char *name);
/** Adds an attribute to the element just opened; `value` NULL omits it. */
void tattle__xml_attribute(struct tattle__xml *xml, const char *name,
                           const char *value);
/** As tattle__xml_attribute() for `length` bytes that may hold NUL. */
void tattle__xml_attribute_bytes(struct tattle__xml *xml, const char *name,
                                 const char *bytes, size_t length);
void tattle__xml_attribute_uint(struct tattle__xml *xml, const char *name,
                                uint64_t value);
/** A duration in seconds with microsecond digits ("0.000340"). */
void tattle__xml_attribute_seconds(struct tattle__xml *xml, const char *name,
                                   uint64_t microseconds);
/** Text content of the element just opened (which then holds no
 * elements): `length` bytes, escaped. */
void tattle__xml_text(struct tattle__xml *xml, const char *bytes,
                      size_t length);
/** Ends the start tag of the element just opened as one whose elements
 * are appended by other means (a fragment written by another writer with
 * `base_depth` one deeper); tattle__xml_end() then closes it on its own
 * line. */
void tattle__xml_elements_follow(struct tattle__xml *xml);
/** Closes the innermost open element (`<name/>` when it is empty). */
void tattle__xml_end(struct tattle__xml *xml);

/** Appends `bytes[0..length)` escaped for an attribute value (`attribute`)
 * or for text, by the rules above. */
void tattle__xml_escape(struct tattle__buffer *out, const char *bytes,
                        size_t length, bool attribute);

#endif /* TATTLE_REPORTER_XML_WRITER_H */
