/*
 * registry.h — every reporter type the registry knows, in order: the
 * built-in ones, then the plugins registered since. What lists the names
 * that exist (an unknown name is an error that shows them).
 */
#ifndef TATTLE_REPORTER_REGISTRY_H
#define TATTLE_REPORTER_REGISTRY_H

#include <stddef.h>

#include <tattle/reporter.h>

/** How many reporter types are registered. */
size_t tattle__reporter_count(void);

/** The registered reporter type number `index` (< tattle__reporter_count()). */
const struct tattle_reporter_type *tattle__reporter_at(size_t index);

#endif /* TATTLE_REPORTER_REGISTRY_H */
