/*
 * validate.c — `tattle validate FILE...`: each file against the schema of
 * its kind, built into the command.
 *
 * The kind is told from the content (or given with --kind): a JSON report,
 * a JSON Lines stream, a --compact report, a --list --json listing, the
 * last-run state, or a CTRF report (schemas/ctrf.schema.json: the
 * project's description of the CTRF fields a reader relies on). A file of
 * lines is checked line by line. The first error is printed with its
 * place: the line for a file of lines, and the JSON path in the value.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/utf8.h"
#include "cli/cli.h"
#include "cli/schema.h"
#include "results/json_scan.h"

static const char help[] =
    "usage: tattle validate [--kind KIND] FILE...\n"
    "\n"
    "Checks each FILE ('-' reads stdin) against the JSON Schema of its kind,\n"
    "built into this command, and prints the first error with its place\n"
    "(line, and the JSON path such as .tests[3].state). KIND is told from the\n"
    "content unless given:\n"
    "  report     a JSON report (--json)\n"
    "  stream     a JSON Lines stream (--jsonl), one line at a time\n"
    "  compact    a --compact report, one line at a time\n"
    "  list       a test listing (--list --json)\n"
    "  last-run   the state --failed reads (.tattle/last-run.json)\n"
    "  ctrf       a CTRF report (--ctrf): its envelope, counts and tests\n"
    "\n"
    "exit status: 0 every file valid, 1 a file does not match its schema,\n"
    "2 usage error, or a file that cannot be read or is not JSON.\n";

struct kind {
    const char *name;
    const char *schema;
    bool lines;
};

static const struct kind kinds[] = {
    {"report", "report.schema.json", false},
    {"stream", "stream.schema.json", true},
    {"compact", "compact.schema.json", true},
    {"list", "list.schema.json", false},
    {"last-run", "last-run.schema.json", false},
    {"ctrf", "ctrf.schema.json", false},
};

static const struct kind *kind_named(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    return NULL;
}

static int read_all(const char *path, struct tattle__buffer *out)
{
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO
                                    : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat info;
    if (fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
        close(fd);
        return -EISDIR;
    }
    for (;;) {
        char *room = tattle__buffer_reserve(out, 65536);
        ssize_t n = read(fd, room, 65536);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int error = -errno;
            if (fd != STDIN_FILENO)
                close(fd);
            return error;
        }
        if (n == 0)
            break;
        out->length += (size_t)n;
        out->data[out->length] = '\0';
    }
    if (fd != STDIN_FILENO)
        close(fd);
    if (!out->data)
        tattle__buffer_reserve(out, 0);
    return 0;
}

static uint64_t line_at(const char *text, size_t offset)
{
    uint64_t line = 1;
    for (size_t i = 0; i < offset; i++)
        line += text[i] == '\n';
    return line;
}

/* Parses the value that starts at `text[0]`; on error prints where. */
static cJSON *parse_value(const char *path, const char *whole, const char *text,
                          size_t length, size_t *end)
{
    struct tattle__json_numbers numbers = {0};
    struct tattle__json_scan_error error;
    enum tattle__json_scan_status status =
        tattle__json_scan_value(text, length, end, &numbers, &error);
    cJSON *tree = NULL;
    size_t offset = (size_t)(text - whole);
    if (status == TATTLE__JSON_SCAN_OK)
        tree = tattle__json_scan_parse(text, *end, &numbers, &error);
    else if (status == TATTLE__JSON_SCAN_MORE) {
        error.offset = length;
        snprintf(error.message, sizeof error.message,
                 "truncated: the value is not complete");
    }
    if (!tree)
        tattle__cli_fail("validate",
                         "%s: line %" PRIu64 ", byte %zu: not JSON: %s", path,
                         line_at(whole, offset + error.offset),
                         offset + error.offset, error.message);
    tattle__json_numbers_release(&numbers);
    return tree;
}

static const struct kind *guess_kind(const cJSON *first, bool more_values)
{
    if (cJSON_IsArray(first))
        return kind_named("list");
    bool has_event = cJSON_GetObjectItemCaseSensitive(first, "event") != NULL;
    bool compact_line = cJSON_GetObjectItemCaseSensitive(first, "s") ||
                        (cJSON_GetObjectItemCaseSensitive(first, "summary") &&
                         !cJSON_GetObjectItemCaseSensitive(first, "version"));
    if (has_event)
        return kind_named("stream");
    if (compact_line || more_values)
        return kind_named("compact");
    if (cJSON_GetObjectItemCaseSensitive(first, "reportFormat"))
        return kind_named("ctrf");
    if (cJSON_GetObjectItemCaseSensitive(first, "executables"))
        return kind_named("last-run");
    return kind_named("report");
}

/* A stream is one run: run_started on its first line and nowhere else,
 * and nothing after run_finished (a stream without run_finished is a run
 * that was killed, and valid). Checks `line_value`, the stream's line
 * `line`, valid against the stream schema; false with the error in
 * `error`. */
static bool stream_order_holds(const cJSON *line_value, uint64_t line,
                               bool *run_finished, struct tattle__buffer *error)
{
    const cJSON *event_item =
        cJSON_GetObjectItemCaseSensitive(line_value, "event");
    const char *event = cJSON_GetStringValue(event_item);
    if (!event)
        return true;
    bool starts = strcmp(event, "run_started") == 0;
    if (*run_finished)
        tattle__buffer_append_string(error, "a line after run_finished: one "
                                            "run per stream");
    else if (line == 1 && !starts)
        tattle__buffer_printf(error,
                              ".event: a stream starts with run_started, "
                              "not %s",
                              event);
    else if (line > 1 && starts)
        tattle__buffer_append_string(error, ".event: a second run_started: "
                                            "one run per stream");
    *run_finished = strcmp(event, "run_finished") == 0;
    return error->length == 0;
}

/* Returns 0 valid, 1 invalid, 2 unreadable or not JSON. */
static int validate_file(struct tattle__schemas *schemas, const char *path,
                         const struct kind *kind)
{
    struct tattle__buffer content = {0};
    int rc = read_all(path, &content);
    if (rc < 0) {
        tattle__buffer_release(&content);
        return tattle__cli_fail("validate", "%s: cannot read: %s", path,
                                strerror(-rc));
    }
    const char *text = content.data;
    size_t length = content.length;
    for (size_t i = 0; i < length;) {
        size_t n = tattle__utf8_sequence_length(text + i, length - i);
        if (n == 0) {
            tattle__cli_fail(
                "validate", "%s: line %" PRIu64 ", byte %zu: not UTF-8%s", path,
                line_at(text, i), i, text[i] ? "" : " (a NUL byte)");
            tattle__buffer_release(&content);
            return TATTLE__EXIT_BAD_INPUT;
        }
        i += n;
    }
    size_t start = tattle__json_skip_space(text, length, 0);
    if (start == length) {
        tattle__buffer_release(&content);
        return tattle__cli_fail("validate", "%s: empty: no JSON in it", path);
    }
    size_t end;
    cJSON *first = parse_value(path, text, text + start, length - start, &end);
    if (!first) {
        tattle__buffer_release(&content);
        return TATTLE__EXIT_BAD_INPUT;
    }
    bool more = tattle__json_skip_space(text, length, start + end) != length;
    if (!kind)
        kind = guess_kind(first, more);
    if (!tattle__schemas_have(schemas, kind->schema)) {
        cJSON_Delete(first);
        tattle__buffer_release(&content);
        return tattle__cli_fail(
            "validate", "%s: this build has no schema for %s files (%s)", path,
            kind->name, kind->schema);
    }
    int status = TATTLE__EXIT_OK;
    struct tattle__buffer error = {0};
    uint64_t error_line = 0;
    if (!kind->lines) {
        if (more) {
            cJSON_Delete(first);
            tattle__buffer_release(&content);
            size_t at = tattle__json_skip_space(text, length, start + end);
            return tattle__cli_fail("validate",
                                    "%s: line %" PRIu64 ", byte %zu: not JSON: "
                                    "text after the %s",
                                    path, line_at(text, at), at, kind->name);
        }
        if (!tattle__schemas_validate(schemas, kind->schema, first, &error))
            status = TATTLE__EXIT_FAILED;
    } else {
        /* Line by line; the first value was parsed already. */
        cJSON_Delete(first);
        first = NULL;
        uint64_t line = 0;
        bool run_finished = false;
        for (size_t at = 0; at < length && status == TATTLE__EXIT_OK;) {
            const char *newline = memchr(text + at, '\n', length - at);
            size_t line_end = newline ? (size_t)(newline - text) : length;
            line++;
            if (tattle__json_skip_space(text, line_end, at) == line_end) {
                error_line = line;
                tattle__buffer_append_string(&error, "an empty line");
                status = TATTLE__EXIT_FAILED;
                break;
            }
            size_t value_end;
            cJSON *value =
                parse_value(path, text, text + at, line_end - at, &value_end);
            if (!value) {
                status = TATTLE__EXIT_BAD_INPUT;
                break;
            }
            if (tattle__json_skip_space(text, line_end, at + value_end) !=
                line_end) {
                cJSON_Delete(value);
                status =
                    tattle__cli_fail("validate",
                                     "%s: line %" PRIu64 ": not JSON Lines: "
                                     "text after the line's value",
                                     path, line);
                break;
            }
            if (!tattle__schemas_validate(schemas, kind->schema, value,
                                          &error) ||
                (strcmp(kind->name, "stream") == 0 &&
                 !stream_order_holds(value, line, &run_finished, &error))) {
                error_line = line;
                status = TATTLE__EXIT_FAILED;
            }
            cJSON_Delete(value);
            if (!newline && status == TATTLE__EXIT_OK) {
                error_line = line;
                tattle__buffer_append_string(&error,
                                             "the last line has no newline");
                status = TATTLE__EXIT_FAILED;
            }
            at = line_end + 1;
        }
    }
    if (status == TATTLE__EXIT_OK)
        printf("%s: valid %s\n", path, kind->name);
    else if (status == TATTLE__EXIT_FAILED) {
        struct tattle__buffer line = {0};
        tattle__cli_append_printable(&line, error.data ? error.data : "",
                                     error.length, false, 0);
        if (error_line)
            printf("%s: invalid %s: line %" PRIu64 ": %s\n", path, kind->name,
                   error_line, line.data);
        else
            printf("%s: invalid %s: %s\n", path, kind->name, line.data);
        tattle__buffer_release(&line);
    }
    tattle__buffer_release(&error);
    cJSON_Delete(first);
    tattle__buffer_release(&content);
    return status;
}

int tattle__cli_validate(int argc, char **argv)
{
    const struct kind *kind = NULL;
    int first_file = 0;
    for (int i = 1; i < argc; i++) {
        const char *value;
        bool missing;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(help, stdout);
            return TATTLE__EXIT_OK;
        }
        if (tattle__cli_option(argc, argv, &i, "--kind", NULL, &value,
                               &missing)) {
            if (missing || !(kind = kind_named(value)))
                return tattle__cli_fail("validate",
                                        "--kind needs one of report, stream, "
                                        "compact, list, last-run, ctrf");
        } else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return tattle__cli_fail(
                "validate", "unknown option '%s' (tattle validate --help)",
                argv[i]);
        else if (!first_file)
            first_file = i;
    }
    if (!first_file)
        return tattle__cli_fail("validate",
                                "usage: tattle validate [--kind KIND] FILE...");
    struct tattle__buffer error = {0};
    struct tattle__schemas *schemas = tattle__schemas_load(&error);
    if (!schemas) {
        fprintf(stderr, "tattle validate: %s\n", error.data);
        tattle__buffer_release(&error);
        return 3;
    }
    int status = TATTLE__EXIT_OK;
    for (int i = first_file; i < argc; i++) {
        const char *value;
        bool missing;
        if (tattle__cli_option(argc, argv, &i, "--kind", NULL, &value,
                               &missing))
            continue;
        int file_status = validate_file(schemas, argv[i], kind);
        if (file_status > status)
            status = file_status;
    }
    tattle__schemas_free(schemas);
    return status;
}
