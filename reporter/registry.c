/*
 * registry.c — reporter types by name.
 *
 * The built-in reporters are listed in a static table; plugins add theirs
 * with tattle_reporter_register(). Lookups walk both; the list is tiny.
 */
#include <string.h>

#include "reporter/registry.h"

#include "base/error.h"
#include "reporter/builtin.h"

static const struct tattle_reporter_type *const builtin_reporters[] = {
    &tattle__reporter_console,      &tattle__reporter_json,
    &tattle__reporter_compact,      &tattle__reporter_jsonl,
    &tattle__reporter_junit,        &tattle__reporter_github,
    &tattle__reporter_tap,          &tattle__reporter_ctrf,
    &tattle__reporter_html,         &tattle__reporter_flamegraph,
    &tattle__reporter_chrome_trace,
};

static const struct tattle_reporter_type
    *plugin_reporters[TATTLE_REPORTER_PLUGIN_MAX];
static size_t plugin_reporter_count;

const struct tattle_reporter_type *tattle_reporter_find(const char *name)
{
    for (size_t i = 0; i < sizeof builtin_reporters / sizeof *builtin_reporters;
         i++)
        if (strcmp(builtin_reporters[i]->name, name) == 0)
            return builtin_reporters[i];
    for (size_t i = 0; i < plugin_reporter_count; i++)
        if (strcmp(plugin_reporters[i]->name, name) == 0)
            return plugin_reporters[i];
    return NULL;
}

int tattle_reporter_register(const struct tattle_reporter_type *type)
{
    if (tattle_reporter_find(type->name) != NULL)
        return TATTLE__EEXIST;
    if (plugin_reporter_count == TATTLE_REPORTER_PLUGIN_MAX)
        return TATTLE__ENOSPC;
    plugin_reporters[plugin_reporter_count++] = type;
    return 0;
}

size_t tattle__reporter_count(void)
{
    return sizeof builtin_reporters / sizeof *builtin_reporters +
           plugin_reporter_count;
}

const struct tattle_reporter_type *tattle__reporter_at(size_t index)
{
    size_t builtin_count = sizeof builtin_reporters / sizeof *builtin_reporters;
    return index < builtin_count ? builtin_reporters[index]
                                 : plugin_reporters[index - builtin_count];
}

void tattle__reporter_append_names(struct tattle__buffer *out)
{
    for (size_t i = 0; i < tattle__reporter_count(); i++)
        tattle__buffer_printf(out, "%s%s", i > 0 ? ", " : "",
                              tattle__reporter_at(i)->name);
}
