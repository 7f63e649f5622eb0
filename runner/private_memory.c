/*
 * private_memory.c — anonymous mappings marked MADV_DONTFORK, with their
 * size kept in a header so they can be unmapped from the pointer alone.
 */
#include "runner/private_memory.h"

#include "base/buffer.h"
#include "base/sanitizers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { HEADER = 64 }; /* keeps the items cache-line aligned */

#if TATTLE__LEAK_SANITIZER
/* Under AddressSanitizer this is the heap: LeakSanitizer, run when a test
 * calls exit(), does not scan anonymous mappings (nor memory a forked test
 * did not inherit), so heap blocks only this memory points to would be
 * reported as leaks. A sanitizer build is not about fork speed. */
void *tattle__private_calloc(size_t count, size_t size)
{
    return tattle__calloc(count, size);
}

void tattle__private_free(void *memory)
{
    free(memory);
}
#else
void *tattle__private_calloc(size_t count, size_t size)
{
    if (count == 0 || size == 0)
        count = size = 1;
    if (count > (SIZE_MAX - HEADER) / size) {
        static const char message[] = "tattle: out of memory\n";
        ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
        (void)ignored;
        _exit(3);
    }
    size_t length = HEADER + count * size;
    void *mapping = mmap(NULL, length, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        static const char message[] = "tattle: out of memory\n";
        ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
        (void)ignored;
        _exit(3);
    }
    /* Best effort: without it the memory still works, forks just cost more. */
    madvise(mapping, length, MADV_DONTFORK);
    memcpy(mapping, &length, sizeof length);
    return (char *)mapping + HEADER;
}

void tattle__private_free(void *memory)
{
    if (!memory)
        return;
    char *mapping = (char *)memory - HEADER;
    size_t length;
    memcpy(&length, mapping, sizeof length);
    munmap(mapping, length);
}
#endif
