/*
 * tap.c — the "tap" reporter (see tap.h for what it writes).
 *
 * The version line and the plan go out at begin, one test point per
 * finished test (flushed at once, so a reader of standard output follows
 * the run), and a bail-out at the end of an interrupted run. When the
 * run's count of results is open (a wrapped program's tests are known
 * only when it ends, and all its results come then), the test points are
 * held until the end, so the plan still comes first. The YAML
 * diagnostics of a test point are one document that libyaml's emitter
 * writes into a buffer, which is then indented under the test point.
 * Every string is repaired to valid UTF-8 first (libyaml refuses anything
 * else); the emitter then picks a style that keeps it exact: plain when
 * that reads back as the same string, a literal block for lines, quotes
 * and escapes for control characters.
 */
#include "reporter/tap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "base/text.h"
#include "base/utf8.h"
#include "reporter/plain_text.h"
#include "reporter/report_output.h"
#include "results/model.h"

enum {
    OUTPUT_TAIL_LINES = 20,
    OUTPUT_TAIL_BYTES = 4096,
    TRACE_TAIL_LINES = 40,
    TRACE_TAIL_BYTES = 8192,
};

static const char replacement_character[] = "\xef\xbf\xbd"; /* U+FFFD */

struct tap_reporter {
    struct tattle__report_output output;
    uint64_t number;             /* test points written */
    struct tattle__buffer point; /* the test point being written */
    struct tattle__buffer yaml;  /* the emitter's output */
    struct tattle__buffer text;  /* text on its way to the emitter */
    yaml_emitter_t emitter;
    bool emitter_failed;
    int error; /* the first error, returned by end */
    bool plan_at_end;
    struct tattle__buffer held; /* test points before a plan_at_end plan */
};

/* ---- The test point line -------------------------------------------- */

/* Appends `text` as one line of a TAP description or directive: `\` and
 * `#` escaped, line breaks and tabs as spaces, other control characters
 * and invalid UTF-8 as U+FFFD. */
static void append_escaped(struct tattle__buffer *out, const char *text)
{
    size_t length = text ? strlen(text) : 0;
    for (size_t i = 0; i < length;) {
        size_t n = tattle__utf8_sequence_length(text + i, length - i);
        if (n == 0) {
            tattle__buffer_append_string(out, replacement_character);
            i += tattle__utf8_ill_formed_length(text + i, length - i);
            continue;
        }
        unsigned char byte = (unsigned char)text[i];
        if (n == 1 && (byte == '\\' || byte == '#')) {
            char escaped[2] = {'\\', (char)byte};
            tattle__buffer_append(out, escaped, 2);
        } else if (n == 1 && (byte == '\n' || byte == '\r' || byte == '\t'))
            tattle__buffer_append(out, " ", 1);
        else if ((n == 1 && (byte < 0x20 || byte == 0x7f)) ||
                 (n == 2 && byte == 0xc2 &&
                  (unsigned char)text[i + 1] < 0xa0)) /* C1 controls */
            tattle__buffer_append_string(out, replacement_character);
        else
            tattle__buffer_append(out, text + i, n);
        i += n;
    }
}

static void write_test_point(struct tap_reporter *self,
                             const struct tattle_result *result)
{
    const struct tattle_test_info *test = result->test;
    struct tattle__buffer *out = &self->point;
    bool skipped = result->state == TATTLE_STATE_SKIPPED ||
                   result->state == TATTLE_STATE_EXCLUDED;
    if (tattle__result_failed(result))
        tattle__buffer_append_string(out, "not ");
    tattle__buffer_append_string(out, "ok ");
    tattle__text_uint(out, self->number);
    const char *id = test->id && *test->id ? test->id : test->name;
    if (id && *id) {
        tattle__buffer_append_string(out, " - ");
        append_escaped(out, id);
    }
    if (skipped) {
        tattle__buffer_append_string(out, " # SKIP ");
        append_escaped(out, result->skip_reason
                                ? result->skip_reason
                                : tattle_state_name(result->state));
    }
    tattle__buffer_append(out, "\n", 1);
}

/* ---- YAML through libyaml's emitter --------------------------------- */

static int collect_yaml(void *data, unsigned char *bytes, size_t size)
{
    tattle__buffer_append(data, bytes, size);
    return 1;
}

/* Emits an initialized event (the emitter frees it); after a failure the
 * rest of the document is dropped. */
static void emit(struct tap_reporter *self, yaml_event_t *event,
                 int initialized)
{
    if (!initialized) {
        self->emitter_failed = true;
        return;
    }
    if (self->emitter_failed) {
        yaml_event_delete(event);
        return;
    }
    if (!yaml_emitter_emit(&self->emitter, event))
        self->emitter_failed = true;
}

/* True when the plain scalar `text` reads back as a string in YAML 1.1
 * and 1.2: it is not empty, does not start like a number, null or merge
 * key (a digit, + - . ~ = <), and is no boolean or null word. The emitter
 * still quotes it when it holds ": ", " #" and the like. */
static bool reads_as_string(const char *text, size_t length)
{
    static const char *const words[] = {"y",     "n",  "yes", "no",  "true",
                                        "false", "on", "off", "null"};
    if (length == 0 || (text[0] >= '0' && text[0] <= '9') ||
        strchr("+-.~=<", text[0]))
        return false;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == length &&
            strncasecmp(text, words[i], length) == 0)
            return false;
    return true;
}

static void emit_plain(struct tap_reporter *self, const char *text,
                       size_t length)
{
    yaml_event_t event;
    emit(self, &event,
         yaml_scalar_event_initialize(
             &event, NULL, NULL, (yaml_char_t *)(uintptr_t)text, (int)length, 1,
             0, YAML_PLAIN_SCALAR_STYLE));
}

static void emit_key(struct tap_reporter *self, const char *key)
{
    emit_plain(self, key, strlen(key));
}

/* Whether a literal block `|` holds `text` exactly, in a form Perl's
 * TAP::Parser (prove) reads: lines ending in exactly one line break, the
 * first neither indented nor empty. Any other text would need a chomping
 * or indentation indicator (`|-`, `|+`, `|2`), which it cannot read. No
 * line may be empty either, and none may hold U+2028 or U+2029, which
 * YAML also takes for line breaks: the emitter writes what follows such a
 * break without the block's indentation, and TAP::Parser takes that line
 * for the end of the block (it then stops reading the stream). */
static bool fits_plain_literal_block(const char *text, size_t length)
{
    if (length < 2 || text[0] == ' ' || text[0] == '\n' ||
        text[length - 1] != '\n')
        return false;
    for (size_t i = 1; i < length; i++) {
        if (text[i] == '\n' && text[i - 1] == '\n')
            return false;
        /* U+2028 and U+2029 are E2 80 A8 and E2 80 A9. */
        if (i >= 2 && (unsigned char)text[i - 2] == 0xe2 &&
            (unsigned char)text[i - 1] == 0x80 &&
            ((unsigned char)text[i] == 0xa8 || (unsigned char)text[i] == 0xa9))
            return false;
    }
    return true;
}

/* A string scalar holding `bytes[0..length)` exactly (repaired to UTF-8):
 * text of several lines as a literal block where prove can read one, else
 * double-quoted with its line breaks escaped. */
static void emit_string(struct tap_reporter *self, const char *bytes,
                        size_t length)
{
    size_t clean_length = 0;
    char *clean = tattle__utf8_sanitize(bytes ? bytes : "", bytes ? length : 0,
                                        &clean_length);
    if (!clean || clean_length > INT32_MAX) {
        free(clean);
        self->emitter_failed = true;
        return;
    }
    yaml_scalar_style_t style = fits_plain_literal_block(clean, clean_length)
                                    ? YAML_LITERAL_SCALAR_STYLE
                                : memchr(clean, '\n', clean_length)
                                    ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                    : YAML_ANY_SCALAR_STYLE;
    yaml_event_t event;
    emit(self, &event,
         yaml_scalar_event_initialize(
             &event, NULL, NULL, (yaml_char_t *)clean, (int)clean_length,
             reads_as_string(clean, clean_length), 1, style));
    free(clean);
}

static void emit_text(struct tap_reporter *self, const char *key,
                      const char *text)
{
    emit_key(self, key);
    emit_string(self, text, text ? strlen(text) : 0);
}

static void emit_uint(struct tap_reporter *self, const char *key,
                      unsigned long long value)
{
    char digits[24];
    size_t n = sizeof digits;
    do {
        digits[--n] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    emit_key(self, key);
    emit_plain(self, digits + n, sizeof digits - n);
}

static void emit_int(struct tap_reporter *self, const char *key, long value)
{
    if (value >= 0) {
        emit_uint(self, key, (unsigned long long)value);
        return;
    }
    char digits[24];
    size_t n = sizeof digits;
    unsigned long long magnitude = 0ull - (unsigned long long)value;
    do {
        digits[--n] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    digits[--n] = '-';
    emit_key(self, key);
    emit_plain(self, digits + n, sizeof digits - n);
}

static void emit_bool(struct tap_reporter *self, const char *key, bool value)
{
    emit_key(self, key);
    emit_plain(self, value ? "true" : "false", value ? 4 : 5);
}

/* Milliseconds with three decimals: 12.345 (TAP 14's duration_ms). */
static void emit_milliseconds(struct tap_reporter *self, const char *key,
                              uint64_t microseconds)
{
    char text[32];
    size_t n = sizeof text;
    uint64_t fraction = microseconds % 1000, whole = microseconds / 1000;
    for (int i = 0; i < 3; i++, fraction /= 10)
        text[--n] = (char)('0' + fraction % 10);
    text[--n] = '.';
    do {
        text[--n] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    emit_key(self, key);
    emit_plain(self, text + n, sizeof text - n);
}

static void emit_mapping_start(struct tap_reporter *self)
{
    yaml_event_t event;
    emit(self, &event,
         yaml_mapping_start_event_initialize(&event, NULL, NULL, 1,
                                             YAML_BLOCK_MAPPING_STYLE));
}

static void emit_mapping_end(struct tap_reporter *self)
{
    yaml_event_t event;
    emit(self, &event, yaml_mapping_end_event_initialize(&event));
}

/* The tail of `text[0..length)`: its last lines, as one string. */
static void emit_tail(struct tap_reporter *self, const char *key,
                      const char *text, size_t length, size_t max_lines,
                      size_t max_bytes)
{
    size_t start = tattle__text_tail_start(text, length, max_lines, max_bytes);
    emit_key(self, key);
    emit_string(self, text + start, length - start);
}

/* ---- The diagnostics ------------------------------------------------ */

static void emit_failure_fields(struct tap_reporter *self,
                                const struct tattle_result *result,
                                const struct tattle_failure *failure)
{
    emit_text(self, "message", failure->message);
    emit_text(self, "severity",
              failure->kind == TATTLE_FAILURE_ASSERTION ? "fail" : "error");
    emit_text(self, "kind", tattle_failure_kind_name(failure->kind));
    const char *file;
    int line;
    tattle__text_location(result, failure, &file, &line);
    if (file) {
        emit_key(self, "at");
        emit_mapping_start(self);
        emit_text(self, "file", file);
        emit_int(self, "line", line);
        emit_mapping_end(self);
    }
    char scratch[16];
    switch (failure->kind) {
    case TATTLE_FAILURE_ASSERTION:
        if (failure->macro && failure->expr) {
            tattle__buffer_clear(&self->text);
            tattle__buffer_append_string(&self->text, failure->macro);
            tattle__buffer_append(&self->text, "(", 1);
            tattle__buffer_append_string(&self->text, failure->expr);
            tattle__buffer_append(&self->text, ")", 1);
            emit_key(self, "expression");
            emit_string(self, self->text.data, self->text.length);
        }
        if (failure->left)
            emit_text(self, "found", failure->left);
        if (failure->right)
            emit_text(self, "wanted", failure->right);
        break;
    case TATTLE_FAILURE_CRASH:
        emit_text(self, "signal",
                  tattle__signal_name(failure->signal, scratch));
        break;
    case TATTLE_FAILURE_EXIT:
        emit_int(self, "exit_code", failure->exit_code);
        break;
    case TATTLE_FAILURE_TIMEOUT:
        emit_int(self, "timeout_ms", failure->timeout_ms);
        break;
    case TATTLE_FAILURE_ERROR:
        break;
    }
    if (failure->frame_count) {
        tattle__buffer_clear(&self->text);
        tattle__text_frames(&self->text, failure, "");
        emit_key(self, "stack");
        emit_string(self, self->text.data, self->text.length);
    }
    if (failure->stack_count) {
        tattle__buffer_clear(&self->text);
        tattle__text_thread_stacks(&self->text, failure, "");
        emit_key(self, "threads");
        emit_string(self, self->text.data, self->text.length);
    }
}

static void emit_failures(struct tap_reporter *self,
                          const struct tattle_result *result, size_t from)
{
    if (from >= result->failure_count)
        return;
    emit_key(self, "failures");
    yaml_event_t event;
    emit(self, &event,
         yaml_sequence_start_event_initialize(&event, NULL, NULL, 1,
                                              YAML_BLOCK_SEQUENCE_STYLE));
    for (size_t i = from; i < result->failure_count; i++) {
        emit_mapping_start(self);
        emit_failure_fields(self, result, &result->failures[i]);
        emit_mapping_end(self);
    }
    emit(self, &event, yaml_sequence_end_event_initialize(&event));
}

static void emit_output(struct tap_reporter *self,
                        const struct tattle_result *result)
{
    const struct tattle_output *out = &result->stdout_output;
    const struct tattle_output *err = &result->stderr_output;
    if (!out->length && !err->length)
        return;
    emit_key(self, "output");
    emit_mapping_start(self);
    if (out->length)
        emit_tail(self, "stdout", out->text, out->length, OUTPUT_TAIL_LINES,
                  OUTPUT_TAIL_BYTES);
    if (err->length)
        emit_tail(self, "stderr", err->text, err->length, OUTPUT_TAIL_LINES,
                  OUTPUT_TAIL_BYTES);
    emit_uint(self, "stdout_bytes", out->bytes);
    emit_uint(self, "stderr_bytes", err->bytes);
    emit_mapping_end(self);
}

static void emit_trace(struct tap_reporter *self,
                       const struct tattle_trace *trace)
{
    if (!trace)
        return;
    emit_key(self, "trace");
    emit_mapping_start(self);
    emit_uint(self, "recorded", trace->recorded);
    emit_uint(self, "dropped", trace->dropped);
    emit_bool(self, "overflow", trace->overflow);
    tattle__buffer_clear(&self->text);
    tattle__text_trace(&self->text, trace);
    emit_tail(self, "events", self->text.data, self->text.length,
              TRACE_TAIL_LINES, TRACE_TAIL_BYTES);
    emit_mapping_end(self);
}

/* The YAML document of a failed or flaky test, into self->yaml. Returns
 * false when the emitter failed. */
static bool emit_diagnostics(struct tap_reporter *self,
                             const struct tattle_result *result)
{
    tattle__buffer_clear(&self->yaml);
    self->emitter_failed = !yaml_emitter_initialize(&self->emitter);
    if (self->emitter_failed)
        return false;
    yaml_emitter_set_output(&self->emitter, collect_yaml, &self->yaml);
    yaml_emitter_set_unicode(&self->emitter, 1);
    yaml_emitter_set_width(&self->emitter, -1);
    yaml_emitter_set_indent(&self->emitter, 2);

    yaml_event_t event;
    emit(self, &event,
         yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING));
    emit(self, &event,
         yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 0));
    emit_mapping_start(self);
    bool failed = tattle__result_failed(result);
    if (failed && result->failure_count) {
        emit_failure_fields(self, result, &result->failures[0]);
        emit_failures(self, result, 1);
    } else if (failed) {
        emit_text(self, "message", tattle_state_name(result->state));
        emit_text(self, "severity", "error");
    } else {
        /* A flaky pass: the failures of its failed attempt. */
        emit_failures(self, result, 0);
    }
    emit_text(self, "state", tattle_state_name(result->state));
    emit_milliseconds(self, "duration_ms", result->duration_us);
    if (result->attempts > 1)
        emit_uint(self, "attempts", result->attempts);
    if (result->flaky)
        emit_bool(self, "flaky", true);
    emit_output(self, result);
    emit_trace(self, result->trace);
    if (result->rerun)
        emit_text(self, "rerun", result->rerun);
    emit_mapping_end(self);
    emit(self, &event, yaml_document_end_event_initialize(&event, 0));
    emit(self, &event, yaml_stream_end_event_initialize(&event));
    if (!self->emitter_failed && !yaml_emitter_flush(&self->emitter))
        self->emitter_failed = true;
    yaml_emitter_delete(&self->emitter);
    return !self->emitter_failed;
}

/* Appends the YAML document, each line indented two spaces: the emitter
 * writes "---" and "..." itself. */
static void append_indented(struct tattle__buffer *out,
                            const struct tattle__buffer *yaml)
{
    const char *at = yaml->data, *end = yaml->data + yaml->length;
    while (at < end) {
        const char *newline = memchr(at, '\n', (size_t)(end - at));
        const char *stop = newline ? newline : end;
        tattle__buffer_append(out, "  ", 2);
        tattle__buffer_append(out, at, (size_t)(stop - at));
        tattle__buffer_append(out, "\n", 1);
        at = newline ? newline + 1 : end;
    }
}

/* ---- Callbacks ------------------------------------------------------ */

static int tap_create(void **out, const char *destination,
                      const struct tattle_report_options *options)
{
    (void)options;
    struct tap_reporter *self = tattle__calloc(1, sizeof *self);
    int error = tattle__report_output_open(&self->output, destination, true);
    if (error) {
        free(self);
        return error;
    }
    *out = self;
    return 0;
}

/* Writes what self->point holds and sends it on to the reader, or holds
 * it while the plan is not known. */
static void write_point(struct tap_reporter *self)
{
    if (self->plan_at_end) {
        tattle__buffer_append(&self->held, self->point.data,
                              self->point.length);
        tattle__buffer_clear(&self->point);
        return;
    }
    tattle__remember_error(
        &self->error, tattle__sink_write(&self->output.sink, self->point.data,
                                         self->point.length));
    tattle__buffer_clear(&self->point);
    tattle__remember_error(&self->error,
                           tattle__report_output_flush(&self->output));
}

static void tap_begin(void *opaque, const struct tattle_run_info *run)
{
    struct tap_reporter *self = opaque;
    tattle__buffer_append_string(&self->point, "TAP version 14\n");
    if (!run->planned_open) {
        tattle__buffer_append_string(&self->point, "1..");
        tattle__text_uint(&self->point, run->planned);
        tattle__buffer_append(&self->point, "\n", 1);
    }
    write_point(self);
    self->plan_at_end = run->planned_open;
}

static void tap_test_started(void *opaque, const struct tattle_test_info *test)
{
    (void)opaque;
    (void)test;
}

static void tap_test_finished(void *opaque, const struct tattle_result *result)
{
    struct tap_reporter *self = opaque;
    if (self->error)
        return;
    self->number++;
    write_test_point(self, result);
    if (tattle__result_failed(result) ||
        (result->flaky && result->failure_count)) {
        if (emit_diagnostics(self, result))
            append_indented(&self->point, &self->yaml);
        else
            tattle__remember_error(&self->error, -EIO);
    }
    write_point(self);
}

static int tap_end(void *opaque, const struct tattle_summary *summary)
{
    struct tap_reporter *self = opaque;
    if (self->plan_at_end) { /* the plan (when the run ended), then all */
        self->plan_at_end = false;
        if (!summary->interrupted) {
            tattle__buffer_append_string(&self->point, "1..");
            tattle__text_uint(&self->point, self->number);
            tattle__buffer_append(&self->point, "\n", 1);
        }
        tattle__buffer_append(&self->point, self->held.data, self->held.length);
        tattle__buffer_release(&self->held);
        if (!self->error)
            write_point(self);
    }
    if (summary->interrupted && !self->error) {
        tattle__buffer_append_string(&self->point,
                                     "Bail out! the run was interrupted\n");
        write_point(self);
    }
    if (self->error)
        return self->error;
    return tattle__report_output_commit(&self->output);
}

static void tap_destroy(void *opaque)
{
    struct tap_reporter *self = opaque;
    if (!self)
        return;
    tattle__report_output_discard(&self->output);
    tattle__buffer_release(&self->point);
    tattle__buffer_release(&self->yaml);
    tattle__buffer_release(&self->text);
    tattle__buffer_release(&self->held);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_tap = {
    .name = "tap",
    .create = tap_create,
    .begin = tap_begin,
    .test_started = tap_test_started,
    .test_finished = tap_test_finished,
    .end = tap_end,
    .destroy = tap_destroy,
};
