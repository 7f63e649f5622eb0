/*
 * symbolize.h — turning a crash's raw return addresses into frames.
 *
 * The test process was forked from the runner without exec, so the code it
 * ran is mapped at the same addresses in the runner, except what it loaded
 * itself (dlopen): its crash handler rings the runner, which reads the
 * process's maps while the handler waits, and the addresses are looked up
 * with libdw in the modules those maps name (function names from the
 * symbol tables, file:line where debug info exists). The runner's own
 * image names them only when the crash did not ring, for its vDSO, and
 * for a module the maps show at the same address whose file can no
 * longer be read. Every lookup runs in a process forked for it, so that
 * libdw's sessions leave the runner's memory as it was (the stacks of a
 * timeout are unwound in the runner, which traces the test's threads:
 * runner/stacks.c).
 */
#ifndef TATTLE_RUNNER_SYMBOLIZE_H
#define TATTLE_RUNNER_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tattle/reporter.h>

#include "runner/lookup_process.h" /* tattle__frames_free */

/** Symbolizes `count` addresses captured by the crash handler, dropping the
 * handler's own frames and the runner's frames below the test: in the
 * modules `maps` names (what tattle__symbolize_take_maps read), or in the
 * runner's own image when `maps` is NULL. Returns a malloc'd array (the caller
 * frees it with tattle__frames_free) and stores its length in
 * *frame_count. */
struct tattle_frame *tattle__symbolize(const uintptr_t *addresses, int count,
                                       const char *maps, size_t *frame_count);

/** The lines of /proc/`pid`/maps that name where the `count` crash
 * `addresses` lie: every line of each file holding one (at most as many
 * files as a crash has frames), and each line holding one. malloc'd text;
 * NULL when none does or the maps cannot be read. However many mappings
 * the process has, the text stays that small, and so does the session
 * that reads it. */
char *tattle__symbolize_take_maps(pid_t pid, const uintptr_t *addresses,
                                  int count);

/** The name of the function at `address` (a function's entry), malloc'd;
 * NULL when no symbol table names it. */
char *tattle__symbolize_function(const void *address);

/** Names the functions whose entries are at `count` addresses, with one
 * libdw session for all (each frame's strings malloc'd; NULL and line 0
 * when unknown). The freeze's symbolizer for traced calls. */
void tattle__symbolize_calls(const uint64_t *addresses, size_t count,
                             struct tattle_frame *frames);

#endif /* TATTLE_RUNNER_SYMBOLIZE_H */
