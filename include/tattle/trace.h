/*
 * trace.h — the flight recorder's recording API and traced mailboxes.
 *
 * A test tagged `trace_messages` runs with a private shared-memory arena
 * that the runner creates before forking it. These calls record messages
 * and events into that arena, lock-free and without malloc, from any thread
 * or forked child of the test. When the test is not traced each call costs
 * one predictable branch: the recording calls are macros that test one
 * global pointer before calling the function, so their arguments are not
 * evaluated when the test is not traced (call `(tattle_trace_send)(...)`
 * to bypass the macro). Traced mailboxes are bounded, thread-safe queues
 * whose storage lives in shared memory, usable across fork(); they record
 * their sends and receives themselves, and their pending messages are
 * snapshotted when the test ends, even after a crash.
 *
 * Limits of one traced test (what does not fit is refused, never lost
 * silently): TATTLE_TRACE_MAX_ACTORS recording threads and processes (the
 * events of any further one are refused), TATTLE_TRACE_MAX_MAILBOXES
 * mailboxes opened over the test's life and TATTLE_TRACE_MAILBOX_HEAP_BYTES
 * of mailbox storage (tattle_mailbox_open fails with ENOSPC past either),
 * TATTLE_TRACE_MAX_WATCHES watched queues (tattle_mailbox_watch returns
 * -ENOSPC), TATTLE_MAILBOX_MESSAGE_MAX bytes per message. In the trace,
 * `overflow` is true when any event was lost: past the budget, or refused
 * for lack of room.
 */
#ifndef TATTLE_TRACE_H
#define TATTLE_TRACE_H

#include <stddef.h>

#include "tattle.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Names the calling thread (or process) in the trace. The name is copied
 * (bounded); the caller keeps ownership of its string. */
TATTLE_API void tattle_actor_name(const char *name);

/** Records that the calling actor sent `len` bytes of `msg` to `to`. */
TATTLE_API void tattle_trace_send(const char *to, const char *label,
                                  const void *msg, size_t len);

/** Records that the calling actor received `len` bytes from `from`. */
TATTLE_API void tattle_trace_recv(const char *from, const char *label,
                                  const void *msg, size_t len);

/** Records a free-form event, kept only when `level` is below the test's
 * trace level threshold. */
TATTLE_API void tattle_trace_event(int level, const char *from, const char *to,
                                   const char *label, const char *format, ...)
    TATTLE__PRINTF(5, 6);

/** The largest message and label (with its NUL) a mailbox carries. */
#define TATTLE_MAILBOX_MESSAGE_MAX 1024
#define TATTLE_MAILBOX_LABEL_MAX 32

/** The limits of one traced test (see the opening comment). A mailbox of
 * capacity n takes about n * 1.3 KiB of the mailbox storage. */
#define TATTLE_TRACE_MAX_ACTORS 128
#define TATTLE_TRACE_MAX_MAILBOXES 64
#define TATTLE_TRACE_MAX_WATCHES 16
#define TATTLE_TRACE_MAILBOX_HEAP_BYTES (16 << 20)

/** What an instrumented call costs on this machine, in nanoseconds: the
 * hook at a function's entry and at its exit in a `trace_calls` test, and
 * either hook in any other test (see tattle_instrument in the CMake
 * package). */
struct tattle_trace_overhead {
    double enter_ns;
    double exit_ns;
    double untraced_ns;
};

/** Measures the hooks with `n` calls of each (0: a default of a million)
 * in a call-traced arena of its own, made and freed here. Call it outside
 * a traced test: inside one it measures nothing, returns zeros and sets
 * errno to EBUSY (as it does, with the error, when no arena can be made). */
TATTLE_API struct tattle_trace_overhead tattle_trace_overhead(unsigned n);

/** A bounded, thread-safe, fork-shared message queue. */
typedef struct tattle_mailbox tattle_mailbox;

/** Renders one message of a mailbox as text into `out` (at most `out_len`
 * bytes including the NUL); returns the length written. */
typedef size_t (*tattle_mailbox_formatter)(const char *label, const void *msg,
                                           size_t len, char *out,
                                           size_t out_len);

/** Opens (creates) a mailbox holding at most `capacity` messages (1 to
 * 4096). Returns it, or NULL with errno set: EINVAL for a bad capacity;
 * ENOSPC in a traced test past TATTLE_TRACE_MAX_MAILBOXES or when the
 * trace's mailbox storage is full; ENOMEM when an untraced mailbox cannot
 * be mapped. The mailbox
 * is owned by the test and its memory is freed when the test process ends
 * (tattle_mailbox_close() releases most of it); open it before forking the
 * processes that share it. In a traced test its storage lives in the
 * trace arena and its pending messages appear in the trace; otherwise it
 * lives in a shared anonymous mapping, with the same semantics. */
TATTLE_API tattle_mailbox *tattle_mailbox_open(const char *name,
                                               size_t capacity);

/** Copies a message into the mailbox, blocking while it is full. Returns 0,
 * or a negative errno-style code (-EMSGSIZE when larger than
 * TATTLE_MAILBOX_MESSAGE_MAX, -EPIPE when the mailbox was closed). The
 * label is copied truncated to TATTLE_MAILBOX_LABEL_MAX - 1 bytes. */
TATTLE_API int tattle_mailbox_send(tattle_mailbox *mailbox, const char *label,
                                   const void *msg, size_t len);

/** Takes the oldest message, waiting up to `timeout_ms` (-1: forever).
 * Returns the message's length (0 to TATTLE_MAILBOX_MESSAGE_MAX), or a
 * negative errno-style code: -ETIMEDOUT, -EPIPE when the mailbox was
 * closed, -EINVAL. The label and message are copied into the caller's
 * buffers (truncated to their sizes). */
TATTLE_API int tattle_mailbox_recv(tattle_mailbox *mailbox, char *label_buf,
                                   size_t label_len, void *msg_buf,
                                   size_t msg_len, int timeout_ms);

/** Closes the mailbox; pending messages are discarded, every blocked
 * caller wakes and returns -EPIPE, and later sends and receives return
 * -EPIPE. The handle stays valid until the test process ends (so callers
 * racing with close are safe); closing twice is harmless. */
TATTLE_API void tattle_mailbox_close(tattle_mailbox *mailbox);

/** Sets how the mailbox's messages are rendered in traces and snapshots.
 * The formatter runs in the sending thread, when the message is sent (so
 * a snapshot taken after a crash still has the text). */
TATTLE_API void tattle_mailbox_set_formatter(tattle_mailbox *mailbox,
                                             tattle_mailbox_formatter fn);

/** Called at snapshot time for a watched user-owned queue: writes each
 * pending message with `emit(emit_ctx, text)`. */
typedef void (*tattle_snapshot_fn)(
    void *ctx, void (*emit)(void *emit_ctx, const char *text), void *emit_ctx);

/** Lets a user-owned queue take part in the mailbox snapshot: `fn(ctx, ...)`
 * is called in the test process when the test fails or ends (best effort).
 * Returns 0 or a negative errno-style code. */
TATTLE_API int tattle_mailbox_watch(const char *name, tattle_snapshot_fn fn,
                                    void *ctx);

/** The flight recorder's shared-memory arena of a traced test (opaque). */
typedef struct tattle_trace_arena tattle_trace_arena;

/** The arena the current process records into: non-NULL exactly while the
 * current test is traced (in the test process and its threads and forked
 * children), NULL otherwise. tattle sets it; a test may read it to ask
 * whether it is traced and must not write it. The recording macros below
 * test it, so an untraced call costs one predictable branch. */
extern TATTLE_API tattle_trace_arena *tattle_trace_current;

#if defined(__GNUC__)
#define TATTLE__TRACING() __builtin_expect(tattle_trace_current != 0, 0)
#else
#define TATTLE__TRACING() (tattle_trace_current != 0)
#endif

#define tattle_trace_send(...)                                                 \
    (TATTLE__TRACING() ? tattle_trace_send(__VA_ARGS__) : (void)0)
#define tattle_trace_recv(...)                                                 \
    (TATTLE__TRACING() ? tattle_trace_recv(__VA_ARGS__) : (void)0)
#define tattle_trace_event(...)                                                \
    (TATTLE__TRACING() ? tattle_trace_event(__VA_ARGS__) : (void)0)

#ifdef __cplusplus
}
#endif

#endif /* TATTLE_TRACE_H */
