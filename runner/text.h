/*
 * text.h — small text utilities shared by the runner and reporters.
 *
 * A growable byte buffer (struct tattle__buffer) for building messages and
 * rendered values, the names of states, failure kinds and signals used in
 * every report, and shell quoting for rerun commands.
 */
#ifndef TATTLE_RUNNER_TEXT_H
#define TATTLE_RUNNER_TEXT_H

#include <stdarg.h>
#include <stddef.h>

#include <tattle/tattle.h>

/** A growable, always NUL-terminated byte buffer. Zero-initialize to use;
 * tattle__buffer_release() frees it. Allocation failure aborts the process
 * (the runner cannot report anything without memory). */
struct tattle__buffer {
    char *data;
    size_t length;
    size_t capacity;
};

void tattle__buffer_append(struct tattle__buffer *buffer, const void *bytes,
                           size_t length);
void tattle__buffer_append_string(struct tattle__buffer *buffer,
                                  const char *text);
void tattle__buffer_printf(struct tattle__buffer *buffer, const char *format,
                           ...) TATTLE__PRINTF(2, 3);
void tattle__buffer_vprintf(struct tattle__buffer *buffer, const char *format,
                            va_list args) TATTLE__PRINTF(2, 0);
/** Gives the buffer's text to the caller (free() it) and empties the buffer. */
char *tattle__buffer_take(struct tattle__buffer *buffer);
void tattle__buffer_release(struct tattle__buffer *buffer);

/** "SIGSEGV" for SIGSEGV; "SIG42" for a number without a name. Returns a
 * pointer to static storage for known signals, else into `scratch`. */
const char *tattle__signal_name(int signal_number, char scratch[16]);

/** Appends `text` quoted for a POSIX shell (single quotes when needed). */
void tattle__buffer_append_shell_quoted(struct tattle__buffer *buffer,
                                        const char *text);

/** strdup that aborts on allocation failure; NULL stays NULL. */
char *tattle__strdup(const char *text);
/** malloc/calloc/realloc that abort on failure. */
void *tattle__malloc(size_t size);
void *tattle__calloc(size_t count, size_t size);
void *tattle__realloc(void *pointer, size_t size);

/** Microseconds on the monotonic clock. */
unsigned long long tattle__now_us(void);

#endif /* TATTLE_RUNNER_TEXT_H */
