/*
 * snapshot.c — the mailbox snapshot and the actors' liveness.
 *
 * The snapshot copies each open mailbox's pending messages out of the
 * arena without taking its lock: the lock may belong to a dead process or
 * to one stuck in a deadlock the test is timing out on. A queue caught
 * mid-change (`busy`), recovered from a dead lock holder, read while the
 * test was alive, or last used by a process that did not end cleanly is
 * marked approximate. Watched user queues were written into the arena by
 * the test process itself at its end and are read back here.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/child_path.h"
#include "base/utf8.h"
#include "tracer/mailbox.h"
#include "tracer/test_process/recorder.h"
#include "tracer/snapshot.h"

/* ---- Liveness (async-signal-safe) -----------------------------------------
 */

static char *format_unsigned(char *out, unsigned value)
{
    char digits[16];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (count > 0)
        *out++ = digits[--count];
    return out;
}

bool tattle__snapshot_probe_alive(int pid, int tid)
{
    if (pid <= 0 || tid <= 0)
        return false;
    if (syscall(SYS_tgkill, pid, tid, 0) != 0)
        return false;
    /* A zombie still accepts signal 0: look at its state in /proc. */
    char path[64], *p = path;
    memcpy(p, "/proc/", 6);
    p = format_unsigned(p + 6, (unsigned)pid);
    memcpy(p, "/task/", 6);
    p = format_unsigned(p + 6, (unsigned)tid);
    memcpy(p, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true;
    char buffer[256];
    ssize_t length = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (length <= 0)
        return true;
    buffer[length] = '\0';
    char *paren = NULL;
    for (ssize_t i = 0; i < length; i++)
        if (buffer[i] == ')')
            paren = &buffer[i];
    if (paren == NULL || paren + 2 >= buffer + length)
        return true;
    return paren[2] != 'Z' && paren[2] != 'X';
}

TATTLE__CHILD_PATH void
tattle__snapshot_probe_actors(struct tattle_trace_arena *arena)
{
    int self_pid = getpid();
    int self_tid = (int)syscall(SYS_gettid);
    uint32_t count = atomic_load(&arena->actor_count);
    if (count > TATTLE__MAX_ACTORS)
        count = TATTLE__MAX_ACTORS;
    for (uint32_t i = 0; i < count; i++) {
        struct tattle__actor *actor = &arena->actors[i];
        uint32_t flags = atomic_load(&actor->flags);
        if (flags & TATTLE__ACTOR_PROBED)
            continue;
        bool alive = false;
        if (flags & TATTLE__ACTOR_EXITED)
            alive = false;
        else if (actor->pid == self_pid && actor->tid == self_tid)
            alive = true;
        else if (actor->pid == self_pid)
            /* A thread of this process is never a zombie to look for. */
            alive = syscall(SYS_tgkill, actor->pid, actor->tid, 0) == 0;
        else
            alive = tattle__snapshot_probe_alive(actor->pid, actor->tid);
        atomic_fetch_or(&actor->flags, TATTLE__ACTOR_PROBED |
                                           (alive ? TATTLE__ACTOR_ALIVE : 0u));
    }
}

bool tattle__snapshot_actor_ended_cleanly(
    const struct tattle_trace_arena *arena, int32_t actor)
{
    uint32_t count = atomic_load(&arena->actor_count);
    if (actor < 0 || (uint32_t)actor >= count || actor >= TATTLE__MAX_ACTORS)
        return true;
    int32_t pid = arena->actors[actor].pid;
    if (pid == arena->test_pid)
        return atomic_load(&arena->finish) == TATTLE__FINISH_NORMAL;
    /* A forked process ended cleanly when its first actor ran its exit
     * hook. */
    for (uint32_t i = 0; i < count && i < TATTLE__MAX_ACTORS; i++) {
        const struct tattle__actor *candidate = &arena->actors[i];
        if (candidate->pid == pid &&
            (atomic_load(&candidate->flags) & TATTLE__ACTOR_FORKED))
            return (atomic_load(&candidate->flags) & TATTLE__ACTOR_EXITED) != 0;
    }
    return false;
}

/* ---- Rendering -------------------------------------------------------------
 */

size_t tattle__snapshot_render(const unsigned char *data, size_t length,
                               bool text, bool truncated, char *out,
                               size_t out_size)
{
    if (out_size == 0)
        return 0;
    size_t printable = length;
    /* One trailing NUL is a C string's terminator and does not make a
     * message binary. More are not stripped: an int 65 is "41 00 00 00",
     * and showing it as 'A' would tell the reader a lie. */
    if (!text && printable > 0 && data[printable - 1] == '\0')
        printable--;
    else if (truncated)
        printable = tattle__utf8_cut_length((const char *)data, printable);
    bool is_text =
        text || tattle__utf8_is_printable((const char *)data, printable);
    size_t used = 0;
    if (is_text) {
        for (size_t i = 0; i < printable && used + 1 < out_size; i++)
            out[used++] = data[i] != '\0' ? (char)data[i] : ' ';
    } else {
        static const char hex[] = "0123456789abcdef";
        const char *prefix = "hex:";
        for (; *prefix != '\0' && used + 1 < out_size; prefix++)
            out[used++] = *prefix;
        for (size_t i = 0; i < length && used + 2 < out_size; i++) {
            out[used++] = hex[data[i] >> 4];
            out[used++] = hex[data[i] & 15];
        }
    }
    out[used] = '\0';
    return used;
}

/* ---- The snapshot -----------------------------------------------------------
 */

static char *copy_name(const char *name, size_t size)
{
    size_t length = strnlen(name, size - 1);
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, name, length);
        copy[length] = '\0';
    }
    return copy;
}

static struct tattle__snapshot_mailbox *
add_mailbox(struct tattle__snapshot *snapshot)
{
    struct tattle__snapshot_mailbox *grown =
        realloc(snapshot->mailboxes, (snapshot->count + 1) * sizeof *grown);
    if (grown == NULL)
        return NULL;
    snapshot->mailboxes = grown;
    struct tattle__snapshot_mailbox *mailbox = &grown[snapshot->count++];
    memset(mailbox, 0, sizeof *mailbox);
    mailbox->owner = -1;
    return mailbox;
}

static int read_mailbox(struct tattle__snapshot *snapshot,
                        struct tattle_trace_arena *arena,
                        const struct tattle__arena_layout *layout,
                        uint64_t offset, bool live)
{
    uint32_t limit = layout->cap, payload_bytes = layout->payload_bytes;
    /* Mailboxes are carved from the mailbox heap: anything else is not one. */
    uint64_t heap_end = layout->mailbox_offset + layout->mailbox_size;
    if (offset < layout->mailbox_offset || offset >= heap_end ||
        heap_end - offset < sizeof(struct tattle_mailbox))
        return 0;
    struct tattle_mailbox *mailbox = tattle__arena_at(arena, offset);
    uint32_t capacity = mailbox->capacity;
    if (mailbox->magic != TATTLE__MAILBOX_MAGIC || capacity == 0 ||
        capacity > TATTLE__MAILBOX_CAPACITY_MAX ||
        (heap_end - offset - sizeof *mailbox) /
                sizeof(struct tattle__mailbox_slot) <
            capacity)
        return 0;
    if (atomic_load(&mailbox->closed))
        return 0;
    struct tattle__snapshot_mailbox *out = add_mailbox(snapshot);
    if (out == NULL)
        return -ENOMEM;
    out->name = copy_name(mailbox->name, sizeof mailbox->name);
    out->owner = mailbox->owner;
    uint64_t head = atomic_load(&mailbox->head);
    uint64_t tail = atomic_load(&mailbox->tail);
    uint64_t pending = tail - head;
    if (tail < head || pending > capacity)
        pending = tail < head ? 0 : capacity;
    out->pending = pending;
    out->approx =
        live || atomic_load(&mailbox->busy) ||
        atomic_load(&mailbox->recovered) ||
        !tattle__snapshot_actor_ended_cleanly(arena, mailbox->owner) ||
        !tattle__snapshot_actor_ended_cleanly(
            arena, atomic_load(&mailbox->last_sender)) ||
        !tattle__snapshot_actor_ended_cleanly(
            arena, atomic_load(&mailbox->last_receiver));
    size_t keep = pending < limit ? (size_t)pending : limit;
    if (keep == 0)
        return out->name != NULL ? 0 : -ENOMEM;
    out->messages = calloc(keep, sizeof *out->messages);
    if (out->messages == NULL || out->name == NULL)
        return -ENOMEM;
    char text[TATTLE__PAYLOAD_MAX * 2 + 8];
    size_t text_size = (size_t)payload_bytes * 2 + 5 < sizeof text
                           ? (size_t)payload_bytes * 2 + 5
                           : sizeof text;
    for (size_t i = 0; i < keep; i++) {
        const struct tattle__mailbox_slot *slot =
            &mailbox->slots[(head + i) % capacity];
        uint32_t text_length = slot->text_length;
        if (text_length != 0) {
            if (text_length > payload_bytes)
                text_length = payload_bytes;
            tattle__snapshot_render(
                (const unsigned char *)slot->text, text_length, true,
                slot->text_length > text_length, text, text_size);
        } else {
            uint32_t length = slot->length;
            if (length > payload_bytes)
                length = payload_bytes;
            tattle__snapshot_render(slot->data, length, false,
                                    slot->length > length, text, text_size);
        }
        out->messages[i] = copy_name(text, sizeof text);
        if (out->messages[i] == NULL)
            return -ENOMEM;
        out->message_count++;
    }
    return 0;
}

static int read_watch(struct tattle__snapshot *snapshot,
                      const struct tattle__watch_record *record, uint32_t limit)
{
    struct tattle__snapshot_mailbox *out = add_mailbox(snapshot);
    if (out == NULL)
        return -ENOMEM;
    out->name = copy_name(record->name, sizeof record->name);
    if (out->name == NULL)
        return -ENOMEM;
    out->owner = record->owner;
    out->pending = record->pending;
    uint32_t kept = record->kept < limit ? record->kept : limit;
    uint32_t used = record->used < sizeof record->text
                        ? record->used
                        : (uint32_t)sizeof record->text;
    if (kept == 0)
        return 0;
    out->messages = calloc(kept, sizeof *out->messages);
    if (out->messages == NULL)
        return -ENOMEM;
    uint32_t position = 0;
    while (out->message_count < kept && position < used) {
        const char *text = record->text + position;
        size_t length = strnlen(text, used - position);
        char *copy = malloc(length + 1);
        if (copy == NULL)
            return -ENOMEM;
        memcpy(copy, text, length);
        copy[length] = '\0';
        out->messages[out->message_count++] = copy;
        position += (uint32_t)length + 1;
    }
    return 0;
}

int tattle__snapshot_take(struct tattle__snapshot *snapshot,
                          struct tattle_trace_arena *arena,
                          const struct tattle__arena_layout *layout, bool live)
{
    uint32_t limit = layout->cap;
    memset(snapshot, 0, sizeof *snapshot);
    uint32_t count = atomic_load(&arena->directory_count);
    if (count > TATTLE__MAX_MAILBOXES)
        count = TATTLE__MAX_MAILBOXES;
    for (uint32_t i = 0; i < count; i++) {
        if (atomic_load_explicit(&arena->directory_kind[i],
                                 memory_order_acquire) !=
            TATTLE__DIRECTORY_MAILBOX)
            continue;
        int error = read_mailbox(snapshot, arena, layout,
                                 arena->directory_offset[i], live);
        if (error != 0)
            return error;
    }
    uint32_t watches = atomic_load(&arena->watch_count);
    if (watches > TATTLE__MAX_WATCHES)
        watches = TATTLE__MAX_WATCHES;
    for (uint32_t i = 0; i < watches; i++) {
        int error = read_watch(snapshot, &arena->watches[i], limit);
        if (error != 0)
            return error;
    }
    return 0;
}

void tattle__snapshot_clear(struct tattle__snapshot *snapshot)
{
    for (size_t i = 0; i < snapshot->count; i++) {
        struct tattle__snapshot_mailbox *mailbox = &snapshot->mailboxes[i];
        for (size_t j = 0; j < mailbox->message_count; j++)
            free(mailbox->messages[j]);
        free(mailbox->messages);
        free(mailbox->name);
    }
    free(snapshot->mailboxes);
    memset(snapshot, 0, sizeof *snapshot);
}
