/*
 * sequence.h — a test's trace as a sequence diagram: a text chart for the
 * terminal and a Mermaid `sequenceDiagram` for Markdown.
 *
 * Both come from one reading of the trace: a participant per actor (and
 * per mailbox that holds an unreceived message), one arrow per message
 * (its send joined to its receive), marks for events, spawns and exits,
 * the actors not alive at the end and the test's crash or timeout, and
 * the messages still pending in mailboxes at the bottom.
 */
#ifndef TATTLE_CLI_SEQUENCE_H
#define TATTLE_CLI_SEQUENCE_H

#include <stdio.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

/** Appends the text chart of result->trace (nothing when it has none);
 * every line starts with `indent`. At most 16 lifelines are drawn (the
 * participants past the fifteenth share an "others" lane, named in each
 * row), so the chart's size is linear in the trace's. With a `sink`, what
 * `out` holds is written there whenever it grows large, so memory stays
 * bounded too. */
void tattle__sequence_text(struct tattle__buffer *out,
                           const struct tattle_result *result,
                           const char *indent, FILE *sink);

/** Appends a Mermaid sequenceDiagram of result->trace (a diagram saying
 * there is no trace when it has none). Every name and message is escaped
 * with Mermaid's entity codes, so no test string can change the diagram's
 * structure. */
void tattle__sequence_mermaid(struct tattle__buffer *out,
                              const struct tattle_result *result);

#endif /* TATTLE_CLI_SEQUENCE_H */
