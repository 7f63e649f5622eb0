/*
 * error.h — the error codes tattle's functions return, in one table.
 *
 * A tattle function that can fail returns 0 or a negative errno value.
 * TATTLE__ERROR_MAP lists every code it returns, its own and those its
 * system calls pass on, each with its name and a one-line message (the
 * shape of libuv's UV_ERRNO_MAP); tattle_error_name() and
 * tattle_error_message() (include/tattle/tattle.h) read it, and code that
 * returns a code of its own writes it as TATTLE__E..., a name the table
 * defines. A code missing from the table is named "UNKNOWN".
 */
#ifndef TATTLE_BASE_ERROR_H
#define TATTLE_BASE_ERROR_H

#include <errno.h>

/* X(NAME, message): NAME is the errno constant, the code is -NAME. */
#define TATTLE__ERROR_MAP(X)                                                   \
    X(EINVAL, "invalid argument")                                              \
    X(ENOMEM, "not enough memory")                                             \
    X(EEXIST, "already exists")                                                \
    X(ENOSPC, "no space left")                                                 \
    X(ENOENT, "no such file or directory")                                     \
    X(EACCES, "permission denied")                                             \
    X(EPERM, "operation not permitted")                                        \
    X(EISDIR, "is a directory")                                                \
    X(ENOTDIR, "not a directory")                                              \
    X(EROFS, "read-only file system")                                          \
    X(ENAMETOOLONG, "name too long")                                           \
    X(ELOOP, "too many levels of symbolic links")                              \
    X(EXDEV, "not on the same file system")                                    \
    X(EFBIG, "file too large")                                                 \
    X(EDQUOT, "disk quota exceeded")                                           \
    X(EIO, "input/output error")                                               \
    X(EBADF, "bad file descriptor")                                            \
    X(EMFILE, "too many open files")                                           \
    X(ENFILE, "too many open files in the system")                             \
    X(EINTR, "interrupted")                                                    \
    X(EAGAIN, "temporarily unavailable, try again")                            \
    X(EBUSY, "busy")                                                           \
    X(ETIMEDOUT, "timed out")                                                  \
    X(EPIPE, "the other end is closed")                                        \
    X(ECONNRESET, "connection reset")                                          \
    X(EMSGSIZE, "message too long")                                            \
    X(EBADMSG, "malformed message")                                            \
    X(EPROTO, "protocol error")                                                \
    X(EOVERFLOW, "value too large")                                            \
    X(ERANGE, "out of range")                                                  \
    X(E2BIG, "argument list too long")                                         \
    X(ESRCH, "no such process")                                                \
    X(ECHILD, "no child process")                                              \
    X(ENOSYS, "not implemented")                                               \
    X(EOPNOTSUPP, "not supported")

/* TATTLE__EINVAL = -EINVAL, and so on for every row. */
enum tattle__error {
#define TATTLE__ERROR_CODE(name, message) TATTLE__##name = -name,
    TATTLE__ERROR_MAP(TATTLE__ERROR_CODE)
#undef TATTLE__ERROR_CODE
};

#endif /* TATTLE_BASE_ERROR_H */
