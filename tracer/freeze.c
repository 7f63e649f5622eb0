/*
 * freeze.c — a traced test's arena, once its writers are stopped, becomes
 * the struct tattle_trace reporters read.
 *
 * Every ring is read with the seqlock check (torn records dropped), the
 * records merged in time order and the last `cap` kept; actors and the
 * mailbox snapshot are added; every string is copied into the trace's own
 * memory, allocated here in the runner. The arena is untrusted: rings are
 * found through the runner's layout (never the header's offsets, never an
 * actor's ring_offset), counts are bounded, and a value no honest writer
 * leaves behind marks the freeze corrupted, which discards its events.
 */
#include "tracer/freeze.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/clock.h"
#include "tracer/ring.h"
#include "tracer/session.h"
#include "tracer/static_strings.h"

/* ---- The trace model and its memory ----------------------------------------
 */

struct pool_chunk {
    struct pool_chunk *next;
    size_t used;
    size_t size;
    max_align_t data[];
};

struct trace_storage {
    struct tattle_trace trace; /* first: tattle__trace_free casts back */
    struct pool_chunk *chunks;
};

static void *pool_alloc(struct trace_storage *storage, size_t bytes)
{
    bytes = (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
            sizeof(max_align_t);
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
    for (struct pool_chunk *chunk = storage->chunks, *next; chunk;
         chunk = next) {
        next = chunk->next;
        free(chunk);
    }
    free(storage);
}

/* What one freeze works on. */
struct freezing {
    struct tattle_trace_arena *arena;
    const struct tattle__arena_layout *layout;
    const char *corruption; /* set at the first impossible value */
};

/* The largest integer every JSON reader keeps exact (2^53 - 1): counts and
 * times a test could inflate are clamped to it. */
#define TATTLE__EXACT_INTEGER_MAX ((UINT64_C(1) << 53) - 1)

static uint64_t clamp_exact(uint64_t value)
{
    return value > TATTLE__EXACT_INTEGER_MAX ? TATTLE__EXACT_INTEGER_MAX
                                             : value;
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
                                const struct tattle_trace_arena *arena,
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
                               const struct tattle__record *record,
                               enum tattle__name_field which,
                               const char *actor_name)
{
    const union tattle__record_name *field =
        tattle__record_name_field(record, which);
    switch (tattle__record_name_mode(record, which)) {
    case TATTLE__NAME_ACTOR:
        return actor_name;
    case TATTLE__NAME_INLINE:
        return pool_string(storage, field->text, TATTLE__RECORD_NAME_BYTES - 1);
    case TATTLE__NAME_POINTER:
        /* Checked by check_record: a string of the program's read-only
         * data, read no further than its end. */
        return pool_string(storage, field->pointer,
                           tattle__static_string_length(field->pointer, 255));
    case TATTLE__NAME_NONE:
        break;
    }
    return NULL;
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
    for (int field = TATTLE__FIELD_FROM; field <= TATTLE__FIELD_LABEL; field++)
        if (tattle__record_name_mode(record, (enum tattle__name_field)field) ==
                TATTLE__NAME_POINTER &&
            !tattle__static_string(tattle__record_name_field(
                                       record, (enum tattle__name_field)field)
                                       ->pointer))
            return "a name that points outside the program";
    return NULL;
}

/* Reads every actor's ring into sorted copies. Returns 0, -ENOMEM, or
 * -EBADMSG with freezing->corruption set. */
static int read_rings(struct freezing *freezing, uint32_t actor_count,
                      struct tattle__ring_copy **copies_out, void **buffer_out,
                      size_t *count_out, uint64_t *recorded_out)
{
    const struct tattle__arena_layout *layout = freezing->layout;
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
    for (uint32_t i = 0; i < actor_count && !freezing->corruption; i++) {
        struct tattle__ring *ring = tattle__arena_at(
            freezing->arena,
            layout->heap_offset + (uint64_t)i * layout->ring_bytes);
        uint64_t committed = 0;
        size_t read = tattle__ring_read(
            ring, i, layout->cap, layout->record_size, copies + count,
            (char *)buffer + count * layout->record_size, &committed);
        if (committed > layout->budget) {
            freezing->corruption = "a ring counts more events than the budget";
            break;
        }
        for (size_t r = 0; r < read && !freezing->corruption; r++)
            freezing->corruption =
                check_record(copies[count + r].record, layout);
        count += read;
        recorded += committed;
    }
    if (!freezing->corruption && recorded > layout->budget)
        freezing->corruption =
            "more events were counted than the budget allows";
    if (freezing->corruption) {
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
                         struct freezing *freezing, const char **names,
                         uint32_t actor_count)
{
    struct tattle_trace_arena *arena = freezing->arena;
    const struct tattle__arena_layout *layout = freezing->layout;
    struct tattle_trace *trace = &storage->trace;
    if (actor_count == 0)
        return 0;
    struct tattle__ring_copy *copies;
    void *buffer;
    size_t count;
    uint64_t recorded;
    int error =
        read_rings(freezing, actor_count, &copies, &buffer, &count, &recorded);
    if (error != 0)
        return error;
    size_t first = count > layout->cap ? count - layout->cap : 0;
    size_t kept = count - first;
    trace->recorded = recorded;
    trace->dropped = recorded - kept;

    struct tattle_trace_event *events =
        pool_alloc(storage, (kept + 1) * sizeof *events);
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
        event->t_us =
            record->ticks > start
                ? clamp_exact(tattle__clock_ticks_to_ns(record->ticks - start) /
                              1000)
                : 0;
        event->kind = (enum tattle_trace_event_kind)record->kind;
        event->size = clamp_exact(record->size);
        event->level = record->level;
        if (event->kind == TATTLE_TRACE_SPAWN) {
            int32_t parent = arena->actors[copy->ring].parent;
            event->from = parent >= 0 && (uint32_t)parent < actor_count
                              ? names[parent]
                              : NULL;
            event->to = self;
        } else {
            event->from =
                record_name(storage, record, TATTLE__FIELD_FROM, self);
            event->to = record_name(storage, record, TATTLE__FIELD_TO, self);
        }
        event->label = record_name(storage, record, TATTLE__FIELD_LABEL, self);
        if (event->kind == TATTLE_TRACE_SEND ||
            event->kind == TATTLE_TRACE_RECV || record->payload_length != 0) {
            tattle__snapshot_render(record->payload, record->payload_length,
                                    (record->flags & TATTLE__RECORD_TEXT) != 0,
                                    record->size > record->payload_length, text,
                                    text_size);
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
                         const struct tattle_trace_arena *arena,
                         const char **names, uint32_t actor_count)
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
                            const struct tattle_trace_arena *arena,
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
            messages[j] = pool_string(
                storage, in->messages[j] ? in->messages[j] : "", 1 << 20);
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
static const char *check_counters(const struct tattle_trace_arena *arena,
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

int tattle__freeze(struct tattle_trace_arena *arena,
                   const struct tattle__arena_layout *layout,
                   const struct tattle__snapshot *taken_live,
                   struct tattle_trace **out, const char **corruption)
{
    struct freezing freezing = {.arena = arena, .layout = layout};

    struct trace_storage *storage = calloc(1, sizeof *storage);
    if (storage == NULL)
        return -ENOMEM;
    struct tattle_trace *trace = &storage->trace;
    trace->cap = layout->cap;
    trace->budget = layout->budget;
    trace->level = layout->level;
    freezing.corruption = tattle__arena_check_header(arena, layout);
    if (!freezing.corruption)
        freezing.corruption = check_counters(arena, layout);
    if (freezing.corruption) {
        /* Nothing in it can be told apart from what the test forged. */
        *corruption = freezing.corruption;
        *out = trace;
        return 0;
    }
    /* Events refused for lack of room are lost like those past the budget. */
    trace->overflow =
        atomic_load(&arena->overflow) != 0 || atomic_load(&arena->refused) != 0;

    uint32_t actor_count = atomic_load(&arena->actor_count);
    const char **names = name_actors(storage, arena, actor_count);
    int error = names == NULL ? -ENOMEM : 0;
    if (error == 0)
        error = freeze_events(storage, &freezing, names, actor_count);
    if (error == -EBADMSG) {
        tattle__trace_free(trace);
        storage = calloc(1, sizeof *storage);
        if (storage == NULL)
            return -ENOMEM;
        storage->trace = (struct tattle_trace){.cap = layout->cap,
                                               .budget = layout->budget,
                                               .level = layout->level};
        *corruption = freezing.corruption;
        *out = &storage->trace;
        return 0;
    }
    if (error == 0)
        error = freeze_actors(storage, arena, names, actor_count);
    if (error == 0) {
        struct tattle__snapshot now = {0};
        const struct tattle__snapshot *snapshot = taken_live;
        if (!snapshot) {
            error = tattle__snapshot_take(&now, arena, layout, false);
            snapshot = &now;
        }
        if (error == 0)
            error =
                freeze_mailboxes(storage, snapshot, arena, names, actor_count);
        tattle__snapshot_clear(&now);
    }
    if (error != 0) {
        tattle__trace_free(trace);
        return error;
    }
    *corruption = NULL;
    *out = trace;
    return 0;
}
