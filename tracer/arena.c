/*
 * arena.c — creating, mapping and carving a traced test's arena.
 *
 * The arena is a memfd sized with ftruncate (sparse: pages cost nothing
 * until touched) and mapped MAP_SHARED once, in the runner, before the
 * fork; the test process and its children inherit the mapping at the same
 * address. The descriptor is closed right away so the test never sees it.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracer/arena.h"
#include "tracer/ring.h"

static uint64_t round_up(uint64_t value, uint64_t to)
{
    return (value + to - 1) / to * to;
}

struct layout {
    uint32_t cap;
    uint32_t payload_bytes;
    uint32_t record_size;
    uint64_t ring_bytes;
    uint64_t heap_offset;
    uint64_t heap_size;
    uint64_t mailbox_offset;
    uint64_t size;
};

static int plan_layout(struct layout *layout, uint32_t cap, uint32_t payload_bytes)
{
    if (cap == 0)
        cap = 1;
    if (payload_bytes > TATTLE__PAYLOAD_MAX)
        payload_bytes = TATTLE__PAYLOAD_MAX;
    layout->cap = cap;
    layout->payload_bytes = payload_bytes;
    layout->record_size = (uint32_t)tattle__ring_record_size(payload_bytes);
    layout->ring_bytes = round_up(sizeof(struct tattle__ring) +
                                  (uint64_t)cap * layout->record_size, 64);
    if (layout->ring_bytes > UINT32_MAX)
        return -EINVAL;
    layout->heap_offset = round_up(sizeof(struct tattle__arena), 4096);
    layout->mailbox_offset = layout->heap_offset +
                             layout->ring_bytes * TATTLE__MAX_ACTORS;
    layout->heap_size = layout->ring_bytes * TATTLE__MAX_ACTORS +
                        TATTLE__MAILBOX_HEAP_BYTES;
    layout->size = round_up(layout->heap_offset + layout->heap_size, 4096);
    return 0;
}

/* Writes the header of a zeroed arena. */
static void write_header(struct tattle__arena *arena, const struct layout *layout,
                         uint32_t budget, int level)
{
    static uint32_t last_generation;
    arena->magic = TATTLE__ARENA_MAGIC;
    arena->version = 1;
    arena->size = layout->size;
    arena->cap = layout->cap;
    arena->budget = budget;
    arena->level = level;
    arena->payload_bytes = layout->payload_bytes;
    arena->record_size = layout->record_size;
    arena->ring_bytes = (uint32_t)layout->ring_bytes;
    arena->heap_offset = layout->heap_offset;
    arena->heap_size = layout->heap_size;
    arena->mailbox_offset = layout->mailbox_offset;
    arena->mailbox_size = TATTLE__MAILBOX_HEAP_BYTES;
    if (++last_generation == 0)
        last_generation = 1;
    arena->generation = last_generation;
    atomic_store(&arena->active, 0);
}

int tattle__arena_create(struct tattle__arena **out, uint32_t cap,
                         uint32_t budget, int level, uint32_t payload_bytes)
{
    struct layout layout;
    int error = plan_layout(&layout, cap, payload_bytes);
    if (error != 0)
        return error;
    int fd = memfd_create("tattle-trace", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)layout.size) != 0) {
        error = errno;
        close(fd);
        return -error;
    }
    void *base = mmap(NULL, layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    error = errno;
    close(fd);
    if (base == MAP_FAILED)
        return -error;
    /* A fresh memfd reads as zeros: only the header is written. */
    write_header(base, &layout, budget, level);
    *out = base;
    return 0;
}

int tattle__arena_reset(struct tattle__arena *arena, uint64_t size,
                        uint32_t cap, uint32_t budget, int level,
                        uint32_t payload_bytes)
{
    struct layout layout;
    if (plan_layout(&layout, cap, payload_bytes) != 0 || layout.size != size)
        return -EINVAL;
    /* Zero what the last session used; the counters are untrusted. */
    uint64_t actors = atomic_load(&arena->actor_count);
    if (actors > TATTLE__MAX_ACTORS)
        actors = TATTLE__MAX_ACTORS;
    uint64_t used = atomic_load(&arena->heap_used);
    if (used > TATTLE__MAILBOX_HEAP_BYTES)
        used = TATTLE__MAILBOX_HEAP_BYTES;
    memset(arena, 0, layout.heap_offset + actors * layout.ring_bytes);
    memset((char *)arena + layout.mailbox_offset, 0, used);
    write_header(arena, &layout, budget, level);
    return 0;
}

void tattle__arena_destroy(struct tattle__arena *arena, uint64_t size)
{
    if (arena != NULL)
        munmap(arena, size);
}

uint64_t tattle__arena_alloc(struct tattle__arena *arena, uint64_t bytes)
{
    uint64_t size = arena->mailbox_size;
    if (bytes == 0 || bytes > size)
        return 0;
    bytes = round_up(bytes, 64);
    uint64_t used = atomic_load_explicit(&arena->heap_used, memory_order_relaxed);
    do {
        /* A request that does not fit consumes nothing. */
        if (used > size || size - used < bytes)
            return 0;
    } while (!atomic_compare_exchange_weak_explicit(&arena->heap_used, &used,
                                                    used + bytes,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
    return arena->mailbox_offset + used;
}
