/*
 * compact.h — the "compact" reporter: one short JSON line per test, then a
 * summary line (schemas/compact.schema.json), for agents that read a run
 * in few tokens.
 *
 *     {"id":"queue/pop","s":"failed","f":"queue.c:42","e":"expected 7, got 0"}
 *     {"summary":{...},"error_groups":[...]}
 *
 * `f` is where the failure happened, `e` the first line of its message (or
 * of a skip's reason). `--compact` asks for it in place of "json". To a file
 * the lines go into an anonymous file that gets its name at the end (a
 * killed run leaves nothing beside the old file); to stdout ("-") each
 * line is flushed as its test finishes.
 */
#ifndef TATTLE_REPORTER_COMPACT_H
#define TATTLE_REPORTER_COMPACT_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_compact;

#endif /* TATTLE_REPORTER_COMPACT_H */
