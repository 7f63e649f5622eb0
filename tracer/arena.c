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

int tattle__arena_create(struct tattle__arena **out, uint32_t cap,
                         uint32_t budget, int level, uint32_t payload_bytes)
{
    if (cap == 0)
        cap = 1;
    if (payload_bytes > TATTLE__PAYLOAD_MAX)
        payload_bytes = TATTLE__PAYLOAD_MAX;
    uint32_t record_size = (uint32_t)tattle__ring_record_size(payload_bytes);
    uint64_t ring_bytes = round_up(sizeof(struct tattle__ring) +
                                   (uint64_t)cap * record_size, 64);
    if (ring_bytes > UINT32_MAX)
        return -EINVAL;
    uint64_t heap_offset = round_up(sizeof(struct tattle__arena), 4096);
    uint64_t heap_size = ring_bytes * TATTLE__MAX_ACTORS +
                         TATTLE__MAILBOX_HEAP_BYTES;
    uint64_t size = round_up(heap_offset + heap_size, 4096);

    int fd = memfd_create("tattle-trace", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)size) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int error = errno;
    close(fd);
    if (base == MAP_FAILED)
        return -error;

    /* A fresh memfd reads as zeros: only non-zero fields are set. */
    struct tattle__arena *arena = base;
    arena->magic = TATTLE__ARENA_MAGIC;
    arena->version = 1;
    arena->size = size;
    arena->cap = cap;
    arena->budget = budget;
    arena->level = level;
    arena->payload_bytes = payload_bytes;
    arena->record_size = record_size;
    arena->ring_bytes = (uint32_t)ring_bytes;
    arena->heap_offset = heap_offset;
    arena->heap_size = heap_size;
    atomic_init(&arena->active, 0);
    *out = arena;
    return 0;
}

void tattle__arena_destroy(struct tattle__arena *arena, uint64_t size)
{
    if (arena != NULL)
        munmap(arena, size);
}

uint64_t tattle__arena_alloc(struct tattle__arena *arena, uint64_t bytes)
{
    bytes = round_up(bytes, 64);
    uint64_t used = atomic_fetch_add_explicit(&arena->heap_used, bytes,
                                              memory_order_relaxed);
    if (used + bytes > arena->heap_size) {
        /* Leave the counter past the end: later requests fail too. */
        return 0;
    }
    return arena->heap_offset + used;
}
