/*
 * session.h — the contract between the runner and the tracer.
 *
 * The runner creates one trace session per traced test (a memfd-backed
 * arena, mapped shared in the runner) and hands the memfd to the test
 * process, which maps it and records into it; when the test has ended the
 * runner freezes the session into a tattle_trace (the model reporters
 * read). The tracer never knows about JSON or reporters; the runner never
 * looks inside the arena.
 *
 * The arena is written by the test's processes, so the runner reads it as
 * untrusted input: through the layout it computed itself, with every
 * count, index and offset bounded. What no honest writer could have left
 * (a header that changed, a count past the budget, a record of no known
 * kind) makes the session corrupted: the freeze then keeps no event and
 * says why (tattle__trace_session_corruption).
 */
#ifndef TATTLE_TRACER_SESSION_H
#define TATTLE_TRACER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <limits.h>
#include <sys/types.h>

#include <tattle/reporter.h>

#include "tracer/arena.h"

/* What a traced test gets unless it, the command line or the configuration
 * asks for other sizes, and the most any of them may ask for. The runner
 * checks requests against these maxima (a request above one is an error,
 * never truncated); the session refuses a cap above its maximum too. */
#define TATTLE__TRACE_CAP_DEFAULT 50
#define TATTLE__TRACE_CAP_MAX 1000000
#define TATTLE__TRACE_BUDGET_DEFAULT 5000
#define TATTLE__TRACE_BUDGET_MAX 100000000
#define TATTLE__TRACE_LEVEL_DEFAULT 100
#define TATTLE__TRACE_LEVEL_MAX INT_MAX
#define TATTLE__TRACE_PAYLOAD_BYTES_DEFAULT 64
#define TATTLE__TRACE_PAYLOAD_BYTES_MAX TATTLE__PAYLOAD_MAX /* a record's */

struct tattle__trace_config {
    uint32_t cap;           /* events kept */
    uint32_t budget;        /* events recorded at most */
    int level;              /* detail threshold */
    uint32_t payload_bytes; /* bytes of each message rendered */
    bool no_ipc;            /* messages through the kernel are not captured */
    uint32_t call_cap;      /* calls kept per thread; 0: calls not traced */
};

/* The configuration of a test that asks for no size of its own. */
#define TATTLE__TRACE_CONFIG_DEFAULT                                           \
    ((struct tattle__trace_config){.cap = TATTLE__TRACE_CAP_DEFAULT,           \
                                   .budget = TATTLE__TRACE_BUDGET_DEFAULT,     \
                                   .level = TATTLE__TRACE_LEVEL_DEFAULT,       \
                                   .payload_bytes =                            \
                                       TATTLE__TRACE_PAYLOAD_BYTES_DEFAULT})

struct tattle__trace_session;

/** The process traced tests are forked from (the fork server), once:
 * does the recorder's per-process setup (its fork and thread-exit hooks,
 * the program's read-only range) so each test inherits it. */
void tattle__trace_prepare_process(void);

/** Runner, before starting the test: creates the arena. Returns 0 or a
 * negative errno. */
int tattle__trace_session_create(struct tattle__trace_session **out,
                                 const struct tattle__trace_config *config);

/** Runner: the arena's memfd and size, to hand to the test process (the
 * descriptor stays the session's). */
int tattle__trace_session_fd(struct tattle__trace_session *session);
uint64_t
tattle__trace_session_size(const struct tattle__trace_session *session);

/** Test process started from a handed-over memfd: maps the arena and
 * records from now on. When messages are captured and the preload library
 * was found, hands the arena down to the programs the test execs
 * (tracer/exec/hand_down.h): the arena's descriptor, moved to a high
 * number, stays open across exec and is *handed_down_fd; otherwise `fd` is
 * closed and *handed_down_fd is -1. Returns 0 or a negative errno (`fd`
 * closed). */
int tattle__trace_attach(int fd, uint64_t size, int *handed_down_fd);

/** Runner, at its start: no hand-down of an outer traced test reaches the
 * processes it starts (tracer/exec/hand_down.h). */
void tattle__trace_hand_down_remove(void);

/** Test process that shares the runner's mapping (--no-fork, or a process
 * forked straight from the one that created the session): records into the
 * arena from now on. */
void tattle__trace_session_activate(struct tattle__trace_session *session);

/** Test process, when the test body, teardown and on-exit callbacks are
 * done (also from the crash handler, async-signal-safe): runs the
 * tattle_mailbox_watch callbacks into the arena, best effort. */
void tattle__trace_session_child_finish(bool from_signal_handler);

/** Runner, on timeout while the test's processes are still alive and
 * halted: takes the mailbox snapshot now (marked approx), with what the
 * kernel still holds in the endpoints `pids` (the test's processes as
 * the runner found them, the test process first) hold open. */
void tattle__trace_session_snapshot_live(struct tattle__trace_session *session,
                                         const pid_t *pids, size_t count);

/** Runner: whether tattle__trace_session_peek_processes would peek
 * anything (messages are captured and no live snapshot was taken), so
 * that processes need halting for it. */
bool tattle__trace_session_peeks_processes(
    const struct tattle__trace_session *session);

/** Runner, once the test process ended, before the processes it left
 * alive are killed (halted by the caller; the runner's own list, never
 * the arena's): peeks what the kernel still holds in the endpoints they
 * hold open, each object once, those the test process peeked at its end
 * kept (tracer/peek.h). */
void tattle__trace_session_peek_processes(struct tattle__trace_session *session,
                                          const pid_t *pids, size_t count);

/** Runner, after the test's processes are gone (or killed): deactivates
 * recording, freezes the rings, snapshots the mailboxes (unless already
 * taken live) and builds the trace. The caller owns *out and frees it with
 * tattle__trace_free(). Returns 0 or a negative errno. */
int tattle__trace_session_freeze(struct tattle__trace_session *session,
                                 struct tattle_trace **out);

/** Runner, after freeze: NULL, or what showed the arena was overwritten
 * (the frozen trace then holds no event and no mailbox). */
const char *
tattle__trace_session_corruption(const struct tattle__trace_session *session);

/** Runner: every process that mapped the arena is known to be dead, so
 * the arena may serve another test once this session is destroyed. */
void tattle__trace_session_mark_reusable(struct tattle__trace_session *session);

/** Runner: unmaps the arena (or keeps it for the next session when that is
 * safe) and frees the session. */
void tattle__trace_session_destroy(struct tattle__trace_session *session);

void tattle__trace_free(struct tattle_trace *trace);

#endif /* TATTLE_TRACER_SESSION_H */
