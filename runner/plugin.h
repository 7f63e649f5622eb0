/*
 * plugin.h — reporter plugins loaded from shared objects.
 *
 * `--reporter PATH.so[=FILE]` and `reports: {plugins: [...]}` in tattle.yml
 * ask for a reporter by the path of a shared object rather than by name.
 * The request keeps the path until the runner loads the plugins, after
 * the fork server the test processes come from is started: a plugin is
 * mapped and run in the runner process only, never in a test.
 */
#ifndef TATTLE_RUNNER_PLUGIN_H
#define TATTLE_RUNNER_PLUGIN_H

#include <stdbool.h>

#include "base/buffer.h"
#include "runner/options.h"

/** True when a reporter request names a plugin by its path: the name
 * holds a '/' or ends in ".so". */
bool tattle__plugin_is_path(const char *name);

/** Loads the plugin of every request in `options` that names one by path
 * (dlopen, its tattle_reporter_plugin_v1, the ABI version check, the
 * registry), then names the request by the reporter type it loaded.
 * Returns 0, or -EINVAL with a one-line message naming the path in
 * `error` (plugins loaded before the failing one stay loaded, unused). */
int tattle__plugins_load(struct tattle__options *options,
                         struct tattle__buffer *error);

#endif /* TATTLE_RUNNER_PLUGIN_H */
