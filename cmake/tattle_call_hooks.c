/*
 * tattle_call_hooks.c — the hooks of -finstrument-functions for a target
 * compiled by tattle_instrument(), which adds this file to the target's
 * sources: every entry and exit of an instrumented function comes here
 * and, in a `trace_calls` test, is recorded by libtattle
 * (include/tattle/call_hooks.h). They live in the instrumented target, not
 * in libtattle, so that a program with hooks of its own links libtattle
 * and keeps them.
 */
#include <tattle/call_hooks.h>

__attribute__((no_instrument_function)) void
__cyg_profile_func_enter(void *function, void *site);
__attribute__((no_instrument_function)) void
__cyg_profile_func_exit(void *function, void *site);

__attribute__((no_instrument_function)) void
__cyg_profile_func_enter(void *function, void *site)
{
    tattle__call_hook_enter(function, site);
}

__attribute__((no_instrument_function)) void
__cyg_profile_func_exit(void *function, void *site)
{
    tattle__call_hook_exit(function, site);
}
