/*
 * process_tree.c — walking /proc children lists to stop and kill trees.
 */
#include "runner/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/text.h"

struct pid_list {
    pid_t *items;
    size_t count, capacity;
};

static bool pid_list_has(const struct pid_list *list, pid_t pid)
{
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i] == pid)
            return true;
    return false;
}

static void pid_list_add(struct pid_list *list, pid_t pid)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 16;
        list->items = tattle__realloc(list->items,
                                      list->capacity * sizeof *list->items);
    }
    list->items[list->count++] = pid;
}

/* Adds the children of every thread of `pid` to `out`. */
static void children_of(pid_t pid, struct pid_list *out)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return;
    struct dirent *task;
    while ((task = readdir(tasks)) != NULL) {
        if (task->d_name[0] == '.')
            continue;
        char children_path[384];
        snprintf(children_path, sizeof children_path, "/proc/%d/task/%s/children",
                 (int)pid, task->d_name);
        int fd = open(children_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        /* Read to the end: a process may have thousands of children. */
        struct tattle__buffer text = {0};
        char chunk[4096];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof chunk)) > 0)
            tattle__buffer_append(&text, chunk, (size_t)n);
        close(fd);
        if (!text.data)
            continue;
        char *cursor = text.data;
        for (;;) {
            char *end;
            long child = strtol(cursor, &end, 10);
            if (end == cursor)
                break;
            if (!pid_list_has(out, (pid_t)child))
                pid_list_add(out, (pid_t)child);
            cursor = end;
        }
        tattle__buffer_release(&text);
    }
    closedir(tasks);
}

void tattle__process_tree_kill(pid_t root, int include_root)
{
    struct pid_list tree = {0};
    if (include_root)
        kill(root, SIGSTOP);
    pid_list_add(&tree, root);
    /* Stop each process as it is found; walk again until nothing new shows
     * up, so a process forking during the walk cannot escape. */
    for (size_t walked = 0; walked < tree.count; walked++) {
        size_t before = tree.count;
        children_of(tree.items[walked], &tree);
        for (size_t i = before; i < tree.count; i++)
            kill(tree.items[i], SIGSTOP);
    }
    for (size_t i = include_root ? 0 : 1; i < tree.count; i++)
        kill(tree.items[i], SIGKILL);
    free(tree.items);
}

size_t tattle__process_kill_strays(const pid_t *keep, size_t keep_count)
{
    struct pid_list children = {0};
    children_of(getpid(), &children);
    size_t killed = 0;
    for (size_t i = 0; i < children.count; i++) {
        bool kept = false;
        for (size_t j = 0; j < keep_count && !kept; j++)
            kept = keep[j] == children.items[i];
        if (kept)
            continue;
        tattle__process_tree_kill(children.items[i], 1);
        killed++;
    }
    free(children.items);
    return killed;
}
