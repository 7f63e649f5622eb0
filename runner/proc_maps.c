/*
 * proc_maps.c — /proc/PID/maps read line by line with getline, and each
 * line parsed into its range, permissions, file and name (see
 * proc_maps.h).
 */
#include "runner/proc_maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tattle__parse_mapping(const char *line, struct tattle__mapping *mapping)
{
    uint64_t offset;
    char permissions[8];
    int name_at = -1;
    if (sscanf(
            line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 "%n",
            &mapping->start, &mapping->end, permissions, &offset,
            &mapping->major, &mapping->minor, &mapping->inode, &name_at) != 7 ||
        name_at < 0)
        return false;
    mapping->executable = strlen(permissions) > 2 && permissions[2] == 'x';
    mapping->name = line + name_at + strspn(line + name_at, " \t");
    return true;
}

bool tattle__for_each_maps_line(pid_t pid,
                                void (*each)(char *line, void *context),
                                void *context)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *maps = fopen(path, "re");
    if (!maps)
        return false;
    char *line = NULL;
    size_t room = 0;
    ssize_t length;
    while ((length = getline(&line, &room, maps)) > 0) {
        if (line[length - 1] == '\n')
            line[length - 1] = '\0';
        each(line, context);
    }
    free(line);
    fclose(maps);
    return true;
}
