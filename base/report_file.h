/*
 * report_file.h — the file plumbing of every file tattle writes: reports,
 * streams and the last-run state.
 *
 * A write buffer on a raw file descriptor (never a stdio FILE: the runner
 * forks test processes without exec, and a test that calls exit() would
 * flush a copy of a FILE's pending bytes into our file a second time), an
 * anonymous scratch file, the atomic "temporary file in the destination's
 * directory, then rename" used by every report file, and a fast
 * descriptor-to-descriptor copy (copy_file_range, sendfile, read/write).
 */
#ifndef TATTLE_BASE_REPORT_FILE_H
#define TATTLE_BASE_REPORT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"

/** A buffered writer on `fd`. Zero-initialize, then set fd. The first
 * error is kept in `error` (a negative errno); later writes are dropped. */
struct tattle__sink {
    int fd;
    struct tattle__buffer pending; /* written out past 256 KiB */
    uint64_t written;              /* bytes accepted so far */
    int error;
};

/** write(2) until all of `bytes` is written. Returns 0 or -errno. */
int tattle__write_all(int fd, const void *bytes, size_t length);

/** Appends bytes (written out when the buffer is full). Returns sink->error. */
int tattle__sink_write(struct tattle__sink *sink, const void *bytes,
                       size_t length);
/** Writes out buffered bytes. Returns sink->error. */
int tattle__sink_flush(struct tattle__sink *sink);
/** Frees the buffer (does not close fd). */
void tattle__sink_release(struct tattle__sink *sink);

/** An anonymous read-write file in `directory` (O_TMPFILE, else a
 * mkstemp file unlinked at once): nothing is left behind whatever happens
 * to the process. Returns the descriptor or a negative errno. */
int tattle__scratch_open(const char *directory);

/** A file being written to replace `path` atomically. */
struct tattle__atomic_file {
    char *path;      /* the destination */
    char *temp_path; /* the temporary file beside it */
    int fd;
};

/** Creates a temporary file in the directory of `path` (mode 0666 minus
 * the umask, like a plain fopen). Returns 0 or a negative errno; on failure
 * nothing is created. */
int tattle__atomic_open(struct tattle__atomic_file *file, const char *path);
/** Gives the finished file `temp_path` the name `path`: renames it there,
 * unless `path` exists and is not a regular file (a FIFO, a device), which
 * is never replaced: the bytes are written into it, opened O_WRONLY, and
 * `temp_path` is removed. Returns 0 or a negative errno (`temp_path` is
 * left for the caller to remove). Every report file is named through it. */
int tattle__commit_path(const char *temp_path, const char *path);

/** Closes the temporary file and gives it the destination's name
 * (tattle__commit_path). Returns
 * 0 or a negative errno; on failure the temporary file is removed and the
 * destination is untouched. */
int tattle__atomic_commit(struct tattle__atomic_file *file);
/** Closes and removes the temporary file (no-op after commit). */
void tattle__atomic_discard(struct tattle__atomic_file *file);

/** An anonymous file in `directory` created with O_TMPFILE only (no
 * fallback), so that tattle__anonymous_commit() can give it a name later.
 * Returns the descriptor, -EOPNOTSUPP when the file system cannot, or
 * another negative errno. */
int tattle__anonymous_open(const char *directory);
/** Gives the O_TMPFILE file `fd` the name `path`, atomically replacing
 * what was there (link to a temporary name beside it, then rename); a
 * `path` that exists and is not a regular file gets the bytes written
 * into it instead (see tattle__commit_path). The
 * descriptor stays open. Returns 0 or a negative errno; on failure `path`
 * is untouched and no name is left behind. */
int tattle__anonymous_commit(int fd, const char *path);

/** The directory part of `path` ("." when it has none), newly allocated,
 * or NULL when out of memory. */
char *tattle__path_directory(const char *path);

/** Copies `length` bytes from offset `from` of `in` to the current
 * position of `out`. Returns 0 or a negative errno. */
int tattle__copy_fd(int in, uint64_t from, uint64_t length, int out);

#endif /* TATTLE_BASE_REPORT_FILE_H */
