/*
 * mailbox.h — the shared layout of a mailbox, for the snapshot reader.
 *
 * A mailbox is a bounded queue of fixed-size slots in shared memory (the
 * trace arena in a traced test, a shared anonymous mapping otherwise),
 * guarded by a process-shared robust mutex; waiting uses two futex words
 * rather than condition variables, so a waiter killed mid-wait (a crashed
 * forked worker) cannot wedge the others.
 * The runner reads it without the lock at the end of the test (its users
 * may be dead or stuck), which is why `busy` and `recovered` exist: they
 * tell the reader the queue may have been caught mid-change.
 */
#ifndef TATTLE_TRACER_MAILBOX_H
#define TATTLE_TRACER_MAILBOX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <tattle/trace.h>

#include "tracer/arena.h"

#define TATTLE__MAILBOX_MAGIC 0x6d626f78u /* "mbox" */
#define TATTLE__MAILBOX_CAPACITY_MAX 4096

struct tattle__mailbox_slot {
    uint32_t length;      /* message bytes */
    uint32_t text_length; /* rendered text bytes; 0: render the data */
    char label[TATTLE_MAILBOX_LABEL_MAX];
    char text[TATTLE__PAYLOAD_MAX];
    unsigned char data[TATTLE_MAILBOX_MESSAGE_MAX];
};

struct tattle_mailbox {
    uint32_t magic;
    _Atomic uint32_t closed;
    uint32_t capacity;
    int32_t owner; /* actor index in the arena, or -1 */
    int32_t owner_pid;
    uint32_t in_arena;
    uint64_t mapping_size; /* outside an arena: bytes mapped */
    char name[TATTLE__NAME_MAX];
    pthread_mutex_t lock;
    _Atomic uint32_t not_empty; /* futex words: bumped on each change */
    _Atomic uint32_t not_full;
    _Atomic uint32_t waiters;    /* callers waiting (may overcount) */
    _Atomic uint64_t head;       /* next message to take */
    _Atomic uint64_t tail;       /* next free slot */
    _Atomic uint32_t busy;       /* a sender or receiver is mid-change */
    _Atomic uint32_t recovered;  /* the lock was taken from a dead owner */
    _Atomic int32_t last_sender; /* actor indexes, or -1 */
    _Atomic int32_t last_receiver;
    tattle_mailbox_formatter formatter;
    struct tattle__mailbox_slot slots[];
};

/** Test process, at the end of the test (not from a signal handler): runs
 * the tattle_mailbox_watch callbacks of this process into the arena. */
void tattle__mailbox_run_watches(struct tattle_trace_arena *arena);

#endif /* TATTLE_TRACER_MAILBOX_H */
