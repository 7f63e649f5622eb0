/*
 * buffer.c — growable buffers and allocation helpers that never fail.
 */
#include "base/buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

char *tattle__buffer_reserve(struct tattle__buffer *buffer, size_t extra)
{
    size_t needed = buffer->length + extra + 1;
    if (needed > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 64;
        while (capacity < needed)
            capacity *= 2;
        buffer->data = tattle__realloc(buffer->data, capacity);
        buffer->capacity = capacity;
    }
    return buffer->data + buffer->length;
}

void tattle__buffer_append(struct tattle__buffer *buffer, const void *bytes,
                           size_t length)
{
    tattle__buffer_reserve(buffer, length);
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
    tattle__buffer_reserve(buffer, (size_t)needed);
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

void tattle__buffer_clear(struct tattle__buffer *buffer)
{
    buffer->length = 0;
    if (buffer->data)
        buffer->data[0] = '\0';
}

void tattle__buffer_release(struct tattle__buffer *buffer)
{
    free(buffer->data);
    *buffer = (struct tattle__buffer){0};
}

void tattle__buffer_append_u_escape(struct tattle__buffer *buffer,
                                    unsigned code_point)
{
    static const char hex[] = "0123456789abcdef";
    char text[6] = {'\\',
                    'u',
                    hex[(code_point >> 12) & 15],
                    hex[(code_point >> 8) & 15],
                    hex[(code_point >> 4) & 15],
                    hex[code_point & 15]};
    tattle__buffer_append(buffer, text, sizeof text);
}
