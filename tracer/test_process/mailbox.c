/*
 * mailbox.c — traced mailboxes and watched user queues.
 *
 * A mailbox is a bounded queue shared by the test's threads and forked
 * children (see mailbox.h for its layout). Sends and receives are recorded
 * in the trace by the mailbox itself, under its lock so a receive is never
 * stamped before its send. A formatter, when set, renders each message as
 * it is sent, in the sender, so the text survives any crash and the runner
 * never calls user code. Waiting is a futex on a change counter, bounded
 * by CLOCK_MONOTONIC deadlines.
 *
 * Closing marks the mailbox closed and wakes every waiter; blocked and
 * later callers get -EPIPE. A mailbox is therefore never unmapped while
 * the process lives, since a caller may still be inside it or call it
 * later: a traced mailbox lives in the arena anyway; an untraced one keeps
 * its mapping until the process ends, but close gives the memory of its
 * slots back (MADV_REMOVE), so only its first page stays. In a traced test
 * a mailbox that finds no room (TATTLE_TRACE_MAX_MAILBOXES are open, or the
 * arena's mailbox heap is full) is refused with ENOSPC: it never leaves
 * the trace silently.
 *
 * tattle_mailbox_watch() lets a user-owned queue join the snapshot: its
 * callback runs in the test process when the test ends and writes the
 * queue's pending messages, as text, into the arena.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/child_path.h"
#include "tracer/clock.h"
#include "tracer/mailbox.h"
#include "tracer/test_process/recorder.h"

/* Copies at most size - 1 bytes, never cutting a UTF-8 character. */
static void copy_bounded(char *destination, size_t size, const char *source)
{
    size_t i = 0;
    if (source != NULL) {
        for (; i + 1 < size && source[i] != '\0'; i++)
            destination[i] = source[i];
        if (source[i] != '\0')
            i = tattle__utf8_cut_length(destination, i);
    }
    destination[i] = '\0';
}

/* Carves `bytes` (rounded up to 64) from the arena's mailbox heap;
 * async-signal-safe and lock-free. Returns the offset from the base, or 0
 * when it does not fit (then nothing is consumed: a smaller request may
 * still fit). */
static uint64_t arena_alloc(struct tattle_trace_arena *arena, uint64_t bytes)
{
    uint64_t size = arena->mailbox_size;
    if (bytes == 0 || bytes > size)
        return 0;
    bytes = (bytes + 63) / 64 * 64;
    uint64_t used =
        atomic_load_explicit(&arena->heap_used, memory_order_relaxed);
    do {
        /* A request that does not fit consumes nothing. */
        if (used > size || size - used < bytes)
            return 0;
    } while (!atomic_compare_exchange_weak_explicit(
        &arena->heap_used, &used, used + bytes, memory_order_relaxed,
        memory_order_relaxed));
    return arena->mailbox_offset + used;
}

/* ---- Locking and waiting ------------------------------------------------- */

static int lock_mailbox(tattle_mailbox *mailbox)
{
    int error = pthread_mutex_lock(&mailbox->lock);
    if (error == EOWNERDEAD) {
        /* A holder died: head and tail only move once a change is
         * complete, so the queue itself is consistent; the slot it was
         * writing may not be, which the snapshot reports as approximate. */
        atomic_store(&mailbox->recovered, 1);
        atomic_store(&mailbox->busy, 0);
        pthread_mutex_consistent(&mailbox->lock);
        return 0;
    }
    return -error;
}

static void wake(tattle_mailbox *mailbox, _Atomic uint32_t *word)
{
    atomic_fetch_add(word, 1);
    if (atomic_load(&mailbox->waiters) != 0)
        syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL,
                0);
}

/* Waits (lock released) until `word` changes or the deadline passes
 * (deadline 0: forever). Returns with the lock held: 0, -ETIMEDOUT, or a
 * negative code when the lock could not be taken back. */
static int wait_for_change(tattle_mailbox *mailbox, _Atomic uint32_t *word,
                           uint64_t deadline_ns)
{
    uint32_t seen = atomic_load(word);
    struct timespec relative, *timeout = NULL;
    if (deadline_ns != 0) {
        uint64_t now = tattle__clock_monotonic_ns();
        if (now >= deadline_ns)
            return -ETIMEDOUT;
        uint64_t left = deadline_ns - now;
        relative.tv_sec = (time_t)(left / 1000000000u);
        relative.tv_nsec = (long)(left % 1000000000u);
        timeout = &relative;
    }
    atomic_fetch_add(&mailbox->waiters, 1);
    pthread_mutex_unlock(&mailbox->lock);
    long result = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen,
                          timeout, NULL, 0);
    int wait_error = result == 0 ? 0 : errno;
    int error = lock_mailbox(mailbox);
    atomic_fetch_sub(&mailbox->waiters, 1);
    if (error != 0)
        return error;
    return wait_error == ETIMEDOUT ? -ETIMEDOUT : 0;
}

/* ---- Opening and closing ---------------------------------------------------
 */

static size_t mailbox_bytes(size_t capacity)
{
    return sizeof(struct tattle_mailbox) +
           capacity * sizeof(struct tattle__mailbox_slot);
}

/* Opens a mailbox into `*out`: 0 or a negative errno-style code. */
static int open_mailbox(tattle_mailbox **out, const char *name, size_t capacity)
{
    *out = NULL;
    if (capacity == 0 || capacity > TATTLE__MAILBOX_CAPACITY_MAX)
        return -EINVAL;
    size_t bytes = mailbox_bytes(capacity);
    struct tattle_trace_arena *arena = tattle_trace_current;
    tattle_mailbox *mailbox = NULL;
    uint32_t directory_index = UINT32_MAX;
    if (arena != NULL) {
        /* Claim a directory entry, then the storage; give the entry back
         * when the storage does not fit (if nobody took a later one). */
        directory_index = atomic_load(&arena->directory_count);
        do {
            if (directory_index >= TATTLE__MAX_MAILBOXES)
                return -ENOSPC;
        } while (!atomic_compare_exchange_weak(
            &arena->directory_count, &directory_index, directory_index + 1));
        uint64_t offset = arena_alloc(arena, bytes);
        if (offset == 0) {
            uint32_t expected = directory_index + 1;
            atomic_compare_exchange_strong(&arena->directory_count, &expected,
                                           directory_index);
            return -ENOSPC;
        }
        mailbox = tattle__arena_at(arena, offset);
        mailbox->in_arena = 1;
        arena->directory_offset[directory_index] = offset;
    } else {
        void *mapping = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (mapping == MAP_FAILED)
            return -errno;
        mailbox = mapping;
        mailbox->mapping_size = bytes;
    }

    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
    int error = pthread_mutex_init(&mailbox->lock, &attributes);
    pthread_mutexattr_destroy(&attributes);
    if (error != 0) {
        if (!mailbox->in_arena)
            munmap(mailbox, bytes);
        return -error;
    }
    mailbox->capacity = (uint32_t)capacity;
    copy_bounded(mailbox->name, sizeof mailbox->name, name ? name : "mailbox");
    mailbox->owner = tattle__recorder_actor();
    mailbox->owner_pid = getpid();
    atomic_store(&mailbox->last_sender, -1);
    atomic_store(&mailbox->last_receiver, -1);
    mailbox->magic = TATTLE__MAILBOX_MAGIC;
    if (directory_index < TATTLE__MAX_MAILBOXES)
        atomic_store_explicit(&arena->directory_kind[directory_index],
                              TATTLE__DIRECTORY_MAILBOX, memory_order_release);
    *out = mailbox;
    return 0;
}

tattle_mailbox *tattle_mailbox_open(const char *name, size_t capacity)
{
    tattle_mailbox *mailbox;
    int error = open_mailbox(&mailbox, name, capacity);
    if (error != 0)
        errno = -error;
    return mailbox;
}

void tattle_mailbox_close(tattle_mailbox *mailbox)
{
    if (mailbox == NULL)
        return;
    atomic_store(&mailbox->closed, 1);
    if (lock_mailbox(mailbox) == 0) {
        wake(mailbox, &mailbox->not_empty);
        wake(mailbox, &mailbox->not_full);
        pthread_mutex_unlock(&mailbox->lock);
    }
    if (!mailbox->in_arena) {
        /* Keep the mapping (callers may still come: they find it closed)
         * but give back the slots' pages, which nobody reads any more. */
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t start = (uintptr_t)mailbox->slots;
        uintptr_t end = (uintptr_t)mailbox + mailbox->mapping_size;
        if (page > 0) {
            start = (start + (uintptr_t)page - 1) / (uintptr_t)page *
                    (uintptr_t)page;
            end = end / (uintptr_t)page * (uintptr_t)page;
            if (end > start)
                madvise((void *)start, end - start, MADV_REMOVE);
        }
    }
}

void tattle_mailbox_set_formatter(tattle_mailbox *mailbox,
                                  tattle_mailbox_formatter fn)
{
    if (mailbox != NULL)
        mailbox->formatter = fn;
}

/* ---- Sending and receiving ----------------------------------------------- */

static uint64_t deadline_after(int timeout_ms)
{
    if (timeout_ms < 0)
        return 0;
    return tattle__clock_monotonic_ns() + (uint64_t)timeout_ms * 1000000u;
}

int tattle_mailbox_send(tattle_mailbox *mailbox, const char *label,
                        const void *msg, size_t len)
{
    if (mailbox == NULL || (msg == NULL && len != 0))
        return -EINVAL;
    if (len > TATTLE_MAILBOX_MESSAGE_MAX)
        return -EMSGSIZE;
    char text[TATTLE__PAYLOAD_MAX];
    size_t text_length = 0;
    tattle_mailbox_formatter formatter = mailbox->formatter;
    if (formatter != NULL) {
        text[0] = '\0';
        text_length = formatter(label, msg, len, text, sizeof text);
        if (text_length >= sizeof text)
            text_length = sizeof text - 1;
        text[text_length] = '\0';
        text_length = strlen(text);
    }

    int error = lock_mailbox(mailbox);
    if (error != 0)
        return error;
    while (!atomic_load(&mailbox->closed) &&
           atomic_load(&mailbox->tail) - atomic_load(&mailbox->head) >=
               mailbox->capacity) {
        error = wait_for_change(mailbox, &mailbox->not_full, 0);
        if (error != 0 && error != -ETIMEDOUT)
            return error;
    }
    if (atomic_load(&mailbox->closed)) {
        pthread_mutex_unlock(&mailbox->lock);
        return -EPIPE;
    }
    atomic_store(&mailbox->busy, 1);
    uint64_t tail = atomic_load(&mailbox->tail);
    struct tattle__mailbox_slot *slot =
        &mailbox->slots[tail % mailbox->capacity];
    slot->length = (uint32_t)len;
    slot->text_length = (uint32_t)text_length;
    copy_bounded(slot->label, sizeof slot->label, label);
    if (len != 0)
        memcpy(slot->data, msg, len);
    if (text_length != 0)
        memcpy(slot->text, text, text_length);
    tattle__recorder_record(&(struct tattle__event){
        .kind = TATTLE_TRACE_SEND,
        .from = TATTLE__SELF,
        .to = TATTLE__NAMED(mailbox->name),
        .label = slot->label,
        .payload = text_length ? (const void *)text : msg,
        .payload_length = text_length ? text_length : len,
        .size = len,
        .text = text_length != 0});
    atomic_store(&mailbox->last_sender, tattle__recorder_actor());
    atomic_store(&mailbox->tail, tail + 1);
    atomic_store(&mailbox->busy, 0);
    wake(mailbox, &mailbox->not_empty);
    pthread_mutex_unlock(&mailbox->lock);
    return 0;
}

int tattle_mailbox_recv(tattle_mailbox *mailbox, char *label_buf,
                        size_t label_len, void *msg_buf, size_t msg_len,
                        int timeout_ms)
{
    if (mailbox == NULL || (msg_buf == NULL && msg_len != 0))
        return -EINVAL;
    uint64_t deadline = deadline_after(timeout_ms);
    int error = lock_mailbox(mailbox);
    if (error != 0)
        return error;
    while (!atomic_load(&mailbox->closed) &&
           atomic_load(&mailbox->tail) == atomic_load(&mailbox->head)) {
        if (timeout_ms == 0)
            error = -ETIMEDOUT;
        else
            error = wait_for_change(mailbox, &mailbox->not_empty, deadline);
        if (error == -ETIMEDOUT &&
            atomic_load(&mailbox->tail) == atomic_load(&mailbox->head)) {
            pthread_mutex_unlock(&mailbox->lock);
            return -ETIMEDOUT;
        }
        if (error != 0 && error != -ETIMEDOUT)
            return error;
    }
    if (atomic_load(&mailbox->closed)) {
        pthread_mutex_unlock(&mailbox->lock);
        return -EPIPE;
    }
    atomic_store(&mailbox->busy, 1);
    uint64_t head = atomic_load(&mailbox->head);
    struct tattle__mailbox_slot *slot =
        &mailbox->slots[head % mailbox->capacity];
    uint32_t length = slot->length;
    if (label_buf != NULL && label_len != 0)
        copy_bounded(label_buf, label_len, slot->label);
    if (msg_len != 0)
        memcpy(msg_buf, slot->data, length < msg_len ? length : msg_len);
    tattle__recorder_record(&(struct tattle__event){
        .kind = TATTLE_TRACE_RECV,
        .from = TATTLE__NAMED(mailbox->name),
        .to = TATTLE__SELF,
        .label = slot->label,
        .payload = slot->text_length ? (const void *)slot->text
                                     : (const void *)slot->data,
        .payload_length = slot->text_length ? slot->text_length : length,
        .size = length,
        .text = slot->text_length != 0});
    atomic_store(&mailbox->last_receiver, tattle__recorder_actor());
    atomic_store(&mailbox->head, head + 1);
    atomic_store(&mailbox->busy, 0);
    wake(mailbox, &mailbox->not_full);
    pthread_mutex_unlock(&mailbox->lock);
    return (int)length; /* at most TATTLE_MAILBOX_MESSAGE_MAX */
}

/* ---- Watched user queues ---------------------------------------------------
 */

enum { MAX_LOCAL_WATCHES = TATTLE__MAX_WATCHES };

static struct {
    struct tattle_trace_arena *arena;
    char name[TATTLE__NAME_MAX];
    tattle_snapshot_fn fn;
    void *ctx;
    int32_t owner;
} watches[MAX_LOCAL_WATCHES];
static size_t watch_count;

int tattle_mailbox_watch(const char *name, tattle_snapshot_fn fn, void *ctx)
{
    if (fn == NULL)
        return -EINVAL;
    struct tattle_trace_arena *arena = tattle_trace_current;
    if (arena == NULL)
        return 0; /* not traced: nothing will be snapshotted */
    size_t kept = 0;
    for (size_t i = 0; i < watch_count; i++)
        if (watches[i].arena == arena)
            watches[kept++] = watches[i];
    watch_count = kept;
    if (watch_count == MAX_LOCAL_WATCHES)
        return -ENOSPC;
    watches[watch_count].arena = arena;
    copy_bounded(watches[watch_count].name, TATTLE__NAME_MAX,
                 name ? name : "queue");
    watches[watch_count].fn = fn;
    watches[watch_count].ctx = ctx;
    watches[watch_count].owner = tattle__recorder_actor();
    watch_count++;
    return 0;
}

struct emit_context {
    struct tattle__watch_record *record;
    uint32_t limit; /* bytes of each text kept */
};

static void emit_text(void *emit_ctx, const char *text)
{
    struct emit_context *context = emit_ctx;
    struct tattle__watch_record *record = context->record;
    record->pending++;
    if (text == NULL)
        text = "";
    size_t length = strnlen(text, context->limit);
    if (record->used + length + 1 > sizeof record->text)
        return;
    memcpy(record->text + record->used, text, length);
    record->text[record->used + length] = '\0';
    record->used += (uint32_t)length + 1;
    record->kept++;
}

TATTLE__CHILD_PATH void
tattle__mailbox_run_watches(struct tattle_trace_arena *arena)
{
    for (size_t i = 0; i < watch_count; i++) {
        if (watches[i].arena != arena)
            continue;
        uint32_t index = atomic_fetch_add(&arena->watch_count, 1);
        if (index >= TATTLE__MAX_WATCHES)
            return;
        struct tattle__watch_record *record = &arena->watches[index];
        copy_bounded(record->name, sizeof record->name, watches[i].name);
        record->owner = watches[i].owner;
        struct emit_context context = {record, arena->payload_bytes};
        watches[i].fn(watches[i].ctx, emit_text, &context);
    }
    /* Written only when it changes: in a forked test process the store
     * would copy a data page for nothing. */
    if (watch_count != 0)
        watch_count = 0;
}
