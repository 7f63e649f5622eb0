/*
 * reporter.h — the results model and the reporter plugin interface.
 *
 * The runner builds one tattle_result per test (state, failures, output,
 * trace, duration) and hands it to every active reporter; reporters only
 * read it. A reporter is a plugin: a tattle_reporter_type registered by
 * name, instantiated once per destination (`--reporter NAME=FILE`), called
 * at begin, when each test starts and finishes, and at the end. Data flows
 * one way: a reporter never calls back into the runner.
 */
#ifndef TATTLE_REPORTER_H
#define TATTLE_REPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tattle.h"

#ifdef __cplusplus
extern "C" {
#endif

enum tattle_state {
    TATTLE_STATE_PASSED,
    TATTLE_STATE_FAILED,
    TATTLE_STATE_SKIPPED,
    TATTLE_STATE_EXCLUDED,
    TATTLE_STATE_INVALID
};

enum tattle_failure_kind {
    TATTLE_FAILURE_ASSERTION,
    TATTLE_FAILURE_CRASH,
    TATTLE_FAILURE_TIMEOUT,
    TATTLE_FAILURE_EXIT,
    TATTLE_FAILURE_ERROR
};

/** Lower-case names used in reports: "passed", "assertion", ... */
TATTLE_API const char *tattle_state_name(enum tattle_state state);
TATTLE_API const char *tattle_failure_kind_name(enum tattle_failure_kind kind);

/** One tag of a test: `word` or `word:value` (value NULL for a bare word). */
struct tattle_tag {
    const char *name;
    const char *value;
};

/** One frame of a crash's stack trace; strings may be NULL when unknown. */
struct tattle_frame {
    const char *function;
    const char *file;
    int line; /* 0 when unknown */
    uintptr_t address;
};

/** One thread of a test's processes as it was when the test timed out:
 * its process and thread ids, its actor (the trace's name for it, else the
 * thread's name), its scheduler state as /proc shows it ("R", "S", "D",
 * ...; NULL when unknown) and its frames, innermost first (none when it
 * could not be stopped or unwound). */
struct tattle_thread_stack {
    int pid;
    int tid;
    const char *actor;
    const char *state;
    const struct tattle_frame *frames;
    size_t frame_count;
};

/** One failure of a test. Which fields are meaningful depends on kind. */
struct tattle_failure {
    enum tattle_failure_kind kind;
    const char *message; /* never NULL: a one-line description */
    const char *file;    /* NULL when unknown (crash, timeout, exit) */
    int line;
    /* assertion */
    const char *macro; /* "ASSERT_EQ" */
    const char *expr;  /* "a, b" as written */
    const char *left;  /* rendered operand values; NULL when not */
    const char *right; /* applicable (ASSERT(cond) has no right) */
    /* crash / exit / timeout */
    int signal;      /* crash: signal number */
    int exit_code;   /* exit */
    long timeout_ms; /* timeout */
    const struct tattle_frame *frames;
    size_t frame_count;
    bool filtered; /* matched --filter-out */
    /* Set when the failure happened in a fixture: which one, as "suite
     * setup", "test setup", "test teardown" or "suite teardown", then the
     * function's name when the symbol table has it ("suite setup
     * open_db"). NULL otherwise. */
    const char *fixture;
    /* timeout: every thread of every live process of the test */
    const struct tattle_thread_stack *stacks;
    size_t stack_count;
};

/** Captured output of one stream: head and tail kept, byte count exact.
 * `text` holds the kept bytes (NUL-terminated, may contain NUL bytes; use
 * `length`); when truncated it is the head, a marker line and the tail. */
struct tattle_output {
    const char *text;
    size_t length;
    uint64_t bytes; /* bytes the test wrote in all */
    bool truncated;
};

/* ---- The flight recorder's trace (see trace.h) ---- */

enum tattle_trace_event_kind {
    TATTLE_TRACE_SEND,
    TATTLE_TRACE_RECV,
    TATTLE_TRACE_EVENT,
    TATTLE_TRACE_SPAWN,
    TATTLE_TRACE_EXIT
};

TATTLE_API const char *
tattle_trace_event_kind_name(enum tattle_trace_event_kind kind);

struct tattle_trace_event {
    uint64_t seq;
    uint64_t t_us; /* relative to the test's start */
    enum tattle_trace_event_kind kind;
    const char *from; /* actor names; NULL when not applicable */
    const char *to;
    const char *label;
    const char *msg; /* payload rendered as text (bounded) */
    uint64_t size;   /* payload size in bytes */
    int level;
    uint64_t match; /* captured message: on a recv, the seq of the send
                       whose bytes it received first; on a send, the seq of
                       the recv that took its last byte (else the latest
                       that took some); 0 when unknown (never received, or
                       the other end lost to the ring cap or walk bound) */
};

struct tattle_trace_mailbox {
    const char *name;
    const char *owner;           /* actor that opened it; NULL when unknown */
    bool alive;                  /* its owner was alive when it was read */
    uint64_t pending;            /* messages waiting */
    const char *const *messages; /* rendered, oldest first */
    size_t message_count;        /* may be < pending when bounded */
    bool approx;                 /* read while a writer was live or crashed */
};

/* One unread send of a captured endpoint: which send (its event's seq),
 * how many of its bytes are still unread, and its payload as the event
 * renders it. */
struct tattle_trace_pending_send {
    uint64_t send;  /* the seq of the send event */
    uint64_t bytes; /* its bytes not yet received */
    const char *msg;
};

/* An endpoint the message capture saw (a pipe, socket, eventfd or POSIX
 * queue) into which more was sent than was received by the end of the
 * test: what still waited to be read there, as the capture counted it. */
struct tattle_trace_endpoint {
    const char *name;  /* `pipe:[inode]`, `unix:PATH`, `mq:/NAME`, ... */
    const char *kind;  /* "pipe", "socket", "eventfd" or "mq" */
    const char *owner; /* the actor seen reading it, else writing; or NULL */
    uint64_t pending_bytes;
    uint64_t pending_messages; /* datagrams, eventfd writes, queue messages
                                  unread; 0 for byte streams */
    const struct tattle_trace_pending_send *messages; /* oldest first */
    size_t message_count;
    bool complete; /* every unread send is in messages */
    /* What the kernel still held, peeked without consuming it by a process
     * holding the endpoint open: the test process at its end or in its
     * crash handler, or the runner on the test's halted processes before
     * it kills them. kernel_peeked is false when none did (killed, or the
     * peek refused); the rest is then empty. */
    bool kernel_peeked;
    bool kernel_peeked_by_runner;     /* at a timeout, or on the processes the
                                         test process left alive */
    uint64_t kernel_pending_bytes;    /* a datagram socket: its first
                                         datagram's; a queue: 0, not known */
    uint64_t kernel_pending_messages; /* a queue's messages, an eventfd's
                                         counter; 0 for the rest */
    const char *kernel_msg; /* the first payload_bytes waiting, rendered
                               like a message; "" when none were read */
};

struct tattle_trace_actor {
    const char *name;
    int pid;
    int tid;
    bool alive_at_exit;
};

/* One entry or exit of an instrumented function (tag `trace_calls`). */
enum tattle_trace_call_kind { TATTLE_TRACE_CALL_ENTER, TATTLE_TRACE_CALL_EXIT };

struct tattle_trace_call {
    uint64_t seq;  /* shared with the events: one timeline */
    uint64_t t_us; /* relative to the test's start */
    const char *actor;
    enum tattle_trace_call_kind kind;
    const char *function; /* NULL when no symbol names it */
    const char *file;     /* where the function is defined; NULL: unknown */
    int line;
    unsigned depth; /* calls its thread was inside when it was entered */
};

/* A thread's shadow stack at the end of the test: the calls it was still
 * inside, innermost first. `depth` counts them all; only the outermost
 * 64 are stored, so frame_count may be smaller. */
struct tattle_trace_stack {
    const char *actor;
    unsigned depth;
    const struct tattle_frame *frames;
    size_t frame_count;
};

struct tattle_trace {
    uint64_t cap;
    uint64_t budget;
    int level;
    uint64_t recorded;
    uint64_t dropped;
    bool overflow;
    const struct tattle_trace_event *events;
    size_t event_count;
    const struct tattle_trace_mailbox *mailboxes;
    size_t mailbox_count;
    const struct tattle_trace_actor *actors;
    size_t actor_count;
    /* Call tracing (tag `trace_calls`); calls_traced is false otherwise
     * and the rest empty. */
    bool calls_traced;
    uint64_t call_cap;       /* calls kept */
    uint64_t calls_recorded; /* calls recorded in all */
    uint64_t calls_lost;     /* calls a signal handler made inside a hook */
    const struct tattle_trace_call *calls;
    size_t call_count;
    const struct tattle_trace_stack *stacks;
    size_t stack_count;
    /* Captured endpoints with bytes still unread at the end (message
     * capture, SPEC 5a); empty when none. */
    const struct tattle_trace_endpoint *endpoints;
    size_t endpoint_count;
};

/** A test as reporters see it, before and after running. */
struct tattle_test_info {
    const char *id; /* "suite/name" */
    const char *suite;
    const char *name;
    const char *file;
    int line;
    const struct tattle_tag *tags; /* suite tags, then the test's own */
    size_t tag_count;
    long timeout_ms; /* effective timeout */
    bool traced;
    /* A parameterized test's value, rendered (its name ends in [index]);
     * NULL for other tests. */
    const char *param;
};

/** The result of one selected test. Valid during test_finished only:
 * a reporter that keeps anything copies it. */
struct tattle_result {
    const struct tattle_test_info *test;
    enum tattle_state state;
    uint64_t duration_us;
    /* Runs made: retries and --repeat runs included. For an earlier
     * attempt, which run of its test it was (0 when not known). */
    unsigned attempts;
    bool flaky; /* failed, then passed on a retry */
    const struct tattle_failure *failures;
    size_t failure_count;
    const char *skip_reason; /* skipped / excluded: why */
    struct tattle_output stdout_output;
    struct tattle_output stderr_output;
    const struct tattle_trace *trace; /* NULL when not traced or not kept */
    const char *rerun; /* shell command that reruns exactly this test */
    /* A retried test's failed attempts before the one shown above, oldest
     * first: their state, duration, failures and output (no trace, no
     * earlier attempts of their own). None for a test that ran once. */
    const struct tattle_result *earlier_attempts;
    size_t earlier_attempt_count;
};

struct tattle_summary {
    uint64_t total;
    uint64_t passed;
    uint64_t failed;
    uint64_t skipped;
    uint64_t excluded;
    uint64_t invalid;
    uint64_t flaky;
    uint64_t duration_us;
    bool interrupted;
};

/** What a report says about the run itself. */
struct tattle_run_info {
    const char *started_at; /* RFC 3339 UTC */
    uint64_t seed;
    unsigned jobs;
    int argc;
    char *const *argv;
    const char *executable;
    bool sharded;
    unsigned shard_index;
    unsigned shard_total;
    uint64_t planned; /* tests selected for this run */
    /* The count of results is known only at the end: a wrapped program
     * (`tattle run`) may turn out to hold several tests, each reported
     * as a result of its own (`planned` counts it once), and a suite's
     * after_all that fails after its tests were reported is a result
     * `planned` does not count. */
    bool planned_open;
    /* `tattle run`: the wrapped command, shell-quoted; else NULL. */
    const char *wrapped_command;
    /* `tattle run`: the id of the command's own result, which is kept
     * beside its inner tests' when it says what they do not; else NULL. */
    const char *wrapped_id;
};

/** The reporting options of the command line that shape what reporters
 * write (agent modes, colour). */
struct tattle_report_options {
    bool failures_only;
    bool summary_only;
    bool first_failure;
    bool group_by_error;
    bool compact;
    bool quiet;
    bool trace_passed;
    bool color; /* resolved: colours wanted on this stream */
    const char *const *filter_out;
    size_t filter_out_count;
    /* Within tattle only (NULL elsewhere): the "error_groups" array (a
     * cJSON array) of a report read back without its tests, which the
     * groups start from, so that `tattle convert` keeps them. */
    const void *error_groups_read;
    /* A reporter writes GitHub Actions workflow commands to the job log
     * (--reporter github): text from tests that another reporter prints
     * there is shown between `::stop-commands::TOKEN` and `::TOKEN::`. */
    bool stop_workflow_commands;
};

/** A reporter plugin. `create` makes an instance writing to `destination`
 * (a path, "-" for stdout, or NULL for the reporter's default); it returns 0
 * or a negative errno-style code and leaves no file behind on failure.
 * `end` finishes the output (an atomic rename for files) and returns 0 or a
 * negative code; `destroy` frees the instance and, if `end` was not
 * reached, discards partial output without touching an existing file. */
struct tattle_reporter_type {
    const char *name;
    int (*create)(void **self, const char *destination,
                  const struct tattle_report_options *options);
    void (*begin)(void *self, const struct tattle_run_info *run);
    void (*test_started)(void *self, const struct tattle_test_info *test);
    void (*test_finished)(void *self, const struct tattle_result *result);
    int (*end)(void *self, const struct tattle_summary *summary);
    void (*destroy)(void *self);
};

/** How many reporter plugins can be registered. */
#define TATTLE_REPORTER_PLUGIN_MAX 32

/** Makes a reporter type available to `--reporter NAME`. The registry keeps
 * the pointer (the type must outlive the run). Returns 0, -EEXIST when the
 * name is taken, or -ENOSPC when TATTLE_REPORTER_PLUGIN_MAX plugins are
 * registered already (tattle_error_message() describes either). */
TATTLE_API int
tattle_reporter_register(const struct tattle_reporter_type *type);

/** Finds a registered reporter type by name, or NULL. */
TATTLE_API const struct tattle_reporter_type *
tattle_reporter_find(const char *name);

/* ---- Reporter plugins in a shared object ---- */

/** The version of this header's reporter interface: the layout of every
 * struct above and the meaning of each callback. It changes whenever one
 * of them does, and a plugin built against another version is refused. */
#define TATTLE_REPORTER_ABI_VERSION 1

/** The name of the function a plugin exports (`--reporter PATH.so[=FILE]`,
 * `reports: {plugins: [...]}` in tattle.yml). */
#define TATTLE_REPORTER_PLUGIN_SYMBOL "tattle_reporter_plugin_v1"

/** The type of that function. It stores the TATTLE_REPORTER_ABI_VERSION
 * the plugin was compiled with in `*abi_version` and returns its reporter
 * type (static storage: the runner keeps the pointer for the whole run and
 * never unloads the plugin), or NULL when it cannot work here. The runner
 * calls it once, in its own process, after the test processes' fork
 * server exists: no test process ever runs or maps plugin code. */
typedef const struct tattle_reporter_type *
tattle_reporter_plugin_function(unsigned *abi_version);

/** Defines the exported entry function of a plugin whose reporter type is
 * the variable `type`; used once in the plugin, at file scope (in C or
 * C++: the name is never mangled). */
#ifdef __cplusplus
#define TATTLE__PLUGIN_LINKAGE extern "C"
#else
#define TATTLE__PLUGIN_LINKAGE
#endif
#define TATTLE_REPORTER_PLUGIN(type)                                           \
    TATTLE__PLUGIN_LINKAGE __attribute__((visibility("default")))              \
    const struct tattle_reporter_type *                                        \
    tattle_reporter_plugin_v1(unsigned *abi_version);                          \
    TATTLE__PLUGIN_LINKAGE __attribute__((visibility("default")))              \
    const struct tattle_reporter_type *                                        \
    tattle_reporter_plugin_v1(unsigned *abi_version)                           \
    {                                                                          \
        *abi_version = TATTLE_REPORTER_ABI_VERSION;                            \
        return &(type);                                                        \
    }

#ifdef __cplusplus
}
#endif

#endif /* TATTLE_REPORTER_H */
