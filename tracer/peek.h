/*
 * peek.h — what the kernel still holds in the captured endpoints, read
 * without consuming it: the live half of the snapshot's pending endpoint
 * bytes (SPEC 5a), written into the arena's endpoint table for the freeze.
 *
 * The test process peeks its own descriptors at its end and from its
 * crash handler (tracer/test_process/ipc.c); the runner peeks those of
 * every halted process of the test, fetched with pidfd_getfd, before it
 * kills them: at a timeout, and when the test process ended and left
 * others alive (tracer/session.c). Also the identity of an endpoint (its key in
 * the table), shared by the capture that claims entries and the peek that finds
 * them. Everything here is async-signal-safe: raw system calls, no malloc, no
 * lock, errno kept.
 */
#ifndef TATTLE_TRACER_PEEK_H
#define TATTLE_TRACER_PEEK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tracer/arena.h"

/* An eventfd's key is its id under this tag (all eventfds share an inode). */
#define TATTLE__EVENTFD_KEY_TAG UINT64_C(0xefd0000000000000)

/** Append `text`, or the decimal digits of `value`, to the string `out`
 * of `size` bytes whose first `used` are filled, as far as it holds;
 * return the new length. For names and /proc paths built where no
 * malloc or stdio may run. */
size_t tattle__append_text(char *out, size_t size, size_t used,
                           const char *text);
size_t tattle__append_decimal(char *out, size_t size, size_t used,
                              uint64_t value);

/** The endpoint table's key of a pipe, FIFO, socket or queue. */
uint64_t tattle__endpoint_key(dev_t device, ino_t inode);

/** The type (its S_IFMT bits, 0 for an anonymous inode), device and inode
 * of descriptor `fd`, from the attributes the kernel has cached (statx
 * through syscall(2): no FUSE daemon asked, no libc wrapper a test
 * process would fault in for it). False when they cannot be had; errno
 * kept. */
bool tattle__descriptor_identity(int fd, unsigned *type, dev_t *device,
                                 uint64_t *inode);

/** What /proc/self/fdinfo says of an eventfd: false when `fd` is none;
 * else its id, whether it is a semaphore and its counter (each may be
 * NULL). */
bool tattle__eventfd_info(int fd, uint64_t *id, bool *semaphore,
                          uint64_t *count);

/** Peeks every endpoint of `arena` that a descriptor of a process holds
 * and marks its entry peeked by `taker`: the calling process's own
 * descriptors when `pidfd` is -1, else those of the process `pidfd`
 * refers to (listed from /proc/`pid`/fd, fetched one at a time with
 * pidfd_getfd and closed again). An entry another taker peeked, or this
 * one already read bytes of, is left as it is: each kernel object is
 * peeked once. Returns whether the whole list was read (the caller then
 * sets the arena's `peek_taken`); false when the list or a descriptor
 * could not be had. Never consumes a byte and never
 * changes a descriptor's flags: MSG_PEEK|MSG_DONTWAIT on sockets (not at
 * all on one with SO_PEEK_OFF set, whose peek would move its offset),
 * tee(2) with SPLICE_F_NONBLOCK into a scratch pipe on pipes and FIFOs,
 * FIONREAD for counts, the eventfd's counter from fdinfo, mq_getattr for
 * a queue (a count only: a queue's messages cannot be peeked). */
bool tattle__peek_held(struct tattle_trace_arena *arena, int pidfd, pid_t pid,
                       enum tattle__peek_taker taker);

#endif /* TATTLE_TRACER_PEEK_H */
