/*
 * private_memory.h — memory the runner keeps out of its test processes.
 *
 * Every page the runner holds is copied into the page tables of each
 * forked test and torn down when it exits: on a virtual machine that is
 * tens of microseconds per megabyte per test. The runner's bookkeeping
 * that grows with the number of tests (the registry's entries, the run
 * plan) lives in mappings marked MADV_DONTFORK, so a test process costs
 * the same whether the binary holds ten tests or ten thousand. Nothing a
 * test process touches may live here.
 */
#ifndef TATTLE_RUNNER_PRIVATE_MEMORY_H
#define TATTLE_RUNNER_PRIVATE_MEMORY_H

#include <stddef.h>

/** Zeroed memory for `count` items of `size` bytes, not inherited by
 * forked processes. Aborts the process when memory is short. */
void *tattle__private_calloc(size_t count, size_t size);

/** Releases memory from tattle__private_calloc (NULL is fine). */
void tattle__private_free(void *memory);

#endif /* TATTLE_RUNNER_PRIVATE_MEMORY_H */
