/*
 * run.h — one run from a command line to its exit status (tattle_main()),
 * with the command line the reports show given apart from the one parsed.
 */
#ifndef TATTLE_RUNNER_RUN_H
#define TATTLE_RUNNER_RUN_H

/** tattle_main(argc, argv), except that the run's reports show
 * `shown_argv` (of `shown_argc` words) as the command line: `tattle run`
 * parses only the options before its `--` but reports all it was given.
 * argv[0] names the program in messages. */
int tattle__run_main(int argc, char **argv, int shown_argc, char **shown_argv);

#endif /* TATTLE_RUNNER_RUN_H */
