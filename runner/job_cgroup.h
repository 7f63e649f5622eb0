/*
 * job_cgroup.h — one cgroup per job slot, where the machine offers them.
 *
 * Every process a test starts must die with the test, however it tried to
 * get away (a double fork, setsid, clone(CLONE_PARENT), a process that
 * keeps forking and letting its parent exit). Where the cgroup v2
 * hierarchy is mounted and the runner may create cgroups below its own,
 * each job slot gets a cgroup of its own, reused from test to test: the
 * fork server starts each test inside it (clone3 with CLONE_INTO_CGROUP),
 * every descendant inherits it, and at the test's end every process
 * listed in it is killed (listing again until no new one shows: a process
 * with a SIGKILL pending can no longer fork); cgroup.events says when the
 * last one is gone. (cgroup.kill would do it in one write, but on the
 * kernels at hand a cgroup once killed with it also kills every process
 * later cloned into it with CLONE_INTO_CGROUP: the kill sequence is read
 * from the forking process's cgroup, not the target's.) Where cgroups are not
 * available (or TATTLE_NO_CGROUP=1 asks for the other path) the runner falls
 * back to process groups and the subreaper sweep (runner/process_tree.h).
 */
#ifndef TATTLE_RUNNER_JOB_CGROUP_H
#define TATTLE_RUNNER_JOB_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/** The cgroups of one run: a directory below the runner's own cgroup with
 * one sub-directory per job slot. The descriptors are the runner's (and
 * the fork server's, which inherits them); none reaches a test. */
struct tattle__job_cgroups {
    char *run_path; /* ".../tattle-PID"; NULL when not available */
    unsigned jobs;
    int *directories; /* per job: O_DIRECTORY, for CLONE_INTO_CGROUP */
    int *procs;       /* per job: cgroup.procs, read and written */
    int *events;      /* per job: cgroup.events ("populated 0|1") */
};

/** Creates the run's cgroups for `jobs` job slots. Returns true when they
 * are available; false (and an empty, harmless `cgroups`) when the machine
 * does not offer them, which is not an error. Also removes empty cgroups
 * that earlier runs, since killed, left behind. */
bool tattle__job_cgroups_create(struct tattle__job_cgroups *cgroups,
                                unsigned jobs);

/** Whether the run has cgroups. */
static inline bool
tattle__job_cgroups_available(const struct tattle__job_cgroups *cgroups)
{
    return cgroups->run_path != 0;
}

/** Whether any process is left in job `job`'s cgroup. */
bool tattle__job_cgroup_populated(const struct tattle__job_cgroups *cgroups,
                                  unsigned job);

/** Stores up to `room` pids of the processes in job `job`'s cgroup in
 * `out`; returns how many. */
size_t tattle__job_cgroup_list(const struct tattle__job_cgroups *cgroups,
                               unsigned job, pid_t *out, size_t room);

/** Sends SIGKILL to every process in job `job`'s cgroup (they die
 * asynchronously: wait for cgroup.events to say "populated 0"). */
void tattle__job_cgroup_kill(const struct tattle__job_cgroups *cgroups,
                             unsigned job);

/** Freezes job `job`'s cgroup: every process in it, and every process
 * forked into it meanwhile, stops where it is. Returns true once the
 * kernel says all are frozen; false when it could not be asked or did not
 * say so by `deadline_us` (tattle__now_us; a task in an uninterruptible
 * sleep freezes only when it leaves it). Frozen processes still die of
 * SIGKILL; thaw the cgroup before the job's next test is started in it. */
bool tattle__job_cgroup_freeze(const struct tattle__job_cgroups *cgroups,
                               unsigned job, uint64_t deadline_us);

/** Thaws job `job`'s cgroup. */
void tattle__job_cgroup_thaw(const struct tattle__job_cgroups *cgroups,
                             unsigned job);

/** The same for every job's cgroup. */
void tattle__job_cgroups_kill_all(const struct tattle__job_cgroups *cgroups);

/** Closes the descriptors and removes the (empty) cgroups. */
void tattle__job_cgroups_destroy(struct tattle__job_cgroups *cgroups);

/** Closes the descriptors only, keeping the cgroups (a process that
 * inherited them and does not own them). */
void tattle__job_cgroups_close(struct tattle__job_cgroups *cgroups);

#endif /* TATTLE_RUNNER_JOB_CGROUP_H */
