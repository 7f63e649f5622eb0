/*
 * lookup_process.h — running a lookup of frames in a process forked for
 * it, so that what the lookup allocates, maps and reaches of the stack
 * stays out of the runner.
 *
 * The symbolizer's libdw sessions grow the heap of the process they run
 * in and leave it larger after they end; in the runner that memory would
 * be copied by every later fork of it. The process forked for a lookup
 * runs it, sends the frames back through a pipe and exits; the runner
 * waits for it within a budget and kills it when the budget runs out.
 */
#ifndef TATTLE_RUNNER_LOOKUP_PROCESS_H
#define TATTLE_RUNNER_LOOKUP_PROCESS_H

#include <stdbool.h>
#include <stddef.h>

#include <tattle/reporter.h>

/** A lookup: fills at most `room` frames (each string malloc'd, or NULL)
 * from `request` and returns how many it filled. */
typedef size_t tattle__frames_lookup(const void *request,
                                     struct tattle_frame *frames, size_t room);

/** Runs `look_up` in a process forked for it and takes the frames it
 * found into `frames` (`room` of them, zeroed by the caller). Returns how
 * many, or -1 when the process did not finish its answer (it died, or was
 * still at work after `budget_ms` and was killed): then `frames` hold
 * nothing. Where no process can be forked, the lookup runs here. */
long tattle__look_up_in_a_process(tattle__frames_lookup *look_up,
                                  const void *request,
                                  struct tattle_frame *frames, size_t room,
                                  unsigned budget_ms);

/** Frees the strings of `count` frames (NULL after). */
void tattle__frames_free(struct tattle_frame *frames, size_t count);

/** Whether this process is one forked for a lookup (which exits when it is
 * done, so freeing memory to the system is wasted work there). */
bool tattle__in_a_lookup_process(void);

#endif /* TATTLE_RUNNER_LOOKUP_PROCESS_H */
