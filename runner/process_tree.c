/*
 * process_tree.c — walking /proc children lists to stop and kill trees.
 */
#include "runner/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buffer.h"

bool tattle__pid_list_has(const struct tattle__pid_list *list, pid_t pid)
{
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i] == pid)
            return true;
    return false;
}

void tattle__pid_list_add(struct tattle__pid_list *list, pid_t pid)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 16;
        list->items =
            tattle__realloc(list->items, list->capacity * sizeof *list->items);
    }
    list->items[list->count++] = pid;
}

void tattle__pid_list_release(struct tattle__pid_list *list)
{
    free(list->items);
    *list = (struct tattle__pid_list){0};
}

/* Appends the pids of one children file not yet in `out`. */
static void read_children_file(const char *path, struct tattle__pid_list *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    /* Read to the end: a process may have thousands of children. */
    struct tattle__buffer text = {0};
    char chunk[4096];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        tattle__buffer_append(&text, chunk, (size_t)n);
    close(fd);
    if (!text.data)
        return;
    char *cursor = text.data;
    for (;;) {
        char *end;
        long child = strtol(cursor, &end, 10);
        if (end == cursor)
            break;
        if (!tattle__pid_list_has(out, (pid_t)child))
            tattle__pid_list_add(out, (pid_t)child);
        cursor = end;
    }
    tattle__buffer_release(&text);
}

void tattle__process_children(pid_t pid, struct tattle__pid_list *out)
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
        snprintf(children_path, sizeof children_path,
                 "/proc/%d/task/%s/children", (int)pid, task->d_name);
        read_children_file(children_path, out);
    }
    closedir(tasks);
}

void tattle__process_tree_list(pid_t root, struct tattle__pid_list *out)
{
    size_t first = out->count;
    if (!tattle__pid_list_has(out, root))
        tattle__pid_list_add(out, root);
    for (size_t known = first; known != out->count;) {
        size_t walked = known;
        known = out->count;
        for (; walked < known; walked++)
            tattle__process_children(out->items[walked], out);
    }
}

void tattle__process_tree_kill(pid_t root, bool include_root,
                               struct tattle__pid_list *killed)
{
    struct tattle__pid_list tree = {0};
    if (include_root)
        kill(root, SIGSTOP);
    tattle__pid_list_add(&tree, root);
    /* Each process is stopped as it is found. Walk everything again until a
     * whole walk finds nothing new: a process that forked, or an orphan
     * handed to a subreaper already walked, shows up in the next walk. */
    for (size_t known = 0; known != tree.count;) {
        known = tree.count;
        for (size_t walked = 0; walked < known; walked++)
            tattle__process_children(tree.items[walked], &tree);
        for (size_t i = known; i < tree.count; i++)
            kill(tree.items[i], SIGSTOP);
    }
    for (size_t i = include_root ? 0 : 1; i < tree.count; i++) {
        kill(tree.items[i], SIGKILL);
        if (killed && !tattle__pid_list_has(killed, tree.items[i]))
            tattle__pid_list_add(killed, tree.items[i]);
    }
    tattle__pid_list_release(&tree);
}
