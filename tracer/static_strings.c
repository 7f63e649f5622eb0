/*
 * static_strings.c — locating the program's read-only data (see
 * static_strings.h).
 */
#include "tracer/static_strings.h"

#include <link.h>
#include <string.h>

#include "base/child_path.h"

uintptr_t tattle__static_start;
uintptr_t tattle__static_length;
static bool located;

static int find_static_range(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    uintptr_t start = UINTPTR_MAX, end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W))
            continue;
        uintptr_t low = info->dlpi_addr + segment->p_vaddr;
        uintptr_t high = low + segment->p_memsz;
        if (low < start)
            start = low;
        if (high > end)
            end = high;
    }
    /* The span must not contain a writable segment. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_W))
            continue;
        uintptr_t low = info->dlpi_addr + segment->p_vaddr;
        uintptr_t high = low + segment->p_memsz;
        if (low < end && high > start)
            end = start;
    }
    if (end > start) {
        tattle__static_start = start;
        tattle__static_length = end - start;
    }
    return 1; /* the first object is the program itself */
}

TATTLE__CHILD_PATH void tattle__static_strings_locate(void)
{
    if (!located) {
        dl_iterate_phdr(find_static_range, NULL);
        located = true;
    }
}

size_t tattle__static_string_length(const void *pointer, size_t max)
{
    size_t left =
        tattle__static_length - ((uintptr_t)pointer - tattle__static_start);
    return strnlen(pointer, max < left ? max : left);
}
