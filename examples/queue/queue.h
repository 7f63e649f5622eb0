/*
 * queue.h — a bounded, thread-safe FIFO of ints: the code under test in
 * tattle's example suite.
 */
#ifndef EXAMPLE_QUEUE_H
#define EXAMPLE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

struct queue;

/** Creates a queue holding at most `capacity` ints; NULL when capacity is
 * 0 or memory is short. Free it with queue_free(). */
struct queue *queue_new(size_t capacity);
void queue_free(struct queue *q);

/** Appends `value`; returns 0, or -1 when the queue is full. */
int queue_push(struct queue *q, int value);
/** Removes the oldest value into *out; returns 0, or -1 when empty. */
int queue_pop(struct queue *q, int *out);
/** Waits up to `timeout_ms` for a value; returns 0, or -1 on timeout. */
int queue_pop_wait(struct queue *q, int *out, int timeout_ms);
size_t queue_length(const struct queue *q);
size_t queue_capacity(const struct queue *q);

#endif /* EXAMPLE_QUEUE_H */
