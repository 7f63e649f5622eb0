/*
 * peek.c — reads what the kernel still holds in the captured endpoints
 * without consuming it, for the snapshot's pending endpoint bytes (SPEC
 * 5a): every descriptor a process holds is matched to the arena's
 * endpoint table by the object's key, and the first bytes waiting in it,
 * with their count, are written into its entry. The freeze reads them
 * back like everything else in the arena: bounded and checked.
 *
 * The test process runs this at its end and from its crash handler, the
 * runner on each halted process of the test before it kills it (at a
 * timeout, or once the test process ended and left others alive; their
 * descriptors fetched with pidfd_getfd): only raw system calls through
 * syscall(2) (the test process's read, recv, close, ioctl, ... may be the
 * capture's or another interposer's, which would record the peek), no
 * malloc, no lock, errno kept. The runner fetches only what /proc/PID/fd
 * says is a pipe, a socket or an eventfd, a queue (its fdinfo's mount is
 * mq_open's) or (statx without sync) a named FIFO: never a file or a
 * device, whose fstat and close could wait on a FUSE daemon the halted
 * test itself serves. Each kernel object is peeked once, whichever
 * descriptor or process shows it first (the bytes are the same); one the
 * test process peeked at its end is kept. At most TATTLE__PEEK_MAX_FDS
 * descriptors are examined, in either process: past them the peek is
 * not whole. An entry's kind is the test's to forge: the descriptor's own
 * type must agree with it before any ioctl or recv is made on it. A scratch
 * pipe for tee(2) is made for each peek and closed after it: one made when
 * tracing starts would be among the descriptors the test process closes behind
 * it (the fork server's, a test's closefrom) and its number could by then be a
 * pipe of the test's own.
 */
#include "tracer/peek.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/child_path.h"

/* How many descriptors one peek examines at most (a test holding half a
 * million would otherwise keep the runner at a timeout that long). */
#define TATTLE__PEEK_MAX_FDS 4096

TATTLE__CHILD_PATH uint64_t tattle__endpoint_key(dev_t device, ino_t inode)
{
    uint64_t key =
        ((uint64_t)device * UINT64_C(0x9E3779B97F4A7C15)) ^ (uint64_t)inode;
    return key != 0 ? key : 1;
}

TATTLE__CHILD_PATH size_t tattle__append_decimal(char *out, size_t size,
                                                 size_t used, uint64_t value)
{
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (count > 0 && used + 1 < size)
        out[used++] = digits[--count];
    out[used] = '\0';
    return used;
}

TATTLE__CHILD_PATH size_t tattle__append_text(char *out, size_t size,
                                              size_t used, const char *text)
{
    while (*text != '\0' && used + 1 < size)
        out[used++] = *text++;
    out[used] = '\0';
    return used;
}

/* The number after `field` in `text` (in `base`), or false when absent. */
static bool fdinfo_number(const char *text, const char *field, unsigned base,
                          uint64_t *value)
{
    const char *found = strstr(text, field);
    if (found == NULL)
        return false;
    found += strlen(field);
    while (*found == ' ' || *found == '\t')
        found++;
    uint64_t number = 0;
    for (;; found++) {
        unsigned digit;
        if (*found >= '0' && *found <= '9')
            digit = (unsigned)(*found - '0');
        else if (base == 16 && *found >= 'a' && *found <= 'f')
            digit = (unsigned)(*found - 'a') + 10;
        else
            break;
        number = number * base + digit;
    }
    *value = number;
    return true;
}

/* The path /proc/`process`/fdinfo/`fd` ("self" when `pid` is 0). */
static void fdinfo_path(char *path, size_t size, pid_t pid, uint64_t fd)
{
    size_t used = tattle__append_text(path, size, 0, "/proc/");
    if (pid == 0)
        used = tattle__append_text(path, size, used, "self");
    else
        used = tattle__append_decimal(path, size, used, (uint64_t)pid);
    used = tattle__append_text(path, size, used, "/fdinfo/");
    tattle__append_decimal(path, size, used, fd);
}

/* The start of the file `path` (a /proc file: never one a test chose),
 * NUL-terminated, into `text` of `size` bytes; false when it could not
 * be read. errno kept. */
static bool read_proc_text(const char *path, char *text, size_t size)
{
    int saved_errno = errno;
    int info = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (info < 0) {
        errno = saved_errno;
        return false;
    }
    ssize_t length = syscall(SYS_read, info, text, size - 1);
    syscall(SYS_close, info);
    errno = saved_errno;
    if (length <= 0)
        return false;
    text[length] = '\0';
    return true;
}

bool tattle__eventfd_info(int fd, uint64_t *id, bool *semaphore,
                          uint64_t *count)
{
    char path[48];
    fdinfo_path(path, sizeof path, 0, (uint64_t)fd);
    char text[512];
    if (!read_proc_text(path, text, sizeof text))
        return false;
    uint64_t found_id, flag = 0, counter = 0;
    if (!fdinfo_number(text, "eventfd-id:", 10, &found_id))
        return false;
    fdinfo_number(text, "eventfd-semaphore:", 10, &flag);
    fdinfo_number(text, "eventfd-count:", 16, &counter);
    if (id != NULL)
        *id = found_id;
    if (semaphore != NULL)
        *semaphore = flag == 1;
    if (count != NULL)
        *count = counter;
    return true;
}

/* What one peek found. */
struct peeked {
    uint64_t bytes;    /* waiting (see tattle__endpoint's kernel_bytes) */
    uint64_t messages; /* a queue's messages, an eventfd's counter */
    unsigned char data[TATTLE__PAYLOAD_MAX];
    uint32_t length; /* of data */
};

/* How many entries of the table a peek looks at: the claimers' count,
 * never more than the table holds (the count is the test's to forge). */
static uint32_t claimed_entries(struct tattle_trace_arena *arena)
{
    uint32_t claimed =
        atomic_load_explicit(&arena->endpoints_claimed, memory_order_acquire);
    return claimed < TATTLE__MAX_ENDPOINTS ? claimed : TATTLE__MAX_ENDPOINTS;
}

/* The entry (index) whose key is `key` among the first `claimed`, or -1.
 * Entries are claimed in order, so the first never claimed (key 0) ends
 * the search: every page past it is one nobody wrote. */
static int find_entry(struct tattle_trace_arena *arena, uint32_t claimed,
                      uint64_t key)
{
    for (uint32_t i = 0; i < claimed; i++) {
        struct tattle__endpoint *entry = &arena->endpoints[i];
        uint64_t seen = atomic_load_explicit(&entry->key, memory_order_acquire);
        if (seen == 0)
            break;
        if (seen == key &&
            atomic_load_explicit(&entry->kind, memory_order_acquire) != 0)
            return (int)i;
    }
    return -1;
}

/* A pipe or FIFO: FIONREAD, then tee(2) of at most `bound` bytes into the
 * scratch pipe (which moves no byte out of the pipe) read back. The write
 * end of a pipe has the count only (tee: EBADF). */
static void peek_pipe(int fd, const int scratch[2], uint32_t bound,
                      struct peeked *out)
{
    int waiting = 0;
    if (syscall(SYS_ioctl, fd, FIONREAD, &waiting) != 0 || waiting <= 0)
        return;
    out->bytes = (uint64_t)waiting;
    if (scratch[0] < 0)
        return;
    size_t want = (size_t)waiting < bound ? (size_t)waiting : bound;
    ssize_t copied =
        syscall(SYS_tee, fd, scratch[1], want, (unsigned)SPLICE_F_NONBLOCK);
    if (copied <= 0)
        return;
    ssize_t got = syscall(SYS_read, scratch[0], out->data, (size_t)copied);
    out->length = got > 0 ? (uint32_t)got : 0;
}

/* A socket: FIONREAD (a datagram socket's first datagram), and for a
 * stream socket the first `bound` bytes with MSG_PEEK|MSG_DONTWAIT,
 * unless SO_PEEK_OFF is set on it (a peek would then move the offset the
 * test's next peek reads at). A datagram socket has the count only: a
 * recv, even a peek, clears a pending error (a queued ICMP refusal on
 * UDP) the test's own next call would have seen. */
static void peek_socket(int fd, bool stream, uint32_t bound, struct peeked *out)
{
    int waiting = 0;
    if (syscall(SYS_ioctl, fd, FIONREAD, &waiting) != 0 || waiting <= 0)
        return;
    out->bytes = (uint64_t)waiting;
    if (!stream)
        return;
    int offset = -1;
    socklen_t size = sizeof offset;
    if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PEEK_OFF, &offset, &size) ==
            0 &&
        offset >= 0)
        return;
    ssize_t got = syscall(SYS_recvfrom, fd, out->data, (size_t)bound,
                          MSG_PEEK | MSG_DONTWAIT, NULL, NULL);
    out->length = got > 0 ? (uint32_t)got : 0;
}

/* Writes a peek into the entry. */
static void record_peek(struct tattle__endpoint *entry,
                        enum tattle__peek_taker taker,
                        const struct peeked *found)
{
    entry->kernel_bytes = found->bytes;
    entry->kernel_messages = found->messages;
    for (uint32_t i = 0; i < found->length; i++)
        entry->peek[i] = found->data[i];
    entry->peek_length = found->length;
    atomic_store_explicit(&entry->peeked, (uint32_t)taker,
                          memory_order_release);
}

/* The type, device and inode of `path` relative to `directory` (with
 * AT_EMPTY_PATH: of the descriptor itself) from the attributes the kernel
 * has cached: no FUSE daemon is asked. */
TATTLE__CHILD_PATH static bool describe(int directory, const char *path,
                                        int flags, unsigned *type,
                                        dev_t *device, uint64_t *inode)
{
    struct statx status;
    if (syscall(SYS_statx, directory, path, flags | AT_STATX_DONT_SYNC,
                (unsigned)(STATX_TYPE | STATX_INO), &status) != 0)
        return false;
    *type = status.stx_mode & S_IFMT;
    *device = makedev(status.stx_dev_major, status.stx_dev_minor);
    *inode = status.stx_ino;
    return true;
}

TATTLE__CHILD_PATH bool tattle__descriptor_identity(int fd, unsigned *type,
                                                    dev_t *device,
                                                    uint64_t *inode)
{
    int saved_errno = errno;
    bool known = describe(fd, "", AT_EMPTY_PATH, type, device, inode);
    errno = saved_errno;
    return known;
}

/* Whether the socket `fd` is of the kind its entry says (the entry is the
 * test's to forge). */
static bool socket_matches(int fd, uint32_t kind)
{
    int type = 0;
    socklen_t size = sizeof type;
    if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0)
        return false;
    return kind == TATTLE__ENDPOINT_STREAM ? type == SOCK_STREAM
                                           : type != SOCK_STREAM;
}

/* Peeks `fd` (a descriptor of the calling process) when it is an
 * endpoint of the arena's table and of the kind its entry says. */
static void peek_descriptor(struct tattle_trace_arena *arena, uint32_t claimed,
                            int fd, const int scratch[2], uint32_t bound,
                            enum tattle__peek_taker taker)
{
    unsigned type;
    dev_t device;
    uint64_t inode;
    if (!tattle__descriptor_identity(fd, &type, &device, &inode))
        return;
    uint64_t key, eventfd_id, counter = 0;
    bool eventfd = false;
    if (type == 0) {
        if (!tattle__eventfd_info(fd, &eventfd_id, NULL, &counter))
            return;
        eventfd = true;
        key = TATTLE__EVENTFD_KEY_TAG ^ eventfd_id;
    } else {
        key = tattle__endpoint_key(device, (ino_t)inode);
    }
    int index = find_entry(arena, claimed, key);
    if (index < 0)
        return;
    struct tattle__endpoint *entry = &arena->endpoints[index];
    /* Each kernel object once: the bytes are the same whichever copy
     * shows them. Kept: what another holder peeked (the test process at
     * its end), and what this peek already read bytes of (another
     * descriptor, or another process, showing only a count, such as a
     * pipe's write end, is peeked again). */
    uint32_t peeked =
        atomic_load_explicit(&entry->peeked, memory_order_acquire);
    if (peeked != TATTLE__PEEK_NONE &&
        (peeked != (uint32_t)taker || entry->peek_length != 0))
        return;
    struct peeked found = {0};
    uint32_t kind = atomic_load_explicit(&entry->kind, memory_order_acquire);
    switch (kind) {
    case TATTLE__ENDPOINT_PIPE:
        if (type != S_IFIFO)
            return;
        peek_pipe(fd, scratch, bound, &found);
        break;
    case TATTLE__ENDPOINT_STREAM:
    case TATTLE__ENDPOINT_DGRAM:
        if (type != S_IFSOCK || !socket_matches(fd, kind))
            return;
        peek_socket(fd, kind == TATTLE__ENDPOINT_STREAM, bound, &found);
        break;
    case TATTLE__ENDPOINT_EVENTFD:
        if (!eventfd)
            return;
        found.messages = counter;
        found.bytes = counter != 0 ? sizeof(uint64_t) : 0;
        break;
    case TATTLE__ENDPOINT_QUEUE: {
        if (type != S_IFREG)
            return;
        struct mq_attr attributes;
        if (syscall(SYS_mq_getsetattr, fd, NULL, &attributes) != 0)
            return;
        found.messages = (uint64_t)attributes.mq_curmsgs;
        break;
    }
    default:
        return;
    }
    record_peek(entry, taker, &found);
}

/* The id of the mount the kernel opens POSIX queues on: mq_open's own
 * mount of the runner's IPC namespace, in no mountinfo (a /dev/mqueue,
 * where one is mounted, is another mount of it, under another id).
 * Learned once from a queue the runner makes and removes at once; 0
 * while not learned (a probe that failed is not kept). */
static _Atomic uint64_t queue_mount_learned;

static uint64_t queue_mount_id(void)
{
    uint64_t id =
        atomic_load_explicit(&queue_mount_learned, memory_order_acquire);
    if (id != 0)
        return id;
    struct timespec now = {0};
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
    char name[64]; /* the system call takes it without the leading '/' */
    size_t used = tattle__append_text(name, sizeof name, 0, "tattle-probe-");
    used = tattle__append_decimal(name, sizeof name, used,
                                  (uint64_t)syscall(SYS_getpid));
    used = tattle__append_text(name, sizeof name, used, "-");
    tattle__append_decimal(name, sizeof name, used, (uint64_t)now.tv_nsec);
    int saved_errno = errno;
    /* The smallest queue there is, so that a test that used up the
     * user's queue allowance (RLIMIT_MSGQUEUE) leaves room for it. */
    struct mq_attr smallest = {.mq_maxmsg = 1, .mq_msgsize = 1};
    int queue =
        (int)syscall(SYS_mq_open, name, O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC,
                     0600, &smallest);
    id = UINT64_MAX;
    if (queue >= 0) {
        syscall(SYS_mq_unlink, name);
        char path[48];
        fdinfo_path(path, sizeof path, 0, (uint64_t)queue);
        char text[512];
        uint64_t mount;
        if (read_proc_text(path, text, sizeof text) &&
            fdinfo_number(text, "mnt_id:", 10, &mount) && mount != 0)
            id = mount;
        syscall(SYS_close, queue);
    }
    errno = saved_errno;
    /* A probe that failed is tried again at the next queue: the test may
     * have made it fail (queues_max reached) for a moment. */
    if (id != UINT64_MAX)
        atomic_store_explicit(&queue_mount_learned, id, memory_order_release);
    return id;
}

/* Whether descriptor `name` of process `pid` is a POSIX queue: its
 * fdinfo's mnt_id is mq_open's mount. Nothing is opened or stat'ed
 * through the descriptor's own path, which the test chose (a queue's
 * /proc link is a path like a file's). A queue of another IPC namespace
 * is not told from a file: it keeps its count alone. */
static bool on_queue_mount(pid_t pid, const char *name)
{
    uint64_t fd = 0;
    for (const char *digit = name; *digit >= '0' && *digit <= '9'; digit++)
        fd = fd * 10 + (uint64_t)(*digit - '0');
    char path[64];
    fdinfo_path(path, sizeof path, pid, fd);
    char text[512];
    uint64_t mount;
    return read_proc_text(path, text, sizeof text) &&
           fdinfo_number(text, "mnt_id:", 10, &mount) &&
           mount == queue_mount_id();
}

/* Whether the runner may fetch descriptor `name` of process `pid`: a
 * pipe, a socket or an eventfd by its /proc link, a queue by its mount,
 * or a named FIFO by its cached type. Never a file or a device: fetched,
 * its fstat and close could wait on a FUSE daemon that is a halted
 * thread of the test. */
static bool runner_may_fetch(int directory, const char *name, pid_t pid)
{
    char link[64];
    ssize_t length =
        syscall(SYS_readlinkat, directory, name, link, sizeof link - 1);
    if (length <= 0)
        return false;
    link[length] = '\0';
    if (strncmp(link, "pipe:[", 6) == 0 || strncmp(link, "socket:[", 8) == 0 ||
        strcmp(link, "anon_inode:[eventfd]") == 0)
        return true;
    if (link[0] != '/')
        return false;
    if (on_queue_mount(pid, name))
        return true;
    unsigned type;
    dev_t device;
    uint64_t inode;
    return describe(directory, name, 0, &type, &device, &inode) &&
           type == S_IFIFO;
}

/* The directory entries getdents64 returns. */
struct directory_entry {
    uint64_t inode;
    int64_t offset;
    unsigned short length;
    unsigned char type;
    char name[];
};

TATTLE__CHILD_PATH bool tattle__peek_held(struct tattle_trace_arena *arena,
                                          int pidfd, pid_t pid,
                                          enum tattle__peek_taker taker)
{
    /* A test that captured no endpoint has nothing to peek: its
     * descriptors are not even listed. */
    uint32_t claimed = claimed_entries(arena);
    if (claimed == 0)
        return true;
    int saved_errno = errno;
    char path[48];
    size_t used = tattle__append_text(path, sizeof path, 0, "/proc/");
    if (pidfd < 0)
        used = tattle__append_text(path, sizeof path, used, "self");
    else
        used = tattle__append_decimal(path, sizeof path, used, (uint64_t)pid);
    tattle__append_text(path, sizeof path, used, "/fd");
    int directory = (int)syscall(SYS_openat, AT_FDCWD, path,
                                 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0) {
        errno = saved_errno;
        return false;
    }
    int scratch[2] = {-1, -1};
    if (syscall(SYS_pipe2, scratch, O_CLOEXEC | O_NONBLOCK) != 0)
        scratch[0] = scratch[1] = -1;
    uint32_t bound = arena->payload_bytes < TATTLE__PAYLOAD_MAX
                         ? arena->payload_bytes
                         : TATTLE__PAYLOAD_MAX;
    bool whole = true;
    unsigned examined = 0;
    _Alignas(struct directory_entry) char listing[1024];
    for (;;) {
        long got = syscall(SYS_getdents64, directory, listing, sizeof listing);
        if (got <= 0) {
            whole = got == 0;
            break;
        }
        for (long at = 0; at < got;) {
            const struct directory_entry *item =
                (const struct directory_entry *)(listing + at);
            at += item->length;
            uint64_t number = 0;
            const char *digit = item->name;
            if (*digit < '0' || *digit > '9')
                continue; /* "." and ".." */
            for (; *digit >= '0' && *digit <= '9'; digit++)
                number = number * 10 + (uint64_t)(*digit - '0');
            if (number > INT32_MAX)
                continue;
            if (++examined > TATTLE__PEEK_MAX_FDS) {
                whole = false;
                goto listed;
            }
            int fd = (int)number;
            if (pidfd < 0) {
                if (fd != directory && fd != scratch[0] && fd != scratch[1])
                    peek_descriptor(arena, claimed, fd, scratch, bound, taker);
                continue;
            }
            if (!runner_may_fetch(directory, item->name, pid))
                continue;
            int fetched = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
            if (fetched < 0) {
                if (errno != EBADF) /* closed since listed: nothing held */
                    whole = false;
                continue;
            }
            peek_descriptor(arena, claimed, fetched, scratch, bound, taker);
            syscall(SYS_close, fetched);
        }
    }
listed:
    syscall(SYS_close, directory);
    if (scratch[0] >= 0) {
        syscall(SYS_close, scratch[0]);
        syscall(SYS_close, scratch[1]);
    }
    errno = saved_errno;
    return whole;
}
