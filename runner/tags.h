/*
 * tags.h — test tags: parsing `word` / `word:value` lists and matching the
 * `TAG[:VAL]` selectors of --only, --include and --exclude.
 */
#ifndef TATTLE_RUNNER_TAGS_H
#define TATTLE_RUNNER_TAGS_H

#include <stdbool.h>
#include <stddef.h>

#include <tattle/reporter.h>

/** A growable list of tags; names and values are owned by the list. */
struct tattle__tag_list {
    struct tattle_tag *items;
    size_t count;
    size_t capacity;
};

/** Appends the space-separated tags of `text` (NULL is empty). A tag given
 * again replaces the earlier value (test tags override suite tags). */
void tattle__tag_list_parse(struct tattle__tag_list *list, const char *text);
/** Appends or replaces one tag written `word` or `word:value`. */
void tattle__tag_list_add(struct tattle__tag_list *list, const char *word);
void tattle__tag_list_release(struct tattle__tag_list *list);

/** Finds a tag by name, or NULL. */
const struct tattle_tag *tattle__tag_find(const struct tattle_tag *tags,
                                          size_t count, const char *name);

/** True when the tags satisfy `selector` (`TAG` has the tag whatever its
 * value; `TAG:VAL` has the tag with exactly that value). */
bool tattle__tags_match(const struct tattle_tag *tags, size_t count,
                        const char *selector);

/** True when `word` is a valid tag: a name of [A-Za-z0-9_.-] optionally
 * followed by ':' and a non-empty value without spaces. */
bool tattle__tag_is_valid(const char *word);

#endif /* TATTLE_RUNNER_TAGS_H */
