/*
 * slot_write.c — the test process's side of its result slot.
 *
 * The writer claims space with a compare-and-swap that never moves
 * `reserved` past the capacity (a failure, skip or owner's crash record
 * that does not fit only counts in failures_dropped, so no number of
 * dropped records can wrap the counter onto old ones), writes the size, then
 * the payload, and commits by storing the type with release order. The last
 * bytes of the capacity are kept for the crash records of the slot's owner: the
 * crashes of processes it forked, however many, leave it room for its own, and
 * one of theirs that finds no room is let go uncounted (it was no failure of
 * the owner's: runner/slot.h reads a crash as the dying process's only). Each
 * string of a record is cut to TATTLE__SLOT_FIELD_BYTES_MAX, so one huge
 * message cannot cost a failure its file, line and macro. Adding a crash is
 * async-signal-safe.
 */
#include "runner/test_process/slot_write.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/child_path.h"

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* The room at the end of the capacity that only the owner's crash records
 * may claim: two of them (a fixture's crash copied into the slot before
 * the test process took it, and the test's own). */
static size_t crash_room_kept(void)
{
    return 2 * align8(sizeof(struct tattle__slot_record_header) +
                      sizeof(struct tattle__slot_crash_payload));
}

/* Claims `payload_size` bytes, up to `keep` bytes short of the capacity;
 * returns the payload, or NULL when it does not fit. */
static void *record_claim(struct tattle__slot *slot, size_t payload_size,
                          size_t keep,
                          struct tattle__slot_record_header **header_out)
{
    size_t size =
        align8(sizeof(struct tattle__slot_record_header) + payload_size);
    size_t limit = slot->capacity > keep ? slot->capacity - keep : 0;
    uint32_t offset =
        atomic_load_explicit(&slot->reserved, memory_order_relaxed);
    do {
        /* Keep room for a zero header after the last record: it ends the
         * walk. */
        if ((size_t)offset + size + sizeof(struct tattle__slot_record_header) >
            limit)
            return NULL;
    } while (!atomic_compare_exchange_weak(&slot->reserved, &offset,
                                           (uint32_t)(offset + size)));
    struct tattle__slot_record_header *header =
        (void *)(slot->records + offset);
    header->size = (uint32_t)size;
    *header_out = header;
    return header + 1;
}

static void record_commit(struct tattle__slot_record_header *header,
                          enum tattle__slot_record_type type)
{
    atomic_store_explicit(&header->type, type, memory_order_release);
}

/* A string as a record stores it: its first `kept` bytes, then `note`
 * when it was cut. */
struct stored_string {
    const char *text;
    size_t kept;
    char note[48];
    size_t note_length;
};

/* Prepares `text` for storing; returns the stored length. A string longer
 * than TATTLE__SLOT_FIELD_BYTES_MAX is cut there (not inside a UTF-8 character)
 * and ends with "... [truncated N bytes]". */
static size_t stored_string_prepare(struct stored_string *stored,
                                    const char *text)
{
    size_t length = strlen(text);
    *stored = (struct stored_string){.text = text, .kept = length};
    if (length > TATTLE__SLOT_FIELD_BYTES_MAX) {
        size_t kept = TATTLE__SLOT_FIELD_BYTES_MAX;
        while (kept > 0 && ((unsigned char)text[kept] & 0xC0) == 0x80)
            kept--;
        stored->kept = kept;
        int written = snprintf(stored->note, sizeof stored->note,
                               "... [truncated %zu bytes]", length - kept);
        stored->note_length = written > 0 ? (size_t)written : 0;
    }
    return stored->kept + stored->note_length;
}

/* Writes one record of `fixed` and the non-NULL `strings`; returns false
 * when it does not fit. */
static bool add_strings_record(struct tattle__slot *slot,
                               enum tattle__slot_record_type type,
                               struct tattle__slot_strings_payload fixed,
                               const char *const *strings, int count)
{
    struct stored_string stored[TATTLE__SLOT_STRING_FIELDS];
    size_t size = sizeof fixed;
    for (int i = 0; i < count; i++) {
        if (!strings[i])
            continue;
        fixed.present |= 1u << i;
        fixed.lengths[i] =
            (uint32_t)stored_string_prepare(&stored[i], strings[i]);
        size += fixed.lengths[i] + 1;
    }
    struct tattle__slot_record_header *header;
    unsigned char *payload =
        record_claim(slot, size, crash_room_kept(), &header);
    if (!payload) {
        atomic_fetch_add(&slot->failures_dropped, 1);
        return false;
    }
    memcpy(payload, &fixed, sizeof fixed);
    unsigned char *cursor = payload + sizeof fixed;
    for (int i = 0; i < count; i++) {
        if (!strings[i])
            continue;
        memcpy(cursor, stored[i].text, stored[i].kept);
        memcpy(cursor + stored[i].kept, stored[i].note, stored[i].note_length);
        cursor[fixed.lengths[i]] = '\0';
        cursor += fixed.lengths[i] + 1;
    }
    record_commit(header, type);
    return true;
}

bool tattle__slot_add_failure(struct tattle__slot *slot,
                              const struct tattle__slot_failure *failure)
{
    const char *strings[TATTLE__SLOT_STRING_FIELDS] = {
        failure->message, failure->file, failure->macro,
        failure->expr,    failure->left, failure->right};
    struct tattle__slot_strings_payload fixed = {.kind = (int32_t)failure->kind,
                                                 .line = failure->line};
    return add_strings_record(slot, TATTLE__RECORD_FAILURE, fixed, strings,
                              TATTLE__SLOT_STRING_FIELDS);
}

bool tattle__slot_add_skip(struct tattle__slot *slot, const char *reason,
                           const char *file, int line)
{
    const char *strings[2] = {reason ? reason : "", file ? file : ""};
    struct tattle__slot_strings_payload fixed = {.line = line};
    return add_strings_record(slot, TATTLE__RECORD_SKIP, fixed, strings, 2);
}

bool tattle__slot_add_crash(struct tattle__slot *slot, pid_t pid,
                            int signal_number, void *const *frames,
                            int frame_count)
{
    struct tattle__slot_record_header *header;
    int32_t owner = atomic_load(&slot->owner_pid);
    bool of_the_owner = owner == 0 || owner == (int32_t)pid;
    struct tattle__slot_crash_payload *payload =
        record_claim(slot, sizeof(struct tattle__slot_crash_payload),
                     of_the_owner ? 0 : crash_room_kept(), &header);
    if (!payload) {
        if (of_the_owner)
            atomic_fetch_add(&slot->failures_dropped, 1);
        return false;
    }
    if (frame_count > TATTLE__MAX_FRAMES)
        frame_count = TATTLE__MAX_FRAMES;
    payload->signal_number = signal_number;
    payload->frame_count = frame_count;
    payload->pid = (int32_t)pid;
    payload->unused_ = 0;
    for (int i = 0; i < frame_count; i++)
        payload->frames[i] = (uint64_t)(uintptr_t)frames[i];
    record_commit(header, TATTLE__RECORD_CRASH);
    return true;
}

TATTLE__CHILD_PATH void tattle__slot_claim_ownership(struct tattle__slot *slot,
                                                     pid_t owner)
{
    atomic_store(&slot->owner_pid, (int32_t)owner);
}
