/*
 * read.c — the reader of reports and streams (see read.h).
 *
 * A file is read through one window of bytes that grows to the largest
 * value it must hold (a test, a line) and no further. A report is scanned
 * once whole when it is opened (json_scan.c checks every byte, so a
 * truncated or broken report is refused before anything is written) while
 * the members other than "tests" are parsed; the tests are then read again
 * one by one. A stream is read line by line. Each test's JSON is parsed by
 * cJSON and turned into an owned result whose strings point into the
 * parsed tree, checking the type of every field on the way: the path of
 * the first field that is not what the schema says is the error.
 */
#include "results/read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/hash.h"
#include "base/report_file.h"
#include "base/text.h"
#include "results/json.h"
#include "results/json_scan.h"
#include "results/model.h"

enum { READ_CHUNK = 256 * 1024, KIND_PEEK = 4096 };

/* A test started and not yet finished; id NULL once it finished. */
struct unfinished_test {
    char *id;
    uint64_t hash;
};

struct tattle__reader {
    char *path;
    int fd;
    enum tattle__input_kind kind;
    char *error;

    /* The window: data[start..end) are the unread bytes at file offset
     * base + start. */
    char *data;
    size_t start, end, capacity;
    uint64_t base;
    bool eof;
    struct tattle__json_numbers numbers;

    /* What precedes the tests. */
    cJSON *version, *tool, *run_tree, *summary_tree, *error_groups;
    struct tattle_run_info run;
    char **argv;
    uint64_t duration_us;
    struct tattle_summary summary;
    bool has_summary, has_tests;
    uint64_t tests_offset;

    /* Reading the tests. */
    size_t test_index;
    bool tests_done;
    uint64_t line; /* stream: lines read so far */
    bool finished, cut_short, stream_ended;
    /* The started tests in start order, and an open-addressing table of
     * their indexes (index + 1, 0 empty) keyed by the id's hash: a stream
     * of any number of open tests is read in linear time. Finished
     * entries stay (id NULL) until they outnumber the open ones. */
    struct unfinished_test *unfinished;
    size_t unfinished_count, unfinished_capacity, unfinished_next,
        unfinished_done;
    size_t *open_slots, open_slot_count;
    uint64_t tests_duration;
};

/* ---- Errors ---------------------------------------------------------- */

/* A JSON path inside the value being read: `.tests[3].failures[0].kind`. */
struct where {
    const struct where *parent;
    const char *key; /* NULL: an array index */
    size_t index;
};

static void render_where(const struct where *where, struct tattle__buffer *out)
{
    if (!where)
        return;
    render_where(where->parent, out);
    if (!where->key) {
        tattle__buffer_printf(out, "[%zu]", where->index);
        return;
    }
    bool plain = *where->key != '\0';
    for (const char *p = where->key; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                *p == '_' || (p != where->key && *p >= '0' && *p <= '9');
    if (plain)
        tattle__buffer_printf(out, ".%s", where->key);
    else
        tattle__buffer_printf(out, "[\"%s\"]", where->key);
}

static void set_error(struct tattle__reader *reader, const char *format, ...)
    TATTLE__PRINTF(2, 3);
static void set_error(struct tattle__reader *reader, const char *format, ...)
{
    if (reader->error)
        return;
    struct tattle__buffer text = {0};
    tattle__buffer_printf(&text, "%s: ", reader->path);
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(&text, format, args);
    va_end(args);
    /* One line, whatever the message quotes. */
    for (size_t i = 0; i < text.length; i++)
        if ((unsigned char)text.data[i] < 0x20)
            text.data[i] = ' ';
    reader->error = tattle__buffer_take(&text);
}

/* The 1-based line of a byte offset, counted in the file. */
static uint64_t line_of(const struct tattle__reader *reader, uint64_t offset)
{
    uint64_t line = 1, at = 0;
    char chunk[65536];
    while (at < offset) {
        size_t want =
            offset - at < sizeof chunk ? (size_t)(offset - at) : sizeof chunk;
        ssize_t n = pread(reader->fd, chunk, want, (off_t)at);
        if (n <= 0)
            break;
        for (const char *p = chunk;
             (p = memchr(p, '\n', (size_t)(chunk + n - p))); p++)
            line++;
        at += (uint64_t)n;
    }
    return line;
}

static int error_at(struct tattle__reader *reader, uint64_t offset,
                    const char *message)
{
    set_error(reader, "line %" PRIu64 ", byte %" PRIu64 ": %s",
              line_of(reader, offset), offset, message);
    return -1;
}

/* Reading one test or header value: where it is, for messages (a line
 * when known, else the byte offset the line is counted up to on error). */
struct build {
    struct tattle__reader *reader;
    uint64_t line;
    uint64_t offset;
    /* Where the last member found in each of the objects read last was:
     * tattle writes members in the order they are read, so the next one is
     * looked for after it first. */
    struct member_hint {
        const cJSON *object, *member;
    } hints[4];
    unsigned next_hint;
};

static bool fail_in(struct build *build, const struct where *where,
                    const char *format, ...) TATTLE__PRINTF(3, 4);
static bool fail_in(struct build *build, const struct where *where,
                    const char *format, ...)
{
    struct tattle__buffer path = {0}, message = {0};
    render_where(where, &path);
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(&message, format, args);
    va_end(args);
    uint64_t line = build->line     ? build->line
                    : build->offset ? line_of(build->reader, build->offset)
                                    : 0;
    if (line)
        set_error(build->reader, "line %" PRIu64 ": %s: %s", line,
                  path.length ? path.data : ".", message.data);
    else
        set_error(build->reader, "%s: %s", path.length ? path.data : ".",
                  message.data);
    tattle__buffer_release(&path);
    tattle__buffer_release(&message);
    return false;
}

/* ---- Typed access to members ----------------------------------------- */

/* The member `key` of `object`, looked for from the one after the last
 * member found in the same object, then from the start. */
static const cJSON *find_member(struct build *build, const cJSON *object,
                                const char *key)
{
    if (!cJSON_IsObject(object))
        return NULL;
    struct member_hint *hint = NULL;
    for (size_t i = 0; i < sizeof build->hints / sizeof *build->hints; i++)
        if (build->hints[i].object == object)
            hint = &build->hints[i];
    const cJSON *from = hint ? hint->member : NULL;
    if (from && strcmp(from->string, key) == 0)
        return from;
    from = from ? from->next : NULL;
    const cJSON *item = NULL;
    for (const cJSON *at = from; at && !item; at = at->next)
        if (at->string && strcmp(at->string, key) == 0)
            item = at;
    for (const cJSON *at = object->child; at != from && !item; at = at->next)
        if (at->string && strcmp(at->string, key) == 0)
            item = at;
    if (item && !hint) {
        hint = &build->hints[build->next_hint++ %
                             (sizeof build->hints / sizeof *build->hints)];
        hint->object = object;
    }
    if (item)
        hint->member = item;
    return item;
}

/* Each getter writes *out on every path (NULL on failure), so callers'
 * locals are never read uninitialised, as optimised builds check. */

static const cJSON *member(struct build *build, const cJSON *object,
                           const char *key, const struct where *where)
{
    const cJSON *item = find_member(build, object, key);
    if (!item) {
        struct where here = {where, key, 0};
        fail_in(build, &here, "missing");
    }
    return item;
}

static bool get_object(struct build *build, const cJSON *object,
                       const char *key, const struct where *where,
                       bool nullable, const cJSON **out)
{
    *out = NULL;
    const cJSON *item = member(build, object, key, where);
    if (!item)
        return false;
    struct where here = {where, key, 0};
    if (nullable && cJSON_IsNull(item))
        return true;
    if (!cJSON_IsObject(item))
        return fail_in(build, &here, "expected an object%s, found %s",
                       nullable ? " or null" : "", tattle__json_describe(item));
    *out = item;
    return true;
}

static bool get_array(struct build *build, const cJSON *object, const char *key,
                      const struct where *where, const cJSON **out)
{
    *out = NULL;
    const cJSON *item = member(build, object, key, where);
    if (!item)
        return false;
    if (!cJSON_IsArray(item)) {
        struct where here = {where, key, 0};
        return fail_in(build, &here, "expected an array, found %s",
                       tattle__json_describe(item));
    }
    *out = item;
    return true;
}

static bool text_of(struct build *build, const cJSON *item,
                    const struct where *where, bool nullable, const char **out)
{
    *out = NULL;
    if (nullable && cJSON_IsNull(item))
        return true;
    if (!cJSON_IsString(item) || !item->valuestring)
        return fail_in(build, where, "expected a string%s, found %s",
                       nullable ? " or null" : "", tattle__json_describe(item));
    *out = item->valuestring;
    return true;
}

static bool get_text(struct build *build, const cJSON *object, const char *key,
                     const struct where *where, bool nullable, const char **out)
{
    const cJSON *item = member(build, object, key, where);
    struct where here = {where, key, 0};
    return item && text_of(build, item, &here, nullable, out);
}

/* An optional string member (trace events omit what they lack). */
static bool get_optional_text(struct build *build, const cJSON *object,
                              const char *key, const struct where *where,
                              const char **out)
{
    const cJSON *item = find_member(build, object, key);
    *out = NULL;
    struct where here = {where, key, 0};
    return !item || text_of(build, item, &here, false, out);
}

static bool get_integer(struct build *build, const cJSON *object,
                        const char *key, const struct where *where,
                        long long minimum, uint64_t maximum, bool *negative,
                        uint64_t *magnitude)
{
    const cJSON *item = member(build, object, key, where);
    if (!item)
        return false;
    struct where here = {where, key, 0};
    bool integer = tattle__json_integer(item, negative, magnitude);
    bool ok = integer;
    if (ok && *negative)
        ok = minimum < 0 && *magnitude <= (uint64_t)0 - (uint64_t)minimum;
    else if (ok)
        ok = *magnitude <= maximum &&
             (minimum <= 0 || *magnitude >= (uint64_t)minimum);
    if (!ok) {
        char digits[32];
        const char *literal = NULL;
        if (cJSON_IsNumber(item) && item->valuestring)
            literal = item->valuestring;
        else if (integer) { /* short and exact: it kept no literal */
            snprintf(digits, sizeof digits, "%s%" PRIu64, *negative ? "-" : "",
                     *magnitude);
            literal = digits;
        }
        return fail_in(
            build, &here,
            "expected an integer from %lld to %" PRIu64 ", found %.40s",
            minimum, maximum, literal ? literal : tattle__json_describe(item));
    }
    return true;
}

static bool get_uint(struct build *build, const cJSON *object, const char *key,
                     const struct where *where, uint64_t maximum, uint64_t *out)
{
    bool negative;
    return get_integer(build, object, key, where, 0, maximum, &negative, out);
}

static bool get_int(struct build *build, const cJSON *object, const char *key,
                    const struct where *where, long long *out)
{
    bool negative;
    uint64_t magnitude;
    if (!get_integer(build, object, key, where, INT_MIN, INT_MAX, &negative,
                     &magnitude))
        return false;
    *out = negative ? -(long long)magnitude : (long long)magnitude;
    return true;
}

static bool get_bool(struct build *build, const cJSON *object, const char *key,
                     const struct where *where, bool *out)
{
    const cJSON *item = member(build, object, key, where);
    if (!item)
        return false;
    if (!cJSON_IsBool(item)) {
        struct where here = {where, key, 0};
        return fail_in(build, &here, "expected true or false, found %s",
                       tattle__json_describe(item));
    }
    *out = cJSON_IsTrue(item);
    return true;
}

/* A 1-based line number, or null (0 here). */
static bool get_line(struct build *build, const cJSON *object, const char *key,
                     const struct where *where, int *out)
{
    const cJSON *item = member(build, object, key, where);
    if (!item)
        return false;
    if (cJSON_IsNull(item)) {
        *out = 0;
        return true;
    }
    uint64_t line;
    if (!get_uint(build, object, key, where, INT_MAX, &line))
        return false;
    *out = (int)line;
    return true;
}

static bool get_enum(struct build *build, const cJSON *object, const char *key,
                     const struct where *where, const char *const *names,
                     size_t count, int *out)
{
    const char *text;
    if (!get_text(build, object, key, where, false, &text))
        return false;
    for (size_t i = 0; i < count; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (int)i;
            return true;
        }
    struct tattle__buffer choices = {0};
    for (size_t i = 0; i < count; i++)
        tattle__buffer_printf(&choices, "%s\"%s\"", i ? ", " : "", names[i]);
    struct where here = {where, key, 0};
    char *shown = tattle__first_line(text);
    fail_in(build, &here, "\"%.60s\" is not one of %s", shown ? shown : "",
            choices.data);
    free(shown);
    tattle__buffer_release(&choices);
    return false;
}

/* ---- The window --------------------------------------------------------- */

/* Reads more of the file into the window (growing it when full). */
static int fill(struct tattle__reader *reader)
{
    if (reader->start > 0) {
        memmove(reader->data, reader->data + reader->start,
                reader->end - reader->start);
        reader->base += reader->start;
        reader->end -= reader->start;
        reader->start = 0;
    }
    if (reader->end == reader->capacity) {
        reader->capacity = reader->capacity ? 2 * reader->capacity : READ_CHUNK;
        reader->data = tattle__realloc(reader->data, reader->capacity);
    }
    for (;;) {
        ssize_t n = read(reader->fd, reader->data + reader->end,
                         reader->capacity - reader->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            set_error(reader, "cannot read: %s", strerror(errno));
            return -1;
        }
        if (n == 0)
            reader->eof = true;
        reader->end += (size_t)n;
        return 0;
    }
}

/* Skips whitespace; returns the next byte, -1 at the end of the file, or
 * -2 on a read error. */
static int peek(struct tattle__reader *reader)
{
    for (;;) {
        reader->start =
            tattle__json_skip_space(reader->data, reader->end, reader->start);
        if (reader->start < reader->end)
            return (unsigned char)reader->data[reader->start];
        if (reader->eof)
            return -1;
        if (fill(reader) < 0)
            return -2;
    }
}

static uint64_t here(const struct tattle__reader *reader)
{
    return reader->base + reader->start;
}

/* Scans the value at the window's start, reading until it is whole;
 * `inside` names it for the message when the file ends first. */
static int scan_window_value(struct tattle__reader *reader, size_t *length,
                             bool numbers, const char *inside)
{
    reader->numbers.count = 0;
    for (;;) {
        struct tattle__json_scan_error error;
        enum tattle__json_scan_status status = tattle__json_scan_value(
            reader->data + reader->start, reader->end - reader->start, length,
            numbers ? &reader->numbers : NULL, &error);
        if (status == TATTLE__JSON_SCAN_OK)
            return 0;
        if (status == TATTLE__JSON_SCAN_ERROR) {
            char message[160];
            snprintf(message, sizeof message, "not JSON: %s", error.message);
            return error_at(reader, here(reader) + error.offset, message);
        }
        if (reader->eof) {
            char message[200];
            snprintf(message, sizeof message,
                     "truncated: the file ends inside %s", inside);
            return error_at(reader, reader->base + reader->end, message);
        }
        if (fill(reader) < 0)
            return -1;
    }
}

/* Parses the scanned value of `length` bytes at the window's start and
 * consumes it. */
static cJSON *parse_window_value(struct tattle__reader *reader, size_t length,
                                 struct tattle__json_arena *arena)
{
    struct tattle__json_scan_error error;
    cJSON *tree = tattle__json_scan_parse_in(
        reader->data + reader->start, length, &reader->numbers, arena, &error);
    if (!tree)
        error_at(reader, here(reader) + error.offset, error.message);
    reader->start += length;
    return tree;
}

/* ---- The run, the summary --------------------------------------------------
 */

static bool read_run(struct tattle__reader *reader, const cJSON *run,
                     bool report, struct build build)
{
    struct where top = {NULL, "run", 0};
    struct tattle_run_info *info = &reader->run;
    const cJSON *argv, *shard;
    uint64_t value;
    if (!cJSON_IsObject(run))
        return fail_in(&build, &top, "expected an object, found %s",
                       tattle__json_describe(run));
    if (!get_text(&build, run, "started_at", &top, false, &info->started_at))
        return false;
    if (report && !get_uint(&build, run, "duration_us", &top, UINT64_MAX,
                            &reader->duration_us))
        return false;
    if (!get_uint(&build, run, "seed", &top, UINT64_MAX, &info->seed))
        return false;
    if (!get_uint(&build, run, "jobs", &top, UINT_MAX, &value))
        return false;
    info->jobs = (unsigned)value;
    if (!get_array(&build, run, "argv", &top, &argv))
        return false;
    int argc = cJSON_GetArraySize(argv);
    reader->argv = tattle__calloc((size_t)argc + 1, sizeof *reader->argv);
    struct where argv_where = {&top, "argv", 0};
    int i = 0;
    for (const cJSON *item = argv->child; item; item = item->next, i++) {
        struct where element = {&argv_where, NULL, (size_t)i};
        const char *text;
        if (!text_of(&build, item, &element, false, &text))
            return false;
        reader->argv[i] = (char *)text;
    }
    info->argc = argc;
    info->argv = reader->argv;
    if (!get_text(&build, run, "executable", &top, true, &info->executable))
        return false;
    if (!get_object(&build, run, "shard", &top, true, &shard))
        return false;
    if (shard) {
        struct where shard_where = {&top, "shard", 0};
        uint64_t index, total;
        if (!get_uint(&build, shard, "index", &shard_where, UINT_MAX, &index) ||
            !get_uint(&build, shard, "total", &shard_where, UINT_MAX, &total))
            return false;
        info->sharded = true;
        info->shard_index = (unsigned)index;
        info->shard_total = (unsigned)total;
    }
    if (report && !get_bool(&build, run, "interrupted", &top,
                            &reader->summary.interrupted))
        return false;
    return true;
}

static bool read_summary(struct tattle__reader *reader, const cJSON *object,
                         const struct where *where, struct build build)
{
    struct tattle_summary *summary = &reader->summary;
    if (!cJSON_IsObject(object))
        return fail_in(&build, where, "expected an object, found %s",
                       tattle__json_describe(object));
    struct {
        const char *key;
        uint64_t *value;
    } counts[] = {
        {"total", &summary->total},
        {"passed", &summary->passed},
        {"failed", &summary->failed},
        {"skipped", &summary->skipped},
        {"excluded", &summary->excluded},
        {"invalid", &summary->invalid},
        {"flaky", &summary->flaky},
        {"duration_us", &summary->duration_us},
    };
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        if (!get_uint(&build, object, counts[i].key, where, UINT64_MAX,
                      counts[i].value))
            return false;
    reader->has_summary = true;
    return true;
}

static bool check_version(const cJSON *version, const struct where *where,
                          struct build build)
{
    if (!version)
        return fail_in(&build, where, "missing: not a tattle report or stream");
    bool negative;
    uint64_t value;
    if (!tattle__json_integer(version, &negative, &value) || negative ||
        value != TATTLE__JSON_SCHEMA_VERSION) {
        char *shown = cJSON_PrintUnformatted(version);
        fail_in(&build, where,
                "version %.40s is not supported: this tattle reads version %d",
                shown ? shown : "?", TATTLE__JSON_SCHEMA_VERSION);
        cJSON_free(shown);
        return false;
    }
    return true;
}

/* ---- One test --------------------------------------------------------------
 */

static const char *const state_names[] = {"passed", "failed", "skipped",
                                          "excluded", "invalid"};
static const char *const kind_names[] = {"assertion", "crash", "timeout",
                                         "exit", "error"};
static const char *const event_kind_names[] = {"send", "recv", "event", "spawn",
                                               "exit"};

/* The signal number a report names ("SIGSEGV", or "SIG42" for one without a
 * name), or -1. */
static int signal_number(const char *name)
{
    char scratch[16];
    for (int number = 0; number < 128; number++)
        if (strcmp(tattle__signal_name(number, scratch), name) == 0)
            return number;
    return -1;
}

struct read_trace {
    struct tattle_trace trace; /* first: freed through its address */
    struct tattle_trace_event *events;
    struct tattle_trace_mailbox *mailboxes;
    struct tattle_trace_actor *actors;
    const char **messages;
    struct tattle_trace_call *calls;
    struct tattle_trace_stack *stacks;
    struct tattle_frame *frames; /* every stack's */
    struct tattle_trace_endpoint *endpoints;
    struct tattle_trace_pending_send *pending_sends; /* every endpoint's */
};

static void free_read_trace(struct tattle_trace *trace)
{
    struct read_trace *owned = (struct read_trace *)trace;
    free(owned->events);
    free(owned->mailboxes);
    free(owned->actors);
    free(owned->messages);
    free(owned->calls);
    free(owned->stacks);
    free(owned->frames);
    free(owned->endpoints);
    free(owned->pending_sends);
    free(owned);
}

static bool read_frames(struct build *build, const cJSON *array,
                        const struct where *where, struct tattle_frame *frames)
{
    size_t i = 0;
    for (const cJSON *item = array->child; item; item = item->next, i++) {
        struct where at = {where, NULL, i};
        struct tattle_frame *frame = &frames[i];
        const char *address;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_text(build, item, "function", &at, true, &frame->function) ||
            !get_text(build, item, "file", &at, true, &frame->file) ||
            !get_line(build, item, "line", &at, &frame->line) ||
            !get_text(build, item, "address", &at, false, &address))
            return false;
        char *end;
        errno = 0;
        unsigned long long value = strtoull(address, &end, 16);
        if (strncmp(address, "0x", 2) != 0 || end == address + 2 || *end ||
            errno || value > UINTPTR_MAX) {
            struct where field = {&at, "address", 0};
            return fail_in(
                build, &field,
                "expected a hexadecimal address such as \"0x4005d0\"");
        }
        frame->address = (uintptr_t)value;
    }
    return true;
}

/* A timeout's threads, into `threads` (room for every item). */
static bool read_stacks(struct build *build, const cJSON *array,
                        const struct where *where,
                        struct tattle_thread_stack *threads)
{
    size_t i = 0;
    for (const cJSON *item = array->child; item; item = item->next, i++) {
        struct where at = {where, NULL, i};
        struct tattle_thread_stack *thread = &threads[i];
        long long pid, tid;
        const cJSON *frames;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_int(build, item, "pid", &at, &pid) ||
            !get_int(build, item, "tid", &at, &tid) ||
            !get_text(build, item, "actor", &at, true, &thread->actor) ||
            !get_text(build, item, "state", &at, true, &thread->state) ||
            !get_array(build, item, "frames", &at, &frames))
            return false;
        thread->pid = (int)pid;
        thread->tid = (int)tid;
        size_t count = (size_t)cJSON_GetArraySize(frames);
        struct tattle_frame *read =
            tattle__calloc(count ? count : 1, sizeof *read);
        thread->frames = read;
        struct where field = {&at, "frames", 0};
        if (!read_frames(build, frames, &field, read))
            return false;
        thread->frame_count = count;
    }
    return true;
}

static bool read_failures(struct build *build, const cJSON *test,
                          const struct where *where,
                          struct tattle__read_result *out)
{
    struct tattle__result_record *record = &out->record;
    const cJSON *failures;
    if (!get_array(build, test, "failures", where, &failures))
        return false;
    struct where list = {where, "failures", 0};
    size_t frame_total = 0;
    for (const cJSON *item = failures->child; item; item = item->next) {
        const cJSON *stack =
            cJSON_GetObjectItemCaseSensitive(item, "stacktrace");
        if (cJSON_IsArray(stack))
            frame_total += (size_t)cJSON_GetArraySize(stack);
    }
    if (frame_total)
        record->frames = tattle__calloc(frame_total, sizeof *record->frames);
    record->frame_count = frame_total;
    size_t stack_total = 0;
    for (const cJSON *item = failures->child; item; item = item->next) {
        const cJSON *stacks = cJSON_GetObjectItemCaseSensitive(item, "stacks");
        if (cJSON_IsArray(stacks))
            stack_total += (size_t)cJSON_GetArraySize(stacks);
    }
    if (stack_total)
        record->stacks = tattle__calloc(stack_total, sizeof *record->stacks);
    record->stack_count = stack_total;
    size_t frames_used = 0, stacks_used = 0, i = 0;
    for (const cJSON *item = failures->child; item; item = item->next, i++) {
        struct where at = {&list, NULL, i};
        int kind;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_enum(build, item, "kind", &at, kind_names, 5, &kind))
            return false;
        struct tattle_failure *failure =
            tattle__record_add_failure(record, (enum tattle_failure_kind)kind);
        if (!get_text(build, item, "message", &at, false, &failure->message) ||
            !get_text(build, item, "file", &at, true, &failure->file) ||
            !get_line(build, item, "line", &at, &failure->line))
            return false;
        long long number;
        switch (failure->kind) {
        case TATTLE_FAILURE_ASSERTION: {
            const cJSON *assertion;
            struct where in = {&at, "assertion", 0};
            if (!get_object(build, item, "assertion", &at, false, &assertion) ||
                !get_text(build, assertion, "macro", &in, true,
                          &failure->macro) ||
                !get_text(build, assertion, "expr", &in, true,
                          &failure->expr) ||
                !get_text(build, assertion, "left", &in, true,
                          &failure->left) ||
                !get_text(build, assertion, "right", &in, true,
                          &failure->right))
                return false;
            break;
        }
        case TATTLE_FAILURE_CRASH: {
            const char *name;
            if (!get_text(build, item, "signal", &at, false, &name))
                return false;
            failure->signal = signal_number(name);
            if (failure->signal < 0) {
                struct where field = {&at, "signal", 0};
                return fail_in(
                    build, &field,
                    "\"%.40s\" is not a signal name such as \"SIGSEGV\"", name);
            }
            break;
        }
        case TATTLE_FAILURE_EXIT:
            if (!get_int(build, item, "exit_code", &at, &number))
                return false;
            failure->exit_code = (int)number;
            break;
        case TATTLE_FAILURE_TIMEOUT: {
            uint64_t timeout;
            if (!get_uint(build, item, "timeout_ms", &at, LONG_MAX, &timeout))
                return false;
            failure->timeout_ms = (long)timeout;
            break;
        }
        case TATTLE_FAILURE_ERROR:
            break;
        }
        const cJSON *stack =
            cJSON_GetObjectItemCaseSensitive(item, "stacktrace");
        if (stack) {
            struct where field = {&at, "stacktrace", 0};
            if (!cJSON_IsArray(stack))
                return fail_in(build, &field, "expected an array, found %s",
                               tattle__json_describe(stack));
            size_t count = (size_t)cJSON_GetArraySize(stack);
            if (!read_frames(build, stack, &field,
                             record->frames + frames_used))
                return false;
            failure = &record->failures[i];
            failure->frames = record->frames + frames_used;
            failure->frame_count = count;
            frames_used += count;
        }
        if (!get_optional_text(build, item, "fixture", &at,
                               &record->failures[i].fixture))
            return false;
        const cJSON *stacks = cJSON_GetObjectItemCaseSensitive(item, "stacks");
        if (stacks) {
            struct where field = {&at, "stacks", 0};
            if (!cJSON_IsArray(stacks))
                return fail_in(build, &field, "expected an array, found %s",
                               tattle__json_describe(stacks));
            size_t count = (size_t)cJSON_GetArraySize(stacks);
            if (!read_stacks(build, stacks, &field,
                             record->stacks + stacks_used))
                return false;
            failure = &record->failures[i];
            failure->stacks = record->stacks + stacks_used;
            failure->stack_count = count;
            stacks_used += count;
        }
        const cJSON *filtered =
            cJSON_GetObjectItemCaseSensitive(item, "filtered");
        if (filtered) {
            if (!cJSON_IsBool(filtered)) {
                struct where field = {&at, "filtered", 0};
                return fail_in(build, &field, "expected true, found %s",
                               tattle__json_describe(filtered));
            }
            record->failures[i].filtered = cJSON_IsTrue(filtered);
        }
    }
    return true;
}

static bool read_output(struct build *build, const cJSON *test,
                        const struct where *where, struct tattle_result *result)
{
    const cJSON *output;
    struct where in = {where, "output", 0};
    bool truncated;
    if (!get_object(build, test, "output", where, false, &output) ||
        !get_text(build, output, "stdout", &in, false,
                  &result->stdout_output.text) ||
        !get_text(build, output, "stderr", &in, false,
                  &result->stderr_output.text) ||
        !get_uint(build, output, "stdout_bytes", &in, UINT64_MAX,
                  &result->stdout_output.bytes) ||
        !get_uint(build, output, "stderr_bytes", &in, UINT64_MAX,
                  &result->stderr_output.bytes) ||
        !get_bool(build, output, "truncated", &in, &truncated))
        return false;
    result->stdout_output.length = strlen(result->stdout_output.text);
    result->stderr_output.length = strlen(result->stderr_output.text);
    result->stdout_output.truncated = truncated;
    result->stderr_output.truncated = truncated;
    return true;
}

static bool check_array(struct build *build, const cJSON *object,
                        const char *key, const struct where *where,
                        const cJSON **out, size_t *count)
{
    if (!get_array(build, object, key, where, out))
        return false;
    *count = (size_t)cJSON_GetArraySize(*out);
    return true;
}

static const char *const call_kind_names[] = {"enter", "exit"};

/* A `trace_calls` test's "call_cap", "calls_recorded", "calls_lost" (absent
 * in older reports: none), "calls" and "stacks". */
/* What the kernel held in an endpoint, when a live process peeked it
 * ("kernel_peeked_by" names which; absent in older reports and when none
 * did). */
static bool read_kernel_peek(struct build *build, const cJSON *item,
                             const struct where *at,
                             struct tattle_trace_endpoint *endpoint)
{
    const char *by;
    if (!get_optional_text(build, item, "kernel_peeked_by", at, &by))
        return false;
    if (by == NULL)
        return true;
    if (strcmp(by, "test") != 0 && strcmp(by, "runner") != 0) {
        struct where here = {at, "kernel_peeked_by", 0};
        return fail_in(build, &here, "expected \"test\" or \"runner\"");
    }
    endpoint->kernel_peeked = true;
    endpoint->kernel_peeked_by_runner = strcmp(by, "runner") == 0;
    return get_uint(build, item, "kernel_pending_bytes", at, UINT64_MAX,
                    &endpoint->kernel_pending_bytes) &&
           get_uint(build, item, "kernel_pending_messages", at, UINT64_MAX,
                    &endpoint->kernel_pending_messages) &&
           get_text(build, item, "kernel_msg", at, false,
                    &endpoint->kernel_msg);
}

/* The trace's unread endpoints (reports written before they were added
 * have none). */
static bool read_endpoints(struct build *build, const cJSON *object,
                           const struct where *in, struct read_trace *owned)
{
    struct tattle_trace *trace = &owned->trace;
    const cJSON *endpoints;
    if (!check_array(build, object, "endpoints", in, &endpoints,
                     &trace->endpoint_count))
        return false;
    owned->endpoints =
        tattle__calloc(trace->endpoint_count, sizeof *owned->endpoints);
    trace->endpoints = owned->endpoints;
    size_t total = 0;
    for (const cJSON *item = endpoints->child; item; item = item->next) {
        const cJSON *messages =
            cJSON_GetObjectItemCaseSensitive(item, "messages");
        if (cJSON_IsArray(messages))
            total += (size_t)cJSON_GetArraySize(messages);
    }
    owned->pending_sends = tattle__calloc(total, sizeof *owned->pending_sends);
    size_t used = 0;
    struct where list = {in, "endpoints", 0};
    size_t i = 0;
    for (const cJSON *item = endpoints->child; item; item = item->next, i++) {
        struct where at = {&list, NULL, i};
        struct tattle_trace_endpoint *endpoint = &owned->endpoints[i];
        const cJSON *messages;
        size_t count;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_text(build, item, "name", &at, false, &endpoint->name) ||
            !get_text(build, item, "kind", &at, false, &endpoint->kind) ||
            !get_text(build, item, "owner", &at, true, &endpoint->owner) ||
            !get_uint(build, item, "pending_bytes", &at, UINT64_MAX,
                      &endpoint->pending_bytes) ||
            !get_uint(build, item, "pending_messages", &at, UINT64_MAX,
                      &endpoint->pending_messages) ||
            !check_array(build, item, "messages", &at, &messages, &count) ||
            !get_bool(build, item, "complete", &at, &endpoint->complete) ||
            !read_kernel_peek(build, item, &at, endpoint))
            return false;
        if (count > total - used)
            return fail_in(build, &at, "more messages than were counted");
        struct tattle_trace_pending_send *sends = owned->pending_sends + used;
        endpoint->messages = sends;
        endpoint->message_count = count;
        struct where message_list = {&at, "messages", 0};
        size_t k = 0;
        for (const cJSON *message = messages->child; message;
             message = message->next, k++) {
            struct where element = {&message_list, NULL, k};
            if (!cJSON_IsObject(message))
                return fail_in(build, &element, "expected an object, found %s",
                               tattle__json_describe(message));
            if (!get_uint(build, message, "send", &element, UINT64_MAX,
                          &sends[k].send) ||
                !get_uint(build, message, "bytes", &element, UINT64_MAX,
                          &sends[k].bytes) ||
                !get_text(build, message, "msg", &element, false,
                          &sends[k].msg))
                return false;
        }
        used += count;
    }
    return true;
}

static bool read_calls(struct build *build, const cJSON *object,
                       const struct where *in, struct read_trace *owned)
{
    struct tattle_trace *trace = &owned->trace;
    const cJSON *calls, *stacks;
    if (!get_uint(build, object, "call_cap", in, UINT64_MAX,
                  &trace->call_cap) ||
        !get_uint(build, object, "calls_recorded", in, UINT64_MAX,
                  &trace->calls_recorded) ||
        (cJSON_GetObjectItemCaseSensitive(object, "calls_lost") != NULL &&
         !get_uint(build, object, "calls_lost", in, UINT64_MAX,
                   &trace->calls_lost)) ||
        !check_array(build, object, "calls", in, &calls, &trace->call_count) ||
        !check_array(build, object, "stacks", in, &stacks, &trace->stack_count))
        return false;
    trace->calls_traced = true;
    owned->calls = tattle__calloc(trace->call_count + 1, sizeof *owned->calls);
    trace->calls = owned->calls;
    struct where list = {in, "calls", 0};
    size_t i = 0;
    for (const cJSON *item = calls->child; item; item = item->next, i++) {
        struct where at = {&list, NULL, i};
        struct tattle_trace_call *call = &owned->calls[i];
        int kind;
        uint64_t depth;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_uint(build, item, "seq", &at, UINT64_MAX, &call->seq) ||
            !get_uint(build, item, "t_us", &at, UINT64_MAX, &call->t_us) ||
            !get_text(build, item, "actor", &at, true, &call->actor) ||
            !get_enum(build, item, "kind", &at, call_kind_names, 2, &kind) ||
            !get_text(build, item, "function", &at, true, &call->function) ||
            !get_text(build, item, "file", &at, true, &call->file) ||
            !get_line(build, item, "line", &at, &call->line) ||
            !get_uint(build, item, "depth", &at, UINT32_MAX, &depth))
            return false;
        call->kind = (enum tattle_trace_call_kind)kind;
        call->depth = (unsigned)depth;
    }
    size_t frame_total = 0;
    for (const cJSON *item = stacks->child; item; item = item->next) {
        const cJSON *frames = cJSON_GetObjectItemCaseSensitive(item, "frames");
        if (cJSON_IsArray(frames))
            frame_total += (size_t)cJSON_GetArraySize(frames);
    }
    owned->stacks =
        tattle__calloc(trace->stack_count + 1, sizeof *owned->stacks);
    owned->frames = tattle__calloc(frame_total + 1, sizeof *owned->frames);
    trace->stacks = owned->stacks;
    size_t frames_used = 0;
    list = (struct where){in, "stacks", 0};
    i = 0;
    for (const cJSON *item = stacks->child; item; item = item->next, i++) {
        struct where at = {&list, NULL, i};
        struct tattle_trace_stack *stack = &owned->stacks[i];
        const cJSON *frames;
        uint64_t depth;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_text(build, item, "actor", &at, true, &stack->actor) ||
            !get_uint(build, item, "depth", &at, UINT32_MAX, &depth) ||
            !get_array(build, item, "frames", &at, &frames))
            return false;
        stack->depth = (unsigned)depth;
        stack->frames = owned->frames + frames_used;
        stack->frame_count = (size_t)cJSON_GetArraySize(frames);
        struct where field = {&at, "frames", 0};
        if (!read_frames(build, frames, &field, owned->frames + frames_used))
            return false;
        frames_used += stack->frame_count;
    }
    return true;
}

static bool read_trace(struct build *build, const cJSON *test,
                       const struct where *where,
                       struct tattle__read_result *out)
{
    const cJSON *object;
    if (!get_object(build, test, "trace", where, true, &object))
        return false;
    if (!object)
        return true;
    struct where in = {where, "trace", 0};
    struct read_trace *owned = tattle__calloc(1, sizeof *owned);
    tattle__record_set_trace(&out->record, &owned->trace, free_read_trace);
    struct tattle_trace *trace = &owned->trace;
    long long level;
    const cJSON *events, *mailboxes, *actors;
    if (!get_uint(build, object, "cap", &in, UINT64_MAX, &trace->cap) ||
        !get_uint(build, object, "budget", &in, UINT64_MAX, &trace->budget) ||
        !get_int(build, object, "level", &in, &level) ||
        !get_uint(build, object, "recorded", &in, UINT64_MAX,
                  &trace->recorded) ||
        !get_uint(build, object, "dropped", &in, UINT64_MAX, &trace->dropped) ||
        !get_bool(build, object, "overflow", &in, &trace->overflow) ||
        !check_array(build, object, "events", &in, &events,
                     &trace->event_count) ||
        !check_array(build, object, "mailboxes", &in, &mailboxes,
                     &trace->mailbox_count) ||
        !check_array(build, object, "actors", &in, &actors,
                     &trace->actor_count))
        return false;
    trace->level = (int)level;

    owned->events = tattle__calloc(trace->event_count, sizeof *owned->events);
    trace->events = owned->events;
    struct where list = {&in, "events", 0};
    size_t i = 0;
    for (const cJSON *item = events->child; item; item = item->next, i++) {
        struct where at = {&list, NULL, i};
        struct tattle_trace_event *event = &owned->events[i];
        int kind;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_uint(build, item, "seq", &at, UINT64_MAX, &event->seq) ||
            !get_uint(build, item, "t_us", &at, UINT64_MAX, &event->t_us) ||
            !get_enum(build, item, "kind", &at, event_kind_names, 5, &kind) ||
            !get_optional_text(build, item, "from", &at, &event->from) ||
            !get_optional_text(build, item, "to", &at, &event->to) ||
            !get_optional_text(build, item, "label", &at, &event->label) ||
            !get_optional_text(build, item, "msg", &at, &event->msg) ||
            !get_uint(build, item, "size", &at, UINT64_MAX, &event->size) ||
            !get_int(build, item, "level", &at, &level))
            return false;
        if (cJSON_GetObjectItemCaseSensitive(item, "match") &&
            !get_uint(build, item, "match", &at, UINT64_MAX, &event->match))
            return false;
        event->kind = (enum tattle_trace_event_kind)kind;
        event->level = (int)level;
    }

    owned->mailboxes =
        tattle__calloc(trace->mailbox_count, sizeof *owned->mailboxes);
    trace->mailboxes = owned->mailboxes;
    size_t message_total = 0;
    for (const cJSON *item = mailboxes->child; item; item = item->next) {
        const cJSON *messages =
            cJSON_GetObjectItemCaseSensitive(item, "messages");
        if (cJSON_IsArray(messages))
            message_total += (size_t)cJSON_GetArraySize(messages);
    }
    owned->messages = tattle__calloc(message_total, sizeof *owned->messages);
    size_t messages_used = 0;
    list = (struct where){&in, "mailboxes", 0};
    i = 0;
    for (const cJSON *item = mailboxes->child; item; item = item->next, i++) {
        struct where at = {&list, NULL, i};
        struct tattle_trace_mailbox *mailbox = &owned->mailboxes[i];
        const cJSON *messages;
        size_t count;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_text(build, item, "name", &at, false, &mailbox->name) ||
            !get_text(build, item, "owner", &at, true, &mailbox->owner) ||
            !get_bool(build, item, "alive", &at, &mailbox->alive) ||
            !get_uint(build, item, "pending", &at, UINT64_MAX,
                      &mailbox->pending) ||
            !check_array(build, item, "messages", &at, &messages, &count) ||
            !get_bool(build, item, "approx", &at, &mailbox->approx))
            return false;
        mailbox->messages = owned->messages + messages_used;
        mailbox->message_count = count;
        struct where message_list = {&at, "messages", 0};
        size_t k = 0;
        for (const cJSON *message = messages->child; message;
             message = message->next, k++) {
            struct where element = {&message_list, NULL, k};
            if (!text_of(build, message, &element, false,
                         &owned->messages[messages_used + k]))
                return false;
        }
        messages_used += count;
    }

    owned->actors = tattle__calloc(trace->actor_count, sizeof *owned->actors);
    trace->actors = owned->actors;
    list = (struct where){&in, "actors", 0};
    i = 0;
    for (const cJSON *item = actors->child; item; item = item->next, i++) {
        struct where at = {&list, NULL, i};
        struct tattle_trace_actor *actor = &owned->actors[i];
        long long pid, tid;
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        if (!get_text(build, item, "name", &at, false, &actor->name) ||
            !get_int(build, item, "pid", &at, &pid) ||
            !get_int(build, item, "tid", &at, &tid) ||
            !get_bool(build, item, "alive_at_exit", &at, &actor->alive_at_exit))
            return false;
        actor->pid = (int)pid;
        actor->tid = (int)tid;
    }
    if (cJSON_GetObjectItemCaseSensitive(object, "endpoints") &&
        !read_endpoints(build, object, &in, owned))
        return false;
    if (cJSON_GetObjectItemCaseSensitive(object, "calls"))
        return read_calls(build, object, &in, owned);
    return true;
}

static bool read_tags(struct build *build, const cJSON *test,
                      const struct where *where,
                      struct tattle__read_result *out)
{
    const cJSON *tags;
    if (!get_object(build, test, "tags", where, false, &tags))
        return false;
    size_t count = (size_t)cJSON_GetArraySize(tags);
    out->tags = tattle__calloc(count, sizeof *out->tags);
    struct where in = {where, "tags", 0};
    size_t i = 0;
    for (const cJSON *tag = tags->child; tag; tag = tag->next, i++) {
        out->tags[i].name = tag->string;
        if (cJSON_IsString(tag))
            out->tags[i].value = tag->valuestring;
        else if (!cJSON_IsTrue(tag)) {
            struct where at = {&in, tag->string, 0};
            return fail_in(build, &at, "expected true or a string, found %s",
                           tattle__json_describe(tag));
        }
    }
    out->test.tags = out->tags;
    out->test.tag_count = count;
    return true;
}

/* A retried test's "earlier_attempts", when it has them: each becomes an
 * earlier attempt of out's record, its strings in out's tree. */
static bool read_earlier_attempts(struct build *build, const cJSON *test,
                                  const struct where *where,
                                  struct tattle__read_result *out)
{
    const cJSON *attempts =
        cJSON_GetObjectItemCaseSensitive(test, "earlier_attempts");
    if (!attempts)
        return true;
    struct where list = {where, "earlier_attempts", 0};
    if (!cJSON_IsArray(attempts))
        return fail_in(build, &list, "expected an array, found %s",
                       tattle__json_describe(attempts));
    size_t i = 0;
    for (const cJSON *item = attempts->child; item; item = item->next, i++) {
        struct where at = {&list, NULL, i};
        if (!cJSON_IsObject(item))
            return fail_in(build, &at, "expected an object, found %s",
                           tattle__json_describe(item));
        struct tattle__read_result attempt = {.record.result.test = &out->test};
        int state = TATTLE_STATE_FAILED;
        /* "attempt" came later than the rest: without it the number is
         * worked out from where the failed runs end. */
        uint64_t number = 0;
        bool negative;
        bool ok = (!find_member(build, item, "attempt") ||
                   get_integer(build, item, "attempt", &at, 1, UINT_MAX,
                               &negative, &number)) &&
                  get_enum(build, item, "state", &at, state_names, 5, &state) &&
                  get_uint(build, item, "duration_us", &at, UINT64_MAX,
                           &attempt.record.result.duration_us) &&
                  read_failures(build, item, &at, &attempt) &&
                  read_output(build, item, &at, &attempt.record.result);
        attempt.record.result.state = (enum tattle_state)state;
        attempt.record.result.attempts = (unsigned)number;
        if (ok)
            tattle__record_add_earlier(&out->record, &attempt.record);
        tattle__record_release(&attempt.record);
        if (!ok)
            return false;
    }
    return true;
}

/* Builds out (whose tree holds `test`) from the TEST object. */
static bool build_result(const cJSON *test, const struct where *where,
                         struct build build, struct tattle__read_result *out)
{
    struct tattle_test_info *info = &out->test;
    struct tattle_result *result = &out->record.result;
    result->test = info;
    if (!cJSON_IsObject(test))
        return fail_in(&build, where, "expected a test object, found %s",
                       tattle__json_describe(test));
    int state;
    uint64_t attempts;
    const char *rerun;
    if (!get_text(&build, test, "id", where, false, &info->id) ||
        !get_text(&build, test, "suite", where, false, &info->suite) ||
        !get_text(&build, test, "name", where, false, &info->name) ||
        !get_text(&build, test, "file", where, true, &info->file) ||
        !get_line(&build, test, "line", where, &info->line) ||
        !get_optional_text(&build, test, "param", where, &info->param) ||
        !read_tags(&build, test, where, out) ||
        !get_enum(&build, test, "state", where, state_names, 5, &state) ||
        !get_uint(&build, test, "duration_us", where, UINT64_MAX,
                  &result->duration_us) ||
        !get_uint(&build, test, "attempts", where, UINT_MAX, &attempts) ||
        !get_bool(&build, test, "flaky", where, &result->flaky) ||
        !read_failures(&build, test, where, out) ||
        !read_earlier_attempts(&build, test, where, out) ||
        !get_text(&build, test, "skip_reason", where, true,
                  &result->skip_reason) ||
        !read_output(&build, test, where, result) ||
        !read_trace(&build, test, where, out) ||
        !get_text(&build, test, "rerun", where, true, &rerun))
        return false;
    result->state = (enum tattle_state)state;
    result->attempts = (unsigned)attempts;
    result->rerun = tattle__strdup(rerun);
    info->traced = result->trace != NULL;
    return true;
}

void tattle__read_result_release(struct tattle__read_result *result)
{
    tattle__record_release(&result->record);
    free(result->tags);
    if (result->arena.chunks)
        tattle__json_arena_release(&result->arena);
    else
        cJSON_Delete(result->tree);
    *result = (struct tattle__read_result){0};
}

/* ---- Streams
 * ------------------------------------------------------------------ */

/* Drops the finished entries and rebuilds the table for `slot_count`. */
static void rebuild_open(struct tattle__reader *reader, size_t slot_count)
{
    size_t kept = 0;
    for (size_t i = 0; i < reader->unfinished_count; i++)
        if (reader->unfinished[i].id)
            reader->unfinished[kept++] = reader->unfinished[i];
    reader->unfinished_count = kept;
    reader->unfinished_done = 0;
    free(reader->open_slots);
    reader->open_slots = tattle__calloc(slot_count, sizeof *reader->open_slots);
    reader->open_slot_count = slot_count;
    for (size_t i = 0; i < kept; i++) {
        size_t s = reader->unfinished[i].hash & (slot_count - 1);
        while (reader->open_slots[s])
            s = (s + 1) & (slot_count - 1);
        reader->open_slots[s] = i + 1;
    }
}

static void note_started(struct tattle__reader *reader, const char *id)
{
    if ((reader->unfinished_count + 1) * 2 > reader->open_slot_count) {
        size_t open = reader->unfinished_count - reader->unfinished_done;
        size_t slots = reader->open_slot_count ? reader->open_slot_count : 64;
        while ((open + 1) * 2 > slots / 2)
            slots *= 2;
        rebuild_open(reader, slots);
    }
    if (reader->unfinished_count == reader->unfinished_capacity) {
        reader->unfinished_capacity =
            reader->unfinished_capacity ? 2 * reader->unfinished_capacity : 64;
        reader->unfinished =
            tattle__realloc(reader->unfinished, reader->unfinished_capacity *
                                                    sizeof *reader->unfinished);
    }
    uint64_t hash = tattle__hash_text(id);
    size_t s = hash & (reader->open_slot_count - 1);
    while (reader->open_slots[s])
        s = (s + 1) & (reader->open_slot_count - 1);
    reader->unfinished[reader->unfinished_count] =
        (struct unfinished_test){tattle__strdup(id), hash};
    reader->open_slots[s] = ++reader->unfinished_count;
}

/* Forgets the first open start of `id` (a test started twice and finished
 * once stays open once, as before). */
static void note_finished(struct tattle__reader *reader, const char *id)
{
    if (!reader->open_slot_count)
        return;
    uint64_t hash = tattle__hash_text(id);
    size_t best = 0;
    for (size_t s = hash & (reader->open_slot_count - 1); reader->open_slots[s];
         s = (s + 1) & (reader->open_slot_count - 1)) {
        size_t index = reader->open_slots[s];
        struct unfinished_test *test = &reader->unfinished[index - 1];
        if (test->id && test->hash == hash && strcmp(test->id, id) == 0 &&
            (!best || index < best))
            best = index;
    }
    if (!best)
        return;
    free(reader->unfinished[best - 1].id);
    reader->unfinished[best - 1].id = NULL;
    reader->unfinished_done++;
}

/* The next line of a stream, without its newline; 0 at the end. */
static int next_line(struct tattle__reader *reader, size_t *length,
                     bool *has_newline)
{
    for (size_t searched = reader->start;;) {
        const char *newline =
            memchr(reader->data + searched, '\n', reader->end - searched);
        if (newline) {
            *length = (size_t)(newline - (reader->data + reader->start));
            *has_newline = true;
            reader->line++;
            return 1;
        }
        if (reader->eof) {
            *length = reader->end - reader->start;
            *has_newline = false;
            if (*length == 0)
                return 0;
            reader->line++;
            return 1;
        }
        size_t offset = reader->end - reader->start;
        if (fill(reader) < 0)
            return -1;
        searched = reader->start + offset;
    }
}

enum line_event {
    LINE_RUN_STARTED,
    LINE_TEST_STARTED,
    LINE_TEST_FINISHED,
    LINE_RUN_FINISHED
};
static const char *const line_event_names[] = {"run_started", "test_started",
                                               "test_finished", "run_finished"};

/* One line of a stream: scanned, and parsed unless `ids_only`. */
struct stream_line {
    enum line_event event;
    cJSON *tree;                     /* parsed line (not when ids_only) */
    struct tattle__json_arena arena; /* test_finished: the tree's memory */
    char *id; /* test_started / test_finished when ids_only */
    uint64_t line;
};

static void release_line(struct stream_line *line)
{
    if (line->arena.chunks)
        tattle__json_arena_release(&line->arena);
    else
        cJSON_Delete(line->tree);
    free(line->id);
    *line = (struct stream_line){0};
}

static int stream_error(struct tattle__reader *reader, uint64_t line,
                        const char *format, ...) TATTLE__PRINTF(3, 4);
static int stream_error(struct tattle__reader *reader, uint64_t line,
                        const char *format, ...)
{
    struct tattle__buffer message = {0};
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(&message, format, args);
    va_end(args);
    set_error(reader, "line %" PRIu64 ": %s", line, message.data);
    tattle__buffer_release(&message);
    return -1;
}

/* The event and id of a test_started or test_finished line, read from
 * its first members without scanning the rest (the pass that reads the
 * test whole checks every byte). False for any other line, or any line
 * not shaped as tattle writes it: the full reading then decides. */
static bool quick_id(const char *line, size_t length, struct stream_line *out)
{
    size_t at, at_length;
    if (!tattle__json_scan_member(line, length, "event", &at, &at_length))
        return false;
    const char *event = line + at;
    const char *object = line;
    if (at_length == sizeof "\"test_started\"" - 1 &&
        memcmp(event, "\"test_started\"", at_length) == 0)
        out->event = LINE_TEST_STARTED;
    else if (at_length == sizeof "\"test_finished\"" - 1 &&
             memcmp(event, "\"test_finished\"", at_length) == 0) {
        out->event = LINE_TEST_FINISHED;
        if (!tattle__json_scan_member(line, length, "test", &at, NULL))
            return false;
        object = line + at;
        length -= at;
    } else
        return false;
    if (!tattle__json_scan_member(object, length, "id", &at, &at_length) ||
        object[at] != '"')
        return false;
    out->id = tattle__json_scan_string(object + at, at_length);
    return out->id != NULL;
}

/* The id of a test_started line that the scanner accepted, taken without
 * parsing the line: the line is all an id is read from. Only for a line
 * without escapes, which cJSON reads as the scanner does; any other line,
 * or an id that is missing or not a string, is parsed (and so refused
 * with the message of the parsed line). */
static bool started_id(const char *line, size_t length, struct stream_line *out)
{
    size_t at, at_length;
    if (memchr(line, '\\', length) ||
        !tattle__json_scan_member(line, length, "id", &at, &at_length) ||
        line[at] != '"')
        return false;
    out->id = tattle__json_scan_string(line + at, at_length);
    return out->id != NULL;
}

/* Reads the next non-blank line. Returns 1, 0 at the end, -1 on error. */
static int read_stream_line(struct tattle__reader *reader, bool ids_only,
                            struct stream_line *out)
{
    *out = (struct stream_line){0};
    for (;;) {
        size_t length;
        bool has_newline;
        int rc = next_line(reader, &length, &has_newline);
        if (rc <= 0)
            return rc;
        const char *text = reader->data + reader->start;
        uint64_t offset = here(reader);
        size_t consumed = length + (has_newline ? 1 : 0);
        size_t begin = tattle__json_skip_space(text, length, 0);
        if (begin == length) {
            reader->start += consumed;
            continue;
        }
        out->line = reader->line;
        if (ids_only && has_newline &&
            quick_id(text + begin, length - begin, out)) {
            reader->start += consumed;
            return 1;
        }
        reader->numbers.count = 0;
        struct tattle__json_scan_error error;
        size_t end;
        enum tattle__json_scan_status status = tattle__json_scan_value(
            text + begin, length - begin, &end, &reader->numbers, &error);
        if (status == TATTLE__JSON_SCAN_MORE) {
            if (!has_newline)
                return stream_error(
                    reader, out->line,
                    "truncated: the stream is cut mid-line (%s)",
                    "its last line is incomplete and has no newline");
            return error_at(reader, offset + length,
                            "not JSON: the line ends inside a value");
        }
        if (status == TATTLE__JSON_SCAN_ERROR) {
            char message[160];
            snprintf(message, sizeof message, "not JSON: %s", error.message);
            return error_at(reader, offset + begin + error.offset, message);
        }
        if (tattle__json_skip_space(text, length, begin + end) != length)
            return error_at(reader, offset + begin + end,
                            "not JSON Lines: text after the line's object");
        if (text[begin] != '{')
            return stream_error(reader, out->line,
                                "expected an object, found %s",
                                "another value");
        size_t event_offset, event_length;
        char *event = NULL;
        if (tattle__json_scan_member(text + begin, end, "event", &event_offset,
                                     &event_length))
            event = tattle__json_scan_string(text + begin + event_offset,
                                             event_length);
        int which = -1;
        for (int i = 0; event && i < 4; i++)
            if (strcmp(event, line_event_names[i]) == 0)
                which = i;
        if (which < 0) {
            char shown[64];
            snprintf(shown, sizeof shown, "%.40s", event ? event : "");
            free(event);
            return stream_error(
                reader, out->line,
                event ? ".event: \"%s\" is not one of \"run_started\", "
                        "\"test_started\", \"test_finished\", \"run_finished\""
                      : ".event: missing or not a string%s",
                shown);
        }
        free(event);
        out->event = (enum line_event)which;
        if (!ids_only && which == LINE_TEST_STARTED &&
            started_id(text + begin, end, out)) {
            reader->start += consumed;
            return 1;
        }
        if (ids_only &&
            (which == LINE_TEST_STARTED || which == LINE_TEST_FINISHED)) {
            const char *object = text + begin;
            size_t object_length = end;
            size_t at, at_length;
            if (which == LINE_TEST_FINISHED) {
                if (!tattle__json_scan_member(object, object_length, "test",
                                              &at, &at_length))
                    return stream_error(reader, out->line, ".test: %s",
                                        "missing");
                object += at;
                object_length = at_length;
            }
            if (tattle__json_scan_member(object, object_length, "id", &at,
                                         &at_length))
                out->id = tattle__json_scan_string(object + at, at_length);
            if (!out->id)
                return stream_error(
                    reader, out->line, "%s: missing or not a string",
                    which == LINE_TEST_FINISHED ? ".test.id" : ".id");
        } else if (!ids_only || which != LINE_RUN_STARTED) {
            struct tattle__json_scan_error parse_error;
            out->tree = tattle__json_scan_parse_in(
                text + begin, end, &reader->numbers,
                which == LINE_TEST_FINISHED ? &out->arena : NULL, &parse_error);
            if (!out->tree)
                tattle__json_arena_release(&out->arena);
            if (!out->tree)
                return error_at(reader, offset + begin + parse_error.offset,
                                parse_error.message);
        }
        reader->start += consumed;
        return 1;
    }
}

static int open_stream(struct tattle__reader *reader)
{
    struct stream_line line;
    int rc = read_stream_line(reader, false, &line);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        set_error(reader, "empty: not a report or a stream");
        return -1;
    }
    struct build build = {.reader = reader, .line = line.line, .offset = 0};
    if (line.event != LINE_RUN_STARTED) {
        cJSON_Delete(line.tree);
        set_error(reader,
                  "line %" PRIu64 ": a stream starts with run_started, not %s",
                  line.line, line_event_names[line.event]);
        return -1;
    }
    reader->run_tree = line.tree;
    struct where version = {NULL, "version", 0};
    const cJSON *tool, *run;
    uint64_t planned;
    if (!check_version(cJSON_GetObjectItemCaseSensitive(line.tree, "version"),
                       &version, build) ||
        !get_object(&build, line.tree, "tool", NULL, false, &tool) ||
        !(run = member(&build, line.tree, "run", NULL)) ||
        !read_run(reader, run, false, build) ||
        !get_uint(&build, line.tree, "planned", NULL, UINT64_MAX, &planned))
        return -1;
    reader->run.planned = planned;
    /* A stream may hold results its plan did not count (a wrapped
     * program's inner tests, a suite's late after_all): written again,
     * its count is known only at its end. */
    reader->run.planned_open = true;
    return 0;
}

/* The result of a test the stream started and never finished. */
static void build_unfinished(struct tattle__reader *reader, const char *id,
                             struct tattle__read_result *out)
{
    struct tattle__result_record *record = &out->record;
    struct tattle_test_info *info = &out->test;
    info->id = tattle__record_copy(record, id);
    const char *slash = strchr(id, '/');
    if (slash) {
        char *suite = tattle__strdup(id);
        suite[slash - id] = '\0';
        info->suite = tattle__record_own(record, suite);
        info->name = tattle__record_copy(record, slash + 1);
    } else {
        info->suite = info->id;
        info->name = info->id;
    }
    record->result.test = info;
    record->result.state = TATTLE_STATE_FAILED;
    record->result.attempts = 1;
    record->result.stdout_output = (struct tattle_output){.text = ""};
    record->result.stderr_output = (struct tattle_output){.text = ""};
    tattle__record_add_error(
        record,
        "killed: the run ended while this test was running (%s has "
        "its test_started but no result: the runner was killed)",
        reader->path);
    const char *program =
        reader->run.argc > 0 ? reader->run.argv[0] : reader->run.executable;
    if (program)
        record->result.rerun = tattle__rerun_command(program, id);
}

/* The next test of a stream: a finished one, or at the end an unfinished
 * one. Exactly one of `result` and `id` is set. */
static int next_stream_test(struct tattle__reader *reader,
                            struct tattle__read_result *result, char **id)
{
    while (!reader->stream_ended) {
        struct stream_line line;
        int rc = read_stream_line(reader, id != NULL, &line);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            reader->stream_ended = true;
            break;
        }
        if (reader->finished) {
            set_error(reader, "line %" PRIu64 ": a line after run_finished",
                      line.line);
            release_line(&line);
            return -1;
        }
        struct build build = {.reader = reader, .line = line.line, .offset = 0};
        switch (line.event) {
        case LINE_RUN_STARTED:
            cJSON_Delete(line.tree);
            set_error(reader,
                      "line %" PRIu64
                      ": a second run_started: one run per stream",
                      line.line);
            return -1;
        case LINE_TEST_STARTED:
            if (line.tree) {
                const char *started;
                bool ok =
                    get_text(&build, line.tree, "id", NULL, false, &started);
                if (ok)
                    note_started(reader, started);
                cJSON_Delete(line.tree);
                if (!ok)
                    return -1;
            } else {
                note_started(reader, line.id);
                free(line.id);
            }
            break;
        case LINE_TEST_FINISHED: {
            if (id) {
                note_finished(reader, line.id);
                *id = line.id;
                return 1;
            }
            *result = (struct tattle__read_result){.tree = line.tree,
                                                   .arena = line.arena};
            const cJSON *test =
                cJSON_GetObjectItemCaseSensitive(line.tree, "test");
            struct where where = {NULL, "test", 0};
            if (!test) {
                fail_in(&build, &where, "missing");
                return -1;
            }
            if (!build_result(test, &where, build, result))
                return -1;
            result->line = line.line;
            note_finished(reader, result->test.id);
            reader->tests_duration += result->record.result.duration_us;
            return 1;
        }
        case LINE_RUN_FINISHED: {
            struct where where = {NULL, "summary", 0};
            bool interrupted = false;
            bool ok = true;
            if (line.tree) {
                const cJSON *summary =
                    member(&build, line.tree, "summary", NULL);
                ok = summary && read_summary(reader, summary, &where, build) &&
                     get_bool(&build, line.tree, "interrupted", NULL,
                              &interrupted);
                reader->summary.interrupted = interrupted;
                reader->duration_us = reader->summary.duration_us;
                cJSON_Delete(line.tree);
            }
            if (!ok)
                return -1;
            reader->finished = true;
            break;
        }
        }
    }
    if (!reader->finished) {
        reader->cut_short = true;
        reader->duration_us = reader->tests_duration;
    }
    while (reader->unfinished_next < reader->unfinished_count &&
           !reader->unfinished[reader->unfinished_next].id)
        reader->unfinished_next++;
    if (reader->unfinished_next < reader->unfinished_count) {
        const char *unfinished =
            reader->unfinished[reader->unfinished_next++].id;
        if (id) {
            *id = tattle__strdup(unfinished);
            return 1;
        }
        *result = (struct tattle__read_result){0};
        build_unfinished(reader, unfinished, result);
        return 1;
    }
    return 0;
}

/* ---- Reports
 * ------------------------------------------------------------------ */

static void describe_test(char *text, size_t size, size_t index)
{
    snprintf(text, size, ".tests[%zu]", index);
}

/* Moves past the next element of the tests array: stores its length at
 * the window's start, or returns 0 after the closing bracket. */
static int next_element(struct tattle__reader *reader, size_t *length,
                        bool numbers)
{
    if (reader->tests_done)
        return 0;
    int c = peek(reader);
    if (c == -2)
        return -1;
    char inside[64];
    describe_test(inside, sizeof inside, reader->test_index);
    if (c == -1) {
        char message[120];
        snprintf(message, sizeof message,
                 "truncated: the file ends inside .tests, before %s", inside);
        return error_at(reader, here(reader), message);
    }
    if (reader->test_index > 0 || c == ']') {
        if (c == ']') {
            reader->start++;
            reader->tests_done = true;
            return 0;
        }
        if (c != ',')
            return error_at(reader, here(reader),
                            "not JSON: expected ',' or ']' in .tests");
        reader->start++;
        c = peek(reader);
        if (c < 0)
            return c == -2 ? -1
                           : error_at(reader, here(reader),
                                      "truncated: the file ends inside .tests");
    }
    if (scan_window_value(reader, length, numbers, inside) < 0)
        return -1;
    return 1;
}

static int expect_byte(struct tattle__reader *reader, char wanted,
                       const char *message)
{
    int c = peek(reader);
    if (c == -2)
        return -1;
    if (c == -1)
        return error_at(reader, here(reader),
                        "truncated: the file ends inside the report");
    if (c != wanted)
        return error_at(reader, here(reader), message);
    reader->start++;
    return 0;
}

/* Reads the report's top-level object: every member but the tests parsed,
 * the tests scanned (so the whole file is known to be JSON). */
static int open_report(struct tattle__reader *reader)
{
    if (expect_byte(reader, '{',
                    "not a report or a stream: not a JSON object") < 0)
        return -1;
    int c = peek(reader);
    if (c == '}') {
        reader->start++;
    } else {
        for (;;) {
            size_t length;
            if (c == -2)
                return -1;
            if (c != '"')
                return c == -1
                           ? error_at(
                                 reader, here(reader),
                                 "truncated: the file ends inside the report")
                           : error_at(
                                 reader, here(reader),
                                 "not JSON: expected a member name in quotes");
            if (scan_window_value(reader, &length, false, "a member name") < 0)
                return -1;
            char *key =
                tattle__json_scan_string(reader->data + reader->start, length);
            reader->start += length;
            if (!key)
                return error_at(reader, here(reader),
                                "not JSON: a bad member name");
            if (expect_byte(reader, ':', "not JSON: expected ':'") < 0 ||
                peek(reader) < -1) {
                free(key);
                return -1;
            }
            if (strcmp(key, "tests") == 0) {
                free(key);
                key = NULL;
                if (expect_byte(reader, '[', ".tests: expected an array") < 0)
                    return -1;
                reader->has_tests = true;
                reader->tests_offset = here(reader);
                int rc;
                while ((rc = next_element(reader, &length, false)) > 0) {
                    reader->start += length;
                    reader->test_index++;
                }
                if (rc < 0)
                    return -1;
            } else {
                char inside[80];
                snprintf(inside, sizeof inside, ".%.60s", key);
                if (scan_window_value(reader, &length, true, inside) < 0) {
                    free(key);
                    return -1;
                }
                cJSON *tree = parse_window_value(reader, length, NULL);
                if (!tree) {
                    free(key);
                    return -1;
                }
                cJSON **slot =
                    strcmp(key, "version") == 0        ? &reader->version
                    : strcmp(key, "tool") == 0         ? &reader->tool
                    : strcmp(key, "run") == 0          ? &reader->run_tree
                    : strcmp(key, "summary") == 0      ? &reader->summary_tree
                    : strcmp(key, "error_groups") == 0 ? &reader->error_groups
                                                       : NULL;
                if (slot) {
                    cJSON_Delete(*slot);
                    *slot = tree;
                } else
                    cJSON_Delete(tree);
            }
            free(key);
            c = peek(reader);
            if (c == ',') {
                reader->start++;
                c = peek(reader);
                continue;
            }
            if (c == '}') {
                reader->start++;
                break;
            }
            if (c == -2)
                return -1;
            return c == -1
                       ? error_at(reader, here(reader),
                                  "truncated: the file ends inside the report")
                       : error_at(
                             reader, here(reader),
                             "not JSON: expected ',' or '}' after a member");
        }
    }
    c = peek(reader);
    if (c == -2)
        return -1;
    if (c != -1)
        return error_at(reader, here(reader),
                        "not JSON: text after the end of the report");

    struct build build = {.reader = reader, .line = 0, .offset = 0};
    struct where version = {NULL, "version", 0};
    struct where tool = {NULL, "tool", 0};
    struct where summary = {NULL, "summary", 0};
    if (!check_version(reader->version, &version, build))
        return -1;
    if (!reader->tool)
        return fail_in(&build, &tool, "missing"), -1;
    if (!cJSON_IsObject(reader->tool))
        return fail_in(&build, &tool, "expected an object, found %s",
                       tattle__json_describe(reader->tool)),
               -1;
    if (!reader->run_tree) {
        struct where run = {NULL, "run", 0};
        return fail_in(&build, &run, "missing"), -1;
    }
    if (!read_run(reader, reader->run_tree, true, build))
        return -1;
    if (!reader->summary_tree)
        return fail_in(&build, &summary, "missing"), -1;
    bool interrupted = reader->summary.interrupted;
    if (!read_summary(reader, reader->summary_tree, &summary, build))
        return -1;
    reader->summary.interrupted = interrupted;
    if (reader->error_groups && !cJSON_IsArray(reader->error_groups)) {
        struct where groups = {NULL, "error_groups", 0};
        return fail_in(&build, &groups, "expected an array, found %s",
                       tattle__json_describe(reader->error_groups)),
               -1;
    }
    reader->run.planned = reader->summary.total;

    /* Back to the tests. */
    if (reader->has_tests) {
        if (lseek(reader->fd, (off_t)reader->tests_offset, SEEK_SET) < 0) {
            set_error(reader, "cannot seek: %s", strerror(errno));
            return -1;
        }
        reader->base = reader->tests_offset;
        reader->start = reader->end = 0;
        reader->eof = false;
    }
    reader->test_index = 0;
    reader->tests_done = !reader->has_tests;
    return 0;
}

static int next_report_test(struct tattle__reader *reader,
                            struct tattle__read_result *result, char **id)
{
    size_t length;
    int rc = next_element(reader, &length, id == NULL);
    if (rc <= 0)
        return rc;
    size_t index = reader->test_index++;
    struct where where = {NULL, "tests", 0};
    struct where element = {&where, NULL, index};
    uint64_t offset = here(reader);
    if (id) {
        const char *text = reader->data + reader->start;
        size_t at, at_length;
        *id = NULL;
        if (tattle__json_scan_member(text, length, "id", &at, &at_length))
            *id = tattle__json_scan_string(text + at, at_length);
        reader->start += length;
        if (!*id) {
            struct build build = {
                .reader = reader, .line = 0, .offset = offset ? offset : 1};
            struct where field = {&element, "id", 0};
            fail_in(&build, &field, "missing or not a string");
            return -1;
        }
        return 1;
    }
    struct tattle__json_arena arena = {0};
    cJSON *tree = parse_window_value(reader, length, &arena);
    if (!tree) {
        tattle__json_arena_release(&arena);
        return -1;
    }
    *result = (struct tattle__read_result){.tree = tree, .arena = arena};
    /* The line is counted only for a message. */
    struct build build = {
        .reader = reader, .line = 0, .offset = offset ? offset : 1};
    return build_result(tree, &element, build, result) ? 1 : -1;
}

/* ---- The reader
 * -------------------------------------------------------------- */

/* Standard input may be a pipe and can be read only once: the first open
 * of "-" copies it to an anonymous file, which this process keeps, and
 * every open of "-" (merge reads each input in two passes) reads that
 * copy again from its start through a descriptor of its own. */
static int stdin_copy = -1;

static int copy_stdin(struct tattle__reader *reader)
{
    const char *tmp = getenv("TMPDIR");
    int fd = tattle__scratch_open(tmp && *tmp ? tmp : "/tmp");
    if (fd < 0) {
        set_error(reader, "cannot make a scratch file: %s", strerror(-fd));
        return -1;
    }
    char chunk[65536];
    for (;;) {
        ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            set_error(reader, "cannot read: %s", strerror(errno));
            close(fd);
            return -1;
        }
        if (n == 0)
            break;
        int rc = tattle__write_all(fd, chunk, (size_t)n);
        if (rc < 0) {
            set_error(reader, "cannot copy: %s", strerror(-rc));
            close(fd);
            return -1;
        }
    }
    stdin_copy = fd;
    return 0;
}

static int open_input(struct tattle__reader *reader, const char *path)
{
    if (strcmp(path, "-") != 0) {
        reader->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (reader->fd < 0) {
            set_error(reader, "cannot open: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    if (stdin_copy < 0 && copy_stdin(reader) < 0)
        return -1;
    /* A new open file description: its own offset, whatever other reader
     * of standard input is open; dup() where /proc is missing. */
    char again[64];
    snprintf(again, sizeof again, "/proc/self/fd/%d", stdin_copy);
    reader->fd = open(again, O_RDONLY | O_CLOEXEC);
    if (reader->fd < 0)
        reader->fd = fcntl(stdin_copy, F_DUPFD_CLOEXEC, 0);
    if (reader->fd < 0) {
        set_error(reader, "cannot read the copy of stdin: %s", strerror(errno));
        return -1;
    }
    if (lseek(reader->fd, 0, SEEK_SET) < 0) {
        set_error(reader, "cannot seek: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int tattle__reader_open(struct tattle__reader **out, const char *path)
{
    struct tattle__reader *reader = tattle__calloc(1, sizeof *reader);
    *out = reader;
    reader->path = tattle__strdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
    reader->fd = -1;
    if (open_input(reader, path) < 0)
        return -1;
    /* The first member names the kind: a stream's lines start with
     * "event", a report with "version". */
    while (!reader->eof && reader->end - reader->start < KIND_PEEK)
        if (fill(reader) < 0)
            return -1;
    size_t i =
        tattle__json_skip_space(reader->data, reader->end, reader->start);
    if (i == reader->end) {
        set_error(reader, "empty: not a report or a stream");
        return -1;
    }
    if (reader->data[i] != '{')
        return error_at(reader, i,
                        "not a report or a stream: not a JSON object");
    size_t key = tattle__json_skip_space(reader->data, reader->end, i + 1);
    size_t key_end;
    struct tattle__json_scan_error error;
    char *first = NULL;
    if (key < reader->end && reader->data[key] == '"' &&
        tattle__json_scan_value(reader->data + key, reader->end - key, &key_end,
                                NULL, &error) == TATTLE__JSON_SCAN_OK)
        first = tattle__json_scan_string(reader->data + key, key_end);
    reader->kind = first && strcmp(first, "event") == 0 ? TATTLE__INPUT_STREAM
                                                        : TATTLE__INPUT_REPORT;
    free(first);
    return reader->kind == TATTLE__INPUT_STREAM ? open_stream(reader)
                                                : open_report(reader);
}

const char *tattle__reader_error(const struct tattle__reader *reader)
{
    return reader->error;
}

const char *tattle__reader_path(const struct tattle__reader *reader)
{
    return reader->path;
}

enum tattle__input_kind tattle__reader_kind(const struct tattle__reader *reader)
{
    return reader->kind;
}

const struct tattle_run_info *
tattle__reader_run(const struct tattle__reader *reader)
{
    return &reader->run;
}

uint64_t tattle__reader_duration_us(const struct tattle__reader *reader)
{
    if (reader->kind == TATTLE__INPUT_STREAM && !reader->finished)
        return reader->tests_duration;
    return reader->duration_us;
}

const struct tattle_summary *
tattle__reader_summary(const struct tattle__reader *reader)
{
    return reader->has_summary ? &reader->summary : NULL;
}

bool tattle__reader_has_tests(const struct tattle__reader *reader)
{
    return reader->kind == TATTLE__INPUT_STREAM || reader->has_tests;
}

const cJSON *tattle__reader_error_groups(const struct tattle__reader *reader)
{
    return reader->error_groups;
}

bool tattle__reader_cut_short(const struct tattle__reader *reader)
{
    return reader->cut_short;
}

int tattle__reader_next(struct tattle__reader *reader,
                        struct tattle__read_result *result)
{
    *result = (struct tattle__read_result){0};
    if (reader->error)
        return -1;
    int rc = reader->kind == TATTLE__INPUT_STREAM
                 ? next_stream_test(reader, result, NULL)
                 : next_report_test(reader, result, NULL);
    if (rc < 0)
        tattle__read_result_release(result);
    return rc;
}

int tattle__reader_next_id(struct tattle__reader *reader, char **id)
{
    *id = NULL;
    if (reader->error)
        return -1;
    return reader->kind == TATTLE__INPUT_STREAM
               ? next_stream_test(reader, NULL, id)
               : next_report_test(reader, NULL, id);
}

void tattle__reader_close(struct tattle__reader *reader)
{
    if (!reader)
        return;
    if (reader->fd >= 0)
        close(reader->fd);
    free(reader->path);
    free(reader->error);
    free(reader->data);
    tattle__json_numbers_release(&reader->numbers);
    cJSON_Delete(reader->version);
    cJSON_Delete(reader->tool);
    cJSON_Delete(reader->run_tree);
    cJSON_Delete(reader->summary_tree);
    cJSON_Delete(reader->error_groups);
    free(reader->argv);
    for (size_t i = 0; i < reader->unfinished_count; i++)
        free(reader->unfinished[i].id);
    free(reader->unfinished);
    free(reader->open_slots);
    free(reader);
}
