/*
 * chrome_trace.c — the "chrome-trace" reporter (see chrome_trace.h for
 * what it writes). Calls are replayed per thread by call_tree.h, so an
 * exit passed over there writes no "E" and the calls open at the end are
 * closed from the thread's node up; messages are joined to their
 * receives by sequence_diagram.h, the one pairing of the project. Each
 * event is a cJSON object printed through results/json.h, so whatever a
 * test named becomes valid, escaped UTF-8.
 */
#include "reporter/chrome_trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reporter/call_tree.h"
#include "reporter/report_output.h"
#include "reporter/sequence_diagram.h"
#include "results/json.h"

struct chrome_reporter {
    struct tattle__report_output output;
    struct tattle__call_tree tree; /* its actors number the threads */
    struct tattle__buffer printed;
    struct tattle__buffer name;
    uint64_t *thread_ts; /* the last B/E time of each tid of the test */
    size_t thread_ts_capacity;
    uint64_t pid; /* of the test being written */
    uint64_t event_count;
    uint64_t flow_count;
    int error; /* the first error, returned by end */
};

/* Writes `event` (deleted here; NULL means memory ran out) into the
 * traceEvents array. */
static void write_event(struct chrome_reporter *self, cJSON *event)
{
    if (!event || !tattle__json_print(event, &self->printed)) {
        cJSON_Delete(event);
        tattle__remember_error(&self->error, -ENOMEM);
        return;
    }
    cJSON_Delete(event);
    struct tattle__sink *sink = &self->output.sink;
    if (self->event_count++ > 0)
        tattle__sink_write(sink, ",", 1);
    tattle__sink_write(sink, "\n", 1);
    tattle__remember_error(
        &self->error,
        tattle__sink_write(sink, self->printed.data, self->printed.length));
}

/* {"ph":PHASE,"pid":..,"tid":TID,"ts":TS} and, when `name` is not NULL,
 * "name" (a copy: the name buffer is reused). */
static cJSON *new_event(struct chrome_reporter *self, const char *phase,
                        const char *name, size_t tid, uint64_t ts)
{
    cJSON *event = cJSON_CreateObject();
    bool ok = event && cJSON_AddStringToObject(event, "ph", phase) &&
              tattle__json_add_uint(event, "pid", self->pid) &&
              tattle__json_add_uint(event, "tid", tid) &&
              tattle__json_add_uint(event, "ts", ts);
    if (ok && name)
        ok = tattle__json_add_bytes(event, "name", name, strlen(name));
    if (!ok) {
        cJSON_Delete(event);
        return NULL;
    }
    return event;
}

/* The thread of an actor or mailbox: 1, 2, ... within the test. */
static size_t thread_of(struct chrome_reporter *self, const char *actor)
{
    return tattle__call_tree_thread(&self->tree, actor) + 1;
}

static void write_metadata(struct chrome_reporter *self, const char *what,
                           size_t tid, const char *name)
{
    cJSON *event = new_event(self, "M", what, tid, 0);
    cJSON *args = event ? cJSON_AddObjectToObject(event, "args") : NULL;
    if (event &&
        (!args || !tattle__json_add_bytes(args, "name", name, strlen(name)))) {
        cJSON_Delete(event);
        event = NULL;
    }
    write_event(self, event);
}

/* `ts`, or the thread's previous B/E time when the recorded clock went
 * back: a reader pairs a thread's B and E events in time order, so an E
 * written before its B would close the wrong call. */
static uint64_t thread_time(struct chrome_reporter *self, size_t tid,
                            uint64_t ts)
{
    if (tid >= self->thread_ts_capacity) {
        size_t capacity = self->thread_ts_capacity * 2;
        if (capacity <= tid)
            capacity = tid + 8;
        self->thread_ts = tattle__realloc(self->thread_ts,
                                          capacity * sizeof *self->thread_ts);
        memset(self->thread_ts + self->thread_ts_capacity, 0,
               (capacity - self->thread_ts_capacity) * sizeof *self->thread_ts);
        self->thread_ts_capacity = capacity;
    }
    if (ts < self->thread_ts[tid])
        ts = self->thread_ts[tid];
    self->thread_ts[tid] = ts;
    return ts;
}

/* A "B" or "E" event of a call on `tid`: both carry the function's name
 * and place, so a reader that pairs them by name and arguments (as
 * speedscope does when they share a timestamp) pairs them right. Its
 * time never goes back on its thread. */
static void write_call(struct chrome_reporter *self, const char *phase,
                       const struct tattle__call_node *node, size_t tid,
                       uint64_t ts)
{
    ts = thread_time(self, tid, ts);
    cJSON *event = new_event(self, phase, node->function, tid, ts);
    cJSON *args = event ? cJSON_AddObjectToObject(event, "args") : NULL;
    bool ok = args && cJSON_AddStringToObject(event, "cat", "call") &&
              tattle__json_add_text(args, "file", node->file) &&
              cJSON_AddNumberToObject(args, "line", node->line);
    if (event && !ok) {
        cJSON_Delete(event);
        event = NULL;
    }
    write_event(self, event);
}

static void write_calls(struct chrome_reporter *self,
                        const struct tattle_trace *trace, uint64_t end_us)
{
    struct tattle__call_tree *tree = &self->tree;
    for (size_t i = 0; i < trace->call_count; i++) {
        const struct tattle_trace_call *call = &trace->calls[i];
        size_t tid = thread_of(self, call->actor);
        size_t node = tattle__call_tree_step(tree, call);
        if (node != 0)
            write_call(self, call->kind == TATTLE_TRACE_CALL_ENTER ? "B" : "E",
                       &tree->nodes[node], tid, call->t_us);
    }
    /* The calls still open end with the test. */
    for (size_t thread = 0; thread < tree->actors.count; thread++)
        for (size_t node = tree->threads[thread].node; node != 0;
             node = tree->nodes[node].parent)
            write_call(self, "E", &tree->nodes[node], thread + 1, end_us);
    tattle__call_tree_finish(tree, end_us);
}

/* "send LABEL": the label, else the message, else the kind alone. */
static const char *event_name(struct chrome_reporter *self, const char *verb,
                              const struct tattle_trace_event *event)
{
    const char *what = event->label ? event->label : event->msg;
    tattle__buffer_clear(&self->name);
    tattle__buffer_append_string(&self->name, verb);
    if (what) {
        tattle__buffer_append(&self->name, " ", 1);
        tattle__buffer_append_string(&self->name, what);
    }
    return self->name.data;
}

/* A zero-length slice on `tid` for one end of a message, with the flow
 * event `flow_phase` ("s", "f" or NULL) of flow `flow` at the same time. */
static void write_message_end(struct chrome_reporter *self, const char *verb,
                              const struct tattle_trace_event *message,
                              size_t tid, uint64_t ts, const char *flow_phase,
                              uint64_t flow)
{
    cJSON *slice =
        new_event(self, "X", event_name(self, verb, message), tid, ts);
    cJSON *args = slice ? cJSON_AddObjectToObject(slice, "args") : NULL;
    bool ok = args && cJSON_AddStringToObject(slice, "cat", "message") &&
              tattle__json_add_uint(slice, "dur", 0) &&
              tattle__json_add_text(args, "from", message->from) &&
              tattle__json_add_text(args, "to", message->to) &&
              tattle__json_add_text(args, "msg", message->msg) &&
              tattle__json_add_uint(args, "size", message->size) &&
              tattle__json_add_uint(args, "seq", message->seq);
    if (slice && !ok) {
        cJSON_Delete(slice);
        slice = NULL;
    }
    write_event(self, slice);
    if (!flow_phase)
        return;
    cJSON *arrow = new_event(self, flow_phase, "message", tid, ts);
    ok = arrow && cJSON_AddStringToObject(arrow, "cat", "message") &&
         tattle__json_add_uint(arrow, "id", flow) &&
         (flow_phase[0] != 'f' || cJSON_AddStringToObject(arrow, "bp", "e"));
    if (arrow && !ok) {
        cJSON_Delete(arrow);
        arrow = NULL;
    }
    write_event(self, arrow);
}

static void write_instant(struct chrome_reporter *self, const char *scope,
                          const char *name, size_t tid, uint64_t ts,
                          cJSON *args)
{
    if (!args) {
        write_event(self, NULL);
        return;
    }
    cJSON *event = new_event(self, "i", name, tid, ts);
    if (!event || !cJSON_AddStringToObject(event, "s", scope) ||
        !cJSON_AddItemToObject(event, "args", args)) {
        if (!event || !cJSON_GetObjectItem(event, "args"))
            cJSON_Delete(args);
        cJSON_Delete(event);
        event = NULL;
    }
    write_event(self, event);
}

static void write_messages(struct chrome_reporter *self,
                           const struct tattle_trace *trace)
{
    struct tattle__sequence sequence;
    tattle__sequence_build(&sequence, trace);
    for (size_t i = 0; i < sequence.row_count; i++) {
        const struct tattle__sequence_row *row = &sequence.rows[i];
        const struct tattle_trace_event *event = row->event;
        if (!event)
            continue;
        size_t from = thread_of(self, sequence.participants.names[row->from]);
        size_t to = thread_of(self, sequence.participants.names[row->to]);
        switch (row->kind) {
        case TATTLE__ROW_MESSAGE: {
            uint64_t flow = ++self->flow_count;
            write_message_end(self, "send", event, from, row->t_us, "s", flow);
            write_message_end(self, "recv", event, to, row->t_end_us, "f",
                              flow);
            break;
        }
        case TATTLE__ROW_PENDING_SEND:
            write_message_end(self, "send", event, from, row->t_us, NULL, 0);
            break;
        case TATTLE__ROW_RECV_ONLY:
            write_message_end(self, "recv", event, to, row->t_us, NULL, 0);
            break;
        case TATTLE__ROW_SPAWN:
        case TATTLE__ROW_EVENT:
        case TATTLE__ROW_EXIT:
        case TATTLE__ROW_GONE: {
            cJSON *args = cJSON_CreateObject();
            if (args && (!tattle__json_add_text(args, "from", event->from) ||
                         !tattle__json_add_text(args, "to", event->to) ||
                         !tattle__json_add_text(args, "msg", event->msg) ||
                         !tattle__json_add_uint(args, "seq", event->seq))) {
                cJSON_Delete(args);
                args = NULL;
            }
            write_instant(self, "t",
                          event_name(self,
                                     tattle_trace_event_kind_name(event->kind),
                                     event),
                          from, row->t_us, args);
            break;
        }
        }
    }
    tattle__sequence_release(&sequence);
}

static void write_endings(struct chrome_reporter *self,
                          const struct tattle_result *result, uint64_t end_us)
{
    for (size_t i = 0; i < result->failure_count; i++) {
        const struct tattle_failure *failure = &result->failures[i];
        cJSON *args = cJSON_CreateObject();
        if (args &&
            (!tattle__json_add_text(args, "message", failure->message) ||
             !tattle__json_add_text(args, "file", failure->file) ||
             !cJSON_AddNumberToObject(args, "line", failure->line))) {
            cJSON_Delete(args);
            args = NULL;
        }
        tattle__buffer_clear(&self->name);
        tattle__buffer_printf(&self->name, "failure: %s",
                              tattle_failure_kind_name(failure->kind));
        write_instant(self, "p", self->name.data, 1, end_us, args);
    }
    const struct tattle_trace *trace = result->trace;
    for (size_t i = 0; trace && i < trace->mailbox_count; i++) {
        const struct tattle_trace_mailbox *mailbox = &trace->mailboxes[i];
        if (!mailbox->pending && !mailbox->message_count)
            continue; /* as the sequence diagram: only those holding some */
        cJSON *args = cJSON_CreateObject();
        cJSON *messages =
            args ? cJSON_AddArrayToObject(args, "messages") : NULL;
        bool ok = messages &&
                  tattle__json_add_text(args, "owner", mailbox->owner) &&
                  tattle__json_add_uint(args, "pending", mailbox->pending);
        for (size_t m = 0; ok && m < mailbox->message_count; m++) {
            cJSON *text = tattle__json_text(mailbox->messages[m]);
            ok = text && cJSON_AddItemToArray(messages, text);
            if (!ok)
                cJSON_Delete(text);
        }
        if (args && !ok) {
            cJSON_Delete(args);
            args = NULL;
        }
        tattle__buffer_clear(&self->name);
        tattle__buffer_printf(&self->name, "mailbox %s",
                              mailbox->name ? mailbox->name : "?");
        write_instant(self, "p", self->name.data, 1, end_us, args);
    }
}

/* ---- Callbacks ------------------------------------------------------ */

static int chrome_create(void **out, const char *destination,
                         const struct tattle_report_options *options)
{
    (void)options;
    struct chrome_reporter *self = tattle__calloc(1, sizeof *self);
    int error = tattle__report_output_open(&self->output, destination, false);
    if (error) {
        free(self);
        return error;
    }
    *out = self;
    return 0;
}

static void chrome_begin(void *opaque, const struct tattle_run_info *run)
{
    (void)run;
    struct chrome_reporter *self = opaque;
    static const char opening[] =
        "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
    tattle__remember_error(
        &self->error,
        tattle__sink_write(&self->output.sink, opening, sizeof opening - 1));
}

static void chrome_test_started(void *opaque,
                                const struct tattle_test_info *test)
{
    (void)opaque;
    (void)test;
}

static void chrome_test_finished(void *opaque,
                                 const struct tattle_result *result)
{
    struct chrome_reporter *self = opaque;
    const struct tattle_trace *trace = result->trace;
    if (self->error || (!trace && result->failure_count == 0))
        return;
    self->pid++;
    tattle__call_tree_reset(&self->tree);
    if (self->thread_ts_capacity)
        memset(self->thread_ts, 0,
               self->thread_ts_capacity * sizeof *self->thread_ts);
    uint64_t end_us = result->duration_us;
    for (size_t i = 0; trace && i < trace->call_count; i++)
        if (trace->calls[i].t_us > end_us)
            end_us = trace->calls[i].t_us;
    for (size_t i = 0; trace && i < trace->event_count; i++)
        if (trace->events[i].t_us > end_us)
            end_us = trace->events[i].t_us;
    write_metadata(self, "process_name", 1, result->test->id);
    /* Actors get their threads in the order the trace lists them. */
    for (size_t i = 0; trace && i < trace->actor_count; i++)
        thread_of(self, trace->actors[i].name);
    if (trace) {
        write_calls(self, trace, end_us);
        write_messages(self, trace);
    }
    write_endings(self, result, end_us);
    if (self->tree.actors.count == 0)
        thread_of(self, "main");
    for (size_t i = 0; i < self->tree.actors.count; i++)
        write_metadata(self, "thread_name", i + 1, self->tree.actors.names[i]);
}

static int chrome_end(void *opaque, const struct tattle_summary *summary)
{
    (void)summary;
    struct chrome_reporter *self = opaque;
    if (self->error)
        return self->error;
    tattle__sink_write(&self->output.sink, "\n]}\n", 4);
    if (self->error)
        return self->error;
    return tattle__report_output_commit(&self->output);
}

static void chrome_destroy(void *opaque)
{
    struct chrome_reporter *self = opaque;
    if (!self)
        return;
    tattle__report_output_discard(&self->output);
    tattle__call_tree_release(&self->tree);
    tattle__buffer_release(&self->printed);
    tattle__buffer_release(&self->name);
    free(self->thread_ts);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_chrome_trace = {
    .name = "chrome-trace",
    .create = chrome_create,
    .begin = chrome_begin,
    .test_started = chrome_test_started,
    .test_finished = chrome_test_finished,
    .end = chrome_end,
    .destroy = chrome_destroy,
};
