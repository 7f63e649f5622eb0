/*
 * debug_file.h — where the runner's libdw sessions (a crash's frames, a
 * timed-out test's stacks) find a module's separate debug information,
 * without ever reaching libdw's debuginfod client.
 */
#ifndef TATTLE_RUNNER_DEBUG_FILE_H
#define TATTLE_RUNNER_DEBUG_FILE_H

#include <elfutils/libdwfl.h>

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

#endif
