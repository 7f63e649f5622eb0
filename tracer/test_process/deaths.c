/*
 * deaths.c — a traced test's processes that die of a signal show it: an
 * `exit` event from the dead process's actor, labelled "killed", its
 * message the signal's name ("SIGKILL").
 *
 * Who can tell truthfully how a process died is its parent, when it
 * collects the status: libtattle defines wait, waitpid, wait4 and waitid,
 * which call the real ones (found with dlsym(RTLD_NEXT), a raw system call
 * until then) and, in a traced process, record the death of a child that
 * was killed by a signal, as the kernel reported it. A child the test had
 * not collected when it ends (a zombie) is looked at without collecting
 * it (waitid with WNOWAIT) when the test process finishes, before its
 * actors are probed. A process whose parent is not the test process (a
 * worker's own child) is seen when that parent collects it; one that is
 * never collected by a traced process shows only `alive_at_exit: false`.
 * The event is recorded by the collecting thread, so its `t_us` is when the
 * death was seen; the dead actor is named in `from` by the name it had
 * (or `process-PID`).
 *
 * Everything here is async-signal-safe (a SIGCHLD handler may collect):
 * no malloc, no lock, errno kept.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer/test_process/deaths.h"

#include "base/child_path.h"
#include "base/text.h"
#include "tracer/test_process/recorder.h"

/* Exported from libtattle (built with hidden visibility), so a test binary
 * calls these instead of libc's; weak, so that a program linking the static
 * library with a wait function of its own (a mock) keeps its own. */
#define INTERPOSED __attribute__((visibility("default"), weak))

static pid_t raw_wait4(pid_t pid, int *status, int options,
                       struct rusage *usage)
{
    return (pid_t)syscall(SYS_wait4, pid, status, options, usage);
}

static int raw_waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
    return (int)syscall(SYS_waitid, type, id, info, options, NULL);
}

static struct {
    pid_t (*wait4)(pid_t, int *, int, struct rusage *);
    int (*waitid)(idtype_t, id_t, siginfo_t *, int);
} real = {raw_wait4, raw_waitid};

__attribute__((constructor)) static void resolve_real_waits(void)
{
    void *next = dlsym(RTLD_NEXT, "wait4");
    if (next != NULL)
        memcpy(&real.wait4, &next, sizeof next);
    next = dlsym(RTLD_NEXT, "waitid");
    if (next != NULL)
        memcpy(&real.waitid, &next, sizeof next);
}

/* Writes `value` in decimal at out[length...]; the new length. */
static size_t append_unsigned(char *out, size_t length, unsigned value)
{
    char digits[12];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (count > 0)
        out[length++] = digits[--count];
    return length;
}

void tattle__deaths_record(pid_t pid, int signal_number)
{
    struct tattle_trace_arena *arena = tattle_trace_current;
    if (arena == NULL || pid <= 0)
        return;
    uint32_t count = atomic_load(&arena->actor_count);
    if (count > TATTLE__MAX_ACTORS)
        count = TATTLE__MAX_ACTORS;
    for (uint32_t i = 0; i < count; i++) {
        struct tattle__actor *actor = &arena->actors[i];
        if (actor->pid != pid ||
            !(atomic_load(&actor->flags) & TATTLE__ACTOR_FORKED))
            continue;
        /* Once: a zombie looked at and then collected is one death. */
        if (atomic_fetch_or(&actor->flags, TATTLE__ACTOR_KILLED) &
            TATTLE__ACTOR_KILLED)
            return;
        char name[TATTLE__NAME_MAX + 24];
        size_t length = strnlen(actor->name, TATTLE__NAME_MAX - 1);
        if (length != 0) {
            memcpy(name, actor->name, length);
        } else {
            memcpy(name, "process-", 8);
            length = append_unsigned(name, 8, (unsigned)pid);
        }
        name[length] = '\0';
        char scratch[16];
        const char *text = tattle__signal_name(signal_number, scratch);
        size_t text_length = strlen(text);
        tattle__recorder_record(
            &(struct tattle__event){.kind = TATTLE_TRACE_EXIT,
                                    .from = TATTLE__NAMED(name),
                                    .label = "killed",
                                    .payload = text,
                                    .payload_length = text_length,
                                    .size = text_length,
                                    .text = true});
        return;
    }
}

/* Records the death a successful wait reported. */
static void note_status(pid_t pid, int status)
{
    if (pid > 0 && WIFSIGNALED(status))
        tattle__deaths_record(pid, WTERMSIG(status));
}

static void note_info(const siginfo_t *info, int options)
{
    if (!(options & WNOWAIT) &&
        (info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED))
        tattle__deaths_record(info->si_pid, info->si_status);
}

/* wait4, waitpid and wait all come here, never through the exported
 * wait4: a program's own wait4 (a mock) must not receive the runner's
 * waitpid calls. */
static pid_t collect_and_note(pid_t pid, int *status, int options,
                              struct rusage *usage)
{
    int own_status;
    int *where = status != NULL ? status : &own_status;
    pid_t result = real.wait4(pid, where, options, usage);
    if (tattle_trace_current != NULL && result > 0) {
        int saved = errno;
        note_status(result, *where);
        errno = saved;
    }
    return result;
}

INTERPOSED pid_t wait4(pid_t pid, int *status, int options,
                       struct rusage *usage)
{
    return collect_and_note(pid, status, options, usage);
}

INTERPOSED pid_t waitpid(pid_t pid, int *status, int options)
{
    return collect_and_note(pid, status, options, NULL);
}

INTERPOSED pid_t wait(int *status)
{
    return collect_and_note(-1, status, 0, NULL);
}

INTERPOSED int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
    int result = real.waitid(type, id, info, options);
    if (tattle_trace_current != NULL && result == 0 && info != NULL &&
        info->si_pid > 0) {
        int saved = errno;
        note_info(info, options);
        errno = saved;
    }
    return result;
}

TATTLE__CHILD_PATH void
tattle__deaths_note_unreaped(const struct tattle_trace_arena *arena)
{
    pid_t self = getpid();
    uint32_t count = atomic_load(&arena->actor_count);
    if (count > TATTLE__MAX_ACTORS)
        count = TATTLE__MAX_ACTORS;
    for (uint32_t i = 0; i < count; i++) {
        const struct tattle__actor *actor = &arena->actors[i];
        uint32_t flags = atomic_load(&actor->flags);
        if (actor->pid == self || !(flags & TATTLE__ACTOR_FORKED) ||
            (flags & (TATTLE__ACTOR_EXITED | TATTLE__ACTOR_KILLED)))
            continue;
        siginfo_t info = {0};
        if (raw_waitid(P_PID, (id_t)actor->pid, &info,
                       WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == actor->pid &&
            (info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED))
            tattle__deaths_record(actor->pid, info.si_status);
    }
}
