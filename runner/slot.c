/*
 * slot.c — the runner's side of the shared-memory result slot: creating,
 * resetting and reading it.
 *
 * The reader walks the claimed space in order: a zero size ends the walk
 * (a writer died between its claim and its header); an uncommitted type
 * is skipped. It trusts none of it (see slot.h): the walk is bounded by
 * the size the runner passes, and read_record says what an honest writer
 * could have left.
 */
#include "runner/slot.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buffer.h"

static void write_header(struct tattle__slot *slot, size_t size)
{
    atomic_store(&slot->reserved, 0);
    slot->capacity = (uint32_t)(size - sizeof *slot);
    atomic_store(&slot->phase, TATTLE__PHASE_STARTING);
    atomic_store(&slot->failures_dropped, 0);
    atomic_store(&slot->setup_failed, 0);
    atomic_store(&slot->fixture, TATTLE__FIXTURE_NONE);
    atomic_store(&slot->doorbell_pid, 0);
    atomic_store(&slot->doorbell_signal, 0);
    atomic_store(&slot->doorbell_wait_ms, 0);
    atomic_store(&slot->crash_stop, TATTLE__CRASH_STOP_NONE);
    atomic_store(&slot->crash_tid, 0);
    atomic_store(&slot->owner_pid, 0);
}

struct tattle__slot *tattle__slot_create(size_t size)
{
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return NULL;
    write_header(memory, size);
    return memory;
}

void tattle__slot_destroy(struct tattle__slot *slot, size_t size)
{
    if (slot)
        munmap(slot, size);
}

void tattle__slot_reset(struct tattle__slot *slot, size_t size)
{
    /* The kernel knows every page the last test wrote: freeing them all
     * zeroes the slot without trusting a word of it. Where that fails,
     * zero it by hand. The first page, which every test writes, is zeroed
     * by hand and kept: freed, it would cost a fault here and a fresh page
     * per test. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t kept = size < page ? size : page;
    memset(slot, 0, kept);
    if (size > kept &&
        madvise((char *)slot + kept, size - kept, MADV_REMOVE) != 0)
        memset((char *)slot + kept, 0, size - kept);
    write_header(slot, size);
}

void tattle__slot_reset_own(struct tattle__slot *slot, size_t size)
{
    size_t used = sizeof *slot + (size_t)atomic_load(&slot->reserved) +
                  sizeof(struct tattle__slot_record_header);
    memset(slot, 0, used < size ? used : size);
    write_header(slot, size);
}

/* Reads the strings of a failure or skip payload of `payload_size` bytes
 * into malloc'd copies. Returns NULL, or what was impossible. */
static const char *read_strings(const unsigned char *payload,
                                size_t payload_size, const char **out,
                                int count)
{
    for (int i = 0; i < count; i++)
        out[i] = NULL;
    struct tattle__slot_strings_payload fixed;
    if (payload_size < sizeof fixed)
        return "a record is too short for its kind";
    memcpy(&fixed, payload, sizeof fixed);
    if (fixed.present >> count)
        return "a record holds strings it cannot have";
    size_t offset = sizeof fixed;
    for (int i = 0; i < count; i++) {
        if (!(fixed.present & (1u << i)))
            continue;
        size_t length = fixed.lengths[i];
        if (length >= payload_size - offset ||
            payload[offset + length] != '\0' ||
            memchr(payload + offset, '\0', length) != NULL)
            return "a string does not end where its length says";
        out[i] = tattle__strdup((const char *)payload + offset);
        offset += length + 1;
    }
    return NULL;
}

static void free_strings(const char **strings, int count)
{
    for (int i = 0; i < count; i++)
        free((char *)strings[i]);
}

static bool known_failure_kind(int32_t kind)
{
    return kind >= TATTLE_FAILURE_ASSERTION && kind <= TATTLE_FAILURE_ERROR;
}

/* Reads one committed record; returns NULL or what was impossible. A
 * crash record counts as the crash only when it names process `dying`
 * (or `dying` or the record names none). */
static const char *read_record(struct tattle__slot_reading *reading,
                               pid_t dying, uint32_t type,
                               const unsigned char *payload,
                               size_t payload_size, size_t *capacity)
{
    if (type == TATTLE__RECORD_FAILURE) {
        const char *strings[TATTLE__SLOT_STRING_FIELDS];
        const char *problem = read_strings(payload, payload_size, strings,
                                           TATTLE__SLOT_STRING_FIELDS);
        struct tattle__slot_strings_payload fixed;
        if (!problem) {
            memcpy(&fixed, payload, sizeof fixed);
            if (!known_failure_kind(fixed.kind))
                problem = "a failure of no known kind";
        }
        if (problem) {
            free_strings(strings, TATTLE__SLOT_STRING_FIELDS);
            return problem;
        }
        if (reading->failure_count == *capacity) {
            *capacity = *capacity ? *capacity * 2 : 4;
            reading->failures = tattle__realloc(
                reading->failures, *capacity * sizeof *reading->failures);
        }
        reading->failures[reading->failure_count++] =
            (struct tattle__slot_failure){
                .kind = (enum tattle_failure_kind)fixed.kind,
                .message = strings[0],
                .file = strings[1],
                .macro = strings[2],
                .expr = strings[3],
                .left = strings[4],
                .right = strings[5],
                .line = fixed.line};
        return NULL;
    }
    if (type == TATTLE__RECORD_SKIP) {
        const char *strings[2];
        const char *problem = read_strings(payload, payload_size, strings, 2);
        if (problem || reading->skipped) {
            free_strings(strings, 2);
            return problem;
        }
        struct tattle__slot_strings_payload fixed;
        memcpy(&fixed, payload, sizeof fixed);
        reading->skipped = true;
        reading->skip_reason = strings[0];
        reading->skip_file = strings[1];
        reading->skip_line = fixed.line;
        return NULL;
    }
    if (type == TATTLE__RECORD_CRASH) {
        struct tattle__slot_crash_payload crash;
        if (payload_size < sizeof crash)
            return "a record is too short for its kind";
        memcpy(&crash, payload, sizeof crash);
        if (crash.frame_count < 0 || crash.frame_count > TATTLE__MAX_FRAMES ||
            crash.signal_number <= 0 || crash.signal_number >= NSIG)
            return "a crash record that no handler wrote";
        bool of_the_dying =
            dying == 0 || crash.pid == 0 || crash.pid == (int32_t)dying;
        if (!of_the_dying)
            return NULL;
        reading->crash_records++;
        if (!reading->crashed) {
            reading->crashed = true;
            reading->crash_signal = crash.signal_number;
            reading->crash_frame_count = crash.frame_count;
            for (int i = 0; i < crash.frame_count; i++)
                reading->crash_frames[i] = (uintptr_t)crash.frames[i];
        }
        return NULL;
    }
    return "a record of no known type";
}

void tattle__slot_read(const struct tattle__slot *slot, size_t size,
                       struct tattle__slot_reading *reading)
{
    tattle__slot_read_of(slot, size, 0, reading);
}

void tattle__slot_read_of(const struct tattle__slot *slot, size_t size,
                          pid_t pid, struct tattle__slot_reading *reading)
{
    *reading = (struct tattle__slot_reading){0};
    size_t capacity_bytes = size - sizeof *slot;
    uint32_t phase = atomic_load(&slot->phase);
    reading->phase = phase <= TATTLE__PHASE_DONE ? (enum tattle__phase)phase
                                                 : TATTLE__PHASE_STARTING;
    if (phase > TATTLE__PHASE_DONE)
        reading->corruption = "its phase is none a test goes through";
    uint32_t setup_failed = atomic_load(&slot->setup_failed);
    if (setup_failed > 1)
        reading->corruption = "its setup flag holds what no fixture writes";
    reading->setup_failed = setup_failed != 0;
    uint32_t fixture = atomic_load(&slot->fixture);
    if (fixture > TATTLE__FIXTURE_SUITE_TEARDOWN)
        reading->corruption = "its fixture field names no fixture";
    else
        reading->fixture = (enum tattle__fixture_role)fixture;
    reading->failures_dropped = atomic_load(&slot->failures_dropped);
    uint32_t end = atomic_load(&slot->reserved);
    if (end > capacity_bytes) {
        reading->corruption = "more of it is claimed than there is";
        end = (uint32_t)capacity_bytes;
    }

    size_t failures_capacity = 0;
    for (uint32_t offset = 0;
         !reading->corruption &&
         offset + sizeof(struct tattle__slot_record_header) <= end;) {
        const struct tattle__slot_record_header *header =
            (const void *)(slot->records + offset);
        uint32_t record_size = header->size;
        if (record_size == 0)
            break; /* a writer died between its claim and its header */
        if (record_size < sizeof *header || record_size % 8 != 0 ||
            record_size > end - offset) {
            reading->corruption = "a record's size runs past the claimed space";
            break;
        }
        uint32_t type = atomic_load_explicit(
            &((struct tattle__slot_record_header *)header)->type,
            memory_order_acquire);
        if (type != TATTLE__RECORD_UNCOMMITTED)
            reading->corruption = read_record(
                reading, pid, type, (const unsigned char *)(header + 1),
                record_size - sizeof *header, &failures_capacity);
        offset += record_size;
    }
    if (reading->corruption) {
        /* The flags beside the records are as untrustworthy: a test that
         * overwrote its slot is failed with what it wrote before, not made
         * invalid or given a count of lost failures it invented. */
        reading->setup_failed = false;
        reading->fixture = TATTLE__FIXTURE_NONE;
        reading->failures_dropped = 0;
    }
}

bool tattle__slot_reading_is_clean(const struct tattle__slot_reading *reading)
{
    return !reading->corruption && reading->failure_count == 0 &&
           !reading->skipped && !reading->crashed &&
           reading->failures_dropped == 0;
}

void tattle__slot_reading_release(struct tattle__slot_reading *reading)
{
    for (size_t i = 0; i < reading->failure_count; i++) {
        struct tattle__slot_failure *f = &reading->failures[i];
        free((char *)f->message);
        free((char *)f->file);
        free((char *)f->macro);
        free((char *)f->expr);
        free((char *)f->left);
        free((char *)f->right);
    }
    free(reading->failures);
    free((char *)reading->skip_reason);
    free((char *)reading->skip_file);
    *reading = (struct tattle__slot_reading){0};
}
