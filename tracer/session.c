/*
 * session.c — a traced test's session, from the runner's point of view.
 *
 * Implements the life cycle of session.h: the runner creates the arena
 * (or takes a pooled one, reset by the kernel) and hands its memfd to the
 * test process, which maps it and records; the runner may snapshot the
 * mailboxes while the test is still alive (a timeout), freezes the arena
 * once the test's processes are gone (tracer/freeze.h), and gives the
 * arena back to the pool only when nothing that mapped it can still write.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/child_path.h"
#include "tracer/calls.h"
#include "tracer/clock.h"
#include "tracer/exec/hand_down.h"
#include "tracer/freeze.h"
#include "tracer/mailbox.h"
#include "tracer/peek.h"
#include "tracer/test_process/deaths.h"
#include "tracer/test_process/recorder.h"
#include "tracer/session.h"
#include "tracer/snapshot.h"

struct tattle__trace_session {
    struct tattle_trace_arena *arena;   /* the runner's mapping */
    int fd;                             /* the memfd */
    struct tattle__arena_layout layout; /* the runner's own, never the header */
    struct tattle__snapshot live;
    bool live_taken;
    bool handed_out;        /* the memfd went to a test process */
    bool reusable;          /* ... and all its processes are dead */
    const char *corruption; /* what the freeze found overwritten */
};

/* ---- Session life cycle
 * ------------------------------------------------------- */

/* How many processes of one test the runner peeks at most before it kills
 * them (each may hold TATTLE__PEEK_MAX_FDS descriptors). */
enum { PEEK_PROCESSES_MAX = 64 };

/* Arenas of finished sessions, kept mapped for the next traced tests: a
 * reused arena costs a memset of what was used instead of a memfd, a
 * mapping and fresh page faults on both sides. An arena is only reused
 * when every actor that recorded into it is gone, so no survivor of the
 * old test can write into the new one. */
enum { ARENA_POOL_MAX = 4 };
static struct {
    struct tattle_trace_arena *arena;
    int fd;
    uint64_t size;
} arena_pool[ARENA_POOL_MAX];
static size_t arena_pool_count;

static bool pool_take(struct tattle__trace_session *session)
{
    for (size_t i = arena_pool_count; i-- > 0;) {
        if (arena_pool[i].size != session->layout.size)
            continue;
        if (tattle__arena_reset(arena_pool[i].arena, arena_pool[i].fd,
                                &session->layout) != 0)
            continue;
        session->arena = arena_pool[i].arena;
        session->fd = arena_pool[i].fd;
        arena_pool[i] = arena_pool[--arena_pool_count];
        return true;
    }
    return false;
}

/* A session whose arena never left this process tree (--no-fork, the
 * tracer's own tests): its writers were this process and processes forked
 * from it, whose threads are probed. */
static bool every_actor_gone(const struct tattle_trace_arena *arena)
{
    uint32_t count = atomic_load(&arena->actor_count);
    if (count > TATTLE__MAX_ACTORS)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        const struct tattle__actor *actor = &arena->actors[i];
        if (actor->pid <= 0 || actor->tid <= 0 ||
            syscall(SYS_tgkill, actor->pid, actor->tid, 0) == 0 ||
            errno != ESRCH)
            return false;
    }
    return true;
}

void tattle__trace_prepare_process(void)
{
    tattle__recorder_prepare();
    tattle__hand_down_locate_preload();
    tattle__hand_down_prepare();
}

int tattle__trace_session_create(struct tattle__trace_session **out,
                                 const struct tattle__trace_config *config)
{
    struct tattle__trace_config effective = TATTLE__TRACE_CONFIG_DEFAULT;
    if (config != NULL) {
        if (config->cap != 0)
            effective.cap = config->cap;
        effective.budget = config->budget;
        effective.level = config->level;
        if (config->payload_bytes != 0)
            effective.payload_bytes = config->payload_bytes;
        effective.no_ipc = config->no_ipc;
        effective.call_cap = config->call_cap;
    }
    if (effective.cap > TATTLE__TRACE_CAP_MAX ||
        effective.call_cap > TATTLE__CALL_CAP_MAX)
        return -EINVAL;
    struct tattle__trace_session *session = calloc(1, sizeof *session);
    if (session == NULL)
        return -ENOMEM;
    int error =
        tattle__arena_plan(&session->layout, effective.cap, effective.budget,
                           effective.level, effective.payload_bytes);
    if (error == 0)
        error = tattle__arena_plan_calls(&session->layout, effective.call_cap);
    if (error != 0) {
        free(session);
        return error;
    }
    session->layout.ipc = !effective.no_ipc;
    tattle__clock_anchor();
    tattle__recorder_prepare();
    if (!pool_take(session)) {
        error = tattle__arena_create(&session->arena, &session->fd,
                                     &session->layout);
        if (error != 0) {
            free(session);
            return error;
        }
    }
    *out = session;
    return 0;
}

int tattle__trace_session_fd(struct tattle__trace_session *session)
{
    session->handed_out = true;
    return session->fd;
}

uint64_t tattle__trace_session_size(const struct tattle__trace_session *session)
{
    return session->layout.size;
}

TATTLE__CHILD_PATH int tattle__trace_attach(int fd, uint64_t size,
                                            int *handed_down_fd)
{
    *handed_down_fd = -1;
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int error = base == MAP_FAILED ? -errno : 0;
    if (error != 0) {
        close(fd);
        return error;
    }
    struct tattle_trace_arena *arena = base;
    tattle__recorder_activate(arena);
    tattle__ipc_start(arena);
    /* Programs the test execs join it only when messages are captured:
     * there is nothing else they could record. */
    int handed_down = arena->ipc != 0 ? tattle__hand_down_set(fd, arena) : -1;
    if (handed_down >= 0)
        *handed_down_fd = handed_down;
    else
        close(fd);
    return 0;
}

void tattle__trace_hand_down_remove(void)
{
    tattle__hand_down_remove();
}

void tattle__trace_session_activate(struct tattle__trace_session *session)
{
    if (session != NULL)
        tattle__recorder_activate(session->arena);
}

TATTLE__CHILD_PATH void
tattle__trace_session_child_finish(bool from_signal_handler)
{
    struct tattle_trace_arena *arena = tattle_trace_current;
    if (arena == NULL || getpid() != arena->test_pid)
        return;
    uint32_t expected = TATTLE__FINISH_NONE;
    if (!from_signal_handler) {
        /* Only once, and never after the crash handler ran. */
        if (atomic_load(&arena->finish) != TATTLE__FINISH_NONE)
            return;
        tattle__mailbox_run_watches(arena);
    }
    tattle__deaths_note_unreaped(arena);
    tattle__recorder_release_budget();
    tattle__snapshot_probe_actors(arena);
    tattle__ipc_peek_pending();
    atomic_compare_exchange_strong(&arena->finish, &expected,
                                   from_signal_handler ? TATTLE__FINISH_SIGNAL
                                                       : TATTLE__FINISH_NORMAL);
    atomic_store(&arena->active, 0);
}

bool tattle__trace_session_peeks_processes(
    const struct tattle__trace_session *session)
{
    return session != NULL && session->layout.ipc && !session->live_taken;
}

/* What the kernel still holds in the endpoints the halted processes
 * `pids` have descriptors of, peeked through pidfd_getfd before the kill
 * (a test killed at a timeout runs no end of its own to peek them, and a
 * process the test left alive none at all). The pids are the runner's
 * own (its cgroup or its process tree), never the arena's, which the
 * test could forge to make the runner read another process's
 * descriptors. At most PEEK_PROCESSES_MAX of them; the arena's
 * `peek_taken` is set only when every one was read whole. Refused (no
 * pidfd_getfd before Linux 5.6, or no ptrace right over the test), the
 * trace keeps the counts alone. */
void tattle__trace_session_peek_processes(struct tattle__trace_session *session,
                                          const pid_t *pids, size_t count)
{
    if (!tattle__trace_session_peeks_processes(session) || count == 0)
        return;
    struct tattle_trace_arena *arena = session->arena;
    bool whole = count <= PEEK_PROCESSES_MAX;
    for (size_t i = 0; i < count && i < PEEK_PROCESSES_MAX; i++) {
        int pidfd = pids[i] > 0 ? (int)syscall(SYS_pidfd_open, pids[i], 0) : -1;
        if (pidfd < 0) {
            whole = whole && errno == ESRCH; /* gone: it holds nothing */
            continue;
        }
        if (!tattle__peek_held(arena, pidfd, pids[i], TATTLE__PEEK_RUNNER))
            whole = false;
        close(pidfd);
    }
    if (whole)
        atomic_store(&arena->peek_taken, TATTLE__PEEK_RUNNER);
}

void tattle__trace_session_snapshot_live(struct tattle__trace_session *session,
                                         const pid_t *pids, size_t count)
{
    if (session == NULL || session->live_taken)
        return;
    struct tattle_trace_arena *arena = session->arena;
    atomic_store(&arena->active, 0);
    tattle__snapshot_probe_actors(arena);
    tattle__trace_session_peek_processes(session, pids, count);
    /* On failure the snapshot keeps what was read: the freeze does not
     * read again. */
    tattle__snapshot_take(&session->live, arena, &session->layout, true);
    session->live_taken = true;
}

void tattle__trace_session_mark_reusable(struct tattle__trace_session *session)
{
    session->reusable = true;
}

const char *
tattle__trace_session_corruption(const struct tattle__trace_session *session)
{
    return session->corruption;
}

void tattle__trace_session_destroy(struct tattle__trace_session *session)
{
    if (session == NULL)
        return;
    struct tattle_trace_arena *arena = session->arena;
    tattle__recorder_forget(arena);
    tattle__snapshot_clear(&session->live);
    atomic_store(&arena->active, 0);
    /* Reused only when no process that could still write into it is left:
     * the runner says so for a handed-out arena (it killed and waited for
     * every process of the test); otherwise its threads are probed. */
    bool safe =
        session->handed_out ? session->reusable : every_actor_gone(arena);
    if (arena_pool_count < ARENA_POOL_MAX && safe) {
        arena_pool[arena_pool_count].arena = arena;
        arena_pool[arena_pool_count].fd = session->fd;
        arena_pool[arena_pool_count].size = session->layout.size;
        arena_pool_count++;
    } else {
        tattle__arena_destroy(arena, session->fd, &session->layout);
    }
    free(session);
}

int tattle__trace_session_freeze(struct tattle__trace_session *session,
                                 struct tattle_trace **out)
{
    if (session == NULL || out == NULL)
        return -EINVAL;
    struct tattle_trace_arena *arena = session->arena;
    atomic_store(&arena->active, 0);
    tattle__recorder_forget(arena);
    return tattle__freeze(arena, session->fd, &session->layout,
                          session->live_taken ? &session->live : NULL, out,
                          &session->corruption);
}
