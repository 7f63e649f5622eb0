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
 *
 * The calls of a `trace_calls` test (tracer/calls.h) are read the same
 * way: each thread's call ring with the seqlock check, merged by time with
 * the last `call_cap` kept, numbered in one `seq` with the events, and
 * their functions named by the runner's symbolizer once per distinct
 * address; each thread's shadow stack becomes its entry in `stacks`.
 */
#include "tracer/freeze.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/calls.h"
#include "tracer/clock.h"
#include "tracer/ring.h"
#include "tracer/test_process/recorder.h"
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
    struct tattle__arena_extents extents; /* the pages the kernel holds */
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

/* Whether `text` is one of the first `count` names. */
static bool name_taken(const char *const *names, uint32_t count,
                       const char *text)
{
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(names[i], text) == 0)
            return true;
    return false;
}

/* The actors' names as the trace shows them (defaults made here). A
 * name is the actor's identity in the trace (calls, stacks, events and
 * mailbox owners carry it), so names are made unique: the second actor
 * named "worker" reads "worker#2", the third "worker#3". */
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
        size_t base = strlen(text);
        for (unsigned copy = 2; name_taken(names, i, text); copy++)
            snprintf(text + base, sizeof text - base, "#%u", copy);
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
    if (record->endpoint > TATTLE__MAX_ENDPOINTS)
        return "a message on no known endpoint";
    for (int field = TATTLE__FIELD_FROM; field <= TATTLE__FIELD_LABEL; field++)
        if (tattle__record_name_mode(record, (enum tattle__name_field)field) ==
                TATTLE__NAME_POINTER &&
            !tattle__static_string(tattle__record_name_field(
                                       record, (enum tattle__name_field)field)
                                       ->pointer))
            return "a name that points outside the program";
    return NULL;
}

/* Whether `address` in the arena lies in a page the kernel holds: a
 * record whose commit word is in a hole was never written, and reading
 * it would allocate the page (tattle__ring_written_fn). */
static bool arena_page_written(void *context, const void *address)
{
    struct freezing *freezing = context;
    uint64_t offset =
        (uint64_t)((const char *)address - (const char *)freezing->arena);
    return tattle__arena_holds_data(&freezing->extents, offset);
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
            (char *)buffer + count * layout->record_size, &committed,
            arena_page_written, freezing);
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

/* ---- Captured messages -------------------------------------------------
 * Events recorded by tracer/test_process/ipc.c carry an endpoint (the
 * index + 1 of its arena entry) and the offset of their bytes in it; here
 * each receive is matched to the send whose bytes it got first, each send
 * to the receive that took its last byte, and the ends are named: by the actor
 * at the other end of the match, else the first actor seen at that side of the
 * endpoint, else the endpoint. */

struct capture_ref {
    uint32_t endpoint; /* index + 1, 0: not a captured message */
    uint64_t offset;
};

/* An endpoint entry as read (and checked) from the arena. */
struct endpoint_view {
    uint32_t kind;           /* 0: never filled */
    uint32_t peer;           /* index + 1 */
    uint32_t writer, reader; /* actor index + 1 */
    uint64_t sent;           /* the writers' offset at the end */
    uint64_t received;       /* the readers' offset at the end */
    bool semaphore;          /* an EFD_SEMAPHORE eventfd */
    const char *display;     /* `pipe:[4711]`, `unix:/tmp/s`, ... */
    char name[TATTLE__ENDPOINT_NAME_BYTES];
    char local[TATTLE__ENDPOINT_NAME_BYTES];
    uint32_t peeked;      /* enum tattle__peek_taker */
    uint32_t peek_length; /* checked against payload_bytes */
    uint64_t kernel_bytes, kernel_messages;
    unsigned char peek[TATTLE__PAYLOAD_MAX];
};

/* Copies the endpoint table; NULL and freezing->corruption set when it
 * holds what no honest writer leaves, NULL alone when out of memory. */
static struct endpoint_view *read_endpoints(struct trace_storage *storage,
                                            struct freezing *freezing,
                                            uint32_t actor_count)
{
    struct endpoint_view *views =
        pool_alloc(storage, TATTLE__MAX_ENDPOINTS * sizeof *views);
    if (views == NULL)
        return NULL;
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        struct tattle__endpoint *entry = &freezing->arena->endpoints[i];
        struct endpoint_view *view = &views[i];
        view->kind = atomic_load(&entry->kind);
        if (view->kind == 0)
            continue;
        view->peer = atomic_load(&entry->peer);
        view->writer = atomic_load(&entry->writer);
        view->reader = atomic_load(&entry->reader);
        view->sent = atomic_load(&entry->sent);
        view->received = atomic_load(&entry->received);
        view->peeked = atomic_load(&entry->peeked);
        view->peek_length = entry->peek_length;
        view->kernel_bytes = entry->kernel_bytes;
        view->kernel_messages = entry->kernel_messages;
        view->semaphore =
            view->kind == TATTLE__ENDPOINT_EVENTFD && entry->semaphore != 0;
        if (view->kind > TATTLE__ENDPOINT_KIND_LAST ||
            view->peer > TATTLE__MAX_ENDPOINTS || view->writer > actor_count ||
            view->reader > actor_count || view->peeked > TATTLE__PEEK_RUNNER ||
            view->peek_length > freezing->layout->payload_bytes ||
            view->peek_length > TATTLE__PAYLOAD_MAX) {
            freezing->corruption = "its endpoint table was overwritten";
            return NULL;
        }
        memcpy(view->peek, entry->peek, view->peek_length);
        size_t length = strnlen(entry->name, sizeof view->name - 1);
        memcpy(view->name, entry->name, length);
        view->name[length] = '\0';
        length = strnlen(entry->local, sizeof view->local - 1);
        memcpy(view->local, entry->local, length);
        view->local[length] = '\0';
        char text[TATTLE__ENDPOINT_NAME_BYTES + 32];
        unsigned long long id = (unsigned long long)entry->id;
        if (view->kind == TATTLE__ENDPOINT_PIPE)
            snprintf(text, sizeof text, "pipe:[%llu]", id);
        else if (view->kind == TATTLE__ENDPOINT_EVENTFD)
            snprintf(text, sizeof text, "eventfd:[%llu]", id);
        else if (view->name[0] != '\0')
            snprintf(text, sizeof text, "%s", view->name);
        else
            snprintf(text, sizeof text, "socket:[%llu]", id);
        view->display = pool_string(storage, text, sizeof text);
        if (view->display == NULL)
            return NULL;
    }
    /* Peers as the tracer wrote them (socketpair) name a filled entry other
     * than their own, and no two name the same one: otherwise every
     * endpoint naming one peer would walk (and keep) its sends again. */
    bool named[TATTLE__MAX_ENDPOINTS] = {false};
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        uint32_t peer = views[i].kind != 0 ? views[i].peer : 0;
        if (peer == 0)
            continue;
        if (peer == i + 1 || views[peer - 1].kind == 0 || named[peer - 1]) {
            freezing->corruption = "its endpoint table was overwritten";
            return NULL;
        }
        named[peer - 1] = true;
    }
    /* Sockets connected by address (TCP, UDP, Unix paths): the peer is the
     * one socket whose own address is this one's peer and the reverse. */
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        struct endpoint_view *view = &views[i];
        if (view->kind < TATTLE__ENDPOINT_STREAM ||
            view->kind > TATTLE__ENDPOINT_DGRAM || view->peer != 0 ||
            view->name[0] == '\0')
            continue;
        uint32_t found = 0, candidates = 0;
        for (uint32_t j = 0; j < TATTLE__MAX_ENDPOINTS; j++)
            if (j != i && views[j].kind == view->kind &&
                strcmp(views[j].local, view->name) == 0 &&
                strcmp(views[j].name, view->local) == 0) {
                found = j + 1;
                candidates++;
            }
        if (candidates == 1)
            view->peer = found;
    }
    /* An accepted Unix socket's peer is unnamed: it is found from the
     * other side. */
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        uint32_t peer = views[i].peer;
        if (views[i].kind >= TATTLE__ENDPOINT_STREAM &&
            views[i].kind <= TATTLE__ENDPOINT_DGRAM && peer != 0 &&
            views[peer - 1].peer == 0 && views[peer - 1].kind == views[i].kind)
            views[peer - 1].peer = i + 1;
    }
    /* A peer that does not name this socket back was guessed from
     * addresses more than one socket shares: whose bytes it got is not
     * known, and one source read by two endpoints would be counted twice. */
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        uint32_t peer = views[i].peer;
        if (peer != 0 && views[peer - 1].peer != i + 1)
            views[i].peer = 0;
    }
    return views;
}

/* Where the bytes a receive on `endpoint` got were sent: the endpoint
 * itself for pipes, eventfds and queues, the peer socket for sockets. */
static uint32_t capture_source(const struct endpoint_view *views,
                               uint32_t endpoint)
{
    const struct endpoint_view *view = &views[endpoint - 1];
    if (view->kind == TATTLE__ENDPOINT_PIPE ||
        view->kind == TATTLE__ENDPOINT_EVENTFD ||
        view->kind == TATTLE__ENDPOINT_QUEUE)
        return endpoint;
    return view->peer;
}

/* The units sends[found] takes in its endpoint's stream: its bytes, one
 * datagram or queued message, or for an eventfd up to the next write (one, or
 * for a semaphore eventfd the value it added to the counter, of which each read
 * takes one). */
static uint64_t capture_units(const struct endpoint_view *views,
                              const struct capture_ref *refs,
                              const size_t *sends, size_t send_count,
                              size_t found, uint64_t size)
{
    const struct capture_ref *send = &refs[sends[found]];
    const struct endpoint_view *view = &views[send->endpoint - 1];
    if (view->kind == TATTLE__ENDPOINT_DGRAM ||
        view->kind == TATTLE__ENDPOINT_QUEUE)
        return 1;
    if (view->kind != TATTLE__ENDPOINT_EVENTFD)
        return size;
    uint64_t end = view->sent;
    if (found + 1 < send_count &&
        refs[sends[found + 1]].endpoint == send->endpoint)
        end = refs[sends[found + 1]].offset;
    return end > send->offset ? end - send->offset : 1;
}

static const struct capture_ref *sorting_refs;

static int compare_sends(const void *left, const void *right)
{
    const struct capture_ref *a = &sorting_refs[*(const size_t *)left];
    const struct capture_ref *b = &sorting_refs[*(const size_t *)right];
    if (a->endpoint != b->endpoint)
        return a->endpoint < b->endpoint ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return *(const size_t *)left < *(const size_t *)right ? -1 : 1;
}

/* How many sends come at or before (`endpoint`, `offset`) in the sends'
 * order (by endpoint, then offset). */
static size_t sends_through(const size_t *sends, size_t count,
                            const struct capture_ref *refs, uint32_t endpoint,
                            uint64_t offset)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        const struct capture_ref *ref = &refs[sends[middle]];
        if (ref->endpoint < endpoint ||
            (ref->endpoint == endpoint && ref->offset <= offset))
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* The last send (index into sends) on `endpoint` at or before `offset`,
 * or -1. */
static ptrdiff_t find_send(const size_t *sends, size_t count,
                           const struct capture_ref *refs, uint32_t endpoint,
                           uint64_t offset)
{
    size_t low = sends_through(sends, count, refs, endpoint, offset);
    if (low == 0 || refs[sends[low - 1]].endpoint != endpoint)
        return -1;
    return (ptrdiff_t)(low - 1);
}

/* The first send (index into sends) on `endpoint` (never 0), or -1. */
static ptrdiff_t first_send(const size_t *sends, size_t count,
                            const struct capture_ref *refs, uint32_t endpoint)
{
    size_t low = sends_through(sends, count, refs, endpoint - 1, UINT64_MAX);
    if (low == count || refs[sends[low]].endpoint != endpoint)
        return -1;
    return (ptrdiff_t)low;
}

/* A receive that got exactly the bytes of a send. */
static bool same_message(const struct tattle_trace_event *receive,
                         const struct tattle_trace_event *send)
{
    return receive->size == send->size && receive->msg != NULL &&
           send->msg != NULL && strcmp(receive->msg, send->msg) == 0;
}

/* A send whose bytes a receive may have got by content: the very same
 * bytes, sent before the receive (its seq follows the time order, and a
 * send is stamped before its call, a receive after its own). */
static bool sent_for(const struct tattle_trace_event *receive,
                     const struct tattle_trace_event *send)
{
    return send->seq < receive->seq && same_message(receive, send);
}

enum { SAME_SEND_WINDOW = 64 };

/* The unclaimed send of `endpoint` nearest sends[found] (within a window)
 * that carried exactly what `receive` got before it, or -1. */
static ptrdiff_t nearest_same_send(const struct tattle_trace_event *events,
                                   const struct capture_ref *refs,
                                   const size_t *sends, size_t send_count,
                                   const bool *claimed, ptrdiff_t found,
                                   uint32_t endpoint,
                                   const struct tattle_trace_event *receive)
{
    for (ptrdiff_t distance = 1; distance <= SAME_SEND_WINDOW; distance++) {
        ptrdiff_t sides[2] = {found - distance, found + distance};
        for (int side = 0; side < 2; side++) {
            ptrdiff_t at = sides[side];
            if (at < 0 || (size_t)at >= send_count)
                continue;
            size_t send = sends[at];
            if (refs[send].endpoint == endpoint && !claimed[send] &&
                sent_for(receive, &events[send]))
                return at;
        }
    }
    return -1;
}

/* The send (index into sends) a receive from a POSIX queue got, or -1:
 * the unclaimed send of exactly its bytes at its offset (found, the last
 * send at or before it, -1 when none is), else the nearest one, made
 * before the receive in either case. A queue delivers by priority, and a
 * message put on it where the capture does not see it (a raw system call,
 * an untraced program) moves no offset, so the offset is only where to
 * start looking: a receive of bytes no unclaimed send made before it
 * carried stays unmatched. */
static ptrdiff_t queue_send(const struct tattle_trace_event *events,
                            const struct capture_ref *refs, const size_t *sends,
                            size_t send_count, const bool *claimed,
                            ptrdiff_t found, uint32_t endpoint,
                            const struct tattle_trace_event *receive)
{
    if (found < 0) {
        /* Before the first send recorded: start from it (found by a
         * binary search, as a hostile arena may put every receive
         * there). */
        found = first_send(sends, send_count, refs, endpoint);
        if (found < 0)
            return -1;
    }
    size_t at = sends[found];
    if (!claimed[at] && sent_for(receive, &events[at]))
        return found;
    return nearest_same_send(events, refs, sends, send_count, claimed, found,
                             endpoint, receive);
}

/* Pairs a receive with sends[send]'s event: the receive is of it, the
 * send names the receive (the latest of it so far, unless one took its
 * last byte: `finished`), and each end is named by the other's actor. */
static void claim(struct tattle_trace_event *events, size_t send,
                  struct tattle_trace_event *receive, bool *claimed,
                  const bool *finished)
{
    claimed[send] = true;
    receive->match = events[send].seq;
    receive->from = events[send].from;
    if (!finished[send])
        events[send].match = receive->seq;
    if (events[send].to == NULL)
        events[send].to = receive->to;
}

/* A receive of a byte stream (pipe, stream socket) takes the bytes from
 * its offset to its offset + size, which may run on into later sends
 * than the one whose bytes it got first (two writes taken by one read);
 * a read of an eventfd that is no semaphore takes every write since the
 * last read. The sends from sends[from] on whose units start before
 * `end` are the ones it took. Each names it by `match`: the receive that
 * took the send's last unit (`finished` remembers that one did), else
 * the latest that took some (the rest is unread, listed in the
 * snapshot). The walk costs one step per send a receive spans, taken
 * from `budget`, shared by every receive: an honest trace's receives
 * span fewer sends than there are events and receives together, and a
 * forged one (receives claiming every offset) stops there. */
static void take_spanned_sends(struct tattle_trace_event *events,
                               const struct endpoint_view *views,
                               const struct capture_ref *refs,
                               const size_t *sends, size_t send_count,
                               size_t from, uint32_t endpoint, uint64_t end,
                               size_t receive, bool *finished, bool *claimed,
                               size_t *budget)
{
    for (size_t at = from; at<send_count && * budget> 0; at++) {
        --*budget;
        size_t send = sends[at];
        if (refs[send].endpoint != endpoint || refs[send].offset >= end)
            break;
        uint64_t send_end =
            refs[send].offset + capture_units(views, refs, sends, send_count,
                                              at, events[send].size);
        if (send_end < refs[send].offset)
            send_end = UINT64_MAX;
        bool last = send_end <= end;
        if (finished[send] && !last)
            continue;
        finished[send] = finished[send] || last;
        claimed[send] = claimed[send] || last;
        events[send].match = events[receive].seq;
        if (events[send].to == NULL)
            events[send].to = events[receive].to;
    }
}

static const char *side_name(const struct endpoint_view *views,
                             uint32_t endpoint, bool readers,
                             const char **names)
{
    if (endpoint == 0)
        return NULL;
    const struct endpoint_view *view = &views[endpoint - 1];
    uint32_t actor = readers ? view->reader : view->writer;
    return actor != 0 ? names[actor - 1] : NULL;
}

/* ---- Pending endpoint bytes ----------------------------------------------
 * What was sent into a captured endpoint and never received by the end of
 * the test, from the endpoint table's counters (the writers' and the
 * readers' offsets) and the kept sends: a send is unread from the readers'
 * offset on. The counters are the test's to scribble on: an endpoint whose
 * readers are past its writers is left out, every count is bounded by what
 * the kept events hold, and what no kept send accounts for is said to be
 * incomplete, never invented. Queue messages are delivered by priority, so
 * a queue's unread sends are its unclaimed ones (the latest, when receives
 * fell out of the ring). */

static const char *endpoint_kind_name(uint32_t kind)
{
    switch (kind) {
    case TATTLE__ENDPOINT_PIPE:
        return "pipe";
    case TATTLE__ENDPOINT_EVENTFD:
        return "eventfd";
    case TATTLE__ENDPOINT_QUEUE:
        return "mq";
    default:
        return "socket";
    }
}

/* The units of the send at sends[at] not yet taken by readers at
 * `received` (bytes for byte streams, else messages or eventfd units). */
static uint64_t unread_units(const struct endpoint_view *views,
                             const struct tattle_trace_event *events,
                             const struct capture_ref *refs,
                             const size_t *sends, size_t send_count, size_t at,
                             uint64_t received)
{
    const struct capture_ref *send = &refs[sends[at]];
    uint64_t units = capture_units(views, refs, sends, send_count, at,
                                   events[sends[at]].size);
    uint64_t end = send->offset + units;
    if (end < send->offset || end <= received)
        return 0;
    return send->offset >= received ? units : end - received;
}

/* A process of the test other than the test process was alive when the
 * actors were probed at the end: the endpoints the test process no
 * longer held may still be open in it. */
static bool other_process_alive(const struct freezing *freezing)
{
    const struct tattle_trace_arena *arena = freezing->arena;
    uint32_t count = atomic_load(&arena->actor_count);
    for (uint32_t i = 0; i < count && i < TATTLE__MAX_ACTORS; i++) {
        const struct tattle__actor *actor = &arena->actors[i];
        if (actor->pid != arena->test_pid &&
            (atomic_load(&actor->flags) & TATTLE__ACTOR_ALIVE))
            return true;
    }
    return false;
}

/* What the live peek found in the endpoint (tracer/peek.c), when a
 * process holding it peeked: its count, and its first bytes rendered as
 * a captured message is. */
static int freeze_kernel_peek(struct trace_storage *storage,
                              const struct freezing *freezing,
                              const struct endpoint_view *view,
                              struct tattle_trace_endpoint *endpoint)
{
    endpoint->kernel_peeked = view->peeked != TATTLE__PEEK_NONE;
    if (!endpoint->kernel_peeked)
        return 0;
    endpoint->kernel_peeked_by_runner = view->peeked == TATTLE__PEEK_RUNNER;
    endpoint->kernel_pending_bytes = clamp_exact(view->kernel_bytes);
    endpoint->kernel_pending_messages = clamp_exact(view->kernel_messages);
    char text[TATTLE__PAYLOAD_MAX * 2 + 8];
    size_t text_size = (size_t)freezing->layout->payload_bytes * 2 + 5;
    tattle__snapshot_render(view->peek, view->peek_length, false,
                            view->kernel_bytes > view->peek_length, text,
                            text_size);
    endpoint->kernel_msg = pool_string(storage, text, sizeof text);
    return endpoint->kernel_msg != NULL ? 0 : -ENOMEM;
}

static int freeze_pending(struct trace_storage *storage,
                          struct freezing *freezing,
                          const struct endpoint_view *views,
                          const struct tattle_trace_event *events,
                          const struct capture_ref *refs, const size_t *sends,
                          size_t send_count, const bool *claimed,
                          const char **names)
{
    struct tattle_trace_endpoint *out =
        pool_alloc(storage, TATTLE__MAX_ENDPOINTS * sizeof *out);
    struct tattle_trace_pending_send *kept =
        malloc((send_count + 1) * sizeof *kept);
    if (out == NULL || kept == NULL) {
        free(kept);
        return -ENOMEM;
    }
    size_t count = 0, kept_total = 0;
    bool peek_taken = atomic_load(&freezing->arena->peek_taken) != 0;
    bool others_alive = other_process_alive(freezing);
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        const struct endpoint_view *view = &views[i];
        if (view->kind == 0)
            continue;
        uint32_t source = capture_source(views, i + 1);
        if (source != 0 && views[source - 1].sent < view->received)
            continue; /* readers past the writers: forged */
        uint64_t units =
            source != 0 ? views[source - 1].sent - view->received : 0;
        bool kernel_holds =
            view->peeked != TATTLE__PEEK_NONE &&
            (view->kernel_bytes != 0 || view->kernel_messages != 0 ||
             view->peek_length != 0);
        if (units == 0 && !kernel_holds)
            continue; /* nothing unread */
        if (peek_taken && view->peeked == TATTLE__PEEK_NONE && !others_alive)
            continue; /* no live process holds it open any more */
        bool stream = view->kind == TATTLE__ENDPOINT_STREAM ||
                      view->kind == TATTLE__ENDPOINT_PIPE;
        ptrdiff_t last =
            units != 0 ? find_send(sends, send_count, refs, source, UINT64_MAX)
                       : -1;
        ptrdiff_t first = last;
        while (first > 0 && refs[sends[first - 1]].endpoint == source)
            first--;
        size_t found = 0;
        uint64_t known_bytes = 0, known_units = 0;
        bool queue = view->kind == TATTLE__ENDPOINT_QUEUE;
        for (ptrdiff_t at = last; at >= 0 && at >= first; at--) {
            size_t send = sends[at];
            uint64_t taken;
            if (queue) {
                if (claimed[send])
                    continue;
                taken = 1;
            } else {
                taken = unread_units(views, events, refs, sends, send_count,
                                     (size_t)at, view->received);
                if (taken == 0)
                    break; /* sorted by offset: the older ones were read */
            }
            if (known_units + taken > units)
                break; /* more than the counters say: the rest was read */
            known_units += taken;
            uint64_t bytes = stream ? taken : events[send].size;
            known_bytes += bytes;
            kept[found++] =
                (struct tattle_trace_pending_send){.send = events[send].seq,
                                                   .bytes = bytes,
                                                   .msg = events[send].msg};
            if (known_units == units)
                break;
        }
        struct tattle_trace_endpoint *endpoint = &out[count++];
        endpoint->name = view->display;
        endpoint->kind = endpoint_kind_name(view->kind);
        uint32_t actor = view->reader  ? view->reader
                         : source != 0 ? views[source - 1].writer
                                       : view->writer;
        endpoint->owner = actor != 0 ? names[actor - 1] : NULL;
        /* The kernel holding more than the capture counted: bytes moved
         * where the capture does not look (splice, vmsplice, a process it
         * does not trace), which no kept send accounts for.
         * An eventfd's counter is in the written values, its units in
         * writes: only a counter the capture saw no write for is beyond. */
        uint64_t kernel_count = stream  ? view->kernel_bytes
                                : queue ? view->kernel_messages
                                        : 0;
        bool kernel_beyond = view->peeked != TATTLE__PEEK_NONE &&
                             (kernel_count > units ||
                              (units == 0 && (view->kernel_bytes != 0 ||
                                              view->kernel_messages != 0)));
        endpoint->complete = known_units == units && !kernel_beyond;
        if (stream)
            endpoint->pending_bytes = clamp_exact(units);
        else if (view->kind == TATTLE__ENDPOINT_EVENTFD)
            endpoint->pending_bytes = /* what a read gets */
                units != 0 ? sizeof(uint64_t) : 0;
        else
            endpoint->pending_bytes = known_bytes;
        endpoint->pending_messages = stream ? 0 : clamp_exact(units);
        /* At most `cap` messages are kept across all endpoints. */
        size_t room = freezing->layout->cap - kept_total;
        size_t keep = found < room ? found : room;
        kept_total += keep;
        struct tattle_trace_pending_send *messages =
            pool_alloc(storage, (keep + 1) * sizeof *messages);
        if (messages == NULL) {
            free(kept);
            return -ENOMEM;
        }
        /* Found newest first: kept oldest first. */
        for (size_t k = 0; k < keep; k++)
            messages[k] = kept[found - 1 - k];
        endpoint->messages = messages;
        endpoint->message_count = keep;
        if (freeze_kernel_peek(storage, freezing, view, endpoint) != 0) {
            free(kept);
            return -ENOMEM;
        }
    }
    free(kept);
    storage->trace.endpoints = out;
    storage->trace.endpoint_count = count;
    return 0;
}

static int resolve_captures(struct trace_storage *storage,
                            struct freezing *freezing,
                            struct tattle_trace_event *events,
                            const struct capture_ref *refs, size_t count,
                            const char **names, uint32_t actor_count)
{
    size_t captured = 0;
    for (size_t i = 0; i < count; i++)
        captured += refs[i].endpoint != 0;
    if (captured == 0)
        return 0;
    struct endpoint_view *views =
        read_endpoints(storage, freezing, actor_count);
    if (views == NULL)
        return freezing->corruption ? -EBADMSG : -ENOMEM;
    size_t *sends = malloc((captured + 1) * sizeof *sends);
    if (sends == NULL)
        return -ENOMEM;
    size_t *receives = malloc((captured + 1) * sizeof *receives);
    if (receives == NULL) {
        free(sends);
        return -ENOMEM;
    }
    size_t send_count = 0, receive_count = 0;
    for (size_t i = 0; i < count; i++) {
        if (refs[i].endpoint != 0 && events[i].kind == TATTLE_TRACE_SEND)
            sends[send_count++] = i;
        else if (refs[i].endpoint != 0 && events[i].kind == TATTLE_TRACE_RECV)
            receives[receive_count++] = i;
    }
    sorting_refs = refs;
    qsort(sends, send_count, sizeof *sends, compare_sends);
    qsort(receives, receive_count, sizeof *receives, compare_sends);
    sorting_refs = NULL;
    bool *claimed = calloc(count + 1, sizeof *claimed);
    bool *finished = calloc(count + 1, sizeof *finished);
    if (claimed == NULL || finished == NULL) {
        free(receives);
        free(sends);
        free(claimed);
        free(finished);
        return -ENOMEM;
    }
    size_t span_budget = 2 * count + 64;

    for (size_t i = 0; i < count; i++) {
        if (refs[i].endpoint == 0 || events[i].kind != TATTLE_TRACE_RECV)
            continue;
        uint32_t source = capture_source(views, refs[i].endpoint);
        if (source == 0)
            continue;
        ptrdiff_t found =
            find_send(sends, send_count, refs, source, refs[i].offset);
        if (views[source - 1].kind == TATTLE__ENDPOINT_QUEUE) {
            ptrdiff_t send = queue_send(events, refs, sends, send_count,
                                        claimed, found, source, &events[i]);
            if (send >= 0)
                claim(events, sends[send], &events[i], claimed, finished);
            continue;
        }
        uint32_t kind = views[source - 1].kind;
        bool stream =
            kind == TATTLE__ENDPOINT_PIPE || kind == TATTLE__ENDPOINT_STREAM;
        uint64_t end = refs[i].offset + events[i].size;
        if (end < refs[i].offset)
            end = UINT64_MAX;
        if (found < 0 ||
            refs[i].offset >= refs[sends[found]].offset +
                                  capture_units(views, refs, sends, send_count,
                                                (size_t)found,
                                                events[sends[found]].size)) {
            /* Its first bytes came from a send the ring lost: the later
             * sends it took are still its own. */
            if (stream)
                take_spanned_sends(events, views, refs, sends, send_count,
                                   sends_through(sends, send_count, refs,
                                                 source, refs[i].offset),
                                   source, end, i, finished, claimed,
                                   &span_budget);
            continue;
        }
        size_t send = sends[found];
        if (!same_message(&events[i], &events[send]) &&
            refs[i].offset == refs[send].offset) {
            /* Two readers (or writers) of one object advanced its counter
             * in another order than the kernel moved the bytes, or a
             * queue delivered a message of a higher priority first: the
             * nearest unclaimed send of the very same message is the
             * one. */
            ptrdiff_t better =
                nearest_same_send(events, refs, sends, send_count, claimed,
                                  found, source, &events[i]);
            if (better >= 0)
                send = sends[better];
        }
        claim(events, send, &events[i], claimed, finished);
        if (kind == TATTLE__ENDPOINT_EVENTFD && views[source - 1].semaphore) {
            /* One unit, whatever reads after it the ring lost: the next
             * kept read's offset would take the writes they took. */
            end = refs[i].offset + 1 != 0 ? refs[i].offset + 1 : UINT64_MAX;
        } else if (kind == TATTLE__ENDPOINT_EVENTFD) {
            /* Up to the next read, else to where the readers ended. */
            size_t next = sends_through(receives, receive_count, refs, source,
                                        refs[i].offset);
            end =
                next < receive_count && refs[receives[next]].endpoint == source
                    ? refs[receives[next]].offset
                    : views[source - 1].received;
        }
        if (send == sends[found] &&
            (stream || kind == TATTLE__ENDPOINT_EVENTFD))
            take_spanned_sends(events, views, refs, sends, send_count,
                               (size_t)found, source, end, i, finished, claimed,
                               &span_budget);
    }
    int error = freeze_pending(storage, freezing, views, events, refs, sends,
                               send_count, claimed, names);
    free(receives);
    free(sends);
    free(claimed);
    free(finished);
    if (error != 0)
        return error;

    /* Unmatched: the first actor seen at the other side, else the
     * endpoint. */
    for (size_t i = 0; i < count; i++) {
        uint32_t endpoint = refs[i].endpoint;
        if (endpoint == 0)
            continue;
        const struct endpoint_view *view = &views[endpoint - 1];
        const char *fallback = view->display ? view->display : "endpoint";
        if (events[i].kind == TATTLE_TRACE_SEND && events[i].to == NULL) {
            uint32_t destination = capture_source(views, endpoint) == endpoint
                                       ? endpoint
                                       : view->peer;
            const char *actor = side_name(views, destination, true, names);
            events[i].to = actor ? actor : fallback;
        } else if (events[i].kind == TATTLE_TRACE_RECV &&
                   events[i].from == NULL) {
            const char *actor =
                side_name(views, capture_source(views, endpoint), false, names);
            events[i].from = actor ? actor : fallback;
        }
    }
    return 0;
}

/* ---- Calls ---------------------------------------------------------------
 */

static tattle__call_symbolizer call_symbolizer;

void tattle__freeze_set_call_symbolizer(tattle__call_symbolizer symbolizer)
{
    call_symbolizer = symbolizer;
}

/* More calls than a thread makes in two days (so that 128 threads' sum
 * stays exact in JSON), deeper than any thread's
 * stack could be: a count or depth past these was forged. */
#define TATTLE__CALLS_RECORDED_LIMIT (UINT64_C(1) << 44)
#define TATTLE__CALL_DEPTH_LIMIT (UINT32_C(1) << 24)

struct call_copy {
    uint64_t number; /* in its thread's ring, from 0 */
    uint32_t actor;
    struct tattle__call_record record;
};

static int compare_call_copies(const void *left, const void *right)
{
    const struct call_copy *a = left, *b = right;
    if (a->record.ticks != b->record.ticks)
        return a->record.ticks < b->record.ticks ? -1 : 1;
    if (a->actor != b->actor)
        return a->actor < b->actor ? -1 : 1;
    return a->number < b->number ? -1 : a->number > b->number;
}

/* The timeline of the kept calls, for numbering the events among them. */
struct call_timeline {
    struct tattle_trace_call *calls; /* sorted by time */
    const uint64_t *ticks;           /* each call's */
    size_t count;
    uint64_t recorded;
};

/* Copies the whole records of one thread's call ring into copies[*count...]
 * (room for cap more). Returns the records the ring committed in all, or
 * sets freezing->corruption. */
static uint64_t read_call_ring(struct freezing *freezing,
                               struct tattle__call_area *area, uint32_t actor,
                               struct call_copy *copies, size_t *count)
{
    uint32_t cap = freezing->layout->call_cap;
    uint64_t highest =
        atomic_load_explicit(&area->written, memory_order_acquire);
    if (highest > TATTLE__CALLS_RECORDED_LIMIT) {
        freezing->corruption = "a call ring counts more calls than a test "
                               "can make";
        return 0;
    }
    size_t first = *count;
    for (uint32_t slot = 0; slot < cap; slot++) {
        struct tattle__call_record *record = tattle__call_record_at(area, slot);
        if (!arena_page_written(freezing, &record->commit))
            continue;
        struct call_copy *copy = &copies[*count];
        uint64_t before =
            atomic_load_explicit(&record->commit, memory_order_acquire);
        if (before == 0 || (before - 1) % cap != slot)
            continue;
        copy->record.ticks = record->ticks;
        copy->record.function = record->function;
        copy->record.site = record->site;
        copy->record.depth = record->depth;
        copy->record.kind = record->kind;
        if (tattle__ring_recheck(&record->commit) != before)
            continue;
        if (copy->record.kind != TATTLE__CALL_ENTER &&
            copy->record.kind != TATTLE__CALL_EXIT) {
            freezing->corruption = "a call record of no known kind";
            return 0;
        }
        if (copy->record.depth >= TATTLE__CALL_DEPTH_LIMIT) {
            freezing->corruption = "a call deeper than any stack";
            return 0;
        }
        if (before > TATTLE__CALLS_RECORDED_LIMIT) {
            freezing->corruption = "a call numbered past any test's calls";
            return 0;
        }
        if (before > highest)
            highest = before;
        copy->number = before - 1;
        copy->actor = actor;
        (*count)++;
    }
    /* The ring holds the last `cap` calls: older copies are stale
     * leftovers of a slot whose newer write was torn. */
    size_t kept = first;
    for (size_t i = first; i < *count; i++)
        if (copies[i].number + cap >= highest)
            copies[kept++] = copies[i];
    *count = kept;
    return clamp_exact(highest);
}

/* Distinct addresses, sorted, for naming each once. */
static int compare_addresses(const void *left, const void *right)
{
    uint64_t a = *(const uint64_t *)left, b = *(const uint64_t *)right;
    return a < b ? -1 : a > b;
}

struct call_names {
    uint64_t *addresses; /* sorted, distinct */
    struct tattle_frame *frames;
    size_t count;
};

static const struct tattle_frame *call_name(const struct call_names *names,
                                            uint64_t address)
{
    const uint64_t *found =
        names->count == 0
            ? NULL
            : bsearch(&address, names->addresses, names->count,
                      sizeof *names->addresses, compare_addresses);
    return found ? &names->frames[found - names->addresses] : NULL;
}

/* Names every address of `wanted` (count of them, any order, duplicates
 * allowed) once, into pool strings. */
static int name_calls(struct trace_storage *storage, struct freezing *freezing,
                      uint64_t *wanted, size_t count, struct call_names *out)
{
    qsort(wanted, count, sizeof *wanted, compare_addresses);
    size_t distinct = 0;
    for (size_t i = 0; i < count; i++)
        if (distinct == 0 || wanted[distinct - 1] != wanted[i])
            wanted[distinct++] = wanted[i];
    struct tattle_frame *frames =
        pool_alloc(storage, (distinct + 1) * sizeof *frames);
    if (frames == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < distinct; i++)
        frames[i].address = (uintptr_t)wanted[i];
    /* The test process was forked from this one without exec, so its
     * code lies where this process sees it: unless the hook it recorded
     * lies elsewhere, which leaves the functions unnamed. */
    bool same_image = freezing->arena->hook_address ==
                      (uint64_t)(uintptr_t)&tattle__call_enter;
    if (call_symbolizer && same_image && distinct != 0) {
        struct tattle_frame *named = calloc(distinct, sizeof *named);
        if (named == NULL)
            return -ENOMEM;
        call_symbolizer(wanted, distinct, named);
        for (size_t i = 0; i < distinct; i++) {
            frames[i].function = pool_string(storage, named[i].function, 1024);
            frames[i].file = pool_string(storage, named[i].file, 4096);
            frames[i].line = named[i].line;
            free((char *)named[i].function);
            free((char *)named[i].file);
        }
        free(named);
    }
    *out = (struct call_names){
        .addresses = wanted, .frames = frames, .count = distinct};
    return 0;
}

/* Copies each thread's shadow stack (its outermost frames) and depth. */
static int read_stacks(struct freezing *freezing, uint32_t actor_count,
                       struct tattle__call_frame *saved, uint32_t *depths)
{
    const struct tattle__arena_layout *layout = freezing->layout;
    for (uint32_t i = 0; i < actor_count; i++) {
        struct tattle__call_area *area = tattle__call_area_at(
            freezing->arena, layout->calls_offset, layout->call_area_bytes, i);
        uint32_t depth =
            atomic_load_explicit(&area->depth, memory_order_acquire);
        if (depth >= TATTLE__CALL_DEPTH_LIMIT) {
            freezing->corruption = "a shadow stack deeper than any stack";
            return -EBADMSG;
        }
        depths[i] = depth;
        uint32_t stored =
            depth < TATTLE__CALL_DEPTH_MAX ? depth : TATTLE__CALL_DEPTH_MAX;
        memcpy(&saved[(size_t)i * TATTLE__CALL_DEPTH_MAX], area->stack,
               stored * sizeof *saved);
    }
    return 0;
}

/* Reads the calls and shadow stacks into the trace and `timeline`.
 * Returns 0, -ENOMEM, or -EBADMSG with freezing->corruption set. */
static int freeze_calls(struct trace_storage *storage,
                        struct freezing *freezing, const char **names,
                        uint32_t actor_count, struct call_timeline *timeline)
{
    const struct tattle__arena_layout *layout = freezing->layout;
    struct tattle_trace *trace = &storage->trace;
    size_t room = (size_t)actor_count * layout->call_cap;
    struct call_copy *copies = malloc((room + 1) * sizeof *copies);
    struct tattle__call_frame *saved = malloc(
        ((size_t)actor_count * TATTLE__CALL_DEPTH_MAX + 1) * sizeof *saved);
    uint32_t *depths = calloc(actor_count + 1, sizeof *depths);
    uint64_t *wanted = NULL;
    int error = copies && saved && depths ? 0 : -ENOMEM;
    size_t count = 0;
    uint64_t recorded = 0;
    uint64_t lost = 0;
    for (uint32_t i = 0; error == 0 && i < actor_count; i++) {
        struct tattle__call_area *area = tattle__call_area_at(
            freezing->arena, layout->calls_offset, layout->call_area_bytes, i);
        uint64_t committed = read_call_ring(freezing, area, i, copies, &count);
        if (freezing->corruption)
            error = -EBADMSG;
        recorded = clamp_exact(recorded + committed);
        lost = clamp_exact(lost + clamp_exact(atomic_load_explicit(
                                      &area->lost, memory_order_relaxed)));
    }
    if (error == 0)
        error = read_stacks(freezing, actor_count, saved, depths);
    size_t first = count > layout->call_cap ? count - layout->call_cap : 0;
    size_t kept = count - first;
    size_t stacked = 0;
    for (uint32_t i = 0; error == 0 && i < actor_count; i++)
        stacked += depths[i] < TATTLE__CALL_DEPTH_MAX ? depths[i]
                                                      : TATTLE__CALL_DEPTH_MAX;
    if (error == 0) {
        qsort(copies, count, sizeof *copies, compare_call_copies);
        wanted = malloc((kept + stacked + 1) * sizeof *wanted);
        if (wanted == NULL)
            error = -ENOMEM;
    }
    struct call_names named = {0};
    if (error == 0) {
        size_t n = 0;
        for (size_t i = first; i < count; i++)
            wanted[n++] = copies[i].record.function;
        for (uint32_t a = 0; a < actor_count; a++) {
            uint32_t depth = depths[a] < TATTLE__CALL_DEPTH_MAX
                                 ? depths[a]
                                 : TATTLE__CALL_DEPTH_MAX;
            for (uint32_t d = 0; d < depth; d++)
                wanted[n++] =
                    saved[(size_t)a * TATTLE__CALL_DEPTH_MAX + d].function;
        }
        error = name_calls(storage, freezing, wanted, n, &named);
    }
    struct tattle_trace_call *calls =
        error == 0 ? pool_alloc(storage, (kept + 1) * sizeof *calls) : NULL;
    uint64_t *ticks =
        error == 0 ? pool_alloc(storage, (kept + 1) * sizeof *ticks) : NULL;
    if (error == 0 && (calls == NULL || ticks == NULL))
        error = -ENOMEM;
    uint64_t start = freezing->arena->start_ticks;
    for (size_t i = 0; error == 0 && i < kept; i++) {
        const struct call_copy *copy = &copies[first + i];
        struct tattle_trace_call *call = &calls[i];
        const struct tattle_frame *name =
            call_name(&named, copy->record.function);
        ticks[i] = copy->record.ticks;
        call->t_us = copy->record.ticks > start
                         ? clamp_exact(tattle__clock_ticks_to_ns(
                                           copy->record.ticks - start) /
                                       1000)
                         : 0;
        call->actor = names[copy->actor];
        call->kind = copy->record.kind == TATTLE__CALL_ENTER
                         ? TATTLE_TRACE_CALL_ENTER
                         : TATTLE_TRACE_CALL_EXIT;
        call->function = name ? name->function : NULL;
        call->file = name ? name->file : NULL;
        call->line = name ? name->line : 0;
        call->depth = copy->record.depth;
    }
    struct tattle_trace_stack *stacks =
        error == 0 ? pool_alloc(storage, (actor_count + 1) * sizeof *stacks)
                   : NULL;
    if (error == 0 && stacks == NULL)
        error = -ENOMEM;
    for (uint32_t a = 0; error == 0 && a < actor_count; a++) {
        uint32_t depth = depths[a] < TATTLE__CALL_DEPTH_MAX
                             ? depths[a]
                             : TATTLE__CALL_DEPTH_MAX;
        struct tattle_frame *frames =
            pool_alloc(storage, (depth + 1) * sizeof *frames);
        if (frames == NULL) {
            error = -ENOMEM;
            break;
        }
        for (uint32_t d = 0; d < depth; d++) {
            /* Innermost first, like every other stack in the report. */
            const struct tattle__call_frame *frame =
                &saved[(size_t)a * TATTLE__CALL_DEPTH_MAX + (depth - 1 - d)];
            const struct tattle_frame *name =
                call_name(&named, frame->function);
            frames[d] = name ? *name
                             : (struct tattle_frame){
                                   .address = (uintptr_t)frame->function};
        }
        stacks[a] = (struct tattle_trace_stack){.actor = names[a],
                                                .depth = depths[a],
                                                .frames = frames,
                                                .frame_count = depth};
    }
    if (error == 0) {
        trace->calls = calls;
        trace->call_count = kept;
        trace->calls_recorded = recorded;
        trace->calls_lost = lost;
        trace->stacks = stacks;
        trace->stack_count = actor_count;
        *timeline = (struct call_timeline){.calls = calls,
                                           .ticks = ticks,
                                           .count = kept,
                                           .recorded = recorded};
    }
    free(copies);
    free(saved);
    free(depths);
    free(wanted);
    return error;
}

static int freeze_events(struct trace_storage *storage,
                         struct freezing *freezing, const char **names,
                         uint32_t actor_count,
                         const struct call_timeline *timeline)
{
    struct tattle_trace_arena *arena = freezing->arena;
    const struct tattle__arena_layout *layout = freezing->layout;
    struct tattle_trace *trace = &storage->trace;
    if (actor_count == 0) {
        for (size_t c = 0; c < timeline->count; c++)
            timeline->calls[c].seq =
                timeline->recorded - timeline->count + c + 1;
        return 0;
    }
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
    struct capture_ref *refs = calloc(kept + 1, sizeof *refs);
    if (refs == NULL) {
        free(copies);
        free(buffer);
        return -ENOMEM;
    }
    uint64_t start = arena->start_ticks;
    /* Calls and events share one numbering, in time order: what was
     * dropped of either comes first. */
    uint64_t base = recorded - kept + timeline->recorded - timeline->count;
    size_t call = 0;
    char text[TATTLE__PAYLOAD_MAX * 2 + 8];
    size_t text_size = (size_t)layout->payload_bytes * 2 + 5;
    for (size_t i = 0; i < kept && error == 0; i++) {
        const struct tattle__ring_copy *copy = &copies[first + i];
        const struct tattle__record *record = copy->record;
        struct tattle_trace_event *event = &events[i];
        const char *self = names[copy->ring];
        while (call < timeline->count &&
               timeline->ticks[call] < record->ticks) {
            timeline->calls[call].seq = base + i + call + 1;
            call++;
        }
        event->seq = base + i + call + 1;
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
        if (record->endpoint != 0 && (event->kind == TATTLE_TRACE_SEND ||
                                      event->kind == TATTLE_TRACE_RECV))
            refs[i] = (struct capture_ref){.endpoint = record->endpoint,
                                           .offset = record->offset};
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
    for (; call < timeline->count; call++)
        timeline->calls[call].seq = base + kept + call + 1;
    trace->events = events;
    trace->event_count = kept;
    if (error == 0)
        error = resolve_captures(storage, freezing, events, refs, kept, names,
                                 actor_count);
    free(refs);
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

/* The counters no honest writer takes past their limits. `actor_count` is
 * the one load of the arena's count the whole freeze uses: a writer that
 * survives the test could raise it after the check. */
static const char *check_counters(const struct tattle_trace_arena *arena,
                                  const struct tattle__arena_layout *layout,
                                  uint32_t actor_count)
{
    if (actor_count > TATTLE__MAX_ACTORS)
        return "its actor count is past the table";
    if (atomic_load(&arena->directory_count) > TATTLE__MAX_MAILBOXES)
        return "its mailbox count is past the directory";
    if (atomic_load(&arena->heap_used) > layout->mailbox_size)
        return "its mailbox heap is used past its end";
    if (atomic_load(&arena->budget_reserved) > layout->budget)
        return "more budget was handed out than there is";
    return NULL;
}

int tattle__freeze(struct tattle_trace_arena *arena, int fd,
                   const struct tattle__arena_layout *layout,
                   const struct tattle__snapshot *taken_live,
                   struct tattle_trace **out, const char **corruption)
{
    struct freezing freezing = {.arena = arena, .layout = layout};
    tattle__arena_extents_start(&freezing.extents, fd);

    struct trace_storage *storage = calloc(1, sizeof *storage);
    if (storage == NULL)
        return -ENOMEM;
    struct tattle_trace *trace = &storage->trace;
    trace->cap = layout->cap;
    trace->budget = layout->budget;
    trace->level = layout->level;
    uint32_t actor_count = atomic_load(&arena->actor_count);
    freezing.corruption = tattle__arena_check_header(arena, layout);
    if (!freezing.corruption)
        freezing.corruption = check_counters(arena, layout, actor_count);
    if (freezing.corruption) {
        /* Nothing in it can be told apart from what the test forged. */
        *corruption = freezing.corruption;
        *out = trace;
        return 0;
    }
    /* Events refused for lack of room are lost like those past the budget. */
    trace->overflow =
        atomic_load(&arena->overflow) != 0 || atomic_load(&arena->refused) != 0;

    const char **names = name_actors(storage, arena, actor_count);
    int error = names == NULL ? -ENOMEM : 0;
    trace->calls_traced = layout->call_cap != 0;
    trace->call_cap = layout->call_cap;
    struct call_timeline timeline = {0};
    if (error == 0 && layout->call_cap != 0)
        error = freeze_calls(storage, &freezing, names, actor_count, &timeline);
    if (error == 0)
        error =
            freeze_events(storage, &freezing, names, actor_count, &timeline);
    if (error == -EBADMSG) {
        tattle__trace_free(trace);
        storage = calloc(1, sizeof *storage);
        if (storage == NULL)
            return -ENOMEM;
        storage->trace =
            (struct tattle_trace){.cap = layout->cap,
                                  .budget = layout->budget,
                                  .level = layout->level,
                                  .calls_traced = layout->call_cap != 0,
                                  .call_cap = layout->call_cap};
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
