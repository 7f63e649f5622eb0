/*
 * process_tree.h — finding, stopping and killing processes by parentage.
 *
 * Each test process, and the fork server above them, is a child
 * subreaper: while a test process lives every process it started
 * (including `setsid` grandchildren and orphans) stays in its subtree, and
 * once it died what it left behind becomes a child of the fork server.
 * Subtrees are found through /proc/PID/task/TID/children, stopped as they
 * are found (a stopped process cannot fork away) and walked again until a
 * walk finds nothing new, then killed. Killing is asynchronous: the pids
 * killed are returned so the caller can wait until they are gone.
 */
#ifndef TATTLE_RUNNER_PROCESS_TREE_H
#define TATTLE_RUNNER_PROCESS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tattle__pid_list {
    pid_t *items;
    size_t count, capacity;
};

void tattle__pid_list_add(struct tattle__pid_list *list, pid_t pid);
bool tattle__pid_list_has(const struct tattle__pid_list *list, pid_t pid);
void tattle__pid_list_release(struct tattle__pid_list *list);

/** Appends the children of every thread of `pid` to `out`. */
void tattle__process_children(pid_t pid, struct tattle__pid_list *out);

/** Appends the pids listed in an open /proc/PID/task/TID/children file
 * `fd` (read from its start, so it may be kept open and read again) that
 * are not yet in `out`. */
void tattle__process_children_read(int fd, struct tattle__pid_list *out);

/** Appends `root` and its descendants to `out` (walked until a walk finds
 * nothing new; nothing is stopped, so a process forked meanwhile may be
 * missed). */
void tattle__process_tree_list(pid_t root, struct tattle__pid_list *out);

/** Sends SIGSTOP to `root` (when `include_root`) and to every descendant
 * as it is found, walking until a walk finds nothing new; appends them all
 * (root first) to `tree`. The signal is asynchronous: see
 * tattle__process_tree_wait_stopped. */
void tattle__process_tree_stop(pid_t root, bool include_root,
                               struct tattle__pid_list *tree);

/** Waits until every thread of every process in `tree` is stopped (or
 * traced, or dead), until `deadline_us` (tattle__now_us). Returns whether
 * they all did (a thread in an uninterruptible sleep stops only when it
 * leaves it). */
bool tattle__process_tree_wait_stopped(const struct tattle__pid_list *tree,
                                       uint64_t deadline_us);

/** Stops and SIGKILLs the descendants of `root` and, when `include_root`,
 * root itself. The pids killed are appended to `killed` when it is not
 * NULL. */
void tattle__process_tree_kill(pid_t root, bool include_root,
                               struct tattle__pid_list *killed);

#endif /* TATTLE_RUNNER_PROCESS_TREE_H */
