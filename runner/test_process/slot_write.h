/*
 * slot_write.h — what a test process writes into its result slot
 * (runner/slot.h has the layout the runner reads back).
 */
#ifndef TATTLE_RUNNER_TEST_PROCESS_SLOT_WRITE_H
#define TATTLE_RUNNER_TEST_PROCESS_SLOT_WRITE_H

#include <stdbool.h>
#include <sys/types.h>

#include "runner/slot.h"

/* Each returns false when the slot is full. */
bool tattle__slot_add_failure(struct tattle__slot *slot,
                              const struct tattle__slot_failure *failure);
bool tattle__slot_add_skip(struct tattle__slot *slot, const char *reason,
                           const char *file, int line);
/** Async-signal-safe: records a crash of process `pid` (0: of whichever
 * process the runner sees die) and the raw return addresses. */
bool tattle__slot_add_crash(struct tattle__slot *slot, pid_t pid,
                            int signal_number, void *const *frames,
                            int frame_count);
/** Names the calling process (`owner`, its pid) the slot's owner: the
 * room kept at the end for crash records is its alone, so however many
 * crashes of processes it forks fill the slot, its own crash still has
 * room. Called by the process itself before it runs a test or fixture. */
void tattle__slot_claim_ownership(struct tattle__slot *slot, pid_t owner);

#endif /* TATTLE_RUNNER_TEST_PROCESS_SLOT_WRITE_H */
