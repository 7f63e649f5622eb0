/*
 * jsonl.h — the JSON Lines stream of a run (schemas/stream.schema.json).
 *
 * The "jsonl" reporter writes one object per line as things happen and
 * hands each line to the kernel before returning (one write(2) per line),
 * so a runner killed with SIGKILL leaves a stream that holds every finished
 * test and names, through test_started without test_finished, the tests
 * that were running:
 *
 *     {"event":"run_started","version":1,"tool":{...},"run":{...},"planned":N}
 *     {"event":"test_started","id":"suite/name"}
 *     {"event":"test_finished","test":TEST}
 *     {"event":"run_finished","summary":{...},"interrupted":false}
 *
 * TEST is the report's TEST object (results/json.h). The stream is written
 * in place (it is meant to be read while it grows), not atomically; of the
 * agent modes only --filter-out applies (it marks failures).
 */
#ifndef TATTLE_REPORTER_JSONL_H
#define TATTLE_REPORTER_JSONL_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_jsonl;

#endif /* TATTLE_REPORTER_JSONL_H */
