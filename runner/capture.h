/*
 * capture.h — bounded capture of one output stream of a test.
 *
 * The runner reads a test's stdout and stderr pipes as data arrives and
 * feeds each capture: the first `head_limit` bytes and the last
 * `tail_limit` bytes are kept, every byte is counted. A test printing
 * 50 MB costs the runner head+tail bytes of memory, and the byte count in
 * the report stays exact.
 */
#ifndef TATTLE_RUNNER_CAPTURE_H
#define TATTLE_RUNNER_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "base/buffer.h"

/** What the runner keeps of each output stream of a test: its first and
 * last bytes. Output read from elsewhere (a JUnit report's <system-out>)
 * is kept within the same bounds. */
enum {
    TATTLE__CAPTURE_HEAD = 32 * 1024,
    TATTLE__CAPTURE_TAIL = 32 * 1024,
};

struct tattle__capture {
    unsigned char *head;
    size_t head_length, head_limit;
    unsigned char *tail; /* ring of the last bytes */
    size_t tail_next, tail_length, tail_limit;
    uint64_t bytes;
};

void tattle__capture_init(struct tattle__capture *capture, size_t head_limit,
                          size_t tail_limit);
void tattle__capture_release(struct tattle__capture *capture);
void tattle__capture_reset(struct tattle__capture *capture);
void tattle__capture_feed(struct tattle__capture *capture, const void *data,
                          size_t length);
/** Adds `note`, a line of the runner's own, to the stream: on a line of
 * its own, counted as the stream's (the report's text and counts agree). */
void tattle__capture_note(struct tattle__capture *capture, const char *note);
/** Fills `output` with the kept text (head, an omission marker, tail),
 * stored in `storage` (the caller releases it). */
void tattle__capture_render(const struct tattle__capture *capture,
                            struct tattle_output *output,
                            struct tattle__buffer *storage);

#endif /* TATTLE_RUNNER_CAPTURE_H */
