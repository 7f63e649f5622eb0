/*
 * listing.h — --list: the selected tests instead of a run.
 *
 * As text, one test a line: its id, then its tags in brackets. With
 * --json, one JSON array (schemas/list.schema.json) of each test's id,
 * suite, name, file, line, tags, timeout and state (selected, or excluded,
 * skipped or invalid with the reason), so tools can see what a run would
 * do without running it.
 */
#ifndef TATTLE_RUNNER_LISTING_H
#define TATTLE_RUNNER_LISTING_H

#include <stdbool.h>
#include <stdio.h>

#include "runner/plan.h"

/** Writes the plan's tests to `stream`, as JSON when `as_json`. */
void tattle__listing_print(FILE *stream, const struct tattle__plan *plan,
                           bool as_json);

#endif /* TATTLE_RUNNER_LISTING_H */
