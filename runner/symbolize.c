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

static const Dwfl_Callbacks callbacks = {
    .find_elf = tattle__find_module_file,
    .find_debuginfo = tattle__find_debug_file,
};

/* A session for one crash: ended (and the heap it used given back) before
 * the next test is forked, so a run's later tests do not carry it. */
static Dwfl *dwfl_for_self(void)
{
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

char *tattle__symbolize_take_maps(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct tattle__buffer text = {0};
    char chunk[16 * 1024];
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || text.length + (size_t)got > TATTLE__MAPS_BYTES_MAX)
            break;
        tattle__buffer_append(&text, chunk, (size_t)got);
    }
    close(fd);
    /* Whole lines only: a read cut short leaves a line half read. */
    while (text.length > 0 && text.data[text.length - 1] != '\n')
        text.length--;
    if (text.length == 0) {
        tattle__buffer_release(&text);
        return NULL;
    }
    tattle__buffer_append(&text, "", 0);
    return tattle__buffer_take(&text);
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
 * process's modules first (what it loaded itself is only there), then the
 * runner's own image (what the maps could not name: a module deleted
 * since, or no maps at all). */
struct sessions {
    Dwfl *maps, *self;
    bool self_begun; /* the runner's is begun when first needed */
};

/* Whether the maps show a module at `pc` whose file could be read: then
 * it alone names the address (the runner's image may hold another module
 * there, one the test unloaded, or one the runner loaded after the test
 * was forked). */
static bool maps_know(Dwfl *maps, Dwarf_Addr pc)
{
    Dwfl_Module *module = maps ? dwfl_addrmodule(maps, pc) : NULL;
    Dwarf_Addr bias;
    return module && dwfl_module_getelf(module, &bias);
}

static void lookup_in(struct sessions *sessions, uintptr_t address,
                      bool is_return_address, struct tattle_frame *frame)
{
    Dwarf_Addr pc = is_return_address ? address - 1 : address;
    if (maps_know(sessions->maps, pc)) {
        lookup(sessions->maps, address, is_return_address, frame);
        return;
    }
    if (!sessions->self_begun) {
        sessions->self = dwfl_for_self();
        sessions->self_begun = true;
    }
    lookup(sessions->self, address, is_return_address, frame);
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
        bool trampoline = is_named(&probe, "__restore_rt");
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
