/*
 * run.c — tattle_main(): one run from the command line to the exit status.
 *
 * It reads the settings (tattle.yml, then the command line, then the
 * environment; a bad one exits 2 before anything is run or written),
 * answers --help and --version, builds the plan (runner/plan.h) and
 * answers --list, starts the scheduler before any report file is opened
 * or reporter plugin loaded (runner/plugin.h), opens the reporters
 * (runner/fanout.h), runs the queue
 * (runner/run_queue.h) and saves the outcomes in .tattle/last-run.json
 * for --failed. Exit status: 0 passed, 1 a test failed, 2 usage error, 3
 * internal error or interrupted.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tattle/tattle.h>

#include "base/buffer.h"
#include "base/timestamp.h"
#include "runner/command.h"
#include "runner/config.h"
#include "runner/environment.h"
#include "runner/fanout.h"
#include "runner/last_run.h"
#include "runner/listing.h"
#include "runner/options.h"
#include "runner/plan.h"
#include "runner/plugin.h"
#include "runner/registry.h"
#include "runner/run.h"
#include "runner/run_queue.h"
#include "runner/version.h"
#include "runner/scheduler.h"
#include "tracer/session.h"

struct run_state {
    const char *program;
    char executable[4096];
    struct tattle__registry registry;
    struct tattle__options options;
    struct tattle__environment environment;
    struct tattle__plan plan;
    struct sigaction original_sigpipe;
    int program_fds[64]; /* descriptors open when the run began */
    size_t program_fd_count;
    struct tattle__scheduler *scheduler;
    struct tattle__fanout fanout;
    struct tattle__run_queue queue;
};

/* The descriptors the program had open before the run began (beyond the
 * standard three): its tests keep them, as they would in its own process.
 * Everything tattle opens later is out of their reach. */
static void note_program_descriptors(struct run_state *state)
{
    DIR *directory = opendir("/proc/self/fd");
    if (!directory)
        return;
    int own = dirfd(directory);
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL &&
           state->program_fd_count <
               sizeof state->program_fds / sizeof *state->program_fds) {
        int fd = atoi(entry->d_name);
        if (entry->d_name[0] != '.' && fd > 2 && fd != own)
            state->program_fds[state->program_fd_count++] = fd;
    }
    closedir(directory);
}

static void run_state_init(struct run_state *state, int argc, char **argv)
{
    *state = (struct run_state){0};
    state->program = argc > 0 && argv[0] ? argv[0] : "tattle";
    ssize_t length = readlink("/proc/self/exe", state->executable,
                              sizeof state->executable - 1);
    state->executable[length > 0 ? length : 0] = '\0';
    note_program_descriptors(state);
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &state->original_sigpipe);
    tattle__registry_build(&state->registry);
    tattle__options_init(&state->options);
}

static void release_state(struct run_state *state)
{
    tattle__fanout_close(&state->fanout);
    tattle__scheduler_destroy(state->scheduler);
    tattle__run_queue_release(&state->queue);
    tattle__plan_release(&state->plan);
    tattle__registry_release(&state->registry);
    tattle__options_release(&state->options);
}

/* What the run's outcomes are kept under in .tattle/last-run.json: the
 * executable, or for `tattle run` the wrapped command with its program's
 * absolute path (two wrapped commands would otherwise overwrite each
 * other's; one command keeps one key however it was typed). */
static const char *last_run_key(const struct run_state *state)
{
    const char *command = tattle__command_last_run_key();
    return command ? command : state->executable;
}

/* tattle.yml, then the command line, then the environment (each overrides
 * what came before), then what needs the registry. */
static int read_settings(struct run_state *state, int argc, char **argv,
                         struct tattle__buffer *error)
{
    int rc = tattle__config_load_for(&state->options, argc, argv, error);
    if (rc == 0)
        rc = tattle__options_parse(&state->options, argc, argv, error);
    if (rc == 0)
        rc = tattle__environment_read(&state->environment, &state->options,
                                      error);
    if (rc == 0)
        rc = tattle__plan_check_ids(&state->options, &state->registry, error);
    if (rc == 0)
        tattle__config_apply_tag_rules(&state->options, &state->registry);
    return rc;
}

static int plan_tests(struct run_state *state, struct tattle__buffer *error)
{
    struct tattle__options *options = &state->options;
    if (!options->seed_given)
        options->seed = tattle__plan_random_seed();
    int rc = tattle__plan_build(&state->plan, &state->registry, options,
                                state->environment.timeout_multiplier,
                                last_run_key(state), error);
    if (rc != 0)
        return rc;
    if (state->plan.no_failure_recorded)
        fprintf(stderr,
                "%s: --failed: no failure of this binary is recorded in "
                ".tattle/last-run.json; running the selected tests\n",
                state->program);
    if (state->plan.count == 0 && options->patterns.count > 0)
        fprintf(stderr, "%s: warning: no test matches the pattern%s given\n",
                state->program, options->patterns.count > 1 ? "s" : "");
    return 0;
}

/* Before any report file is opened: the fork server, which every test
 * process is forked from, must hold none of them. */
static int start_scheduler(struct run_state *state)
{
    const struct tattle__options *options = &state->options;
    struct tattle__schedule_config schedule = {
        .jobs = options->no_fork ? 1 : options->jobs,
        .no_fork = options->no_fork,
        .stdout_carries_report = tattle__fanout_takes_stdout(options),
        .original_sigpipe = state->original_sigpipe,
        .program_fds = state->program_fds,
        .program_fd_count = state->program_fd_count,
        .timeout_multiplier = state->environment.timeout_multiplier};
    int rc = tattle__scheduler_create(&state->scheduler, &schedule);
    if (rc != 0)
        fprintf(stderr,
                "%s: internal error: cannot prepare the test processes: %s\n",
                state->program, strerror(-rc));
    return rc;
}

/* Merged, so even an interrupted run records what it learned. */
static void save_last_run(const struct run_state *state)
{
    int rc = tattle__last_run_save(last_run_key(state), state->queue.outcomes,
                                   state->queue.outcome_count);
    if (rc != 0)
        fprintf(stderr,
                "%s: warning: .tattle/last-run.json could not be updated "
                "(--failed will not know this run): %s\n",
                state->program, strerror(-rc));
}

/* Runs the plan through the open reporters; returns the exit status.
 * argv is the command line the reports show. */
static int run_tests(struct run_state *state, int argc, char **argv)
{
    const struct tattle__options *options = &state->options;
    tattle__environment_run_started(&state->environment);
    char started_at[32];
    tattle__timestamp_utc(started_at);
    struct tattle_run_info run_info = {
        .started_at = started_at,
        .seed = options->seed,
        .jobs = options->no_fork ? 1 : options->jobs,
        .argc = argc,
        .argv = argv,
        .executable = state->executable,
        .sharded = options->sharded,
        .shard_index = options->shard_index,
        .shard_total = options->shard_total,
        .planned = state->plan.count,
        .planned_open =
            tattle__command_wrapping() ||
            tattle__run_queue_late_results_possible(&state->plan, options),
        .wrapped_command = tattle__command_line(),
        .wrapped_id = tattle__command_test_id(),
    };
    tattle__fanout_begin(&state->fanout, &run_info);

    struct tattle__run_queue *queue = &state->queue;
    tattle__run_queue_init(queue, &state->plan, options, state->program,
                           &state->fanout);
    uint64_t run_started = tattle__now_us();
    struct tattle__schedule_callbacks callbacks =
        tattle__run_queue_callbacks(queue);
    int scheduled = tattle__scheduler_run(state->scheduler, &callbacks);
    if (scheduled != 0)
        tattle__run_queue_report_unstarted(
            queue, scheduled > 0
                       ? "not run: the run was interrupted"
                       : "not run: the run stopped on an internal error");
    struct tattle_summary *summary = &queue->summary;
    summary->duration_us = tattle__now_us() - run_started;
    summary->interrupted = scheduled != 0;

    int status = scheduled != 0                           ? 3
                 : summary->failed + summary->invalid > 0 ? 1
                                                          : 0;
    if (status == 0 &&
        tattle__scheduler_late_fixture_failures(state->scheduler) > 0)
        status = 1; /* an after_all failed after its tests were reported */
    status = tattle__environment_exit_status(summary, status);
    if (!tattle__fanout_end(&state->fanout, summary, state->program))
        status = 3;
    if (scheduled < 0)
        fprintf(stderr, "%s: internal error: %s\n", state->program,
                strerror(-scheduled));
    save_last_run(state);
    tattle__environment_run_ended(&state->environment, summary->interrupted);
    return status;
}

/* Everything from the settings to the end of the run. Returns the exit
 * status, or a negative code for a usage error described in `error`. */
static int run_command_line(struct run_state *state, int argc, char **argv,
                            int shown_argc, char **shown_argv,
                            struct tattle__buffer *error)
{
    int rc = read_settings(state, argc, argv, error);
    if (rc != 0)
        return rc;
    if (state->options.help) {
        tattle__options_print_help(stdout, state->program);
        return 0;
    }
    if (state->options.version) {
        tattle__version_print(stdout, state->options.verbose);
        return 0;
    }
    if (state->options.verbose) {
        tattle__buffer_printf(error, "--verbose is used only with --version");
        return -EINVAL;
    }
    rc = plan_tests(state, error);
    if (rc != 0)
        return rc;
    if (state->options.list) {
        tattle__listing_print(stdout, &state->plan, state->options.list_json);
        return 0;
    }
    if (start_scheduler(state) != 0)
        return 3;
    /* After the fork server: no test process maps or runs a plugin. */
    rc = tattle__plugins_load(&state->options, error);
    if (rc != 0)
        return rc;
    rc = tattle__fanout_open(&state->fanout, &state->options, error);
    if (rc != 0)
        return rc;
    return run_tests(state, shown_argc, shown_argv);
}

int tattle__run_main(int argc, char **argv, int shown_argc, char **shown_argv)
{
    struct run_state state;
    struct tattle__buffer error = {0};
    tattle__trace_hand_down_remove();
    run_state_init(&state, argc, argv);
    int status =
        run_command_line(&state, argc, argv, shown_argc, shown_argv, &error);
    if (status < 0) {
        fprintf(stderr, "%s: %s\n", state.program,
                error.data ? error.data : "usage error");
        status = 2;
    }
    release_state(&state);
    tattle__buffer_release(&error);
    return status;
}

int tattle_main(int argc, char **argv)
{
    return tattle__run_main(argc, argv, argc, argv);
}
