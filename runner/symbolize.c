/*
 * symbolize.c — libdw lookups of crash addresses: in the modules the
 * crashed process had mapped, as its maps showed them while its crash
 * handler waited, and in the runner's own process image, which holds at
 * the same addresses everything the test did not load itself.
 *
 * Each crash gets a session of its own, ended as soon as its frames are
 * symbolized: a session kept for the rest of the run made the runner
 * several times larger after the first crash, and every test forked after
 * it paid for those pages. Module files and separate debug files are
 * opened as runner/debug_file.c says (never blocking on what a test put
 * at their paths), never through libdw's debuginfod client (which stayed
 * loaded, 9 MB of libraries, after the first crash).
 */
#include "runner/symbolize.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buffer.h"
#include "runner/debug_file.h"
#include "runner/proc_maps.h"
#include "runner/slot.h"

/* A session for one crash: ended (and the heap it used given back) before
 * the next test is forked, so a run's later tests do not carry it. */
static Dwfl *dwfl_for_self(void)
{
    static const Dwfl_Callbacks callbacks = {
        .find_elf = tattle__find_own_module_file,
        .find_debuginfo = tattle__find_debug_file,
    };
    Dwfl *dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        return NULL;
    if (dwfl_linux_proc_report(dwfl, getpid()) != 0 ||
        dwfl_report_end(dwfl, NULL, NULL) != 0) {
        dwfl_end(dwfl);
        return NULL;
    }
    return dwfl;
}

/* A session of the modules `maps` (a /proc/PID/maps text) names, or NULL
 * when there are none. */
static Dwfl *dwfl_for_maps(const char *maps)
{
    static const Dwfl_Callbacks callbacks = {
        .find_elf = tattle__find_module_file,
        .find_debuginfo = tattle__find_debug_file,
    };
    if (!maps || !*maps)
        return NULL;
    Dwfl *dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        return NULL;
    FILE *text = fmemopen((void *)maps, strlen(maps), "r");
    bool reported = text && dwfl_linux_proc_maps_report(dwfl, text) == 0;
    if (text)
        fclose(text);
    if (!reported || dwfl_report_end(dwfl, NULL, NULL) != 0) {
        dwfl_end(dwfl);
        return NULL;
    }
    return dwfl;
}

/* What the two passes over the maps keep: the files that hold one of the
 * crash's addresses, then every line of those files (a module spans
 * several), and the lines that hold an address themselves; and after a
 * kept file's line, the next file's line, so that two loads of one file
 * (or two names of it) that other files kept apart stay apart: libdw takes
 * neighbouring lines of one file for one module. */
struct maps_filter {
    const uintptr_t *addresses;
    int count;
    struct tattle__mapping files[TATTLE__MAX_FRAMES];
    size_t file_count;
    bool after_a_kept_file; /* the line before was one */
    struct tattle__buffer kept;
};

static bool holds_an_address(const struct maps_filter *filter,
                             const struct tattle__mapping *mapping)
{
    for (int i = 0; i < filter->count; i++) {
        uintptr_t address = filter->addresses[i];
        /* A return address may sit just past its call's module. */
        if (address >= mapping->start && address <= mapping->end)
            return true;
    }
    return false;
}

static bool of_a_kept_file(const struct maps_filter *filter,
                           const struct tattle__mapping *mapping)
{
    for (size_t i = 0; mapping->inode && i < filter->file_count; i++)
        if (filter->files[i].inode == mapping->inode &&
            filter->files[i].major == mapping->major &&
            filter->files[i].minor == mapping->minor)
            return true;
    return false;
}

static void find_files(char *line, void *context)
{
    struct maps_filter *filter = context;
    struct tattle__mapping mapping;
    if (!tattle__parse_mapping(line, &mapping) || !mapping.inode ||
        !holds_an_address(filter, &mapping) ||
        of_a_kept_file(filter, &mapping) ||
        filter->file_count == sizeof filter->files / sizeof *filter->files)
        return;
    mapping.name = NULL; /* the line it points into is read over */
    filter->files[filter->file_count++] = mapping;
}

static void keep_lines(char *line, void *context)
{
    struct maps_filter *filter = context;
    struct tattle__mapping mapping;
    if (!tattle__parse_mapping(line, &mapping))
        return;
    bool of_a_file = mapping.inode != 0;
    bool kept_file = of_a_file && of_a_kept_file(filter, &mapping);
    bool boundary = of_a_file && filter->after_a_kept_file;
    if (of_a_file)
        filter->after_a_kept_file = kept_file;
    if (!kept_file && !boundary && !holds_an_address(filter, &mapping))
        return;
    tattle__buffer_append_string(&filter->kept, line);
    tattle__buffer_append(&filter->kept, "\n", 1);
}

char *tattle__symbolize_take_maps(pid_t pid, const uintptr_t *addresses,
                                  int count)
{
    struct maps_filter filter = {.addresses = addresses, .count = count};
    if (count <= 0 || !tattle__for_each_maps_line(pid, find_files, &filter) ||
        !tattle__for_each_maps_line(pid, keep_lines, &filter) ||
        filter.kept.length == 0) {
        tattle__buffer_release(&filter.kept);
        return NULL;
    }
    return tattle__buffer_take(&filter.kept);
}

static void dwfl_done(Dwfl *dwfl)
{
    if (!dwfl)
        return;
    dwfl_end(dwfl);
    /* libdw's tables were many small allocations: without a trim the
     * freed pages stay resident, and every later fork maps them again. */
    malloc_trim(0);
}

static void lookup(Dwfl *dwfl, uintptr_t address, bool is_return_address,
                   struct tattle_frame *frame)
{
    *frame = (struct tattle_frame){.address = address};
    if (!dwfl)
        return;
    Dwarf_Addr pc = is_return_address ? address - 1 : address;
    Dwfl_Module *module = dwfl_addrmodule(dwfl, pc);
    if (!module)
        return;
    frame->function = tattle__strdup(dwfl_module_addrname(module, pc));
    Dwfl_Line *line = dwfl_module_getsrc(module, pc);
    if (line) {
        int line_number = 0;
        const char *file =
            dwfl_lineinfo(line, NULL, &line_number, NULL, NULL, NULL);
        frame->file = tattle__strdup(file);
        frame->line = line_number;
    }
}

char *tattle__symbolize_function(const void *address)
{
    Dwfl *dwfl = dwfl_for_self();
    struct tattle_frame frame;
    lookup(dwfl, (uintptr_t)address, false, &frame);
    dwfl_done(dwfl);
    free((char *)frame.file);
    return (char *)frame.function;
}

void tattle__symbolize_calls(const uint64_t *addresses, size_t count,
                             struct tattle_frame *frames)
{
    Dwfl *dwfl = dwfl_for_self();
    for (size_t i = 0; i < count; i++)
        lookup(dwfl, (uintptr_t)addresses[i], false, &frames[i]);
    dwfl_done(dwfl);
}

static bool is_named(const struct tattle_frame *frame, const char *name)
{
    return frame->function && strcmp(frame->function, name) == 0;
}

/* The sessions a crash's addresses are looked up in: the crashed
 * process's modules (what it loaded itself is only there), and the
 * runner's own image, for what the maps could not be read for. */
struct sessions {
    Dwfl *maps, *self;
    bool self_begun; /* the runner's is begun when first needed */
};

static Dwfl *self_session(struct sessions *sessions)
{
    if (!sessions->self_begun) {
        sessions->self = dwfl_for_self();
        sessions->self_begun = true;
    }
    return sessions->self;
}

/* Whether `self` holds at `pc` the module `module` of the maps: the same
 * name at the same address. */
static bool same_module(Dwfl *self, Dwarf_Addr pc, Dwfl_Module *module)
{
    Dwfl_Module *own = self ? dwfl_addrmodule(self, pc) : NULL;
    if (!own)
        return false;
    Dwarf_Addr start, own_start;
    const char *name =
        dwfl_module_info(module, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    const char *own_name =
        dwfl_module_info(own, NULL, &own_start, NULL, NULL, NULL, NULL, NULL);
    return name && own_name && start == own_start &&
           strcmp(name, own_name) == 0;
}

/* Whether `pc` lies in the runner's vDSO, which every process forked
 * from it has at the same address (and a maps session does not report). */
static bool in_the_vdso(Dwfl *self, Dwarf_Addr pc)
{
    Dwfl_Module *own = self ? dwfl_addrmodule(self, pc) : NULL;
    const char *name =
        own ? dwfl_module_info(own, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
            : NULL;
    return name && strncmp(name, "[vdso", 5) == 0;
}

/* The session that names `pc`, or NULL: without maps the runner's own
 * image (the crash did not ring); with them the module they show there,
 * or the runner's copy of that same module when its file cannot be read
 * (deleted since, say), the runner's vDSO, and nothing else when the maps
 * show no module there: the runner may hold another module at that
 * address (one the test unloaded, a reporter plugin loaded after the test
 * was forked). */
static Dwfl *session_of(struct sessions *sessions, Dwarf_Addr pc)
{
    if (!sessions->maps)
        return self_session(sessions);
    Dwfl_Module *module = dwfl_addrmodule(sessions->maps, pc);
    if (!module)
        return in_the_vdso(self_session(sessions), pc) ? sessions->self : NULL;
    Dwarf_Addr bias;
    if (dwfl_module_getelf(module, &bias))
        return sessions->maps;
    Dwfl *self = self_session(sessions);
    return same_module(self, pc, module) ? self : NULL;
}

static void lookup_in(struct sessions *sessions, uintptr_t address,
                      bool is_return_address, struct tattle_frame *frame)
{
    Dwarf_Addr pc = is_return_address ? address - 1 : address;
    lookup(session_of(sessions, pc), address, is_return_address, frame);
}

struct tattle_frame *tattle__symbolize(const uintptr_t *addresses, int count,
                                       const char *maps, size_t *frame_count)
{
    struct sessions sessions = {.maps = dwfl_for_maps(maps)};
    struct tattle_frame *frames =
        tattle__calloc((size_t)(count > 0 ? count : 1), sizeof *frames);
    /* Frame 0 is the handler itself. After the signal trampoline comes the
     * faulting pc, which is not a return address. */
    int first = 1;
    /* Sanitizers' signal interceptors add frames before the trampoline. */
    for (int i = 1; i < count && i < 16; i++) {
        struct tattle_frame probe;
        lookup_in(&sessions, addresses[i], false, &probe);
        bool trampoline = is_named(&probe, "__restore_rt") ||
                          is_named(&probe, "__kernel_rt_sigreturn");
        tattle__frames_free(&probe, 1);
        if (trampoline) {
            first = i + 1;
            break;
        }
    }
    size_t kept = 0;
    for (int i = first; i < count; i++) {
        struct tattle_frame frame;
        lookup_in(&sessions, addresses[i], i > first, &frame);
        /* Below the test's own code lie the runner's frames: stop there. */
        if (is_named(&frame, "run_phase") ||
            is_named(&frame, "tattle__child_run")) {
            tattle__frames_free(&frame, 1);
            break;
        }
        frames[kept++] = frame;
    }
    *frame_count = kept;
    if (sessions.maps)
        dwfl_end(sessions.maps);
    if (sessions.self)
        dwfl_end(sessions.self);
    malloc_trim(0); /* as dwfl_done says */
    return frames;
}

void tattle__frames_free(struct tattle_frame *frames, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free((char *)frames[i].function);
        free((char *)frames[i].file);
        frames[i].function = frames[i].file = NULL;
    }
}
