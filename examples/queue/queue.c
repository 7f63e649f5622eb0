/*
 * queue.c — a bounded ring buffer guarded by a mutex, with a condition
 * variable for waiting consumers.
 */
#include "queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty;
    size_t capacity, head, length;
    int values[];
};

struct queue *queue_new(size_t capacity)
{
    if (capacity == 0)
        return NULL;
    struct queue *q = malloc(sizeof *q + capacity * sizeof(int));
    if (!q)
        return NULL;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->not_empty, NULL);
    q->capacity = capacity;
    q->head = q->length = 0;
    return q;
}

void queue_free(struct queue *q)
{
    if (!q)
        return;
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->not_empty);
    free(q);
}

int queue_push(struct queue *q, int value)
{
    pthread_mutex_lock(&q->lock);
    int rc = -1;
    if (q->length < q->capacity) {
        q->values[(q->head + q->length) % q->capacity] = value;
        q->length++;
        pthread_cond_signal(&q->not_empty);
        rc = 0;
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

static int pop_locked(struct queue *q, int *out)
{
    if (q->length == 0)
        return -1;
    *out = q->values[q->head];
    q->head = (q->head + 1) % q->capacity;
    q->length--;
    return 0;
}

int queue_pop(struct queue *q, int *out)
{
    pthread_mutex_lock(&q->lock);
    int rc = pop_locked(q, out);
    pthread_mutex_unlock(&q->lock);
    return rc;
}

int queue_pop_wait(struct queue *q, int *out, int timeout_ms)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&q->lock);
    while (q->length == 0) {
        if (pthread_cond_timedwait(&q->not_empty, &q->lock, &deadline) ==
            ETIMEDOUT)
            break;
    }
    int rc = pop_locked(q, out);
    pthread_mutex_unlock(&q->lock);
    return rc;
}

size_t queue_length(const struct queue *q)
{
    return q->length;
}

size_t queue_capacity(const struct queue *q)
{
    return q->capacity;
}
