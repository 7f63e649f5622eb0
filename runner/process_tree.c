/*
 * process_tree.c — walking /proc children lists to stop and kill trees,
 * and reading /proc task states to see that a stopped tree has stopped.
 */
#include "runner/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/timestamp.h"

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

void tattle__process_children_read(int fd, struct tattle__pid_list *out)
{
    /* Read to the end: a process may have thousands of children. From
     * offset 0 each time, so one descriptor serves every reading. */
    struct tattle__buffer text = {0};
    char chunk[4096];
    ssize_t n;
    off_t offset = 0;
    while ((n = pread(fd, chunk, sizeof chunk, offset)) > 0) {
        tattle__buffer_append(&text, chunk, (size_t)n);
        offset += n;
    }
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

/* Appends the pids of one children file not yet in `out`. */
static void read_children_file(const char *path, struct tattle__pid_list *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    tattle__process_children_read(fd, out);
    close(fd);
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

void tattle__process_tree_stop(pid_t root, bool include_root,
                               struct tattle__pid_list *tree)
{
    if (include_root)
        kill(root, SIGSTOP);
    size_t first = tree->count;
    if (!tattle__pid_list_has(tree, root))
        tattle__pid_list_add(tree, root);
    /* Each process is stopped as it is found. Walk everything again until a
     * whole walk finds nothing new: a process that forked, or an orphan
     * handed to a subreaper already walked, shows up in the next walk. */
    for (size_t known = first; known != tree->count;) {
        known = tree->count;
        for (size_t walked = first; walked < known; walked++)
            tattle__process_children(tree->items[walked], tree);
        for (size_t i = known; i < tree->count; i++)
            kill(tree->items[i], SIGSTOP);
    }
}

/* Whether every thread of `pid` is stopped, traced, dead or gone. */
static bool process_stopped(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return true;
    bool stopped = true;
    struct dirent *task;
    while (stopped && (task = readdir(tasks)) != NULL) {
        if (task->d_name[0] == '.')
            continue;
        char stat_path[384], text[512];
        snprintf(stat_path, sizeof stat_path, "/proc/%d/task/%s/stat", (int)pid,
                 task->d_name);
        int fd = open(stat_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* the thread ended */
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        if (n <= 0)
            continue;
        text[n] = '\0';
        /* The state follows the name, which may itself hold ')'. */
        const char *end_of_name = strrchr(text, ')');
        char state = end_of_name && end_of_name[1] == ' ' ? end_of_name[2] : 0;
        stopped = state == 'T' || state == 't' || state == 'Z' || state == 'X';
    }
    closedir(tasks);
    return stopped;
}

bool tattle__process_tree_wait_stopped(const struct tattle__pid_list *tree,
                                       uint64_t deadline_us)
{
    for (size_t i = 0; i < tree->count;) {
        if (process_stopped(tree->items[i])) {
            i++;
            continue;
        }
        if (tattle__now_us() >= deadline_us)
            return false;
        /* A stop lands within a scheduling slice of its signal; nothing
         * tells a process that is not the parent when it did. */
        struct timespec pause = {0, 200 * 1000};
        nanosleep(&pause, NULL);
    }
    return true;
}

void tattle__process_tree_kill(pid_t root, bool include_root,
                               struct tattle__pid_list *killed)
{
    struct tattle__pid_list tree = {0};
    tattle__process_tree_stop(root, include_root, &tree);
    for (size_t i = include_root ? 0 : 1; i < tree.count; i++) {
        kill(tree.items[i], SIGKILL);
        if (killed && !tattle__pid_list_has(killed, tree.items[i]))
            tattle__pid_list_add(killed, tree.items[i]);
    }
    tattle__pid_list_release(&tree);
}
