/*
 * ipc.c — automatic message capture: what a traced test's threads and
 * processes send each other through the kernel, with no tracer call in the
 * code under test.
 *
 * libtattle defines write, read, writev, readv, send, recv, sendto,
 * recvfrom, sendmsg, recvmsg, sendmmsg, recvmmsg (each message of the
 * vector one event), eventfd_write, eventfd_read, mq_send,
 * mq_timedsend, mq_receive, mq_timedreceive (and the fortified
 * __read_chk, __recv_chk, __recvfrom_chk), so a test binary that links
 * tattle calls these instead of libc's; connect, accept, accept4,
 * shutdown, close, mq_close, close_range, closefrom and fclose of an
 * endpoint are recorded as `event`s, and dup, dup2, dup3, fcntl, pipe,
 * pipe2, socket, socketpair, eventfd and the calls that open files
 * (open, fopen, mkstemp, memfd_create, ... below) are defined to keep the
 * descriptor cache right. Each calls the real function, found once with
 * dlsym(RTLD_NEXT) when the library is loaded (a raw system call until
 * then). When the process is
 * not capturing — the runner, the fork server, untraced tests, tests with
 * `trace_messages:noipc` — that is all: one predictable branch on a
 * process-wide flag. A forked traced test turns the flag on before its
 * body (tattle__ipc_start) and its forked children inherit it.
 *
 * When capturing, a call that moved bytes looks its descriptor up in a
 * per-process cache (the first call on a descriptor classifies it with
 * fstat: pipes and FIFOs, sockets, eventfds are message endpoints; regular
 * files, terminals and the runner's own stdout/stderr pipes are not; a
 * descriptor an mq_ call succeeded on is a POSIX queue, named by its link
 * in /proc/self/fd) and
 * records a `send` or `recv` event carrying the endpoint's entry in the
 * arena and the offset of its bytes in the endpoint's stream, from which
 * the freeze matches each receive to its send and names both ends (a
 * socket whose non-blocking connect is still in progress is left to its
 * first transfer, when it has a peer to be named by). The cache is
 * dropped for a descriptor closed or replaced through close, close_range,
 * closefrom, fclose, dup2 or dup3, and for the number each of dup, fcntl's
 * F_DUPFD, pipe, pipe2, socket, socketpair, eventfd, accept and accept4
 * hands out, and each of the calls that open files or descriptors that
 * are no endpoint: open, openat, creat (and their 64 and fortified
 * __open_2 forms), fopen, freopen, tmpfile, mkstemp, mkostemp,
 * memfd_create, timerfd_create, signalfd, inotify_init (its number may
 * have been closed where the cache did not see it: a raw close system
 * call, closedir, a library's own close). A number closed unseen and
 * reused by a call not listed (opendir, epoll_create, a raw system call)
 * may still be taken for what it was; the hot path never checks the
 * cache against fstat (a system call per message).
 *
 * A vfork child shares its parent's memory, the cache with it, but not
 * its descriptors: what it closes or replaces before it execs or exits
 * (closefrom and close_range are common there) is its own copy, so the
 * calls that change the cache leave it alone, and record no close, in a
 * process that is not the one the cache belongs to (its pid is taken at
 * the start and after every fork, tattle__ipc_forked; vfork runs no fork
 * handler), and what it learns of a number it has not seen is used once,
 * not stored. Its messages are recorded as its parent's thread's. It is
 * told from a child made without fork handlers (_Fork, a raw fork or
 * clone), which takes the cache as its own, by kcmp(KCMP_VM); where kcmp
 * is refused, every process that is not the owner is taken for a vfork
 * child. A child made without fork handlers that only sends or receives
 * through descriptors its parent had looked up records on its parent's
 * thread's ring until its first call that asks.
 *
 * Everything here is async-signal-safe: no malloc, no lock, errno kept.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/child_path.h"
#include "tracer/clock.h"
#include "tracer/peek.h"
#include "tracer/test_process/recorder.h"

#define TATTLE__LIKELY(x) __builtin_expect(!!(x), 1)
#define TATTLE__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define INTERPOSED __attribute__((visibility("default")))

/* The standard descriptors' objects, then those tattle__ipc_exclude adds
 * (a death check's child has its stderr on a pipe of the check's). */
enum { FD_CACHE_SIZE = 4096, STANDARD_FDS = 3, EXCLUDED_MAX = 8 };

/* The process captures (set in the traced test process only). */
static bool capturing;
static struct tattle_trace_arena *capture_arena;
/* The runner's stdout/stderr pipes and the like: never endpoints. */
static _Atomic uint64_t excluded[EXCLUDED_MAX];

/* Per descriptor: 0 unknown, else CACHED | kind << 1 | (index + 1) << 32
 * (kind 0: not an endpoint), with SEMAPHORE for an EFD_SEMAPHORE eventfd. */
#define CACHED UINT64_C(1)
#define SEMAPHORE (UINT64_C(1) << 8)
static _Atomic uint64_t fd_cache[FD_CACHE_SIZE];
/* Whether fd_cache may hold a word: set before the first is stored, so
 * that a process that never captured (each test the fork server forks)
 * need not write 32 KB of zeros over zeros, a page copied for each, to
 * start with an empty cache. */
static _Atomic bool fd_cache_filled;

/* The process whose descriptors fd_cache describes. */
static pid_t cache_owner;

/* ---- The real functions ------------------------------------------------- */

static ssize_t raw_write(int fd, const void *buffer, size_t length)
{
    return (ssize_t)syscall(SYS_write, fd, buffer, length);
}
static ssize_t raw_read(int fd, void *buffer, size_t length)
{
    return (ssize_t)syscall(SYS_read, fd, buffer, length);
}
static ssize_t raw_writev(int fd, const struct iovec *iov, int count)
{
    return (ssize_t)syscall(SYS_writev, fd, iov, count);
}
static ssize_t raw_readv(int fd, const struct iovec *iov, int count)
{
    return (ssize_t)syscall(SYS_readv, fd, iov, count);
}
static ssize_t raw_sendto(int fd, const void *buffer, size_t length, int flags,
                          const struct sockaddr *to, socklen_t to_length)
{
    return (ssize_t)syscall(SYS_sendto, fd, buffer, length, flags, to,
                            to_length);
}
static ssize_t raw_recvfrom(int fd, void *buffer, size_t length, int flags,
                            struct sockaddr *from, socklen_t *from_length)
{
    return (ssize_t)syscall(SYS_recvfrom, fd, buffer, length, flags, from,
                            from_length);
}
static ssize_t raw_send(int fd, const void *buffer, size_t length, int flags)
{
    return raw_sendto(fd, buffer, length, flags, NULL, 0);
}
static ssize_t raw_recv(int fd, void *buffer, size_t length, int flags)
{
    return raw_recvfrom(fd, buffer, length, flags, NULL, NULL);
}
static ssize_t raw_sendmsg(int fd, const struct msghdr *message, int flags)
{
    return (ssize_t)syscall(SYS_sendmsg, fd, message, flags);
}
static ssize_t raw_recvmsg(int fd, struct msghdr *message, int flags)
{
    return (ssize_t)syscall(SYS_recvmsg, fd, message, flags);
}
static int raw_sendmmsg(int fd, struct mmsghdr *messages, unsigned count,
                        int flags)
{
    return (int)syscall(SYS_sendmmsg, fd, messages, count, flags);
}
static int raw_recvmmsg(int fd, struct mmsghdr *messages, unsigned count,
                        int flags, struct timespec *timeout)
{
    return (int)syscall(SYS_recvmmsg, fd, messages, count, flags, timeout);
}
static int raw_close(int fd)
{
    return (int)syscall(SYS_close, fd);
}
static int raw_dup3(int old_fd, int new_fd, int flags)
{
    return (int)syscall(SYS_dup3, old_fd, new_fd, flags);
}
static int raw_dup2(int old_fd, int new_fd)
{
    if (old_fd == new_fd)
        return fcntl(old_fd, F_GETFD) < 0 ? -1 : new_fd;
    return raw_dup3(old_fd, new_fd, 0);
}
static int raw_dup(int fd)
{
    return (int)syscall(SYS_dup, fd);
}
static int raw_fcntl(int fd, int command, ...)
{
    va_list arguments;
    va_start(arguments, command);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return (int)syscall(SYS_fcntl, fd, command, argument);
}
static int raw_pipe2(int fds[2], int flags)
{
    return (int)syscall(SYS_pipe2, fds, flags);
}
static int raw_pipe(int fds[2])
{
    return raw_pipe2(fds, 0);
}
static int raw_socket(int domain, int type, int protocol)
{
    return (int)syscall(SYS_socket, domain, type, protocol);
}
static int raw_eventfd(unsigned value, int flags)
{
    return (int)syscall(SYS_eventfd2, value, flags);
}
static int raw_close_range(unsigned first, unsigned last, int flags)
{
    return (int)syscall(SYS_close_range, first, last, flags);
}
/* glibc's closefrom reads a negative lowest as 0: it closes everything. */
static void raw_closefrom(int lowest)
{
    raw_close_range(lowest < 0 ? 0u : (unsigned)lowest, ~0u, 0);
}
/* fclose has no system call: libc's, found when first needed (before the
 * constructor below ran). */
static int raw_fclose(FILE *stream)
{
    void *next = dlsym(RTLD_NEXT, "fclose");
    int (*next_fclose)(FILE *);
    memcpy(&next_fclose, &next, sizeof next);
    return next_fclose(stream);
}
static int raw_socketpair(int domain, int type, int protocol, int fds[2])
{
    return (int)syscall(SYS_socketpair, domain, type, protocol, fds);
}
static int raw_connect(int fd, const struct sockaddr *address, socklen_t length)
{
    return (int)syscall(SYS_connect, fd, address, length);
}
static int raw_accept4(int fd, struct sockaddr *address, socklen_t *length,
                       int flags)
{
    return (int)syscall(SYS_accept4, fd, address, length, flags);
}
static int raw_accept(int fd, struct sockaddr *address, socklen_t *length)
{
    return raw_accept4(fd, address, length, 0);
}
static int raw_shutdown(int fd, int how)
{
    return (int)syscall(SYS_shutdown, fd, how);
}
static int raw_mq_timedsend(mqd_t queue, const char *message, size_t length,
                            unsigned priority, const struct timespec *timeout)
{
    return (int)syscall(SYS_mq_timedsend, queue, message, length, priority,
                        timeout);
}
static ssize_t raw_mq_timedreceive(mqd_t queue, char *message, size_t length,
                                   unsigned *priority,
                                   const struct timespec *timeout)
{
    return (ssize_t)syscall(SYS_mq_timedreceive, queue, message, length,
                            priority, timeout);
}
static int raw_mq_send(mqd_t queue, const char *message, size_t length,
                       unsigned priority)
{
    return raw_mq_timedsend(queue, message, length, priority, NULL);
}
static ssize_t raw_mq_receive(mqd_t queue, char *message, size_t length,
                              unsigned *priority)
{
    return raw_mq_timedreceive(queue, message, length, priority, NULL);
}
static int raw_mq_close(mqd_t queue)
{
    return raw_close(queue);
}
static int raw_eventfd_write(int fd, eventfd_t value)
{
    return raw_write(fd, &value, sizeof value) == sizeof value ? 0 : -1;
}
static int raw_eventfd_read(int fd, eventfd_t *value)
{
    return raw_read(fd, value, sizeof *value) == sizeof *value ? 0 : -1;
}

/* The calls that open a descriptor, as system calls. */
static int raw_openat(int directory, const char *path, int flags, ...)
{
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = va_arg(arguments, mode_t);
    va_end(arguments);
    return (int)syscall(SYS_openat, directory, path, flags, mode);
}
static int raw_open(const char *path, int flags, ...)
{
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = va_arg(arguments, mode_t);
    va_end(arguments);
    return raw_openat(AT_FDCWD, path, flags, mode);
}
static int raw_creat(const char *path, mode_t mode)
{
    return raw_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
/* The fortified open of flags that need no mode. */
static int raw_open_2(const char *path, int flags)
{
    return raw_openat(AT_FDCWD, path, flags, 0);
}
static int raw_openat_2(int directory, const char *path, int flags)
{
    return raw_openat(directory, path, flags, 0);
}
static int raw_memfd_create(const char *name, unsigned flags)
{
    return (int)syscall(SYS_memfd_create, name, flags);
}
static int raw_timerfd_create(int clock, int flags)
{
    return (int)syscall(SYS_timerfd_create, clock, flags);
}
static int raw_signalfd(int fd, const sigset_t *mask, int flags)
{
    return (int)syscall(SYS_signalfd4, fd, mask, _NSIG / 8, flags);
}
static int raw_inotify_init1(int flags)
{
    return (int)syscall(SYS_inotify_init1, flags);
}
static int raw_inotify_init(void)
{
    return raw_inotify_init1(0);
}

/* libc's definition of `name`, looked up at each call: the fallback of a
 * call with no system call of its own (fopen, mkstemp), used only before
 * the constructor below ran. */
#define NEXT_DEFINITION(name, pointer)                                         \
    do {                                                                       \
        void *next = dlsym(RTLD_NEXT, #name);                                  \
        memcpy(&(pointer), &next, sizeof next);                                \
    } while (0)

static FILE *raw_fopen(const char *path, const char *mode)
{
    FILE *(*next_fopen)(const char *, const char *);
    NEXT_DEFINITION(fopen, next_fopen);
    return next_fopen(path, mode);
}
static FILE *raw_freopen(const char *path, const char *mode, FILE *stream)
{
    FILE *(*next_freopen)(const char *, const char *, FILE *);
    NEXT_DEFINITION(freopen, next_freopen);
    return next_freopen(path, mode, stream);
}
static FILE *raw_tmpfile(void)
{
    FILE *(*next_tmpfile)(void);
    NEXT_DEFINITION(tmpfile, next_tmpfile);
    return next_tmpfile();
}
static int raw_mkostemp(char *template, int flags)
{
    int (*next_mkostemp)(char *, int);
    NEXT_DEFINITION(mkostemp, next_mkostemp);
    return next_mkostemp(template, flags);
}
static int raw_mkstemp(char *template)
{
    return raw_mkostemp(template, 0);
}

static struct {
    ssize_t (*write)(int, const void *, size_t);
    ssize_t (*read)(int, void *, size_t);
    ssize_t (*writev)(int, const struct iovec *, int);
    ssize_t (*readv)(int, const struct iovec *, int);
    ssize_t (*send)(int, const void *, size_t, int);
    ssize_t (*recv)(int, void *, size_t, int);
    ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *,
                      socklen_t);
    ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *,
                        socklen_t *);
    ssize_t (*sendmsg)(int, const struct msghdr *, int);
    ssize_t (*recvmsg)(int, struct msghdr *, int);
    int (*close)(int);
    int (*dup2)(int, int);
    int (*dup3)(int, int, int);
    int (*socketpair)(int, int, int, int[2]);
    int (*eventfd_write)(int, eventfd_t);
    int (*eventfd_read)(int, eventfd_t *);
    int (*connect)(int, const struct sockaddr *, socklen_t);
    int (*accept)(int, struct sockaddr *, socklen_t *);
    int (*accept4)(int, struct sockaddr *, socklen_t *, int);
    int (*shutdown)(int, int);
    int (*mq_send)(mqd_t, const char *, size_t, unsigned);
    int (*mq_timedsend)(mqd_t, const char *, size_t, unsigned,
                        const struct timespec *);
    ssize_t (*mq_receive)(mqd_t, char *, size_t, unsigned *);
    ssize_t (*mq_timedreceive)(mqd_t, char *, size_t, unsigned *,
                               const struct timespec *);
    int (*mq_close)(mqd_t);
    int (*sendmmsg)(int, struct mmsghdr *, unsigned, int);
    int (*recvmmsg)(int, struct mmsghdr *, unsigned, int, struct timespec *);
    int (*dup)(int);
    int (*fcntl)(int, int, ...);
    int (*fcntl64)(int, int, ...);
    int (*pipe)(int[2]);
    int (*pipe2)(int[2], int);
    int (*socket)(int, int, int);
    int (*eventfd)(unsigned, int);
    int (*close_range)(unsigned, unsigned, int);
    void (*closefrom)(int);
    int (*fclose)(FILE *);
    int (*open)(const char *, int, ...);
    int (*open64)(const char *, int, ...);
    int (*openat)(int, const char *, int, ...);
    int (*openat64)(int, const char *, int, ...);
    int (*creat)(const char *, mode_t);
    int (*creat64)(const char *, mode_t);
    int (*__open_2)(const char *, int);
    int (*__open64_2)(const char *, int);
    int (*__openat_2)(int, const char *, int);
    int (*__openat64_2)(int, const char *, int);
    int (*memfd_create)(const char *, unsigned);
    int (*timerfd_create)(int, int);
    int (*signalfd)(int, const sigset_t *, int);
    int (*inotify_init)(void);
    int (*inotify_init1)(int);
    FILE *(*fopen)(const char *, const char *);
    FILE *(*fopen64)(const char *, const char *);
    FILE *(*freopen)(const char *, const char *, FILE *);
    FILE *(*freopen64)(const char *, const char *, FILE *);
    FILE *(*tmpfile)(void);
    FILE *(*tmpfile64)(void);
    int (*mkstemp)(char *);
    int (*mkstemp64)(char *);
    int (*mkostemp)(char *, int);
    int (*mkostemp64)(char *, int);
} real = {
    raw_write,          raw_read,
    raw_writev,         raw_readv,
    raw_send,           raw_recv,
    raw_sendto,         raw_recvfrom,
    raw_sendmsg,        raw_recvmsg,
    raw_close,          raw_dup2,
    raw_dup3,           raw_socketpair,
    raw_eventfd_write,  raw_eventfd_read,
    raw_connect,        raw_accept,
    raw_accept4,        raw_shutdown,
    raw_mq_send,        raw_mq_timedsend,
    raw_mq_receive,     raw_mq_timedreceive,
    raw_mq_close,       raw_sendmmsg,
    raw_recvmmsg,       raw_dup,
    raw_fcntl,          raw_fcntl,
    raw_pipe,           raw_pipe2,
    raw_socket,         raw_eventfd,
    raw_close_range,    raw_closefrom,
    raw_fclose,         raw_open,
    raw_open,           raw_openat,
    raw_openat,         raw_creat,
    raw_creat,          raw_open_2,
    raw_open_2,         raw_openat_2,
    raw_openat_2,       raw_memfd_create,
    raw_timerfd_create, raw_signalfd,
    raw_inotify_init,   raw_inotify_init1,
    raw_fopen,          raw_fopen,
    raw_freopen,        raw_freopen,
    raw_tmpfile,        raw_tmpfile,
    raw_mkstemp,        raw_mkstemp,
    raw_mkostemp,       raw_mkostemp,
};

/* Replaces *slot with the next definition of `name` when there is one. */
#define RESOLVE(field)                                                         \
    do {                                                                       \
        void *next = dlsym(RTLD_NEXT, #field);                                 \
        if (next != NULL)                                                      \
            memcpy(&real.field, &next, sizeof next);                           \
    } while (0)

__attribute__((constructor)) static void resolve_real_functions(void)
{
    RESOLVE(write);
    RESOLVE(read);
    RESOLVE(writev);
    RESOLVE(readv);
    RESOLVE(send);
    RESOLVE(recv);
    RESOLVE(sendto);
    RESOLVE(recvfrom);
    RESOLVE(sendmsg);
    RESOLVE(recvmsg);
    RESOLVE(close);
    RESOLVE(dup2);
    RESOLVE(dup3);
    RESOLVE(socketpair);
    RESOLVE(eventfd_write);
    RESOLVE(eventfd_read);
    RESOLVE(connect);
    RESOLVE(accept);
    RESOLVE(accept4);
    RESOLVE(shutdown);
    RESOLVE(mq_send);
    RESOLVE(mq_timedsend);
    RESOLVE(mq_receive);
    RESOLVE(mq_timedreceive);
    RESOLVE(mq_close);
    RESOLVE(sendmmsg);
    RESOLVE(recvmmsg);
    RESOLVE(dup);
    RESOLVE(fcntl);
    RESOLVE(fcntl64);
    RESOLVE(pipe);
    RESOLVE(pipe2);
    RESOLVE(socket);
    RESOLVE(eventfd);
    RESOLVE(close_range);
    RESOLVE(closefrom);
    RESOLVE(fclose);
    RESOLVE(open);
    RESOLVE(open64);
    RESOLVE(openat);
    RESOLVE(openat64);
    RESOLVE(creat);
    RESOLVE(creat64);
    RESOLVE(__open_2);
    RESOLVE(__open64_2);
    RESOLVE(__openat_2);
    RESOLVE(__openat64_2);
    RESOLVE(memfd_create);
    RESOLVE(timerfd_create);
    RESOLVE(signalfd);
    RESOLVE(inotify_init);
    RESOLVE(inotify_init1);
    RESOLVE(fopen);
    RESOLVE(fopen64);
    RESOLVE(freopen);
    RESOLVE(freopen64);
    RESOLVE(tmpfile);
    RESOLVE(tmpfile64);
    RESOLVE(mkstemp);
    RESOLVE(mkstemp64);
    RESOLVE(mkostemp);
    RESOLVE(mkostemp64);
}

/* ---- Endpoints ---------------------------------------------------------- */

/* A socket address as `unix:PATH`, `tcp:HOST:PORT` or `udp:HOST:PORT`;
 * empty when unnamed. */
static void describe_address(const struct sockaddr_storage *address,
                             socklen_t length, bool stream, char *out,
                             size_t size)
{
    out[0] = '\0';
    if (length <= sizeof(sa_family_t))
        return;
    if (address->ss_family == AF_UNIX) {
        const struct sockaddr_un *unix_address = (const void *)address;
        size_t path_length = length - offsetof(struct sockaddr_un, sun_path);
        if (path_length > sizeof unix_address->sun_path)
            path_length = sizeof unix_address->sun_path;
        size_t used = tattle__append_text(out, size, 0, "unix:");
        for (size_t i = 0; i < path_length && used + 1 < size; i++) {
            char c = unix_address->sun_path[i];
            if (c == '\0' && i != 0)
                break;
            out[used++] = c == '\0' ? '@' : c; /* abstract: @name */
        }
        out[used] = '\0';
        return;
    }
    char host[INET6_ADDRSTRLEN];
    uint16_t port;
    if (address->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)address;
        if (!inet_ntop(AF_INET, &in->sin_addr, host, sizeof host))
            return;
        port = ntohs(in->sin_port);
    } else if (address->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const void *)address;
        if (!inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host))
            return;
        port = ntohs(in6->sin6_port);
    } else {
        return;
    }
    size_t used = tattle__append_text(out, size, 0, stream ? "tcp:" : "udp:");
    if (address->ss_family == AF_INET6)
        used = tattle__append_text(out, size, used, "[");
    used = tattle__append_text(out, size, used, host);
    if (address->ss_family == AF_INET6)
        used = tattle__append_text(out, size, used, "]");
    used = tattle__append_text(out, size, used, ":");
    tattle__append_decimal(out, size, used, port);
}

/* Finds or claims the arena entry of an object: its index + 1, or 0 when
 * the table is full. `semaphore`: an EFD_SEMAPHORE eventfd, whose reads
 * the freeze spans one unit each. */
static uint32_t claim_endpoint(struct tattle_trace_arena *arena, uint64_t key,
                               enum tattle__endpoint_kind kind, uint64_t id,
                               bool semaphore, const char *name,
                               const char *local)
{
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        struct tattle__endpoint *entry = &arena->endpoints[i];
        uint64_t seen = atomic_load_explicit(&entry->key, memory_order_acquire);
        if (seen == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&entry->key, &expected, key)) {
                atomic_fetch_add_explicit(&arena->endpoints_claimed, 1,
                                          memory_order_relaxed);
                entry->id = id;
                entry->semaphore = semaphore ? 1u : 0u;
                tattle__append_text(entry->name, sizeof entry->name, 0, name);
                tattle__append_text(entry->local, sizeof entry->local, 0,
                                    local);
                atomic_store_explicit(&entry->kind, (uint32_t)kind,
                                      memory_order_release);
                return i + 1;
            }
            seen = expected;
        }
        if (seen == key)
            return i + 1;
    }
    atomic_fetch_add_explicit(&arena->refused, 1, memory_order_relaxed);
    return 0;
}

/* What a descriptor is, as a cache word (without the CACHED bit). */
static uint64_t classify(int fd)
{
    struct stat status;
    if (fstat(fd, &status) != 0)
        return 0;
    bool semaphore = false;
    enum tattle__endpoint_kind kind;
    uint64_t key, id;
    char name[TATTLE__ENDPOINT_NAME_BYTES] = "";
    char local[TATTLE__ENDPOINT_NAME_BYTES] = "";
    switch (status.st_mode & S_IFMT) {
    case S_IFIFO:
        kind = TATTLE__ENDPOINT_PIPE;
        key = tattle__endpoint_key(status.st_dev, status.st_ino);
        id = (uint64_t)status.st_ino;
        break;
    case S_IFSOCK: {
        int type = 0;
        socklen_t type_length = sizeof type;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_length) != 0)
            return 0;
        kind = type == SOCK_STREAM ? TATTLE__ENDPOINT_STREAM
                                   : TATTLE__ENDPOINT_DGRAM;
        key = tattle__endpoint_key(status.st_dev, status.st_ino);
        id = (uint64_t)status.st_ino;
        struct sockaddr_storage address;
        socklen_t length = sizeof address;
        if (getpeername(fd, (struct sockaddr *)&address, &length) == 0)
            describe_address(&address, length, type == SOCK_STREAM, name,
                             sizeof name);
        length = sizeof address;
        if (getsockname(fd, (struct sockaddr *)&address, &length) == 0)
            describe_address(&address, length, type == SOCK_STREAM, local,
                             sizeof local);
        break;
    }
    case 0: /* an anonymous inode: an eventfd? */
        if (!tattle__eventfd_info(fd, &id, &semaphore, NULL))
            return 0;
        kind = TATTLE__ENDPOINT_EVENTFD;
        key = TATTLE__EVENTFD_KEY_TAG ^ id;
        break;
    default:
        return 0;
    }
    for (int i = 0; i < EXCLUDED_MAX; i++)
        if (atomic_load_explicit(&excluded[i], memory_order_relaxed) == key)
            return 0;
    uint32_t index =
        claim_endpoint(capture_arena, key, kind, id, semaphore, name, local);
    if (index == 0)
        return 0;
    return (uint64_t)kind << 1 | (uint64_t)index << 32 |
           (semaphore ? SEMAPHORE : 0);
}

static bool borrowing_cache(void);

/* The cache word of a descriptor, classifying it on first use: stored,
 * unless the process borrows the cache (a vfork child's number is not
 * its parent's: after its dup2 onto 2, the parent's stderr writes would
 * be taken for messages through the child's pipe). */
/* Stores what descriptor `fd` (below FD_CACHE_SIZE) is. */
static void remember(int fd, uint64_t word)
{
    if (!atomic_load_explicit(&fd_cache_filled, memory_order_relaxed))
        atomic_store_explicit(&fd_cache_filled, true, memory_order_relaxed);
    atomic_store_explicit(&fd_cache[fd], word, memory_order_relaxed);
}

static uint64_t lookup(int fd)
{
    if (fd < 0)
        return 0;
    if (fd >= FD_CACHE_SIZE)
        return classify(fd);
    uint64_t word = atomic_load_explicit(&fd_cache[fd], memory_order_relaxed);
    if (TATTLE__LIKELY(word != 0))
        return word;
    word = classify(fd) | CACHED;
    if (!borrowing_cache())
        remember(fd, word);
    return word;
}

/* What a POSIX message queue's descriptor is, as a cache word (without
 * the CACHED bit): an endpoint named `mq:/NAME` after the link of
 * /proc/self/fd/N (the queue's path in the mqueue file system, without
 * the " (deleted)" of an unlinked queue). */
static uint64_t classify_queue(mqd_t queue)
{
    struct stat status;
    if (fstat(queue, &status) != 0)
        return 0;
    char path[48];
    size_t used = tattle__append_text(path, sizeof path, 0, "/proc/self/fd/");
    tattle__append_decimal(path, sizeof path, used, (uint64_t)queue);
    char link[TATTLE__ENDPOINT_NAME_BYTES];
    ssize_t length = readlink(path, link, sizeof link - 1);
    if (length < 0)
        length = 0;
    /* An unlinked queue's link ends in " (deleted)": the name it was
     * opened by is what the test knows it by. */
    static const char deleted[] = " (deleted)";
    size_t suffix = sizeof deleted - 1;
    if ((size_t)length > suffix &&
        memcmp(link + (size_t)length - suffix, deleted, suffix) == 0)
        length -= (ssize_t)suffix;
    link[length] = '\0';
    char name[TATTLE__ENDPOINT_NAME_BYTES];
    tattle__append_text(name, sizeof name,
                        tattle__append_text(name, sizeof name, 0, "mq:"), link);
    uint32_t index = claim_endpoint(
        capture_arena, tattle__endpoint_key(status.st_dev, status.st_ino),
        TATTLE__ENDPOINT_QUEUE, (uint64_t)status.st_ino, false, name, "");
    if (index == 0)
        return 0;
    return (uint64_t)TATTLE__ENDPOINT_QUEUE << 1 | (uint64_t)index << 32;
}

/* The cache word of a descriptor an mq_ call succeeded on: a queue,
 * whatever the cache said of the number before (a queue's descriptor is
 * a regular file to fstat, and mq_open is not interposed). */
static uint64_t lookup_queue(mqd_t queue)
{
    if (queue < 0)
        return 0;
    uint64_t word =
        queue < FD_CACHE_SIZE
            ? atomic_load_explicit(&fd_cache[queue], memory_order_relaxed)
            : 0;
    if (TATTLE__LIKELY(((word >> 1) & 0x7fu) == TATTLE__ENDPOINT_QUEUE))
        return word;
    word = classify_queue(queue) | CACHED;
    if (queue < FD_CACHE_SIZE && !borrowing_cache())
        remember(queue, word);
    return word;
}

static void forget(int fd)
{
    if (fd >= 0 && fd < FD_CACHE_SIZE)
        atomic_store_explicit(&fd_cache[fd], 0, memory_order_relaxed);
}

/* The calling process, not the cache's owner, shares the owner's memory
 * (a vfork child), as the kernel says. Where kcmp is refused (Docker's
 * default seccomp profile: EPERM or ENOSYS) or the owner is gone, the
 * answer is yes: a child taken for a vfork child keeps its cache as it
 * was at the fork, while a vfork child taken for a forked one would
 * change its parent's cache and ring. */
static bool shares_owner_memory(pid_t self)
{
    int saved_errno = errno;
    long order = syscall(SYS_kcmp, self, cache_owner, KCMP_VM, 0UL, 0UL);
    errno = saved_errno;
    return order <= 0;
}

/* The calling process borrows the cache: a vfork child, whose descriptor
 * table is not the one the cache describes. A process made without fork
 * handlers (_Fork, a fork or clone system call without CLONE_VM) has its
 * own copy of the memory and of the descriptors the cache describes: at
 * its first call that asks, it takes the cache and a ring of its own, as
 * the fork handler would have. A system call (getpid, which never fails;
 * kcmp once more in another process), paid only by the calls that close
 * an endpoint or hand out descriptors and by a look-up the cache cannot
 * answer, when capturing. */
static bool borrowing_cache(void)
{
    pid_t self = getpid();
    if (TATTLE__LIKELY(self == cache_owner))
        return false;
    if (shares_owner_memory(self))
        return true;
    cache_owner = self;
    tattle__recorder_forked_unseen();
    return false;
}

/* Drops what the cache says of a number the calling process closed,
 * replaced or was handed, unless it borrows the cache. */
static void forget_own(int fd)
{
    if (!borrowing_cache())
        forget(fd);
}

TATTLE__CHILD_PATH void tattle__ipc_start(struct tattle_trace_arena *arena)
{
    uint64_t standard[STANDARD_FDS] = {0};
    for (int fd = 0; fd < STANDARD_FDS; fd++) {
        unsigned type;
        dev_t device;
        uint64_t inode;
        if (tattle__descriptor_identity(fd, &type, &device, &inode) &&
            (type == S_IFIFO || type == S_IFSOCK))
            standard[fd] = tattle__endpoint_key(device, (ino_t)inode);
    }
    tattle__ipc_join(arena, standard, STANDARD_FDS);
}

TATTLE__CHILD_PATH void tattle__ipc_join(struct tattle_trace_arena *arena,
                                         const uint64_t *excluded_keys,
                                         size_t count)
{
    if (atomic_load_explicit(&fd_cache_filled, memory_order_relaxed)) {
        for (int fd = 0; fd < FD_CACHE_SIZE; fd++)
            forget(fd);
        atomic_store_explicit(&fd_cache_filled, false, memory_order_relaxed);
    }
    for (size_t i = 0; i < EXCLUDED_MAX; i++)
        atomic_store_explicit(&excluded[i], i < count ? excluded_keys[i] : 0,
                              memory_order_relaxed);
    capture_arena = arena;
    cache_owner = getpid();
    capturing = arena->ipc != 0;
}

TATTLE__CHILD_PATH size_t tattle__ipc_excluded_keys(uint64_t *keys,
                                                    size_t capacity)
{
    size_t count = 0;
    for (size_t i = 0; i < EXCLUDED_MAX && count < capacity; i++) {
        uint64_t key = atomic_load_explicit(&excluded[i], memory_order_relaxed);
        if (key != 0)
            keys[count++] = key;
    }
    return count;
}

void tattle__ipc_forked(void)
{
    /* Only a capturing process has a cache to own: every other child
     * (each test the fork server forks) would copy a data page and pay a
     * system call for nothing. A process that starts capturing later
     * takes the cache then (tattle__ipc_join). */
    if (capturing)
        cache_owner = getpid();
}

void tattle__ipc_exclude(int fd)
{
    struct stat status;
    if (fstat(fd, &status) != 0 ||
        !(S_ISFIFO(status.st_mode) || S_ISSOCK(status.st_mode)))
        return;
    uint64_t key = tattle__endpoint_key(status.st_dev, status.st_ino);
    int slot = EXCLUDED_MAX - 1; /* full: the latest replaces the last */
    for (int i = STANDARD_FDS; i < EXCLUDED_MAX; i++) {
        uint64_t seen =
            atomic_load_explicit(&excluded[i], memory_order_relaxed);
        if (seen == key)
            return;
        if (seen == 0) {
            slot = i;
            break;
        }
    }
    atomic_store_explicit(&excluded[slot], key, memory_order_relaxed);
    forget(fd);
}

TATTLE__CHILD_PATH void tattle__ipc_peek_pending(void)
{
    struct tattle_trace_arena *arena = capture_arena;
    if (!capturing || arena == NULL)
        return;
    if (tattle__peek_held(arena, -1, 0, TATTLE__PEEK_TEST))
        atomic_store_explicit(&arena->peek_taken, TATTLE__PEEK_TEST,
                              memory_order_release);
}

void tattle__ipc_stop(void)
{
    capturing = false;
}

void tattle__ipc_swap_io(ssize_t (**write_fn)(int, const void *, size_t),
                         ssize_t (**read_fn)(int, void *, size_t))
{
    ssize_t (*old_write)(int, const void *, size_t) = real.write;
    ssize_t (*old_read)(int, void *, size_t) = real.read;
    real.write = *write_fn;
    real.read = *read_fn;
    *write_fn = old_write;
    *read_fn = old_read;
}

/* ---- Recording ---------------------------------------------------------- */

/* Claims the first actor seen at one side of an endpoint. */
static void note_first(_Atomic uint32_t *side, int32_t actor)
{
    if (actor < 0 || atomic_load_explicit(side, memory_order_relaxed) != 0)
        return;
    uint32_t expected = 0;
    atomic_compare_exchange_strong(side, &expected, (uint32_t)actor + 1);
}

/* Records one transfer of `length` bytes, what the call returned: the
 * payload is the first of them in `data` (at most `in_buffer` bytes: a
 * receive with MSG_TRUNC returns a datagram's whole length, or discards
 * stream bytes into no buffer at all) or, when `data` is NULL, gathered
 * from `iov` (at most its buffers' total); none when `discarding` (a
 * receive with MSG_TRUNC on a stream socket drops its bytes unread). A
 * send is stamped with `ticks`, the clock read before the call, so it
 * never follows the receive it woke; a receive (ticks 0) is stamped now. */
static inline __attribute__((always_inline)) void
record_message(uint64_t word, bool sending, uint64_t ticks, const char *label,
               const void *data, size_t in_buffer, size_t length,
               const struct iovec *iov, size_t iov_count, bool discarding)
{
    unsigned kind = (unsigned)(word >> 1) & 0x7fu;
    uint32_t index = (uint32_t)(word >> 32);
    if (kind == 0 || index == 0 || index > TATTLE__MAX_ENDPOINTS)
        return;
    /* -1 when the actors table is full: the event is refused, but its
     * units still move the endpoint's offsets, or every later receive on
     * it would be matched to the wrong send. */
    int32_t actor = tattle__recorder_actor();
    struct tattle__endpoint *entry = &capture_arena->endpoints[index - 1];
    bool semaphore = (word & SEMAPHORE) != 0;
    uint64_t units = kind == TATTLE__ENDPOINT_DGRAM ||
                             kind == TATTLE__ENDPOINT_EVENTFD ||
                             kind == TATTLE__ENDPOINT_QUEUE
                         ? 1
                         : length;
    if (kind == TATTLE__ENDPOINT_EVENTFD && semaphore && sending) {
        /* A write adds its value to the counter, one unit a read takes. */
        uint64_t value = 1;
        if (data != NULL && in_buffer >= sizeof value)
            memcpy(&value, data, sizeof value);
        units = value;
    }
    uint64_t offset;
    if (sending) {
        note_first(&entry->writer, actor);
        offset = atomic_fetch_add(&entry->sent, units);
    } else {
        note_first(&entry->reader, actor);
        if (kind == TATTLE__ENDPOINT_EVENTFD && semaphore) {
            /* A semaphore read takes 1 from the counter. */
            offset = atomic_fetch_add(&entry->received, 1);
        } else if (kind == TATTLE__ENDPOINT_EVENTFD) {
            /* One read takes every write since the last. */
            uint64_t upto = atomic_load(&entry->sent);
            offset = atomic_exchange(&entry->received, upto);
        } else {
            offset = atomic_fetch_add(&entry->received, units);
        }
    }
    if (actor < 0)
        return;
    unsigned char gathered[TATTLE__PAYLOAD_MAX];
    size_t payload_length = length < sizeof gathered ? length : sizeof gathered;
    if (discarding && kind == TATTLE__ENDPOINT_STREAM) {
        payload_length = 0;
    } else if (data != NULL) {
        if (payload_length > in_buffer)
            payload_length = in_buffer;
    } else {
        size_t used = 0;
        for (size_t i = 0;
             iov != NULL && i < iov_count && used < payload_length; i++) {
            size_t take = iov[i].iov_len;
            if (take > payload_length - used)
                take = payload_length - used;
            if (take != 0 && iov[i].iov_base != NULL)
                memcpy(gathered + used, iov[i].iov_base, take);
            used += take;
        }
        payload_length = used;
        data = gathered;
    }
    tattle__recorder_record(&(struct tattle__event){
        .kind = sending ? TATTLE_TRACE_SEND : TATTLE_TRACE_RECV,
        .from = sending ? TATTLE__SELF : TATTLE__NAMED(NULL),
        .to = sending ? TATTLE__NAMED(NULL) : TATTLE__SELF,
        .label = label,
        .payload = data,
        .payload_length = payload_length,
        .size = length,
        .endpoint = index,
        .offset = offset,
        .ticks = ticks});
}

/* Records one transfer through a descriptor (record_message says what the
 * arguments are) when it is a message endpoint; a POSIX queue's descriptor
 * counts only through the mq_ calls (a read of it is the queue's status
 * text, not a message). */
static void record_transfer(int fd, bool sending, uint64_t ticks,
                            const char *label, const void *data,
                            size_t in_buffer, size_t length,
                            const struct iovec *iov, size_t iov_count,
                            bool discarding)
{
    if (tattle_trace_current != capture_arena)
        return; /* the session ended in this process (in-process runs) */
    int saved_errno = errno;
    uint64_t word = lookup(fd);
    if (((word >> 1) & 0x7fu) != TATTLE__ENDPOINT_QUEUE)
        record_message(word, sending, ticks, label, data, in_buffer, length,
                       iov, iov_count, discarding);
    errno = saved_errno;
}

/* Records one message sent to or received from a POSIX queue. */
static void record_queue_transfer(mqd_t queue, bool sending, uint64_t ticks,
                                  const char *label, const char *message,
                                  size_t length)
{
    if (tattle_trace_current != capture_arena)
        return;
    int saved_errno = errno;
    record_message(lookup_queue(queue), sending, ticks, label, message, length,
                   length, NULL, 0, false);
    errno = saved_errno;
}

/* Records a connect, accept, shutdown or close of an endpoint as an
 * `event` from the calling actor to the endpoint's address (or `to`). */
static void record_endpoint_event(int fd, uint64_t word, const char *label,
                                  const char *to)
{
    if (tattle_trace_current != capture_arena)
        return;
    int saved_errno = errno;
    unsigned kind = (unsigned)(word >> 1) & 0x7fu;
    uint32_t index = (uint32_t)(word >> 32);
    char name[TATTLE__ENDPOINT_NAME_BYTES + 32] = "";
    if (to != NULL) {
        tattle__append_text(name, sizeof name, 0, to);
    } else if (kind != 0 && index != 0 && index <= TATTLE__MAX_ENDPOINTS &&
               atomic_load_explicit(&capture_arena->endpoints[index - 1].kind,
                                    memory_order_acquire) != 0) {
        /* The entry's id and name are read once its claimer published
         * them (another thread or process may have claimed it). */
        const struct tattle__endpoint *entry =
            &capture_arena->endpoints[index - 1];
        size_t used = 0;
        if (kind == TATTLE__ENDPOINT_PIPE)
            used = tattle__append_text(name, sizeof name, 0, "pipe:[");
        else if (kind == TATTLE__ENDPOINT_EVENTFD)
            used = tattle__append_text(name, sizeof name, 0, "eventfd:[");
        else if (entry->name[0] == '\0')
            used = tattle__append_text(name, sizeof name, 0, "socket:[");
        if (used != 0) {
            used = tattle__append_decimal(name, sizeof name, used, entry->id);
            tattle__append_text(name, sizeof name, used, "]");
        } else {
            char copy[TATTLE__ENDPOINT_NAME_BYTES];
            memcpy(copy, entry->name, sizeof copy);
            copy[sizeof copy - 1] = '\0';
            tattle__append_text(name, sizeof name, 0, copy);
        }
    } else {
        errno = saved_errno;
        return;
    }
    (void)fd;
    size_t length = strlen(name);
    tattle__recorder_record(&(struct tattle__event){.kind = TATTLE_TRACE_EVENT,
                                                    .from = TATTLE__SELF,
                                                    .to = TATTLE__NAMED(name),
                                                    .label = label,
                                                    .payload = name,
                                                    .payload_length = length,
                                                    .size = length,
                                                    .text = true});
    errno = saved_errno;
}

/* Records the `connect` event of a non-blocking connect still in progress,
 * to the address given. */
static void record_connecting(int fd, const struct sockaddr *address,
                              socklen_t length)
{
    if (tattle_trace_current != capture_arena || address == NULL)
        return;
    int type = 0;
    socklen_t type_length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_length) != 0)
        return;
    struct sockaddr_storage copy;
    socklen_t copied = length < sizeof copy ? length : sizeof copy;
    memset(&copy, 0, sizeof copy);
    memcpy(&copy, address, copied);
    char name[TATTLE__ENDPOINT_NAME_BYTES];
    describe_address(&copy, copied, type == SOCK_STREAM, name, sizeof name);
    if (name[0] != '\0')
        record_endpoint_event(fd, 0, "connect", name);
}

/* ---- The interposed calls ----------------------------------------------- */

/* The bytes a receive of `done` into `buffer` of `length` left there: with
 * MSG_TRUNC a datagram's whole length is returned, however little of it
 * fitted, and stream bytes may be discarded into no buffer. */
static size_t received_bytes(const void *buffer, size_t length, ssize_t done)
{
    if (buffer == NULL)
        return 0;
    return (size_t)done < length ? (size_t)done : length;
}

/* The fortified entry points (<bits/unistd.h>, <bits/socket2.h> declare
 * them only under _FORTIFY_SOURCE), and glibc's end of a fortified call
 * that would overflow its buffer: "*** buffer overflow detected ***" and
 * SIGABRT, as the test would end untraced. */
ssize_t __read_chk(int fd, void *buffer, size_t length, size_t buffer_size);
ssize_t __recv_chk(int fd, void *buffer, size_t length, size_t buffer_size,
                   int flags);
ssize_t __recvfrom_chk(int fd, void *buffer, size_t length, size_t buffer_size,
                       int flags, struct sockaddr *from,
                       socklen_t *from_length);
void __chk_fail(void) __attribute__((noreturn));

INTERPOSED ssize_t write(int fd, const void *buffer, size_t length)
{
    if (TATTLE__LIKELY(!capturing))
        return real.write(fd, buffer, length);
    uint64_t ticks = tattle__clock_ticks();
    ssize_t done = real.write(fd, buffer, length);
    if (done > 0)
        record_transfer(fd, true, ticks, "write", buffer, (size_t)done,
                        (size_t)done, NULL, 0, false);
    return done;
}

INTERPOSED ssize_t read(int fd, void *buffer, size_t length)
{
    if (TATTLE__LIKELY(!capturing))
        return real.read(fd, buffer, length);
    ssize_t done = real.read(fd, buffer, length);
    if (done > 0)
        record_transfer(fd, false, 0, "read", buffer, (size_t)done,
                        (size_t)done, NULL, 0, false);
    return done;
}

INTERPOSED ssize_t __read_chk(int fd, void *buffer, size_t length,
                              size_t buffer_size)
{
    if (length > buffer_size)
        __chk_fail();
    return read(fd, buffer, length);
}

INTERPOSED ssize_t writev(int fd, const struct iovec *iov, int count)
{
    if (TATTLE__LIKELY(!capturing))
        return real.writev(fd, iov, count);
    uint64_t ticks = tattle__clock_ticks();
    ssize_t done = real.writev(fd, iov, count);
    if (done > 0)
        record_transfer(fd, true, ticks, "writev", NULL, 0, (size_t)done, iov,
                        (size_t)count, false);
    return done;
}

INTERPOSED ssize_t readv(int fd, const struct iovec *iov, int count)
{
    if (TATTLE__LIKELY(!capturing))
        return real.readv(fd, iov, count);
    ssize_t done = real.readv(fd, iov, count);
    if (done > 0)
        record_transfer(fd, false, 0, "readv", NULL, 0, (size_t)done, iov,
                        (size_t)count, false);
    return done;
}

INTERPOSED ssize_t send(int fd, const void *buffer, size_t length, int flags)
{
    if (TATTLE__LIKELY(!capturing))
        return real.send(fd, buffer, length, flags);
    uint64_t ticks = tattle__clock_ticks();
    ssize_t done = real.send(fd, buffer, length, flags);
    if (done > 0)
        record_transfer(fd, true, ticks, "send", buffer, (size_t)done,
                        (size_t)done, NULL, 0, false);
    return done;
}

INTERPOSED ssize_t recv(int fd, void *buffer, size_t length, int flags)
{
    if (TATTLE__LIKELY(!capturing))
        return real.recv(fd, buffer, length, flags);
    ssize_t done = real.recv(fd, buffer, length, flags);
    if (done > 0 && !(flags & MSG_PEEK))
        record_transfer(fd, false, 0, "recv", buffer,
                        received_bytes(buffer, length, done), (size_t)done,
                        NULL, 0, (flags & MSG_TRUNC) != 0);
    return done;
}

INTERPOSED ssize_t __recv_chk(int fd, void *buffer, size_t length,
                              size_t buffer_size, int flags)
{
    if (length > buffer_size)
        __chk_fail();
    return recv(fd, buffer, length, flags);
}

INTERPOSED ssize_t sendto(int fd, const void *buffer, size_t length, int flags,
                          const struct sockaddr *to, socklen_t to_length)
{
    if (TATTLE__LIKELY(!capturing))
        return real.sendto(fd, buffer, length, flags, to, to_length);
    uint64_t ticks = tattle__clock_ticks();
    ssize_t done = real.sendto(fd, buffer, length, flags, to, to_length);
    if (done > 0)
        record_transfer(fd, true, ticks, "sendto", buffer, (size_t)done,
                        (size_t)done, NULL, 0, false);
    return done;
}

INTERPOSED ssize_t recvfrom(int fd, void *buffer, size_t length, int flags,
                            struct sockaddr *from, socklen_t *from_length)
{
    if (TATTLE__LIKELY(!capturing))
        return real.recvfrom(fd, buffer, length, flags, from, from_length);
    ssize_t done = real.recvfrom(fd, buffer, length, flags, from, from_length);
    if (done > 0 && !(flags & MSG_PEEK))
        record_transfer(fd, false, 0, "recvfrom", buffer,
                        received_bytes(buffer, length, done), (size_t)done,
                        NULL, 0, (flags & MSG_TRUNC) != 0);
    return done;
}

INTERPOSED ssize_t __recvfrom_chk(int fd, void *buffer, size_t length,
                                  size_t buffer_size, int flags,
                                  struct sockaddr *from, socklen_t *from_length)
{
    if (length > buffer_size)
        __chk_fail();
    return recvfrom(fd, buffer, length, flags, from, from_length);
}

INTERPOSED ssize_t sendmsg(int fd, const struct msghdr *message, int flags)
{
    if (TATTLE__LIKELY(!capturing))
        return real.sendmsg(fd, message, flags);
    uint64_t ticks = tattle__clock_ticks();
    ssize_t done = real.sendmsg(fd, message, flags);
    if (done > 0)
        record_transfer(fd, true, ticks, "sendmsg", NULL, 0, (size_t)done,
                        message->msg_iov, message->msg_iovlen, false);
    return done;
}

INTERPOSED ssize_t recvmsg(int fd, struct msghdr *message, int flags)
{
    if (TATTLE__LIKELY(!capturing))
        return real.recvmsg(fd, message, flags);
    ssize_t done = real.recvmsg(fd, message, flags);
    if (done > 0 && !(flags & MSG_PEEK))
        record_transfer(fd, false, 0, "recvmsg", NULL, 0, (size_t)done,
                        message->msg_iov, message->msg_iovlen,
                        (flags & MSG_TRUNC) != 0);
    return done;
}

/* Each message of the vector that went is one event, as if sent alone. */
INTERPOSED int sendmmsg(int fd, struct mmsghdr *messages, unsigned count,
                        int flags)
{
    if (TATTLE__LIKELY(!capturing))
        return real.sendmmsg(fd, messages, count, flags);
    uint64_t ticks = tattle__clock_ticks();
    int done = real.sendmmsg(fd, messages, count, flags);
    for (int i = 0; i < done; i++)
        if (messages[i].msg_len > 0)
            record_transfer(fd, true, ticks, "sendmmsg", NULL, 0,
                            messages[i].msg_len, messages[i].msg_hdr.msg_iov,
                            messages[i].msg_hdr.msg_iovlen, false);
    return done;
}

INTERPOSED int recvmmsg(int fd, struct mmsghdr *messages, unsigned count,
                        int flags, struct timespec *timeout)
{
    if (TATTLE__LIKELY(!capturing))
        return real.recvmmsg(fd, messages, count, flags, timeout);
    int done = real.recvmmsg(fd, messages, count, flags, timeout);
    if (!(flags & MSG_PEEK))
        for (int i = 0; i < done; i++)
            if (messages[i].msg_len > 0)
                record_transfer(
                    fd, false, 0, "recvmmsg", NULL, 0, messages[i].msg_len,
                    messages[i].msg_hdr.msg_iov, messages[i].msg_hdr.msg_iovlen,
                    (flags & MSG_TRUNC) != 0);
    return done;
}

INTERPOSED int eventfd_write(int fd, eventfd_t value)
{
    if (TATTLE__LIKELY(!capturing))
        return real.eventfd_write(fd, value);
    uint64_t ticks = tattle__clock_ticks();
    int result = real.eventfd_write(fd, value);
    if (result == 0)
        record_transfer(fd, true, ticks, "eventfd_write", &value, sizeof value,
                        sizeof value, NULL, 0, false);
    return result;
}

INTERPOSED int eventfd_read(int fd, eventfd_t *value)
{
    if (TATTLE__LIKELY(!capturing))
        return real.eventfd_read(fd, value);
    int result = real.eventfd_read(fd, value);
    if (result == 0)
        record_transfer(fd, false, 0, "eventfd_read", value, sizeof *value,
                        sizeof *value, NULL, 0, false);
    return result;
}

INTERPOSED int mq_send(mqd_t queue, const char *message, size_t length,
                       unsigned priority)
{
    if (TATTLE__LIKELY(!capturing))
        return real.mq_send(queue, message, length, priority);
    uint64_t ticks = tattle__clock_ticks();
    int result = real.mq_send(queue, message, length, priority);
    if (result == 0)
        record_queue_transfer(queue, true, ticks, "mq_send", message, length);
    return result;
}

INTERPOSED int mq_timedsend(mqd_t queue, const char *message, size_t length,
                            unsigned priority, const struct timespec *timeout)
{
    if (TATTLE__LIKELY(!capturing))
        return real.mq_timedsend(queue, message, length, priority, timeout);
    uint64_t ticks = tattle__clock_ticks();
    int result = real.mq_timedsend(queue, message, length, priority, timeout);
    if (result == 0)
        record_queue_transfer(queue, true, ticks, "mq_timedsend", message,
                              length);
    return result;
}

INTERPOSED ssize_t mq_receive(mqd_t queue, char *message, size_t length,
                              unsigned *priority)
{
    if (TATTLE__LIKELY(!capturing))
        return real.mq_receive(queue, message, length, priority);
    ssize_t done = real.mq_receive(queue, message, length, priority);
    if (done >= 0)
        record_queue_transfer(queue, false, 0, "mq_receive", message,
                              (size_t)done);
    return done;
}

INTERPOSED ssize_t mq_timedreceive(mqd_t queue, char *message, size_t length,
                                   unsigned *priority,
                                   const struct timespec *timeout)
{
    if (TATTLE__LIKELY(!capturing))
        return real.mq_timedreceive(queue, message, length, priority, timeout);
    ssize_t done =
        real.mq_timedreceive(queue, message, length, priority, timeout);
    if (done >= 0)
        record_queue_transfer(queue, false, 0, "mq_timedreceive", message,
                              (size_t)done);
    return done;
}

INTERPOSED int mq_close(mqd_t queue)
{
    if (TATTLE__LIKELY(!capturing) || borrowing_cache())
        return real.mq_close(queue);
    uint64_t word =
        queue >= 0 && queue < FD_CACHE_SIZE ? atomic_load(&fd_cache[queue]) : 0;
    int result = real.mq_close(queue);
    forget(queue);
    if (result == 0 && ((word >> 1) & 0x7fu) == TATTLE__ENDPOINT_QUEUE)
        record_endpoint_event(queue, word, "mq_close", NULL);
    return result;
}

/* Only an endpoint's close asks whose cache it is (a vfork child closes
 * its own copy: the cache keeps the endpoint and no close is recorded):
 * a number the cache knows nothing of, or knows is no endpoint, costs
 * the close alone (dropping what the cache knows of it is right in any
 * process: its owner classifies it again). */
INTERPOSED int close(int fd)
{
    if (TATTLE__LIKELY(!capturing))
        return real.close(fd);
    uint64_t word =
        fd >= 0 && fd < FD_CACHE_SIZE ? atomic_load(&fd_cache[fd]) : 0;
    bool endpoint = ((word >> 1) & 0x7fu) != 0;
    if (endpoint && borrowing_cache())
        return real.close(fd);
    if (word != 0)
        forget(fd);
    int result = real.close(fd);
    if (result == 0 && endpoint)
        record_endpoint_event(fd, word, "close", NULL);
    return result;
}

INTERPOSED int connect(int fd, const struct sockaddr *address, socklen_t length)
{
    if (TATTLE__LIKELY(!capturing))
        return real.connect(fd, address, length);
    int result = real.connect(fd, address, length);
    if (result == 0) {
        int saved_errno = errno;
        forget(fd); /* its peer is known now */
        uint64_t word = lookup(fd);
        errno = saved_errno;
        if (((word >> 1) & 0x7fu) != 0)
            record_endpoint_event(fd, word, "connect", NULL);
    } else if (errno == EINPROGRESS) {
        /* Not connected yet: it has no peer to name it by, so it is
         * classified (and named by getpeername) at its first transfer;
         * the event names the address it connects to. */
        int saved_errno = errno;
        forget(fd);
        record_connecting(fd, address, length);
        errno = saved_errno;
    }
    return result;
}

static int after_accept(int accepted, const char *label)
{
    if (accepted >= 0) {
        int saved_errno = errno;
        forget(accepted);
        uint64_t word = lookup(accepted);
        errno = saved_errno;
        if (((word >> 1) & 0x7fu) != 0)
            record_endpoint_event(accepted, word, label, NULL);
    }
    return accepted;
}

INTERPOSED int accept(int fd, struct sockaddr *address, socklen_t *length)
{
    if (TATTLE__LIKELY(!capturing))
        return real.accept(fd, address, length);
    return after_accept(real.accept(fd, address, length), "accept");
}

INTERPOSED int accept4(int fd, struct sockaddr *address, socklen_t *length,
                       int flags)
{
    if (TATTLE__LIKELY(!capturing))
        return real.accept4(fd, address, length, flags);
    return after_accept(real.accept4(fd, address, length, flags), "accept4");
}

INTERPOSED int shutdown(int fd, int how)
{
    if (TATTLE__LIKELY(!capturing))
        return real.shutdown(fd, how);
    int result = real.shutdown(fd, how);
    if (result == 0) {
        uint64_t word = lookup(fd);
        if (((word >> 1) & 0x7fu) != 0)
            record_endpoint_event(fd, word, "shutdown", NULL);
    }
    return result;
}

/* Drops the cache of every descriptor from `first` to `last` before they
 * are closed together, recording the close of each endpoint. Cleared
 * before the close, no other thread can be handed one of the numbers
 * while the cache still names the endpoint it had. */
static void forget_closed_range(unsigned first, unsigned last,
                                const char *label)
{
    if (borrowing_cache())
        return;
    int saved_errno = errno;
    for (unsigned fd = first; fd <= last && fd < FD_CACHE_SIZE; fd++) {
        uint64_t word = atomic_exchange(&fd_cache[fd], 0);
        if (((word >> 1) & 0x7fu) != 0)
            record_endpoint_event((int)fd, word, label, NULL);
    }
    errno = saved_errno;
}

INTERPOSED int close_range(unsigned first, unsigned last, int flags)
{
    /* Only a call the kernel takes closes anything: a reversed range or
     * an unknown flag fails with EINVAL, and a CLOEXEC range closes at
     * exec. */
    unsigned known = CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_UNSHARE;
    if (TATTLE__UNLIKELY(capturing) && first <= last &&
        ((unsigned)flags & ~known) == 0 &&
        !((unsigned)flags & CLOSE_RANGE_CLOEXEC))
        forget_closed_range(first, last, "close_range");
    return real.close_range(first, last, flags);
}

INTERPOSED void closefrom(int lowest)
{
    /* glibc reads a negative lowest as 0; closefrom cannot fail. */
    if (TATTLE__UNLIKELY(capturing))
        forget_closed_range(lowest < 0 ? 0u : (unsigned)lowest, ~0u,
                            "closefrom");
    real.closefrom(lowest);
}

/* libc's fclose closes the stream's descriptor without the interposed
 * close, so its number would keep what the cache said of it. */
/* Takes what the cache says of the descriptor under `stream`, which is
 * about to be closed (its number in *fd): 0 when nothing. */
static uint64_t take_stream_word(FILE *stream, int *fd)
{
    /* fileno sets EBADF for a stream with no descriptor (fmemopen,
     * open_memstream), and the call closing it may succeed without
     * touching errno. */
    int saved_errno = errno;
    *fd = fileno(stream);
    errno = saved_errno;
    return *fd >= 0 && *fd < FD_CACHE_SIZE ? atomic_exchange(&fd_cache[*fd], 0)
                                           : 0;
}

INTERPOSED int fclose(FILE *stream)
{
    if (TATTLE__LIKELY(!capturing))
        return real.fclose(stream);
    if (borrowing_cache())
        return real.fclose(stream);
    int fd;
    uint64_t word = take_stream_word(stream, &fd);
    int result = real.fclose(stream);
    /* fclose closes the descriptor even when flushing fails. */
    if (((word >> 1) & 0x7fu) != 0) {
        int saved_errno = errno;
        record_endpoint_event(fd, word, "fclose", NULL);
        errno = saved_errno;
    }
    return result;
}

/* The calls that hand out a new descriptor drop what the cache said of
 * its number: the number may have been closed where the cache did not see
 * it (a raw close system call, closedir, a library's own close). */
static int forget_created(int fd)
{
    if (TATTLE__UNLIKELY(capturing) && fd >= 0)
        forget_own(fd);
    return fd;
}

/* The same for a stream's descriptor (fopen, freopen, tmpfile). */
static FILE *forget_opened_stream(FILE *stream)
{
    if (TATTLE__UNLIKELY(capturing) && stream != NULL) {
        int saved_errno = errno;
        forget_created(fileno(stream));
        errno = saved_errno;
    }
    return stream;
}

/* open's mode, passed only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, mode)                                                 \
    do {                                                                       \
        if (((flags)&O_CREAT) || ((flags)&O_TMPFILE) == O_TMPFILE) {           \
            va_list arguments;                                                 \
            va_start(arguments, flags);                                        \
            (mode) = va_arg(arguments, mode_t);                                \
            va_end(arguments);                                                 \
        }                                                                      \
    } while (0)

/* Every call that opens a file (or a descriptor that is no endpoint:
 * memfd, timerfd, signalfd, inotify) hands out a number a close the
 * capture did not see may have freed: writes to the file must not be
 * taken for messages through what the number was. */
INTERPOSED int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    return forget_created(real.open(path, flags, mode));
}

INTERPOSED int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    return forget_created(real.open64(path, flags, mode));
}

INTERPOSED int openat(int directory, const char *path, int flags, ...)
{
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    return forget_created(real.openat(directory, path, flags, mode));
}

INTERPOSED int openat64(int directory, const char *path, int flags, ...)
{
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    return forget_created(real.openat64(directory, path, flags, mode));
}

INTERPOSED int creat(const char *path, mode_t mode)
{
    return forget_created(real.creat(path, mode));
}

INTERPOSED int creat64(const char *path, mode_t mode)
{
    return forget_created(real.creat64(path, mode));
}

/* Declared by libc's headers only under _GNU_SOURCE or
 * _LARGEFILE64_SOURCE. */
int open64(const char *path, int flags, ...);
int openat64(int directory, const char *path, int flags, ...);
int creat64(const char *path, mode_t mode);
int memfd_create(const char *name, unsigned flags);
FILE *fopen64(const char *path, const char *mode);
FILE *freopen64(const char *path, const char *mode, FILE *stream);
FILE *tmpfile64(void);
int mkstemp64(char *template);
int mkostemp(char *template, int flags);
int mkostemp64(char *template, int flags);

/* The fortified entry points open calls with flags known to need no mode
 * (<bits/fcntl2.h>); libc's checks the flags. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int directory, const char *path, int flags);
int __openat64_2(int directory, const char *path, int flags);

INTERPOSED int __open_2(const char *path, int flags)
{
    return forget_created(real.__open_2(path, flags));
}

INTERPOSED int __open64_2(const char *path, int flags)
{
    return forget_created(real.__open64_2(path, flags));
}

INTERPOSED int __openat_2(int directory, const char *path, int flags)
{
    return forget_created(real.__openat_2(directory, path, flags));
}

INTERPOSED int __openat64_2(int directory, const char *path, int flags)
{
    return forget_created(real.__openat64_2(directory, path, flags));
}

INTERPOSED int memfd_create(const char *name, unsigned flags)
{
    return forget_created(real.memfd_create(name, flags));
}

INTERPOSED int timerfd_create(int clock, int flags)
{
    return forget_created(real.timerfd_create(clock, flags));
}

INTERPOSED int signalfd(int fd, const sigset_t *mask, int flags)
{
    return forget_created(real.signalfd(fd, mask, flags));
}

INTERPOSED int inotify_init(void)
{
    return forget_created(real.inotify_init());
}

INTERPOSED int inotify_init1(int flags)
{
    return forget_created(real.inotify_init1(flags));
}

INTERPOSED FILE *fopen(const char *path, const char *mode)
{
    return forget_opened_stream(real.fopen(path, mode));
}

INTERPOSED FILE *fopen64(const char *path, const char *mode)
{
    return forget_opened_stream(real.fopen64(path, mode));
}

INTERPOSED FILE *freopen(const char *path, const char *mode, FILE *stream)
{
    if (TATTLE__LIKELY(!capturing) || borrowing_cache() || path == NULL)
        return forget_opened_stream(real.freopen(path, mode, stream));
    /* It closes the stream's old descriptor (a NULL path keeps it). */
    int fd;
    uint64_t word = take_stream_word(stream, &fd);
    FILE *result = real.freopen(path, mode, stream);
    if (((word >> 1) & 0x7fu) != 0) {
        int saved_errno = errno;
        record_endpoint_event(fd, word, "freopen", NULL);
        errno = saved_errno;
    }
    return forget_opened_stream(result);
}

INTERPOSED FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
    if (TATTLE__LIKELY(!capturing) || borrowing_cache() || path == NULL)
        return forget_opened_stream(real.freopen64(path, mode, stream));
    /* It closes the stream's old descriptor (a NULL path keeps it). */
    int fd;
    uint64_t word = take_stream_word(stream, &fd);
    FILE *result = real.freopen64(path, mode, stream);
    if (((word >> 1) & 0x7fu) != 0) {
        int saved_errno = errno;
        record_endpoint_event(fd, word, "freopen64", NULL);
        errno = saved_errno;
    }
    return forget_opened_stream(result);
}

INTERPOSED FILE *tmpfile(void)
{
    return forget_opened_stream(real.tmpfile());
}

INTERPOSED FILE *tmpfile64(void)
{
    return forget_opened_stream(real.tmpfile64());
}

INTERPOSED int mkstemp(char *template)
{
    return forget_created(real.mkstemp(template));
}

INTERPOSED int mkstemp64(char *template)
{
    return forget_created(real.mkstemp64(template));
}

INTERPOSED int mkostemp(char *template, int flags)
{
    return forget_created(real.mkostemp(template, flags));
}

INTERPOSED int mkostemp64(char *template, int flags)
{
    return forget_created(real.mkostemp64(template, flags));
}

INTERPOSED int dup(int fd)
{
    return forget_created(real.dup(fd));
}

/* The number F_DUPFD and F_DUPFD_CLOEXEC hand out is forgotten like
 * dup's; other commands create none. */
static int forget_fcntl_created(int command, int result)
{
    if (TATTLE__UNLIKELY(capturing) &&
        (command == F_DUPFD || command == F_DUPFD_CLOEXEC))
        return forget_created(result);
    return result;
}

/* fcntl takes its third argument, when there is one, as a pointer or an
 * integer in the same register: passed on as libc itself reads it. */
INTERPOSED int fcntl(int fd, int command, ...)
{
    va_list arguments;
    va_start(arguments, command);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return forget_fcntl_created(command, real.fcntl(fd, command, argument));
}

INTERPOSED int fcntl64(int fd, int command, ...)
{
    va_list arguments;
    va_start(arguments, command);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return forget_fcntl_created(command, real.fcntl64(fd, command, argument));
}

INTERPOSED int pipe(int fds[2])
{
    int result = real.pipe(fds);
    if (TATTLE__UNLIKELY(capturing) && result == 0) {
        forget_own(fds[0]);
        forget_own(fds[1]);
    }
    return result;
}

INTERPOSED int pipe2(int fds[2], int flags)
{
    int result = real.pipe2(fds, flags);
    if (TATTLE__UNLIKELY(capturing) && result == 0) {
        forget_own(fds[0]);
        forget_own(fds[1]);
    }
    return result;
}

INTERPOSED int socket(int domain, int type, int protocol)
{
    return forget_created(real.socket(domain, type, protocol));
}

INTERPOSED int eventfd(unsigned value, int flags)
{
    return forget_created(real.eventfd(value, flags));
}

INTERPOSED int dup2(int old_fd, int new_fd)
{
    int result = real.dup2(old_fd, new_fd);
    if (TATTLE__UNLIKELY(capturing) && result >= 0 && old_fd != new_fd)
        forget_own(new_fd);
    return result;
}

INTERPOSED int dup3(int old_fd, int new_fd, int flags)
{
    int result = real.dup3(old_fd, new_fd, flags);
    if (TATTLE__UNLIKELY(capturing) && result >= 0)
        forget_own(new_fd);
    return result;
}

INTERPOSED int socketpair(int domain, int type, int protocol, int fds[2])
{
    int result = real.socketpair(domain, type, protocol, fds);
    if (TATTLE__UNLIKELY(capturing) && result == 0 &&
        tattle_trace_current == capture_arena && !borrowing_cache()) {
        int saved_errno = errno;
        forget(fds[0]);
        forget(fds[1]);
        uint32_t first = (uint32_t)(lookup(fds[0]) >> 32);
        uint32_t second = (uint32_t)(lookup(fds[1]) >> 32);
        if (first != 0 && second != 0 && first <= TATTLE__MAX_ENDPOINTS &&
            second <= TATTLE__MAX_ENDPOINTS) {
            atomic_store(&capture_arena->endpoints[first - 1].peer, second);
            atomic_store(&capture_arena->endpoints[second - 1].peer, first);
        }
        errno = saved_errno;
    }
    return result;
}
