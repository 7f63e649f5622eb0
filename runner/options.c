/*
 * options.c — parsing the command line.
 *
 * One table lists every flag with its argument, its help line, its kind
 * and the option it sets, so parsing, --help and error messages agree;
 * each kind (a switch, a number in a range, a tag selector, a report
 * file, ...) has one applier. Numbers are parsed strictly: a value that is
 * not entirely a number in range is an error naming the flag and the
 * value.
 */
#include "runner/options.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reporter/registry.h"
#include "runner/plugin.h"
#include "runner/tags.h"
#include "tracer/session.h"

/* A number's digits as a string literal, for the --help text. */
#define NUMBER_TEXT(number) NUMBER_TEXT_(number)
#define NUMBER_TEXT_(number) #number

void tattle__string_list_add(struct tattle__string_list *list, const char *text)
{
    list->items =
        tattle__realloc(list->items, (list->count + 1) * sizeof *list->items);
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
        free(options->reporters[i].named_at);
    }
    free(options->reporters);
    free(options->config_file);
    free(options->report_dir);
    *options = (struct tattle__options){0};
}

void tattle__options_add_reporter(struct tattle__options *options,
                                  const char *name, const char *destination,
                                  const char *named_at)
{
    for (size_t i = 0; i < options->reporter_count; i++) {
        if (strcmp(options->reporters[i].name, name) == 0) {
            free(options->reporters[i].destination);
            free(options->reporters[i].named_at);
            options->reporters[i].destination = tattle__strdup(destination);
            options->reporters[i].named_at = tattle__strdup(named_at);
            return;
        }
    }
    options->reporters =
        tattle__realloc(options->reporters, (options->reporter_count + 1) *
                                                sizeof *options->reporters);
    options->reporters[options->reporter_count++] =
        (struct tattle__reporter_request){tattle__strdup(name),
                                          tattle__strdup(destination),
                                          tattle__strdup(named_at)};
}

void tattle__options_describe_unknown_reporter(struct tattle__buffer *error,
                                               const char *name)
{
    tattle__buffer_printf(error,
                          "no reporter named '%s' (known reporters: ", name);
    tattle__reporter_append_names(error);
    tattle__buffer_append_string(error, ")");
}

/* ---- the flags ---- */

/* What a flag does with its value. Each kind has one applier, and a row of
 * the table below says which option field it sets, so adding a flag is
 * adding a row. */
enum flag_kind {
    FLAG_SWITCH,       /* takes no value; sets a bool */
    FLAG_NUMBER,       /* a whole number from min to max */
    FLAG_TEXT_LIST,    /* appends a non-empty text to a string list */
    FLAG_TAG_SELECTOR, /* appends TAG or TAG:VALUE to a string list */
    FLAG_SHARD,        /* I/N: this run's shard */
    FLAG_REPORT,       /* FILE or - for the reporter named by `noun` */
    FLAG_REPORTER,     /* NAME[=FILE]: any reporter */
    FLAG_COLOR,        /* auto, always or never */
    FLAG_FILE_NAME,    /* a file to read (not -), replacing earlier ones */
    FLAG_OFF,          /* on or off; sets a bool when off */
};

/* The C type of a FLAG_NUMBER field. */
enum number_type { NUMBER_UNSIGNED, NUMBER_LONG, NUMBER_UINT64 };

struct flag_spec {
    const char *long_name;
    char short_name;
    const char *argument; /* NULL: takes no value */
    const char *help;
    enum flag_kind kind;
    size_t field; /* the offset of the option it sets */
    enum number_type number_type;
    unsigned long long min, max; /* FLAG_NUMBER */
    const char *noun; /* FLAG_TEXT_LIST: what the text is; FLAG_REPORT: the
                         reporter */
    bool marks;       /* the flag also sets the bool at `mark` */
    size_t mark;
};

/* The offset of option `name`, which must have type `type` (anything else
 * fails to compile: the row's applier writes that type). */
/* clang-format off */
#define OPTION(name, type)                                                     \
    (offsetof(struct tattle__options, name) +                                  \
     0 * sizeof(char[_Generic(((struct tattle__options *)0)->name,             \
                              type: 1, default: -1)]))

/* The rows' kinds, each with the option it sets. */
#define SWITCH(name) .kind = FLAG_SWITCH, .field = OPTION(name, bool)
#define NUMBER(name, low, high)                                                \
    .kind = FLAG_NUMBER, .field = offsetof(struct tattle__options, name),      \
    .number_type = _Generic(((struct tattle__options *)0)->name,               \
                            unsigned: NUMBER_UNSIGNED,                         \
                            long: NUMBER_LONG,                                 \
                            uint64_t: NUMBER_UINT64),                          \
    .min = (low), .max = (high)
#define TEXT_LIST(name, what)                                                  \
    .kind = FLAG_TEXT_LIST,                                                    \
    .field = OPTION(name, struct tattle__string_list), .noun = (what)
#define TAG_SELECTOR(name)                                                     \
    .kind = FLAG_TAG_SELECTOR,                                                 \
    .field = OPTION(name, struct tattle__string_list)
#define SHARD .kind = FLAG_SHARD
#define REPORT(reporter) .kind = FLAG_REPORT, .noun = (reporter)
#define REPORTER .kind = FLAG_REPORTER
#define COLOR(name)                                                            \
    .kind = FLAG_COLOR, .field = OPTION(name, enum tattle__color_mode)
#define FILE_NAME(name) .kind = FLAG_FILE_NAME, .field = OPTION(name, char *)
#define DIRECTORY(name) .kind = FLAG_FILE_NAME, .field = OPTION(name, char *)
#define OFF_SWITCH(name) .kind = FLAG_OFF, .field = OPTION(name, bool)
#define AND_MARKS(name) .marks = true, .mark = OPTION(name, bool)
/* clang-format on */

static const struct flag_spec flags[] = {
    {"only", 0, "TAG[:VAL]", "run only tests with this tag",
     TAG_SELECTOR(only)},
    {"include", 0, "TAG[:VAL]", "run tests with this tag even if excluded",
     TAG_SELECTOR(include)},
    {"exclude", 0, "TAG[:VAL]", "do not run tests with this tag",
     TAG_SELECTOR(exclude)},
    {"failed", 0, NULL, "rerun the tests that failed in the previous run",
     SWITCH(failed)},
    {"shard", 0, "I/N", "run the I-th of N shards (0-based)", SHARD},
    {"id", 0, "ID", "run the test with exactly this id (repeatable)",
     TEXT_LIST(ids, "id")},
    {"jobs", 'j', "N",
     "run N tests at a time (default " NUMBER_TEXT(TATTLE__JOBS_DEFAULT) ")",
     NUMBER(jobs, 1, TATTLE__JOBS_MAX)},
    {"timeout", 0, "MS",
     "timeout of tests without their own .timeout_ms (default " NUMBER_TEXT(
         TATTLE__TIMEOUT_MS_DEFAULT) ")",
     NUMBER(timeout_ms, 1, TATTLE__TIMEOUT_MS_MAX)},
    {"no-fork", 0, NULL, "run tests in this process (for debuggers)",
     SWITCH(no_fork)},
    {"seed", 0, "N", "seed for --shuffle (recorded in reports)",
     NUMBER(seed, 0, UINT64_MAX), AND_MARKS(seed_given)},
    {"shuffle", 0, NULL, "run tests in a random order", SWITCH(shuffle)},
    {"repeat", 0, "N",
     "run each test up to N times, stopping at its first failure",
     NUMBER(repeat, 1, 1000000)},
    {"max-failures", 0, "N", "start no test after N failures",
     NUMBER(max_failures, 1, UINT_MAX)},
    {"retry", 0, "N", "rerun a failed test up to N times (passing then: flaky)",
     NUMBER(retry, 0, 1000)},
    {"trace-all", 0, NULL, "trace every test's messages", SWITCH(trace_all)},
    {"trace-cap", 0, "N",
     "events kept per traced test (default " NUMBER_TEXT(
         TATTLE__TRACE_CAP_DEFAULT) ")",
     NUMBER(trace_cap, 1, TATTLE__TRACE_CAP_MAX)},
    {"trace-budget", 0, "N",
     "events recorded at most per test (default " NUMBER_TEXT(
         TATTLE__TRACE_BUDGET_DEFAULT) ")",
     NUMBER(trace_budget, 1, TATTLE__TRACE_BUDGET_MAX)},
    {"trace-level", 0, "N",
     "keep events with a level below N (default " NUMBER_TEXT(
         TATTLE__TRACE_LEVEL_DEFAULT) ")",
     NUMBER(trace_level, 0, TATTLE__TRACE_LEVEL_MAX)},
    {"trace-passed", 0, NULL, "keep traces of passed tests too",
     SWITCH(trace_passed)},
    {"trace-ipc", 0, "on|off",
     "capture messages through pipes, sockets, eventfds and POSIX queues in "
     "traced tests (default on)",
     OFF_SWITCH(trace_ipc_off)},
    {"json", 0, "FILE|-", "write the JSON report", REPORT("json")},
    {"jsonl", 0, "FILE|-", "write the JSON Lines event stream",
     REPORT("jsonl")},
    {"tap", 0, "FILE|-", "write TAP version 14, a test point as each test ends",
     REPORT("tap")},
    {"ctrf", 0, "FILE", "write the CTRF report (Common Test Report Format)",
     REPORT("ctrf")},
    {"junit", 0, "FILE", "write the JUnit XML report", REPORT("junit")},
    {"html", 0, "FILE|-",
     "write the HTML report: one self-contained page with the traces drawn",
     REPORT("html")},
    {"flamegraph", 0, "FILE|-",
     "write the calls of trace_calls tests as collapsed stacks (flame graph)",
     REPORT("flamegraph")},
    {"chrome-trace", 0, "FILE|-",
     "write the traces as a timeline in the Trace Event Format (Perfetto)",
     REPORT("chrome-trace")},
    {"reporter", 0, "NAME[=FILE]",
     "add a reporter by name, or a plugin by path (PATH.so[=FILE])", REPORTER},
    {"report-dir", 0, "DIR",
     "also write this run's stream to a new file in DIR (for tattle merge)",
     DIRECTORY(report_dir)},
    {"failures-only", 0, NULL, "reports list failed tests only",
     SWITCH(failures_only)},
    {"summary-only", 0, NULL, "reports carry the summary only",
     SWITCH(summary_only)},
    {"first-failure", 0, NULL, "reports list the first failed test only",
     SWITCH(first_failure)},
    {"group-by-error", 0, NULL, "group failures by their first message line",
     SWITCH(group_by_error)},
    {"filter-out", 0, "TEXT",
     "mark failures whose message contains TEXT as filtered",
     TEXT_LIST(filter_out, "text")},
    {"compact", 0, NULL, "one short line per test", SWITCH(compact)},
    {"quiet", 'q', NULL, "console shows failures and the summary only",
     SWITCH(quiet)},
    {"color", 0, "auto|always|never",
     "colour the console (NO_COLOR is honoured)", COLOR(color)},
    {"list", 0, NULL, "list the selected tests instead of running them",
     SWITCH(list)},
    {"config", 0, "FILE", "read options from FILE (default ./tattle.yml)",
     FILE_NAME(config_file)},
    {"help", 'h', NULL, "show this help", SWITCH(help)},
    {"version", 0, NULL, "show the version", SWITCH(version)},
    {"verbose", 0, NULL,
     "with --version: also measure what call tracing costs here",
     SWITCH(verbose)},
};

/* ---- the appliers, one per kind ---- */

typedef int (*flag_applier)(struct tattle__options *options,
                            const struct flag_spec *spec, const char *flag,
                            const char *value, struct tattle__buffer *error);

static void *option_field(struct tattle__options *options,
                          const struct flag_spec *spec)
{
    return (char *)options + spec->field;
}

static int apply_switch(struct tattle__options *options,
                        const struct flag_spec *spec, const char *flag,
                        const char *value, struct tattle__buffer *error)
{
    (void)flag, (void)value, (void)error;
    *(bool *)option_field(options, spec) = true;
    return 0;
}

/* Numbers are parsed strictly: a value that is not entirely a whole
 * number in range is an error naming the flag and the value. */
static int apply_number(struct tattle__options *options,
                        const struct flag_spec *spec, const char *flag,
                        const char *value, struct tattle__buffer *error)
{
    unsigned long long number = 0;
    bool valid =
        *value != '-' && *value != '+' && *value != '\0' && *value != ' ';
    if (valid) {
        char *end;
        errno = 0;
        number = strtoull(value, &end, 10);
        valid = errno == 0 && *end == '\0' && number >= spec->min &&
                number <= spec->max;
    }
    if (!valid) {
        tattle__buffer_printf(
            error, "%s: '%s' is not a whole number from %llu to %llu", flag,
            value, spec->min, spec->max);
        return -EINVAL;
    }
    void *field = option_field(options, spec);
    switch (spec->number_type) {
    case NUMBER_UNSIGNED:
        assert(spec->max <= UINT_MAX);
        *(unsigned *)field = (unsigned)number;
        break;
    case NUMBER_LONG:
        assert(spec->max <= LONG_MAX);
        *(long *)field = (long)number;
        break;
    case NUMBER_UINT64:
        *(uint64_t *)field = number;
        break;
    }
    return 0;
}

static int apply_text_list(struct tattle__options *options,
                           const struct flag_spec *spec, const char *flag,
                           const char *value, struct tattle__buffer *error)
{
    if (!*value) {
        tattle__buffer_printf(error, "%s: the %s is empty", flag, spec->noun);
        return -EINVAL;
    }
    tattle__string_list_add(option_field(options, spec), value);
    return 0;
}

static int apply_tag_selector(struct tattle__options *options,
                              const struct flag_spec *spec, const char *flag,
                              const char *value, struct tattle__buffer *error)
{
    if (!tattle__tag_is_valid(value)) {
        tattle__buffer_printf(error, "%s: '%s' is not a tag (TAG or TAG:VALUE)",
                              flag, value);
        return -EINVAL;
    }
    tattle__string_list_add(option_field(options, spec), value);
    return 0;
}

static int apply_shard(struct tattle__options *options,
                       const struct flag_spec *spec, const char *flag,
                       const char *value, struct tattle__buffer *error)
{
    (void)spec;
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

/* A file name: not empty, and standard output only where `-` is allowed. */
static int check_destination(const char *flag, const char *value,
                             bool stdout_allowed, struct tattle__buffer *error)
{
    if (!*value) {
        tattle__buffer_printf(error, "%s: the file name is empty", flag);
        return -EINVAL;
    }
    if (!stdout_allowed && strcmp(value, "-") == 0) {
        tattle__buffer_printf(error, "%s: cannot write to standard output",
                              flag);
        return -EINVAL;
    }
    return 0;
}

static int apply_report(struct tattle__options *options,
                        const struct flag_spec *spec, const char *flag,
                        const char *value, struct tattle__buffer *error)
{
    if (check_destination(flag, value, true, error) != 0)
        return -EINVAL;
    tattle__options_add_reporter(options, spec->noun, value, NULL);
    return 0;
}

static int apply_reporter(struct tattle__options *options,
                          const struct flag_spec *spec, const char *flag,
                          const char *value, struct tattle__buffer *error)
{
    (void)spec;
    /* A plugin's path may hold '=' in a directory name, not in its file. */
    const char *last_slash = strrchr(value, '/');
    const char *equals = strchr(last_slash ? last_slash : value, '=');
    size_t name_length = equals ? (size_t)(equals - value) : strlen(value);
    char *plugin_path = strndup(value, name_length);
    if (plugin_path && tattle__plugin_is_path(plugin_path)) {
        /* Loaded once the test processes' fork server runs (plugin.h). */
        int rc = equals ? check_destination(flag, equals + 1, true, error) : 0;
        if (rc == 0)
            tattle__options_add_reporter(options, plugin_path,
                                         equals ? equals + 1 : NULL, NULL);
        free(plugin_path);
        return rc;
    }
    free(plugin_path);
    char name[64];
    if (name_length == 0 || name_length >= sizeof name) {
        tattle__buffer_printf(error, "%s: '%s' is not NAME or NAME=FILE", flag,
                              value);
        return -EINVAL;
    }
    memcpy(name, value, name_length);
    name[name_length] = '\0';
    if (!tattle_reporter_find(name)) {
        tattle__buffer_printf(error, "%s: ", flag);
        tattle__options_describe_unknown_reporter(error, name);
        return -EINVAL;
    }
    if (equals && check_destination(flag, equals + 1, true, error) != 0)
        return -EINVAL;
    tattle__options_add_reporter(options, name, equals ? equals + 1 : NULL,
                                 NULL);
    return 0;
}

static int apply_color(struct tattle__options *options,
                       const struct flag_spec *spec, const char *flag,
                       const char *value, struct tattle__buffer *error)
{
    static const struct {
        const char *name;
        enum tattle__color_mode mode;
    } modes[] = {{"auto", TATTLE__COLOR_AUTO},
                 {"always", TATTLE__COLOR_ALWAYS},
                 {"never", TATTLE__COLOR_NEVER}};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        if (strcmp(value, modes[i].name) == 0) {
            *(enum tattle__color_mode *)option_field(options, spec) =
                modes[i].mode;
            return 0;
        }
    }
    tattle__buffer_printf(error, "%s: '%s' is not auto, always or never", flag,
                          value);
    return -EINVAL;
}

static int apply_file_name(struct tattle__options *options,
                           const struct flag_spec *spec, const char *flag,
                           const char *value, struct tattle__buffer *error)
{
    if (check_destination(flag, value, false, error) != 0)
        return -EINVAL;
    char **field = option_field(options, spec);
    free(*field);
    *field = tattle__strdup(value);
    return 0;
}

static int apply_off(struct tattle__options *options,
                     const struct flag_spec *spec, const char *flag,
                     const char *value, struct tattle__buffer *error)
{
    if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
        tattle__buffer_printf(error, "%s: '%s' is not on or off", flag, value);
        return -EINVAL;
    }
    *(bool *)option_field(options, spec) = strcmp(value, "off") == 0;
    return 0;
}

static const flag_applier appliers[] = {
    [FLAG_SWITCH] = apply_switch,
    [FLAG_NUMBER] = apply_number,
    [FLAG_TEXT_LIST] = apply_text_list,
    [FLAG_TAG_SELECTOR] = apply_tag_selector,
    [FLAG_SHARD] = apply_shard,
    [FLAG_REPORT] = apply_report,
    [FLAG_REPORTER] = apply_reporter,
    [FLAG_COLOR] = apply_color,
    [FLAG_FILE_NAME] = apply_file_name,
    [FLAG_OFF] = apply_off,
};

static int apply_flag(struct tattle__options *options,
                      const struct flag_spec *spec, const char *flag,
                      const char *value, struct tattle__buffer *error)
{
    int rc = appliers[spec->kind](options, spec, flag, value, error);
    if (rc == 0 && spec->marks)
        *(bool *)((char *)options + spec->mark) = true;
    return rc;
}

/* ---- parsing ---- */

void tattle__options_print_help(FILE *stream, const char *program)
{
    fprintf(
        stream,
        "usage: %s [options] [PATTERN...]\n"
        "PATTERN is a glob on suite/name; --id ID names one test exactly\n"
        "(--id=ID when ID starts with --). A test is selected when it matches\n"
        "any PATTERN or --id; without either, every test is.\n\n",
        program);
    tattle__options_print_flags(stream);
    fprintf(
        stream,
        "\nWith --list, --json lists as JSON. Exit status: 0 passed, "
        "1 a test failed, 2 usage error, 3 internal error or interrupted.\n");
}

void tattle__options_print_flags(FILE *stream)
{
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
            tattle__buffer_printf(error, "unknown option '%s' (see --help)",
                                  arg);
            return -EINVAL;
        }
        if (listing && strcmp(spec->long_name, "json") == 0 &&
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
            } else if (i + 1 < argc &&
                       !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-')) {
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
        if (apply_flag(options, spec, flag_name, value, error) != 0)
            return -EINVAL;
    }
    return 0;
}
