/*
 * tracer_tests.c — behaviour tests of the flight recorder.
 *
 * Each function pins one behaviour of tracer/: recording order and fields,
 * cap/dropped, budget/overflow, level, payload bounds, threads and forked
 * children sharing one arena, torn records after SIGKILL mid-write,
 * deactivation, mailboxes (traced and not, across threads and fork, with
 * timeouts, closing) and their snapshot after a crash or on a timeout,
 * the budget shared between short and long threads, limits that refuse
 * what does not fit, and UTF-8 rendering and truncation. The program
 * plays the runner: it creates the session, forks the "test process",
 * which activates it, and freezes the trace once the test has ended.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/trace.h>

#include "base/utf8.h"
#include "tests/tracer/harness.h"
#include "tracer/exec/hand_down.h"
#include "tracer/mailbox.h"
#include "tracer/peek.h"
#include "tracer/session.h"
#include "tracer/test_process/recorder.h"

/* ---- Helpers ----------------------------------------------------------------
 */

/* The timeout of a mailbox wait that should never run out. */
static int patient_ms(void)
{
    return (int)(HARNESS_WAIT_MS * harness_scale());
}

static struct tattle__trace_session *new_session(uint32_t cap, uint32_t budget,
                                                 int level, uint32_t payload)
{
    struct tattle__trace_config config = {cap,     budget, level,
                                          payload, false,  0};
    struct tattle__trace_session *session = NULL;
    int error = tattle__trace_session_create(&session, &config);
    CHECK(error == 0, "create: %s", strerror(-error));
    return session;
}

/* Forks a test process that activates the session, runs body, reports its
 * end and exits 0. */
static pid_t start_test(struct tattle__trace_session *session,
                        void (*body)(void))
{
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        tattle__trace_session_activate(session);
        body();
        tattle__trace_session_child_finish(false);
        _exit(0);
    }
    return pid;
}

static int wait_test(pid_t pid)
{
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
    return status;
}

static struct tattle_trace *freeze(struct tattle__trace_session *session)
{
    struct tattle_trace *trace = NULL;
    int error = tattle__trace_session_freeze(session, &trace);
    CHECK(error == 0 && trace != NULL, "freeze: %s", strerror(-error));
    return trace;
}

static struct tattle_trace *run_traced(struct tattle__trace_session *session,
                                       void (*body)(void))
{
    int status = wait_test(start_test(session, body));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the test process failed (status %#x)", status);
    return freeze(session);
}

static bool same(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Every frozen trace obeys these, whatever happened to the test. */
static void check_invariants(const struct tattle_trace *trace)
{
    CHECK(trace->event_count <= trace->cap, "%zu events > cap %llu",
          trace->event_count, (unsigned long long)trace->cap);
    CHECK(trace->recorded == trace->dropped + trace->event_count,
          "recorded %llu != dropped %llu + kept %zu",
          (unsigned long long)trace->recorded,
          (unsigned long long)trace->dropped, trace->event_count);
    CHECK(trace->recorded <= trace->budget, "recorded past the budget");
    for (size_t i = 1; i < trace->event_count; i++) {
        CHECK(trace->events[i].seq == trace->events[i - 1].seq + 1,
              "seq not consecutive at %zu", i);
        CHECK(trace->events[i].t_us >= trace->events[i - 1].t_us,
              "t_us goes back at %zu", i);
    }
    if (trace->event_count != 0)
        CHECK(trace->events[trace->event_count - 1].seq == trace->recorded,
              "the last kept event is not the last recorded one");
}

/* ---- Recording
 * ----------------------------------------------------------------- */

static void body_send_recv_event(void)
{
    tattle_actor_name("ping");
    tattle_trace_send("pong", "hello", "hi there", 8);
    tattle_trace_recv("pong", "reply", "ok", 2);
    tattle_trace_event(10, NULL, "pong", "state", "count=%d", 42);
    char dynamic_label[64];
    snprintf(dynamic_label, sizeof dynamic_label, "%s",
             "a-label-far-longer-than-the-inline-field");
    tattle_trace_send(dynamic_label, dynamic_label, "\x01\x02\xff", 3);
}

static void test_records_send_recv_event_fields_in_order(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_send_recv_event);
    check_invariants(trace);
    CHECK(trace->recorded == 4 && trace->dropped == 0 && !trace->overflow,
          "recorded %llu", (unsigned long long)trace->recorded);
    CHECK(trace->event_count == 4);
    const struct tattle_trace_event *e = trace->events;
    CHECK(e[0].seq == 1 && e[0].kind == TATTLE_TRACE_SEND);
    CHECK(same(e[0].from, "ping") && same(e[0].to, "pong"));
    CHECK(same(e[0].label, "hello") && same(e[0].msg, "hi there"));
    CHECK(e[0].size == 8);
    CHECK(e[1].kind == TATTLE_TRACE_RECV && same(e[1].from, "pong") &&
          same(e[1].to, "ping") && same(e[1].msg, "ok"));
    CHECK(e[2].kind == TATTLE_TRACE_EVENT && e[2].level == 10 &&
              same(e[2].from, "ping") && same(e[2].to, "pong") &&
              same(e[2].label, "state") && same(e[2].msg, "count=42"),
          "event: %s %s %s", e[2].from, e[2].label, e[2].msg);
    /* Strings outside read-only data are copied, bounded. */
    CHECK(same(e[3].to, "a-label-far-longer-than"), "to: %s", e[3].to);
    CHECK(same(e[3].label, "a-label-far-longer-than"));
    CHECK(same(e[3].msg, "hex:0102ff"), "msg: %s", e[3].msg);
    CHECK(trace->actor_count == 1 && same(trace->actors[0].name, "ping"));
    CHECK(trace->actors[0].alive_at_exit, "the test's actor ended the test");
    CHECK(same(tattle_trace_event_kind_name(TATTLE_TRACE_RECV), "recv"));
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* ---- A signal handler that records while its thread is recording ----
 * The event's payload lies on a page that cannot be read: copying it
 * faults inside the recorder, the SIGSEGV handler records an event of its
 * own, makes the page readable and returns, and the copy goes on. */

static char *unreadable_payload;

static void record_from_handler(int signal_number)
{
    (void)signal_number;
    tattle_trace_send("handler", "inside", "h", 1);
    mprotect(unreadable_payload, (size_t)sysconf(_SC_PAGESIZE), PROT_READ);
}

static void body_handler_records_inside_a_record(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unreadable_payload = mmap(NULL, page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (unreadable_payload == MAP_FAILED)
        _exit(3);
    memcpy(unreadable_payload, "outside!", 8);
    mprotect(unreadable_payload, page, PROT_NONE);
    struct sigaction action = {.sa_handler = record_from_handler};
    sigaction(SIGSEGV, &action, NULL);
    tattle_trace_send("peer", "outer", unreadable_payload, 8);
    signal(SIGSEGV, SIG_DFL);
}

/* Runs `body`, whose interrupted send is its event number `before` + 1:
 * the handler's event is counted lost, the interrupted one is whole. */
static void check_handler_event_lost(void (*body)(void), size_t before)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body);
    check_invariants(trace);
    CHECK(trace->event_count == before + 1 && trace->overflow,
          "events %zu overflow %d", trace->event_count, trace->overflow);
    const struct tattle_trace_event *e = trace->events + before;
    CHECK(same(e[0].to, "peer") && same(e[0].label, "outer") &&
              same(e[0].msg, "outside!"),
          "torn record: to %s label %s msg %s", e[0].to, e[0].label, e[0].msg);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void test_handler_recording_inside_a_record_is_lost_not_torn(void)
{
    check_handler_event_lost(body_handler_records_inside_a_record, 0);
}

/* The same with quota in hand, so the interrupted send takes the quick
 * path (the first send of a thread reserves its quota on the general
 * one). */
static void body_handler_inside_quick_record(void)
{
    tattle_trace_send("peer", "first", "x", 1);
    body_handler_records_inside_a_record();
}

static void test_handler_inside_quick_record_is_lost_not_torn(void)
{
    check_handler_event_lost(body_handler_inside_quick_record, 1);
}

static void body_mixed_names(void)
{
    char dynamic[16];
    snprintf(dynamic, sizeof dynamic, "%s", "dyn");
    tattle_trace_send("seed", "seed", "s", 1); /* reserves the quota */
    tattle_trace_send("peer", dynamic, "a", 1);
    tattle_trace_recv(dynamic, "label", "b", 1);
    tattle_trace_send(NULL, "label", "c", 1);
    tattle_trace_recv("peer", NULL, "d", 1);
}

static void test_mixed_names_are_kept(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_mixed_names);
    check_invariants(trace);
    CHECK(trace->event_count == 5, "%zu events", trace->event_count);
    const struct tattle_trace_event *e = trace->events;
    CHECK(same(e[1].to, "peer") && same(e[1].label, "dyn"));
    CHECK(same(e[2].from, "dyn") && same(e[2].label, "label"));
    CHECK(e[3].to == NULL && same(e[3].label, "label"), "to %s", e[3].to);
    CHECK(same(e[4].from, "peer") && e[4].label == NULL);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void body_long_sends(void)
{
    char message[64];
    for (int n = 0; n < 10; n++) {
        memset(message, 'a' + n, sizeof message);
        tattle_trace_send("peer", "long", message, sizeof message);
    }
}

/* A ring of three wraps: a record's payload written past its area would
 * land on the one after, written before it and still kept. */
static void test_payload_stays_in_its_record(void)
{
    struct tattle__trace_session *session = new_session(3, 5000, 100, 24);
    struct tattle_trace *trace = run_traced(session, body_long_sends);
    check_invariants(trace);
    CHECK(trace->event_count == 3, "%zu events", trace->event_count);
    for (size_t i = 0; i < trace->event_count; i++) {
        char expected[25];
        memset(expected, 'a' + 7 + (int)i, 24);
        expected[24] = '\0';
        const struct tattle_trace_event *e = &trace->events[i];
        CHECK(same(e->to, "peer") && same(e->label, "long") && e->size == 64 &&
                  same(e->msg, expected),
              "event %zu: to %s size %llu msg %s", i, e->to,
              (unsigned long long)e->size, e->msg);
    }
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* A ring of two, first filled with a captured message's send and recv
 * (an endpoint, offsets, a level, text payloads), then lapped by a send
 * and a recv of tattle_trace_send and recv: each record must say all of
 * its fields afresh, or it reads as the event before it (a captured
 * pair, matched, with a level and a text payload). */
static void body_sends_over_other_events(void)
{
    struct tattle__endpoint *pipe_entry = &tattle_trace_current->endpoints[0];
    atomic_store(&pipe_entry->key, 1);
    pipe_entry->id = 4711;
    atomic_store(&pipe_entry->kind, (uint32_t)TATTLE__ENDPOINT_PIPE);
    for (int kind = TATTLE_TRACE_SEND; kind <= TATTLE_TRACE_RECV; kind++)
        tattle__recorder_record(&(struct tattle__event){
            .kind = (enum tattle_trace_event_kind)kind,
            .from = kind == TATTLE_TRACE_SEND ? TATTLE__SELF
                                              : (struct tattle__party){0},
            .to = kind == TATTLE_TRACE_RECV ? TATTLE__SELF
                                            : (struct tattle__party){0},
            .label = "captured",
            .payload = "zz",
            .payload_length = 2,
            .size = 2,
            .level = 20,
            .text = true,
            .endpoint = 1,
            .offset = 0});
    tattle_trace_send("peer", "binary", "\x01\x02", 2);
    tattle_trace_recv("peer", "binary", "\x03\x04", 2);
}

static void test_a_send_rewrites_every_field_of_its_record(void)
{
    struct tattle__trace_session *session = new_session(2, 5000, 100, 64);
    struct tattle_trace *trace =
        run_traced(session, body_sends_over_other_events);
    check_invariants(trace);
    CHECK(tattle__trace_session_corruption(session) == NULL, "corrupt: %s",
          tattle__trace_session_corruption(session));
    CHECK(trace->event_count == 2 && trace->dropped == 2, "%zu events",
          trace->event_count);
    const struct tattle_trace_event *e = trace->events;
    CHECK(e[0].kind == TATTLE_TRACE_SEND && e[0].level == 0 &&
              same(e[0].msg, "hex:0102") && e[0].match == 0,
          "send: level %d msg %s", e[0].level, e[0].msg);
    CHECK(e[1].kind == TATTLE_TRACE_RECV && e[1].level == 0 &&
              same(e[1].msg, "hex:0304") && e[1].match == 0,
          "recv: level %d msg %s", e[1].level, e[1].msg);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void body_many_sends(void)
{
    for (int i = 1; i <= 100; i++) {
        char text[16];
        int length = snprintf(text, sizeof text, "m%03d", i);
        tattle_trace_send("peer", "n", text, (size_t)length);
    }
}

static void test_cap_keeps_last_events_and_counts_dropped(void)
{
    struct tattle__trace_session *session = new_session(10, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_many_sends);
    check_invariants(trace);
    CHECK(trace->recorded == 100 && trace->dropped == 90 &&
              trace->event_count == 10 && !trace->overflow,
          "recorded %llu dropped %llu", (unsigned long long)trace->recorded,
          (unsigned long long)trace->dropped);
    CHECK(trace->events[0].seq == 91 && same(trace->events[0].msg, "m091"),
          "first kept: %llu %s", (unsigned long long)trace->events[0].seq,
          trace->events[0].msg);
    CHECK(same(trace->events[9].msg, "m100"));
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void test_budget_stops_recording_and_sets_overflow(void)
{
    struct tattle__trace_session *session = new_session(50, 30, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_many_sends);
    check_invariants(trace);
    CHECK(trace->recorded == 30 && trace->overflow && trace->event_count == 30,
          "recorded %llu overflow %d", (unsigned long long)trace->recorded,
          trace->overflow);
    CHECK(same(trace->events[29].msg, "m030"), "last: %s",
          trace->events[29].msg);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);

    /* Exactly the budget is not an overflow. */
    session = new_session(50, 100, 100, 64);
    trace = run_traced(session, body_many_sends);
    CHECK(trace->recorded == 100 && !trace->overflow);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void body_levels(void)
{
    tattle_trace_event(0, "a", "b", "kept", "level 0");
    tattle_trace_event(49, "a", "b", "kept", "level 49");
    tattle_trace_event(50, "a", "b", "filtered", "level 50");
    tattle_trace_event(99, "a", "b", "filtered", "level 99");
    tattle_trace_send("b", "send", "x", 1);
}

static void test_level_threshold_filters_events(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 50, 64);
    struct tattle_trace *trace = run_traced(session, body_levels);
    check_invariants(trace);
    CHECK(trace->event_count == 3, "%zu events", trace->event_count);
    CHECK(same(trace->events[0].msg, "level 0"));
    CHECK(same(trace->events[1].msg, "level 49"));
    CHECK(trace->events[2].kind == TATTLE_TRACE_SEND);
    CHECK(same(trace->events[0].from, "a") && same(trace->events[0].to, "b"));
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void body_payload(void)
{
    tattle_trace_send("peer", "long", "abcdefghijkl", 12);
    tattle_trace_send("peer", "binary",
                      "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", 10);
    tattle_trace_send("peer", "cstring", "text", 5);
}

static void test_payload_is_bounded_by_payload_bytes(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 8);
    struct tattle_trace *trace = run_traced(session, body_payload);
    CHECK(trace->event_count == 3);
    CHECK(same(trace->events[0].msg, "abcdefgh") && trace->events[0].size == 12,
          "msg %s", trace->events[0].msg);
    CHECK(same(trace->events[1].msg, "hex:0001020304050607") &&
              trace->events[1].size == 10,
          "msg %s", trace->events[1].msg);
    CHECK(same(trace->events[2].msg, "text"), "a C string's NUL is not binary");
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* Every length from 0 to past the payload, sent and received, each
 * message ending where an unreadable page begins: what a record keeps is
 * the message's first bytes, each in its place, and reading them touches
 * nothing past the message's end. The recorder copies short payloads with
 * fixed-size moves that overlap; a move misplaced, or one that reads past
 * the end, shows here. */
enum { LENGTHS_SENT = 81 };

static char length_byte(size_t length, size_t i)
{
    return (char)('a' + (length * 7 + i * 5) % 26);
}

static void body_every_length(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED || mprotect(pages + page, (size_t)page, PROT_NONE))
        _exit(3);
    for (size_t length = 0; length < LENGTHS_SENT; length++) {
        char *message = pages + page - length;
        for (size_t i = 0; i < length; i++)
            message[i] = length_byte(length, i);
        if (length % 2 == 0)
            tattle_trace_send("peer", "sized", message, length);
        else
            tattle_trace_recv("peer", "sized", message, length);
    }
}

static void check_every_length(uint32_t payload_bytes)
{
    struct tattle__trace_session *session =
        new_session(2 * LENGTHS_SENT, 5000, 100, payload_bytes);
    struct tattle_trace *trace = run_traced(session, body_every_length);
    check_invariants(trace);
    CHECK(trace->event_count == LENGTHS_SENT, "%zu events", trace->event_count);
    for (size_t length = 0; length < LENGTHS_SENT; length++) {
        const struct tattle_trace_event *event = &trace->events[length];
        char expected[LENGTHS_SENT + 1];
        size_t kept = length < payload_bytes ? length : payload_bytes;
        for (size_t i = 0; i < kept; i++)
            expected[i] = length_byte(length, i);
        expected[kept] = '\0';
        bool sent = length % 2 == 0;
        CHECK(event->kind == (sent ? TATTLE_TRACE_SEND : TATTLE_TRACE_RECV));
        CHECK(same(sent ? event->to : event->from, "peer") &&
                  same(sent ? event->from : event->to, "main") &&
                  same(event->label, "sized"),
              "length %zu: from %s to %s", length, event->from, event->to);
        CHECK(event->size == length, "length %zu: size %llu", length,
              (unsigned long long)event->size);
        CHECK(kept == 0 ? event->msg == NULL || same(event->msg, "")
                        : same(event->msg, expected),
              "length %zu (payload_bytes %u): msg %s, expected %s", length,
              payload_bytes, event->msg ? event->msg : "(none)", expected);
    }
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void test_every_payload_length_is_kept_in_place(void)
{
    check_every_length(64); /* the default: every record is 64 bytes */
    check_every_length(24); /* cut shorter than the message */
    check_every_length(80); /* past 64: longer messages keep 80 */
}

/* ---- Threads and processes --------------------------------------------------
 */

enum { EVENTS_PER_ACTOR = 20 };

/* The workers are running and recording when the test process forks, but
 * none of them is starting or exiting: under AddressSanitizer a thread
 * that starts or exits takes the sanitizer's allocator and thread-registry
 * locks, and a child forked while one is held inherits it held forever;
 * the child's exit() then deadlocks in LeakSanitizer's leak check, which
 * takes every allocator lock. GCC 12's libasan has no fork handlers for
 * those locks (they came with LLVM 18: llvm/llvm-project#75281 for LSan,
 * #75290 for ASan; the limitation is google/sanitizers#836). POSIX allows
 * a child forked from a threaded process only async-signal-safe calls
 * anyway; the test needs exit() (its atexit hook records the `exit`
 * event), so it forks only where no other thread holds a lock. */
static struct harness_handshake workers_recording, fork_done;

static void *thread_body(void *arg)
{
    tattle_actor_name((const char *)arg);
    harness_handshake_post(&workers_recording);
    for (int i = 0; i < EVENTS_PER_ACTOR; i++)
        tattle_trace_send("main", "tick", &i, sizeof i);
    harness_handshake_wait(&fork_done, "the end of the fork");
    return NULL;
}

static void body_threads_and_fork(void)
{
    harness_handshake_open(&workers_recording);
    harness_handshake_open(&fork_done);
    pthread_t threads[2];
    pthread_create(&threads[0], NULL, thread_body, "worker-a");
    pthread_create(&threads[1], NULL, thread_body, "worker-b");
    harness_handshake_wait(&workers_recording, "worker-a to record");
    harness_handshake_wait(&workers_recording, "worker-b to record");
    pid_t child = fork();
    if (child == 0) {
        tattle_actor_name("forked");
        for (int i = 0; i < EVENTS_PER_ACTOR; i++)
            tattle_trace_send("main", "tick", &i, sizeof i);
        exit(0);
    }
    harness_handshake_post(&fork_done);
    harness_handshake_post(&fork_done);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "the forked child ended with status %#x", status);
    harness_handshake_close(&workers_recording);
    harness_handshake_close(&fork_done);
    tattle_trace_event(1, NULL, NULL, "done", "joined");
}

static size_t count_from(const struct tattle_trace *trace, const char *from,
                         enum tattle_trace_event_kind kind)
{
    size_t count = 0;
    for (size_t i = 0; i < trace->event_count; i++)
        if (trace->events[i].kind == kind && same(trace->events[i].from, from))
            count++;
    return count;
}

static const struct tattle_trace_actor *
find_actor(const struct tattle_trace *trace, const char *name)
{
    for (size_t i = 0; i < trace->actor_count; i++)
        if (same(trace->actors[i].name, name))
            return &trace->actors[i];
    return NULL;
}

static void test_threads_and_forked_children_record_into_one_arena(void)
{
    struct tattle__trace_session *session = new_session(200, 5000, 100, 64);
    pid_t test_pid = start_test(session, body_threads_and_fork);
    int status = wait_test(test_pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct tattle_trace *trace = freeze(session);
    check_invariants(trace);
    CHECK(count_from(trace, "worker-a", TATTLE_TRACE_SEND) == EVENTS_PER_ACTOR);
    CHECK(count_from(trace, "worker-b", TATTLE_TRACE_SEND) == EVENTS_PER_ACTOR);
    CHECK(count_from(trace, "forked", TATTLE_TRACE_SEND) == EVENTS_PER_ACTOR);
    /* The fork and the exits are events too. */
    CHECK(count_from(trace, "main", TATTLE_TRACE_SPAWN) == 1, "one spawn");
    CHECK(count_from(trace, "worker-a", TATTLE_TRACE_EXIT) == 1);
    CHECK(count_from(trace, "forked", TATTLE_TRACE_EXIT) == 1);
    CHECK(same(trace->events[trace->event_count - 1].label, "done"),
          "the last event is the main thread's");

    CHECK(trace->actor_count == 4, "%zu actors", trace->actor_count);
    const struct tattle_trace_actor *main_actor = find_actor(trace, "main");
    const struct tattle_trace_actor *worker = find_actor(trace, "worker-a");
    const struct tattle_trace_actor *forked = find_actor(trace, "forked");
    CHECK(main_actor && worker && forked && find_actor(trace, "worker-b"));
    CHECK(main_actor->pid == test_pid && worker->pid == test_pid);
    CHECK(worker->tid != main_actor->tid);
    CHECK(forked->pid != test_pid && forked->pid == forked->tid);
    CHECK(main_actor->alive_at_exit && !worker->alive_at_exit &&
          !forked->alive_at_exit);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* ---- Torn records
 * ------------------------------------------------------------ */

/* A payload that proves itself whole: a counter, filler derived from it,
 * and a checksum over all of that, all printable. */
enum { TORTURE_PAYLOAD = 64 };

static uint32_t checksum(const char *text, size_t length)
{
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < length; i++)
        hash = (hash ^ (unsigned char)text[i]) * 16777619u;
    return hash;
}

static void make_payload(char *out, uint32_t writer, uint64_t counter)
{
    int used = snprintf(out, TORTURE_PAYLOAD + 1, "w%u n%010llu ", writer,
                        (unsigned long long)counter);
    uint64_t state = counter * 6364136223846793005u + writer;
    while (used < TORTURE_PAYLOAD - 8) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        out[used++] = (char)('a' + (state >> 59) % 26);
    }
    snprintf(out + used, 9, "%08x", checksum(out, (size_t)used));
}

static bool payload_is_whole(const char *text)
{
    if (text == NULL || strlen(text) != TORTURE_PAYLOAD)
        return false;
    char expected[TORTURE_PAYLOAD + 1];
    unsigned writer;
    unsigned long long counter;
    if (sscanf(text, "w%u n%llu ", &writer, &counter) != 2)
        return false;
    make_payload(expected, writer, counter);
    return memcmp(expected, text, TORTURE_PAYLOAD) == 0;
}

/* The writers send precomputed payloads (and names) so that nearly all of
 * their time is spent inside a record: a kill then lands mid-record in
 * most rounds. TORTURE_KINDS is far above the cap, so a record torn
 * between two writes still mixes two different payloads. */
enum { TORTURE_CAP = 16, TORTURE_KINDS = 1000, TORTURE_WRITERS = 2 };
static char torture_payloads[TORTURE_WRITERS + 1][TORTURE_KINDS]
                            [TORTURE_PAYLOAD + 1];
static char torture_peers[TORTURE_KINDS][8];

static void make_torture_messages(void)
{
    for (uint32_t writer = 1; writer <= TORTURE_WRITERS; writer++)
        for (unsigned kind = 0; kind < TORTURE_KINDS; kind++)
            make_payload(torture_payloads[writer][kind], writer, kind);
    for (unsigned kind = 0; kind < TORTURE_KINDS; kind++)
        snprintf(torture_peers[kind], sizeof torture_peers[kind], "p%u", kind);
}

/* How many records each writer has written, in memory shared with the
 * driver, which kills writers once they have filled their ring (twice
 * over). It polls: the writer is stopped wherever it was when the driver
 * got the processor back, or interrupted wherever it is on another one. */
static _Atomic uint64_t *torture_progress;

static void *torture_writer(void *arg)
{
    uint32_t writer = (uint32_t)(uintptr_t)arg;
    unsigned kind = 0;
    for (uint64_t counter = 1;; counter++) {
        /* The peer and label are copied (not read-only data): they tear
         * too when the writer is killed mid-record. */
        tattle_trace_send(torture_peers[kind], torture_peers[kind],
                          torture_payloads[writer][kind], TORTURE_PAYLOAD);
        if (++kind == TORTURE_KINDS)
            kind = 0;
        atomic_store_explicit(&torture_progress[writer], counter,
                              memory_order_relaxed);
    }
    return NULL;
}

static void wait_torture_progress(uint32_t writer, uint64_t records)
{
    uint64_t deadline = harness_deadline(HARNESS_WAIT_MS);
    while (atomic_load(&torture_progress[writer]) < records) {
        CHECK(harness_now_ns() < deadline,
              "writer %u wrote %llu of %llu records", writer,
              (unsigned long long)atomic_load(&torture_progress[writer]),
              (unsigned long long)records);
        harness_poll_pause();
    }
}

static void body_torture_two_writers(void)
{
    pthread_t thread;
    pthread_create(&thread, NULL, torture_writer, (void *)(uintptr_t)2);
    torture_writer((void *)(uintptr_t)1);
}

static void body_torture_one_writer(void)
{
    torture_writer((void *)(uintptr_t)1);
}

/* A kill lands in the middle of a record only by chance, so the test runs
 * rounds until it has seen that happen MIN_TORN times (and at least
 * MIN_ROUNDS rounds), bounded by a number of rounds that makes a miss
 * practically impossible when recording works (scaled under sanitizers,
 * which change how long a record takes). Every round kills writers that
 * have filled their ring. */
static void test_torn_writes_after_sigkill_are_never_reported(void)
{
    enum { MIN_TORN = 3, MAX_ROUNDS = 4000, MIN_ROUNDS = 300 };
    const unsigned max_rounds = harness_scaled_count(MAX_ROUNDS);
    unsigned torn_rounds = 0, rounds = 0;
    uint64_t events_checked = 0;
    make_torture_messages();
    torture_progress =
        mmap(NULL, sizeof *torture_progress * (TORTURE_WRITERS + 1),
             PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(torture_progress != MAP_FAILED, "mmap: %s", strerror(errno));
    while (rounds < max_rounds &&
           (rounds < MIN_ROUNDS || torn_rounds < MIN_TORN)) {
        bool one_writer = rounds % 2 == 0;
        struct tattle__trace_session *session =
            new_session(TORTURE_CAP, 1u << 30, 100, TORTURE_PAYLOAD);
        for (uint32_t writer = 1; writer <= TORTURE_WRITERS; writer++)
            atomic_store(&torture_progress[writer], 0);
        pid_t pid = start_test(session, one_writer ? body_torture_one_writer
                                                   : body_torture_two_writers);
        wait_torture_progress(1, 2 * TORTURE_CAP);
        if (!one_writer)
            wait_torture_progress(2, 2 * TORTURE_CAP);
        kill(pid, SIGKILL);
        wait_test(pid);
        struct tattle_trace *trace = freeze(session);
        check_invariants(trace);
        for (size_t i = 0; i < trace->event_count; i++) {
            const struct tattle_trace_event *event = &trace->events[i];
            CHECK(payload_is_whole(event->msg),
                  "round %u: torn event reported: %s", rounds,
                  event->msg ? event->msg : "(null)");
            unsigned long long counter = 0;
            sscanf(event->msg, "w%*u n%llu", &counter);
            char peer[24];
            snprintf(peer, sizeof peer, "p%llu", counter % 1000);
            CHECK(same(event->to, peer) && same(event->label, peer),
                  "round %u: torn names: %s %s for %llu", rounds, event->to,
                  event->label, counter);
            CHECK(event->size == TORTURE_PAYLOAD);
        }
        events_checked += trace->event_count;
        CHECK(trace->recorded > TORTURE_CAP, "round %u: the ring was full",
              rounds);
        /* One writer, a full ring, one record short: the kill landed in
         * the middle of a record, which was (rightly) not reported. */
        if (one_writer && trace->event_count == TORTURE_CAP - 1)
            torn_rounds++;
        tattle__trace_free(trace);
        tattle__trace_session_destroy(session);
        rounds++;
    }
    munmap(torture_progress, sizeof *torture_progress * (TORTURE_WRITERS + 1));
    printf("%u rounds, %u killed mid-record, %llu events checked whole\n",
           rounds, torn_rounds, (unsigned long long)events_checked);
    CHECK(torn_rounds >= MIN_TORN,
          "%u of %u kills landed mid-record: the test proved too little",
          torn_rounds, rounds);
}

/* ---- Deactivation
 * ------------------------------------------------------------ */

/* Sends the survivor has made (returned from), shared with the driver. */
static _Atomic uint64_t *survivor_sends;

static void wait_survivor_sends(uint64_t sends)
{
    uint64_t deadline = harness_deadline(HARNESS_WAIT_MS);
    while (atomic_load(survivor_sends) < sends) {
        CHECK(harness_now_ns() < deadline,
              "the survivor made %llu of %llu sends",
              (unsigned long long)atomic_load(survivor_sends),
              (unsigned long long)sends);
        harness_poll_pause();
    }
}

static void body_survivor(void)
{
    pid_t child = fork();
    if (child == 0) {
        tattle_actor_name("survivor");
        for (uint64_t i = 1;; i++) {
            tattle_trace_send("nobody", "spin", &i, sizeof i);
            atomic_store(survivor_sends, i);
            if (i % 64 == 0)
                sched_yield();
        }
    }
    /* The test ends once its survivor has recorded. */
    wait_survivor_sends(64);
}

/* A survivor with quota in hand when the session is deactivated: its
 * first send reserved up to 256 events, so the ten it sends after the
 * freeze would pass a quota check and need the arena's generation to be
 * refused. It ends by itself once it sent them, or when no go comes. */
static _Atomic uint64_t *held_go;

static void body_survivor_holding_quota(void)
{
    pid_t child = fork();
    if (child == 0) {
        tattle_actor_name("survivor");
        uint64_t i = 1;
        tattle_trace_send("nobody", "spin", &i, sizeof i);
        atomic_store(survivor_sends, 1);
        uint64_t deadline = harness_deadline(HARNESS_WAIT_MS);
        while (atomic_load(held_go) == 0) {
            if (harness_now_ns() >= deadline)
                _exit(1);
            harness_poll_pause();
        }
        for (i = 2; i <= 11; i++)
            tattle_trace_send("nobody", "spin", &i, sizeof i);
        atomic_store(survivor_sends, 11);
        _exit(0);
    }
    wait_survivor_sends(1);
}

static void test_deactivation_stops_a_survivor_holding_quota(void)
{
    survivor_sends =
        mmap(NULL, 2 * sizeof *survivor_sends, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(survivor_sends != MAP_FAILED, "mmap: %s", strerror(errno));
    held_go = survivor_sends + 1;
    atomic_store(survivor_sends, 0);
    atomic_store(held_go, 0);
    struct tattle__trace_session *session = new_session(50, 1u << 30, 100, 64);
    pid_t pid = start_test(session, body_survivor_holding_quota);
    wait_test(pid);
    struct tattle_trace *first = freeze(session);
    atomic_store(held_go, 1);
    wait_survivor_sends(11);
    struct tattle_trace *second = freeze(session);
    CHECK(first->recorded == second->recorded,
          "recorded %llu then %llu after deactivation",
          (unsigned long long)first->recorded,
          (unsigned long long)second->recorded);
    tattle__trace_free(first);
    tattle__trace_free(second);
    tattle__trace_session_destroy(session);
    munmap(survivor_sends, 2 * sizeof *survivor_sends);
}

static void test_deactivation_stops_survivors_at_next_event(void)
{
    survivor_sends = mmap(NULL, sizeof *survivor_sends, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(survivor_sends != MAP_FAILED, "mmap: %s", strerror(errno));
    struct tattle__trace_session *session = new_session(50, 1u << 30, 100, 64);
    pid_t pid = start_test(session, body_survivor);
    wait_test(pid);
    /* The test process ended (child_finish deactivated the session) but
     * its forked child still runs: once the send it may have been in has
     * returned, it must not record any more, however often it tries. */
    wait_survivor_sends(atomic_load(survivor_sends) + 2);
    struct tattle_trace *first = freeze(session);
    wait_survivor_sends(atomic_load(survivor_sends) + 1000);
    struct tattle_trace *second = freeze(session);
    CHECK(first->recorded > 0, "the survivor recorded while the test ran");
    CHECK(first->recorded == second->recorded,
          "recorded %llu then %llu after deactivation",
          (unsigned long long)first->recorded,
          (unsigned long long)second->recorded);
    const struct tattle_trace_actor *survivor = find_actor(second, "survivor");
    CHECK(survivor != NULL && survivor->alive_at_exit,
          "the survivor was alive when the test ended");
    kill(survivor->pid, SIGKILL);
    tattle__trace_free(first);
    tattle__trace_free(second);
    tattle__trace_session_destroy(session);
    munmap(survivor_sends, sizeof *survivor_sends);
}

static void test_untraced_calls_record_nothing(void)
{
    CHECK(tattle_trace_current == NULL);
    tattle_actor_name("nobody");
    tattle_trace_send("x", "y", "z", 1);
    tattle_trace_recv("x", "y", "z", 1);
    tattle_trace_event(0, "x", "y", "z", "%d", 1);
    int evaluated = 0;
    tattle_trace_send("x", "y", "z", (size_t)++evaluated);
    CHECK(evaluated == 0, "arguments are not evaluated when not traced");
    (tattle_trace_send)("x", "y", "z", 1);
    CHECK(tattle_trace_current == NULL);
}

/* ---- Mailboxes
 * ------------------------------------------------------------------ */

/* Opens a mailbox the test needs (the test fails when it cannot). */
static tattle_mailbox *open_mailbox(const char *name, size_t capacity)
{
    tattle_mailbox *mailbox = tattle_mailbox_open(name, capacity);
    CHECK(mailbox != NULL, "open %s: %s", name, tattle_error_name(-errno));
    return mailbox;
}

static void check_mailbox_basics(void)
{
    errno = 0;
    CHECK(tattle_mailbox_open("none", 0) == NULL && errno == EINVAL,
          "a zero capacity is refused with EINVAL");
    errno = 0;
    CHECK(tattle_mailbox_open("huge", 4097) == NULL && errno == EINVAL);
    tattle_mailbox *mailbox = open_mailbox("box", 2);
    CHECK(tattle_mailbox_send(mailbox, "one", "first", 5) == 0);
    CHECK(tattle_mailbox_send(mailbox, "two", "second", 6) == 0);
    char label[8], message[16];
    int length = tattle_mailbox_recv(mailbox, label, sizeof label, message,
                                     sizeof message, 0);
    CHECK(length == 5 && same(label, "one") &&
          memcmp(message, "first", 5) == 0);
    length = tattle_mailbox_recv(mailbox, label, sizeof label, message,
                                 sizeof message, 100);
    CHECK(length == 6 && same(label, "two"));
    uint64_t start = harness_now_ns();
    length = tattle_mailbox_recv(mailbox, label, sizeof label, message,
                                 sizeof message, 50);
    uint64_t waited_ms = (harness_now_ns() - start) / 1000000;
    CHECK(length == -ETIMEDOUT, "got %d", length);
    CHECK(waited_ms >= 49 && (double)waited_ms < 1000 * harness_scale(),
          "waited %llu ms", (unsigned long long)waited_ms);
    CHECK(tattle_mailbox_recv(mailbox, NULL, 0, message, sizeof message, 0) ==
              -ETIMEDOUT,
          "a zero timeout polls");
    static char big[TATTLE_MAILBOX_MESSAGE_MAX + 1];
    CHECK(tattle_mailbox_send(mailbox, "big", big, sizeof big) == -EMSGSIZE);
    /* A message larger than the buffer is truncated; its length returned. */
    CHECK(tattle_mailbox_send(mailbox, "long", "0123456789abcdefXYZ", 19) == 0);
    length = tattle_mailbox_recv(mailbox, label, 3, message, 16, 0);
    CHECK(length == 19 && same(label, "lo") &&
          memcmp(message, "0123456789abcdef", 16) == 0);
    tattle_mailbox_close(mailbox);
}

static void body_mailbox_basics(void)
{
    check_mailbox_basics();
}

static void test_mailbox_send_recv_timeout_untraced(void)
{
    check_mailbox_basics();
}

static void test_mailbox_send_recv_timeout_traced(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_mailbox_basics);
    check_invariants(trace);
    CHECK(trace->event_count == 6, "%zu events", trace->event_count);
    CHECK(trace->events[0].kind == TATTLE_TRACE_SEND &&
          same(trace->events[0].from, "main") &&
          same(trace->events[0].to, "box") &&
          same(trace->events[0].label, "one") &&
          same(trace->events[0].msg, "first"));
    CHECK(trace->events[2].kind == TATTLE_TRACE_RECV &&
          same(trace->events[2].from, "box") &&
          same(trace->events[2].to, "main"));
    CHECK(trace->mailbox_count == 0, "a closed mailbox is not snapshotted");
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

struct ping_pong {
    tattle_mailbox *to_ponger;
    tattle_mailbox *to_pinger;
};

static void *ponger(void *arg)
{
    struct ping_pong *game = arg;
    tattle_actor_name("ponger");
    for (;;) {
        int value;
        int length = tattle_mailbox_recv(game->to_ponger, NULL, 0, &value,
                                         sizeof value, patient_ms());
        if (length != (int)sizeof value || value < 0)
            break;
        value++;
        tattle_mailbox_send(game->to_pinger, "pong", &value, sizeof value);
    }
    return NULL;
}

static void check_blocking_across_threads(void)
{
    struct ping_pong game = {open_mailbox("ponger", 1),
                             open_mailbox("pinger", 1)};
    pthread_t thread;
    pthread_create(&thread, NULL, ponger, &game);
    int value = 0;
    for (int round = 0; round < 200; round++) {
        CHECK(tattle_mailbox_send(game.to_ponger, "ping", &value,
                                  sizeof value) == 0);
        CHECK(tattle_mailbox_recv(game.to_pinger, NULL, 0, &value, sizeof value,
                                  patient_ms()) == (int)sizeof value);
    }
    CHECK(value == 200, "value %d", value);
    /* A full mailbox blocks the sender until the receiver makes room. */
    int stop = -1;
    CHECK(tattle_mailbox_send(game.to_ponger, "stop", &stop, sizeof stop) == 0);
    pthread_join(thread, NULL);
    tattle_mailbox_close(game.to_ponger);
    tattle_mailbox_close(game.to_pinger);
}

static void test_mailbox_blocks_across_threads(void)
{
    check_blocking_across_threads();
}

static void check_across_fork(void)
{
    tattle_mailbox *requests = open_mailbox("requests", 4);
    tattle_mailbox *replies = open_mailbox("replies", 4);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        tattle_actor_name("worker");
        for (;;) {
            int value;
            if (tattle_mailbox_recv(requests, NULL, 0, &value, sizeof value,
                                    patient_ms()) != (int)sizeof value)
                _exit(3);
            if (value < 0)
                exit(0);
            value *= 2;
            tattle_mailbox_send(replies, "doubled", &value, sizeof value);
        }
    }
    for (int i = 1; i <= 50; i++) {
        CHECK(tattle_mailbox_send(requests, "double", &i, sizeof i) == 0);
        int reply = 0;
        CHECK(tattle_mailbox_recv(replies, NULL, 0, &reply, sizeof reply,
                                  patient_ms()) == (int)sizeof reply);
        CHECK(reply == 2 * i);
    }
    int stop = -1;
    tattle_mailbox_send(requests, "stop", &stop, sizeof stop);
    int status;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker status %#x",
          status);
}

static void test_mailbox_works_across_fork_untraced(void)
{
    check_across_fork();
}

static void body_across_fork(void)
{
    check_across_fork();
    check_blocking_across_threads();
}

static void test_mailbox_works_across_fork_traced(void)
{
    struct tattle__trace_session *session = new_session(2000, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_across_fork);
    check_invariants(trace);
    CHECK(count_from(trace, "worker", TATTLE_TRACE_SEND) == 50);
    CHECK(count_from(trace, "ponger", TATTLE_TRACE_SEND) == 200);
    /* Every receive comes after its send. */
    for (size_t i = 0; i < trace->event_count; i++) {
        const struct tattle_trace_event *event = &trace->events[i];
        if (event->kind != TATTLE_TRACE_RECV || !same(event->from, "replies"))
            continue;
        bool sent_before = false;
        for (size_t j = 0; j < i && !sent_before; j++)
            sent_before = trace->events[j].kind == TATTLE_TRACE_SEND &&
                          same(trace->events[j].to, "replies") &&
                          same(trace->events[j].msg, event->msg);
        CHECK(sent_before, "receive %zu before its send", i);
    }
    CHECK(trace->mailbox_count == 2, "two open mailboxes: %zu",
          trace->mailbox_count);
    for (size_t i = 0; i < trace->mailbox_count; i++)
        CHECK(!trace->mailboxes[i].approx &&
                  trace->mailboxes[i].message_count == 0 &&
                  trace->mailboxes[i].pending == 0,
              "%s", trace->mailboxes[i].name);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static size_t format_order(const char *label, const void *msg, size_t len,
                           char *out, size_t out_len)
{
    int value;
    (void)len;
    memcpy(&value, msg, sizeof value);
    return (size_t)snprintf(out, out_len, "%s #%d", label, value);
}

static void body_crash_with_pending(void)
{
    tattle_mailbox *orders = open_mailbox("orders", 8);
    tattle_mailbox_set_formatter(orders, format_order);
    pid_t worker = fork();
    if (worker == 0) {
        tattle_actor_name("producer");
        for (int i = 1; i <= 3; i++)
            tattle_mailbox_send(orders, "order", &i, sizeof i);
        exit(0);
    }
    waitpid(worker, NULL, 0);
    int value;
    tattle_mailbox_recv(orders, NULL, 0, &value, sizeof value, patient_ms());
    /* The runner's crash handler reports the end, then the process dies. */
    tattle__trace_session_child_finish(true);
    signal(SIGABRT, SIG_DFL);
    abort();
}

static void test_snapshot_after_crash_keeps_pending_messages_approx(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    int status = wait_test(start_test(session, body_crash_with_pending));
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    struct tattle_trace *trace = freeze(session);
    check_invariants(trace);
    CHECK(trace->mailbox_count == 1);
    const struct tattle_trace_mailbox *orders = &trace->mailboxes[0];
    CHECK(same(orders->name, "orders") && same(orders->owner, "main"));
    CHECK(orders->pending == 2 && orders->message_count == 2);
    CHECK(same(orders->messages[0], "order #2") &&
              same(orders->messages[1], "order #3"),
          "%s / %s", orders->messages[0], orders->messages[1]);
    CHECK(orders->approx, "read after its owner crashed");
    CHECK(orders->alive, "the owner was alive when the crash handler ran");
    /* The sends were rendered by the formatter in the trace too. */
    CHECK(count_from(trace, "producer", TATTLE_TRACE_SEND) == 3);
    CHECK(same(trace->events[1].msg, "order #1") ||
          same(trace->events[2].msg, "order #1"));
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void body_clean_end_with_pending(void)
{
    tattle_mailbox *box = open_mailbox("left", 4);
    tattle_mailbox_send(box, "unread", "still here", 10);
}

static void test_snapshot_after_clean_end_is_exact(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    struct tattle_trace *trace =
        run_traced(session, body_clean_end_with_pending);
    CHECK(trace->mailbox_count == 1);
    CHECK(trace->mailboxes[0].pending == 1 && !trace->mailboxes[0].approx);
    CHECK(same(trace->mailboxes[0].messages[0], "still here"));
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static tattle_mailbox *deadlock_a, *deadlock_b;
/* Posted once every mailbox is open and filled and the peer is an actor. */
static struct harness_handshake deadlock_ready;

static void *deadlock_peer(void *arg)
{
    (void)arg;
    tattle_actor_name("peer");
    harness_handshake_post(&deadlock_ready);
    char buffer[16];
    /* Waits for main's answer, which waits for ours. */
    tattle_mailbox_recv(deadlock_b, NULL, 0, buffer, sizeof buffer, -1);
    return NULL;
}

static void body_deadlock(void)
{
    deadlock_a = open_mailbox("a", 4);
    deadlock_b = open_mailbox("b", 4);
    tattle_mailbox *log = open_mailbox("log", 4);
    tattle_mailbox_send(log, "line", "unread 1", 8);
    tattle_mailbox_send(log, "line", "unread 2", 8);
    pthread_t thread;
    pthread_create(&thread, NULL, deadlock_peer, NULL);
    char buffer[16];
    tattle_mailbox_recv(deadlock_a, NULL, 0, buffer, sizeof buffer, -1);
    pthread_join(thread, NULL);
}

static void test_timeout_snapshot_is_taken_live(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    harness_handshake_open(&deadlock_ready);
    pid_t pid = start_test(session, body_deadlock);
    harness_handshake_wait(&deadlock_ready, "the test to deadlock");
    tattle__trace_session_snapshot_live(session, &pid, 1);
    kill(pid, SIGKILL);
    wait_test(pid);
    struct tattle_trace *trace = freeze(session);
    check_invariants(trace);
    CHECK(trace->mailbox_count == 3);
    for (size_t i = 0; i < trace->mailbox_count; i++) {
        CHECK(trace->mailboxes[i].approx, "a live snapshot is approximate");
        CHECK(trace->mailboxes[i].alive, "the owner was alive when read");
    }
    CHECK(same(trace->mailboxes[2].name, "log") &&
          trace->mailboxes[2].pending == 2 &&
          same(trace->mailboxes[2].messages[1], "unread 2"));
    CHECK(trace->mailboxes[0].pending == 0 && trace->mailboxes[1].pending == 0);
    const struct tattle_trace_actor *peer = find_actor(trace, "peer");
    CHECK(peer && peer->alive_at_exit, "the deadlocked peer was alive");
    harness_handshake_close(&deadlock_ready);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

struct user_queue {
    const char *items[3];
};

static void snapshot_user_queue(void *ctx, void (*emit)(void *, const char *),
                                void *emit_ctx)
{
    struct user_queue *queue = ctx;
    for (int i = 0; i < 3; i++)
        emit(emit_ctx, queue->items[i]);
}

static void body_watch(void)
{
    static struct user_queue queue = {{"job 1", "job 2", "job 3"}};
    CHECK(tattle_mailbox_watch("jobs", snapshot_user_queue, &queue) == 0);
}

static void test_watched_queue_joins_the_snapshot(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_watch);
    CHECK(trace->mailbox_count == 1);
    const struct tattle_trace_mailbox *jobs = &trace->mailboxes[0];
    CHECK(same(jobs->name, "jobs") && jobs->pending == 3 &&
          jobs->message_count == 3);
    CHECK(same(jobs->messages[2], "job 3") && same(jobs->owner, "main"));
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void test_in_process_session_records_and_forgets(void)
{
    /* As with --no-fork: the runner activates and freezes in one process. */
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    tattle__trace_session_activate(session);
    tattle_trace_send("peer", "x", "1", 1);
    tattle__trace_session_child_finish(false);
    struct tattle_trace *trace = freeze(session);
    CHECK(trace->event_count == 1);
    CHECK(tattle_trace_current == NULL, "freezing forgets the arena");
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
    session = new_session(50, 5000, 100, 64);
    tattle__trace_session_activate(session);
    tattle_trace_send("peer", "y", "2", 1);
    trace = freeze(session);
    CHECK(trace->event_count == 1 && same(trace->events[0].label, "y"));
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* Two readers of one pipe whose offsets were taken in the other order
 * than the kernel gave them the bytes: each read is still matched to the
 * write of the bytes it got. */
static void test_captured_reads_match_the_bytes_they_got(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    tattle__trace_session_activate(session);
    struct tattle_trace_arena *arena = tattle_trace_current;
    struct tattle__endpoint *pipe_entry = &arena->endpoints[0];
    atomic_store(&pipe_entry->key, 1);
    pipe_entry->id = 4711;
    atomic_store(&pipe_entry->kind, (uint32_t)TATTLE__ENDPOINT_PIPE);
    const char *jobs[] = {"job 0", "job 1", "job 2"};
    for (uint64_t i = 0; i < 3; i++)
        tattle__recorder_record(
            &(struct tattle__event){.kind = TATTLE_TRACE_SEND,
                                    .from = TATTLE__SELF,
                                    .label = "write",
                                    .payload = jobs[i],
                                    .payload_length = 5,
                                    .size = 5,
                                    .endpoint = 1,
                                    .offset = 5 * i});
    /* "job 1" read at offset 0, "job 0" at 5, "job 2" at 10. */
    const int got[] = {1, 0, 2};
    for (uint64_t i = 0; i < 3; i++)
        tattle__recorder_record(
            &(struct tattle__event){.kind = TATTLE_TRACE_RECV,
                                    .to = TATTLE__SELF,
                                    .label = "read",
                                    .payload = jobs[got[i]],
                                    .payload_length = 5,
                                    .size = 5,
                                    .endpoint = 1,
                                    .offset = 5 * i});
    struct tattle_trace *trace = freeze(session);
    check_invariants(trace);
    CHECK(trace->event_count == 6, "%zu events", trace->event_count);
    for (size_t i = 3; i < trace->event_count; i++) {
        const struct tattle_trace_event *receive = &trace->events[i];
        CHECK(receive->match == (uint64_t)got[i - 3] + 1,
              "read of %s matches send %llu", receive->msg,
              (unsigned long long)receive->match);
        CHECK(same(receive->from, "main") && same(receive->to, "main"));
    }
    CHECK(same(trace->events[0].to, "main"), "a matched send names its reader");
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void body_one_send(void)
{
    tattle_trace_send("peer", "only", "1", 1);
}

static void test_reused_arena_starts_empty(void)
{
    /* Arenas of finished sessions are reused: nothing of the last test
     * (events, actors, mailboxes, overflow) may show in the next one. */
    for (int round = 0; round < 6; round++) {
        struct tattle__trace_session *session = new_session(10, 30, 100, 64);
        struct tattle_trace *trace = run_traced(
            session, round % 2 == 0 ? body_many_sends : body_one_send);
        check_invariants(trace);
        if (round % 2 == 0) {
            CHECK(trace->overflow && trace->recorded == 30);
        } else {
            CHECK(!trace->overflow && trace->recorded == 1 &&
                      trace->event_count == 1 &&
                      same(trace->events[0].label, "only"),
                  "round %d: recorded %llu", round,
                  (unsigned long long)trace->recorded);
            CHECK(trace->actor_count == 1 && trace->mailbox_count == 0);
        }
        tattle__trace_free(trace);
        tattle__trace_session_destroy(session);
    }
}

/* Bytes the kernel holds for the arena's memfd: the pages written (or
 * read: a read through a shared mapping allocates the page too). */
static long long arena_bytes_held(int fd)
{
    struct stat status;
    CHECK(fstat(fd, &status) == 0, "fstat: %s", strerror(errno));
    return (long long)status.st_blocks * 512;
}

static void test_freeze_reads_only_the_pages_the_test_wrote(void)
{
    /* A page a traced test never wrote is a hole in the memfd. Reading it
     * through the runner's mapping makes the kernel allocate it: a page
     * fault per page of every ring, paid again after each reset. One
     * event fills one record of a ring that spans three pages. */
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    int fd = tattle__trace_session_fd(session);
    int status = wait_test(start_test(session, body_one_send));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the test process failed (status %#x)", status);
    long long written = arena_bytes_held(fd);
    long page = sysconf(_SC_PAGESIZE);
    if (written >= 2 << 20) {
        /* Shared memory in huge pages: one page holds the whole arena,
         * and what the freeze reads cannot be told from what was written. */
        printf("skipped: the kernel gives shared memory huge pages "
               "(/sys/kernel/mm/transparent_hugepage/shmem_enabled)\n");
        exit(77);
    }
    /* The header with the first actor, and the first page of its ring. */
    CHECK(written <= 2 * page,
          "the test process touched %lld bytes of its arena", written);
    struct tattle_trace *trace = freeze(session);
    CHECK(trace->recorded == 1 && trace->event_count == 1 &&
          same(trace->events[0].label, "only"));
    long long read = arena_bytes_held(fd);
    CHECK(read == written,
          "the freeze made the kernel allocate %lld bytes of holes",
          read - written);
    tattle__trace_free(trace);
    tattle__trace_session_mark_reusable(session);
    tattle__trace_session_destroy(session);
}

/* A peek at a test's end looks at no page of the endpoint table it has
 * no use for: none at all when no endpoint was claimed (the descriptors
 * are not even listed), and none past the last entry claimed. Each page
 * of the table it read would be a page the kernel allocates (a read
 * through a shared mapping allocates it too), paid in every traced test
 * and freed again at the reset. */
static void test_peek_reads_only_the_claimed_entries(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    int fd = tattle__trace_session_fd(session);
    tattle__trace_session_activate(session);
    struct tattle_trace_arena *arena = tattle_trace_current;
    CHECK(arena != NULL);
    int waiting[2];
    CHECK(pipe(waiting) == 0, "pipe: %s", strerror(errno));
    CHECK(write(waiting[1], "left", 4) == 4);
    long long before = arena_bytes_held(fd);
    if (before >= 2 << 20) {
        printf("skipped: the kernel gives shared memory huge pages "
               "(/sys/kernel/mm/transparent_hugepage/shmem_enabled)\n");
        exit(77);
    }
    CHECK(tattle__peek_held(arena, -1, 0, TATTLE__PEEK_TEST),
          "a peek with nothing to peek is whole");
    CHECK(arena_bytes_held(fd) == before,
          "a peek with no endpoint claimed made the kernel allocate %lld "
          "bytes of the table",
          arena_bytes_held(fd) - before);
    /* One endpoint claimed, as the capture claims it: its bytes are
     * peeked, and no page past its entry is read. */
    struct stat status;
    CHECK(fstat(waiting[0], &status) == 0);
    struct tattle__endpoint *entry = &arena->endpoints[0];
    atomic_store(&entry->key,
                 tattle__endpoint_key(status.st_dev, status.st_ino));
    atomic_fetch_add(&arena->endpoints_claimed, 1);
    atomic_store(&entry->kind, (uint32_t)TATTLE__ENDPOINT_PIPE);
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t first = (uintptr_t)&arena->endpoints[0] / (uintptr_t)page;
    uintptr_t last = (uintptr_t)&arena->endpoints[TATTLE__MAX_ENDPOINTS - 1] /
                     (uintptr_t)page;
    CHECK(last > first + 1, "the table spans %zu pages",
          (size_t)(last - first + 1));
    before = arena_bytes_held(fd);
    CHECK(tattle__peek_held(arena, -1, 0, TATTLE__PEEK_TEST));
    CHECK(atomic_load(&entry->peeked) == TATTLE__PEEK_TEST &&
              entry->kernel_bytes == 4 && entry->peek_length == 4 &&
              memcmp(entry->peek, "left", 4) == 0,
          "the claimed pipe was not peeked");
    CHECK(arena_bytes_held(fd) == before,
          "the peek read %lld bytes of the table past its one entry",
          arena_bytes_held(fd) - before);
    close(waiting[0]);
    close(waiting[1]);
    tattle__trace_session_child_finish(false);
    struct tattle_trace *trace = freeze(session);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* A test process hands its arena down in the environment the fork
 * server prepared once, whole, while that environment is as it was then;
 * a test forked after the server's environment changed still gets the
 * change, with the hand-down set on top of it. */
static void check_handed_down(struct tattle__trace_session *session,
                              const char *late)
{
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        tattle__trace_session_activate(session);
        struct tattle_trace_arena *arena = tattle_trace_current;
        int fd = dup(tattle__trace_session_fd(session));
        int handed = tattle__hand_down_set(fd, arena);
        CHECK(handed >= 0, "hand down: %s", strerror(-handed));
        struct tattle__hand_down parsed;
        const char *value = getenv(TATTLE__HAND_DOWN_VARIABLE);
        CHECK(value != NULL && tattle__hand_down_parse(value, &parsed) &&
                  parsed.fd == handed && parsed.size == arena->size &&
                  parsed.generation == arena->generation,
              "handed down: %s", value ? value : "(none)");
        const char *preload = getenv("LD_PRELOAD");
        CHECK(preload != NULL && strstr(preload, TATTLE__PRELOAD_FILE) != NULL,
              "LD_PRELOAD: %s", preload ? preload : "(none)");
        CHECK(same(getenv("TATTLE_HAND_DOWN_KEPT"), "kept"),
              "a variable of the server was lost");
        CHECK(late == NULL || same(getenv("TATTLE_HAND_DOWN_LATE"), late),
              "the server's change since it prepared was lost");
        _exit(0);
    }
    int status = wait_test(pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the test process failed (status %#x)", status);
}

static void test_hand_down_keeps_the_servers_environment(void)
{
    CHECK(setenv("TATTLE_HAND_DOWN_KEPT", "kept", 1) == 0);
    tattle__hand_down_prepare();
    if (tattle__hand_down_preload_path() == NULL) {
        printf("skipped: no preload library was built beside the tests\n");
        exit(77);
    }
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    check_handed_down(session, NULL);
    CHECK(setenv("TATTLE_HAND_DOWN_LATE", "first", 1) == 0);
    check_handed_down(session, "first");
    CHECK(setenv("TATTLE_HAND_DOWN_LATE", "second", 1) == 0);
    check_handed_down(session, "second");
    tattle__trace_session_mark_reusable(session);
    tattle__trace_session_destroy(session);
}

/* ---- Closing mailboxes
 * ---------------------------------------------------------- */

static tattle_mailbox *closing_mailbox;

/* Waits until a caller waits on the mailbox (it has registered as a
 * waiter and released the lock: close must wake it). */
static void wait_for_waiter(tattle_mailbox *mailbox)
{
    uint64_t deadline = harness_deadline(HARNESS_WAIT_MS);
    while (atomic_load(&mailbox->waiters) == 0) {
        CHECK(harness_now_ns() < deadline, "nobody waits on %s", mailbox->name);
        harness_poll_pause();
    }
}

static void *blocked_receiver(void *arg)
{
    (void)arg;
    char buffer[8];
    int result = tattle_mailbox_recv(closing_mailbox, NULL, 0, buffer,
                                     sizeof buffer, -1);
    return (void *)(intptr_t)result;
}

static void *blocked_sender(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)tattle_mailbox_send(closing_mailbox, "s", "x", 1);
}

static void check_close_wakes_blocked_callers(void)
{
    /* A receiver blocked forever on an empty mailbox... */
    closing_mailbox = open_mailbox("closing", 1);
    pthread_t receiver;
    pthread_create(&receiver, NULL, blocked_receiver, NULL);
    wait_for_waiter(closing_mailbox);
    tattle_mailbox_close(closing_mailbox);
    void *result = NULL;
    pthread_join(receiver, &result);
    CHECK((intptr_t)result == -EPIPE, "blocked recv got %ld",
          (long)(intptr_t)result);
    /* ... and later callers get -EPIPE, not a crash. */
    char buffer[8];
    CHECK(tattle_mailbox_send(closing_mailbox, "late", "y", 1) == -EPIPE);
    CHECK(tattle_mailbox_recv(closing_mailbox, NULL, 0, buffer, sizeof buffer,
                              0) == -EPIPE);
    CHECK(tattle_mailbox_recv(closing_mailbox, NULL, 0, buffer, sizeof buffer,
                              -1) == -EPIPE);
    tattle_mailbox_close(closing_mailbox); /* twice is harmless */

    /* A sender blocked on a full mailbox is woken too. */
    closing_mailbox = open_mailbox("full", 1);
    CHECK(tattle_mailbox_send(closing_mailbox, "first", "1", 1) == 0);
    pthread_t sender;
    pthread_create(&sender, NULL, blocked_sender, NULL);
    wait_for_waiter(closing_mailbox);
    tattle_mailbox_close(closing_mailbox);
    pthread_join(sender, &result);
    CHECK((intptr_t)result == -EPIPE, "blocked send got %ld",
          (long)(intptr_t)result);
    CHECK(tattle_mailbox_recv(closing_mailbox, NULL, 0, buffer, sizeof buffer,
                              0) == -EPIPE,
          "pending messages are discarded");
}

static void test_mailbox_close_wakes_blocked_callers_untraced(void)
{
    check_close_wakes_blocked_callers();
}

static void test_mailbox_close_wakes_blocked_callers_traced(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    struct tattle_trace *trace =
        run_traced(session, check_close_wakes_blocked_callers);
    check_invariants(trace);
    CHECK(trace->mailbox_count == 0, "closed mailboxes are not snapshotted");
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* ---- The budget is shared, not wasted
 * ------------------------------------------ */

enum { SHORT_THREADS = 8, SHARED_BUDGET = 100 };
static int main_events;

static void *short_thread(void *arg)
{
    (void)arg;
    tattle_trace_send("main", "short", "s", 1); /* and its exit event */
    return NULL;
}

static void body_short_threads_then_main(void)
{
    for (int i = 0; i < SHORT_THREADS; i++) {
        pthread_t thread;
        pthread_create(&thread, NULL, short_thread, NULL);
        pthread_join(thread, NULL);
    }
    for (int i = 0; i < main_events; i++)
        tattle_trace_event(1, NULL, NULL, "main", "%d", i);
}

static void test_budget_is_not_wasted_by_short_threads(void)
{
    /* 8 threads record 2 events each; main fills the budget exactly. */
    main_events = SHARED_BUDGET - 2 * SHORT_THREADS;
    struct tattle__trace_session *session =
        new_session(200, SHARED_BUDGET, 100, 64);
    struct tattle_trace *trace =
        run_traced(session, body_short_threads_then_main);
    check_invariants(trace);
    CHECK(trace->recorded == SHARED_BUDGET && !trace->overflow,
          "recorded %llu overflow %d", (unsigned long long)trace->recorded,
          trace->overflow);
    CHECK(trace->event_count == SHARED_BUDGET && trace->dropped == 0);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);

    /* One more event is one past the budget: overflow, budget recorded. */
    main_events = SHARED_BUDGET - 2 * SHORT_THREADS + 1;
    session = new_session(200, SHARED_BUDGET, 100, 64);
    trace = run_traced(session, body_short_threads_then_main);
    check_invariants(trace);
    CHECK(trace->recorded == SHARED_BUDGET && trace->overflow,
          "recorded %llu overflow %d", (unsigned long long)trace->recorded,
          trace->overflow);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* ---- What does not fit is refused, not lost silently
 * --------------------------- */

static void *one_send_thread(void *arg)
{
    (void)arg;
    tattle_trace_send("main", "late", "y", 1);
    return NULL;
}

static void body_too_many_actors(void)
{
    for (int i = 0; i < TATTLE_TRACE_MAX_ACTORS + 12; i++) {
        pthread_t thread;
        pthread_create(&thread, NULL, one_send_thread, NULL);
        pthread_join(thread, NULL);
    }
}

static void test_actors_past_the_limit_set_overflow(void)
{
    struct tattle__trace_session *session = new_session(1000, 100000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_too_many_actors);
    check_invariants(trace);
    CHECK(trace->actor_count == TATTLE_TRACE_MAX_ACTORS, "%zu actors",
          trace->actor_count);
    /* 127 threads got an entry: a send and an exit each. */
    CHECK(trace->recorded == 2 * (TATTLE_TRACE_MAX_ACTORS - 1), "recorded %llu",
          (unsigned long long)trace->recorded);
    CHECK(trace->overflow, "events refused for lack of room set overflow");
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void body_too_many_mailboxes(void)
{
    for (int i = 0; i < TATTLE_TRACE_MAX_MAILBOXES; i++) {
        char name[16];
        snprintf(name, sizeof name, "mb%d", i);
        tattle_mailbox *mailbox = open_mailbox(name, 1);
        CHECK(tattle_mailbox_send(mailbox, "l", "p", 1) == 0);
    }
    errno = 0;
    tattle_mailbox *refused = tattle_mailbox_open("one too many", 1);
    CHECK(refused == NULL && errno == ENOSPC, "the 65th mailbox: %s",
          tattle_error_name(-errno));
}

static void test_mailboxes_past_the_limit_fail_with_enospc(void)
{
    struct tattle__trace_session *session = new_session(200, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_too_many_mailboxes);
    check_invariants(trace);
    CHECK(trace->mailbox_count == TATTLE_TRACE_MAX_MAILBOXES, "%zu mailboxes",
          trace->mailbox_count);
    CHECK(!trace->overflow);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static void body_mailbox_heap_full(void)
{
    /* Four of the largest mailboxes do not fit in the mailbox storage. */
    int opened = 0;
    for (int i = 0; i < 4; i++) {
        errno = 0;
        tattle_mailbox *mailbox = tattle_mailbox_open("big", 4096);
        if (mailbox == NULL) {
            CHECK(errno == ENOSPC, "%s", tattle_error_name(-errno));
            break;
        }
        CHECK(tattle_mailbox_send(mailbox, "l", "x", 1) == 0);
        opened++;
    }
    CHECK(opened == 3, "%d big mailboxes opened", opened);
    /* The refused request consumed nothing: a small one still fits. */
    tattle_mailbox *small = open_mailbox("small", 2);
    CHECK(tattle_mailbox_send(small, "l", "s", 1) == 0);
    /* Rings are never starved by mailboxes. */
    for (int i = 0; i < 4; i++) {
        pthread_t thread;
        pthread_create(&thread, NULL, one_send_thread, NULL);
        pthread_join(thread, NULL);
    }
}

static void test_full_mailbox_storage_fails_with_enospc(void)
{
    struct tattle__trace_session *session = new_session(200, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_mailbox_heap_full);
    check_invariants(trace);
    CHECK(trace->mailbox_count == 4, "%zu mailboxes", trace->mailbox_count);
    CHECK(same(trace->mailboxes[3].name, "small"));
    size_t thread_sends = 0;
    for (size_t i = 0; i < trace->event_count; i++)
        thread_sends += same(trace->events[i].label, "late");
    CHECK(thread_sends == 4, "the threads' sends were recorded: %zu",
          thread_sends);
    CHECK(!trace->overflow);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

/* ---- UTF-8
 * ------------------------------------------------------------------- */

#define E_ACUTE "\xc3\xa9"

static void body_utf8_payloads(void)
{
    static const char greeting[] = "h" E_ACUTE "llo w\xc3\xb6rld \xe2\x9c\x93";
    int sixty_five = 65;
    tattle_trace_send("peer", "utf8", greeting, sizeof greeting - 1);
    tattle_trace_send("peer", "cstring", greeting, sizeof greeting);
    tattle_trace_send("peer", "int", &sixty_five, sizeof sixty_five);
    tattle_trace_send("peer", "control",
                      "a\x01"
                      "b",
                      3);
    tattle_trace_send("peer", "c1",
                      "a\xc2\x85"
                      "b",
                      4);
    tattle_trace_send("peer", "invalid",
                      "a\xff"
                      "b",
                      3);
    /* 19 bytes cut at 16 by payload_bytes: the cut é is left out. */
    tattle_trace_send(
        "peer", "cut",
        "x" E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE
        "yz",
        19);
    tattle_trace_event(1, NULL, NULL, "event",
                       "y" E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE
                           E_ACUTE E_ACUTE E_ACUTE);
}

static void test_utf8_payloads_are_rendered_as_text(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 16);
    struct tattle_trace *trace = run_traced(session, body_utf8_payloads);
    check_invariants(trace);
    CHECK(trace->event_count == 8, "%zu events", trace->event_count);
    const struct tattle_trace_event *events = trace->events;
    /* 17 bytes cut at 16, in the middle of the check mark. */
    CHECK(same(events[0].msg, "h" E_ACUTE "llo w\xc3\xb6rld "), "msg %s",
          events[0].msg);
    CHECK(same(events[1].msg, "h" E_ACUTE "llo w\xc3\xb6rld "), "msg %s",
          events[1].msg);
    CHECK(same(events[2].msg, "hex:41000000"), "an int is binary: %s",
          events[2].msg);
    CHECK(same(events[3].msg, "hex:610162"), "msg %s", events[3].msg);
    CHECK(same(events[4].msg, "hex:61c28562"), "msg %s", events[4].msg);
    CHECK(same(events[5].msg, "hex:61ff62"), "msg %s", events[5].msg);
    CHECK(same(events[6].msg,
               "x" E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE),
          "msg %s", events[6].msg);
    CHECK(same(events[7].msg,
               "y" E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE),
          "event text cut at a character: %s", events[7].msg);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

#define TWENTY_E_ACUTES                                                        \
    E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE    \
        E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE        \
            E_ACUTE E_ACUTE E_ACUTE

static void body_long_utf8_names(void)
{
    /* Two-byte prefixes put every limit (7, 23, 31 bytes) in the middle
     * of a two-byte character. */
    char name[64];
    snprintf(name, sizeof name, "xy%s", TWENTY_E_ACUTES);
    tattle_actor_name(name);
    char peer[64];
    snprintf(peer, sizeof peer, "tt%s", TWENTY_E_ACUTES);
    tattle_trace_send(peer, peer, "1", 1);
    tattle_mailbox *mailbox = open_mailbox(name, 2);
    CHECK(mailbox != NULL);
    CHECK(tattle_mailbox_send(mailbox, peer, "2", 1) == 0);
    char label[8];
    CHECK(tattle_mailbox_recv(mailbox, label, sizeof label, NULL, 0, 0) == 1);
    CHECK(same(label, "tt" E_ACUTE E_ACUTE), "label %s", label);
}

static void check_clean_prefix(const char *text, const char *of, size_t max)
{
    CHECK(text != NULL);
    size_t length = strlen(text);
    CHECK(tattle__utf8_is_clean(text, length), "not clean UTF-8: %s", text);
    CHECK(length < max && length + 2 > max && strncmp(text, of, length) == 0,
          "%s: %zu bytes", text, length);
}

static void test_truncation_never_cuts_a_character(void)
{
    struct tattle__trace_session *session = new_session(50, 5000, 100, 64);
    struct tattle_trace *trace = run_traced(session, body_long_utf8_names);
    check_invariants(trace);
    CHECK(trace->event_count == 3, "%zu events", trace->event_count);
    const char *longest = "tt" TWENTY_E_ACUTES;
    check_clean_prefix(trace->actors[0].name, "xy" TWENTY_E_ACUTES, 31);
    check_clean_prefix(trace->events[0].to, longest, 23);
    check_clean_prefix(trace->events[0].label, longest, 23);
    check_clean_prefix(trace->events[1].to, "xy" TWENTY_E_ACUTES, 23);
    check_clean_prefix(trace->events[1].label, longest, 23);
    tattle__trace_free(trace);
    tattle__trace_session_destroy(session);
}

static const struct harness_test tests[] = {
    {"mailbox_close_wakes_blocked_callers_untraced",
     test_mailbox_close_wakes_blocked_callers_untraced},
    {"mailbox_close_wakes_blocked_callers_traced",
     test_mailbox_close_wakes_blocked_callers_traced},
    {"budget_is_not_wasted_by_short_threads",
     test_budget_is_not_wasted_by_short_threads},
    {"actors_past_the_limit_set_overflow",
     test_actors_past_the_limit_set_overflow},
    {"mailboxes_past_the_limit_fail_with_enospc",
     test_mailboxes_past_the_limit_fail_with_enospc},
    {"full_mailbox_storage_fails_with_enospc",
     test_full_mailbox_storage_fails_with_enospc},
    {"utf8_payloads_are_rendered_as_text",
     test_utf8_payloads_are_rendered_as_text},
    {"truncation_never_cuts_a_character",
     test_truncation_never_cuts_a_character},
    {"reused_arena_starts_empty", test_reused_arena_starts_empty},
    {"freeze_reads_only_the_pages_the_test_wrote",
     test_freeze_reads_only_the_pages_the_test_wrote},
    {"peek_reads_only_the_claimed_entries",
     test_peek_reads_only_the_claimed_entries},
    {"hand_down_keeps_the_servers_environment",
     test_hand_down_keeps_the_servers_environment},
    {"records_send_recv_event_fields_in_order",
     test_records_send_recv_event_fields_in_order},
    {"handler_recording_inside_a_record_is_lost_not_torn",
     test_handler_recording_inside_a_record_is_lost_not_torn},
    {"cap_keeps_last_events_and_counts_dropped",
     test_cap_keeps_last_events_and_counts_dropped},
    {"budget_stops_recording_and_sets_overflow",
     test_budget_stops_recording_and_sets_overflow},
    {"level_threshold_filters_events", test_level_threshold_filters_events},
    {"payload_is_bounded_by_payload_bytes",
     test_payload_is_bounded_by_payload_bytes},
    {"handler_inside_quick_record_is_lost_not_torn",
     test_handler_inside_quick_record_is_lost_not_torn},
    {"deactivation_stops_a_survivor_holding_quota",
     test_deactivation_stops_a_survivor_holding_quota},
    {"mixed_names_are_kept", test_mixed_names_are_kept},
    {"payload_stays_in_its_record", test_payload_stays_in_its_record},
    {"a_send_rewrites_every_field_of_its_record",
     test_a_send_rewrites_every_field_of_its_record},
    {"every_payload_length_is_kept_in_place",
     test_every_payload_length_is_kept_in_place},
    {"threads_and_forked_children_record_into_one_arena",
     test_threads_and_forked_children_record_into_one_arena},
    {"torn_writes_after_sigkill_are_never_reported",
     test_torn_writes_after_sigkill_are_never_reported},
    {"deactivation_stops_survivors_at_next_event",
     test_deactivation_stops_survivors_at_next_event},
    {"untraced_calls_record_nothing", test_untraced_calls_record_nothing},
    {"mailbox_send_recv_timeout_untraced",
     test_mailbox_send_recv_timeout_untraced},
    {"mailbox_send_recv_timeout_traced", test_mailbox_send_recv_timeout_traced},
    {"mailbox_blocks_across_threads", test_mailbox_blocks_across_threads},
    {"mailbox_works_across_fork_untraced",
     test_mailbox_works_across_fork_untraced},
    {"mailbox_works_across_fork_traced", test_mailbox_works_across_fork_traced},
    {"snapshot_after_crash_keeps_pending_messages_approx",
     test_snapshot_after_crash_keeps_pending_messages_approx},
    {"snapshot_after_clean_end_is_exact",
     test_snapshot_after_clean_end_is_exact},
    {"timeout_snapshot_is_taken_live", test_timeout_snapshot_is_taken_live},
    {"watched_queue_joins_the_snapshot", test_watched_queue_joins_the_snapshot},
    {"in_process_session_records_and_forgets",
     test_in_process_session_records_and_forgets},
    {"captured_reads_match_the_bytes_they_got",
     test_captured_reads_match_the_bytes_they_got},
};

int main(int argc, char **argv)
{
    size_t count = sizeof tests / sizeof *tests;
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < count; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    int ran = 0;
    for (size_t i = 0; i < count; i++) {
        if (argc > 1 && strcmp(argv[1], tests[i].name) != 0)
            continue;
        tests[i].run();
        printf("ok %s\n", tests[i].name);
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "no test named %s\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    return 0;
}
