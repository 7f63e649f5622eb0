/*
 * arena.h — the layout of a traced test's shared-memory arena.
 *
 * The runner creates one arena per traced test before forking it: a memfd
 * (never a name in /dev/shm), sized sparsely and mapped shared, so the
 * test process, its threads and its forked children all write into the
 * same pages and the runner can read them after any of them died. The
 * arena starts with a header (configuration, switches, counters), then the
 * actors table (one entry per recording thread or process), the mailbox
 * directory, and the heap. The heap's first part holds one ring per actor
 * entry, at a fixed place (actor i's ring is the i-th), so an actor that
 * got an entry always has a ring; the rest is the mailbox heap, from which
 * mailbox storage is carved with an atomic bump pointer that never moves
 * past its end (a refused request consumes nothing): no lock, no malloc,
 * nothing to clean up. Whatever does not fit (the 129th actor, the 65th
 * mailbox, a mailbox larger than what is left) is refused, never silently
 * lost: refused events are counted and make the trace's `overflow` true.
 *
 * A test tagged `trace_calls` has one more region after the mailbox heap:
 * one call area per actor entry (actor i's is the i-th, like its ring),
 * written only by that actor's thread from the hooks that
 * -finstrument-functions calls (tracer/test_process/recorder.c). A call
 * area holds the thread's shadow stack (the function and call site of the
 * outermost TATTLE__CALL_DEPTH_MAX calls it is inside, and its true depth,
 * which deeper calls still count) and a ring of its last `call_cap` enter
 * and exit records, committed with the same seqlock as the message rings
 * (tracer/calls.h). Neither takes a lock, an atomic read-modify-write or
 * a malloc. Records carry ticks from the same clock as the messages, and
 * the freeze numbers calls and messages in one `seq` by time, so one
 * timeline interleaves them. Addresses are kept as the test process saw
 * them: it was forked from the runner without exec, so its code lies at
 * the runner's addresses; the header keeps where the test process saw the
 * call hook, and the runner names functions only when that is where it
 * sees the hook too.
 */
#ifndef TATTLE_TRACER_ARENA_H
#define TATTLE_TRACER_ARENA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tattle/trace.h>

#define TATTLE__ARENA_MAGIC 0x74746c61u /* "ttla" */
#define TATTLE__NAME_MAX 32             /* actor and mailbox names, with NUL */

enum {
    TATTLE__MAX_ACTORS = TATTLE_TRACE_MAX_ACTORS,
    TATTLE__MAX_MAILBOXES = TATTLE_TRACE_MAX_MAILBOXES,
    TATTLE__MAX_WATCHES = TATTLE_TRACE_MAX_WATCHES,
    TATTLE__WATCH_TEXT_BYTES = 4096,
    TATTLE__PAYLOAD_MAX = 256, /* payload_bytes is clamped to this */
    TATTLE__MAILBOX_HEAP_BYTES = TATTLE_TRACE_MAILBOX_HEAP_BYTES,
    TATTLE__MAX_ENDPOINTS = 256,
    TATTLE__ENDPOINT_NAME_BYTES = 64
};

/* What kind of kernel object a captured endpoint is (0: a free entry). */
enum tattle__endpoint_kind {
    TATTLE__ENDPOINT_PIPE = 1,    /* a pipe or FIFO: one direction */
    TATTLE__ENDPOINT_STREAM = 2,  /* one socket of a byte stream */
    TATTLE__ENDPOINT_DGRAM = 3,   /* one socket of datagrams or packets */
    TATTLE__ENDPOINT_EVENTFD = 4, /* an eventfd: each write a message */
    TATTLE__ENDPOINT_QUEUE = 5,   /* a POSIX message queue (mq_open) */
    TATTLE__ENDPOINT_KIND_LAST = TATTLE__ENDPOINT_QUEUE
};

/* One kernel object the test's processes exchanged bytes through (message
 * capture, tracer/test_process/ipc.c). Entries are claimed in order with a
 * compare-and-swap on `key` (the object's identity: device and inode, or
 * the eventfd's id), so every process that finds the same object finds
 * the same entry. A pipe carries one direction; each socket of a pair or
 * connection has its own entry, and `peer` names the other one when it is
 * known. `sent` and `received` count the bytes (messages, for datagrams,
 * eventfds and queues) written into and read out of the object: the writer's
 * and the reader's offsets that match a receive to its send. */
struct tattle__endpoint {
    _Atomic uint64_t key;
    _Atomic uint32_t kind;   /* enum tattle__endpoint_kind once filled */
    _Atomic uint32_t peer;   /* the peer socket's index + 1, or 0 */
    _Atomic uint32_t writer; /* first actor seen sending into it, + 1 */
    _Atomic uint32_t reader; /* first actor seen receiving from it, + 1 */
    uint32_t semaphore; /* an EFD_SEMAPHORE eventfd: a read takes one unit */
    uint32_t reserved_;
    _Atomic uint64_t sent;
    _Atomic uint64_t received;
    uint64_t id;                            /* the inode, or the eventfd's id */
    char name[TATTLE__ENDPOINT_NAME_BYTES]; /* a socket's peer, `mq:/NAME` */
    char local[TATTLE__ENDPOINT_NAME_BYTES]; /* ... and its own */
    /* What the kernel still held at the end, peeked without consuming it
     * by a process holding a descriptor of the object (the test process
     * at its end or in its crash handler: tattle__ipc_peek_pending; or
     * the runner on the test's halted processes before it kills them:
     * tattle__trace_session_peek_processes). Untrusted like the rest:
     * the freeze checks `peek_length` against the payload bound. */
    _Atomic uint32_t peeked;  /* TATTLE__PEEKED once a holder peeked */
    uint32_t peek_length;     /* bytes of `peek` filled */
    uint64_t kernel_bytes;    /* bytes waiting (a datagram socket: the
                               * first datagram's; an eventfd: 8 if its
                               * counter is not 0; a queue: not known) */
    uint64_t kernel_messages; /* a queue's messages, an eventfd's counter */
    unsigned char peek[TATTLE__PAYLOAD_MAX]; /* the first bytes waiting */
};

/* An endpoint entry's `peeked`, and the arena's `peek_taken`: who peeked. */
enum tattle__peek_taker {
    TATTLE__PEEK_NONE = 0,
    TATTLE__PEEK_TEST = 1,  /* the test process, at its end or crash */
    TATTLE__PEEK_RUNNER = 2 /* the runner, before it kills the processes */
};

/* How a test process ended, as far as the tracer knows. */
enum tattle__finish {
    TATTLE__FINISH_NONE = 0,   /* never reported: killed or timed out */
    TATTLE__FINISH_NORMAL = 1, /* child_finish from normal code */
    TATTLE__FINISH_SIGNAL = 2  /* child_finish from the crash handler */
};

/* Actor flags. */
enum {
    TATTLE__ACTOR_FORKED = 1u << 0, /* first thread of a forked child */
    TATTLE__ACTOR_EXITED = 1u << 1, /* the thread or process ended */
    TATTLE__ACTOR_PROBED = 1u << 2, /* liveness probed at the test end */
    TATTLE__ACTOR_ALIVE = 1u << 3,  /* ... and found alive */
    TATTLE__ACTOR_KILLED = 1u << 4  /* its death by a signal was recorded */
};

/* One recording thread (or the first thread of a forked process). */
struct tattle__actor {
    _Atomic uint32_t flags;
    int32_t pid;
    int32_t tid;
    int32_t parent;              /* forking actor's index, or -1 */
    uint64_t ring_offset;        /* from the arena base; 0 when none */
    char name[TATTLE__NAME_MAX]; /* empty: a default is made at freeze */
};

/* One mailbox directory entry: a traced mailbox or a watched queue. */
enum {
    TATTLE__DIRECTORY_FREE = 0,
    TATTLE__DIRECTORY_MAILBOX = 1,
    TATTLE__DIRECTORY_WATCH = 2
};

struct tattle__watch_record {
    char name[TATTLE__NAME_MAX];
    int32_t owner;    /* actor index, or -1 */
    uint32_t pending; /* texts emitted (may exceed those kept) */
    uint32_t kept;    /* NUL-terminated texts stored in text */
    uint32_t used;    /* bytes of text used */
    char text[TATTLE__WATCH_TEXT_BYTES];
};

struct tattle_trace_arena {
    uint32_t magic;
    uint32_t version;
    uint64_t size; /* bytes mapped */
    /* configuration, fixed before fork */
    uint32_t cap;
    uint32_t budget;
    int32_t level;
    uint32_t payload_bytes;
    uint32_t record_size;    /* bytes per ring record */
    uint32_t ring_bytes;     /* bytes per ring (header + cap records) */
    uint64_t heap_offset;    /* where the heap (the rings) starts */
    uint64_t heap_size;      /* rings and mailbox heap */
    uint64_t mailbox_offset; /* where the mailbox heap starts */
    uint64_t mailbox_size;
    uint32_t generation;      /* the session's id: never 0 */
    uint32_t ipc;             /* messages through the kernel are captured */
    uint32_t call_cap;        /* call records per actor; 0: calls not traced */
    uint32_t call_area_bytes; /* bytes per actor's call area */
    uint64_t calls_offset;    /* where the call areas start */
    uint64_t hook_address;    /* the call hook, as the test process saw it */
    /* switches and counters shared by all writers */
    _Atomic uint32_t active;   /* the generation while recording, else 0 */
    _Atomic uint32_t overflow; /* budget exhausted: an event was refused */
    _Atomic uint32_t finish;   /* enum tattle__finish */
    /* enum tattle__peek_taker: a live peek of every endpoint the test
     * process held (tattle__ipc_peek_pending), or the processes the runner
     * found alive held, ran to its end */
    _Atomic uint32_t peek_taken;
    /* How many endpoint entries were claimed: counted by each claimer
     * before it publishes its entry's kind, on the header's first page
     * (every test writes it), so a peek of a test that captured no
     * endpoint reads no page of the table. The test's to forge: a peek
     * reads at most TATTLE__MAX_ENDPOINTS entries whatever it says. */
    _Atomic uint32_t endpoints_claimed;
    int32_t test_pid;     /* the activating process */
    uint64_t start_ticks; /* at activation */
    /* Written while recording (budget_reserved by every writer, once per
     * quota): on a cache line of their own, away from `active`, which
     * every event reads. */
    _Alignas(64) _Atomic uint64_t budget_reserved; /* handed out to writers */
    _Atomic uint64_t refused;   /* events lost for lack of room, or recorded
                                 * by a signal handler mid-record */
    _Atomic uint64_t heap_used; /* bytes of the mailbox heap carved */
    _Atomic uint32_t actor_count;
    _Atomic uint32_t live_actors; /* attached and not known to have ended */
    _Atomic uint32_t directory_count;
    _Atomic uint32_t watch_count;
    struct tattle__actor actors[TATTLE__MAX_ACTORS];
    _Atomic uint32_t directory_kind[TATTLE__MAX_MAILBOXES];
    uint64_t directory_offset[TATTLE__MAX_MAILBOXES];
    struct tattle__watch_record watches[TATTLE__MAX_WATCHES];
    struct tattle__endpoint endpoints[TATTLE__MAX_ENDPOINTS];
};

/** Where everything of an arena lies, computed from its configuration.
 * The runner keeps this in its own memory and reads the arena through it:
 * the copy in the arena's header is written before the test starts and
 * only ever compared against this one, never trusted. */
struct tattle__arena_layout {
    uint32_t cap;
    uint32_t budget;
    int32_t level;
    uint32_t payload_bytes;
    uint32_t record_size;
    uint64_t ring_bytes;
    uint64_t heap_offset; /* the rings, then the mailbox heap */
    uint64_t heap_size;
    uint64_t mailbox_offset;
    uint64_t mailbox_size;
    uint64_t calls_offset;    /* the call areas, after the mailbox heap */
    uint64_t call_area_bytes; /* 0 when calls are not traced */
    uint32_t call_cap;        /* call records per actor, 0: none */
    uint64_t size;            /* bytes mapped */
    bool ipc; /* capture messages through the kernel (set after plan) */
};

/** Computes the layout of a configuration (payload_bytes is clamped to
 * TATTLE__PAYLOAD_MAX, a zero cap counts as 1). Returns 0, or -EINVAL when
 * a ring would not fit the arena's offsets. */
int tattle__arena_plan(struct tattle__arena_layout *layout, uint32_t cap,
                       uint32_t budget, int level, uint32_t payload_bytes);

/** Adds one call area per actor (shadow stack and a ring of `call_cap`
 * call records) to a planned layout; a zero call_cap adds nothing.
 * Returns 0, or -EINVAL when an area would not fit the arena's offsets. */
int tattle__arena_plan_calls(struct tattle__arena_layout *layout,
                             uint32_t call_cap);

/** Creates an arena (a memfd, mapped shared) with `layout` and writes its
 * header. On success *out is the mapping and *fd the memfd (close-on-exec;
 * the caller closes it with tattle__arena_destroy). Returns 0 or a
 * negative errno. */
int tattle__arena_create(struct tattle_trace_arena **out, int *fd,
                         const struct tattle__arena_layout *layout);

/** Makes a used arena as new for another session with `layout` (of the
 * same size): every page the last session wrote is given back to the
 * kernel (a hole punched through the file: what the kernel knows was
 * written, not what the arena's counters say) but the first page of the
 * header and of the first ring, which every test writes, zeroed whole
 * where the kernel holds them; then the header is written again. Returns
 * 0 or a negative errno. */
int tattle__arena_reset(struct tattle_trace_arena *arena, int fd,
                        const struct tattle__arena_layout *layout);

/** Compares the header's configuration with the runner's layout. Returns
 * NULL when they agree, or what differs. */
const char *
tattle__arena_check_header(const struct tattle_trace_arena *arena,
                           const struct tattle__arena_layout *layout);

/** Where the kernel holds data of an arena's memfd, found with
 * lseek(SEEK_DATA/SEEK_HOLE) and remembered extent by extent. A page the
 * test never wrote (or that a reset gave back) is a hole: it reads as
 * zeros, and reading it through the mapping would make the kernel
 * allocate it, a page fault in the runner and a page to free again at the
 * next reset. The answer is the kernel's, never the arena's counters. */
struct tattle__arena_extents {
    int fd;              /* -1: every byte counts as data */
    uint64_t hole_start; /* [hole_start, data_start) is a hole */
    uint64_t data_start; /* [data_start, data_end) holds data */
    uint64_t data_end;
};

/** Starts a walk of the extents of the memfd `fd` (-1: none known). */
void tattle__arena_extents_start(struct tattle__arena_extents *extents, int fd);

/** Whether the page at `offset` in the memfd may hold data (true too when
 * the kernel cannot tell). Cheapest when asked in increasing order. */
bool tattle__arena_holds_data(struct tattle__arena_extents *extents,
                              uint64_t offset);

/** Unmaps an arena and closes its memfd (`fd` may be -1). */
void tattle__arena_destroy(struct tattle_trace_arena *arena, int fd,
                           const struct tattle__arena_layout *layout);

/** The offset of actor `index`'s ring (each actor entry owns one), in the
 * test process (which trusts its own header). */
static inline uint64_t
tattle__arena_ring_offset(const struct tattle_trace_arena *arena,
                          uint32_t index)
{
    return arena->heap_offset + (uint64_t)index * arena->ring_bytes;
}

/** Translates an offset into a pointer inside the arena. */
static inline void *tattle__arena_at(struct tattle_trace_arena *arena,
                                     uint64_t offset)
{
    return (char *)arena + offset;
}

#endif /* TATTLE_TRACER_ARENA_H */
