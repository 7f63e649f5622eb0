/*
 * proc_maps.h — reading a process's /proc/PID/maps one line at a time,
 * and what one line says: the runner's libdw sessions (a crash's frames,
 * a timed-out test's stacks) pick from it the modules they report, so
 * that a test with a great many mappings costs neither memory nor a
 * session that grows with them.
 */
#ifndef TATTLE_RUNNER_PROC_MAPS_H
#define TATTLE_RUNNER_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/** One line of a maps file: the range, whether it is executable, the
 * file's device and inode (0 for what no file backs) and its name (what
 * follows the inode, "" when none; it points into the line). */
struct tattle__mapping {
    uint64_t start, end, inode;
    unsigned major, minor;
    bool executable;
    const char *name;
};

/** Parses one line of a maps file; false when it is not one. */
bool tattle__parse_mapping(const char *line, struct tattle__mapping *mapping);

/** Calls `each` with every line of /proc/`pid`/maps, its newline cut off:
 * one line at a time, so a process with a great many mappings costs no
 * memory. Returns false when the file could not be opened. */
bool tattle__for_each_maps_line(pid_t pid,
                                void (*each)(char *line, void *context),
                                void *context);

#endif /* TATTLE_RUNNER_PROC_MAPS_H */
