/*
 * ring.h — one actor's ring of fixed-size event records.
 *
 * Each recording thread owns one ring in the arena and is its only writer,
 * so writing takes no lock and no atomic read-modify-write. A record opens
 * with a commit word: the writer clears it, fills the record, then stores
 * the event's number + 1 with release order. A reader accepts a record only
 * when the commit word is non-zero and unchanged across its copy (a
 * seqlock), so a writer killed mid-record tears at most that record and a
 * torn record is never reported. A ring holds `cap` records: the last `cap`
 * events of the whole test are always still in the rings.
 */
#ifndef TATTLE_TRACER_RING_H
#define TATTLE_TRACER_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tattle/reporter.h>

#include "base/sanitizers.h"

#define TATTLE__RECORD_NAME_BYTES 24

/* The seqlock's fences. The thread sanitizer does not model fences (gcc
 * rejects them under -fsanitize=thread), so its builds use the stronger,
 * slower sequentially consistent operations instead. */

/** Writer: marks a record as being written, ordered before its contents. */
static inline void tattle__ring_open_record(_Atomic uint64_t *commit)
{
#if TATTLE__THREAD_SANITIZER
    atomic_exchange_explicit(commit, 0, memory_order_seq_cst);
#else
    atomic_store_explicit(commit, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
#endif
}

/** Reader: orders the copy of a record before the second commit read. */
static inline uint64_t tattle__ring_recheck(_Atomic uint64_t *commit)
{
#if TATTLE__THREAD_SANITIZER
    return atomic_load_explicit(commit, memory_order_seq_cst);
#else
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(commit, memory_order_relaxed);
#endif
}

/* How a name field of a record is stored (two bits per field). */
enum tattle__name_mode {
    TATTLE__NAME_NONE = 0,   /* not applicable (NULL) */
    TATTLE__NAME_ACTOR = 1,  /* the ring's own actor */
    TATTLE__NAME_INLINE = 2, /* copied, NUL-terminated, bounded */
    TATTLE__NAME_POINTER = 3 /* a string in the program's read-only data */
};

/* The name fields of a record, in the order their modes are packed. */
enum tattle__name_field {
    TATTLE__FIELD_FROM = 0,
    TATTLE__FIELD_TO = 1,
    TATTLE__FIELD_LABEL = 2
};

/* Record flags beyond the name modes. */
enum {
    TATTLE__RECORD_TEXT = 1u << 0, /* payload is rendered text */
};

union tattle__record_name {
    char text[TATTLE__RECORD_NAME_BYTES];
    const char *pointer;
};

struct tattle__record {
    _Atomic uint64_t commit; /* 0 while being written, else number + 1 */
    uint64_t ticks;
    uint64_t size; /* bytes of the message */
    int32_t level;
    uint8_t kind; /* enum tattle_trace_event_kind */
    uint8_t flags;
    uint8_t name_modes; /* from: bits 0-1, to: 2-3, label: 4-5 */
    uint8_t reserved_;
    uint16_t payload_length;
    uint16_t reserved2_;
    uint32_t endpoint; /* captured message: the endpoint's index + 1 */
    uint64_t offset;   /* ... and its offset in the endpoint's stream */
    union tattle__record_name from;
    union tattle__record_name to;
    union tattle__record_name label;
    unsigned char payload[];
};

struct tattle__ring {
    _Atomic uint64_t written; /* events committed (owner writes) */
    uint32_t actor;           /* index in the actors table */
    uint32_t reserved_;
    uint64_t pad_[6]; /* records start on their own cache line */
};

/** The packed name modes of a record (enum tattle__name_mode each). */
static inline uint8_t tattle__record_name_modes(unsigned from, unsigned to,
                                                unsigned label)
{
    return (uint8_t)(from | to << 2 | label << 4);
}

/** The mode of one name field of a record. */
static inline enum tattle__name_mode
tattle__record_name_mode(const struct tattle__record *record,
                         enum tattle__name_field field)
{
    return (enum tattle__name_mode)((record->name_modes >> (2 * field)) & 3u);
}

/** One name field of a record. */
static inline const union tattle__record_name *
tattle__record_name_field(const struct tattle__record *record,
                          enum tattle__name_field field)
{
    return field == TATTLE__FIELD_FROM ? &record->from
           : field == TATTLE__FIELD_TO ? &record->to
                                       : &record->label;
}

/** Bytes per record for a payload size. */
static inline size_t tattle__ring_record_size(uint32_t payload_bytes)
{
    return (sizeof(struct tattle__record) + payload_bytes + 7) & ~(size_t)7;
}

static inline struct tattle__record *
tattle__ring_record(struct tattle__ring *ring, uint32_t record_size,
                    uint64_t index)
{
    return (struct tattle__record *)((char *)(ring + 1) +
                                     (size_t)index * record_size);
}

/** A record copied out of a ring by a reader, whole by construction. */
struct tattle__ring_copy {
    uint64_t number;               /* the event's number in its ring, from 0 */
    uint32_t ring;                 /* which ring (for a stable order) */
    struct tattle__record *record; /* a private copy (record_size bytes) */
};

/** Whether the memory at `address` may hold something written: false
 * when it is known to read as zeros, so the reader need not touch it. */
typedef bool (*tattle__ring_written_fn)(void *context, const void *address);

/** Reader: copies the whole records of a ring into `copies` (room for
 * `cap`), with storage `buffer` (cap * record_size bytes). Torn and
 * in-progress records are skipped, and so, untouched, are those whose
 * commit word `written` (when not NULL) says reads as zero. Returns the
 * number copied and sets *committed to the events the ring committed in
 * all. */
size_t tattle__ring_read(struct tattle__ring *ring, uint32_t ring_index,
                         uint32_t cap, uint32_t record_size,
                         struct tattle__ring_copy *copies, void *buffer,
                         uint64_t *committed, tattle__ring_written_fn written,
                         void *written_context);

#endif /* TATTLE_TRACER_RING_H */
