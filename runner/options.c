/*
 * options.c — parsing the command line.
 *
 * One table lists every flag with its argument, its help line and the
 * function that applies it, so parsing, --help and error messages agree.
 * Numbers are parsed strictly: a value that is not entirely a number in
 * range is an error naming the flag and the value.
 */
#include "runner/options.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/tags.h"
#include "tracer/session.h"

/* A number's digits as a string literal, for the --help text. */
#define NUMBER_TEXT(number) NUMBER_TEXT_(number)
#define NUMBER_TEXT_(number) #number

void tattle__string_list_add(struct tattle__string_list *list, const char *text)
{
    list->items = tattle__realloc(list->items,
                                  (list->count + 1) * sizeof *list->items);
    list->items[list->count++] = tattle__strdup(text);
}

void tattle__string_list_release(struct tattle__string_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
    *list = (struct tattle__string_list){0};
}

void tattle__options_init(struct tattle__options *options)
{
    *options = (struct tattle__options){
        .jobs = TATTLE__JOBS_DEFAULT,
        .repeat = 1,
        .trace_cap = -1,
        .trace_budget = -1,
        .trace_level = -1,
        .trace_payload_bytes = -1,
        .color = TATTLE__COLOR_AUTO,
    };
}

void tattle__options_release(struct tattle__options *options)
{
    tattle__string_list_release(&options->patterns);
    tattle__string_list_release(&options->ids);
    tattle__string_list_release(&options->only);
    tattle__string_list_release(&options->include);
    tattle__string_list_release(&options->exclude);
    tattle__string_list_release(&options->filter_out);
    tattle__string_list_release(&options->tag_rule_globs);
    tattle__string_list_release(&options->tag_rule_words);
    for (size_t i = 0; i < options->reporter_count; i++) {
        free(options->reporters[i].name);
        free(options->reporters[i].destination);
    }
    free(options->reporters);
    free(options->config_file);
    *options = (struct tattle__options){0};
}

void tattle__options_add_reporter(struct tattle__options *options,
                                  const char *name, const char *destination)
{
    for (size_t i = 0; i < options->reporter_count; i++) {
        if (strcmp(options->reporters[i].name, name) == 0) {
            free(options->reporters[i].destination);
            options->reporters[i].destination = tattle__strdup(destination);
            return;
        }
    }
    options->reporters = tattle__realloc(
        options->reporters,
        (options->reporter_count + 1) * sizeof *options->reporters);
    options->reporters[options->reporter_count++] =
        (struct tattle__reporter_request){tattle__strdup(name),
                                          tattle__strdup(destination)};
}

/* ---- value parsers ---- */

static int parse_unsigned(const char *flag, const char *text,
                          unsigned long long min, unsigned long long max,
                          unsigned long long *out, struct tattle__buffer *error)
{
    char *end;
    errno = 0;
    if (*text == '-' || *text == '+' || *text == '\0' || *text == ' ')
        goto bad;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max)
        goto bad;
    *out = value;
    return 0;
bad:
    tattle__buffer_printf(error, "%s: '%s' is not a whole number from %llu to %llu",
                          flag, text, min, max);
    return -EINVAL;
}

#define APPLY_UNSIGNED(field, min, max)                                        \
    do {                                                                       \
        unsigned long long parsed;                                             \
        if (parse_unsigned(flag, value, min, max, &parsed, error) != 0)        \
            return -EINVAL;                                                    \
        options->field = parsed;                                               \
    } while (0)

typedef int (*apply_fn)(struct tattle__options *options, const char *flag,
                        const char *value, struct tattle__buffer *error);

static int check_tag_selector(const char *flag, const char *value,
                              struct tattle__buffer *error)
{
    if (tattle__tag_is_valid(value))
        return 0;
    tattle__buffer_printf(error, "%s: '%s' is not a tag (TAG or TAG:VALUE)",
                          flag, value);
    return -EINVAL;
}

static int apply_only(struct tattle__options *o, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (check_tag_selector(flag, value, error) != 0)
        return -EINVAL;
    tattle__string_list_add(&o->only, value);
    return 0;
}

static int apply_include(struct tattle__options *o, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (check_tag_selector(flag, value, error) != 0)
        return -EINVAL;
    tattle__string_list_add(&o->include, value);
    return 0;
}

static int apply_exclude(struct tattle__options *o, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (check_tag_selector(flag, value, error) != 0)
        return -EINVAL;
    tattle__string_list_add(&o->exclude, value);
    return 0;
}

static int apply_failed(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    (void)flag, (void)value, (void)error;
    options->failed = true;
    return 0;
}

static int apply_id(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (!*value) {
        tattle__buffer_printf(error, "%s: the id is empty", flag);
        return -EINVAL;
    }
    tattle__string_list_add(&options->ids, value);
    return 0;
}

static int apply_shard(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    unsigned index, total;
    char extra;
    if (sscanf(value, "%u/%u%c", &index, &total, &extra) != 2 || total == 0 ||
        index >= total || value[0] == '-' || value[0] == '+') {
        tattle__buffer_printf(error,
                              "%s: '%s' is not I/N with 0 <= I < N (e.g. 0/4)",
                              flag, value);
        return -EINVAL;
    }
    options->sharded = true;
    options->shard_index = index;
    options->shard_total = total;
    return 0;
}

static int apply_jobs(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(jobs, 1, TATTLE__JOBS_MAX);
    return 0;
}

static int apply_timeout(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(timeout_ms, 1, TATTLE__TIMEOUT_MS_MAX);
    return 0;
}

static int apply_no_fork(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    (void)flag, (void)value, (void)error;
    options->no_fork = true;
    return 0;
}

static int apply_seed(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(seed, 0, UINT64_MAX);
    options->seed_given = true;
    return 0;
}

static int apply_shuffle(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    (void)flag, (void)value, (void)error;
    options->shuffle = true;
    return 0;
}

static int apply_repeat(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(repeat, 1, 1000000);
    return 0;
}

static int apply_max_failures(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(max_failures, 1, UINT_MAX);
    return 0;
}

static int apply_retry(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(retry, 0, 1000);
    return 0;
}

static int apply_trace_all(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    (void)flag, (void)value, (void)error;
    options->trace_all = true;
    return 0;
}

static int apply_trace_cap(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(trace_cap, 1, TATTLE__TRACE_CAP_MAX);
    return 0;
}

static int apply_trace_budget(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(trace_budget, 1, TATTLE__TRACE_BUDGET_MAX);
    return 0;
}

static int apply_trace_level(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    APPLY_UNSIGNED(trace_level, 0, TATTLE__TRACE_LEVEL_MAX);
    return 0;
}

static int apply_trace_passed(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    (void)flag, (void)value, (void)error;
    options->trace_passed = true;
    return 0;
}

static int check_destination(const char *flag, const char *value,
                             bool stdout_allowed, struct tattle__buffer *error)
{
    if (!*value) {
        tattle__buffer_printf(error, "%s: the file name is empty", flag);
        return -EINVAL;
    }
    if (!stdout_allowed && strcmp(value, "-") == 0) {
        tattle__buffer_printf(error, "%s: cannot write to standard output", flag);
        return -EINVAL;
    }
    return 0;
}

static int apply_json(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (check_destination(flag, value, true, error) != 0)
        return -EINVAL;
    tattle__options_add_reporter(options, "json", value);
    return 0;
}

static int apply_jsonl(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (check_destination(flag, value, true, error) != 0)
        return -EINVAL;
    tattle__options_add_reporter(options, "jsonl", value);
    return 0;
}

static int apply_reporter(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    const char *equals = strchr(value, '=');
    size_t name_length = equals ? (size_t)(equals - value) : strlen(value);
    char name[64];
    if (name_length == 0 || name_length >= sizeof name) {
        tattle__buffer_printf(error, "%s: '%s' is not NAME or NAME=FILE", flag, value);
        return -EINVAL;
    }
    memcpy(name, value, name_length);
    name[name_length] = '\0';
    if (!tattle_reporter_find(name)) {
        tattle__buffer_printf(error, "%s: no reporter named '%s'", flag, name);
        return -EINVAL;
    }
    if (equals && check_destination(flag, equals + 1, true, error) != 0)
        return -EINVAL;
    tattle__options_add_reporter(options, name, equals ? equals + 1 : NULL);
    return 0;
}

#define FLAG_SETTER(function, field)                                           \
    static int function(struct tattle__options *options, const char *flag,     \
                        const char *value, struct tattle__buffer *error)       \
    {                                                                          \
        (void)flag, (void)value, (void)error;                                  \
        options->field = true;                                                 \
        return 0;                                                              \
    }
FLAG_SETTER(apply_failures_only, failures_only)
FLAG_SETTER(apply_summary_only, summary_only)
FLAG_SETTER(apply_first_failure, first_failure)
FLAG_SETTER(apply_group_by_error, group_by_error)
FLAG_SETTER(apply_compact, compact)
FLAG_SETTER(apply_quiet, quiet)
FLAG_SETTER(apply_list, list)
FLAG_SETTER(apply_help, help)
FLAG_SETTER(apply_version, version)

static int apply_filter_out(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (!*value) {
        tattle__buffer_printf(error, "%s: the text is empty", flag);
        return -EINVAL;
    }
    tattle__string_list_add(&options->filter_out, value);
    return 0;
}

static int apply_color(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (strcmp(value, "auto") == 0)
        options->color = TATTLE__COLOR_AUTO;
    else if (strcmp(value, "always") == 0)
        options->color = TATTLE__COLOR_ALWAYS;
    else if (strcmp(value, "never") == 0)
        options->color = TATTLE__COLOR_NEVER;
    else {
        tattle__buffer_printf(error, "%s: '%s' is not auto, always or never", flag, value);
        return -EINVAL;
    }
    return 0;
}

static int apply_config(struct tattle__options *options, const char *flag, const char *value, struct tattle__buffer *error)
{
    if (check_destination(flag, value, false, error) != 0)
        return -EINVAL;
    free(options->config_file);
    options->config_file = tattle__strdup(value);
    return 0;
}

struct flag_spec {
    const char *long_name;
    char short_name;
    const char *argument;       /* NULL: takes no value */
    apply_fn apply;
    const char *help;
};

static const struct flag_spec flags[] = {
    {"only", 0, "TAG[:VAL]", apply_only, "run only tests with this tag"},
    {"include", 0, "TAG[:VAL]", apply_include, "run tests with this tag even if excluded"},
    {"exclude", 0, "TAG[:VAL]", apply_exclude, "do not run tests with this tag"},
    {"failed", 0, NULL, apply_failed, "rerun the tests that failed in the previous run"},
    {"shard", 0, "I/N", apply_shard, "run the I-th of N shards (0-based)"},
    {"id", 0, "ID", apply_id, "run the test with exactly this id (repeatable)"},
    {"jobs", 'j', "N", apply_jobs, "run N tests at a time (default " NUMBER_TEXT(TATTLE__JOBS_DEFAULT) ")"},
    {"timeout", 0, "MS", apply_timeout, "timeout of tests without their own .timeout_ms (default " NUMBER_TEXT(TATTLE__TIMEOUT_MS_DEFAULT) ")"},
    {"no-fork", 0, NULL, apply_no_fork, "run tests in this process (for debuggers)"},
    {"seed", 0, "N", apply_seed, "seed for --shuffle (recorded in reports)"},
    {"shuffle", 0, NULL, apply_shuffle, "run tests in a random order"},
    {"repeat", 0, "N", apply_repeat, "run each test up to N times, stopping at its first failure"},
    {"max-failures", 0, "N", apply_max_failures, "start no test after N failures"},
    {"retry", 0, "N", apply_retry, "rerun a failed test up to N times (passing then: flaky)"},
    {"trace-all", 0, NULL, apply_trace_all, "trace every test's messages"},
    {"trace-cap", 0, "N", apply_trace_cap, "events kept per traced test (default " NUMBER_TEXT(TATTLE__TRACE_CAP_DEFAULT) ")"},
    {"trace-budget", 0, "N", apply_trace_budget, "events recorded at most per test (default " NUMBER_TEXT(TATTLE__TRACE_BUDGET_DEFAULT) ")"},
    {"trace-level", 0, "N", apply_trace_level, "keep events with a level below N (default " NUMBER_TEXT(TATTLE__TRACE_LEVEL_DEFAULT) ")"},
    {"trace-passed", 0, NULL, apply_trace_passed, "keep traces of passed tests too"},
    {"json", 0, "FILE|-", apply_json, "write the JSON report"},
    {"jsonl", 0, "FILE|-", apply_jsonl, "write the JSON Lines event stream"},
    {"reporter", 0, "NAME[=FILE]", apply_reporter, "add a reporter by name"},
    {"failures-only", 0, NULL, apply_failures_only, "reports list failed tests only"},
    {"summary-only", 0, NULL, apply_summary_only, "reports carry the summary only"},
    {"first-failure", 0, NULL, apply_first_failure, "reports list the first failed test only"},
    {"group-by-error", 0, NULL, apply_group_by_error, "group failures by their first message line"},
    {"filter-out", 0, "TEXT", apply_filter_out, "mark failures whose message contains TEXT as filtered"},
    {"compact", 0, NULL, apply_compact, "one short line per test"},
    {"quiet", 'q', NULL, apply_quiet, "console shows failures and the summary only"},
    {"color", 0, "auto|always|never", apply_color, "colour the console (NO_COLOR is honoured)"},
    {"list", 0, NULL, apply_list, "list the selected tests instead of running them"},
    {"config", 0, "FILE", apply_config, "read options from FILE (default ./tattle.yml)"},
    {"help", 'h', NULL, apply_help, "show this help"},
    {"version", 0, NULL, apply_version, "show the version"},
};

void tattle__options_print_help(FILE *stream, const char *program)
{
    fprintf(stream, "usage: %s [options] [PATTERN...]\n"
                    "PATTERN is a glob on suite/name; --id ID names one test exactly\n"
                    "(--id=ID when ID starts with --). A test is selected when it matches\n"
                    "any PATTERN or --id; without either, every test is.\n\n", program);
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        char left[64];
        if (flags[i].short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", flags[i].short_name,
                     flags[i].long_name, flags[i].argument ? " " : "",
                     flags[i].argument ? flags[i].argument : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", flags[i].long_name,
                     flags[i].argument ? " " : "",
                     flags[i].argument ? flags[i].argument : "");
        fprintf(stream, "  %-32s %s\n", left, flags[i].help);
    }
    fprintf(stream, "\nWith --list, --json lists as JSON. Exit status: 0 passed, "
                    "1 a test failed, 2 usage error, 3 internal error or interrupted.\n");
}

static const struct flag_spec *find_long(const char *name, size_t length)
{
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        if (strlen(flags[i].long_name) == length &&
            strncmp(flags[i].long_name, name, length) == 0)
            return &flags[i];
    return NULL;
}

static const struct flag_spec *find_short(char name)
{
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        if (flags[i].short_name == name)
            return &flags[i];
    return NULL;
}

/* `--list` anywhere on the line (before `--`) makes a bare `--json` the
 * listing switch of `--list [--json]` rather than the report flag. */
static bool listing_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return false;
        if (strcmp(argv[i], "--list") == 0)
            return true;
    }
    return false;
}

int tattle__options_parse(struct tattle__options *options, int argc,
                          char **argv, struct tattle__buffer *error)
{
    bool only_patterns = false;
    bool listing = listing_requested(argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_patterns || arg[0] != '-' || strcmp(arg, "-") == 0) {
            tattle__string_list_add(&options->patterns, arg);
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_patterns = true;
            continue;
        }
        const struct flag_spec *spec;
        const char *inline_value = NULL;
        char flag_name[80];
        if (arg[1] == '-') {
            const char *name = arg + 2;
            const char *equals = strchr(name, '=');
            size_t length = equals ? (size_t)(equals - name) : strlen(name);
            spec = find_long(name, length);
            inline_value = equals ? equals + 1 : NULL;
            snprintf(flag_name, sizeof flag_name, "--%.*s", (int)length, name);
        } else {
            spec = find_short(arg[1]);
            inline_value = arg[2] ? arg + 2 : NULL;
            snprintf(flag_name, sizeof flag_name, "-%c", arg[1]);
        }
        if (!spec) {
            tattle__buffer_printf(error, "unknown option '%s' (see --help)", arg);
            return -EINVAL;
        }
        if (listing && spec->apply == apply_json &&
            (!inline_value || strcmp(inline_value, "-") == 0)) {
            options->list_json = true; /* the listing goes to stdout anyway */
            if (!inline_value && i + 1 < argc && strcmp(argv[i + 1], "-") == 0)
                i++;
            continue;
        }
        const char *value = NULL;
        if (spec->argument) {
            if (inline_value) {
                value = inline_value;
            } else if (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-')) {
                /* The next word is the value, unless it is another flag. */
                value = argv[++i];
            } else {
                tattle__buffer_printf(error, "%s needs a value (%s)", flag_name,
                                      spec->argument);
                return -EINVAL;
            }
        } else if (inline_value) {
            tattle__buffer_printf(error, "%s takes no value", flag_name);
            return -EINVAL;
        }
        if (spec->apply(options, flag_name, value, error) != 0)
            return -EINVAL;
    }
    return 0;
}
