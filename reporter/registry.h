/*
 * registry.h — every reporter type the registry knows, in order: the
 * built-in ones, then the plugins registered since; what the runner and the
 * tattle command need beyond tattle_reporter_find() (include/tattle/
 * reporter.h), such as the names that exist when a name is unknown.
 */
#ifndef TATTLE_REPORTER_REGISTRY_H
#define TATTLE_REPORTER_REGISTRY_H

#include <stddef.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

/** How many reporter types are registered. */
size_t tattle__reporter_count(void);

/** The registered reporter type number `index` (< tattle__reporter_count()). */
const struct tattle_reporter_type *tattle__reporter_at(size_t index);

/** Appends the name of every reporter there is to `out`, separated by
 * ", ", in registry order. */
void tattle__reporter_append_names(struct tattle__buffer *out);

#endif /* TATTLE_REPORTER_REGISTRY_H */
