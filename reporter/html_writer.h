/*
 * html_writer.h — the one way tattle writes a test's strings into HTML:
 * an escaping writer for the three places they go in the HTML report
 * (reporter/html.c) — element text, quoted attribute values, and string
 * literals of the JSON data embedded in a <script> element.
 *
 * Markup is written by the reporter's own code as literals; every string
 * that came from a test (names, messages, values, output, trace) may hold
 * any byte and goes through here, one rule for all of them:
 *
 *   - text and attributes: `&`, `<`, `>`, `"` and `'` become entities, so
 *     neither a tag nor the end of a quoted attribute can be written;
 *   - a script string: a JSON string literal in which `<`, `>`, `&`, `'`,
 *     U+2028 and U+2029 are \u escapes as well, so `</script>` or `<!--`
 *     can never appear inside the script element;
 *   - control characters other than tab and newline (NUL among them), DEL
 *     and the C1 controls are shown as the six characters `\u001b`, never
 *     dropped (in a script string: escaped as JSON, so they read back as
 *     they were);
 *   - every maximal ill-formed UTF-8 subsequence becomes one U+FFFD, as in
 *     the JSON report.
 */
#ifndef TATTLE_REPORTER_HTML_WRITER_H
#define TATTLE_REPORTER_HTML_WRITER_H

#include <stddef.h>

#include "base/buffer.h"

/** Appends `bytes[0..length)` escaped for element text or a quoted
 * attribute value. */
void tattle__html_text(struct tattle__buffer *out, const char *bytes,
                       size_t length);

/** As tattle__html_text() for a NUL-terminated string; NULL appends
 * nothing. */
void tattle__html_string(struct tattle__buffer *out, const char *text);

/** As tattle__html_text(), at most `max_chars` characters of `text`
 * (NULL: nothing), then "…" when it was cut. */
void tattle__html_string_cut(struct tattle__buffer *out, const char *text,
                             size_t max_chars);

/** Appends `bytes[0..length)` as a JSON string literal, quotes included,
 * safe inside a <script> element. */
void tattle__html_script_string(struct tattle__buffer *out, const char *bytes,
                                size_t length);

#endif /* TATTLE_REPORTER_HTML_WRITER_H */
