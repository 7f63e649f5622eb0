/*
 * call_hooks.h — what the function hooks of -finstrument-functions call
 * in libtattle: not an API for tests, but the bridge between libtattle and
 * the hooks tattle_instrument() compiles into an instrumented target
 * (cmake/tattle_call_hooks.c) and tattle_trace_overhead() times.
 *
 * libtattle itself defines no __cyg_profile_func_enter/exit: a program
 * built with -finstrument-functions for a profiler of its own that links
 * libtattle keeps its own hooks (and a static link does not clash). Only a
 * target tattle_instrument() compiles gets tattle's, whose untraced cost
 * is the one predictable branch of tattle__call_hook_enter/exit on
 * tattle__calls_on. C only.
 */
#ifndef TATTLE_CALL_HOOKS_H
#define TATTLE_CALL_HOOKS_H

#include <stdatomic.h>
#include <stdint.h>

#include "tattle.h"

/** Non-zero while the process records calls (a `trace_calls` test). */
extern TATTLE_API _Atomic uint32_t tattle__calls_on;

/** Records an entry or an exit of an instrumented function (calls only
 * when tattle__calls_on is non-zero). */
TATTLE_API void tattle__call_enter(void *function, void *site);
TATTLE_API void tattle__call_exit(void *function, void *site);

/** The hooks' bodies: one predictable branch unless calls are traced. */
__attribute__((no_instrument_function)) static inline void
tattle__call_hook_enter(void *function, void *site)
{
    if (__builtin_expect(
            atomic_load_explicit(&tattle__calls_on, memory_order_relaxed) != 0,
            0))
        tattle__call_enter(function, site);
}

__attribute__((no_instrument_function)) static inline void
tattle__call_hook_exit(void *function, void *site)
{
    if (__builtin_expect(
            atomic_load_explicit(&tattle__calls_on, memory_order_relaxed) != 0,
            0))
        tattle__call_exit(function, site);
}

#endif /* TATTLE_CALL_HOOKS_H */
