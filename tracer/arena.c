/*
 * arena.c — planning, creating, resetting and carving a traced test's arena.
 *
 * The arena is a memfd sized with ftruncate (sparse: pages cost nothing
 * until touched) and mapped MAP_SHARED by the runner; the test process
 * maps the same memfd, which the fork server hands it, and nothing else
 * ever does, so no other test can reach it. The runner keeps the memfd of
 * a finished arena for the next traced test of the same size: punching a
 * hole through the file gives every page back to the kernel, and the two
 * pages every test writes (the header's first, the first ring's first)
 * are zeroed whole in place, so the next test starts from zeros whatever
 * the last one wrote, wherever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracer/arena.h"
#include "tracer/calls.h"
#include "tracer/ring.h"

static uint64_t round_up(uint64_t value, uint64_t to)
{
    return (value + to - 1) / to * to;
}

int tattle__arena_plan(struct tattle__arena_layout *layout, uint32_t cap,
                       uint32_t budget, int level, uint32_t payload_bytes)
{
    if (cap == 0)
        cap = 1;
    if (payload_bytes > TATTLE__PAYLOAD_MAX)
        payload_bytes = TATTLE__PAYLOAD_MAX;
    *layout = (struct tattle__arena_layout){
        .cap = cap,
        .budget = budget,
        .level = level,
        .payload_bytes = payload_bytes,
        .record_size = (uint32_t)tattle__ring_record_size(payload_bytes),
    };
    layout->ring_bytes = round_up(
        sizeof(struct tattle__ring) + (uint64_t)cap * layout->record_size, 64);
    if (layout->ring_bytes > UINT32_MAX)
        return -EINVAL;
    layout->heap_offset = round_up(sizeof(struct tattle_trace_arena), 4096);
    layout->mailbox_offset =
        layout->heap_offset + layout->ring_bytes * TATTLE__MAX_ACTORS;
    layout->mailbox_size = TATTLE__MAILBOX_HEAP_BYTES;
    layout->heap_size =
        layout->ring_bytes * TATTLE__MAX_ACTORS + layout->mailbox_size;
    layout->size = round_up(layout->heap_offset + layout->heap_size, 4096);
    layout->calls_offset = layout->size;
    return 0;
}

int tattle__arena_plan_calls(struct tattle__arena_layout *layout,
                             uint32_t call_cap)
{
    if (call_cap == 0)
        return 0;
    uint64_t area =
        round_up(sizeof(struct tattle__call_area) +
                     (uint64_t)call_cap * sizeof(struct tattle__call_record),
                 64);
    if (area > UINT32_MAX)
        return -EINVAL;
    layout->call_cap = call_cap;
    layout->call_area_bytes = area;
    layout->calls_offset = layout->size;
    layout->size =
        round_up(layout->calls_offset + area * TATTLE__MAX_ACTORS, 4096);
    return 0;
}

/* Writes the header of a zeroed arena. */
static void write_header(struct tattle_trace_arena *arena,
                         const struct tattle__arena_layout *layout)
{
    static uint32_t last_generation;
    arena->magic = TATTLE__ARENA_MAGIC;
    arena->version = 1;
    arena->size = layout->size;
    arena->cap = layout->cap;
    arena->budget = layout->budget;
    arena->level = layout->level;
    arena->payload_bytes = layout->payload_bytes;
    arena->record_size = layout->record_size;
    arena->ring_bytes = (uint32_t)layout->ring_bytes;
    arena->heap_offset = layout->heap_offset;
    arena->heap_size = layout->heap_size;
    arena->mailbox_offset = layout->mailbox_offset;
    arena->mailbox_size = layout->mailbox_size;
    if (++last_generation == 0)
        last_generation = 1;
    arena->generation = last_generation;
    arena->ipc = layout->ipc;
    arena->call_cap = layout->call_cap;
    arena->call_area_bytes = (uint32_t)layout->call_area_bytes;
    arena->calls_offset = layout->calls_offset;
    arena->hook_address = 0;
    atomic_store(&arena->active, 0);
}

int tattle__arena_create(struct tattle_trace_arena **out, int *fd_out,
                         const struct tattle__arena_layout *layout)
{
    int fd = memfd_create("tattle-trace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    /* The size is sealed: the test process holds this file, and one it
     * cut short would make the runner's reads past its end a SIGBUS.
     * Holes punched at a reset keep the size, so the seals allow them. */
    if (ftruncate(fd, (off_t)layout->size) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) !=
            0) {
        int error = errno;
        close(fd);
        return -error;
    }
    void *base =
        mmap(NULL, layout->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        int error = errno;
        close(fd);
        return -error;
    }
    /* A fresh memfd reads as zeros: only the header is written. */
    write_header(base, layout);
    *out = base;
    *fd_out = fd;
    return 0;
}

/* Gives the bytes [start, end) of the memfd back to the kernel. */
static int punch_hole(int fd, uint64_t start, uint64_t end)
{
    if (end <= start)
        return 0;
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)start,
                  (off_t)(end - start)) != 0)
        return -errno;
    return 0;
}

int tattle__arena_reset(struct tattle_trace_arena *arena, int fd,
                        const struct tattle__arena_layout *layout)
{
    /* Every traced test writes the header's first page and the first page
     * of the first actor's ring. Those two are zeroed in place, whole,
     * where the kernel holds them (they stay allocated and mapped here, so
     * neither the runner nor the next test allocates them again); every
     * other page is given back through a hole. */
    enum { KEPT_BYTES = 4096 };
    uint64_t ring = layout->heap_offset;
    int error = punch_hole(fd, KEPT_BYTES, ring);
    if (error == 0)
        error = punch_hole(fd, ring + KEPT_BYTES, layout->size);
    if (error != 0)
        return error;
    struct tattle__arena_extents extents;
    tattle__arena_extents_start(&extents, fd);
    if (tattle__arena_holds_data(&extents, 0))
        memset(arena, 0, KEPT_BYTES);
    if (tattle__arena_holds_data(&extents, ring))
        memset((char *)arena + ring, 0, KEPT_BYTES);
    write_header(arena, layout);
    return 0;
}

const char *
tattle__arena_check_header(const struct tattle_trace_arena *arena,
                           const struct tattle__arena_layout *layout)
{
    if (arena->magic != TATTLE__ARENA_MAGIC || arena->version != 1)
        return "its header was overwritten";
    if (arena->size != layout->size ||
        arena->heap_offset != layout->heap_offset ||
        arena->heap_size != layout->heap_size ||
        arena->mailbox_offset != layout->mailbox_offset ||
        arena->mailbox_size != layout->mailbox_size ||
        arena->ring_bytes != layout->ring_bytes ||
        arena->call_area_bytes != layout->call_area_bytes ||
        arena->calls_offset != layout->calls_offset ||
        arena->record_size != layout->record_size)
        return "its layout was overwritten";
    if (arena->cap != layout->cap || arena->budget != layout->budget ||
        arena->level != layout->level ||
        arena->payload_bytes != layout->payload_bytes ||
        arena->ipc != (uint32_t)layout->ipc ||
        arena->call_cap != layout->call_cap)
        return "its configuration was overwritten";
    return NULL;
}

void tattle__arena_extents_start(struct tattle__arena_extents *extents, int fd)
{
    *extents = (struct tattle__arena_extents){.fd = fd};
}

bool tattle__arena_holds_data(struct tattle__arena_extents *extents,
                              uint64_t offset)
{
    if (extents->fd < 0 || offset > (uint64_t)INT64_MAX)
        return true;
    if (offset >= extents->data_start && offset < extents->data_end)
        return true;
    if (offset >= extents->hole_start && offset < extents->data_start)
        return false;
    off_t data = lseek(extents->fd, (off_t)offset, SEEK_DATA);
    if (data < 0) {
        if (errno != ENXIO)
            return true; /* not known: read it */
        /* No data from here to the end of the file. */
        *extents = (struct tattle__arena_extents){.fd = extents->fd,
                                                  .hole_start = offset,
                                                  .data_start = UINT64_MAX,
                                                  .data_end = UINT64_MAX};
        return false;
    }
    off_t hole = lseek(extents->fd, data, SEEK_HOLE);
    extents->hole_start = offset;
    extents->data_start = (uint64_t)data;
    extents->data_end = hole > data ? (uint64_t)hole : UINT64_MAX;
    return (uint64_t)data == offset;
}

void tattle__arena_destroy(struct tattle_trace_arena *arena, int fd,
                           const struct tattle__arena_layout *layout)
{
    if (arena != NULL)
        munmap(arena, layout->size);
    if (fd >= 0)
        close(fd);
}
