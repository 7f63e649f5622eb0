/*
 * symbolize.c — libdw lookups of crash addresses in the runner's own
 * process image.
 *
 * Each crash gets a session of its own, ended as soon as its frames are
 * symbolized: a session kept for the rest of the run made the runner
 * several times larger after the first crash, and every test forked after
 * it paid for those pages. Separate debug files are found as
 * runner/debug_file.c says, never through libdw's debuginfod client
 * (which stayed loaded, 9 MB of libraries, after the first crash).
 */
#include "runner/symbolize.h"

#include <elfutils/libdwfl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buffer.h"
#include "runner/debug_file.h"

/* A session for one crash: ended (and the heap it used given back) before
 * the next test is forked, so a run's later tests do not carry it. */
static Dwfl *dwfl_for_self(void)
{
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
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

struct tattle_frame *tattle__symbolize(const uintptr_t *addresses, int count,
                                       size_t *frame_count)
{
    Dwfl *dwfl = dwfl_for_self();
    struct tattle_frame *frames =
        tattle__calloc((size_t)(count > 0 ? count : 1), sizeof *frames);
    /* Frame 0 is the handler itself. After the signal trampoline comes the
     * faulting pc, which is not a return address. */
    int first = 1;
    /* Sanitizers' signal interceptors add frames before the trampoline. */
    for (int i = 1; i < count && i < 16; i++) {
        struct tattle_frame probe;
        lookup(dwfl, addresses[i], false, &probe);
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
        lookup(dwfl, addresses[i], i > first, &frame);
        /* Below the test's own code lie the runner's frames: stop there. */
        if (is_named(&frame, "run_phase") ||
            is_named(&frame, "tattle__child_run")) {
            tattle__frames_free(&frame, 1);
            break;
        }
        frames[kept++] = frame;
    }
    *frame_count = kept;
    dwfl_done(dwfl);
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
