/*
 * registry.h — what the registry of reporter types tells the runner
 * beyond tattle_reporter_find() (include/tattle/reporter.h).
 */
#ifndef TATTLE_REPORTER_REGISTRY_H
#define TATTLE_REPORTER_REGISTRY_H

#include "base/buffer.h"

/** Appends the name of every reporter there is to `out`, separated by
 * ", ": the built-in ones, then the plugins in the order they were
 * registered. */
void tattle__reporter_append_names(struct tattle__buffer *out);

#endif /* TATTLE_REPORTER_REGISTRY_H */
