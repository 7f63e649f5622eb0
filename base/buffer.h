/*
 * buffer.h — growable byte buffers and allocation that never returns NULL.
 *
 * The one growable buffer of the project: messages, rendered values,
 * captured output, JSON fragments and file contents are built in a struct
 * tattle__buffer. Allocation failure ends the process with exit status 3
 * (the runner cannot report anything without memory), so callers never
 * check for NULL.
 */
#ifndef TATTLE_BASE_BUFFER_H
#define TATTLE_BASE_BUFFER_H

#include <stdarg.h>
#include <stddef.h>

#include <tattle/tattle.h>

/** A growable, always NUL-terminated byte buffer. Zero-initialize to use;
 * tattle__buffer_release() frees it. */
struct tattle__buffer {
    char *data;
    size_t length;
    size_t capacity;
};

void tattle__buffer_append(struct tattle__buffer *buffer, const void *bytes,
                           size_t length);
void tattle__buffer_append_string(struct tattle__buffer *buffer,
                                  const char *text);

/** Appends the visible form of a character that must not be written raw
 * (a control character in a log or an XML file): \u001b. */
void tattle__buffer_append_u_escape(struct tattle__buffer *buffer,
                                    unsigned code_point);
void tattle__buffer_printf(struct tattle__buffer *buffer, const char *format,
                           ...) TATTLE__PRINTF(2, 3);
void tattle__buffer_vprintf(struct tattle__buffer *buffer, const char *format,
                            va_list args) TATTLE__PRINTF(2, 0);
/** Makes room for `extra` more bytes (and the NUL) without changing the
 * contents; returns where they go. */
char *tattle__buffer_reserve(struct tattle__buffer *buffer, size_t extra);
/** Gives the buffer's text to the caller (free() it) and empties the
 * buffer; an empty buffer gives "". */
char *tattle__buffer_take(struct tattle__buffer *buffer);
/** Empties the buffer, keeping its memory for reuse. */
void tattle__buffer_clear(struct tattle__buffer *buffer);
void tattle__buffer_release(struct tattle__buffer *buffer);

/** strdup that aborts on allocation failure; NULL stays NULL. */
char *tattle__strdup(const char *text);
/** malloc/calloc/realloc that end the process on failure. */
void *tattle__malloc(size_t size);
void *tattle__calloc(size_t count, size_t size);
void *tattle__realloc(void *pointer, size_t size);

#endif /* TATTLE_BASE_BUFFER_H */
