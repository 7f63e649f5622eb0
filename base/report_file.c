/*
 * report_file.c — buffered descriptors, scratch files, atomic replacement
 * and fast copies for every file tattle writes (see report_file.h).
 */
#include "base/report_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SINK_CAPACITY = 256 * 1024, COPY_CHUNK = 1 << 30 };

int tattle__write_all(int fd, const void *bytes, size_t length)
{
    const char *cursor = bytes;
    while (length) {
        ssize_t written = write(fd, cursor, length);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (written == 0)
            return -EIO; /* no progress: looping would never end */
        cursor += written;
        length -= (size_t)written;
    }
    return 0;
}

int tattle__sink_flush(struct tattle__sink *sink)
{
    if (sink->error == 0 && sink->pending.length)
        sink->error = tattle__write_all(sink->fd, sink->pending.data,
                                        sink->pending.length);
    tattle__buffer_clear(&sink->pending);
    return sink->error;
}

int tattle__sink_write(struct tattle__sink *sink, const void *bytes,
                       size_t length)
{
    if (sink->error)
        return sink->error;
    sink->written += length;
    if (sink->pending.length + length > SINK_CAPACITY &&
        tattle__sink_flush(sink))
        return sink->error;
    if (length >= SINK_CAPACITY)
        return sink->error = tattle__write_all(sink->fd, bytes, length);
    tattle__buffer_append(&sink->pending, bytes, length);
    return 0;
}

void tattle__sink_release(struct tattle__sink *sink)
{
    tattle__buffer_release(&sink->pending);
}

char *tattle__path_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

int tattle__scratch_open(const char *directory)
{
    int fd = open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return -errno;
    size_t size = strlen(directory) + sizeof "/.tattle-scratch-XXXXXX";
    char *name = malloc(size);
    if (!name)
        return -ENOMEM;
    snprintf(name, size, "%s/.tattle-scratch-XXXXXX", directory);
    fd = mkostemp(name, O_CLOEXEC);
    int error = fd < 0 ? -errno : 0;
    if (fd >= 0)
        unlink(name);
    free(name);
    return fd >= 0 ? fd : error;
}

int tattle__anonymous_open(const char *directory)
{
    int fd = open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
    if (fd >= 0)
        return fd;
    if (errno == EISDIR || errno == EINVAL)
        return -EOPNOTSUPP;
    return -errno;
}

/* Tries hidden names beside `path` (".NAME.tmp.PID.N") until `attempt`
 * answers something other than -EEXIST. On success *temp_path is the name
 * used (malloc'd, the caller frees it). */
static int try_names_beside(const char *path,
                            int (*attempt)(const char *temp_path, void *ctx),
                            void *ctx, char **temp_path)
{
    static unsigned counter;
    *temp_path = NULL;
    char *directory = tattle__path_directory(path);
    if (!directory)
        return -ENOMEM;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t size = strlen(directory) + strlen(base) + 64;
    char *name = malloc(size);
    if (!name) {
        free(directory);
        return -ENOMEM;
    }
    int error = -EEXIST;
    for (int tries = 0; tries < 100 && error == -EEXIST; tries++) {
        snprintf(name, size, "%s/.%s.tmp.%ld.%u", directory, base,
                 (long)getpid(), counter++);
        error = attempt(name, ctx);
    }
    free(directory);
    if (error) {
        free(name);
        return error;
    }
    *temp_path = name;
    return 0;
}

/* True when `path` names something that exists and is not a regular file
 * (a FIFO, a character device such as /dev/null, a socket): a finished
 * report is written into it, never renamed over it. */
static bool special_destination(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Writes the whole of `in` into the existing special file `path`, opened
 * for writing only, as standard output is written. */
static int write_into(int in, const char *path)
{
    struct stat st;
    if (fstat(in, &st) != 0)
        return -errno;
    int out = open(path, O_WRONLY | O_CLOEXEC);
    if (out < 0)
        return -errno;
    int error = tattle__copy_fd(in, 0, (uint64_t)st.st_size, out);
    if (close(out) != 0 && !error)
        error = -errno;
    return error;
}

int tattle__commit_path(const char *temp_path, const char *path)
{
    if (!special_destination(path))
        return rename(temp_path, path) == 0 ? 0 : -errno;
    int in = open(temp_path, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -errno;
    int error = write_into(in, path);
    close(in);
    if (!error)
        unlink(temp_path);
    return error;
}

static int link_anonymous(const char *temp_path, void *ctx)
{
    int fd = *(const int *)ctx;
    char proc_path[64];
    snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, proc_path, AT_FDCWD, temp_path, AT_SYMLINK_FOLLOW) ==
        0)
        return 0;
    if (errno != ENOENT)
        return -errno;
    /* No /proc: linking by descriptor needs CAP_DAC_READ_SEARCH. */
    return linkat(fd, "", AT_FDCWD, temp_path, AT_EMPTY_PATH) == 0 ? 0 : -errno;
}

int tattle__anonymous_commit(int fd, const char *path)
{
    if (special_destination(path))
        return write_into(fd, path);
    char *temp_path;
    int error = try_names_beside(path, link_anonymous, &fd, &temp_path);
    if (error)
        return error;
    if (rename(temp_path, path) != 0) {
        error = -errno;
        unlink(temp_path);
    }
    free(temp_path);
    return error;
}

static int create_exclusive(const char *temp_path, void *ctx)
{
    int *fd = ctx;
    *fd = open(temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    return *fd < 0 ? -errno : 0;
}

int tattle__atomic_open(struct tattle__atomic_file *file, const char *path)
{
    *file = (struct tattle__atomic_file){.fd = -1};
    file->path = strdup(path);
    if (!file->path)
        return -ENOMEM;
    int error =
        try_names_beside(path, create_exclusive, &file->fd, &file->temp_path);
    if (error) {
        file->fd = -1;
        tattle__atomic_discard(file);
        return error;
    }
    return 0;
}

int tattle__atomic_commit(struct tattle__atomic_file *file)
{
    int error = 0;
    if (file->fd >= 0 && close(file->fd) != 0)
        error = -errno;
    file->fd = -1;
    if (!error)
        error = tattle__commit_path(file->temp_path, file->path);
    if (error) {
        tattle__atomic_discard(file);
        return error;
    }
    free(file->temp_path);
    free(file->path);
    file->temp_path = file->path = NULL;
    return 0;
}

void tattle__atomic_discard(struct tattle__atomic_file *file)
{
    if (file->fd >= 0)
        close(file->fd);
    file->fd = -1;
    if (file->temp_path)
        unlink(file->temp_path);
    free(file->temp_path);
    free(file->path);
    file->temp_path = file->path = NULL;
}

int tattle__copy_fd(int in, uint64_t from, uint64_t length, int out)
{
    off_t offset = (off_t)from;
    length += from;
    /* In-kernel copies first: no user-space buffer, no page of our RSS. */
    while ((uint64_t)offset < length) {
        size_t chunk = length - (uint64_t)offset > COPY_CHUNK
                           ? COPY_CHUNK
                           : (size_t)(length - (uint64_t)offset);
        ssize_t n = copy_file_range(in, &offset, out, NULL, chunk, 0);
        if (n > 0)
            continue;
        if (n == 0)
            return -EIO;
        if (errno == EINTR)
            continue;
        if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
            errno != EOPNOTSUPP && errno != EBADF)
            return -errno;
        break;
    }
    while ((uint64_t)offset < length) {
        size_t chunk = length - (uint64_t)offset > COPY_CHUNK
                           ? COPY_CHUNK
                           : (size_t)(length - (uint64_t)offset);
        ssize_t n = sendfile(out, in, &offset, chunk);
        if (n > 0)
            continue;
        if (n == 0)
            return -EIO;
        if (errno == EINTR)
            continue;
        if (errno != EINVAL && errno != ENOSYS)
            return -errno;
        break;
    }
    if ((uint64_t)offset >= length)
        return 0;
    enum { BUFFER = 256 * 1024 };
    char *buffer = malloc(BUFFER);
    if (!buffer)
        return -ENOMEM;
    int error = 0;
    while (!error && (uint64_t)offset < length) {
        size_t chunk = length - (uint64_t)offset > BUFFER
                           ? BUFFER
                           : (size_t)(length - (uint64_t)offset);
        ssize_t n = pread(in, buffer, chunk, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            error = n < 0 ? -errno : -EIO;
        else {
            error = tattle__write_all(out, buffer, (size_t)n);
            offset += n;
        }
    }
    free(buffer);
    return error;
}
