/*
 * symbolize.c — libdw lookups of crash addresses: in the modules the
 * crashed process had mapped, as its maps showed them while its crash
 * handler waited, and in the runner's own process image, which holds at
 * the same addresses everything the test did not load itself.
 *
 * Each lookup runs in a process forked for it (runner/lookup_process.c):
 * libdw's sessions, the heap they grow and the stack they reach stay out
 * of the runner's memory, which whatever forks it later copies (the fork
 * servers of a second tattle_main in the same process, the next lookup).
 * Ending each session and trimming the heap in the runner itself still
 * left it 90-100 kB of anonymous memory larger after its first crash, and
 * a session kept for the rest of the run made it several times larger. Module
 * files and separate debug files are opened as runner/debug_file.c says (never
 * blocking on what a test put at their paths), never through libdw's
 * debuginfod client (which stayed loaded, 9 MB of libraries, after the
 * first crash).
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
#include "runner/lookup_process.h"
#include "runner/proc_maps.h"
#include "runner/slot.h"

/* A session of the modules of this process's own image (in a lookup
 * process, the runner's: the same modules at the same addresses). */
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

/* After libdw's sessions ended: their tables were many small
 * allocations, and where the lookup had to run in the runner itself,
 * without a trim the freed pages stay resident and every later fork maps
 * them again. A lookup process exits instead. */
static void give_heap_back(void)
{
    if (!tattle__in_a_lookup_process())
        malloc_trim(0);
}

static void dwfl_done(Dwfl *dwfl)
{
    if (!dwfl)
        return;
    dwfl_end(dwfl);
    give_heap_back();
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

/* The functions whose entries are at `addresses`, in the runner's own
 * image: a frame for each. */
struct function_lookup {
    const uint64_t *addresses;
};

static size_t look_up_functions(const void *request,
                                struct tattle_frame *frames, size_t room)
{
    const struct function_lookup *lookup_request = request;
    Dwfl *dwfl = dwfl_for_self();
    for (size_t i = 0; i < room; i++)
        lookup(dwfl, (uintptr_t)lookup_request->addresses[i], false,
               &frames[i]);
    dwfl_done(dwfl);
    return room;
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

/* A crash's addresses and the maps of its process, for
 * look_up_crash. */
struct crash_lookup {
    const uintptr_t *addresses;
    int count;
    const char *maps;
};

/* What tattle__symbolize says, into `frames` (room for every address). */
static size_t look_up_crash(const void *request, struct tattle_frame *frames,
                            size_t room)
{
    (void)room;
    const struct crash_lookup *crash = request;
    const uintptr_t *addresses = crash->addresses;
    int count = crash->count;
    struct sessions sessions = {.maps = dwfl_for_maps(crash->maps)};
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
    if (sessions.maps)
        dwfl_end(sessions.maps);
    if (sessions.self)
        dwfl_end(sessions.self);
    give_heap_back();
    return kept;
}

/* How long one lookup may take. A crash's takes tens of milliseconds on
 * a small machine; a module with hundreds of megabytes of debug
 * information takes seconds. Past this the lookup is stuck (stopped, or
 * blocked where it should not be), and its frames go unnamed. */
enum { LOOKUP_BUDGET_MS = 30000 };

struct tattle_frame *tattle__symbolize(const uintptr_t *addresses, int count,
                                       const char *maps, size_t *frame_count)
{
    size_t room = (size_t)(count > 0 ? count : 1);
    struct tattle_frame *frames = tattle__calloc(room, sizeof *frames);
    *frame_count = 0;
    if (count <= 1) /* the handler's own frame, or nothing */
        return frames;
    struct crash_lookup request = {addresses, count, maps};
    long found = tattle__look_up_in_a_process(look_up_crash, &request, frames,
                                              room, LOOKUP_BUDGET_MS);
    if (found >= 0) {
        *frame_count = (size_t)found;
        return frames;
    }
    /* The lookup died or stuck: every address past the handler's own,
     * unnamed, rather than no frame at all. */
    for (int i = 1; i < count; i++)
        frames[(*frame_count)++] =
            (struct tattle_frame){.address = addresses[i]};
    return frames;
}

/* The names fixtures were looked up by, kept for the run: a suite whose
 * setup fails names its fixture for every test, and each lookup is a
 * process forked. */
enum { NAMED_FUNCTIONS = 32 };
static struct {
    const void *address;
    char *name;
} named_functions[NAMED_FUNCTIONS];
static size_t functions_named; /* ever: the next goes to this % room */

char *tattle__symbolize_function(const void *address)
{
    size_t kept =
        functions_named < NAMED_FUNCTIONS ? functions_named : NAMED_FUNCTIONS;
    for (size_t i = 0; i < kept; i++)
        if (named_functions[i].address == address)
            return tattle__strdup(named_functions[i].name);
    uint64_t entry = (uint64_t)(uintptr_t)address;
    struct function_lookup request = {&entry};
    struct tattle_frame frame = {0};
    long found = tattle__look_up_in_a_process(look_up_functions, &request,
                                              &frame, 1, LOOKUP_BUDGET_MS);
    free((char *)frame.file);
    if (found < 0)
        return NULL; /* not kept: the next lookup may get through */
    size_t place = functions_named++ % NAMED_FUNCTIONS;
    free(named_functions[place].name);
    named_functions[place].address = address;
    named_functions[place].name = tattle__strdup(frame.function);
    return (char *)frame.function;
}

void tattle__symbolize_calls(const uint64_t *addresses, size_t count,
                             struct tattle_frame *frames)
{
    struct function_lookup request = {addresses};
    memset(frames, 0, count * sizeof *frames);
    long found = tattle__look_up_in_a_process(look_up_functions, &request,
                                              frames, count, LOOKUP_BUDGET_MS);
    /* What the lookup did not name (it died or stuck) keeps its address. */
    for (size_t i = found > 0 ? (size_t)found : 0; i < count; i++)
        frames[i] = (struct tattle_frame){.address = (uintptr_t)addresses[i]};
}
