/*
 * stacks.c — ptrace seize/interrupt and libdw unwinding of every thread
 * of a timed-out test, before it is killed.
 *
 * All threads are listed (state and name from /proc), seized and
 * interrupted first, then waited for together (SIGCHLD, which a tracer
 * receives for each stop, wakes the wait), unwound process by process with
 * one libdw session each (the modules the unwinding can need reported
 * from /proc/PID/maps, however many mappings the test made; separate
 * debug info only looked up by build id: the default search is what makes
 * a default session slow) and detached. The session is ended before returning,
 * so nothing of it stays in the runner's memory for later forks.
 *
 * The runner halts a test before taking its stacks (SIGSTOP or a frozen
 * cgroup). Seized, a group-stopped thread reports PTRACE_EVENT_STOP with
 * SIGSTOP and a frozen one PTRACE_EVENT_STOP with SIGTRAP, their registers
 * read as any interrupted thread's, and once detached each goes back to
 * its stop. Their /proc states would then say only 'T' or 'S', so the
 * states are read before the halt (tattle__thread_states_read).
 */
#include "runner/stacks.h"

#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buffer.h"
#include "runner/debug_file.h"
#include "runner/proc_maps.h"
#include "base/timestamp.h"

struct seized_thread {
    pid_t pid, tid;
    bool seized, stopped, gone;
    int resume_signal;
};

struct taking {
    struct tattle__stacks *stacks;
    const struct tattle__thread_states *before; /* may be NULL */
    struct seized_thread *seized; /* parallel to stacks->threads */
    uint64_t deadline_us;
};

/* Reads a small /proc file into `text` (NUL-terminated); its length or -1. */
static ssize_t read_proc_file(const char *path, char *text, size_t room)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, room - 1);
    close(fd);
    if (n < 0)
        return -1;
    text[n] = '\0';
    return n;
}

/* The one-letter state of /proc/PID/task/TID/stat (after the name, which
 * may itself hold ')'). */
static char *thread_state(pid_t pid, pid_t tid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    if (read_proc_file(path, text, sizeof text) < 0)
        return NULL;
    char *end_of_name = strrchr(text, ')');
    if (!end_of_name || end_of_name[1] != ' ' || end_of_name[2] == '\0')
        return NULL;
    char state[2] = {end_of_name[2], '\0'};
    return tattle__strdup(state);
}

static char *thread_name(pid_t pid, pid_t tid)
{
    char path[64], text[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    ssize_t n = read_proc_file(path, text, sizeof text);
    if (n <= 0)
        return NULL;
    if (text[n - 1] == '\n')
        text[n - 1] = '\0';
    return tattle__strdup(text);
}

static const char *refusal_note(int error)
{
    return error == EPERM
               ? "ptrace was refused (EPERM: the kernel's ptrace policy, "
                 "e.g. Yama ptrace_scope above 1, or a test that made itself "
                 "undumpable), so those threads have no frames"
               : "ptrace could not seize some threads, so they have no frames";
}

void tattle__thread_states_read(const pid_t *pids, size_t pid_count,
                                struct tattle__thread_states *states)
{
    *states = (struct tattle__thread_states){
        .tids = tattle__calloc(TATTLE__STACKS_MAX_THREADS, sizeof(pid_t)),
        .states = tattle__calloc(TATTLE__STACKS_MAX_THREADS, 2),
    };
    for (size_t p = 0; p < pid_count; p++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)pids[p]);
        DIR *tasks = opendir(path);
        if (!tasks)
            continue;
        struct dirent *task;
        while (states->count < TATTLE__STACKS_MAX_THREADS &&
               (task = readdir(tasks)) != NULL) {
            if (task->d_name[0] == '.')
                continue;
            pid_t tid = (pid_t)strtol(task->d_name, NULL, 10);
            char *state = thread_state(pids[p], tid);
            if (!state)
                continue;
            states->tids[states->count] = tid;
            states->states[2 * states->count] = state[0];
            states->count++;
            free(state);
        }
        closedir(tasks);
    }
}

void tattle__thread_states_release(struct tattle__thread_states *states)
{
    free(states->tids);
    free(states->states);
    *states = (struct tattle__thread_states){0};
}

/* The state `tid` had in `before`, or NULL. */
static const char *state_before(const struct tattle__thread_states *before,
                                pid_t tid)
{
    for (size_t i = 0; before && i < before->count; i++)
        if (before->tids[i] == tid)
            return &before->states[2 * i];
    return NULL;
}

/* Lists, seizes and interrupts the threads of one process. */
static void seize_process(struct taking *taking, pid_t pid)
{
    struct tattle__stacks *stacks = taking->stacks;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return; /* gone already */
    struct dirent *task;
    while ((task = readdir(tasks)) != NULL) {
        if (task->d_name[0] == '.')
            continue;
        if (stacks->thread_count == TATTLE__STACKS_MAX_THREADS) {
            stacks->note = "the test had more threads than are shown";
            break;
        }
        pid_t tid = (pid_t)strtol(task->d_name, NULL, 10);
        size_t index = stacks->thread_count;
        struct tattle_thread_stack *thread = &stacks->threads[index];
        struct seized_thread *seized = &taking->seized[index];
        *seized = (struct seized_thread){.pid = pid, .tid = tid};
        *thread = (struct tattle_thread_stack){
            .pid = pid,
            .tid = tid,
            .state = thread_state(pid, tid),
            .actor = thread_name(pid, tid),
        };
        /* A zombie (a thread that ended, or a main thread that left with
         * pthread_exit) has no stack and cannot be seized. */
        bool dead = thread->state &&
                    (thread->state[0] == 'Z' || thread->state[0] == 'X');
        const char *before = state_before(taking->before, tid);
        if (before && !dead) {
            free((char *)thread->state);
            thread->state = tattle__strdup(before);
        }
        if (dead || ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
            if (dead || errno == ESRCH) { /* it exited meanwhile: not live */
                free((char *)thread->state);
                free((char *)thread->actor);
                continue;
            }
            stacks->note = refusal_note(errno);
        } else {
            seized->seized = true;
            /* An interrupt fails when the thread ended just after it was
             * seized; it stays traced all the same, and its end is reaped
             * by the wait for stops like any other, or the thread would
             * stay a zombie that keeps its whole process from being
             * reaped. */
            (void)ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
        }
        stacks->thread_count++;
    }
    closedir(tasks);
}

/* Waits until every seized thread stopped or is gone, or the deadline. */
static void wait_for_stops(struct taking *taking)
{
    sigset_t child_signal, old_mask;
    sigemptyset(&child_signal);
    sigaddset(&child_signal, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &child_signal, &old_mask);
    for (;;) {
        size_t waiting = 0;
        for (size_t i = 0; i < taking->stacks->thread_count; i++) {
            struct seized_thread *thread = &taking->seized[i];
            if (!thread->seized || thread->stopped || thread->gone)
                continue;
            int status;
            pid_t got = waitpid(thread->tid, &status, __WALL | WNOHANG);
            if (got == 0) {
                waiting++;
            } else if (got < 0) {
                if (errno == EINTR)
                    waiting++;
                else
                    thread->gone = true;
            } else if (WIFSTOPPED(status)) {
                thread->stopped = true;
                /* A signal-delivery stop: the signal goes back on detach. */
                if (status >> 16 != PTRACE_EVENT_STOP)
                    thread->resume_signal = WSTOPSIG(status);
            } else {
                thread->gone = true;
            }
        }
        uint64_t now = tattle__now_us();
        if (waiting == 0 || now >= taking->deadline_us)
            break;
        /* A tracer gets SIGCHLD for each stop; the short cap only guards
         * against a stop whose signal was merged with an earlier one. */
        uint64_t wait_us = taking->deadline_us - now;
        if (wait_us > 2000)
            wait_us = 2000;
        struct timespec timeout = {0, (long)wait_us * 1000};
        sigtimedwait(&child_signal, NULL, &timeout);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
}

/* ---- unwinding and symbolizing ---- */

struct unwinding {
    Dwarf_Addr pcs[TATTLE__STACKS_MAX_FRAMES];
    bool exact[TATTLE__STACKS_MAX_FRAMES]; /* not a return address */
    size_t count;
    uint64_t deadline_us;
};

static int collect_frame(Dwfl_Frame *state, void *arg)
{
    struct unwinding *unwinding = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(state, &pc, &activation))
        return DWARF_CB_ABORT;
    unwinding->pcs[unwinding->count] = pc;
    unwinding->exact[unwinding->count] = activation;
    unwinding->count++;
    if (unwinding->count == TATTLE__STACKS_MAX_FRAMES ||
        tattle__now_us() >= unwinding->deadline_us)
        return DWARF_CB_ABORT;
    return DWARF_CB_OK;
}

/* Each distinct lookup address of a process is symbolized once. */
struct symbol_cache {
    Dwarf_Addr *keys; /* lookup address + 1; 0: empty */
    struct tattle_frame *values;
    size_t size; /* a power of two */
};

static const struct tattle_frame *
symbolize(Dwfl *dwfl, struct symbol_cache *cache, Dwarf_Addr pc)
{
    size_t slot =
        (size_t)((pc * 0x9E3779B97F4A7C15ull) >> 20) & (cache->size - 1);
    while (cache->keys[slot] && cache->keys[slot] != pc + 1)
        slot = (slot + 1) & (cache->size - 1);
    struct tattle_frame *frame = &cache->values[slot];
    if (cache->keys[slot])
        return frame;
    cache->keys[slot] = pc + 1;
    *frame = (struct tattle_frame){0};
    Dwfl_Module *module = dwfl_addrmodule(dwfl, pc);
    if (!module)
        return frame;
    frame->function = dwfl_module_addrname(module, pc);
    /* Line tables of separate debug info (the C library's) are large:
     * reading them would cost more than all the rest. */
    const char *main_file = NULL, *debug_file = NULL;
    dwfl_module_info(module, NULL, NULL, NULL, NULL, NULL, &main_file,
                     &debug_file);
    if (debug_file && main_file && strcmp(debug_file, main_file) != 0)
        return frame;
    Dwfl_Line *line = dwfl_module_getsrc(module, pc);
    if (line) {
        int line_number = 0;
        frame->file = dwfl_lineinfo(line, NULL, &line_number, NULL, NULL, NULL);
        frame->line = line_number;
    }
    return frame;
}

/* A copy of a symbol's name without its version ("@GLIBC_2.2.5"). */
static char *function_name(const char *symbol)
{
    char *name = tattle__strdup(symbol);
    char *version = name ? strchr(name, '@') : NULL;
    if (version && version != name)
        *version = '\0';
    return name;
}

static bool is_runner_frame(const char *function)
{
    /* Below the test's own code lie the runner's frames. */
    return function && (strcmp(function, "run_phase") == 0 ||
                        strcmp(function, "tattle__child_run") == 0);
}

/* A sanitizer's interceptor, between the test's call and libc's: not the
 * test's own frame. */
static bool is_interceptor_frame(const char *function)
{
    return function && strncmp(function, "__interceptor_", 14) == 0;
}

/* The namespaces of the sanitizers' runtimes, as their functions' mangled
 * names begin. */
static const char *const sanitizer_namespaces[] = {
    "_ZN11__sanitizer", "_ZN6__tsan", "_ZN6__asan",
    "_ZN6__lsan",       "_ZN6__msan", "_ZN7__hwasan",
};

/* The runtime's own thread started in its BackgroundThread
 * (__tsan::BackgroundThread, __sanitizer::BackgroundThread); the test never
 * made it. Where a thread happens to be at the top of its stack says
 * nothing: a thread of the test is often inside the runtime, which every
 * pthread_create, malloc and new thread's start goes through. */
static bool is_sanitizer_thread(const struct tattle_thread_stack *thread)
{
    for (size_t f = 0; f < thread->frame_count; f++) {
        const char *function = thread->frames[f].function;
        if (!function || !strstr(function, "16BackgroundThread"))
            continue;
        for (size_t n = 0;
             n < sizeof sanitizer_namespaces / sizeof *sanitizer_namespaces;
             n++)
            if (strncmp(function, sanitizer_namespaces[n],
                        strlen(sanitizer_namespaces[n])) == 0)
                return true;
    }
    return false;
}

static void thread_stack_free(struct tattle_thread_stack *thread)
{
    for (size_t f = 0; f < thread->frame_count; f++) {
        free((char *)thread->frames[f].function);
        free((char *)thread->frames[f].file);
    }
    free((void *)thread->frames);
    free((char *)thread->actor);
    free((char *)thread->state);
}

/* Leaves out the sanitizer runtime's own threads, keeping the order. */
static void drop_sanitizer_threads(struct tattle__stacks *stacks)
{
    size_t kept = 0;
    for (size_t i = 0; i < stacks->thread_count; i++) {
        if (is_sanitizer_thread(&stacks->threads[i]))
            thread_stack_free(&stacks->threads[i]);
        else
            stacks->threads[kept++] = stacks->threads[i];
    }
    stacks->thread_count = kept;
}

/* The process being unwound (the runner is single-threaded): where the
 * image of a module deleted since it was mapped is read from. */
static pid_t process_unwound;

static int find_module_of_unwound(Dwfl_Module *module, void **user_data,
                                  const char *module_name, Dwarf_Addr base,
                                  char **file_name, Elf **elfp)
{
    return tattle__open_module_file(process_unwound, module, user_data,
                                    module_name, base, file_name, elfp);
}

/* ---- the modules reported ----
 *
 * Only what an unwinding can land in is reported to libdw: the runs of
 * lines of one file (the lines no file backs between them left out, as
 * libdw's own report of the maps takes them for one module) that hold an
 * executable mapping, and the vDSO. Each report costs libdw a look at
 * every module reported before it, so a test that mapped a file (or two,
 * alternately) tens of thousands of times made the report alone take
 * seconds, past the stacks budget; its data mappings are left out, and of
 * the executable runs at most MODULES_MAX are reported: the first half
 * and the last half in address order (the program is first, the
 * libraries the loader mapped at the start and the loader itself last;
 * what the test mapped later lies between them) and every one holding a
 * thread's pc. */

enum { MODULES_MAX = 2048 };

struct module_run {
    char *name; /* malloc'd; NULL: no run */
    uint64_t low, high, inode;
    unsigned major, minor;
    bool executable;
};

struct module_report {
    Dwfl *dwfl; /* NULL: the pass that counts the runs */
    pid_t pid;
    const Dwarf_Addr *pcs;
    size_t pc_count;
    struct module_run run;
    size_t runs;     /* executable runs so far */
    size_t total;    /* executable runs the counting pass found */
    size_t reported; /* executable runs reported */
    bool left_out;   /* an executable run was not reported */
    bool failed;
};

static bool holds_a_pc(const struct module_report *report)
{
    for (size_t i = 0; i < report->pc_count; i++)
        if (report->pcs[i] >= report->run.low &&
            report->pcs[i] < report->run.high)
            return true;
    return false;
}

static void report_module(struct module_report *report, const char *name,
                          uint64_t low, uint64_t high)
{
    if (!dwfl_report_module(report->dwfl, name, low, high))
        report->failed = true;
}

/* Ends the current run: counted, or reported when it is kept. */
static void end_run(struct module_report *report)
{
    struct module_run *run = &report->run;
    if (run->name && run->executable) {
        size_t index = report->runs++;
        bool kept = index < MODULES_MAX / 2 ||
                    index + MODULES_MAX / 2 >= report->total ||
                    holds_a_pc(report);
        /* A halted process's maps stay as they are between the two
         * passes unless a process not halted shares its memory: the
         * reports stay bounded all the same. */
        if (report->reported >= MODULES_MAX + report->pc_count)
            kept = false;
        if (report->dwfl && kept) {
            report_module(report, run->name, run->low, run->high);
            report->reported++;
        } else if (report->dwfl)
            report->left_out = true;
    }
    free(run->name);
    run->name = NULL;
}

static void report_line(char *line, void *context)
{
    struct module_report *report = context;
    struct module_run *run = &report->run;
    struct tattle__mapping mapping;
    if (!tattle__parse_mapping(line, &mapping))
        return;
    if (strcmp(mapping.name, "[vdso]") == 0) {
        /* libdw reads its image from the process's memory by this name. */
        end_run(report);
        char name[32];
        snprintf(name, sizeof name, "[vdso: %d]", (int)report->pid);
        if (report->dwfl) /* not counted against the cap */
            report_module(report, name, mapping.start, mapping.end);
        return;
    }
    if (mapping.name[0] != '/' ||
        (mapping.inode == 0 && mapping.major == 0 && mapping.minor == 0))
        return; /* no file backs it */
    if (run->name && mapping.inode == run->inode &&
        mapping.major == run->major && mapping.minor == run->minor) {
        run->high = mapping.end;
        run->executable = run->executable || mapping.executable;
        return;
    }
    end_run(report);
    *run = (struct module_run){
        .name = tattle__strdup(mapping.name),
        .low = mapping.start,
        .high = mapping.end,
        .inode = mapping.inode,
        .major = mapping.major,
        .minor = mapping.minor,
        .executable = mapping.executable,
    };
}

/* The pc of stopped thread `tid`, from the last field of
 * /proc/PID/task/TID/syscall ("NR ARGS... SP PC", or "-1 SP PC" outside
 * a system call); false when it cannot be read. */
static bool thread_pc(pid_t pid, pid_t tid, Dwarf_Addr *pc)
{
    char path[64], text[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
    if (read_proc_file(path, text, sizeof text) <= 0)
        return false;
    char *last = strrchr(text, ' ');
    if (!last || strncmp(last, " 0x", 3) != 0)
        return false;
    *pc = (Dwarf_Addr)strtoull(last + 1, NULL, 16);
    return true;
}

/* Reports the modules of process `pid` that the unwinding of its stopped
 * threads [first, end) can need; false when its maps cannot be read. */
static bool report_modules(struct taking *taking, Dwfl *dwfl, pid_t pid,
                           size_t first, size_t end)
{
    Dwarf_Addr *pcs = tattle__calloc(end - first, sizeof *pcs);
    size_t pc_count = 0;
    for (size_t i = first; i < end; i++)
        if (taking->seized[i].stopped &&
            thread_pc(pid, taking->seized[i].tid, &pcs[pc_count]))
            pc_count++;
    struct module_report report = {
        .pid = pid, .pcs = pcs, .pc_count = pc_count};
    bool maps_read = tattle__for_each_maps_line(pid, report_line, &report);
    end_run(&report);
    report.total = report.runs;
    report.runs = 0;
    report.dwfl = dwfl;
    maps_read =
        maps_read && tattle__for_each_maps_line(pid, report_line, &report);
    end_run(&report);
    free(pcs);
    if (maps_read && report.left_out && !taking->stacks->note)
        taking->stacks->note =
            "the test had more executable mappings than are looked in, so "
            "some frames may be missing or have no names";
    return maps_read && !report.failed;
}

/* Unwinds the stopped threads of process `pid`: threads [first, end). */
static void unwind_process(struct taking *taking, pid_t pid, size_t first,
                           size_t end)
{
    static const Dwfl_Callbacks callbacks = {
        .find_elf = find_module_of_unwound,
        .find_debuginfo = tattle__find_debug_file,
    };
    struct tattle__stacks *stacks = taking->stacks;
    process_unwound = pid;
    Dwfl *dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        return;
    if (!report_modules(taking, dwfl, pid, first, end) ||
        dwfl_report_end(dwfl, NULL, NULL) != 0 ||
        dwfl_linux_proc_attach(dwfl, pid, true) != 0) {
        stacks->note = "the stacks of a process could not be read";
        dwfl_end(dwfl);
        return;
    }
    size_t cache_size = 64;
    while (cache_size < 2 * (end - first) * TATTLE__STACKS_MAX_FRAMES)
        cache_size *= 2;
    struct symbol_cache cache = {
        .keys = tattle__calloc(cache_size, sizeof *cache.keys),
        .values = tattle__calloc(cache_size, sizeof *cache.values),
        .size = cache_size,
    };
    struct unwinding unwinding;
    for (size_t i = first; i < end; i++) {
        if (!taking->seized[i].stopped)
            continue;
        unwinding.count = 0;
        unwinding.deadline_us = taking->deadline_us;
        /* A garbage stack ends the unwinding early; what came before it is
         * kept. */
        dwfl_getthread_frames(dwfl, taking->seized[i].tid, collect_frame,
                              &unwinding);
        struct tattle_frame *frames = tattle__calloc(
            unwinding.count ? unwinding.count : 1, sizeof *frames);
        size_t kept = 0;
        for (size_t f = 0; f < unwinding.count; f++) {
            Dwarf_Addr pc = unwinding.pcs[f];
            const struct tattle_frame *symbol =
                symbolize(dwfl, &cache, unwinding.exact[f] ? pc : pc - 1);
            if (is_runner_frame(symbol->function))
                break;
            if (is_interceptor_frame(symbol->function))
                continue;
            frames[kept++] = (struct tattle_frame){
                .function = function_name(symbol->function),
                .file = tattle__strdup(symbol->file),
                .line = symbol->line,
                .address = (uintptr_t)pc,
            };
        }
        stacks->threads[i].frames = frames;
        stacks->threads[i].frame_count = kept;
        if (tattle__now_us() >= taking->deadline_us) {
            stacks->note = "taking the stacks ran out of time";
            break;
        }
    }
    free(cache.keys);
    free(cache.values);
    dwfl_end(dwfl);
}

void tattle__stacks_take(const pid_t *pids, size_t pid_count,
                         const struct tattle__thread_states *before,
                         unsigned long budget_us, struct tattle__stacks *stacks)
{
    *stacks = (struct tattle__stacks){.taken = true};
    struct taking taking = {
        .stacks = stacks,
        .before = before,
        .seized =
            tattle__calloc(TATTLE__STACKS_MAX_THREADS, sizeof *taking.seized),
        .deadline_us = tattle__now_us() + budget_us,
    };
    stacks->threads =
        tattle__calloc(TATTLE__STACKS_MAX_THREADS, sizeof *stacks->threads);
    for (size_t p = 0;
         p < pid_count && stacks->thread_count < TATTLE__STACKS_MAX_THREADS;
         p++)
        seize_process(&taking, pids[p]);
    wait_for_stops(&taking);
    for (size_t first = 0; first < stacks->thread_count;) {
        size_t end = first + 1;
        while (end < stacks->thread_count &&
               taking.seized[end].pid == taking.seized[first].pid)
            end++;
        bool any_stopped = false;
        for (size_t i = first; i < end; i++)
            any_stopped = any_stopped || taking.seized[i].stopped;
        if (any_stopped && tattle__now_us() < taking.deadline_us)
            unwind_process(&taking, taking.seized[first].pid, first, end);
        first = end;
    }
    for (size_t i = 0; i < stacks->thread_count; i++) {
        struct seized_thread *thread = &taking.seized[i];
        if (!thread->seized || thread->gone)
            continue;
        if (thread->stopped &&
            ptrace(PTRACE_DETACH, thread->tid, NULL,
                   (void *)(intptr_t)thread->resume_signal) == 0)
            continue;
        if (!thread->stopped && !stacks->note)
            stacks->note = "some threads did not stop in time";
        stacks->still_traced =
            tattle__realloc(stacks->still_traced,
                            (stacks->still_traced_count + 1) * sizeof(pid_t));
        stacks->still_traced[stacks->still_traced_count++] = thread->tid;
    }
    free(taking.seized);
    drop_sanitizer_threads(stacks);
    /* libdw's many small allocations go back to the kernel: pages left
     * resident would be mapped again by every later fork. */
    malloc_trim(0);
}

void tattle__stacks_forget_tracees(struct tattle__stacks *stacks)
{
    if (stacks->still_traced_count == 0)
        return;
    /* Killed tracees report their end to the tracer, which must reap them
     * before their process can be reaped by its parent. */
    uint64_t deadline_us = tattle__now_us() + 1000 * 1000;
    sigset_t child_signal, old_mask;
    sigemptyset(&child_signal);
    sigaddset(&child_signal, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &child_signal, &old_mask);
    for (;;) {
        size_t kept = 0;
        for (size_t i = 0; i < stacks->still_traced_count; i++) {
            int status;
            pid_t tid = stacks->still_traced[i];
            pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
            bool ended =
                got < 0 ? errno != EINTR : got > 0 && !WIFSTOPPED(status);
            if (got > 0 && WIFSTOPPED(status))
                ended = ptrace(PTRACE_DETACH, tid, NULL, NULL) == 0;
            if (!ended)
                stacks->still_traced[kept++] = tid;
        }
        stacks->still_traced_count = kept;
        uint64_t now = tattle__now_us();
        if (kept == 0 || now >= deadline_us)
            break;
        struct timespec timeout = {0, 2000 * 1000};
        sigtimedwait(&child_signal, NULL, &timeout);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
}

void tattle__stacks_release(struct tattle__stacks *stacks)
{
    for (size_t i = 0; stacks->threads && i < stacks->thread_count; i++)
        thread_stack_free(&stacks->threads[i]);
    free(stacks->threads);
    free(stacks->still_traced);
    *stacks = (struct tattle__stacks){0};
}
