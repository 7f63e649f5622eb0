/*
 * html.h — the "html" reporter: one self-contained HTML page a person
 * opens from a CI artifact (SPEC section 11).
 *
 * The page holds its styles, its script and its pictures inline and asks
 * for nothing over the network (its Content-Security-Policy forbids every
 * fetch). It reads without JavaScript: the run and its counts, a summary
 * bar, an index of the failures, then every test as a <details> element
 * (failed ones open) with its failures (message, expression and values,
 * place, stack), its output, its trace drawn as an SVG sequence diagram
 * (reporter/sequence_diagram.h: a lifeline per participant, an arrow per
 * message, pending sends and orphan receives dashed, events, exits and
 * the crash or timeout marked on the dying actor, pending mailbox
 * contents at the bottom), the calls of a `trace_calls` test as an SVG
 * flame graph (an icicle from reporter/call_tree.h, a frame per thread on
 * top, a tooltip per frame, bounded in frames and depth) and its rerun
 * command. With JavaScript: filters by state, suite, tag and text,
 * collapse and expand, zoom of the diagrams, zoom to a flame graph's frame
 * (click, or Tab and Enter) and a copy button for each rerun command. Light and
 * dark colour schemes follow the reader's preference.
 *
 * Every string from a test goes through reporter/html_writer.h. The tests
 * are written to a scratch file as they finish and copied behind the
 * page's head at the end (when the counts and the filters' choices are
 * known), so memory holds one test at a time; the file gets its name when
 * it is complete (report_output.h).
 */
#ifndef TATTLE_REPORTER_HTML_H
#define TATTLE_REPORTER_HTML_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_html;

#endif /* TATTLE_REPORTER_HTML_H */
