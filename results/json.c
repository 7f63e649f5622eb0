/*
 * json.c — the results model as cJSON objects (see json.h).
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

static bool add_int(cJSON *object, const char *key, long long value)
{
    uint64_t magnitude =
        value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    return add_item(object, key, create_uint(magnitude, value < 0));
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

static bool add_line(cJSON *object, const char *key, int line)
{
    return add_item(object, key,
                    line > 0 ? create_uint((uint64_t)line, false)
                             : cJSON_CreateNull());
}

static bool add_tags(cJSON *test, const struct tattle_test_info *info)
{
    cJSON *tags = add_object(test, "tags");
    if (!tags)
        return false;
    bool ok = true;
    /* Suite tags come first: a test's own tag of the same name wins. */
    for (size_t i = 0; i < info->tag_count; i++) {
        const struct tattle_tag *tag = &info->tags[i];
        if (!tag->name)
            continue;
        char *name = tattle__utf8_sanitize(tag->name, strlen(tag->name), NULL);
        cJSON *value = tag->value
                           ? tattle__json_bytes(tag->value, strlen(tag->value))
                           : cJSON_CreateTrue();
        if (!name || !value) {
            free(name);
            cJSON_Delete(value);
            ok = false;
            continue;
        }
        if (cJSON_GetObjectItemCaseSensitive(tags, name))
            ok =
                cJSON_ReplaceItemInObjectCaseSensitive(tags, name, value) && ok;
        else if (!cJSON_AddItemToObject(tags, name, value)) {
            cJSON_Delete(value);
            ok = false;
        }
        free(name);
    }
    return ok;
}

/* `frames` as an array of {"function", "file", "line", "address"}. */
static bool add_frames(cJSON *object, const char *key,
                       const struct tattle_frame *frames, size_t count)
{
    cJSON *array = add_array(object, key);
    bool ok = array != NULL;
    for (size_t i = 0; array && i < count; i++) {
        const struct tattle_frame *frame = &frames[i];
        cJSON *f = cJSON_CreateObject();
        if (!append(array, f))
            return false;
        char address[2 + 2 * sizeof(uintptr_t) + 1];
        snprintf(address, sizeof address, "0x%" PRIxPTR, frame->address);
        ok = tattle__json_add_text(f, "function", frame->function) && ok;
        ok = tattle__json_add_text(f, "file", frame->file) && ok;
        ok = add_line(f, "line", frame->line) && ok;
        ok = add_item(f, "address", cJSON_CreateString(address)) && ok;
    }
    return ok;
}

/* A timeout's threads: {"pid", "tid", "actor", "state", "frames"}. */
static bool add_stacks(cJSON *object, const struct tattle_failure *failure)
{
    cJSON *array = add_array(object, "stacks");
    bool ok = array != NULL;
    for (size_t i = 0; array && i < failure->stack_count; i++) {
        const struct tattle_thread_stack *thread = &failure->stacks[i];
        cJSON *t = cJSON_CreateObject();
        if (!append(array, t))
            return false;
        ok = add_int(t, "pid", thread->pid) && ok;
        ok = add_int(t, "tid", thread->tid) && ok;
        ok = tattle__json_add_text(t, "actor", thread->actor) && ok;
        ok = tattle__json_add_text(t, "state", thread->state) && ok;
        ok = add_frames(t, "frames", thread->frames, thread->frame_count) && ok;
    }
    return ok;
}

static cJSON *create_failure(const struct tattle_failure *failure,
                             const struct tattle_report_options *options)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok =
        add_literal(object, "kind", tattle_failure_kind_name(failure->kind));
    ok = tattle__json_add_text(object, "message",
                               failure->message ? failure->message : "") &&
         ok;
    ok = tattle__json_add_text(object, "file", failure->file) && ok;
    ok = add_line(object, "line", failure->file ? failure->line : 0) && ok;
    switch (failure->kind) {
    case TATTLE_FAILURE_ASSERTION: {
        cJSON *assertion = add_object(object, "assertion");
        ok = assertion && ok;
        if (assertion) {
            ok =
                tattle__json_add_text(assertion, "macro", failure->macro) && ok;
            ok = tattle__json_add_text(assertion, "expr", failure->expr) && ok;
            ok = tattle__json_add_text(assertion, "left", failure->left) && ok;
            ok =
                tattle__json_add_text(assertion, "right", failure->right) && ok;
        }
        break;
    }
    case TATTLE_FAILURE_CRASH: {
        char scratch[16];
        ok = add_copied_text(object, "signal",
                             tattle__signal_name(failure->signal, scratch)) &&
             ok;
        break;
    }
    case TATTLE_FAILURE_EXIT:
        ok = add_int(object, "exit_code", failure->exit_code) && ok;
        break;
    case TATTLE_FAILURE_TIMEOUT:
        ok = add_int(object, "timeout_ms", failure->timeout_ms) && ok;
        break;
    case TATTLE_FAILURE_ERROR:
        break;
    }
    if (failure->frame_count)
        ok = add_frames(object, "stacktrace", failure->frames,
                        failure->frame_count) &&
             ok;
    if (failure->fixture)
        ok = tattle__json_add_text(object, "fixture", failure->fixture) && ok;
    if (failure->stack_count)
        ok = add_stacks(object, failure) && ok;
    if (tattle__failure_filtered(failure, options))
        ok = add_bool(object, "filtered", true) && ok;
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

static bool add_output(cJSON *test, const struct tattle_result *result)
{
    cJSON *output = add_object(test, "output");
    if (!output)
        return false;
    const struct tattle_output *out = &result->stdout_output;
    const struct tattle_output *err = &result->stderr_output;
    bool ok = tattle__json_add_bytes(output, "stdout", out->text, out->length);
    ok = tattle__json_add_bytes(output, "stderr", err->text, err->length) && ok;
    ok = tattle__json_add_uint(output, "stdout_bytes", out->bytes) && ok;
    ok = tattle__json_add_uint(output, "stderr_bytes", err->bytes) && ok;
    ok = add_bool(output, "truncated", out->truncated || err->truncated) && ok;
    return ok;
}

/* The events array as one raw item (results/json_events.h). */
static cJSON *create_events(const struct tattle_trace *trace)
{
    struct tattle__buffer text = {0};
    cJSON *item = NULL;
    if (tattle__json_events_print(&text, trace->events, trace->event_count))
        item = cJSON_CreateRaw(text.data);
    tattle__buffer_release(&text);
    return item;
}

static cJSON *create_mailbox(const struct tattle_trace_mailbox *mailbox)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok = tattle__json_add_text(object, "name",
                                    mailbox->name ? mailbox->name : "");
    ok = tattle__json_add_text(object, "owner", mailbox->owner) && ok;
    ok = add_bool(object, "alive", mailbox->alive) && ok;
    ok = tattle__json_add_uint(object, "pending", mailbox->pending) && ok;
    cJSON *messages = add_array(object, "messages");
    ok = messages && ok;
    for (size_t i = 0; messages && i < mailbox->message_count; i++)
        ok = append(messages, tattle__json_text(mailbox->messages[i]
                                                    ? mailbox->messages[i]
                                                    : "")) &&
             ok;
    ok = add_bool(object, "approx", mailbox->approx) && ok;
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

static cJSON *create_pending_send(const struct tattle_trace_pending_send *send)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok = tattle__json_add_uint(object, "send", send->send);
    ok = tattle__json_add_uint(object, "bytes", send->bytes) && ok;
    ok = tattle__json_add_text(object, "msg", send->msg ? send->msg : "") && ok;
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

static cJSON *create_endpoint(const struct tattle_trace_endpoint *endpoint)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok = tattle__json_add_text(object, "name",
                                    endpoint->name ? endpoint->name : "");
    ok = tattle__json_add_text(object, "kind",
                               endpoint->kind ? endpoint->kind : "") &&
         ok;
    ok = tattle__json_add_text(object, "owner", endpoint->owner) && ok;
    ok = tattle__json_add_uint(object, "pending_bytes",
                               endpoint->pending_bytes) &&
         ok;
    ok = tattle__json_add_uint(object, "pending_messages",
                               endpoint->pending_messages) &&
         ok;
    cJSON *messages = add_array(object, "messages");
    ok = messages && ok;
    for (size_t i = 0; messages && i < endpoint->message_count; i++)
        ok =
            append(messages, create_pending_send(&endpoint->messages[i])) && ok;
    ok = add_bool(object, "complete", endpoint->complete) && ok;
    if (endpoint->kernel_peeked) {
        ok = tattle__json_add_text(
                 object, "kernel_peeked_by",
                 endpoint->kernel_peeked_by_runner ? "runner" : "test") &&
             ok;
        ok = tattle__json_add_uint(object, "kernel_pending_bytes",
                                   endpoint->kernel_pending_bytes) &&
             ok;
        ok = tattle__json_add_uint(object, "kernel_pending_messages",
                                   endpoint->kernel_pending_messages) &&
             ok;
        ok = tattle__json_add_text(object, "kernel_msg",
                                   endpoint->kernel_msg ? endpoint->kernel_msg
                                                        : "") &&
             ok;
    }
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

static cJSON *create_actor(const struct tattle_trace_actor *actor)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok =
        tattle__json_add_text(object, "name", actor->name ? actor->name : "");
    ok = add_int(object, "pid", actor->pid) && ok;
    ok = add_int(object, "tid", actor->tid) && ok;
    ok = add_bool(object, "alive_at_exit", actor->alive_at_exit) && ok;
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

/* A traced call: {"seq", "t_us", "actor", "kind", "function", "file",
 * "line", "depth"}. */
static cJSON *create_call(const struct tattle_trace_call *call)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok = tattle__json_add_uint(object, "seq", call->seq);
    ok = tattle__json_add_uint(object, "t_us", call->t_us) && ok;
    ok = tattle__json_add_text(object, "actor", call->actor) && ok;
    ok = tattle__json_add_text(
             object, "kind",
             call->kind == TATTLE_TRACE_CALL_ENTER ? "enter" : "exit") &&
         ok;
    ok = tattle__json_add_text(object, "function", call->function) && ok;
    ok = tattle__json_add_text(object, "file", call->file) && ok;
    ok = add_line(object, "line", call->line) && ok;
    ok = tattle__json_add_uint(object, "depth", call->depth) && ok;
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

/* A thread's shadow stack: {"actor", "depth", "frames"}. */
static cJSON *create_call_stack(const struct tattle_trace_stack *stack)
{
    cJSON *object = cJSON_CreateObject();
    if (!object)
        return NULL;
    bool ok = tattle__json_add_text(object, "actor", stack->actor);
    ok = tattle__json_add_uint(object, "depth", stack->depth) && ok;
    ok = add_frames(object, "frames", stack->frames, stack->frame_count) && ok;
    if (!ok) {
        cJSON_Delete(object);
        return NULL;
    }
    return object;
}

/* "call_cap", "calls_recorded", "calls_lost", "calls" and "stacks" of a
 * `trace_calls` test's trace. */
static bool add_calls(cJSON *object, const struct tattle_trace *trace)
{
    bool ok = tattle__json_add_uint(object, "call_cap", trace->call_cap);
    ok = tattle__json_add_uint(object, "calls_recorded",
                               trace->calls_recorded) &&
         ok;
    ok = tattle__json_add_uint(object, "calls_lost", trace->calls_lost) && ok;
    cJSON *calls = add_array(object, "calls");
    ok = calls && ok;
    for (size_t i = 0; ok && i < trace->call_count; i++)
        ok = append(calls, create_call(&trace->calls[i]));
    cJSON *stacks = add_array(object, "stacks");
    ok = stacks && ok;
    for (size_t i = 0; ok && i < trace->stack_count; i++)
        ok = append(stacks, create_call_stack(&trace->stacks[i]));
    return ok;
}

static bool add_trace(cJSON *test, const struct tattle_trace *trace)
{
    if (!trace)
        return add_item(test, "trace", cJSON_CreateNull());
    cJSON *object = add_object(test, "trace");
    if (!object)
        return false;
    bool ok = tattle__json_add_uint(object, "cap", trace->cap);
    ok = tattle__json_add_uint(object, "budget", trace->budget) && ok;
    ok = add_int(object, "level", trace->level) && ok;
    ok = tattle__json_add_uint(object, "recorded", trace->recorded) && ok;
    ok = tattle__json_add_uint(object, "dropped", trace->dropped) && ok;
    ok = add_bool(object, "overflow", trace->overflow) && ok;
    ok = add_item(object, "events", create_events(trace)) && ok;
    cJSON *mailboxes = add_array(object, "mailboxes");
    ok = mailboxes && ok;
    for (size_t i = 0; ok && i < trace->mailbox_count; i++)
        ok = append(mailboxes, create_mailbox(&trace->mailboxes[i]));
    cJSON *endpoints = add_array(object, "endpoints");
    ok = endpoints && ok;
    for (size_t i = 0; ok && i < trace->endpoint_count; i++)
        ok = append(endpoints, create_endpoint(&trace->endpoints[i]));
    cJSON *actors = add_array(object, "actors");
    ok = actors && ok;
    for (size_t i = 0; ok && i < trace->actor_count; i++)
        ok = append(actors, create_actor(&trace->actors[i]));
    if (ok && trace->calls_traced)
        ok = add_calls(object, trace);
    return ok;
}

/* The failures of `result` into a new "failures" array of `object`. */
static bool add_failures(cJSON *object, const struct tattle_result *result,
                         const struct tattle_report_options *options)
{
    cJSON *failures = add_array(object, "failures");
    bool ok = failures != NULL;
    for (size_t i = 0; ok && i < result->failure_count; i++)
        ok = append(failures, create_failure(&result->failures[i], options));
    return ok;
}

/* A retried test's failed attempts before the one shown, oldest first:
 * each its run number, state, duration, failures and output. Written only when
 * there were some. */
static bool add_earlier_attempts(cJSON *test,
                                 const struct tattle_result *result,
                                 const struct tattle_report_options *options)
{
    if (result->earlier_attempt_count == 0)
        return true;
    cJSON *attempts = add_array(test, "earlier_attempts");
    bool ok = attempts != NULL;
    for (size_t i = 0; ok && i < result->earlier_attempt_count; i++) {
        const struct tattle_result *attempt = &result->earlier_attempts[i];
        cJSON *object = cJSON_CreateObject();
        ok = append(attempts, object);
        ok = ok &&
             tattle__json_add_uint(object, "attempt",
                                   tattle__earlier_attempt_number(result, i));
        ok = ok &&
             add_literal(object, "state", tattle_state_name(attempt->state));
        ok = ok &&
             tattle__json_add_uint(object, "duration_us", attempt->duration_us);
        ok = ok && add_failures(object, attempt, options);
        ok = ok && add_output(object, attempt);
    }
    return ok;
}

cJSON *tattle__json_test(const struct tattle_result *result,
                         const struct tattle_report_options *options)
{
    const struct tattle_test_info *info = result->test;
    cJSON *test = cJSON_CreateObject();
    if (!test)
        return NULL;
    bool ok = tattle__json_add_text(test, "id", info->id ? info->id : "");
    ok = tattle__json_add_text(test, "suite", info->suite ? info->suite : "") &&
         ok;
    ok =
        tattle__json_add_text(test, "name", info->name ? info->name : "") && ok;
    ok = tattle__json_add_text(test, "file", info->file) && ok;
    ok = add_line(test, "line", info->line) && ok;
    if (info->param)
        ok = tattle__json_add_text(test, "param", info->param) && ok;
    ok = add_tags(test, info) && ok;
    ok = add_literal(test, "state", tattle_state_name(result->state)) && ok;
    ok = tattle__json_add_uint(test, "duration_us", result->duration_us) && ok;
    ok = tattle__json_add_uint(test, "attempts", result->attempts) && ok;
    ok = add_bool(test, "flaky", result->flaky) && ok;
    ok = ok && add_failures(test, result, options);
    ok = ok && add_earlier_attempts(test, result, options);
    ok = ok && tattle__json_add_text(test, "skip_reason", result->skip_reason);
    ok = ok && add_output(test, result);
    ok = ok && add_trace(test, result->trace);
    ok = ok && tattle__json_add_text(test, "rerun", result->rerun);
    if (!ok) {
        cJSON_Delete(test);
        return NULL;
    }
    return test;
}

/* "file:line" of where a failure happened: its own location, else the
 * first stack frame with a file, else the test's declaration. */
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
