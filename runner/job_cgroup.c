/*
 * job_cgroup.c — finding the runner's cgroup v2 directory and making one
 * cgroup per job slot below it.
 *
 * The runner's cgroup is the "0::PATH" line of /proc/self/cgroup; the
 * cgroup2 mount comes from /proc/self/mountinfo (its root field is where
 * the mount starts in the hierarchy, which a cgroup namespace or a bind
 * mount can move). Below the runner's cgroup the run gets "tattle-PID",
 * and each job slot "tattle-PID/job-N". Nothing here enables a controller:
 * the cgroups exist only to find and kill a test's processes, so creating
 * them is allowed wherever the runner may write its own cgroup directory.
 */
#include "runner/job_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/timestamp.h"

/* Reads a small text file whole (NUL-terminated) into `buffer`. */
static bool read_small_file(const char *path, struct tattle__buffer *buffer)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char chunk[4096];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        tattle__buffer_append(buffer, chunk, (size_t)n);
    close(fd);
    return n == 0 && buffer->data != NULL;
}

/* The runner's cgroup v2 path, "/..." relative to the hierarchy's root. */
static char *own_cgroup_path(void)
{
    struct tattle__buffer text = {0};
    char *path = NULL;
    if (read_small_file("/proc/self/cgroup", &text)) {
        for (char *line = text.data; line && *line;) {
            char *end = strchr(line, '\n');
            if (end)
                *end = '\0';
            if (strncmp(line, "0::", 3) == 0)
                path = tattle__strdup(line + 3);
            line = end ? end + 1 : NULL;
        }
    }
    tattle__buffer_release(&text);
    return path;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *text)
{
    char *out = text;
    for (char *in = text; *in; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' &&
            in[2] <= '7' && in[3] >= '0' && in[3] <= '7') {
            *out++ =
                (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 3;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

/* The directory of the runner's cgroup in the cgroup2 mount, or NULL. */
static char *own_cgroup_directory(void)
{
    char *path = own_cgroup_path();
    if (!path)
        return NULL;
    struct tattle__buffer text = {0};
    char *directory = NULL;
    if (read_small_file("/proc/self/mountinfo", &text)) {
        for (char *line = text.data; line && *line && !directory;) {
            char *end = strchr(line, '\n');
            if (end)
                *end = '\0';
            /* id parent major:minor root mountpoint options... - type ... */
            char *fields[5] = {0};
            char *cursor = line;
            for (int i = 0; i < 5 && cursor; i++) {
                fields[i] = cursor;
                cursor = strchr(cursor, ' ');
                if (cursor)
                    *cursor++ = '\0';
            }
            char *separator = cursor ? strstr(cursor, " - ") : NULL;
            if (fields[4] && separator &&
                strncmp(separator + 3, "cgroup2 ", 8) == 0) {
                char *root = fields[3], *mount = fields[4];
                unescape_octal(root);
                unescape_octal(mount);
                size_t root_length = strcmp(root, "/") == 0 ? 0 : strlen(root);
                if (strncmp(path, root, root_length) == 0 &&
                    (path[root_length] == '/' || path[root_length] == '\0')) {
                    struct tattle__buffer joined = {0};
                    tattle__buffer_printf(&joined, "%s%s", mount,
                                          path + root_length);
                    directory = tattle__buffer_take(&joined);
                }
            }
            line = end ? end + 1 : NULL;
        }
    }
    tattle__buffer_release(&text);
    free(path);
    return directory;
}

/* Removes run directories of runners that are gone, when they are empty
 * (an rmdir of a populated cgroup fails, which keeps it). */
static void remove_stale_runs(const char *parent)
{
    DIR *directory = opendir(parent);
    if (!directory)
        return;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        char *end;
        if (strncmp(entry->d_name, "tattle-", 7) != 0)
            continue;
        long pid = strtol(entry->d_name + 7, &end, 10);
        if (*end != '\0' || pid <= 0 || kill((pid_t)pid, 0) == 0 ||
            errno != ESRCH)
            continue;
        struct tattle__buffer run = {0};
        tattle__buffer_printf(&run, "%s/%s", parent, entry->d_name);
        DIR *jobs = opendir(run.data);
        if (jobs) {
            struct dirent *job;
            while ((job = readdir(jobs)) != NULL) {
                if (strncmp(job->d_name, "job-", 4) != 0)
                    continue;
                struct tattle__buffer path = {0};
                tattle__buffer_printf(&path, "%s/%s", run.data, job->d_name);
                rmdir(path.data);
                tattle__buffer_release(&path);
            }
            closedir(jobs);
        }
        rmdir(run.data);
        tattle__buffer_release(&run);
    }
    closedir(directory);
}

static int open_in(int directory, const char *name, int flags)
{
    return openat(directory, name, flags | O_CLOEXEC);
}

bool tattle__job_cgroups_create(struct tattle__job_cgroups *cgroups,
                                unsigned jobs)
{
    *cgroups = (struct tattle__job_cgroups){0};
    const char *disabled = getenv("TATTLE_NO_CGROUP");
    if (disabled && *disabled && strcmp(disabled, "0") != 0)
        return false;
    char *parent = own_cgroup_directory();
    if (!parent)
        return false;
    remove_stale_runs(parent);
    struct tattle__buffer run = {0};
    tattle__buffer_printf(&run, "%s/tattle-%d", parent, (int)getpid());
    free(parent);
    if (mkdir(run.data, 0755) != 0) {
        tattle__buffer_release(&run);
        return false;
    }
    cgroups->run_path = tattle__buffer_take(&run);
    cgroups->jobs = jobs;
    cgroups->directories = tattle__calloc(jobs, sizeof(int));
    cgroups->procs = tattle__calloc(jobs, sizeof(int));
    cgroups->events = tattle__calloc(jobs, sizeof(int));
    for (unsigned j = 0; j < jobs; j++)
        cgroups->directories[j] = cgroups->procs[j] = cgroups->events[j] = -1;
    for (unsigned j = 0; j < jobs; j++) {
        struct tattle__buffer path = {0};
        tattle__buffer_printf(&path, "%s/job-%u", cgroups->run_path, j);
        bool made = mkdir(path.data, 0755) == 0;
        if (made)
            cgroups->directories[j] =
                open(path.data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        tattle__buffer_release(&path);
        int directory = cgroups->directories[j];
        if (directory < 0)
            goto unavailable;
        cgroups->procs[j] = open_in(directory, "cgroup.procs", O_RDWR);
        cgroups->events[j] = open_in(directory, "cgroup.events", O_RDONLY);
        if (cgroups->procs[j] < 0 || cgroups->events[j] < 0)
            goto unavailable;
    }
    return true;
unavailable:
    tattle__job_cgroups_destroy(cgroups);
    return false;
}

bool tattle__job_cgroup_populated(const struct tattle__job_cgroups *cgroups,
                                  unsigned job)
{
    char text[256];
    ssize_t n = pread(cgroups->events[job], text, sizeof text - 1, 0);
    if (n <= 0)
        return true; /* cannot tell: assume the worst */
    text[n] = '\0';
    const char *populated = strstr(text, "populated ");
    return !populated || populated[10] != '0';
}

/* Reads the pids listed in cgroup.procs into `out`. */
static size_t list_processes(int procs, pid_t *out, size_t room)
{
    char text[4096];
    size_t count = 0, carried = 0;
    off_t offset = 0;
    for (;;) {
        ssize_t n =
            pread(procs, text + carried, sizeof text - 1 - carried, offset);
        if (n <= 0)
            break;
        offset += n;
        size_t length = carried + (size_t)n;
        text[length] = '\0';
        char *cursor = text, *line_end;
        while ((line_end = strchr(cursor, '\n')) != NULL && count < room) {
            out[count++] = (pid_t)strtol(cursor, NULL, 10);
            cursor = line_end + 1;
        }
        carried = length - (size_t)(cursor - text);
        memmove(text, cursor, carried);
    }
    return count;
}

size_t tattle__job_cgroup_list(const struct tattle__job_cgroups *cgroups,
                               unsigned job, pid_t *out, size_t room)
{
    return list_processes(cgroups->procs[job], out, room);
}

void tattle__job_cgroup_kill(const struct tattle__job_cgroups *cgroups,
                             unsigned job)
{
    enum { BATCH = 512 };
    pid_t listed[BATCH];
    pid_t *signalled = NULL;
    size_t signalled_count = 0;
    /* Until a listing shows nobody not signalled yet: a process with
     * SIGKILL pending cannot fork, so each round can only find children
     * forked just before their parent was signalled. */
    for (bool found_new = true; found_new;) {
        found_new = false;
        size_t count = list_processes(cgroups->procs[job], listed, BATCH);
        for (size_t i = 0; i < count; i++) {
            bool known = false;
            for (size_t k = 0; k < signalled_count && !known; k++)
                known = signalled[k] == listed[i];
            if (known || listed[i] <= 0)
                continue;
            kill(listed[i], SIGKILL);
            signalled = tattle__realloc(signalled, (signalled_count + 1) *
                                                       sizeof *signalled);
            signalled[signalled_count++] = listed[i];
            found_new = true;
        }
    }
    free(signalled);
}

bool tattle__job_cgroup_freeze(const struct tattle__job_cgroups *cgroups,
                               unsigned job, uint64_t deadline_us)
{
    int freeze = open_in(cgroups->directories[job], "cgroup.freeze", O_WRONLY);
    if (freeze < 0)
        return false;
    bool written = write(freeze, "1", 1) == 1;
    close(freeze);
    if (!written)
        return false;
    /* The kernel stops each task on its way back to user space (a task
     * forked meanwhile starts frozen) and says "frozen 1" in cgroup.events,
     * which wakes a poll for POLLPRI, once every one has. */
    for (;;) {
        char text[256];
        ssize_t n = pread(cgroups->events[job], text, sizeof text - 1, 0);
        if (n > 0) {
            text[n] = '\0';
            const char *frozen = strstr(text, "frozen ");
            if (frozen && frozen[7] == '1')
                return true;
        }
        uint64_t now = tattle__now_us();
        if (now >= deadline_us)
            return false;
        struct pollfd change = {cgroups->events[job], POLLPRI, 0};
        uint64_t wait_ms = (deadline_us - now + 999) / 1000;
        if (poll(&change, 1, wait_ms > 1000 ? 1000 : (int)wait_ms) < 0 &&
            errno != EINTR)
            return false;
    }
}

void tattle__job_cgroup_thaw(const struct tattle__job_cgroups *cgroups,
                             unsigned job)
{
    int freeze = open_in(cgroups->directories[job], "cgroup.freeze", O_WRONLY);
    if (freeze < 0)
        return;
    ssize_t ignored = write(freeze, "0", 1);
    (void)ignored;
    close(freeze);
}

void tattle__job_cgroups_kill_all(const struct tattle__job_cgroups *cgroups)
{
    for (unsigned j = 0; cgroups->procs && j < cgroups->jobs; j++)
        if (cgroups->procs[j] >= 0)
            tattle__job_cgroup_kill(cgroups, j);
}

void tattle__job_cgroups_close(struct tattle__job_cgroups *cgroups)
{
    int *lists[] = {cgroups->directories, cgroups->procs, cgroups->events};
    for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
        for (unsigned j = 0; lists[l] && j < cgroups->jobs; j++)
            if (lists[l][j] >= 0)
                close(lists[l][j]);
        free(lists[l]);
    }
    free(cgroups->run_path);
    *cgroups = (struct tattle__job_cgroups){0};
}

void tattle__job_cgroups_destroy(struct tattle__job_cgroups *cgroups)
{
    if (!cgroups->run_path) {
        tattle__job_cgroups_close(cgroups);
        return;
    }
    char *run_path = tattle__strdup(cgroups->run_path);
    unsigned jobs = cgroups->jobs;
    tattle__job_cgroups_close(cgroups);
    for (unsigned j = 0; j < jobs; j++) {
        struct tattle__buffer path = {0};
        tattle__buffer_printf(&path, "%s/job-%u", run_path, j);
        rmdir(path.data);
        tattle__buffer_release(&path);
    }
    rmdir(run_path);
    free(run_path);
}
