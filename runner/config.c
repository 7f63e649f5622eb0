/*
 * config.c — `tattle.yml` through libyaml's document API.
 *
 * The document is loaded whole (it is small), then walked key by key with a
 * table per mapping; every error carries the node's start mark (libyaml
 * counts lines and columns from 0; messages count from 1). libyaml keeps a
 * key given twice in a mapping, so that is checked here: otherwise the
 * last one would silently win. A report key must name a reporter of this
 * binary (built in or a plugin), checked here so the error has a location
 * and lists the reporters there are. A second
 * document in the file is an error too (libyaml would leave it unread).
 *
 * libyaml takes time quadratic in the nesting depth of flow collections
 * (200 KB of '[' cost about a minute before its error), so the file is
 * refused above CONFIG_MAX_BYTES before it is read, then a first pass over
 * libyaml's events stops at the first collection nested deeper than
 * CONFIG_MAX_DEPTH, before the document is built. Both limits are far
 * above any real configuration and named in their errors.
 */
#include "runner/config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "runner/plugin.h"
#include "runner/tags.h"
#include "tracer/session.h"
#include <tattle/reporter.h>

enum {
    CONFIG_MAX_BYTES = 1024 * 1024,
    CONFIG_MAX_DEPTH = 64,
};

struct config_reader {
    yaml_document_t document;
    const char *path;
    struct tattle__options *options;
    struct tattle__buffer *error;
    const yaml_node_t *key; /* the key being read, for errors about it */
};

static int fail_at(struct config_reader *reader, const yaml_node_t *node,
                   const char *format, ...) TATTLE__PRINTF(3, 4);

/* "FILE:LINE:COLUMN" of `node`, appended to `out`. */
static void append_place(struct tattle__buffer *out,
                         const struct config_reader *reader,
                         const yaml_node_t *node)
{
    tattle__buffer_printf(out, "%s:%zu:%zu", reader->path,
                          node->start_mark.line + 1,
                          node->start_mark.column + 1);
}

static int fail_at(struct config_reader *reader, const yaml_node_t *node,
                   const char *format, ...)
{
    append_place(reader->error, reader, node);
    tattle__buffer_append_string(reader->error, ": ");
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(reader->error, format, args);
    va_end(args);
    return -EINVAL;
}

/* Asks for reporter `name` (built in, or a plugin's path) writing to
 * `destination`, remembering that `node` asked: a plugin that cannot be
 * loaded later is an error at this place. */
static void add_reporter_at(struct config_reader *reader,
                            const yaml_node_t *node, const char *name,
                            const char *destination)
{
    struct tattle__buffer place = {0};
    append_place(&place, reader, node);
    tattle__options_add_reporter(reader->options, name, destination,
                                 place.data);
    tattle__buffer_release(&place);
}

static yaml_node_t *node_at(struct config_reader *reader, int index)
{
    return yaml_document_get_node(&reader->document, index);
}

static const char *scalar_text(const yaml_node_t *node)
{
    return (const char *)node->data.scalar.value;
}

static bool is_null(const yaml_node_t *node)
{
    if (node->type != YAML_SCALAR_NODE)
        return false;
    const char *text = scalar_text(node);
    return node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (strcmp(text, "null") == 0 || strcmp(text, "~") == 0 ||
            *text == '\0');
}

static int read_number(struct config_reader *reader, const yaml_node_t *node,
                       long min, long max, long *out)
{
    if (node->type != YAML_SCALAR_NODE)
        return fail_at(reader, node, "expected a number%s", "");
    const char *text = scalar_text(node);
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (!*text || *end || errno || value < min || value > max) {
        tattle__buffer_printf(
            reader->error,
            "%s:%zu:%zu: '%s' is not a whole number from %ld to %ld",
            reader->path, node->start_mark.line + 1,
            node->start_mark.column + 1, text, min, max);
        return -EINVAL;
    }
    *out = value;
    return 0;
}

static int read_bool(struct config_reader *reader, const yaml_node_t *node,
                     bool *out)
{
    if (node->type == YAML_SCALAR_NODE) {
        const char *text = scalar_text(node);
        if (strcmp(text, "true") == 0 || strcmp(text, "yes") == 0) {
            *out = true;
            return 0;
        }
        if (strcmp(text, "false") == 0 || strcmp(text, "no") == 0) {
            *out = false;
            return 0;
        }
    }
    return fail_at(reader, node, "expected true or false%s", "");
}

static int read_string(struct config_reader *reader, const yaml_node_t *node,
                       const char **out)
{
    if (node->type != YAML_SCALAR_NODE || !*scalar_text(node))
        return fail_at(reader, node, "expected a non-empty string%s", "");
    *out = scalar_text(node);
    return 0;
}

/* Fails when the key of `pair` was already given earlier in `mapping`. */
static int check_key_is_new(struct config_reader *reader,
                            const yaml_node_t *mapping,
                            const yaml_node_pair_t *pair)
{
    const yaml_node_t *key = node_at(reader, pair->key);
    if (key->type != YAML_SCALAR_NODE)
        return 0;
    for (const yaml_node_pair_t *earlier = mapping->data.mapping.pairs.start;
         earlier < pair; earlier++) {
        const yaml_node_t *other = node_at(reader, earlier->key);
        if (other->type == YAML_SCALAR_NODE &&
            strcmp(scalar_text(other), scalar_text(key)) == 0)
            return fail_at(reader, key,
                           "'%s' is given twice (first at %zu:%zu)",
                           scalar_text(key), other->start_mark.line + 1,
                           other->start_mark.column + 1);
    }
    return 0;
}

typedef int (*key_reader)(struct config_reader *reader,
                          const yaml_node_t *value);

struct key_spec {
    const char *key;
    key_reader read;
};

static int read_mapping(struct config_reader *reader, const yaml_node_t *node,
                        const struct key_spec *keys, size_t key_count,
                        const char *where)
{
    if (node->type != YAML_MAPPING_NODE)
        return fail_at(reader, node, "%s must be a mapping", where);
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *key = node_at(reader, pair->key);
        yaml_node_t *value = node_at(reader, pair->value);
        if (key->type != YAML_SCALAR_NODE)
            return fail_at(reader, key, "keys must be plain words%s", "");
        const struct key_spec *spec = NULL;
        for (size_t i = 0; i < key_count && !spec; i++)
            if (strcmp(keys[i].key, scalar_text(key)) == 0)
                spec = &keys[i];
        if (!spec)
            return fail_at(reader, key, "unknown key '%s'", scalar_text(key));
        int rc = check_key_is_new(reader, node, pair);
        if (rc != 0)
            return rc;
        reader->key = key;
        rc = spec->read(reader, value);
        if (rc != 0)
            return rc;
    }
    return 0;
}

#define NUMBER_KEY(function, field, min, max)                                  \
    static int function(struct config_reader *reader,                          \
                        const yaml_node_t *value)                              \
    {                                                                          \
        long number = 0;                                                       \
        int rc = read_number(reader, value, min, max, &number);                \
        /* read_number keeps number within [min, max]: the field holds it. */  \
        if (rc == 0)                                                           \
            reader->options->field =                                           \
                (__typeof__(reader->options->field))number;                    \
        return rc;                                                             \
    }
NUMBER_KEY(read_jobs, jobs, 1, TATTLE__JOBS_MAX)
NUMBER_KEY(read_timeout, timeout_ms, 1, TATTLE__TIMEOUT_MS_MAX)
NUMBER_KEY(read_trace_cap, trace_cap, 1, TATTLE__TRACE_CAP_MAX)
NUMBER_KEY(read_trace_budget, trace_budget, 1, TATTLE__TRACE_BUDGET_MAX)
NUMBER_KEY(read_trace_level, trace_level, 0, TATTLE__TRACE_LEVEL_MAX)
NUMBER_KEY(read_trace_payload, trace_payload_bytes, 1,
           TATTLE__TRACE_PAYLOAD_BYTES_MAX)

static int read_trace_passed(struct config_reader *reader,
                             const yaml_node_t *value)
{
    return read_bool(reader, value, &reader->options->trace_passed);
}

static int read_trace_ipc(struct config_reader *reader,
                          const yaml_node_t *value)
{
    bool on = true;
    int rc = read_bool(reader, value, &on);
    if (rc == 0)
        reader->options->trace_ipc_off = !on;
    return rc;
}

static int read_trace(struct config_reader *reader, const yaml_node_t *value)
{
    static const struct key_spec keys[] = {
        {"cap", read_trace_cap},       {"budget", read_trace_budget},
        {"level", read_trace_level},   {"payload_bytes", read_trace_payload},
        {"passed", read_trace_passed}, {"ipc", read_trace_ipc},
    };
    return read_mapping(reader, value, keys, sizeof keys / sizeof *keys,
                        "trace");
}

/* A null value asks for no report, so a configuration may name a
 * reporter this binary lacks as long as it does not ask for it. */
static int read_report(struct config_reader *reader, const yaml_node_t *value,
                       const char *name)
{
    if (is_null(value))
        return 0;
    if (!tattle_reporter_find(name)) {
        struct tattle__buffer message = {0};
        tattle__options_describe_unknown_reporter(&message, name);
        int rc = fail_at(reader, reader->key, "%s", message.data);
        tattle__buffer_release(&message);
        return rc;
    }
    const char *path = NULL;
    int rc = read_string(reader, value, &path);
    if (rc == 0)
        add_reporter_at(reader, value, name, path);
    return rc;
}

/* One entry of `reports.plugins`: a path, or {path, file}. The plugin is
 * loaded later, by the runner (runner/plugin.h). */
static int read_plugin(struct config_reader *reader, const yaml_node_t *node)
{
    const char *path = NULL, *file = NULL;
    if (node->type == YAML_SCALAR_NODE) {
        int rc = read_string(reader, node, &path);
        if (rc == 0 && !tattle__plugin_is_path(path))
            return fail_at(
                reader, node,
                "'%s' is not a path to a shared object (./%s would be)", path,
                path);
        if (rc == 0)
            add_reporter_at(reader, node, path, NULL);
        return rc;
    }
    if (node->type != YAML_MAPPING_NODE)
        return fail_at(reader, node,
                       "a plugin is a path or a mapping {path, file}%s", "");
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *key = node_at(reader, pair->key);
        const char **field = key->type != YAML_SCALAR_NODE           ? NULL
                             : strcmp(scalar_text(key), "path") == 0 ? &path
                             : strcmp(scalar_text(key), "file") == 0 ? &file
                                                                     : NULL;
        if (!field)
            return fail_at(
                reader, key, "unknown key '%s' (a plugin has path and file)",
                key->type == YAML_SCALAR_NODE ? scalar_text(key) : "");
        int rc = check_key_is_new(reader, node, pair);
        if (rc == 0)
            rc = read_string(reader, node_at(reader, pair->value), field);
        if (rc != 0)
            return rc;
    }
    if (!path)
        return fail_at(reader, node, "the plugin has no path%s", "");
    if (!tattle__plugin_is_path(path))
        return fail_at(reader, node,
                       "'%s' is not a path to a shared object (./%s would be)",
                       path, path);
    add_reporter_at(reader, node, path, file);
    return 0;
}

static int read_plugins(struct config_reader *reader, const yaml_node_t *value)
{
    if (is_null(value))
        return 0;
    if (value->type != YAML_SEQUENCE_NODE)
        return fail_at(reader, value,
                       "plugins must be a list of paths or {path, file}%s", "");
    for (yaml_node_item_t *item = value->data.sequence.items.start;
         item < value->data.sequence.items.top; item++) {
        int rc = read_plugin(reader, node_at(reader, *item));
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Each key of `reports` names a reporter, built in or a plugin, except
 * `plugins`: reporters loaded from shared objects. */
static int read_reports(struct config_reader *reader, const yaml_node_t *value)
{
    if (value->type != YAML_MAPPING_NODE)
        return fail_at(reader, value, "reports must be a mapping%s", "");
    for (yaml_node_pair_t *pair = value->data.mapping.pairs.start;
         pair < value->data.mapping.pairs.top; pair++) {
        yaml_node_t *key = node_at(reader, pair->key);
        if (key->type != YAML_SCALAR_NODE)
            return fail_at(reader, key, "keys must be plain words%s", "");
        int rc = check_key_is_new(reader, value, pair);
        if (rc != 0)
            return rc;
        reader->key = key;
        const yaml_node_t *report = node_at(reader, pair->value);
        if (strcmp(scalar_text(key), "plugins") == 0)
            rc = read_plugins(reader, report);
        else
            rc = read_report(reader, report, scalar_text(key));
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Reads a sequence of tag words into `list`. */
static int read_tag_sequence(struct config_reader *reader,
                             const yaml_node_t *value,
                             struct tattle__string_list *list,
                             const char *where)
{
    if (value->type != YAML_SEQUENCE_NODE)
        return fail_at(reader, value, "%s must be a list of tags", where);
    for (yaml_node_item_t *item = value->data.sequence.items.start;
         item < value->data.sequence.items.top; item++) {
        yaml_node_t *node = node_at(reader, *item);
        if (node->type != YAML_SCALAR_NODE ||
            !tattle__tag_is_valid(scalar_text(node)))
            return fail_at(reader, node, "'%s' is not a tag (TAG or TAG:VALUE)",
                           node->type == YAML_SCALAR_NODE ? scalar_text(node)
                                                          : "");
        tattle__string_list_add(list, scalar_text(node));
    }
    return 0;
}

static int read_exclude(struct config_reader *reader, const yaml_node_t *value)
{
    return read_tag_sequence(reader, value, &reader->options->exclude,
                             "exclude");
}

static int read_tag_rules(struct config_reader *reader,
                          const yaml_node_t *value)
{
    if (value->type != YAML_SEQUENCE_NODE)
        return fail_at(reader, value, "tags must be a list of {match, add}%s",
                       "");
    for (yaml_node_item_t *item = value->data.sequence.items.start;
         item < value->data.sequence.items.top; item++) {
        yaml_node_t *rule = node_at(reader, *item);
        if (rule->type != YAML_MAPPING_NODE)
            return fail_at(reader, rule, "a tag rule must be {match, add}%s",
                           "");
        const char *match = NULL;
        yaml_node_t *add = NULL;
        for (yaml_node_pair_t *pair = rule->data.mapping.pairs.start;
             pair < rule->data.mapping.pairs.top; pair++) {
            yaml_node_t *key = node_at(reader, pair->key);
            yaml_node_t *val = node_at(reader, pair->value);
            const char *name =
                key->type == YAML_SCALAR_NODE ? scalar_text(key) : "";
            int rc = check_key_is_new(reader, rule, pair);
            if (rc != 0)
                return rc;
            if (strcmp(name, "match") == 0) {
                rc = read_string(reader, val, &match);
                if (rc != 0)
                    return rc;
            } else if (strcmp(name, "add") == 0) {
                add = val;
            } else {
                return fail_at(reader, key, "unknown key '%s' in a tag rule",
                               name);
            }
        }
        if (!match || !add)
            return fail_at(reader, rule,
                           "a tag rule needs both match and add%s", "");
        struct tattle__string_list words = {0};
        int rc = read_tag_sequence(reader, add, &words, "add");
        for (size_t i = 0; rc == 0 && i < words.count; i++) {
            tattle__string_list_add(&reader->options->tag_rule_globs, match);
            tattle__string_list_add(&reader->options->tag_rule_words,
                                    words.items[i]);
        }
        tattle__string_list_release(&words);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void report_parser_error(const char *path, const yaml_parser_t *parser,
                                struct tattle__buffer *error)
{
    tattle__buffer_printf(error, "%s:%zu:%zu: %s", path,
                          parser->problem_mark.line + 1,
                          parser->problem_mark.column + 1,
                          parser->problem ? parser->problem : "invalid YAML");
}

/* After the first document: another one (even an empty one after "---")
 * is an error at its start, not something silently left unread. */
static int check_single_document(const char *path, yaml_parser_t *parser,
                                 struct tattle__buffer *error)
{
    yaml_document_t next;
    if (!yaml_parser_load(parser, &next)) {
        report_parser_error(path, parser, error);
        return -EINVAL;
    }
    bool found = yaml_document_get_root_node(&next) != NULL;
    size_t line = next.start_mark.line + 1, column = next.start_mark.column + 1;
    yaml_document_delete(&next);
    if (!found)
        return 0;
    tattle__buffer_printf(
        error,
        "%s:%zu:%zu: a second YAML document; a configuration is one document",
        path, line, column);
    return -EINVAL;
}

/* ---- the text and its limits ---- */

/* Reads the whole file into `text` (NUL-terminated, the caller frees it);
 * a file above CONFIG_MAX_BYTES is an error, found before it is read. */
static int read_text(const char *path, struct tattle__buffer *text,
                     struct tattle__buffer *error)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tattle__buffer_printf(error, "%s: cannot read the configuration: %s",
                              path, strerror(errno));
        return -EINVAL;
    }
    struct stat status;
    long long size = fstat(fd, &status) == 0 && S_ISREG(status.st_mode)
                         ? (long long)status.st_size
                         : 0;
    char chunk[65536];
    ssize_t n = 0;
    while (size <= CONFIG_MAX_BYTES &&
           (n = read(fd, chunk, sizeof chunk)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        tattle__buffer_append(text, chunk, (size_t)n);
        if (text->length > CONFIG_MAX_BYTES)
            size = (long long)text->length; /* not a regular file */
    }
    int read_errno = n < 0 ? errno : 0;
    close(fd);
    if (size > CONFIG_MAX_BYTES) {
        tattle__buffer_printf(
            error, "%s: %lld bytes, above the %d MiB limit of a configuration",
            path, size, CONFIG_MAX_BYTES / (1024 * 1024));
        return -EINVAL;
    }
    if (read_errno) {
        tattle__buffer_printf(error, "%s: cannot read the configuration: %s",
                              path, strerror(read_errno));
        return -EINVAL;
    }
    return 0;
}

/* Fails when collections (block or flow) nest deeper than
 * CONFIG_MAX_DEPTH, naming where the first one too deep starts, or on a
 * syntax error (the same one the load would report). libyaml's events
 * tell the depth exactly, whatever quotes, comments or block scalars hide
 * brackets, and its scanner looks ahead at most a line (1024 characters
 * in flow context) past an event: stopping at the limit bounds its
 * quadratic cost to that window. */
static int check_nesting_depth(const char *path,
                               const struct tattle__buffer *text,
                               struct tattle__buffer *error)
{
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(
        &parser, (const unsigned char *)(text->data ? text->data : ""),
        text->length);
    int depth = 0, rc = 0;
    for (bool done = false; !done && rc == 0;) {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event)) {
            report_parser_error(path, &parser, error);
            rc = -EINVAL;
            break;
        }
        switch (event.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (++depth > CONFIG_MAX_DEPTH) {
                tattle__buffer_printf(
                    error,
                    "%s:%zu:%zu: collections nested deeper than %d "
                    "levels, the limit of a configuration",
                    path, event.start_mark.line + 1,
                    event.start_mark.column + 1, CONFIG_MAX_DEPTH);
                rc = -EINVAL;
            }
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&event);
    }
    yaml_parser_delete(&parser);
    return rc;
}

int tattle__config_load(struct tattle__options *options, const char *path,
                        struct tattle__buffer *error)
{
    struct tattle__buffer text = {0};
    int rc = read_text(path, &text, error);
    if (rc == 0)
        rc = check_nesting_depth(path, &text, error);
    if (rc != 0) {
        tattle__buffer_release(&text);
        return rc;
    }
    struct config_reader reader = {
        .path = path, .options = options, .error = error};
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(
        &parser, (const unsigned char *)(text.data ? text.data : ""),
        text.length);
    if (!yaml_parser_load(&parser, &reader.document)) {
        report_parser_error(path, &parser, error);
        yaml_parser_delete(&parser);
        tattle__buffer_release(&text);
        return -EINVAL;
    }
    yaml_node_t *root = yaml_document_get_root_node(&reader.document);
    if (root && !is_null(root)) {
        static const struct key_spec keys[] = {
            {"jobs", read_jobs},       {"timeout_ms", read_timeout},
            {"trace", read_trace},     {"reports", read_reports},
            {"exclude", read_exclude}, {"tags", read_tag_rules},
        };
        rc = read_mapping(&reader, root, keys, sizeof keys / sizeof *keys,
                          "the configuration");
    }
    yaml_document_delete(&reader.document);
    if (rc == 0)
        rc = check_single_document(path, &parser, error);
    yaml_parser_delete(&parser);
    tattle__buffer_release(&text);
    return rc;
}

int tattle__config_load_for(struct tattle__options *options, int argc,
                            char **argv, struct tattle__buffer *error)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            path = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            path = argv[i] + 9;
    }
    if (!path) {
        const char *from_environment = getenv("TATTLE_CONFIG");
        if (from_environment && *from_environment)
            path = from_environment;
    }
    if (!path) {
        FILE *probe = fopen("tattle.yml", "rb");
        if (!probe)
            return 0;
        fclose(probe);
        path = "tattle.yml";
    }
    return tattle__config_load(options, path, error);
}

void tattle__config_apply_tag_rules(const struct tattle__options *options,
                                    struct tattle__registry *registry)
{
    for (size_t r = 0; r < options->tag_rule_globs.count; r++) {
        for (size_t i = 0; i < registry->count; i++) {
            struct tattle__test_entry *entry = &registry->entries[i];
            if (fnmatch(options->tag_rule_globs.items[r], entry->id, 0) != 0)
                continue;
            tattle__tag_list_add(&entry->tags,
                                 options->tag_rule_words.items[r]);
            tattle__test_entry_sync_tags(entry);
        }
    }
}
