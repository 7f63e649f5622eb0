/*
 * text.c — growable buffers, report names of states, failure kinds and
 * signals, shell quoting, and allocation helpers that never return NULL.
 */
#include "runner/text.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tattle/reporter.h>

static void out_of_memory(void)
{
    static const char message[] = "tattle: out of memory\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(3);
}

void *tattle__malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *tattle__calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *tattle__realloc(void *pointer, size_t size)
{
    void *p = realloc(pointer, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

char *tattle__strdup(const char *text)
{
    if (!text)
        return NULL;
    size_t length = strlen(text);
    char *copy = tattle__malloc(length + 1);
    memcpy(copy, text, length + 1);
    return copy;
}

static void buffer_reserve(struct tattle__buffer *buffer, size_t extra)
{
    size_t needed = buffer->length + extra + 1;
    if (needed <= buffer->capacity)
        return;
    size_t capacity = buffer->capacity ? buffer->capacity : 64;
    while (capacity < needed)
        capacity *= 2;
    buffer->data = tattle__realloc(buffer->data, capacity);
    buffer->capacity = capacity;
}

void tattle__buffer_append(struct tattle__buffer *buffer, const void *bytes,
                           size_t length)
{
    buffer_reserve(buffer, length);
    if (length)
        memcpy(buffer->data + buffer->length, bytes, length);
    buffer->length += length;
    buffer->data[buffer->length] = '\0';
}

void tattle__buffer_append_string(struct tattle__buffer *buffer,
                                  const char *text)
{
    tattle__buffer_append(buffer, text, strlen(text));
}

void tattle__buffer_vprintf(struct tattle__buffer *buffer, const char *format,
                            va_list args)
{
    char small[256];
    va_list copy;
    va_copy(copy, args);
    int needed = vsnprintf(small, sizeof small, format, copy);
    va_end(copy);
    if (needed < 0)
        return;
    if ((size_t)needed < sizeof small) {
        tattle__buffer_append(buffer, small, (size_t)needed);
        return;
    }
    buffer_reserve(buffer, (size_t)needed);
    vsnprintf(buffer->data + buffer->length, (size_t)needed + 1, format, args);
    buffer->length += (size_t)needed;
}

void tattle__buffer_printf(struct tattle__buffer *buffer, const char *format,
                           ...)
{
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(buffer, format, args);
    va_end(args);
}

char *tattle__buffer_take(struct tattle__buffer *buffer)
{
    if (!buffer->data)
        return tattle__strdup("");
    char *data = buffer->data;
    *buffer = (struct tattle__buffer){0};
    return data;
}

void tattle__buffer_release(struct tattle__buffer *buffer)
{
    free(buffer->data);
    *buffer = (struct tattle__buffer){0};
}

void tattle__buffer_append_shell_quoted(struct tattle__buffer *buffer,
                                        const char *text)
{
    if (*text && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                              "VWXYZ0123456789_-./:=@%+,") == strlen(text)) {
        tattle__buffer_append_string(buffer, text);
        return;
    }
    tattle__buffer_append(buffer, "'", 1);
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            tattle__buffer_append_string(buffer, "'\\''");
        else
            tattle__buffer_append(buffer, p, 1);
    }
    tattle__buffer_append(buffer, "'", 1);
}

const char *tattle__signal_name(int signal_number, char scratch[16])
{
    const char *abbreviation = sigabbrev_np(signal_number);
    if (abbreviation) {
        snprintf(scratch, 16, "SIG%s", abbreviation);
        return scratch;
    }
    snprintf(scratch, 16, "SIG%d", signal_number);
    return scratch;
}

unsigned long long tattle__now_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000ull +
           (unsigned long long)now.tv_nsec / 1000ull;
}

const char *tattle_state_name(enum tattle_state state)
{
    switch (state) {
    case TATTLE_STATE_PASSED: return "passed";
    case TATTLE_STATE_FAILED: return "failed";
    case TATTLE_STATE_SKIPPED: return "skipped";
    case TATTLE_STATE_EXCLUDED: return "excluded";
    case TATTLE_STATE_INVALID: return "invalid";
    }
    return "invalid";
}

const char *tattle_failure_kind_name(enum tattle_failure_kind kind)
{
    switch (kind) {
    case TATTLE_FAILURE_ASSERTION: return "assertion";
    case TATTLE_FAILURE_CRASH: return "crash";
    case TATTLE_FAILURE_TIMEOUT: return "timeout";
    case TATTLE_FAILURE_EXIT: return "exit";
    case TATTLE_FAILURE_ERROR: return "error";
    }
    return "error";
}
