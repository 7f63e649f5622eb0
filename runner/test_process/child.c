/*
 * child.c — a test's process: how it starts from what the fork server
 * hands it, the phases of one test, fatal-assertion unwinding (the longjmp
 * to the phase's setjmp point, which also unwinds the shadow stack of a
 * `trace_calls` test to the depth saved there), and the on-exit
 * callbacks.
 */
#include "runner/test_process/child.h"
#include "runner/test_process/slot_write.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <sys/single_threaded.h>
#endif

#include "runner/params.h"
#include "runner/test_process/crash.h"
#include "base/buffer.h"
#include "tracer/session.h"
#include "tracer/test_process/recorder.h"
#include "base/child_path.h"
#include "base/sanitizers.h"

struct on_exit_callback {
    void (*fn)(void *ctx);
    void *ctx;
};

/* What a test process writes on every run is TATTLE__CHILD_STATE: one
 * section, so it faults in as few pages as it can. */
TATTLE__CHILD_STATE static struct tattle__slot *current_slot;
TATTLE__CHILD_STATE static jmp_buf *current_phase_exit;
TATTLE__CHILD_STATE static pthread_t test_thread;
TATTLE__CHILD_STATE static pid_t test_process;
static struct on_exit_callback *on_exit_callbacks;
TATTLE__CHILD_STATE static size_t on_exit_count;
static size_t on_exit_capacity;
/* The pointers the setups returned, for tattle_fixture() and the
 * teardowns. */
TATTLE__CHILD_STATE static void *test_fixture, *suite_fixture;
TATTLE__CHILD_STATE static bool test_has_setup;
TATTLE__CHILD_STATE static const struct tattle_test *current_test;

const void *tattle_param(void)
{
    const struct tattle__param_case *pc =
        current_slot ? tattle__param_case_find(current_test) : NULL;
    return pc ? tattle__param_case_value(pc) : NULL;
}

void *tattle_fixture(void)
{
    if (!current_slot)
        return NULL;
    return test_has_setup ? test_fixture : suite_fixture;
}

void *tattle_suite_fixture(void)
{
    return current_slot ? suite_fixture : NULL;
}

struct tattle__slot *tattle__child_slot(void)
{
    return current_slot;
}

int tattle_on_exit(void (*fn)(void *ctx), void *ctx)
{
    if (!fn)
        return -EINVAL;
    if (!current_slot)
        return -ENOENT;
    if (on_exit_count == on_exit_capacity) {
        on_exit_capacity = on_exit_capacity ? on_exit_capacity * 2 : 8;
        on_exit_callbacks = tattle__realloc(
            on_exit_callbacks, on_exit_capacity * sizeof *on_exit_callbacks);
    }
    on_exit_callbacks[on_exit_count++] = (struct on_exit_callback){fn, ctx};
    return 0;
}

void tattle__child_leave_phase(void)
{
    /* A process the test forked shares the test thread's id and its jump
     * buffers, but the test's phases are not its to unwind: the failure is
     * already recorded (the slot is shared), so the worker just ends, with
     * a status its parent can see. */
    if (current_slot && getpid() != test_process)
        _exit(1);
    if (current_phase_exit && pthread_equal(pthread_self(), test_thread))
        longjmp(*current_phase_exit, 1);
    if (current_slot && !pthread_equal(pthread_self(), test_thread))
        pthread_exit(NULL);
    /* Outside any phase (a fatal assertion outside a test): stop here. */
    abort();
}

/* What a phase calls: the body or a fixture, in the signature its option
 * said (enum tattle_fixture_signature; unknown counts as with state). */
struct phase_call {
    const void *function; /* NULL: nothing to run */
    enum tattle__fixture_role role;
    bool with_state;
    bool is_setup;
    void *fixture;         /* a teardown's argument */
    void **fixture_result; /* where a setup's pointer goes */
};

TATTLE__CHILD_PATH static struct phase_call body_call(void (*body)(void))
{
    struct phase_call call = {0};
    memcpy(&call.function, &body, sizeof call.function);
    return call;
}

TATTLE__CHILD_PATH static struct phase_call
fixture_call(enum tattle__fixture_role role, const void *function,
             intptr_t signature, void **fixture)
{
    bool is_setup = role == TATTLE__FIXTURE_SUITE_SETUP ||
                    role == TATTLE__FIXTURE_TEST_SETUP;
    return (struct phase_call){
        .function = function,
        .role = role,
        .with_state = signature != TATTLE_FIXTURE_PLAIN,
        .is_setup = is_setup,
        .fixture = is_setup ? NULL : *fixture,
        .fixture_result = is_setup ? fixture : NULL,
    };
}

/* The call itself: function addresses travel as `const void *` (C cannot
 * give one option both fixture types), so each is copied back into the
 * pointer type of its signature. */
TATTLE__CHILD_PATH static void call_now(const struct phase_call *call)
{
    if (call->with_state && call->is_setup) {
        void *(*setup)(void);
        memcpy(&setup, &call->function, sizeof setup);
        *call->fixture_result = setup();
    } else if (call->with_state) {
        void (*teardown)(void *);
        memcpy(&teardown, &call->function, sizeof teardown);
        teardown(call->fixture);
    } else {
        void (*plain)(void);
        memcpy(&plain, &call->function, sizeof plain);
        plain();
    }
}

/* Runs `call` in `phase`; returns false when it was left by a fatal
 * failure or a skip. */
TATTLE__CHILD_PATH static bool run_phase(enum tattle__phase phase,
                                         struct phase_call call)
{
    if (!call.function)
        return true;
    if (call.role != TATTLE__FIXTURE_NONE)
        atomic_store(&current_slot->fixture, call.role);
    atomic_store(&current_slot->phase, phase);
    jmp_buf exit_point;
    jmp_buf *outer = current_phase_exit;
    volatile bool completed = false;
    uint32_t call_depth = tattle__calls_depth();
    current_phase_exit = &exit_point;
    if (setjmp(exit_point) == 0) {
        call_now(&call);
        completed = true;
    } else {
        tattle__calls_unwind(call_depth);
    }
    current_phase_exit = outer;
    return completed;
}

TATTLE__CHILD_PATH static void run_on_exit_callbacks(void)
{
    atomic_store(&current_slot->phase, TATTLE__PHASE_ON_EXIT);
    while (on_exit_count > 0) {
        struct on_exit_callback callback = on_exit_callbacks[--on_exit_count];
        jmp_buf exit_point;
        jmp_buf *outer = current_phase_exit;
        uint32_t call_depth = tattle__calls_depth();
        current_phase_exit = &exit_point;
        if (setjmp(exit_point) == 0)
            callback.fn(callback.ctx);
        else
            tattle__calls_unwind(call_depth);
        current_phase_exit = outer;
    }
}

TATTLE__CHILD_PATH void tattle__child_run(const struct tattle_test *test,
                                          const struct tattle_suite *suite,
                                          struct tattle__slot *slot,
                                          pid_t process, pthread_t thread)
{
    current_slot = slot;
    test_thread = thread;
    test_process = process;
    on_exit_count = 0;

    current_test = test;
    test_fixture = NULL;
    suite_fixture = NULL;
    test_has_setup = test->options.setup != NULL;

    const struct tattle_suite_options none = {0};
    const struct tattle_suite_options *around = suite ? &suite->options : &none;
    bool ready =
        run_phase(TATTLE__PHASE_SETUP,
                  fixture_call(TATTLE__FIXTURE_SUITE_SETUP, around->setup,
                               around->setup_signature, &suite_fixture));
    if (ready)
        ready = run_phase(
            TATTLE__PHASE_SETUP,
            fixture_call(TATTLE__FIXTURE_TEST_SETUP, test->options.setup,
                         test->options.setup_signature, &test_fixture));
    if (!ready)
        atomic_store(&slot->setup_failed, 1);
    else
        run_phase(TATTLE__PHASE_BODY, body_call(test->body));
    run_phase(TATTLE__PHASE_TEARDOWN,
              fixture_call(TATTLE__FIXTURE_TEST_TEARDOWN,
                           test->options.teardown,
                           test->options.teardown_signature, &test_fixture));
    run_phase(TATTLE__PHASE_TEARDOWN,
              fixture_call(TATTLE__FIXTURE_SUITE_TEARDOWN, around->teardown,
                           around->teardown_signature, &suite_fixture));
    run_on_exit_callbacks();
    atomic_store(&slot->phase, TATTLE__PHASE_DONE);
    current_slot = NULL;
}

bool tattle__child_run_suite_fixture(void (*fn)(void), enum tattle__phase phase,
                                     struct tattle__slot *slot)
{
    current_slot = slot;
    test_thread = pthread_self();
    test_process = getpid();
    on_exit_count = 0;
    bool completed = run_phase(phase, body_call(fn));
    /* A process the fixture forked that returned from it must not go on
     * as the process the fixture ran in (a second suite server, or with
     * --no-fork a second runner): it ends here, before it touches the
     * slot. */
    if (getpid() != test_process)
        _exit(0);
    atomic_store(&slot->phase, TATTLE__PHASE_DONE);
    current_slot = NULL;
    return completed;
}

/* ---- the forked test process ---- */

static bool traced;

void tattle__child_on_crash(void)
{
    if (traced)
        tattle__trace_session_child_finish(true);
}

/* The test process's setup calls. In a plain build they go through
 * syscall(), which the fork server's clone3 already ran: each libc wrapper
 * sits in its own window of libc's text, and a forked process faults once
 * on every window it runs. Under a sanitizer they are libc's, whose
 * interceptors keep the sanitizer's view of descriptors and signal masks
 * true (a raw call would leave it stale and, under ThreadSanitizer,
 * signals delivered by a wrong mask); such a build is not about fork
 * speed. */
#if !TATTLE__SANITIZED && defined(SYS_dup2) && defined(SYS_rt_sigprocmask)
#define TATTLE__RAW_SETUP_CALLS 1
#else
#define TATTLE__RAW_SETUP_CALLS 0
#endif

/* Makes the test process leader of its own process group, reaper of its
 * orphans, and killed when the fork server dies. */
TATTLE__CHILD_PATH static void take_own_group(void)
{
#if TATTLE__RAW_SETUP_CALLS
    syscall(SYS_setpgid, 0, 0);
    syscall(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
#else
    setpgid(0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
}

TATTLE__CHILD_PATH static pid_t parent_pid(void)
{
#if TATTLE__RAW_SETUP_CALLS
    return (pid_t)syscall(SYS_getppid);
#else
    return getppid();
#endif
}

TATTLE__CHILD_PATH static pid_t own_pid(void)
{
#if TATTLE__RAW_SETUP_CALLS
    return (pid_t)syscall(SYS_getpid);
#else
    return getpid();
#endif
}

/* The kernel's signal set is the first _NSIG / 8 bytes of glibc's. */
enum { KERNEL_SIGSET_BYTES = _NSIG / 8 };

void tattle__child_capture_signal_actions(
    const int *signals, const struct sigaction *actions, size_t count,
    struct tattle__kernel_sigaction *captured)
{
    for (size_t i = 0; i < count; i++) {
        struct sigaction current;
        sigaction(signals[i], &actions[i], &current);
        memset(&captured[i], 0, sizeof captured[i]);
#if TATTLE__RAW_SETUP_CALLS
        syscall(SYS_rt_sigaction, signals[i], NULL, captured[i].bytes,
                (size_t)KERNEL_SIGSET_BYTES);
#endif
        sigaction(signals[i], &current, NULL);
    }
}

/* Gives the test process the program's dispositions back: as the kernel
 * holds them, captured in the server, so no libc code runs for it. */
TATTLE__CHILD_PATH static void
restore_signal_actions(const struct tattle__child_start *start)
{
    for (size_t i = 0; i < start->signal_count; i++) {
#if TATTLE__RAW_SETUP_CALLS
        syscall(SYS_rt_sigaction, start->signals[i],
                start->kernel_signal_actions[i].bytes, NULL,
                (size_t)KERNEL_SIGSET_BYTES);
#else
        sigaction(start->signals[i], &start->signal_actions[i], NULL);
#endif
    }
}

TATTLE__CHILD_PATH static void set_signal_mask(const sigset_t *mask)
{
#if TATTLE__RAW_SETUP_CALLS
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, mask, NULL,
            (size_t)KERNEL_SIGSET_BYTES);
#else
    sigprocmask(SIG_SETMASK, mask, NULL);
#endif
}

TATTLE__CHILD_PATH static void move_descriptor(int from, int to)
{
#if TATTLE__RAW_SETUP_CALLS
    syscall(SYS_dup2, from, to);
#else
    dup2(from, to);
#endif
}

#if TATTLE__RAW_SETUP_CALLS && defined(__GLIBC__)
/* glibc's list of open streams (libio's, exported since 2.2.5): what
 * exit() would flush. */
extern FILE *_IO_list_all;
#define TATTLE__SEES_STREAMS 1
#else
#define TATTLE__SEES_STREAMS 0
#endif

/* Flushes what the test left in stdio buffers, as exit() would. Where it
 * can, it looks first, since fflush(NULL) costs three faults (two windows
 * of libc's text and the page of its list lock): only a stream holding
 * output, or a wide one, is a reason to call it. The list and the streams
 * are read, not written, so their pages cost nothing; and a process with
 * threads, one of which may be closing a stream meanwhile, always takes
 * fflush(NULL) and its lock. */
TATTLE__CHILD_PATH static void flush_streams(void)
{
#if TATTLE__SEES_STREAMS
    if (__libc_single_threaded) {
        bool holds_output = false;
        for (FILE *stream = _IO_list_all; stream && !holds_output;
             stream = stream->_chain)
            holds_output = stream->_mode > 0 ||
                           stream->_IO_write_ptr > stream->_IO_write_base;
        if (!holds_output)
            return;
    }
#endif
    fflush(NULL);
}

TATTLE__CHILD_PATH static TATTLE__NORETURN void exit_now(void)
{
#if TATTLE__RAW_SETUP_CALLS
    syscall(SYS_exit_group, 0);
#endif
    _exit(0);
}

TATTLE__CHILD_PATH void tattle__close_descriptors_between(int first, int last)
{
    if (first > last ||
        syscall(SYS_close_range, (unsigned)first, (unsigned)last, 0) == 0)
        return;
    long highest = sysconf(_SC_OPEN_MAX);
    for (long fd = first; fd <= last && fd < highest; fd++)
        close((int)fd);
}

/* Closes every descriptor from `first` up (the fork server's) but `kept`
 * (the arena handed down to exec'd programs, or -1). */
TATTLE__CHILD_PATH static void close_from(int first, int kept)
{
    if (kept >= first) {
        tattle__close_descriptors_between(first, kept - 1);
        first = kept + 1;
    }
    tattle__close_descriptors_between(first, INT_MAX);
}

TATTLE__CHILD_PATH void
tattle__child_main(const struct tattle__child_start *start)
{
    /* Every call here is a cost paid per test: what can be set once was
     * set in the fork server and is inherited. */
    if (start->slot_bytes > 0)
        mprotect(start->slot, start->slot_bytes, PROT_READ | PROT_WRITE);
    if (start->cgroup_procs_fd >= 0 &&
        write(start->cgroup_procs_fd, "0", 1) != 1)
        _exit(3);
    take_own_group();
    if (parent_pid() != start->server_pid)
        _exit(3); /* the server died before the line above */
    restore_signal_actions(start);
    set_signal_mask(start->signal_mask);
    move_descriptor(start->stdin_fd, STDIN_FILENO);
    move_descriptor(start->stdout_fd, STDOUT_FILENO);
    move_descriptor(start->stderr_fd, STDERR_FILENO);
    pid_t process = own_pid();
    tattle__crash_set_slot(start->slot, process);
    int handed_down_fd = -1;
    if (start->arena_fd >= 0) {
        int error = tattle__trace_attach(start->arena_fd, start->arena_size,
                                         &handed_down_fd);
        traced = error == 0;
        if (error != 0) {
            char message[96];
            snprintf(message, sizeof message,
                     "the trace arena could not be mapped: %s",
                     strerror(-error));
            struct tattle__slot_failure failure = {.kind = TATTLE_FAILURE_ERROR,
                                                   .message = message};
            tattle__slot_add_failure(start->slot, &failure);
        }
    }
    close_from(start->first_server_fd, handed_down_fd);

    /* The server's thread is this process's: a fork keeps the thread
     * descriptor where it was. */
    tattle__child_run(start->test, start->suite, start->slot, process,
                      start->thread);
    if (traced)
        tattle__trace_session_child_finish(false);
    flush_streams();
    exit_now();
}
