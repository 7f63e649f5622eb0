/*
 * recorder.c — recording events from the test's threads and processes.
 *
 * The hot path is tattle_trace_send/recv/event: when the process is not
 * traced the inline wrappers of trace.h stop at one predictable branch on
 * tattle_trace_current. When it is, the calling thread writes one record
 * into its own ring: no lock, no malloc, no atomic read-modify-write. The
 * budget is a hard limit shared by every writer: each thread reserves a
 * quota from a shared counter with a compare-and-swap that never passes
 * the budget, up to 256 events at a time but fewer (down to 1) when what
 * is left is small for the number of live actors, and gives back what it did
 * not use when it ends (thread exit, process exit, the test's end), so
 * recording stops only once `budget` events were really recorded. Strings
 * that live in the program's read-only data are stored as pointers, since
 * the runner forked the test without exec and sees the same bytes at the
 * same addresses; other strings are copied, bounded.
 *
 * A thread attaches lazily: its first record claims an actor entry and a
 * ring from the arena. A forked child starts with a fresh attachment (a
 * pthread_atfork hook, or the capture's call when the child was made
 * without fork handlers: tattle__recorder_forked_unseen) and records a
 * `spawn` event; a thread that exits
 * records an `exit` event (a pthread key destructor), as does a forked
 * child that calls exit() (an atexit hook). A thread that finds no room
 * (the actors table is full) records nothing, but every event it tries is
 * counted as refused, which makes the trace's `overflow` true; so is an
 * event a signal handler records while its thread is inside a record.
 *
 * In a `trace_calls` test the hooks of -finstrument-functions (compiled
 * into the instrumented target by tattle_instrument(), which call
 * tattle__call_enter/exit: include/tattle/call_hooks.h) record too
 * (tracer/calls.h): each entry and exit pushes or pops the thread's shadow
 * stack and writes one call record into the thread's call ring, which
 * keeps its last `call_cap` records whatever the budget. In every other
 * process the hooks stop at one predictable branch on tattle__calls_on. A
 * forked child starts with a copy of its parent thread's shadow stack,
 * since it returns through the same calls. A fatal assertion's longjmp
 * leaves calls without their exit hooks: the phase it lands in unwinds
 * the shadow stack to the depth it saved (tattle__calls_unwind), which
 * records an exit for each call left.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer/calls.h"
#include "tracer/clock.h"
#include "tracer/static_strings.h"
#include "tracer/test_process/recorder.h"
#include "base/child_path.h"

#define TATTLE__LIKELY(x) __builtin_expect(!!(x), 1)
#define TATTLE__UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Each reservation takes the counter's cache line to the reserving CPU,
 * away from the other writers: at 32 events a reservation, two threads
 * recording paid 1.2-1.4x one thread's cost per event. */
enum { BUDGET_CHUNK = 256 };

TATTLE_API struct tattle_trace_arena *tattle_trace_current;

/* The arena's configuration, copied once per process at activation so the
 * hot path reads process-private, never-written cache lines. */
static struct {
    uint32_t cap;
    uint32_t record_size;
    uint32_t payload_bytes;
    int32_t level;
    uint32_t budget;
    uint32_t generation; /* the session this process records for */
    uint32_t call_cap;   /* call records per thread, 0: calls not traced */
    /* The longest message the quick path of send and recv takes: every
     * one when what a record keeps of it is at most 64 bytes, else 64. */
    uint64_t quick_length;
} config;

/* Non-zero while this process records calls: the only thing an
 * instrumented function reads when it is not. */
TATTLE_API _Atomic uint32_t tattle__calls_on;

struct thread_state {
    struct tattle_trace_arena *arena; /* the arena this state belongs to */
    struct tattle__ring *ring;
    struct tattle__record *next; /* where the next record goes */
    struct tattle__record *first;
    struct tattle__record *end;
    uint64_t written;
    uint32_t quota; /* budget reserved, not yet used */
    int32_t actor;
    struct tattle_trace_arena *refused; /* the arena that had no room for it */
    uint32_t refused_generation;
    /* Call tracing: the thread's call area, its next record, and its
     * depth (the area's copy is what the runner reads). */
    struct tattle__call_area *calls;
    struct tattle__call_record *call_next;
    struct tattle__call_record *call_first;
    struct tattle__call_record *call_end;
    uint64_t calls_written;
    uint32_t call_depth;
    /* Non-zero while a call hook of this thread runs: a signal handler's
     * calls made then are lost rather than written over its records. */
    volatile uint32_t in_call_hook;
    /* Non-zero while this thread writes an event record: an event a
     * signal handler records then (a SIGCHLD handler's collected death, a
     * captured write) is counted refused rather than written into the
     * same record. */
    volatile uint32_t in_record;
};

static __thread struct thread_state thread_state
    __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static bool hooks_installed;
static bool atexit_installed;

/* ---- Attaching threads -------------------------------------------------- */

static pid_t current_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Inlined into every caller, forced: the recording calls are the hot path,
 * and as a call of its own (gcc stopped inlining it once it had grown) an
 * event also cost building its description in memory, about a third more
 * per event. */
static inline __attribute__((always_inline)) void
write_record(struct thread_state *state, const struct tattle__event *event);

/* Claims an actor entry (each owns a ring) for the calling thread. Returns
 * false when the table is full: the thread is then marked refused for this
 * session and its events are counted as lost. */
TATTLE__CHILD_PATH static bool attach(struct thread_state *state,
                                      struct tattle_trace_arena *arena,
                                      int32_t parent, bool forked)
{
    uint32_t index =
        atomic_load_explicit(&arena->actor_count, memory_order_relaxed);
    do {
        if (index >= TATTLE__MAX_ACTORS) {
            state->refused = arena;
            state->refused_generation = config.generation;
            return false;
        }
    } while (
        !atomic_compare_exchange_weak(&arena->actor_count, &index, index + 1));
    uint64_t offset = tattle__arena_ring_offset(arena, index);
    struct tattle__actor *actor = &arena->actors[index];
    actor->pid = getpid();
    actor->tid = current_tid();
    actor->parent = parent;
    actor->ring_offset = offset;
    atomic_store(&actor->flags, forked ? TATTLE__ACTOR_FORKED : 0u);
    atomic_fetch_add_explicit(&arena->live_actors, 1, memory_order_relaxed);
    struct tattle__ring *ring = tattle__arena_at(arena, offset);
    ring->actor = index;
    state->ring = ring;
    state->first = tattle__ring_record(ring, config.record_size, 0);
    state->end = tattle__ring_record(ring, config.record_size, config.cap);
    state->next = state->first;
    state->written = 0;
    state->quota = 0;
    state->actor = (int32_t)index;
    state->calls = NULL;
    state->call_depth = 0;
    if (config.call_cap != 0) {
        struct tattle__call_area *calls = tattle__call_area_at(
            arena, arena->calls_offset, arena->call_area_bytes, index);
        calls->actor = index;
        state->calls = calls;
        state->call_first = tattle__call_record_at(calls, 0);
        state->call_end = tattle__call_record_at(calls, config.call_cap);
        state->call_next = state->call_first;
        state->calls_written = 0;
    }
    state->arena = arena;
    if (hooks_installed && !forked)
        pthread_setspecific(exit_key, arena);
    return true;
}

/* Reserves the next quota: at most BUDGET_CHUNK events, and no more than a
 * fair share of what is left among the live actors (down to one event), so
 * quotas held by threads that stop recording cannot starve the others. */
static bool reserve_budget(struct thread_state *state,
                           struct tattle_trace_arena *arena)
{
    if (atomic_load_explicit(&arena->overflow, memory_order_relaxed))
        return false;
    uint64_t budget = config.budget;
    uint64_t reserved =
        atomic_load_explicit(&arena->budget_reserved, memory_order_relaxed);
    uint64_t chunk;
    do {
        if (reserved >= budget) {
            atomic_store_explicit(&arena->overflow, 1, memory_order_relaxed);
            return false;
        }
        uint64_t live =
            atomic_load_explicit(&arena->live_actors, memory_order_relaxed);
        chunk = (budget - reserved) / (4 * (live != 0 ? live : 1));
        if (chunk > BUDGET_CHUNK)
            chunk = BUDGET_CHUNK;
        if (chunk == 0)
            chunk = 1;
    } while (!atomic_compare_exchange_weak_explicit(
        &arena->budget_reserved, &reserved, reserved + chunk,
        memory_order_relaxed, memory_order_relaxed));
    state->quota = (uint32_t)chunk;
    return true;
}

/* Gives the unused quota back and, when the actor ends, stops counting it
 * as live. */
static void release_budget(struct thread_state *state,
                           struct tattle_trace_arena *arena, bool ending)
{
    if (state->quota != 0) {
        atomic_fetch_sub_explicit(&arena->budget_reserved, state->quota,
                                  memory_order_relaxed);
        state->quota = 0;
    }
    if (ending)
        atomic_fetch_sub_explicit(&arena->live_actors, 1, memory_order_relaxed);
}

TATTLE__CHILD_PATH void tattle__recorder_release_budget(void)
{
    struct thread_state *state = &thread_state;
    struct tattle_trace_arena *arena = tattle_trace_current;
    if (arena != NULL && state->arena == arena)
        release_budget(state, arena, false);
}

static void on_thread_exit(void *value)
{
    struct tattle_trace_arena *arena = value;
    struct thread_state *state = &thread_state;
    if (arena == NULL || arena != tattle_trace_current || state->arena != arena)
        return;
    write_record(state, &(struct tattle__event){.kind = TATTLE_TRACE_EXIT,
                                                .from = TATTLE__SELF});
    atomic_fetch_or(&arena->actors[state->actor].flags, TATTLE__ACTOR_EXITED);
    release_budget(state, arena, true);
}

static void on_process_exit(void)
{
    struct tattle_trace_arena *arena = tattle_trace_current;
    struct thread_state *state = &thread_state;
    if (arena == NULL || state->arena != arena || getpid() == arena->test_pid)
        return;
    write_record(state, &(struct tattle__event){.kind = TATTLE_TRACE_EXIT,
                                                .from = TATTLE__SELF});
    atomic_fetch_or(&arena->actors[state->actor].flags, TATTLE__ACTOR_EXITED);
    release_budget(state, arena, true);
}

/* The first event of a process that joined the session (forked or
 * exec'd), and, when `hook_exit` (atexit is not async-signal-safe), the
 * hook that records its end. */
static void announce_process(struct thread_state *state, bool hook_exit)
{
    write_record(state, &(struct tattle__event){.kind = TATTLE_TRACE_SPAWN});
    if (hook_exit && !atexit_installed) {
        atexit_installed = true;
        atexit(on_process_exit);
    }
}

/* Gives the calling thread of a new child process an actor and ring of
 * its own (its parent's would otherwise take its events and write over
 * them), announced as above. */
static void attach_child(bool hook_exit)
{
    struct tattle_trace_arena *arena = tattle_trace_current;
    if (arena == NULL)
        return; /* the runner forking a test: nothing to do */
    struct thread_state *state = &thread_state;
    int32_t parent = state->arena == arena ? state->actor : -1;
    struct tattle__call_area *parent_calls =
        state->arena == arena ? state->calls : NULL;
    uint32_t parent_depth = state->call_depth;
    state->arena = NULL;
    state->refused = NULL;
    state->quota = 0; /* the parent's quota stays the parent's */
    if (atomic_load_explicit(&arena->active, memory_order_relaxed) !=
        config.generation)
        return;
    if (!attach(state, arena, parent, true)) {
        atomic_fetch_add_explicit(&arena->refused, 1, memory_order_relaxed);
        return;
    }
    if (parent_calls != NULL && state->calls != NULL) {
        /* The child returns through its parent's calls. */
        uint32_t stored = parent_depth < TATTLE__CALL_DEPTH_MAX
                              ? parent_depth
                              : TATTLE__CALL_DEPTH_MAX;
        memcpy(state->calls->stack, parent_calls->stack,
               stored * sizeof *parent_calls->stack);
        state->call_depth = parent_depth;
        atomic_store_explicit(&state->calls->depth, parent_depth,
                              memory_order_release);
    }
    announce_process(state, hook_exit);
}

static void on_fork_child(void)
{
    tattle__ipc_forked();
    attach_child(true);
}

void tattle__recorder_forked_unseen(void)
{
    attach_child(false);
}

static void install_hooks(void)
{
    if (!hooks_installed) {
        if (pthread_key_create(&exit_key, on_thread_exit) == 0 &&
            pthread_atfork(NULL, NULL, on_fork_child) == 0)
            hooks_installed = true;
    }
}

TATTLE__CHILD_PATH void tattle__recorder_prepare(void)
{
    tattle__static_strings_locate();
    install_hooks();
}

/* Copies the arena's configuration into the process's own. */
TATTLE__CHILD_PATH static void
load_config(const struct tattle_trace_arena *arena)
{
    config.cap = arena->cap;
    config.record_size = arena->record_size;
    config.payload_bytes = arena->payload_bytes;
    config.level = arena->level;
    config.budget = arena->budget;
    config.generation = arena->generation;
    config.call_cap = arena->call_cap;
    config.quick_length = arena->payload_bytes <= 64 ? UINT64_MAX : 64;
}

TATTLE__CHILD_PATH void
tattle__recorder_activate(struct tattle_trace_arena *arena)
{
    tattle__recorder_prepare();
    load_config(arena);
    arena->test_pid = getpid();
    arena->start_ticks = tattle__clock_ticks();
    arena->hook_address = (uint64_t)(uintptr_t)&tattle__call_enter;
    atomic_store(&arena->active, config.generation);
    thread_state.arena = NULL;
    thread_state.refused = NULL;
    tattle_trace_current = arena;
    if (attach(&thread_state, arena, -1, false))
        memcpy(arena->actors[thread_state.actor].name, "main", sizeof "main");
    /* Stored only when it changes, like the rest of this process's
     * switches: a forked test process copies each data page it writes. */
    uint32_t calls_on = config.call_cap != 0;
    if (atomic_load_explicit(&tattle__calls_on, memory_order_relaxed) !=
        calls_on)
        atomic_store_explicit(&tattle__calls_on, calls_on,
                              memory_order_relaxed);
}

void tattle__recorder_join(struct tattle_trace_arena *arena, const char *name)
{
    install_hooks();
    load_config(arena);
    thread_state.arena = NULL;
    thread_state.refused = NULL;
    tattle_trace_current = arena;
    if (!attach(&thread_state, arena, -1, true)) {
        atomic_fetch_add_explicit(&arena->refused, 1, memory_order_relaxed);
        return;
    }
    struct tattle__actor *actor = &arena->actors[thread_state.actor];
    size_t length = strnlen(name, sizeof actor->name);
    if (length == sizeof actor->name)
        length = tattle__utf8_cut_length(name, sizeof actor->name - 1);
    memcpy(actor->name, name, length);
    actor->name[length] = '\0';
    announce_process(&thread_state, true);
}

void tattle__recorder_forget(struct tattle_trace_arena *arena)
{
    if (tattle_trace_current == arena) {
        atomic_store_explicit(&tattle__calls_on, 0, memory_order_relaxed);
        tattle_trace_current = NULL;
    }
    if (thread_state.arena == arena)
        thread_state.arena = NULL;
}

/* ---- The hot path ------------------------------------------------------- */

static inline unsigned store_name(union tattle__record_name *field,
                                  const char *name)
{
    if (name == NULL)
        return TATTLE__NAME_NONE;
    if (TATTLE__LIKELY(tattle__static_string(name))) {
        field->pointer = name;
        return TATTLE__NAME_POINTER;
    }
    size_t i = 0;
    for (; i < TATTLE__RECORD_NAME_BYTES - 1 && name[i] != '\0'; i++)
        field->text[i] = name[i];
    if (TATTLE__UNLIKELY(name[i] != '\0'))
        i = tattle__utf8_cut_length(field->text, i);
    field->text[i] = '\0';
    return TATTLE__NAME_INLINE;
}

/* The mode a party of an event is stored with. */
static inline unsigned store_party(union tattle__record_name *field,
                                   struct tattle__party party)
{
    if (party.self)
        return TATTLE__NAME_ACTOR;
    return store_name(field, party.name);
}

/* Marks the thread inside a record, and out of it again: an event a
 * signal handler records meanwhile is refused, not written into the
 * record. The compiler fences keep the record's stores inside, as the
 * handler sees them. */
static inline __attribute__((always_inline)) void
enter_record(struct thread_state *state)
{
    state->in_record = 1;
    atomic_signal_fence(memory_order_seq_cst);
}

static inline __attribute__((always_inline)) void
leave_record(struct thread_state *state)
{
    atomic_signal_fence(memory_order_seq_cst);
    state->in_record = 0;
}

/* Claims the thread's next record, inside a record: takes one event of
 * the quota (the caller checked it is not empty) and opens the record's
 * seqlock. */
static inline __attribute__((always_inline)) struct tattle__record *
open_record(struct thread_state *state)
{
    state->quota--;
    struct tattle__record *record = state->next;
    tattle__ring_open_record(&record->commit);
    return record;
}

/* Commits the record open_record claimed, publishes the ring's count,
 * moves on to the next record and leaves the record. */
static inline __attribute__((always_inline)) void
close_record(struct thread_state *state, struct tattle__record *record)
{
    uint64_t number = state->written;
    atomic_store_explicit(&record->commit, number + 1, memory_order_release);
    state->written = number + 1;
    atomic_store_explicit(&state->ring->written, number + 1,
                          memory_order_relaxed);
    struct tattle__record *next =
        (struct tattle__record *)((char *)record + config.record_size);
    state->next = next == state->end ? state->first : next;
    leave_record(state);
}

static inline __attribute__((always_inline)) void
write_record(struct thread_state *state, const struct tattle__event *event)
{
    struct tattle_trace_arena *arena = state->arena;
    if (TATTLE__UNLIKELY(
            atomic_load_explicit(&arena->active, memory_order_relaxed) !=
            config.generation))
        return;
    if (TATTLE__UNLIKELY(state->in_record != 0)) {
        atomic_fetch_add_explicit(&arena->refused, 1, memory_order_relaxed);
        return;
    }
    enter_record(state);
    if (TATTLE__UNLIKELY(state->quota == 0) && !reserve_budget(state, arena)) {
        leave_record(state);
        return;
    }
    struct tattle__record *record = open_record(state);
    record->ticks = event->ticks != 0 ? event->ticks : tattle__clock_ticks();
    record->size = event->size;
    record->level = event->level;
    record->kind = (uint8_t)event->kind;
    record->flags = event->text ? TATTLE__RECORD_TEXT : 0;
    record->name_modes =
        tattle__record_name_modes(store_party(&record->from, event->from),
                                  store_party(&record->to, event->to),
                                  store_name(&record->label, event->label));
    size_t payload_length = event->payload_length;
    if (TATTLE__UNLIKELY(payload_length > config.payload_bytes)) {
        payload_length = config.payload_bytes;
        if (event->text)
            payload_length =
                tattle__utf8_cut_length(event->payload, payload_length);
    }
    if (TATTLE__LIKELY(payload_length == 64))
        memcpy(record->payload, event->payload, 64);
    else if (payload_length != 0)
        memcpy(record->payload, event->payload, payload_length);
    record->payload_length = (uint16_t)payload_length;
    record->endpoint = event->endpoint;
    record->offset = event->offset;
    close_record(state, record);
}

/* Copies `length` bytes, `size` <= `length` <= 2 * `size`, as two moves
 * of `size` bytes that may overlap: with `size` a constant, two fixed
 * moves. */
static inline __attribute__((always_inline)) void
copy_in_two_moves(unsigned char *to, const unsigned char *from, size_t length,
                  size_t size)
{
    memcpy(to, from, size);
    memcpy(to + length - size, from + length - size, size);
}

/* Copies a payload of at most 64 bytes with fixed-size moves, never
 * reading past its end: no call to memcpy. 64 comes first: it is what a
 * record keeps of any message that long or longer (by default). */
static inline __attribute__((always_inline)) void
copy_short_payload(unsigned char *to, const unsigned char *from, size_t length)
{
    if (length == 64) {
        memcpy(to, from, 64);
    } else if (length >= 32) {
        copy_in_two_moves(to, from, length, 32);
    } else if (length >= 16) {
        copy_in_two_moves(to, from, length, 16);
    } else if (length >= 8) {
        copy_in_two_moves(to, from, length, 8);
    } else if (length >= 4) {
        copy_in_two_moves(to, from, length, 4);
    } else if (length != 0) {
        to[0] = from[0];
        to[length / 2] = from[length / 2];
        to[length - 1] = from[length - 1];
    }
}

/* tattle_trace_send and recv as nearly every call is: the thread attached
 * to the current arena, not inside a record and with budget in hand, the
 * peer and the label strings of the program's read-only data, and a
 * record that keeps at most 64 bytes of the message. It writes the record
 * write_record would and calls nothing, so the compiler keeps it in
 * call-clobbered registers and saves none per event. Returns false,
 * having written nothing, in every other case, which takes the general
 * path. */
static inline __attribute__((always_inline)) bool
record_message_quickly(enum tattle_trace_event_kind kind, const char *peer,
                       const char *label, const void *message, size_t length)
{
    struct thread_state *state = &thread_state;
    struct tattle_trace_arena *arena = tattle_trace_current;
    if (TATTLE__UNLIKELY(
            state->arena != arena || state->in_record != 0 ||
            length > config.quick_length || !tattle__static_string(peer) ||
            !tattle__static_string(label) ||
            atomic_load_explicit(&arena->active, memory_order_relaxed) !=
                config.generation))
        return false;
    /* The quota is read inside the record: a signal handler's event in
     * between could otherwise spend it first. */
    enter_record(state);
    if (TATTLE__UNLIKELY(state->quota == 0)) {
        leave_record(state);
        return false;
    }
    struct tattle__record *record = open_record(state);
    record->ticks = tattle__clock_ticks();
    record->size = length;
    record->level = 0;
    record->kind = (uint8_t)kind;
    record->flags = 0;
    if (kind == TATTLE_TRACE_SEND) {
        record->to.pointer = peer;
        record->name_modes = tattle__record_name_modes(
            TATTLE__NAME_ACTOR, TATTLE__NAME_POINTER, TATTLE__NAME_POINTER);
    } else {
        record->from.pointer = peer;
        record->name_modes = tattle__record_name_modes(
            TATTLE__NAME_POINTER, TATTLE__NAME_ACTOR, TATTLE__NAME_POINTER);
    }
    record->label.pointer = label;
    size_t kept = length < config.payload_bytes ? length : config.payload_bytes;
    copy_short_payload(record->payload, message, kept);
    record->payload_length = (uint16_t)kept;
    record->endpoint = 0;
    record->offset = 0;
    close_record(state, record);
    return true;
}

/* The calling thread's state, attached to the current arena, or NULL. */
static inline struct thread_state *current_state(void)
{
    struct tattle_trace_arena *arena = tattle_trace_current;
    struct thread_state *state = &thread_state;
    if (TATTLE__UNLIKELY(arena == NULL))
        return NULL;
    if (TATTLE__UNLIKELY(state->arena != arena)) {
        if (atomic_load(&arena->active) != config.generation)
            return NULL;
        if (state->refused == arena &&
            state->refused_generation == config.generation) {
            atomic_fetch_add_explicit(&arena->refused, 1, memory_order_relaxed);
            return NULL;
        }
        if (!attach(state, arena, -1, false)) {
            atomic_fetch_add_explicit(&arena->refused, 1, memory_order_relaxed);
            return NULL;
        }
    }
    return state;
}

/* A send or a recv the quick path did not take: a thread yet to attach,
 * a quota to reserve, a copied name, a long payload. Out of line, so the
 * quick path saves no register for it and ends in a jump here. */
static __attribute__((noinline)) void
record_message(enum tattle_trace_event_kind kind, const char *peer,
               const char *label, const void *message, size_t length)
{
    struct thread_state *state = current_state();
    if (state == NULL)
        return;
    bool send = kind == TATTLE_TRACE_SEND;
    struct tattle__party named = TATTLE__NAMED(peer);
    write_record(state,
                 &(struct tattle__event){.kind = kind,
                                         .from = send ? TATTLE__SELF : named,
                                         .to = send ? named : TATTLE__SELF,
                                         .label = label,
                                         .payload = message,
                                         .payload_length = length,
                                         .size = length});
}

/* What tattle_trace_send and recv do: nothing when the process is not
 * traced, else the quick path, else the general one. */
static inline __attribute__((always_inline)) void
trace_message(enum tattle_trace_event_kind kind, const char *peer,
              const char *label, const void *message, size_t length)
{
    if (TATTLE__LIKELY(tattle_trace_current == NULL))
        return;
    if (TATTLE__LIKELY(
            record_message_quickly(kind, peer, label, message, length)))
        return;
    record_message(kind, peer, label, message, length);
}

void(tattle_trace_send)(const char *to, const char *label, const void *msg,
                        size_t len)
{
    trace_message(TATTLE_TRACE_SEND, to, label, msg, len);
}

void(tattle_trace_recv)(const char *from, const char *label, const void *msg,
                        size_t len)
{
    trace_message(TATTLE_TRACE_RECV, from, label, msg, len);
}

void(tattle_trace_event)(int level, const char *from, const char *to,
                         const char *label, const char *format, ...)
{
    if (TATTLE__LIKELY(tattle_trace_current == NULL) || level >= config.level)
        return;
    struct thread_state *state = current_state();
    if (state == NULL)
        return;
    char text[TATTLE__PAYLOAD_MAX + 1];
    size_t length = 0;
    if (format != NULL) {
        va_list args;
        va_start(args, format);
        int written = vsnprintf(text, sizeof text, format, args);
        va_end(args);
        if (written > 0 && (size_t)written < sizeof text)
            length = (size_t)written;
        else if (written > 0)
            length = tattle__utf8_cut_length(text, sizeof text - 1);
    }
    write_record(state, &(struct tattle__event){
                            .kind = TATTLE_TRACE_EVENT,
                            .level = level,
                            .from = from ? TATTLE__NAMED(from) : TATTLE__SELF,
                            .to = TATTLE__NAMED(to),
                            .label = label,
                            .payload = text,
                            .payload_length = length,
                            .size = length,
                            .text = true});
}

void tattle_actor_name(const char *name)
{
    if (TATTLE__LIKELY(tattle_trace_current == NULL) || name == NULL)
        return;
    struct thread_state *state = current_state();
    if (state == NULL)
        return;
    char *field = state->arena->actors[state->actor].name;
    size_t i = 0;
    for (; i < TATTLE__NAME_MAX - 1 && name[i] != '\0'; i++)
        field[i] = name[i];
    if (name[i] != '\0')
        i = tattle__utf8_cut_length(field, i);
    field[i] = '\0';
}

int32_t tattle__recorder_actor(void)
{
    struct thread_state *state = current_state();
    return state != NULL ? state->actor : -1;
}

void tattle__recorder_record(const struct tattle__event *event)
{
    struct thread_state *state = current_state();
    if (state != NULL)
        write_record(state, event);
}

/* ---- Calls ---------------------------------------------------------------
 * The hooks -finstrument-functions inserts at every entry and exit of an
 * instrumented function. They are never instrumented themselves, nor is
 * anything they call (libtattle is built without the option). */

#define TATTLE__NO_INSTRUMENT __attribute__((no_instrument_function))

TATTLE__NO_INSTRUMENT static inline void
write_call(struct thread_state *state, uint64_t ticks, uint64_t function,
           uint64_t site, uint32_t depth, uint32_t kind)
{
    uint64_t number = state->calls_written;
    struct tattle__call_record *record = state->call_next;
    tattle__ring_open_record(&record->commit);
    record->ticks = ticks;
    record->function = function;
    record->site = site;
    record->depth = depth;
    record->kind = kind;
    atomic_store_explicit(&record->commit, number + 1, memory_order_release);
    state->calls_written = number + 1;
    atomic_store_explicit(&state->calls->written, number + 1,
                          memory_order_relaxed);
    struct tattle__call_record *next = record + 1;
    state->call_next = next == state->call_end ? state->call_first : next;
}

/* The calling thread's state when it records calls, or NULL. */
TATTLE__NO_INSTRUMENT static inline struct thread_state *call_state(void)
{
    struct thread_state *state = current_state();
    if (TATTLE__UNLIKELY(state == NULL || state->calls == NULL))
        return NULL;
    if (TATTLE__UNLIKELY(
            atomic_load_explicit(&state->arena->active, memory_order_relaxed) !=
            config.generation))
        return NULL;
    return state;
}

/* Claims the thread's call hook for the call being recorded, or, when a
 * signal handler runs while the thread is inside the hook, counts the call
 * as lost and returns false. The compiler fences keep the hook's stores
 * after the claim and before the release, as the handler sees them. */
TATTLE__NO_INSTRUMENT static inline bool
enter_call_hook(struct thread_state *state)
{
    if (TATTLE__UNLIKELY(state->in_call_hook != 0)) {
        atomic_fetch_add_explicit(&state->calls->lost, 1, memory_order_relaxed);
        return false;
    }
    state->in_call_hook = 1;
    atomic_signal_fence(memory_order_seq_cst);
    return true;
}

TATTLE__NO_INSTRUMENT static inline void
leave_call_hook(struct thread_state *state)
{
    atomic_signal_fence(memory_order_seq_cst);
    state->in_call_hook = 0;
}

TATTLE__NO_INSTRUMENT static void record_enter(void *function, void *site)
{
    struct thread_state *state = call_state();
    if (state == NULL || !enter_call_hook(state))
        return;
    uint64_t ticks = tattle__clock_ticks();
    uint32_t depth = state->call_depth;
    struct tattle__call_area *calls = state->calls;
    if (TATTLE__LIKELY(depth < TATTLE__CALL_DEPTH_MAX))
        calls->stack[depth] = (struct tattle__call_frame){
            .function = (uint64_t)(uintptr_t)function,
            .site = (uint64_t)(uintptr_t)site};
    atomic_store_explicit(&calls->depth, depth + 1, memory_order_release);
    state->call_depth = depth + 1;
    write_call(state, ticks, (uint64_t)(uintptr_t)function,
               (uint64_t)(uintptr_t)site, depth, TATTLE__CALL_ENTER);
    leave_call_hook(state);
}

TATTLE__NO_INSTRUMENT static void record_exit(void *function, void *site)
{
    struct thread_state *state = call_state();
    if (state == NULL)
        return;
    if (!enter_call_hook(state))
        return;
    uint32_t depth = state->call_depth;
    /* A function entered before recording began: nothing to pop. */
    if (TATTLE__UNLIKELY(depth == 0)) {
        leave_call_hook(state);
        return;
    }
    uint64_t ticks = tattle__clock_ticks();
    atomic_store_explicit(&state->calls->depth, depth - 1,
                          memory_order_release);
    state->call_depth = depth - 1;
    write_call(state, ticks, (uint64_t)(uintptr_t)function,
               (uint64_t)(uintptr_t)site, depth - 1, TATTLE__CALL_EXIT);
    leave_call_hook(state);
}

TATTLE__CHILD_PATH uint32_t tattle__calls_depth(void)
{
    if (TATTLE__LIKELY(
            atomic_load_explicit(&tattle__calls_on, memory_order_relaxed) == 0))
        return 0;
    struct thread_state *state = call_state();
    return state == NULL ? 0 : state->call_depth;
}

void tattle__calls_unwind(uint32_t depth)
{
    if (TATTLE__LIKELY(
            atomic_load_explicit(&tattle__calls_on, memory_order_relaxed) == 0))
        return;
    struct thread_state *state = call_state();
    if (state == NULL || !enter_call_hook(state))
        return;
    uint64_t ticks = tattle__clock_ticks();
    struct tattle__call_area *calls = state->calls;
    while (state->call_depth > depth) {
        uint32_t left = state->call_depth - 1;
        atomic_store_explicit(&calls->depth, left, memory_order_release);
        state->call_depth = left;
        /* A frame deeper than the stack stores has no known function:
         * its depth is given up without a record. */
        if (left < TATTLE__CALL_DEPTH_MAX)
            write_call(state, ticks, calls->stack[left].function,
                       calls->stack[left].site, left, TATTLE__CALL_EXIT);
    }
    leave_call_hook(state);
}

TATTLE_API TATTLE__NO_INSTRUMENT void tattle__call_enter(void *function,
                                                         void *site)
{
    record_enter(function, site);
}

TATTLE_API TATTLE__NO_INSTRUMENT void tattle__call_exit(void *function,
                                                        void *site)
{
    record_exit(function, site);
}
