/*
 * name_index.c — names numbered in insertion order (see name_index.h).
 *
 * The name's hash (base/hash.h) picks its place in a power-of-two table of
 * slots probed linearly; the table doubles when it is half full.
 */
#include "base/name_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/hash.h"

/* The slot holding `name`, or the empty slot where it would go. */
static size_t slot_of(const struct tattle__name_index *index, const char *name)
{
    size_t mask = index->slot_count - 1;
    size_t at = (size_t)tattle__hash_text(name) & mask;
    while (index->slots[at] &&
           strcmp(index->names[index->slots[at] - 1], name) != 0)
        at = (at + 1) & mask;
    return at;
}

static void grow_table(struct tattle__name_index *index)
{
    size_t old_count = index->slot_count;
    size_t *old = index->slots;
    index->slot_count = old_count ? old_count * 2 : 16;
    index->slots = tattle__calloc(index->slot_count, sizeof *index->slots);
    for (size_t i = 0; i < old_count; i++)
        if (old[i])
            index->slots[slot_of(index, index->names[old[i] - 1])] = old[i];
    free(old);
}

size_t tattle__name_index_find(const struct tattle__name_index *index,
                               const char *name)
{
    if (!index->slot_count)
        return index->count;
    size_t slot = index->slots[slot_of(index, name)];
    return slot ? slot - 1 : index->count;
}

size_t tattle__name_index_add(struct tattle__name_index *index,
                              const char *name, bool *added)
{
    if ((index->count + 1) * 2 > index->slot_count)
        grow_table(index);
    size_t at = slot_of(index, name);
    if (added)
        *added = !index->slots[at];
    if (index->slots[at])
        return index->slots[at] - 1;
    if (index->count == index->capacity) {
        index->capacity = index->capacity ? index->capacity * 2 : 8;
        index->names = tattle__realloc(index->names,
                                       index->capacity * sizeof *index->names);
    }
    index->names[index->count] = tattle__strdup(name);
    index->slots[at] = ++index->count;
    return index->count - 1;
}

void tattle__name_index_release(struct tattle__name_index *index)
{
    for (size_t i = 0; i < index->count; i++)
        free(index->names[i]);
    free(index->names);
    free(index->slots);
    *index = (struct tattle__name_index){0};
}
