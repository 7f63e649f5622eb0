/*
 * hand_down.h — how a traced test hands its arena down to the programs it
 * starts with exec.
 *
 * A traced test process keeps the arena's memfd open across exec (close-
 * on-exec cleared) and puts two things in its environment: LD_PRELOAD
 * naming tattle's preload library (tracer/exec/preload.c), and
 * TATTLE_TRACE_ARENA describing the memfd (its number, size and inode, the
 * session's generation) and the objects the test never records through
 * (its runner's stdout and stderr pipes). A program started with exec
 * inherits both; the preload library parses the variable, checks the
 * descriptor against it and the arena against itself, and joins the
 * session. One module writes and reads the variable, so its format lives
 * here only. Tests that are not traced, and the runner, remove both from
 * their environment.
 */
#ifndef TATTLE_TRACER_EXEC_HAND_DOWN_H
#define TATTLE_TRACER_EXEC_HAND_DOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer/arena.h"

#define TATTLE__HAND_DOWN_VARIABLE "TATTLE_TRACE_ARENA"

/* The lowest number the handed-down descriptor is moved to; when the
 * descriptor limit is below it, the descriptor stays where it is. */
#define TATTLE__HAND_DOWN_FIRST_FD 512
#define TATTLE__PRELOAD_FILE "libtattle_preload.so"

enum { TATTLE__HAND_DOWN_KEYS_MAX = 8 };

/** What TATTLE_TRACE_ARENA says (untrusted until checked). */
struct tattle__hand_down {
    int fd;
    uint64_t size;
    uint64_t inode;
    uint32_t generation;
    size_t key_count;
    uint64_t keys[TATTLE__HAND_DOWN_KEYS_MAX]; /* objects never recorded */
};

/** Runner, once per process (the fork server): finds the preload library
 * (beside libtattle, in the build tree, or where it is installed), so
 * each test process inherits the answer. */
void tattle__hand_down_locate_preload(void);

/** Runner, once per process (the fork server), after its environment is
 * final: makes the environment a traced test hands down (its own, with
 * LD_PRELOAD, ASAN_OPTIONS and TATTLE_TRACE_ARENA in place), so that
 * tattle__hand_down_set need only fill in the arena's value and point
 * `environ` at it: no setenv and no malloc in each test process. A test
 * process whose environment changed since (a fixture of the server's)
 * sets the variables one by one instead. */
void tattle__hand_down_prepare(void);

/** The preload library's path, or NULL when none was found. */
const char *tattle__hand_down_preload_path(void);

/** Traced test process, after it attached `arena` from memfd `fd`: moves
 * `fd` to a high number (TATTLE__HAND_DOWN_FIRST_FD or above, so the
 * test's own descriptors keep the low numbers they would have), keeps it
 * open across exec and sets LD_PRELOAD and TATTLE_TRACE_ARENA. Returns
 * the descriptor handed down (`fd` closed when it moved), or a negative
 * errno (nothing handed down; `fd` untouched). */
int tattle__hand_down_set(int fd, const struct tattle_trace_arena *arena);

/** Traced test process whose environment was replaced after
 * tattle__hand_down_set (a wrapped command's --env/--unset-env): when
 * TATTLE_TRACE_ARENA is still set, puts the preload library back at the
 * head of LD_PRELOAD and the ASan option back into ASAN_OPTIONS.
 * Returns 0 (nothing to do included) or a negative errno. */
int tattle__hand_down_reassert(void);

/** Removes TATTLE_TRACE_ARENA and the preload library from the
 * environment (a process that is not a traced test, or its runner). */
void tattle__hand_down_remove(void);

/** Parses TATTLE_TRACE_ARENA's value strictly. Returns false when it is
 * not exactly what tattle__hand_down_set writes. */
bool tattle__hand_down_parse(const char *text, struct tattle__hand_down *out);

#endif /* TATTLE_TRACER_EXEC_HAND_DOWN_H */
