/*
 * debug_file.h — where the runner's libdw sessions (a crash's frames, a
 * timed-out test's stacks) open a module's file and find its separate
 * debug information, without ever blocking on a file a test put in their
 * place or reaching libdw's debuginfod client.
 */
#ifndef TATTLE_RUNNER_DEBUG_FILE_H
#define TATTLE_RUNNER_DEBUG_FILE_H

#include <elfutils/libdwfl.h>
#include <sys/types.h>

/** A Dwfl_Callbacks.find_debuginfo: the module's debug file by build id
 * under the debug directories (/usr/lib/debug/.build-id), else by its
 * .gnu_debuglink name beside the module, in its .debug directory or under
 * /usr/lib/debug, taken only when its build id is the module's. Returns
 * an open descriptor (and the file's name, malloc'd, in
 * *debuginfo_file_name) or -1. */
int tattle__find_debug_file(Dwfl_Module *module, void **user_data,
                            const char *module_name, Dwarf_Addr base,
                            const char *file_name, const char *debuglink_file,
                            GElf_Word debuglink_crc,
                            char **debuginfo_file_name);

/** What a Dwfl_Callbacks.find_elf does for a module of a process's maps:
 * the file at `module_name`, opened without blocking and taken only when
 * it is a regular file (a test may have put a FIFO at the path since it
 * mapped the file; libdw's own callback checks with stat() and then opens,
 * blocking, what is there by then). A deleted file's image ("PATH
 * (deleted)") is read from the memory of process `memory_of` (-1: none,
 * it is gone), never from what has that name now; the vDSO's from its
 * process's memory; nothing else is opened. Returns an open
 * descriptor (and the name, malloc'd, in *file_name) or -1, or sets
 * *elfp. */
int tattle__open_module_file(pid_t memory_of, Dwfl_Module *module,
                             void **user_data, const char *module_name,
                             Dwarf_Addr base, char **file_name, Elf **elfp);

/** The find_elf of a session whose process is gone (the maps of a crashed
 * test): tattle__open_module_file with no memory to read. */
int tattle__find_module_file(Dwfl_Module *module, void **user_data,
                             const char *module_name, Dwarf_Addr base,
                             char **file_name, Elf **elfp);

/** The find_elf of a session of the runner's own process. */
int tattle__find_own_module_file(Dwfl_Module *module, void **user_data,
                                 const char *module_name, Dwarf_Addr base,
                                 char **file_name, Elf **elfp);

#endif
