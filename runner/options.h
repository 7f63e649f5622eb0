/*
 * options.h — the test binary's command line (and configuration file).
 *
 * tattle__options_parse() turns argv into struct tattle__options; a bad flag
 * or value yields a one-line message naming it, and the run exits 2 before
 * anything is run or written. Values from `tattle.yml` (runner/config.c)
 * are applied first; flags override them.
 */
#ifndef TATTLE_RUNNER_OPTIONS_H
#define TATTLE_RUNNER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

/* A test's timeout when neither it, the command line nor the configuration
 * sets one, and the longest any of them may set (a week; a longer one is
 * an error, and TATTLE_TIMEOUT_MULTIPLIER scales no timeout past it). */
#define TATTLE__TIMEOUT_MS_DEFAULT 60000
#define TATTLE__TIMEOUT_MS_MAX (7 * 24 * 3600 * 1000)

/* Tests run at a time unless --jobs or `jobs:` says, and the most. */
#define TATTLE__JOBS_DEFAULT 1
#define TATTLE__JOBS_MAX 1024

enum tattle__color_mode {
    TATTLE__COLOR_AUTO,
    TATTLE__COLOR_ALWAYS,
    TATTLE__COLOR_NEVER
};

struct tattle__string_list {
    char **items;
    size_t count;
};

void tattle__string_list_add(struct tattle__string_list *list,
                             const char *text);
void tattle__string_list_release(struct tattle__string_list *list);

struct tattle__reporter_request {
    char *name;
    char *destination; /* NULL: the reporter's default */
    char *named_at;    /* "FILE:LINE:COLUMN" of the tattle.yml entry that
                          asked for it; NULL when a flag or variable did */
};

struct tattle__options {
    struct tattle__string_list patterns; /* globs on suite/name */
    struct tattle__string_list ids;      /* --id: exact ids */
    struct tattle__string_list only, include, exclude;
    bool failed;
    bool sharded;
    unsigned shard_index, shard_total;
    unsigned jobs;
    long timeout_ms; /* 0: TATTLE__TIMEOUT_MS_DEFAULT */
    bool no_fork;
    uint64_t seed;
    bool seed_given;
    bool shuffle;
    unsigned repeat;
    unsigned max_failures; /* 0: no limit */
    unsigned retry;
    bool trace_all;
    long trace_cap, trace_budget, trace_level,
        trace_payload_bytes; /* -1: unset */
    bool trace_passed;
    bool trace_ipc_off; /* --trace-ipc off, trace: {ipc: false} */
    struct tattle__reporter_request *reporters;
    size_t reporter_count;
    struct tattle__string_list filter_out;
    bool failures_only, summary_only, first_failure, group_by_error, compact,
        quiet;
    enum tattle__color_mode color;
    bool list, list_json, help, version;
    bool verbose; /* --version --verbose measures call tracing */
    char *config_file;
    char *report_dir; /* --report-dir: a stream per run goes there; NULL */
    /* tags added by the configuration file: pairs of glob, tag word */
    struct tattle__string_list tag_rule_globs, tag_rule_words;
};

/** Sets every option to its default. */
void tattle__options_init(struct tattle__options *options);
void tattle__options_release(struct tattle__options *options);

/** Parses argv[1..argc) onto `options`. Returns 0, or -EINVAL with a
 * one-line message in `error`. */
int tattle__options_parse(struct tattle__options *options, int argc,
                          char **argv, struct tattle__buffer *error);

/** Adds a reporter request `name` writing to `destination`, replacing an
 * earlier request for the same reporter. `named_at` is the place in
 * tattle.yml that asked for it ("FILE:LINE:COLUMN"), NULL for a flag or
 * a variable: errors found later (a plugin that cannot load) name it. */
void tattle__options_add_reporter(struct tattle__options *options,
                                  const char *name, const char *destination,
                                  const char *named_at);

/** Appends the error for a reporter `name` that does not exist to `error`:
 * "no reporter named 'NAME' (known reporters: console, json, ...)". */
void tattle__options_describe_unknown_reporter(struct tattle__buffer *error,
                                               const char *name);

/** Writes the --help text. */
void tattle__options_print_help(FILE *stream, const char *program);
/** Writes the help's table of flags alone, one flag a line. */
void tattle__options_print_flags(FILE *stream);

#endif /* TATTLE_RUNNER_OPTIONS_H */
