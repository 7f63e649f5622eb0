/*
 * ring.c — reading an actor's ring, whatever state its writer left it in.
 *
 * The writer side is inlined into the recording functions (recorder.c);
 * this is the reader, used by the runner at freeze time. Its writer may be
 * dead (killed mid-record), still running (a survivor that has not yet
 * noticed the deactivation) or finished; the seqlock check on the commit
 * word makes all three safe.
 */
#include "tracer/ring.h"

size_t tattle__ring_read(struct tattle__ring *ring, uint32_t ring_index,
                         uint32_t cap, uint32_t record_size,
                         struct tattle__ring_copy *copies, void *buffer,
                         uint64_t *committed, tattle__ring_written_fn written,
                         void *written_context)
{
    size_t count = 0;
    uint64_t highest =
        atomic_load_explicit(&ring->written, memory_order_acquire);
    for (uint32_t slot = 0; slot < cap; slot++) {
        struct tattle__record *record =
            tattle__ring_record(ring, record_size, slot);
        if (written != NULL && !written(written_context, &record->commit))
            continue;
        struct tattle__record *copy =
            (struct tattle__record *)((char *)buffer +
                                      (size_t)count * record_size);
        uint64_t before =
            atomic_load_explicit(&record->commit, memory_order_acquire);
        if (before == 0 || (before - 1) % cap != slot)
            continue;
        memcpy((char *)copy + sizeof copy->commit,
               (char *)record + sizeof record->commit,
               record_size - sizeof record->commit);
        uint64_t after = tattle__ring_recheck(&record->commit);
        if (after != before)
            continue;
        if (copy->payload_length > record_size - sizeof *copy)
            continue;
        atomic_store_explicit(&copy->commit, before, memory_order_relaxed);
        if (before > highest)
            highest = before;
        copies[count].number = before - 1;
        copies[count].ring = ring_index;
        copies[count].record = copy;
        count++;
    }
    /* A ring holds the last `cap` events: older copies are stale leftovers
     * of a slot whose newer write was torn. */
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (copies[i].number + cap >= highest)
            copies[kept++] = copies[i];
    *committed = highest;
    return kept;
}
