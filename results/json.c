/*
 * json.c — the results model as JSON (see json.h): the run and summary as
 * cJSON objects, a TEST object written straight into a buffer.
 *
 * Field names and order follow SPEC section 6 and
 * schemas/report.schema.json. Conventions: a TEST object always has every
 * key (null when a value does not apply) but "param", which only a
 * parameterized test's has; a FAILURE has the kind-specific
 * keys of its kind only ("assertion" for assertions, "signal" for crashes,
 * "exit_code" for exits, "timeout_ms" for timeouts), "stacktrace" when
 * frames are known, "fixture" when it happened in one, "stacks" when a
 * timeout's threads were taken and "filtered": true when it matched
 * --filter-out; a
 * trace event omits the actor, label and message keys it has no value for.
 */
#include "results/json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/text.h"
#include "base/utf8.h"
#include "results/json_events.h"
#include "results/json_writer.h"
#include "results/model.h"

/* Adds `item` under the literal `key` without copying the key; deletes the
 * item when that fails. */
static bool add_item(cJSON *object, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToObjectCS(object, key, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

static bool add_literal(cJSON *object, const char *key, const char *literal)
{
    return add_item(object, key, cJSON_CreateStringReference(literal));
}

static bool add_bool(cJSON *object, const char *key, bool value)
{
    return add_item(object, key, cJSON_CreateBool(value));
}

/* Integers are printed from their digits into raw items: exact for every
 * 64-bit value (a double is not), and much faster than cJSON 1.7.15's
 * number printing, which formats each number with "%1.15g" and reads it
 * back with sscanf to check the round trip. */
static cJSON *create_uint(uint64_t value, bool negative)
{
    char digits[24];
    char *p = digits + sizeof digits;
    *--p = '\0';
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    if (negative)
        *--p = '-';
    return cJSON_CreateRaw(p);
}

bool tattle__json_add_uint(cJSON *object, const char *key, uint64_t value)
{
    return add_item(object, key, create_uint(value, false));
}

cJSON *tattle__json_bytes(const char *bytes, size_t length)
{
    char *clean = tattle__utf8_sanitize(bytes, length, NULL);
    if (!clean)
        return NULL;
    cJSON *item = cJSON_CreateString(clean);
    free(clean);
    return item;
}

cJSON *tattle__json_text(const char *text)
{
    if (!text)
        return cJSON_CreateNull();
    size_t length = strlen(text);
    if (tattle__utf8_is_clean(text, length))
        return cJSON_CreateStringReference(text);
    return tattle__json_bytes(text, length);
}

bool tattle__json_add_text(cJSON *object, const char *key, const char *text)
{
    return add_item(object, key, tattle__json_text(text));
}

bool tattle__json_add_bytes(cJSON *object, const char *key, const char *bytes,
                            size_t length)
{
    return add_item(object, key,
                    bytes ? tattle__json_bytes(bytes, length)
                          : cJSON_CreateString(""));
}

static cJSON *add_object(cJSON *object, const char *key)
{
    cJSON *child = cJSON_CreateObject();
    return add_item(object, key, child) ? child : NULL;
}

static cJSON *add_array(cJSON *object, const char *key)
{
    cJSON *child = cJSON_CreateArray();
    return add_item(object, key, child) ? child : NULL;
}

static bool append(cJSON *array, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToArray(array, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

/* Builders accumulate success in `ok`, so one check at the end suffices;
 * after a failure the remaining calls still run but do no harm. */

cJSON *tattle__json_tool(void)
{
    cJSON *tool = cJSON_CreateObject();
    if (!tool)
        return NULL;
    bool ok = add_literal(tool, "name", "tattle");
    ok = add_literal(tool, "version", TATTLE_VERSION) && ok;
    if (!ok) {
        cJSON_Delete(tool);
        return NULL;
    }
    return tool;
}

/* A copied string (run info outlives nothing). */
static bool add_copied_text(cJSON *object, const char *key, const char *text)
{
    if (!text)
        return add_item(object, key, cJSON_CreateNull());
    return add_item(object, key, tattle__json_bytes(text, strlen(text)));
}

cJSON *tattle__json_run(const struct tattle_run_info *run,
                        const struct tattle_summary *summary)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok = add_copied_text(object, "started_at", run->started_at);
    if (summary)
        ok = tattle__json_add_uint(object, "duration_us",
                                   summary->duration_us) &&
             ok;
    ok = tattle__json_add_uint(object, "seed", run->seed) && ok;
    ok = tattle__json_add_uint(object, "jobs", run->jobs) && ok;
    cJSON *argv = add_array(object, "argv");
    ok = argv && ok;
    for (int i = 0; argv && i < run->argc; i++)
        ok = append(argv,
                    tattle__json_bytes(run->argv[i], strlen(run->argv[i]))) &&
             ok;
    ok = add_copied_text(object, "executable", run->executable) && ok;
    if (run->sharded) {
        cJSON *shard = add_object(object, "shard");
        ok = shard && ok;
        if (shard) {
            ok = tattle__json_add_uint(shard, "index", run->shard_index) && ok;
            ok = tattle__json_add_uint(shard, "total", run->shard_total) && ok;
        }
    } else
        ok = add_item(object, "shard", cJSON_CreateNull()) && ok;
    if (summary)
        ok = add_bool(object, "interrupted", summary->interrupted) && ok;
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

cJSON *tattle__json_summary(const struct tattle_summary *summary)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok = tattle__json_add_uint(object, "total", summary->total);
    ok = tattle__json_add_uint(object, "passed", summary->passed) && ok;
    ok = tattle__json_add_uint(object, "failed", summary->failed) && ok;
    ok = tattle__json_add_uint(object, "skipped", summary->skipped) && ok;
    ok = tattle__json_add_uint(object, "excluded", summary->excluded) && ok;
    ok = tattle__json_add_uint(object, "invalid", summary->invalid) && ok;
    ok = tattle__json_add_uint(object, "flaky", summary->flaky) && ok;
    ok = tattle__json_add_uint(object, "duration_us", summary->duration_us) &&
         ok;
    /* An interrupted run did not pass, whatever the tests that ran did. */
    bool failed = summary->failed || summary->invalid || summary->interrupted;
    ok = add_literal(object, "result", failed ? "failed" : "passed") && ok;
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

/* ---- The TEST object, written straight into a buffer ---------------------
 *
 * Each writer appends one value; WRITE_KEY puts the comma before its key,
 * so an object's first key is written with its opening brace. */

#define WRITE_LITERAL TATTLE__JSON_WRITE_LITERAL
#define WRITE_KEY TATTLE__JSON_WRITE_KEY

static void write_line(struct tattle__buffer *out, int line)
{
    if (line > 0)
        tattle__json_write_uint(out, (uint64_t)line);
    else
        WRITE_LITERAL(out, "null");
}

/* The text of `text`, or "" when it is NULL. */
static void write_text_or_empty(struct tattle__buffer *out, const char *text)
{
    tattle__json_write_text(out, text ? text : "");
}

/* True when tag names `a` and `b` are one key of the report: equal after
 * repair (two different ill-formed names may repair to the same text). */
static bool same_tag_name(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    size_t a_length = strlen(a), b_length = strlen(b);
    if (tattle__utf8_is_clean(a, a_length) &&
        tattle__utf8_is_clean(b, b_length))
        return false;
    char *a_clean = tattle__utf8_sanitize(a, a_length, NULL);
    char *b_clean = tattle__utf8_sanitize(b, b_length, NULL);
    bool same = a_clean && b_clean && strcmp(a_clean, b_clean) == 0;
    free(a_clean);
    free(b_clean);
    return same;
}

/* The "tags" object: suite tags come first, and a later tag of the same
 * name (a test's own) gives its value to the key where it first stood. */
static void write_tags(struct tattle__buffer *out,
                       const struct tattle_test_info *info)
{
    WRITE_LITERAL(out, "{");
    bool first = true;
    for (size_t i = 0; i < info->tag_count; i++) {
        const char *name = info->tags[i].name;
        if (!name)
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen =
                info->tags[j].name && same_tag_name(info->tags[j].name, name);
        if (seen)
            continue;
        const struct tattle_tag *last = &info->tags[i];
        for (size_t j = i + 1; j < info->tag_count; j++)
            if (info->tags[j].name && same_tag_name(info->tags[j].name, name))
                last = &info->tags[j];
        if (!first)
            WRITE_LITERAL(out, ",");
        first = false;
        tattle__json_write_text(out, name);
        WRITE_LITERAL(out, ":");
        if (last->value)
            tattle__json_write_text(out, last->value);
        else
            WRITE_LITERAL(out, "true");
    }
    WRITE_LITERAL(out, "}");
}

/* `frames` as an array of {"function", "file", "line", "address"}. */
static void write_frames(struct tattle__buffer *out,
                         const struct tattle_frame *frames, size_t count)
{
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < count; i++) {
        const struct tattle_frame *frame = &frames[i];
        if (i)
            WRITE_LITERAL(out, ",");
        WRITE_LITERAL(out, "{\"function\":");
        tattle__json_write_text(out, frame->function);
        WRITE_KEY(out, "file");
        tattle__json_write_text(out, frame->file);
        WRITE_KEY(out, "line");
        write_line(out, frame->line);
        char address[2 + 2 * sizeof(uintptr_t) + 1];
        snprintf(address, sizeof address, "0x%" PRIxPTR, frame->address);
        WRITE_KEY(out, "address");
        tattle__json_write_text(out, address);
        WRITE_LITERAL(out, "}");
    }
    WRITE_LITERAL(out, "]");
}

/* A timeout's threads: {"pid", "tid", "actor", "state", "frames"}. */
static void write_stacks(struct tattle__buffer *out,
                         const struct tattle_failure *failure)
{
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < failure->stack_count; i++) {
        const struct tattle_thread_stack *thread = &failure->stacks[i];
        if (i)
            WRITE_LITERAL(out, ",");
        WRITE_LITERAL(out, "{\"pid\":");
        tattle__json_write_int(out, thread->pid);
        WRITE_KEY(out, "tid");
        tattle__json_write_int(out, thread->tid);
        WRITE_KEY(out, "actor");
        tattle__json_write_text(out, thread->actor);
        WRITE_KEY(out, "state");
        tattle__json_write_text(out, thread->state);
        WRITE_KEY(out, "frames");
        write_frames(out, thread->frames, thread->frame_count);
        WRITE_LITERAL(out, "}");
    }
    WRITE_LITERAL(out, "]");
}

static void write_failure(struct tattle__buffer *out,
                          const struct tattle_failure *failure,
                          const struct tattle_report_options *options)
{
    WRITE_LITERAL(out, "{\"kind\":");
    tattle__json_write_text(out, tattle_failure_kind_name(failure->kind));
    WRITE_KEY(out, "message");
    write_text_or_empty(out, failure->message);
    WRITE_KEY(out, "file");
    tattle__json_write_text(out, failure->file);
    WRITE_KEY(out, "line");
    write_line(out, failure->file ? failure->line : 0);
    switch (failure->kind) {
    case TATTLE_FAILURE_ASSERTION:
        WRITE_KEY(out, "assertion");
        WRITE_LITERAL(out, "{\"macro\":");
        tattle__json_write_text(out, failure->macro);
        WRITE_KEY(out, "expr");
        tattle__json_write_text(out, failure->expr);
        WRITE_KEY(out, "left");
        tattle__json_write_text(out, failure->left);
        WRITE_KEY(out, "right");
        tattle__json_write_text(out, failure->right);
        WRITE_LITERAL(out, "}");
        break;
    case TATTLE_FAILURE_CRASH: {
        char scratch[16];
        WRITE_KEY(out, "signal");
        tattle__json_write_text(out,
                                tattle__signal_name(failure->signal, scratch));
        break;
    }
    case TATTLE_FAILURE_EXIT:
        WRITE_KEY(out, "exit_code");
        tattle__json_write_int(out, failure->exit_code);
        break;
    case TATTLE_FAILURE_TIMEOUT:
        WRITE_KEY(out, "timeout_ms");
        tattle__json_write_int(out, failure->timeout_ms);
        break;
    case TATTLE_FAILURE_ERROR:
        break;
    }
    if (failure->frame_count) {
        WRITE_KEY(out, "stacktrace");
        write_frames(out, failure->frames, failure->frame_count);
    }
    if (failure->fixture) {
        WRITE_KEY(out, "fixture");
        tattle__json_write_text(out, failure->fixture);
    }
    if (failure->stack_count) {
        WRITE_KEY(out, "stacks");
        write_stacks(out, failure);
    }
    if (tattle__failure_filtered(failure, options))
        WRITE_LITERAL(out, ",\"filtered\":true");
    WRITE_LITERAL(out, "}");
}

/* The "failures" array of `result`. */
static void write_failures(struct tattle__buffer *out,
                           const struct tattle_result *result,
                           const struct tattle_report_options *options)
{
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < result->failure_count; i++) {
        if (i)
            WRITE_LITERAL(out, ",");
        write_failure(out, &result->failures[i], options);
    }
    WRITE_LITERAL(out, "]");
}

static void write_output(struct tattle__buffer *out,
                         const struct tattle_result *result)
{
    const struct tattle_output *stdout_output = &result->stdout_output;
    const struct tattle_output *stderr_output = &result->stderr_output;
    WRITE_LITERAL(out, "{\"stdout\":");
    tattle__json_write_bytes(out, stdout_output->text,
                             stdout_output->text ? stdout_output->length : 0);
    WRITE_KEY(out, "stderr");
    tattle__json_write_bytes(out, stderr_output->text,
                             stderr_output->text ? stderr_output->length : 0);
    WRITE_KEY(out, "stdout_bytes");
    tattle__json_write_uint(out, stdout_output->bytes);
    WRITE_KEY(out, "stderr_bytes");
    tattle__json_write_uint(out, stderr_output->bytes);
    WRITE_KEY(out, "truncated");
    tattle__json_write_bool(out, stdout_output->truncated ||
                                     stderr_output->truncated);
    WRITE_LITERAL(out, "}");
}

static void write_mailbox(struct tattle__buffer *out,
                          const struct tattle_trace_mailbox *mailbox)
{
    WRITE_LITERAL(out, "{\"name\":");
    write_text_or_empty(out, mailbox->name);
    WRITE_KEY(out, "owner");
    tattle__json_write_text(out, mailbox->owner);
    WRITE_KEY(out, "alive");
    tattle__json_write_bool(out, mailbox->alive);
    WRITE_KEY(out, "pending");
    tattle__json_write_uint(out, mailbox->pending);
    WRITE_KEY(out, "messages");
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < mailbox->message_count; i++) {
        if (i)
            WRITE_LITERAL(out, ",");
        write_text_or_empty(out, mailbox->messages[i]);
    }
    WRITE_LITERAL(out, "]");
    WRITE_KEY(out, "approx");
    tattle__json_write_bool(out, mailbox->approx);
    WRITE_LITERAL(out, "}");
}

static void write_pending_send(struct tattle__buffer *out,
                               const struct tattle_trace_pending_send *send)
{
    WRITE_LITERAL(out, "{\"send\":");
    tattle__json_write_uint(out, send->send);
    WRITE_KEY(out, "bytes");
    tattle__json_write_uint(out, send->bytes);
    WRITE_KEY(out, "msg");
    write_text_or_empty(out, send->msg);
    WRITE_LITERAL(out, "}");
}

static void write_endpoint(struct tattle__buffer *out,
                           const struct tattle_trace_endpoint *endpoint)
{
    WRITE_LITERAL(out, "{\"name\":");
    write_text_or_empty(out, endpoint->name);
    WRITE_KEY(out, "kind");
    write_text_or_empty(out, endpoint->kind);
    WRITE_KEY(out, "owner");
    tattle__json_write_text(out, endpoint->owner);
    WRITE_KEY(out, "pending_bytes");
    tattle__json_write_uint(out, endpoint->pending_bytes);
    WRITE_KEY(out, "pending_messages");
    tattle__json_write_uint(out, endpoint->pending_messages);
    WRITE_KEY(out, "messages");
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < endpoint->message_count; i++) {
        if (i)
            WRITE_LITERAL(out, ",");
        write_pending_send(out, &endpoint->messages[i]);
    }
    WRITE_LITERAL(out, "]");
    WRITE_KEY(out, "complete");
    tattle__json_write_bool(out, endpoint->complete);
    if (endpoint->kernel_peeked) {
        WRITE_KEY(out, "kernel_peeked_by");
        tattle__json_write_text(
            out, endpoint->kernel_peeked_by_runner ? "runner" : "test");
        WRITE_KEY(out, "kernel_pending_bytes");
        tattle__json_write_uint(out, endpoint->kernel_pending_bytes);
        WRITE_KEY(out, "kernel_pending_messages");
        tattle__json_write_uint(out, endpoint->kernel_pending_messages);
        WRITE_KEY(out, "kernel_msg");
        write_text_or_empty(out, endpoint->kernel_msg);
    }
    WRITE_LITERAL(out, "}");
}

static void write_actor(struct tattle__buffer *out,
                        const struct tattle_trace_actor *actor)
{
    WRITE_LITERAL(out, "{\"name\":");
    write_text_or_empty(out, actor->name);
    WRITE_KEY(out, "pid");
    tattle__json_write_int(out, actor->pid);
    WRITE_KEY(out, "tid");
    tattle__json_write_int(out, actor->tid);
    WRITE_KEY(out, "alive_at_exit");
    tattle__json_write_bool(out, actor->alive_at_exit);
    WRITE_LITERAL(out, "}");
}

/* A traced call: {"seq", "t_us", "actor", "kind", "function", "file",
 * "line", "depth"}. */
static void write_call(struct tattle__buffer *out,
                       const struct tattle_trace_call *call)
{
    WRITE_LITERAL(out, "{\"seq\":");
    tattle__json_write_uint(out, call->seq);
    WRITE_KEY(out, "t_us");
    tattle__json_write_uint(out, call->t_us);
    WRITE_KEY(out, "actor");
    tattle__json_write_text(out, call->actor);
    WRITE_KEY(out, "kind");
    tattle__json_write_text(
        out, call->kind == TATTLE_TRACE_CALL_ENTER ? "enter" : "exit");
    WRITE_KEY(out, "function");
    tattle__json_write_text(out, call->function);
    WRITE_KEY(out, "file");
    tattle__json_write_text(out, call->file);
    WRITE_KEY(out, "line");
    write_line(out, call->line);
    WRITE_KEY(out, "depth");
    tattle__json_write_uint(out, call->depth);
    WRITE_LITERAL(out, "}");
}

/* A thread's shadow stack: {"actor", "depth", "frames"}. */
static void write_call_stack(struct tattle__buffer *out,
                             const struct tattle_trace_stack *stack)
{
    WRITE_LITERAL(out, "{\"actor\":");
    tattle__json_write_text(out, stack->actor);
    WRITE_KEY(out, "depth");
    tattle__json_write_uint(out, stack->depth);
    WRITE_KEY(out, "frames");
    write_frames(out, stack->frames, stack->frame_count);
    WRITE_LITERAL(out, "}");
}

/* "call_cap", "calls_recorded", "calls_lost", "calls" and "stacks" of a
 * `trace_calls` test's trace. */
static void write_calls(struct tattle__buffer *out,
                        const struct tattle_trace *trace)
{
    WRITE_KEY(out, "call_cap");
    tattle__json_write_uint(out, trace->call_cap);
    WRITE_KEY(out, "calls_recorded");
    tattle__json_write_uint(out, trace->calls_recorded);
    WRITE_KEY(out, "calls_lost");
    tattle__json_write_uint(out, trace->calls_lost);
    WRITE_KEY(out, "calls");
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < trace->call_count; i++) {
        if (i)
            WRITE_LITERAL(out, ",");
        write_call(out, &trace->calls[i]);
    }
    WRITE_LITERAL(out, "]");
    WRITE_KEY(out, "stacks");
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < trace->stack_count; i++) {
        if (i)
            WRITE_LITERAL(out, ",");
        write_call_stack(out, &trace->stacks[i]);
    }
    WRITE_LITERAL(out, "]");
}

static void write_trace(struct tattle__buffer *out,
                        const struct tattle_trace *trace)
{
    if (!trace) {
        WRITE_LITERAL(out, "null");
        return;
    }
    WRITE_LITERAL(out, "{\"cap\":");
    tattle__json_write_uint(out, trace->cap);
    WRITE_KEY(out, "budget");
    tattle__json_write_uint(out, trace->budget);
    WRITE_KEY(out, "level");
    tattle__json_write_int(out, trace->level);
    WRITE_KEY(out, "recorded");
    tattle__json_write_uint(out, trace->recorded);
    WRITE_KEY(out, "dropped");
    tattle__json_write_uint(out, trace->dropped);
    WRITE_KEY(out, "overflow");
    tattle__json_write_bool(out, trace->overflow);
    WRITE_KEY(out, "events");
    tattle__json_events_print(out, trace->events, trace->event_count);
    WRITE_KEY(out, "mailboxes");
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < trace->mailbox_count; i++) {
        if (i)
            WRITE_LITERAL(out, ",");
        write_mailbox(out, &trace->mailboxes[i]);
    }
    WRITE_LITERAL(out, "]");
    WRITE_KEY(out, "endpoints");
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < trace->endpoint_count; i++) {
        if (i)
            WRITE_LITERAL(out, ",");
        write_endpoint(out, &trace->endpoints[i]);
    }
    WRITE_LITERAL(out, "]");
    WRITE_KEY(out, "actors");
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < trace->actor_count; i++) {
        if (i)
            WRITE_LITERAL(out, ",");
        write_actor(out, &trace->actors[i]);
    }
    WRITE_LITERAL(out, "]");
    if (trace->calls_traced)
        write_calls(out, trace);
    WRITE_LITERAL(out, "}");
}

/* A retried test's failed attempts before the one shown, oldest first:
 * each its run number, state, duration, failures and output. Written only
 * when there were some. */
static void write_earlier_attempts(struct tattle__buffer *out,
                                   const struct tattle_result *result,
                                   const struct tattle_report_options *options)
{
    if (result->earlier_attempt_count == 0)
        return;
    WRITE_KEY(out, "earlier_attempts");
    WRITE_LITERAL(out, "[");
    for (size_t i = 0; i < result->earlier_attempt_count; i++) {
        const struct tattle_result *attempt = &result->earlier_attempts[i];
        if (i)
            WRITE_LITERAL(out, ",");
        WRITE_LITERAL(out, "{\"attempt\":");
        tattle__json_write_uint(out, tattle__earlier_attempt_number(result, i));
        WRITE_KEY(out, "state");
        tattle__json_write_text(out, tattle_state_name(attempt->state));
        WRITE_KEY(out, "duration_us");
        tattle__json_write_uint(out, attempt->duration_us);
        WRITE_KEY(out, "failures");
        write_failures(out, attempt, options);
        WRITE_KEY(out, "output");
        write_output(out, attempt);
        WRITE_LITERAL(out, "}");
    }
    WRITE_LITERAL(out, "]");
}

void tattle__json_write_test(struct tattle__buffer *out,
                             const struct tattle_result *result,
                             const struct tattle_report_options *options)
{
    const struct tattle_test_info *info = result->test;
    WRITE_LITERAL(out, "{\"id\":");
    write_text_or_empty(out, info->id);
    WRITE_KEY(out, "suite");
    write_text_or_empty(out, info->suite);
    WRITE_KEY(out, "name");
    write_text_or_empty(out, info->name);
    WRITE_KEY(out, "file");
    tattle__json_write_text(out, info->file);
    WRITE_KEY(out, "line");
    write_line(out, info->line);
    if (info->param) {
        WRITE_KEY(out, "param");
        tattle__json_write_text(out, info->param);
    }
    WRITE_KEY(out, "tags");
    write_tags(out, info);
    WRITE_KEY(out, "state");
    tattle__json_write_text(out, tattle_state_name(result->state));
    WRITE_KEY(out, "duration_us");
    tattle__json_write_uint(out, result->duration_us);
    WRITE_KEY(out, "attempts");
    tattle__json_write_uint(out, result->attempts);
    WRITE_KEY(out, "flaky");
    tattle__json_write_bool(out, result->flaky);
    WRITE_KEY(out, "failures");
    write_failures(out, result, options);
    write_earlier_attempts(out, result, options);
    WRITE_KEY(out, "skip_reason");
    tattle__json_write_text(out, result->skip_reason);
    WRITE_KEY(out, "output");
    write_output(out, result);
    WRITE_KEY(out, "trace");
    write_trace(out, result->trace);
    WRITE_KEY(out, "rerun");
    tattle__json_write_text(out, result->rerun);
    WRITE_LITERAL(out, "}");
}

cJSON *tattle__json_test(const struct tattle_result *result,
                         const struct tattle_report_options *options)
{
    struct tattle__buffer text = {0};
    tattle__json_write_test(&text, result, options);
    cJSON *test = cJSON_ParseWithLength(text.data, text.length);
    tattle__buffer_release(&text);
    return test;
}

bool tattle__json_print(const cJSON *item, struct tattle__buffer *out)
{
    tattle__buffer_clear(out);
    /* cJSON may need a few bytes more than it prints (see cJSON.h). */
    size_t room = out->capacity > 4096 ? out->capacity - 1 : 4096;
    tattle__buffer_reserve(out, room);
    if (room - 8 <= INT32_MAX &&
        cJSON_PrintPreallocated((cJSON *)item, out->data, (int)(room - 8), 0)) {
        out->length = strlen(out->data);
        return true;
    }
    char *text = cJSON_PrintUnformatted(item);
    if (!text)
        return false;
    tattle__buffer_append_string(out, text);
    cJSON_free(text);
    return true;
}
