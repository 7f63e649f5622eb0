/*
 * fork_server.h — the process every test process is forked from.
 *
 * The runner forks the fork server once, early, before any reporter opens
 * a file and before the runner's heap grows with results; from then on
 * the runner never forks again. Each test process is forked by the server
 * on request and inherits only what the server holds: the job slots'
 * result memory (each test sees its own slot only: the others are marked
 * MADV_DONTFORK while it is forked), the job slots' output pipes (a test
 * keeps its own as stdout and stderr and closes the rest), /dev/null, and
 * the trace arena the runner hands over with the request. Report files,
 * reporter buffers, other jobs' pipes, slots and arenas are out of a
 * test's reach, and a fork costs what the small server costs, however
 * much the runner holds.
 *
 * With several jobs, the jobs are split into blocks, up to one per
 * processor, and each block past the first has a job server of its own: a
 * fork server that holds that block's slots, pipes and cgroups only, and
 * forks its tests. A fork costs the forking process a hundred
 * microseconds and more on a virtual machine (page tables copied), so one
 * server forking for every job held -j2 to the pace of its forks; with a
 * server per processor the forks run side by side, as the tests do. The
 * first server holds every job (it serves the first block and starts the
 * suite servers, whose tests may run in any job).
 *
 * The server is a child subreaper: every process a test leaves behind
 * stays below it. It reaps the test processes and tells the runner how
 * each ended, through the same socket the requests come in on. Where the
 * machine offers cgroups each test starts in its job slot's cgroup
 * (runner/job_cgroup.h). When the runner dies (the socket reaches end of
 * file), the server kills every process of every job and exits, so a CI
 * timeout that kills the runner with SIGKILL leaves nothing running.
 *
 * A suite with before_all or after_all has a suite server: a child of the
 * fork server that runs before_all (with a job slot's output pipes, as a
 * test would, and a result slot of its own whose result it copies into
 * the job's slot when before_all returns), then serves its tests' spawn
 * requests through the same loop on a socket of its own, so every test of the
 * suite is its child and starts from a copy-on-write image of the state
 * before_all left. When told the suite is done it runs after_all and ends,
 * killing whatever its tests left. It is a subreaper and dies with the
 * fork server; the fork server tells the runner how it ended. A fixture
 * runs there as a test body would: with the program's signal state, no
 * other job's slot in reach (the suite server keeps them PROT_NONE), and
 * what it forks keeps none of the server's descriptors nor any job's
 * slot, so a process it starts (they live until the server ends) cannot
 * put a failure on a test that runs later.
 */
#ifndef TATTLE_RUNNER_FORK_SERVER_H
#define TATTLE_RUNNER_FORK_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tattle/tattle.h>

#include "runner/job_cgroup.h"
#include "runner/slot.h"

/** What the fork server is started with. Every descriptor is the
 * runner's; the server keeps its own copies. */
struct tattle__fork_server_config {
    unsigned jobs;     /* the jobs it serves */
    unsigned job_base; /* the runner's number of the first of them: a job
                          server serves a block of the jobs (0 otherwise) */
    struct tattle__slot *const *slots; /* per job, shared mappings */
    size_t slot_bytes;
    const int *stdout_fds; /* per job: the pipes' write ends */
    const int *stderr_fds;
    const int *program_fds; /* open when the program began its run: tests
                               keep them; the server closes every other
                               descriptor that is not its own */
    size_t program_fd_count;
    const struct tattle__job_cgroups *cgroups;
    struct sigaction original_sigpipe; /* restored in test processes */
    uint64_t fixture_output_limit;     /* bytes of what a suite fixture's
                                          processes printed that reach its
                                          job, at most (0: no limit) */
};

/** A request to start one test in job slot `job`. */
struct tattle__spawn_request {
    unsigned job;
    const struct tattle_test *test;
    const struct tattle_suite *suite;
    int arena_fd; /* the trace arena, or -1 */
    uint64_t arena_size;
};

/** What the server tells the runner unasked: that the test process of a
 * spawn request was forked (or could not be), and that one ended. */
enum tattle__notice_kind {
    TATTLE__NOTICE_STARTED = 1,
    TATTLE__NOTICE_EXITED = 2,
};

struct tattle__server_notice {
    enum tattle__notice_kind kind;
    unsigned job;
    pid_t pid;  /* started: 0 when it could not be */
    int status; /* exited: as from waitpid; started: 0 or a negative errno */
};

struct tattle__fork_server;

/** The job of an exit notice that tells how a suite server ended. */
#define TATTLE__SUITE_SERVER_JOB UINT32_MAX
/** Suite servers alive at once, at most. */
enum { TATTLE__SUITE_SERVERS_MAX = 64 };

/** Forks the server. Returns 0 or a negative errno. */
int tattle__fork_server_start(struct tattle__fork_server **out,
                              const struct tattle__fork_server_config *config);

/** Asks the server to start a test process and returns at once: the
 * server's answer comes as a STARTED notice for `request->job`, before
 * that test's EXITED notice. Returns 0 or a negative errno (-EPIPE when
 * the server is gone). The runner works on (another job's test ends, its
 * output comes in) while the server forks. */
int tattle__fork_server_request_spawn(
    struct tattle__fork_server *server,
    const struct tattle__spawn_request *request);

/** Waits for the STARTED notice of `job`'s spawn request (queued notices
 * first; others read meanwhile stay queued). Returns 0 with *pid set, the
 * negative errno the server could not fork with, or -EPIPE when the
 * server is gone. */
int tattle__fork_server_await_started(struct tattle__fork_server *server,
                                      unsigned job, pid_t *pid);

/** The descriptor to poll for notices (readable: call read_notice). */
int tattle__fork_server_fd(const struct tattle__fork_server *server);

/** Whether notices read while waiting for something else are queued
 * (poll() on the descriptor does not see them). */
bool tattle__fork_server_has_notice(const struct tattle__fork_server *server);

/** A pidfd of the server: readable when it died. */
int tattle__fork_server_pidfd(const struct tattle__fork_server *server);

pid_t tattle__fork_server_pid(const struct tattle__fork_server *server);

/** How long the runner waits on a server before it sends it SIGCONT: a
 * test may stop its server (its parent), and a stopped server neither
 * forks, reaps nor tells; every wait on a server is cut in slices of
 * this, and a server is continued after each. */
enum { TATTLE__SERVER_NUDGE_MS = 200 };

/** Sends the server SIGCONT (harmless when it runs). */
void tattle__fork_server_continue(const struct tattle__fork_server *server);

struct tattle__pid_list;

/** Appends the server's children (its tests and what ended tests left
 * behind) to `out`. The fork server runs one thread, which every test and
 * orphan hangs off: its children file, opened once, is read again with one
 * system call; a suite server (which before_all may have given threads) is
 * walked thread by thread. */
void tattle__fork_server_children(const struct tattle__fork_server *server,
                                  struct tattle__pid_list *out);

/** Takes the next notice, in the order the server sent them, without
 * blocking. Returns 1 with *notice filled, 0 when there is none, or a
 * negative errno (-EPIPE: the server is gone). */
int tattle__fork_server_read_notice(struct tattle__fork_server *server,
                                    struct tattle__server_notice *notice);

/** Has the fork server fork a suite server for `suite`, which starts by
 * running before_all in job slot `job` (slot and pipes). *out is a handle
 * for it: spawn, fd, pidfd, read_notice and stop work on it as on the fork
 * server; a test's exit notice comes from the server that spawned it.
 * Returns 0 or a negative errno. */
int tattle__fork_server_start_suite(struct tattle__fork_server *server,
                                    unsigned job,
                                    const struct tattle_suite *suite,
                                    struct tattle__fork_server **out);

/** How the suite server's last fixture (before_all, or after_all once
 * end_suite was sent) ended: 0 passed, 1 failed, -EAGAIN not known yet,
 * or a negative errno (-EPIPE: the server is gone). Does not block. */
int tattle__fork_server_fixture_result(struct tattle__fork_server *server);

/** Tells a suite server its suite is done: it runs after_all in job slot
 * `job`, reports it, and ends. Returns 0 or a negative errno. */
int tattle__fork_server_end_suite(struct tattle__fork_server *server,
                                  unsigned job);

/** Waits up to `timeout_ms` for the fork server's notice of how its suite
 * server `pid` ended; other notices stay queued. Returns 0 with *status
 * set, or a negative errno (-ETIMEDOUT). */
int tattle__fork_server_await_exit(struct tattle__fork_server *server,
                                   pid_t pid, int timeout_ms, int *status);

/** Ends the server (it kills whatever is left of the tests) and reaps it.
 * Returns how it ended (a waitpid status; 0 for a suite server, which the
 * fork server reaps). */
int tattle__fork_server_stop(struct tattle__fork_server *server);

#endif /* TATTLE_RUNNER_FORK_SERVER_H */
