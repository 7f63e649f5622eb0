/*
 * tags.c — parsing and matching test tags.
 *
 * Tags are space-separated words; a word may carry a value after the first
 * colon (`area:net`). Suite tags come first in a test's list and a test's
 * own tag of the same name replaces the suite's value.
 */
#include "runner/tags.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"

bool tattle__tag_is_valid(const char *word)
{
    const char *p = word;
    if (!*p || *p == ':')
        return false;
    for (; *p && *p != ':'; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
            return false;
    if (*p == ':') {
        p++;
        if (!*p)
            return false;
        for (; *p; p++)
            if (isspace((unsigned char)*p))
                return false;
    }
    return true;
}

const struct tattle_tag *tattle__tag_find(const struct tattle_tag *tags,
                                          size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(tags[i].name, name) == 0)
            return &tags[i];
    return NULL;
}

void tattle__tag_list_add(struct tattle__tag_list *list, const char *word)
{
    const char *colon = strchr(word, ':');
    size_t name_length = colon ? (size_t)(colon - word) : strlen(word);
    char *name = tattle__malloc(name_length + 1);
    memcpy(name, word, name_length);
    name[name_length] = '\0';
    char *value = colon ? tattle__strdup(colon + 1) : NULL;

    for (size_t i = 0; i < list->count; i++) {
        if (strcmp(list->items[i].name, name) == 0) {
            free(name);
            free((char *)list->items[i].value);
            list->items[i].value = value;
            return;
        }
    }
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 4;
        list->items =
            tattle__realloc(list->items, list->capacity * sizeof *list->items);
    }
    list->items[list->count++] = (struct tattle_tag){name, value};
}

void tattle__tag_list_parse(struct tattle__tag_list *list, const char *text)
{
    if (!text)
        return;
    const char *p = text;
    while (*p) {
        while (isspace((unsigned char)*p))
            p++;
        const char *start = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (p > start) {
            char *word = tattle__malloc((size_t)(p - start) + 1);
            memcpy(word, start, (size_t)(p - start));
            word[p - start] = '\0';
            tattle__tag_list_add(list, word);
            free(word);
        }
    }
}

void tattle__tag_list_release(struct tattle__tag_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free((char *)list->items[i].name);
        free((char *)list->items[i].value);
    }
    free(list->items);
    *list = (struct tattle__tag_list){0};
}

bool tattle__tags_match(const struct tattle_tag *tags, size_t count,
                        const char *selector)
{
    const char *colon = strchr(selector, ':');
    size_t name_length = colon ? (size_t)(colon - selector) : strlen(selector);
    for (size_t i = 0; i < count; i++) {
        if (strlen(tags[i].name) != name_length ||
            strncmp(tags[i].name, selector, name_length) != 0)
            continue;
        if (!colon)
            return true;
        return tags[i].value && strcmp(tags[i].value, colon + 1) == 0;
    }
    return false;
}
