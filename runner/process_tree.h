/*
 * process_tree.h — finding and killing a test's whole process tree.
 *
 * Each test process is a child subreaper, so while it lives every process
 * it started (including `setsid` grandchildren and orphans) stays in its
 * subtree, found through /proc/PID/task/TID/children. The tree is stopped
 * first (so nothing forks away while it is walked), then killed. Processes
 * orphaned after their test process died are reparented to the runner
 * (also a subreaper) and killed as strays.
 */
#ifndef TATTLE_RUNNER_PROCESS_TREE_H
#define TATTLE_RUNNER_PROCESS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/** SIGKILLs the descendants of `root` and, when `include_root`, root. */
void tattle__process_tree_kill(pid_t root, int include_root);

/** SIGKILLs every child of the calling process (and its tree) whose pid is
 * not in `keep`. Returns how many were killed. */
size_t tattle__process_kill_strays(const pid_t *keep, size_t keep_count);

#endif /* TATTLE_RUNNER_PROCESS_TREE_H */
