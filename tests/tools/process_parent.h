/*
 * process_parent.h — for the test fixtures that find the runner from a
 * test process: the parent of a process, read from /proc/PID/stat. The
 * command's name in that file may hold ')' and spaces, so the fields are
 * read after its last ')': the state, then the parent's pid. Header-only:
 * each fixture is one program.
 */
#ifndef TATTLE_TESTS_TOOLS_PROCESS_PARENT_H
#define TATTLE_TESTS_TOOLS_PROCESS_PARENT_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* The parent of process `pid`; -1 if it cannot be read. */
static inline pid_t fixture_parent_of(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *file = fopen(path, "re");
    if (!file)
        return -1;
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = '\0';
    const char *end_of_name = strrchr(text, ')');
    int parent = -1;
    if (!end_of_name || sscanf(end_of_name + 1, " %*c %d", &parent) != 1)
        return -1;
    return (pid_t)parent;
}

#endif /* TATTLE_TESTS_TOOLS_PROCESS_PARENT_H */
