/*
 * capture.c — head-and-tail capture of a test's output stream.
 */
#include "runner/capture.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void tattle__capture_init(struct tattle__capture *capture, size_t head_limit,
                          size_t tail_limit)
{
    *capture = (struct tattle__capture){0};
    capture->head_limit = head_limit;
    capture->tail_limit = tail_limit;
    capture->head = tattle__malloc(head_limit);
    capture->tail = tattle__malloc(tail_limit);
}

void tattle__capture_release(struct tattle__capture *capture)
{
    free(capture->head);
    free(capture->tail);
    *capture = (struct tattle__capture){0};
}

void tattle__capture_reset(struct tattle__capture *capture)
{
    capture->head_length = 0;
    capture->tail_next = 0;
    capture->tail_length = 0;
    capture->bytes = 0;
}

void tattle__capture_feed(struct tattle__capture *capture, const void *data,
                          size_t length)
{
    const unsigned char *bytes = data;
    capture->bytes += length;
    size_t to_head = capture->head_limit - capture->head_length;
    if (to_head > length)
        to_head = length;
    memcpy(capture->head + capture->head_length, bytes, to_head);
    capture->head_length += to_head;
    bytes += to_head;
    length -= to_head;
    if (length == 0 || capture->tail_limit == 0)
        return;
    if (length >= capture->tail_limit) {
        memcpy(capture->tail, bytes + length - capture->tail_limit,
               capture->tail_limit);
        capture->tail_next = 0;
        capture->tail_length = capture->tail_limit;
        return;
    }
    size_t first = capture->tail_limit - capture->tail_next;
    if (first > length)
        first = length;
    memcpy(capture->tail + capture->tail_next, bytes, first);
    memcpy(capture->tail, bytes + first, length - first);
    capture->tail_next = (capture->tail_next + length) % capture->tail_limit;
    capture->tail_length += length;
    if (capture->tail_length > capture->tail_limit)
        capture->tail_length = capture->tail_limit;
}

/* The last byte kept, or -1 when nothing is. */
static int last_kept_byte(const struct tattle__capture *capture)
{
    if (capture->tail_length > 0)
        return capture->tail[(capture->tail_next + capture->tail_limit - 1) %
                             capture->tail_limit];
    if (capture->head_length > 0)
        return capture->head[capture->head_length - 1];
    return -1;
}

void tattle__capture_note(struct tattle__capture *capture, const char *note)
{
    int last = last_kept_byte(capture);
    if (last >= 0 && last != '\n')
        tattle__capture_feed(capture, "\n", 1);
    tattle__capture_feed(capture, note, strlen(note));
    tattle__capture_feed(capture, "\n", 1);
}

void tattle__capture_render(const struct tattle__capture *capture,
                            struct tattle_output *output,
                            struct tattle__buffer *storage)
{
    tattle__buffer_append(storage, capture->head, capture->head_length);
    uint64_t omitted =
        capture->bytes - capture->head_length - capture->tail_length;
    if (omitted > 0)
        tattle__buffer_printf(storage,
                              "\n[... tattle: %" PRIu64 " bytes omitted ...]\n",
                              omitted);
    size_t start =
        (capture->tail_next + capture->tail_limit - capture->tail_length) %
        (capture->tail_limit ? capture->tail_limit : 1);
    size_t first = capture->tail_limit - start;
    if (first > capture->tail_length)
        first = capture->tail_length;
    tattle__buffer_append(storage, capture->tail + start, first);
    tattle__buffer_append(storage, capture->tail, capture->tail_length - first);
    if (!storage->data)
        tattle__buffer_append(storage, "", 0);
    *output = (struct tattle_output){
        .text = storage->data,
        .length = storage->length,
        .bytes = capture->bytes,
        .truncated = omitted > 0,
    };
}
