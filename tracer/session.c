/*
 * session.c — a traced test's session, from the runner's point of view.
 *
 * Implements the contract of session.h. The runner creates the arena
 * before forking, the test process activates it and, at its end, runs the
 * watch callbacks and notes which actors are still alive; the runner may
 * snapshot the mailboxes while the test is still alive (a timeout), and
 * finally freezes: recording is switched off, every ring is read with the
 * seqlock check (torn records dropped), the records are merged in time
 * order, the last `cap` kept, and the whole becomes a struct tattle_trace
 * whose strings are allocated here, in the runner.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer/clock.h"
#include "tracer/mailbox.h"
#include "tracer/recorder.h"
#include "tracer/ring.h"
#include "tracer/session.h"
#include "tracer/snapshot.h"

struct tattle__trace_session {
    struct tattle__arena *arena;
    uint64_t size;
    struct tattle__trace_config config;   /* as clamped into the arena */
    struct tattle__snapshot live;
    bool live_taken;
};

/* ---- The trace model and its memory ---------------------------------------- */

struct pool_chunk {
    struct pool_chunk *next;
    size_t used;
    size_t size;
    max_align_t data[];
};

struct trace_storage {
    struct tattle_trace trace;      /* first: tattle__trace_free casts back */
    struct pool_chunk *chunks;
};

static void *pool_alloc(struct trace_storage *storage, size_t bytes)
{
    bytes = (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    struct pool_chunk *chunk = storage->chunks;
    if (chunk == NULL || chunk->size - chunk->used < bytes) {
        size_t size = bytes > 16384 ? bytes : 16384;
        chunk = malloc(sizeof *chunk + size);
        if (chunk == NULL)
            return NULL;
        chunk->size = size;
        chunk->used = 0;
        chunk->next = storage->chunks;
        storage->chunks = chunk;
    }
    void *memory = (char *)chunk->data + chunk->used;
    chunk->used += bytes;
    memset(memory, 0, bytes);
    return memory;
}

static const char *pool_string(struct trace_storage *storage, const char *text,
                               size_t max_length)
{
    if (text == NULL)
        return NULL;
    size_t length = strnlen(text, max_length);
    char *copy = pool_alloc(storage, length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

void tattle__trace_free(struct tattle_trace *trace)
{
    if (trace == NULL)
        return;
    struct trace_storage *storage = (struct trace_storage *)trace;
    for (struct pool_chunk *chunk = storage->chunks, *next; chunk; chunk = next) {
        next = chunk->next;
        free(chunk);
    }
    free(storage);
}

TATTLE_API const char *
tattle_trace_event_kind_name(enum tattle_trace_event_kind kind)
{
    switch (kind) {
    case TATTLE_TRACE_SEND:
        return "send";
    case TATTLE_TRACE_RECV:
        return "recv";
    case TATTLE_TRACE_EVENT:
        return "event";
    case TATTLE_TRACE_SPAWN:
        return "spawn";
    case TATTLE_TRACE_EXIT:
        return "exit";
    }
    return "event";
}

/* ---- Session life cycle ------------------------------------------------------- */

/* Arenas of finished sessions, kept mapped for the next traced tests: a
 * reused arena costs a memset of what was used instead of a memfd, a
 * mapping and fresh page faults on both sides. An arena is only reused
 * when every actor that recorded into it is gone, so no survivor of the
 * old test can write into the new one. */
enum { ARENA_POOL_MAX = 4 };
static struct {
    struct tattle__arena *arena;
    uint64_t size;
} arena_pool[ARENA_POOL_MAX];
static size_t arena_pool_count;

static struct tattle__arena *pool_take(const struct tattle__trace_config *config)
{
    for (size_t i = arena_pool_count; i-- > 0;) {
        struct tattle__arena *arena = arena_pool[i].arena;
        if (tattle__arena_reset(arena, arena_pool[i].size, config->cap,
                                config->budget, config->level,
                                config->payload_bytes) != 0)
            continue;
        arena_pool[i] = arena_pool[--arena_pool_count];
        return arena;
    }
    return NULL;
}

static bool every_actor_gone(const struct tattle__arena *arena)
{
    uint32_t count = atomic_load(&arena->actor_count);
    if (count > TATTLE__MAX_ACTORS)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        const struct tattle__actor *actor = &arena->actors[i];
        if (actor->pid <= 0 || actor->tid <= 0 ||
            syscall(SYS_tgkill, actor->pid, actor->tid, 0) == 0 || errno != ESRCH)
            return false;
    }
    return true;
}

int tattle__trace_session_create(struct tattle__trace_session **out,
                                 const struct tattle__trace_config *config)
{
    struct tattle__trace_config effective = {50, 5000, 100, 64};
    if (config != NULL) {
        if (config->cap != 0)
            effective.cap = config->cap;
        effective.budget = config->budget;
        effective.level = config->level;
        if (config->payload_bytes != 0)
            effective.payload_bytes = config->payload_bytes;
    }
    if (effective.payload_bytes > TATTLE__PAYLOAD_MAX)
        effective.payload_bytes = TATTLE__PAYLOAD_MAX;
    if (effective.cap > 1000000)
        return -EINVAL;
    struct tattle__trace_session *session = calloc(1, sizeof *session);
    if (session == NULL)
        return -ENOMEM;
    tattle__clock_anchor();
    tattle__recorder_prepare();
    session->arena = pool_take(&effective);
    if (session->arena == NULL) {
        int error = tattle__arena_create(&session->arena, effective.cap,
                                         effective.budget, effective.level,
                                         effective.payload_bytes);
        if (error != 0) {
            free(session);
            return error;
        }
    }
    session->size = session->arena->size;
    session->config = effective;
    *out = session;
    return 0;
}

void tattle__trace_session_activate(struct tattle__trace_session *session)
{
    if (session != NULL)
        tattle__recorder_activate(session->arena);
}

void tattle__trace_session_child_finish(bool from_signal_handler)
{
    struct tattle__arena *arena = tattle__trace_current;
    if (arena == NULL || getpid() != arena->test_pid)
        return;
    uint32_t expected = TATTLE__FINISH_NONE;
    if (!from_signal_handler) {
        /* Only once, and never after the crash handler ran. */
        if (atomic_load(&arena->finish) != TATTLE__FINISH_NONE)
            return;
        tattle__mailbox_run_watches(arena);
    }
    tattle__recorder_release_budget();
    tattle__snapshot_probe_actors(arena);
    atomic_compare_exchange_strong(&arena->finish, &expected,
                                   from_signal_handler ? TATTLE__FINISH_SIGNAL
                                                       : TATTLE__FINISH_NORMAL);
    atomic_store(&arena->active, 0);
}

void tattle__trace_session_snapshot_live(struct tattle__trace_session *session,
                                         int test_pid)
{
    (void)test_pid;
    if (session == NULL || session->live_taken)
        return;
    struct tattle__arena *arena = session->arena;
    atomic_store(&arena->active, 0);
    tattle__snapshot_probe_actors(arena);
    if (tattle__snapshot_take(&session->live, arena, session->size,
                              session->config.cap, session->config.payload_bytes,
                              true) != 0) {
        /* Keep what was read; the freeze will not read again. */
    }
    session->live_taken = true;
}

void tattle__trace_session_destroy(struct tattle__trace_session *session)
{
    if (session == NULL)
        return;
    struct tattle__arena *arena = session->arena;
    tattle__recorder_forget(arena);
    tattle__snapshot_clear(&session->live);
    atomic_store(&arena->active, 0);
    if (arena_pool_count < ARENA_POOL_MAX && every_actor_gone(arena)) {
        arena_pool[arena_pool_count].arena = arena;
        arena_pool[arena_pool_count].size = session->size;
        arena_pool_count++;
    } else {
        tattle__arena_destroy(arena, session->size);
    }
    free(session);
}

/* ---- Freezing -------------------------------------------------------------- */

static int compare_copies(const void *left, const void *right)
{
    const struct tattle__ring_copy *a = left, *b = right;
    if (a->record->ticks != b->record->ticks)
        return a->record->ticks < b->record->ticks ? -1 : 1;
    if (a->ring != b->ring)
        return a->ring < b->ring ? -1 : 1;
    return a->number < b->number ? -1 : a->number > b->number;
}

/* The actors' names as the trace shows them (defaults made here). */
static const char **name_actors(struct trace_storage *storage,
                                const struct tattle__arena *arena,
                                uint32_t actor_count)
{
    const char **names = pool_alloc(storage, (actor_count + 1) * sizeof *names);
    if (names == NULL)
        return NULL;
    for (uint32_t i = 0; i < actor_count; i++) {
        const struct tattle__actor *actor = &arena->actors[i];
        char text[TATTLE__NAME_MAX + 32];
        size_t length = strnlen(actor->name, TATTLE__NAME_MAX - 1);
        if (length != 0) {
            memcpy(text, actor->name, length);
            text[length] = '\0';
        } else if (atomic_load(&actor->flags) & TATTLE__ACTOR_FORKED) {
            snprintf(text, sizeof text, "process-%d", (int)actor->pid);
        } else {
            snprintf(text, sizeof text, "thread-%d", (int)actor->tid);
        }
        names[i] = pool_string(storage, text, sizeof text);
        if (names[i] == NULL)
            return NULL;
    }
    return names;
}

static const char *record_name(struct trace_storage *storage,
                               const union tattle__record_name *field,
                               unsigned mode, const char *actor_name)
{
    switch (mode) {
    case TATTLE__NAME_ACTOR:
        return actor_name;
    case TATTLE__NAME_INLINE:
        return pool_string(storage, field->text, TATTLE__RECORD_NAME_BYTES - 1);
    case TATTLE__NAME_POINTER:
        if (tattle__recorder_is_static_string(field->pointer))
            return pool_string(storage, field->pointer, 255);
        return "?";
    default:
        return NULL;
    }
}

static int freeze_events(struct trace_storage *storage,
                         struct tattle__trace_session *session,
                         const char **names, uint32_t actor_count)
{
    struct tattle__arena *arena = session->arena;
    uint32_t cap = session->config.cap;
    uint32_t record_size = (uint32_t)tattle__ring_record_size(session->config.payload_bytes);
    uint64_t ring_bytes = arena->ring_bytes;
    struct tattle_trace *trace = &storage->trace;
    if (actor_count == 0)
        return 0;

    size_t room = (size_t)actor_count * cap;
    struct tattle__ring_copy *copies = malloc(room * sizeof *copies);
    void *buffer = malloc(room * record_size);
    if (copies == NULL || buffer == NULL) {
        free(copies);
        free(buffer);
        return -ENOMEM;
    }
    size_t count = 0;
    uint64_t recorded = 0;
    for (uint32_t i = 0; i < actor_count; i++) {
        uint64_t offset = arena->actors[i].ring_offset;
        if (offset < arena->heap_offset || offset > session->size ||
            session->size - offset < ring_bytes)
            continue;
        struct tattle__ring *ring = tattle__arena_at(arena, offset);
        uint64_t committed = 0;
        count += tattle__ring_read(ring, i, cap, record_size, copies + count,
                                   (char *)buffer + count * record_size,
                                   &committed);
        recorded += committed;
    }
    qsort(copies, count, sizeof *copies, compare_copies);
    size_t first = count > cap ? count - cap : 0;
    size_t kept = count - first;
    trace->recorded = recorded;
    trace->dropped = recorded - kept;

    struct tattle_trace_event *events = pool_alloc(storage, (kept + 1) * sizeof *events);
    if (events == NULL) {
        free(copies);
        free(buffer);
        return -ENOMEM;
    }
    uint64_t start = arena->start_ticks;
    char text[TATTLE__PAYLOAD_MAX * 2 + 8];
    size_t text_size = (size_t)session->config.payload_bytes * 2 + 5;
    int error = 0;
    for (size_t i = 0; i < kept && error == 0; i++) {
        const struct tattle__ring_copy *copy = &copies[first + i];
        const struct tattle__record *record = copy->record;
        struct tattle_trace_event *event = &events[i];
        const char *self = names[copy->ring];
        event->seq = recorded - kept + i + 1;
        event->t_us = record->ticks > start
                          ? tattle__clock_ticks_to_ns(record->ticks - start) / 1000
                          : 0;
        event->kind = record->kind <= TATTLE_TRACE_EXIT
                          ? (enum tattle_trace_event_kind)record->kind
                          : TATTLE_TRACE_EVENT;
        event->size = record->size;
        event->level = record->level;
        if (event->kind == TATTLE_TRACE_SPAWN) {
            int32_t parent = arena->actors[copy->ring].parent;
            event->from = parent >= 0 && (uint32_t)parent < actor_count
                              ? names[parent] : NULL;
            event->to = self;
        } else {
            event->from = record_name(storage, &record->from,
                                      record->name_modes & 3u, self);
            event->to = record_name(storage, &record->to,
                                    (record->name_modes >> 2) & 3u, self);
        }
        event->label = record_name(storage, &record->label,
                                   (record->name_modes >> 4) & 3u, self);
        if (event->kind == TATTLE_TRACE_SEND || event->kind == TATTLE_TRACE_RECV ||
            record->payload_length != 0) {
            tattle__snapshot_render(record->payload, record->payload_length,
                                    (record->flags & TATTLE__RECORD_TEXT) != 0,
                                    record->size > record->payload_length,
                                    text, text_size);
            event->msg = pool_string(storage, text, sizeof text);
            if (event->msg == NULL)
                error = -ENOMEM;
        }
    }
    trace->events = events;
    trace->event_count = kept;
    free(copies);
    free(buffer);
    return error;
}

static int freeze_actors(struct trace_storage *storage,
                         const struct tattle__arena *arena, const char **names,
                         uint32_t actor_count)
{
    struct tattle_trace_actor *actors =
        pool_alloc(storage, (actor_count + 1) * sizeof *actors);
    if (actors == NULL)
        return -ENOMEM;
    for (uint32_t i = 0; i < actor_count; i++) {
        const struct tattle__actor *actor = &arena->actors[i];
        uint32_t flags = atomic_load(&actor->flags);
        actors[i].name = names[i];
        actors[i].pid = actor->pid;
        actors[i].tid = actor->tid;
        if (flags & TATTLE__ACTOR_PROBED)
            actors[i].alive_at_exit = (flags & TATTLE__ACTOR_ALIVE) != 0;
        else
            actors[i].alive_at_exit = !(flags & TATTLE__ACTOR_EXITED);
    }
    storage->trace.actors = actors;
    storage->trace.actor_count = actor_count;
    return 0;
}

static int freeze_mailboxes(struct trace_storage *storage,
                            const struct tattle__snapshot *snapshot,
                            const struct tattle__arena *arena,
                            const char **names, uint32_t actor_count)
{
    struct tattle_trace_mailbox *mailboxes =
        pool_alloc(storage, (snapshot->count + 1) * sizeof *mailboxes);
    if (mailboxes == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < snapshot->count; i++) {
        const struct tattle__snapshot_mailbox *in = &snapshot->mailboxes[i];
        struct tattle_trace_mailbox *out = &mailboxes[i];
        out->name = pool_string(storage, in->name ? in->name : "?", 255);
        bool known = in->owner >= 0 && (uint32_t)in->owner < actor_count;
        out->owner = known ? names[in->owner] : NULL;
        if (known) {
            uint32_t flags = atomic_load(&arena->actors[in->owner].flags);
            out->alive = (flags & TATTLE__ACTOR_PROBED)
                             ? (flags & TATTLE__ACTOR_ALIVE) != 0
                             : false;
        }
        out->pending = in->pending;
        out->approx = in->approx;
        const char **messages =
            pool_alloc(storage, (in->message_count + 1) * sizeof *messages);
        if (messages == NULL || out->name == NULL)
            return -ENOMEM;
        for (size_t j = 0; j < in->message_count; j++) {
            messages[j] = pool_string(storage, in->messages[j] ? in->messages[j] : "",
                                      1 << 20);
            if (messages[j] == NULL)
                return -ENOMEM;
        }
        out->messages = messages;
        out->message_count = in->message_count;
    }
    storage->trace.mailboxes = mailboxes;
    storage->trace.mailbox_count = snapshot->count;
    return 0;
}

int tattle__trace_session_freeze(struct tattle__trace_session *session,
                                 struct tattle_trace **out)
{
    if (session == NULL || out == NULL)
        return -EINVAL;
    struct tattle__arena *arena = session->arena;
    atomic_store(&arena->active, 0);
    tattle__recorder_forget(arena);

    struct trace_storage *storage = calloc(1, sizeof *storage);
    if (storage == NULL)
        return -ENOMEM;
    struct tattle_trace *trace = &storage->trace;
    trace->cap = session->config.cap;
    trace->budget = session->config.budget;
    trace->level = session->config.level;
    /* Events refused for lack of room are lost like those past the budget. */
    trace->overflow = atomic_load(&arena->overflow) != 0 ||
                      atomic_load(&arena->refused) != 0;

    uint32_t actor_count = atomic_load(&arena->actor_count);
    if (actor_count > TATTLE__MAX_ACTORS)
        actor_count = TATTLE__MAX_ACTORS;
    const char **names = name_actors(storage, arena, actor_count);
    int error = names == NULL ? -ENOMEM : 0;
    if (error == 0)
        error = freeze_events(storage, session, names, actor_count);
    if (error == 0)
        error = freeze_actors(storage, arena, names, actor_count);
    if (error == 0) {
        struct tattle__snapshot now = {0};
        const struct tattle__snapshot *snapshot = &session->live;
        if (!session->live_taken) {
            error = tattle__snapshot_take(&now, arena, session->size,
                                          session->config.cap,
                                          session->config.payload_bytes, false);
            snapshot = &now;
        }
        if (error == 0)
            error = freeze_mailboxes(storage, snapshot, arena, names, actor_count);
        tattle__snapshot_clear(&now);
    }
    if (error != 0) {
        tattle__trace_free(trace);
        return error;
    }
    *out = trace;
    return 0;
}
