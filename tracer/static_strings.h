/*
 * static_strings.h — strings in the program's read-only data.
 *
 * Names a test passes to the recorder (labels, mailbox and actor names)
 * are usually string literals. The runner forked the test without exec, so
 * a literal lies at the same address in the runner: the recorder stores
 * such a name as a pointer (8 bytes instead of a copy) and the runner reads
 * the string at freeze. Both sides find the range once per process; the
 * runner reads no further than its end, whatever pointer a test stored.
 */
#ifndef TATTLE_TRACER_STATIC_STRINGS_H
#define TATTLE_TRACER_STATIC_STRINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hidden: the recorder's quick path reads them straight, not through the
 * address of a symbol another module could have provided. */
extern uintptr_t tattle__static_start __attribute__((visibility("hidden")));
extern uintptr_t tattle__static_length __attribute__((visibility("hidden")));

/** Finds the program's read-only range (once; cheap after). */
void tattle__static_strings_locate(void);

/** Whether `pointer` lies in the program's read-only data (after
 * tattle__static_strings_locate()). */
static inline bool tattle__static_string(const void *pointer)
{
    return (uintptr_t)pointer - tattle__static_start < tattle__static_length;
}

/** The length of the string at `pointer` (a static string), at most
 * `max`, reading nothing past the end of the read-only data. */
size_t tattle__static_string_length(const void *pointer, size_t max);

#endif /* TATTLE_TRACER_STATIC_STRINGS_H */
