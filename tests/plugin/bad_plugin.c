/*
 * bad_plugin.c — reporter plugins that must be refused, one per compile
 * definition: BAD_ABI (built for another reporter ABI version),
 * NO_SYMBOL (exports no entry function), NAME_CLASH (a reporter named
 * like a built-in one), NO_TYPE (the entry returns NULL). Only their
 * loading is tested; their callbacks do nothing.
 */
#include <errno.h>
#include <stdlib.h>

#include <tattle/reporter.h>

static int bad_create(void **self, const char *destination,
                      const struct tattle_report_options *options)
{
    (void)destination, (void)options;
    *self = NULL;
    return 0;
}
static void bad_begin(void *self, const struct tattle_run_info *run)
{
    (void)self, (void)run;
}
static void bad_test_finished(void *self, const struct tattle_result *result)
{
    (void)self, (void)result;
}
static int bad_end(void *self, const struct tattle_summary *summary)
{
    (void)self, (void)summary;
    return 0;
}
static void bad_destroy(void *self)
{
    (void)self;
}

static const struct tattle_reporter_type bad_type = {
#ifdef NAME_CLASH
    .name = "json",
#else
    .name = "bad",
#endif
    .create = bad_create,
    .begin = bad_begin,
    .test_finished = bad_test_finished,
    .end = bad_end,
    .destroy = bad_destroy,
};

#if defined(BAD_ABI)
__attribute__((visibility("default"))) const struct tattle_reporter_type *
tattle_reporter_plugin_v1(unsigned *abi_version);
__attribute__((visibility("default"))) const struct tattle_reporter_type *
tattle_reporter_plugin_v1(unsigned *abi_version)
{
    *abi_version = TATTLE_REPORTER_ABI_VERSION + 1;
    return &bad_type;
}
#elif defined(NO_SYMBOL)
__attribute__((visibility("default"))) const struct tattle_reporter_type *
some_other_function(void);
__attribute__((visibility("default"))) const struct tattle_reporter_type *
some_other_function(void)
{
    return &bad_type;
}
#elif defined(NO_TYPE)
__attribute__((visibility("default"))) const struct tattle_reporter_type *
tattle_reporter_plugin_v1(unsigned *abi_version);
__attribute__((visibility("default"))) const struct tattle_reporter_type *
tattle_reporter_plugin_v1(unsigned *abi_version)
{
    *abi_version = TATTLE_REPORTER_ABI_VERSION;
    return abi_version ? NULL : &bad_type; /* always NULL */
}
#else
TATTLE_REPORTER_PLUGIN(bad_type)
#endif
