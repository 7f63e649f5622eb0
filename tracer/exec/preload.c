/*
 * preload.c — the start of tattle's preload library (libtattle_preload.so),
 * which carries message capture into the programs a traced test starts
 * with exec.
 *
 * The library is built from the same sources as libtattle's capture
 * (tracer/test_process/ipc.c and recorder.c, the arena's layout, the
 * clock), with only the interposed libc functions exported. A traced test
 * process puts it in LD_PRELOAD and describes its arena's memfd in
 * TATTLE_TRACE_ARENA (tracer/exec/hand_down.h); every dynamically linked
 * program it execs (posix_spawn, system, popen, fork and execve) loads it
 * and runs the constructor below. The environment is untrusted: the
 * constructor parses the variable strictly, checks that the descriptor is
 * a regular file (a memfd) of the inode and size named, maps it, and
 * checks the arena's header against the layout its own configuration
 * gives and the generation named. Anything that does not agree leaves the
 * process untraced, every call going straight to libc. Otherwise the
 * process joins the session as a new actor named after its program, with
 * a `spawn` event, and captures its messages like a forked test process,
 * never through the objects the test excluded (its runner's stdout and
 * stderr pipes). A program with no TATTLE_TRACE_ARENA pays one getenv.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "tracer/exec/hand_down.h"
#include "tracer/test_process/recorder.h"

extern char *program_invocation_short_name;

/* Whether the mapped arena is the one the hand-down describes, consistent
 * with the layout its own configuration gives. */
static bool arena_agrees(const struct tattle_trace_arena *arena,
                         const struct tattle__hand_down *hand_down)
{
    if (arena->generation == 0 || arena->generation != hand_down->generation)
        return false;
    struct tattle__arena_layout layout;
    if (tattle__arena_plan(&layout, arena->cap, arena->budget, arena->level,
                           arena->payload_bytes) != 0 ||
        tattle__arena_plan_calls(&layout, arena->call_cap) != 0)
        return false;
    layout.ipc = arena->ipc != 0;
    return layout.size == hand_down->size &&
           tattle__arena_check_header(arena, &layout) == NULL &&
           atomic_load(&arena->active) == arena->generation;
}

/* Maps the arena the hand-down names, or returns NULL. */
static struct tattle_trace_arena *
map_arena(const struct tattle__hand_down *hand_down)
{
    struct stat status;
    if (fstat(hand_down->fd, &status) != 0 || !S_ISREG(status.st_mode) ||
        (uint64_t)status.st_ino != hand_down->inode || status.st_size < 0 ||
        (uint64_t)status.st_size != hand_down->size ||
        hand_down->size < sizeof(struct tattle_trace_arena) ||
        hand_down->size > SIZE_MAX)
        return NULL;
    void *base = mmap(NULL, (size_t)hand_down->size, PROT_READ | PROT_WRITE,
                      MAP_SHARED, hand_down->fd, 0);
    if (base == MAP_FAILED)
        return NULL;
    if (!arena_agrees(base, hand_down)) {
        munmap(base, (size_t)hand_down->size);
        return NULL;
    }
    return base;
}

/* A hand-down this process does not join: when its descriptor is the
 * memfd it names, the programs this one execs do not inherit it. Any
 * other descriptor of that number is the program's own, left alone. */
static void keep_from_exec(const struct tattle__hand_down *hand_down)
{
    struct stat status;
    if (fstat(hand_down->fd, &status) == 0 && S_ISREG(status.st_mode) &&
        (uint64_t)status.st_ino == hand_down->inode)
        fcntl(hand_down->fd, F_SETFD, FD_CLOEXEC);
}

__attribute__((constructor)) static void join_traced_test(void)
{
    const char *text = getenv(TATTLE__HAND_DOWN_VARIABLE);
    if (text == NULL)
        return;
    int saved_errno = errno;
    struct tattle__hand_down hand_down;
    struct tattle_trace_arena *arena = tattle__hand_down_parse(text, &hand_down)
                                           ? map_arena(&hand_down)
                                           : NULL;
    if (arena == NULL && hand_down.fd >= 0)
        keep_from_exec(&hand_down);
    if (arena != NULL) {
        const char *name = program_invocation_short_name;
        tattle__recorder_join(arena,
                              name != NULL && *name != '\0' ? name : "exec");
        tattle__ipc_join(arena, hand_down.keys, hand_down.key_count);
    }
    errno = saved_errno;
}
