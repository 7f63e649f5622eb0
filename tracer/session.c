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
 *
 * Everything read from the arena is untrusted: rings are found through the
 * layout the runner computed (never the header's offsets, never an
 * actor's ring_offset), counts are bounded, and a value no honest writer
 * leaves behind marks the session corrupted, which discards its events.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer/clock.h"
#include "tracer/mailbox.h"
#include "tracer/test_process/recorder.h"
#include "tracer/ring.h"
#include "tracer/session.h"
#include "tracer/snapshot.h"
#include "tracer/static_strings.h"

struct tattle__trace_session {
    struct tattle__arena *arena;        /* the runner's mapping */
    int fd;                             /* the memfd */
    struct tattle__arena_layout layout; /* the runner's own, never the header */
    struct tattle__snapshot live;
    bool live_taken;
    bool handed_out;                    /* the memfd went to a test process */
    bool reusable;                      /* ... and all its processes are dead */
    const char *corruption;             /* what the freeze found overwritten */
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

/* ---- Session life cycle ------------------------------------------------------- */

/* Arenas of finished sessions, kept mapped for the next traced tests: a
 * reused arena costs a memset of what was used instead of a memfd, a
 * mapping and fresh page faults on both sides. An arena is only reused
 * when every actor that recorded into it is gone, so no survivor of the
 * old test can write into the new one. */
enum { ARENA_POOL_MAX = 4 };
static struct {
    struct tattle__arena *arena;
    int fd;
    uint64_t size;
} arena_pool[ARENA_POOL_MAX];
static size_t arena_pool_count;

static bool pool_take(struct tattle__trace_session *session)
{
    for (size_t i = arena_pool_count; i-- > 0;) {
        if (arena_pool[i].size != session->layout.size)
            continue;
        if (tattle__arena_reset(arena_pool[i].arena, arena_pool[i].fd,
                                &session->layout) != 0)
            continue;
        session->arena = arena_pool[i].arena;
        session->fd = arena_pool[i].fd;
        arena_pool[i] = arena_pool[--arena_pool_count];
        return true;
    }
    return false;
}

/* A session whose arena never left this process tree (--no-fork, the
 * tracer's own tests): its writers were this process and processes forked
 * from it, whose threads are probed. */
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

void tattle__trace_prepare_process(void)
{
    tattle__recorder_prepare();
}

int tattle__trace_session_create(struct tattle__trace_session **out,
                                 const struct tattle__trace_config *config)
{
    struct tattle__trace_config effective = TATTLE__TRACE_CONFIG_DEFAULT;
    if (config != NULL) {
        if (config->cap != 0)
            effective.cap = config->cap;
        effective.budget = config->budget;
        effective.level = config->level;
        if (config->payload_bytes != 0)
            effective.payload_bytes = config->payload_bytes;
    }
    if (effective.cap > TATTLE__TRACE_CAP_MAX)
        return -EINVAL;
    struct tattle__trace_session *session = calloc(1, sizeof *session);
    if (session == NULL)
        return -ENOMEM;
    int error = tattle__arena_plan(&session->layout, effective.cap, effective.budget,
                                   effective.level, effective.payload_bytes);
    if (error != 0) {
        free(session);
        return error;
    }
    tattle__clock_anchor();
    tattle__recorder_prepare();
    if (!pool_take(session)) {
        error = tattle__arena_create(&session->arena, &session->fd, &session->layout);
        if (error != 0) {
            free(session);
            return error;
        }
    }
    *out = session;
    return 0;
}

int tattle__trace_session_fd(struct tattle__trace_session *session)
{
    session->handed_out = true;
    return session->fd;
}

uint64_t tattle__trace_session_size(const struct tattle__trace_session *session)
{
    return session->layout.size;
}

int tattle__trace_attach(int fd, uint64_t size)
{
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int error = base == MAP_FAILED ? -errno : 0;
    close(fd);
    if (error != 0)
        return error;
    tattle__recorder_activate(base);
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
    /* On failure the snapshot keeps what was read: the freeze does not
     * read again. */
    tattle__snapshot_take(&session->live, arena, &session->layout, true);
    session->live_taken = true;
}

void tattle__trace_session_mark_reusable(struct tattle__trace_session *session)
{
    session->reusable = true;
}

const char *tattle__trace_session_corruption(const struct tattle__trace_session *session)
{
    return session->corruption;
}

void tattle__trace_session_destroy(struct tattle__trace_session *session)
{
    if (session == NULL)
        return;
    struct tattle__arena *arena = session->arena;
    tattle__recorder_forget(arena);
    tattle__snapshot_clear(&session->live);
    atomic_store(&arena->active, 0);
    /* Reused only when no process that could still write into it is left:
     * the runner says so for a handed-out arena (it killed and waited for
     * every process of the test); otherwise its threads are probed. */
    bool safe = session->handed_out ? session->reusable : every_actor_gone(arena);
    if (arena_pool_count < ARENA_POOL_MAX && safe) {
        arena_pool[arena_pool_count].arena = arena;
        arena_pool[arena_pool_count].fd = session->fd;
        arena_pool[arena_pool_count].size = session->layout.size;
        arena_pool_count++;
    } else {
        tattle__arena_destroy(arena, session->fd, &session->layout);
    }
    free(session);
}

/* ---- Freezing -------------------------------------------------------------- */

/* The largest integer every JSON reader keeps exact (2^53 - 1): counts and
 * times a test could inflate are clamped to it. */
#define TATTLE__EXACT_INTEGER_MAX ((UINT64_C(1) << 53) - 1)

static uint64_t clamp_exact(uint64_t value)
{
    return value > TATTLE__EXACT_INTEGER_MAX ? TATTLE__EXACT_INTEGER_MAX : value;
}

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
        /* Checked by check_record: a string of the program's read-only
         * data, read no further than its end. */
        return pool_string(storage, field->pointer,
                           tattle__static_string_length(field->pointer, 255));
    default:
        return NULL;
    }
}

/* What makes a whole (committed) record impossible for an honest writer:
 * NULL when it could have been written by the recorder. */
static const char *check_record(const struct tattle__record *record,
                                const struct tattle__arena_layout *layout)
{
    if (record->kind > TATTLE_TRACE_EXIT)
        return "an event of no known kind";
    if (record->payload_length > layout->payload_bytes)
        return "an event longer than payload_bytes";
    if (record->commit > layout->budget)
        return "an event numbered past the budget";
    for (unsigned shift = 0; shift <= 4; shift += 2)
        if (((record->name_modes >> shift) & 3u) == TATTLE__NAME_POINTER) {
            const union tattle__record_name *field =
                shift == 0 ? &record->from : shift == 2 ? &record->to : &record->label;
            if (!tattle__static_string(field->pointer))
                return "a name that points outside the program";
        }
    return NULL;
}

/* Reads every actor's ring into sorted copies. Returns 0, -ENOMEM, or
 * -EBADMSG with session->corruption set. */
static int read_rings(struct tattle__trace_session *session, uint32_t actor_count,
                      struct tattle__ring_copy **copies_out, void **buffer_out,
                      size_t *count_out, uint64_t *recorded_out)
{
    const struct tattle__arena_layout *layout = &session->layout;
    size_t room = (size_t)actor_count * layout->cap;
    struct tattle__ring_copy *copies = malloc((room + 1) * sizeof *copies);
    void *buffer = malloc((room + 1) * layout->record_size);
    if (copies == NULL || buffer == NULL) {
        free(copies);
        free(buffer);
        return -ENOMEM;
    }
    size_t count = 0;
    uint64_t recorded = 0;
    for (uint32_t i = 0; i < actor_count && !session->corruption; i++) {
        struct tattle__ring *ring = tattle__arena_at(
            session->arena, layout->heap_offset + (uint64_t)i * layout->ring_bytes);
        uint64_t committed = 0;
        size_t read = tattle__ring_read(ring, i, layout->cap, layout->record_size,
                                        copies + count,
                                        (char *)buffer + count * layout->record_size,
                                        &committed);
        if (committed > layout->budget) {
            session->corruption = "a ring counts more events than the budget";
            break;
        }
        for (size_t r = 0; r < read && !session->corruption; r++)
            session->corruption = check_record(copies[count + r].record, layout);
        count += read;
        recorded += committed;
    }
    if (!session->corruption && recorded > layout->budget)
        session->corruption = "more events were counted than the budget allows";
    if (session->corruption) {
        free(copies);
        free(buffer);
        return -EBADMSG;
    }
    qsort(copies, count, sizeof *copies, compare_copies);
    *copies_out = copies;
    *buffer_out = buffer;
    *count_out = count;
    *recorded_out = recorded;
    return 0;
}

static int freeze_events(struct trace_storage *storage,
                         struct tattle__trace_session *session,
                         const char **names, uint32_t actor_count)
{
    struct tattle__arena *arena = session->arena;
    const struct tattle__arena_layout *layout = &session->layout;
    struct tattle_trace *trace = &storage->trace;
    if (actor_count == 0)
        return 0;
    struct tattle__ring_copy *copies;
    void *buffer;
    size_t count;
    uint64_t recorded;
    int error = read_rings(session, actor_count, &copies, &buffer, &count, &recorded);
    if (error != 0)
        return error;
    size_t first = count > layout->cap ? count - layout->cap : 0;
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
    size_t text_size = (size_t)layout->payload_bytes * 2 + 5;
    for (size_t i = 0; i < kept && error == 0; i++) {
        const struct tattle__ring_copy *copy = &copies[first + i];
        const struct tattle__record *record = copy->record;
        struct tattle_trace_event *event = &events[i];
        const char *self = names[copy->ring];
        event->seq = recorded - kept + i + 1;
        event->t_us = record->ticks > start
                          ? clamp_exact(tattle__clock_ticks_to_ns(record->ticks - start) / 1000)
                          : 0;
        event->kind = (enum tattle_trace_event_kind)record->kind;
        event->size = clamp_exact(record->size);
        event->level = record->level;
        unsigned modes = record->name_modes;
        if (event->kind == TATTLE_TRACE_SPAWN) {
            int32_t parent = arena->actors[copy->ring].parent;
            event->from = parent >= 0 && (uint32_t)parent < actor_count
                              ? names[parent] : NULL;
            event->to = self;
        } else {
            event->from = record_name(storage, &record->from, modes & 3u, self);
            event->to = record_name(storage, &record->to, (modes >> 2) & 3u, self);
        }
        event->label = record_name(storage, &record->label, (modes >> 4) & 3u, self);
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
        out->pending = clamp_exact(in->pending);
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

/* The counters no honest writer takes past their limits. */
static const char *check_counters(const struct tattle__arena *arena,
                                  const struct tattle__arena_layout *layout)
{
    if (atomic_load(&arena->actor_count) > TATTLE__MAX_ACTORS)
        return "its actor count is past the table";
    if (atomic_load(&arena->directory_count) > TATTLE__MAX_MAILBOXES)
        return "its mailbox count is past the directory";
    if (atomic_load(&arena->heap_used) > layout->mailbox_size)
        return "its mailbox heap is used past its end";
    if (atomic_load(&arena->budget_reserved) > layout->budget)
        return "more budget was handed out than there is";
    return NULL;
}

int tattle__trace_session_freeze(struct tattle__trace_session *session,
                                 struct tattle_trace **out)
{
    if (session == NULL || out == NULL)
        return -EINVAL;
    struct tattle__arena *arena = session->arena;
    const struct tattle__arena_layout *layout = &session->layout;
    atomic_store(&arena->active, 0);
    tattle__recorder_forget(arena);

    struct trace_storage *storage = calloc(1, sizeof *storage);
    if (storage == NULL)
        return -ENOMEM;
    struct tattle_trace *trace = &storage->trace;
    trace->cap = layout->cap;
    trace->budget = layout->budget;
    trace->level = layout->level;
    session->corruption = tattle__arena_check_header(arena, layout);
    if (!session->corruption)
        session->corruption = check_counters(arena, layout);
    if (session->corruption) {
        /* Nothing in it can be told apart from what the test forged. */
        *out = trace;
        return 0;
    }
    /* Events refused for lack of room are lost like those past the budget. */
    trace->overflow = atomic_load(&arena->overflow) != 0 ||
                      atomic_load(&arena->refused) != 0;

    uint32_t actor_count = atomic_load(&arena->actor_count);
    const char **names = name_actors(storage, arena, actor_count);
    int error = names == NULL ? -ENOMEM : 0;
    if (error == 0)
        error = freeze_events(storage, session, names, actor_count);
    if (error == -EBADMSG) {
        tattle__trace_free(trace);
        storage = calloc(1, sizeof *storage);
        if (storage == NULL)
            return -ENOMEM;
        storage->trace = (struct tattle_trace){
            .cap = layout->cap, .budget = layout->budget, .level = layout->level};
        *out = &storage->trace;
        return 0;
    }
    if (error == 0)
        error = freeze_actors(storage, arena, names, actor_count);
    if (error == 0) {
        struct tattle__snapshot now = {0};
        const struct tattle__snapshot *snapshot = &session->live;
        if (!session->live_taken) {
            error = tattle__snapshot_take(&now, arena, layout, false);
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
