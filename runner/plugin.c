/*
 * plugin.c — loading reporter plugins (see plugin.h).
 *
 * A plugin is opened with RTLD_NOW (an unresolved symbol is an error now,
 * not a crash in the middle of the run) and RTLD_LOCAL (its symbols stay
 * its own), asked for its reporter type through the one documented entry
 * function, and checked before it is registered: the ABI version it was
 * built with, a usable name, every callback a reporter must have, and no
 * other reporter of the same name. Plugins are never unloaded: the
 * registry keeps their types for the rest of the process.
 */
#include "runner/plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tattle/reporter.h>

#include "base/error.h"

bool tattle__plugin_is_path(const char *name)
{
    size_t length = strlen(name);
    return strchr(name, '/') != NULL ||
           (length > 3 && strcmp(name + length - 3, ".so") == 0);
}

/* The one-line error "cannot load the reporter plugin 'PATH': WHY",
 * after the place in tattle.yml that named the plugin, if one did. */
static int fail(struct tattle__buffer *error,
                const struct tattle__reporter_request *request, const char *why)
{
    if (request->named_at)
        tattle__buffer_printf(error, "%s: ", request->named_at);
    tattle__buffer_printf(error, "cannot load the reporter plugin '%s': %s",
                          request->name, why);
    return -EINVAL;
}

/* dlerror() text on one line (it names the path already, and may name
 * the missing symbol or library). */
static int fail_dlerror(struct tattle__buffer *error,
                        const struct tattle__reporter_request *request)
{
    const char *why = dlerror();
    struct tattle__buffer line = {0};
    tattle__buffer_append_string(&line, why ? why : "dlopen failed");
    for (size_t i = 0; i < line.length; i++)
        if (line.data[i] == '\n')
            line.data[i] = ' ';
    fail(error, request, line.data);
    tattle__buffer_release(&line);
    return -EINVAL;
}

static bool name_is_usable(const char *name)
{
    return name && *name && strlen(name) < 64 && !strchr(name, '=') &&
           !tattle__plugin_is_path(name);
}

/* Opens the plugin `request` names and returns its checked reporter
 * type, or NULL with the error in `error`. */
static const struct tattle_reporter_type *
load_type(const struct tattle__reporter_request *request,
          struct tattle__buffer *error)
{
    const char *path = request->name;
    struct stat status;
    if (stat(path, &status) != 0) {
        fail(error, request, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(status.st_mode)) {
        fail(error, request, "not a regular file");
        return NULL;
    }
    /* dlopen searches the library path for a name without a '/': a plugin
     * named on the command line is always the file of that name. */
    struct tattle__buffer file = {0};
    tattle__buffer_printf(&file, "%s%s", strchr(path, '/') ? "" : "./", path);
    void *library = dlopen(file.data, RTLD_NOW | RTLD_LOCAL);
    tattle__buffer_release(&file);
    if (!library) {
        fail_dlerror(error, request);
        return NULL;
    }
    tattle_reporter_plugin_function *entry;
    *(void **)&entry = dlsym(library, TATTLE_REPORTER_PLUGIN_SYMBOL);
    if (!entry) {
        fail(error, request,
             "it exports no " TATTLE_REPORTER_PLUGIN_SYMBOL
             "() (define it with TATTLE_REPORTER_PLUGIN, tattle/reporter.h)");
        return NULL;
    }
    unsigned abi_version = 0;
    const struct tattle_reporter_type *type = entry(&abi_version);
    struct tattle__buffer why = {0};
    if (abi_version != TATTLE_REPORTER_ABI_VERSION)
        tattle__buffer_printf(
            &why,
            "it was built for reporter ABI version %u, this program has "
            "version %d (rebuild it against this tattle's reporter.h)",
            abi_version, TATTLE_REPORTER_ABI_VERSION);
    else if (!type)
        tattle__buffer_printf(&why, "its %s() returned no reporter",
                              TATTLE_REPORTER_PLUGIN_SYMBOL);
    else if (!name_is_usable(type->name))
        tattle__buffer_printf(&why, "its reporter has no usable name (a word "
                                    "without '/', '=' or .so, under 64 bytes)");
    else if (!type->create || !type->begin || !type->test_finished ||
             !type->end || !type->destroy)
        tattle__buffer_printf(&why,
                              "its reporter '%s' lacks a callback (create, "
                              "begin, test_finished, end and destroy are "
                              "required)",
                              type->name);
    if (why.length > 0) {
        fail(error, request, why.data);
        tattle__buffer_release(&why);
        return NULL;
    }
    return type;
}

static int register_type(const struct tattle_reporter_type *type,
                         const struct tattle__reporter_request *request,
                         struct tattle__buffer *error)
{
    const struct tattle_reporter_type *existing =
        tattle_reporter_find(type->name);
    if (existing == type)
        return 0; /* the same plugin, named by two paths */
    struct tattle__buffer why = {0};
    int rc = existing ? TATTLE__EEXIST : tattle_reporter_register(type);
    if (rc == TATTLE__EEXIST)
        tattle__buffer_printf(&why,
                              "its reporter is named '%s', and a reporter "
                              "of that name exists already",
                              type->name);
    else if (rc != 0)
        tattle__buffer_printf(&why, "%s", tattle_error_message(rc));
    if (rc != 0)
        fail(error, request, why.data);
    tattle__buffer_release(&why);
    return rc != 0 ? -EINVAL : 0;
}

int tattle__plugins_load(struct tattle__options *options,
                         struct tattle__buffer *error)
{
    for (size_t i = 0; i < options->reporter_count; i++) {
        struct tattle__reporter_request *request = &options->reporters[i];
        if (!tattle__plugin_is_path(request->name))
            continue;
        const struct tattle_reporter_type *type = load_type(request, error);
        if (!type || register_type(type, request, error) != 0)
            return -EINVAL;
        free(request->name);
        request->name = tattle__strdup(type->name);
    }
    return 0;
}
