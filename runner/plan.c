/*
 * plan.c — the run plan: selection, order, and each test's timeout and
 * trace sizes.
 *
 * Selection goes by name first (PATTERN, --id, --failed), then by shard
 * (shards split the name-selected tests by position, so every shard of one
 * command line agrees), then by tag and skip: a test kept by name and
 * shard is always reported, as excluded, skipped or invalid when it does
 * not run. The shuffle is a Fisher-Yates pass driven by splitmix64 from
 * the seed, so one seed gives one order on every machine.
 */
#include "runner/plan.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/timestamp.h"
#include "runner/last_run.h"
#include "runner/private_memory.h"
#include "runner/tags.h"
#include "tracer/calls.h"

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tattle__plan_random_seed(void)
{
    uint64_t mix =
        (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ tattle__now_us();
    return splitmix64(&mix) % 1000000000ull;
}

/* ---- selection ---- */

static bool is_registered(const struct tattle__registry *registry,
                          const char *id)
{
    for (size_t i = 0; i < registry->count; i++)
        if (strcmp(registry->entries[i].id, id) == 0)
            return true;
    return false;
}

int tattle__plan_check_ids(const struct tattle__options *options,
                           const struct tattle__registry *registry,
                           struct tattle__buffer *error)
{
    for (size_t i = 0; i < options->ids.count; i++) {
        if (!is_registered(registry, options->ids.items[i])) {
            tattle__buffer_printf(error, "--id: no test has the id '%s'",
                                  options->ids.items[i]);
            return -EINVAL;
        }
    }
    return 0;
}

/* A test is selected by any PATTERN (a glob) or any --id (exact); with
 * neither, every test is. */
static bool selected_by_name(const struct tattle__options *options,
                             const char *id)
{
    if (options->patterns.count == 0 && options->ids.count == 0)
        return true;
    for (size_t i = 0; i < options->ids.count; i++)
        if (strcmp(options->ids.items[i], id) == 0)
            return true;
    for (size_t i = 0; i < options->patterns.count; i++)
        if (fnmatch(options->patterns.items[i], id, 0) == 0)
            return true;
    return false;
}

static bool is_listed(const struct tattle__string_list *ids, const char *id)
{
    for (size_t i = 0; i < ids->count; i++)
        if (strcmp(ids->items[i], id) == 0)
            return true;
    return false;
}

static bool matches_any_tag(const struct tattle__test_entry *entry,
                            const struct tattle__string_list *selectors)
{
    for (size_t i = 0; i < selectors->count; i++)
        if (tattle__tags_match(entry->tags.items, entry->tags.count,
                               selectors->items[i]))
            return true;
    return false;
}

/* Why a selected test is not run (its registration, its tags, its skip
 * option), or nothing: it runs. */
static void decide_whether_to_run(struct tattle__planned_test *planned,
                                  const struct tattle__options *options)
{
    const struct tattle__test_entry *entry = planned->entry;
    if (entry->invalid_reason) {
        planned->not_run_state = TATTLE_STATE_INVALID;
        planned->not_run_reason = entry->invalid_reason;
    } else if (options->only.count && !matches_any_tag(entry, &options->only)) {
        planned->not_run_state = TATTLE_STATE_EXCLUDED;
        planned->not_run_reason = "not selected by --only";
    } else if (matches_any_tag(entry, &options->exclude) &&
               !matches_any_tag(entry, &options->include) &&
               !(options->only.count &&
                 matches_any_tag(entry, &options->only))) {
        planned->not_run_state = TATTLE_STATE_EXCLUDED;
        planned->not_run_reason = "excluded by tag";
    } else if (entry->test->options.skip) {
        planned->not_run_state = TATTLE_STATE_SKIPPED;
        planned->not_run_reason = entry->test->options.skip;
    } else if (options->no_fork && (entry->test->options.expect_signal ||
                                    entry->test->options.expect_exit)) {
        /* Its death would be the runner's. */
        planned->not_run_state = TATTLE_STATE_SKIPPED;
        planned->not_run_reason =
            "expected to die (.expect_signal or .expect_exit): "
            "not run under --no-fork";
    }
}

/* ---- how a test runs ---- */

/* Makes a planned test invalid with a reason of its own. */
static void plan_invalid(struct tattle__planned_test *planned,
                         struct tattle__buffer *reason)
{
    free(planned->owned_reason);
    planned->owned_reason = tattle__buffer_take(reason);
    planned->not_run_state = TATTLE_STATE_INVALID;
    planned->not_run_reason = planned->owned_reason;
}

/* Reads and checks the sizes a test asks for; one out of range makes the
 * test invalid (with the reason) rather than being truncated. */
static void resolve_trace_sizes(struct tattle__planned_test *planned,
                                struct tattle__trace_config *trace)
{
    const struct tattle__test_entry *entry = planned->entry;
    const struct tattle_test *test = entry->test;
    struct tattle__buffer reason = {0};
    const struct tattle_tag *tag = tattle__tag_find(
        entry->tags.items, entry->tags.count, "trace_messages");
    if (tag && tag->value && strcmp(tag->value, "noipc") == 0) {
        trace->no_ipc = true;
    } else if (tag && tag->value) {
        char *end;
        errno = 0;
        long cap = strtol(tag->value, &end, 10);
        if (*end != '\0' || errno != 0 || cap < 1 ||
            cap > TATTLE__TRACE_CAP_MAX) {
            tattle__buffer_printf(&reason,
                                  "tag 'trace_messages:%s': the cap must be a "
                                  "whole number from 1 to %d",
                                  tag->value, TATTLE__TRACE_CAP_MAX);
            plan_invalid(planned, &reason);
            return;
        }
        trace->cap = (uint32_t)cap;
    }
    const struct tattle_tag *calls =
        tattle__tag_find(entry->tags.items, entry->tags.count, "trace_calls");
    if (calls) {
        trace->call_cap = TATTLE__CALL_CAP_DEFAULT;
        if (calls->value) {
            char *end;
            errno = 0;
            long cap = strtol(calls->value, &end, 10);
            if (*end != '\0' || errno != 0 || cap < 1 ||
                cap > TATTLE__CALL_CAP_MAX) {
                tattle__buffer_printf(&reason,
                                      "tag 'trace_calls:%s': the cap must be a "
                                      "whole number from 1 to %d",
                                      calls->value, TATTLE__CALL_CAP_MAX);
                plan_invalid(planned, &reason);
                return;
            }
            trace->call_cap = (uint32_t)cap;
        }
    }
    if (test->options.trace_cap < 0 ||
        test->options.trace_cap > TATTLE__TRACE_CAP_MAX) {
        tattle__buffer_printf(&reason, ".trace_cap = %d: must be from 1 to %d",
                              test->options.trace_cap, TATTLE__TRACE_CAP_MAX);
        plan_invalid(planned, &reason);
        return;
    }
    if (test->options.trace_budget < 0 ||
        test->options.trace_budget > TATTLE__TRACE_BUDGET_MAX) {
        tattle__buffer_printf(
            &reason, ".trace_budget = %d: must be from 1 to %d",
            test->options.trace_budget, TATTLE__TRACE_BUDGET_MAX);
        plan_invalid(planned, &reason);
        return;
    }
    if (test->options.trace_cap > 0)
        trace->cap = (uint32_t)test->options.trace_cap;
    if (test->options.trace_budget > 0)
        trace->budget = (uint32_t)test->options.trace_budget;
}

/* The test's own timeout, else the run's, else the default; scaled, and
 * kept from 1 ms to the longest timeout there is. */
static long resolve_timeout(const struct tattle_test *test,
                            const struct tattle__options *options,
                            double timeout_multiplier)
{
    long timeout = test->options.timeout_ms > 0 ? test->options.timeout_ms
                   : options->timeout_ms > 0    ? options->timeout_ms
                                                : TATTLE__TIMEOUT_MS_DEFAULT;
    double scaled = ceil((double)timeout * timeout_multiplier);
    return scaled < 1                        ? 1
           : scaled > TATTLE__TIMEOUT_MS_MAX ? TATTLE__TIMEOUT_MS_MAX
                                             : (long)scaled;
}

/* Timeout and tracing: the command line and the configuration override
 * what the test asks for. */
static void resolve_execution(struct tattle__planned_test *planned,
                              const struct tattle__options *options,
                              double timeout_multiplier)
{
    struct tattle__test_entry *entry = planned->entry;
    planned->timeout_ms =
        resolve_timeout(entry->test, options, timeout_multiplier);
    planned->traced = options->trace_all ||
                      tattle__tag_find(entry->tags.items, entry->tags.count,
                                       "trace_messages") != NULL ||
                      tattle__tag_find(entry->tags.items, entry->tags.count,
                                       "trace_calls") != NULL;
    struct tattle__trace_config trace = TATTLE__TRACE_CONFIG_DEFAULT;
    resolve_trace_sizes(planned, &trace);
    if (options->trace_cap > 0)
        trace.cap = (uint32_t)options->trace_cap;
    if (options->trace_budget > 0)
        trace.budget = (uint32_t)options->trace_budget;
    if (options->trace_level >= 0)
        trace.level = (int)options->trace_level;
    if (options->trace_payload_bytes > 0)
        trace.payload_bytes = (uint32_t)options->trace_payload_bytes;
    if (options->trace_ipc_off)
        trace.no_ipc = true;
    planned->trace_config = trace;
    entry->info.timeout_ms = planned->timeout_ms;
    entry->info.traced = planned->traced;
}

/* ---- the plan ---- */

/* With --failed: the failed ids recorded for this binary, when one of them
 * is still registered; otherwise the selection runs whole. */
static int load_rerun_ids(struct tattle__plan *plan,
                          const struct tattle__registry *registry,
                          const char *executable,
                          struct tattle__string_list *rerun_ids,
                          struct tattle__buffer *error)
{
    int rc = tattle__last_run_load(executable, rerun_ids, error);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < rerun_ids->count; i++)
        if (is_registered(registry, rerun_ids->items[i]))
            return 0;
    tattle__string_list_release(rerun_ids);
    plan->no_failure_recorded = true;
    return 0;
}

static void shuffle(struct tattle__plan *plan, uint64_t seed)
{
    uint64_t random_state = seed;
    for (size_t i = plan->count; i > 1; i--) {
        size_t j = (size_t)(splitmix64(&random_state) % i);
        struct tattle__planned_test swap = plan->tests[i - 1];
        plan->tests[i - 1] = plan->tests[j];
        plan->tests[j] = swap;
    }
}

int tattle__plan_build(struct tattle__plan *plan,
                       struct tattle__registry *registry,
                       const struct tattle__options *options,
                       double timeout_multiplier, const char *executable,
                       struct tattle__buffer *error)
{
    struct tattle__string_list rerun_ids = {0};
    if (options->failed) {
        int rc = load_rerun_ids(plan, registry, executable, &rerun_ids, error);
        if (rc != 0) {
            tattle__string_list_release(&rerun_ids);
            return rc;
        }
    }
    plan->tests = tattle__private_calloc(registry->count, sizeof *plan->tests);
    size_t selected = 0;
    for (size_t i = 0; i < registry->count; i++) {
        struct tattle__test_entry *entry = &registry->entries[i];
        if (!selected_by_name(options, entry->id))
            continue;
        if (rerun_ids.count > 0 && !is_listed(&rerun_ids, entry->id))
            continue;
        size_t position = selected++;
        if (options->sharded &&
            position % options->shard_total != options->shard_index)
            continue;
        struct tattle__planned_test *planned = &plan->tests[plan->count++];
        planned->entry = entry;
        planned->not_run_state = TATTLE_STATE_PASSED;
        resolve_execution(planned, options, timeout_multiplier);
        if (planned->not_run_state != TATTLE_STATE_INVALID)
            decide_whether_to_run(planned, options);
    }
    tattle__string_list_release(&rerun_ids);
    if (options->shuffle)
        shuffle(plan, options->seed);
    return 0;
}

void tattle__plan_release(struct tattle__plan *plan)
{
    for (size_t i = 0; i < plan->count; i++)
        free(plan->tests[i].owned_reason);
    tattle__private_free(plan->tests);
    *plan = (struct tattle__plan){0};
}
