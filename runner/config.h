/*
 * config.h — reading `tattle.yml`.
 *
 * The file comes from `--config FILE`, `$TATTLE_CONFIG` or `./tattle.yml`
 * (in that order; only the last may be absent). It is read with libyaml
 * before the command line, whose flags override it. An unknown key or a bad
 * value is an error naming the file, line and column.
 */
#ifndef TATTLE_RUNNER_CONFIG_H
#define TATTLE_RUNNER_CONFIG_H

#include "runner/options.h"
#include "runner/registry.h"

/** Finds the configuration file for this command line and applies it to
 * `options`. Returns 0 (also when there is none) or -EINVAL with a one-line
 * message "FILE:LINE:COLUMN: problem" in `error`. */
int tattle__config_load_for(struct tattle__options *options, int argc,
                            char **argv, struct tattle__buffer *error);

/** Loads one configuration file onto `options`. */
int tattle__config_load(struct tattle__options *options, const char *path,
                        struct tattle__buffer *error);

/** Adds the tags of the file's `tags:` rules to the matching tests. */
void tattle__config_apply_tag_rules(const struct tattle__options *options,
                                    struct tattle__registry *registry);

#endif /* TATTLE_RUNNER_CONFIG_H */
