/*
 * symbolize.c — libdw lookups of crash addresses in the runner's own
 * process image.
 */
#include "runner/symbolize.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buffer.h"

static Dwfl *process_dwfl;

static Dwfl *dwfl_for_self(void)
{
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
    };
    if (process_dwfl)
        return process_dwfl;
    Dwfl *dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        return NULL;
    if (dwfl_linux_proc_report(dwfl, getpid()) != 0 ||
        dwfl_report_end(dwfl, NULL, NULL) != 0) {
        dwfl_end(dwfl);
        return NULL;
    }
    process_dwfl = dwfl;
    return dwfl;
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
    struct tattle_frame frame;
    lookup(dwfl_for_self(), (uintptr_t)address, false, &frame);
    free((char *)frame.file);
    return (char *)frame.function;
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
