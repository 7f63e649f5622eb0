/*
 * name_index.h — a set of names numbered in the order they were first
 * added: the participants of a sequence diagram, the suites and tags a
 * report lists. A hash table keeps each lookup constant-time, so a trace
 * or a report naming many distinct things costs linear time, not
 * quadratic.
 */
#ifndef TATTLE_BASE_NAME_INDEX_H
#define TATTLE_BASE_NAME_INDEX_H

#include <stdbool.h>
#include <stddef.h>

/** Zero-initialize to use; tattle__name_index_release() frees it. The
 * index owns copies of its names: names[i] is the i-th name added. */
struct tattle__name_index {
    char **names;
    size_t count;
    size_t capacity;
    size_t *slots; /* open addressing: index + 1, 0 when empty */
    size_t slot_count;
};

/** The number of `name` (NUL-terminated), adding a copy of it when it is
 * new; `*added` (when not NULL) says whether it was. */
size_t tattle__name_index_add(struct tattle__name_index *index,
                              const char *name, bool *added);

/** The number of `name`, or `index->count` when it is not there. */
size_t tattle__name_index_find(const struct tattle__name_index *index,
                               const char *name);

/** Frees the names and the table; the index is empty again. */
void tattle__name_index_release(struct tattle__name_index *index);

#endif /* TATTLE_BASE_NAME_INDEX_H */
