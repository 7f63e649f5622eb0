/*
 * builtin.h — the reporters that ship with tattle.
 *
 * Each reporter module defines one tattle_reporter_type; registry.c lists
 * them so `--reporter NAME` finds them without constructors (which a static
 * library could drop).
 */
#ifndef TATTLE_REPORTER_BUILTIN_H
#define TATTLE_REPORTER_BUILTIN_H

#include <tattle/reporter.h>

#include "reporter/chrome_trace.h"
#include "reporter/compact.h"
#include "reporter/ctrf.h"
#include "reporter/flamegraph.h"
#include "reporter/github.h"
#include "reporter/html.h"
#include "reporter/json.h"
#include "reporter/jsonl.h"
#include "reporter/junit.h"
#include "reporter/tap.h"

extern const struct tattle_reporter_type tattle__reporter_console;

#endif /* TATTLE_REPORTER_BUILTIN_H */
