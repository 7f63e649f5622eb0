/*
 * json_events.h — a trace's events as JSON text, printed by hand for
 * speed, byte for byte what cJSON prints.
 *
 * A traced test carries up to `cap` events (50 by default, thousands when
 * asked), and a report may hold 100,000 traced tests: the events are most
 * of a report's bytes. Building ten cJSON items per event and printing
 * them costs about 1 us per event, so the events array is printed once,
 * into one buffer, and enters the report's tree as a single raw item.
 * Keys are fixed fragments; numbers and strings go through
 * results/json_writer.h. tests/report checks the output equals cJSON's on
 * hostile data.
 */
#ifndef TATTLE_RESULTS_JSON_EVENTS_H
#define TATTLE_RESULTS_JSON_EVENTS_H

#include <stddef.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

/** Appends the JSON array of `count` events to `out`, printed as
 * cJSON_PrintUnformatted prints the same array. */
void tattle__json_events_print(struct tattle__buffer *out,
                               const struct tattle_trace_event *events,
                               size_t count);

#endif /* TATTLE_RESULTS_JSON_EVENTS_H */
