/*
 * fixture_hostile.c — tests that attack the runner on purpose, for
 * test_hostile.py: they overwrite the shared memory they inherited (the
 * result slot, trace arenas, a neighbour's slot), write to, truncate, seek
 * and read the descriptors they inherited, leave processes behind that
 * escape their test (CLONE_PARENT, fork hopping, double fork, setsid),
 * wait inside their body for the driver to kill or signal the runner,
 * time out or crash inside a library whose debug file is a FIFO, and time
 * out with tens of thousands of file-backed mappings.
 *
 * Nothing here knows how tattle lays out its memory. Shared memory is found
 * through /proc/self/maps: every writable shared mapping ('w' and 's' in
 * the permissions) whose name holds "tattle-trace" is a trace arena, every
 * other one is runner state (this file creates no shared mapping of its
 * own). Inherited descriptors are found through /proc/self/fd: every
 * descriptor >= 3 open when the body starts. The damage is chosen by the
 * driver through the environment:
 *
 *   HOSTILE_FILL    ff | zeros | huge | near-end | random:SEED
 *                   (huge: every 32-bit word 0x7fffffff; near-end: every
 *                   64-bit word the mapping's length minus 64, an offset
 *                   that looks valid but leaves no room after it)
 *   HOSTILE_REGION  all | head:BYTES (the first BYTES of each mapping)
 *   HOSTILE_FDS     comma list of read, block (clear O_NONBLOCK), truncate,
 *                   seek, write
 *   HOSTILE_ATTACK  comma list of read, write, slots-zeros, slots-ff,
 *                   arenas-ff (what neighbour/attacker does)
 *   HOSTILE_WAIT_MS the bound of every wait (the driver scales it)
 *   HOSTILE_LIBRARY the copy of hostile_library.c's library that the
 *                   debuglink tests load
 *   HOSTILE_LIBRARY_SWAP a FIFO they rename over that copy once loaded
 *                   (and beside it, one named as the maps then name it)
 *   HOSTILE_MAPPINGS how many mappings mappings/times_out_with_many makes
 *   HOSTILE_MAPPED_FILES how many files they alternate between (1 or 2)
 *   HOSTILE_MAPPED_EXEC 1: those mappings are executable as well
 *
 * Tests talk to the driver and to each other through files in the run's
 * working directory (handshakes, pid files "PID STARTTIME"), never by
 * sleeping. Lines the driver checks carry a marker comment.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

/* ---- files in the working directory: handshakes and pid files ---- */

static long wait_ms(void)
{
    const char *text = getenv("HOSTILE_WAIT_MS");
    long value = text ? strtol(text, NULL, 10) : 0;
    return value > 0 ? value : 10000;
}

static uint64_t now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

static void pause_briefly(void)
{
    struct timespec step = {0, 1000000}; /* between two checks of a condition */
    nanosleep(&step, NULL);
}

static bool file_exists(const char *name)
{
    return access(name, F_OK) == 0;
}

/* Writes `text` to `name` whole or not at all (temporary file, rename),
 * with system calls only: escaped processes use it too. */
static void write_file(const char *name, const char *text)
{
    char temporary[256];
    snprintf(temporary, sizeof temporary, "%s.%d.tmp", name, (int)getpid());
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    size_t length = strlen(text);
    ssize_t written = write(fd, text, length);
    close(fd);
    if (written == (ssize_t)length)
        rename(temporary, name);
    else
        unlink(temporary);
}

static void touch(const char *name)
{
    write_file(name, "");
}

static bool wait_for_file(const char *name, long bound_ms)
{
    uint64_t deadline = now_ms() + (uint64_t)bound_ms;
    while (!file_exists(name)) {
        if (now_ms() >= deadline)
            return false;
        pause_briefly();
    }
    return true;
}

/* The start time of `pid` (clock ticks after boot), and whether it runs:
 * a zombie or a dead process does not. */
static bool process_running(pid_t pid, unsigned long long *start_time)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    char *after_name = strrchr(text, ')');
    if (!after_name)
        return false;
    char state = after_name[2];
    /* Field 22 is the start time; the state is field 3. */
    char *field = after_name + 2;
    for (int i = 3; i < 22 && field; i++) {
        field = strchr(field, ' ');
        if (field)
            field++;
    }
    if (start_time)
        *start_time = field ? strtoull(field, NULL, 10) : 0;
    return state != 'Z' && state != 'X' && state != 'x';
}

static void write_pid_file(const char *name)
{
    unsigned long long start_time = 0;
    process_running(getpid(), &start_time);
    char text[64];
    snprintf(text, sizeof text, "%d %llu\n", (int)getpid(), start_time);
    write_file(name, text);
}

/* Waits (bounded) until the test's stop file appears: how processes
 * linger for the driver to look at them. */
static void linger(const char *stop_file, long bound_ms)
{
    wait_for_file(stop_file, bound_ms);
}

/* ---- what the test can reach: shared mappings and descriptors ---- */

struct mapping {
    unsigned char *start;
    size_t length;
    bool trace_arena;
};

enum { MAPPINGS_MAX = 64, DESCRIPTORS_MAX = 256 };

/* The writable shared mappings of this process, from /proc/self/maps. */
static size_t shared_mappings(struct mapping *out, size_t max)
{
    size_t count = 0;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps)
        return 0;
    char line[1024];
    while (count < max && fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char permissions[8] = {0};
        int name_at = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end,
                   permissions, &name_at) < 3)
            continue;
        if (permissions[1] != 'w' || permissions[3] != 's')
            continue;
        out[count++] = (struct mapping){
            .start = (unsigned char *)start,
            .length = end - start,
            .trace_arena = strstr(line + name_at, "tattle-trace") != NULL};
    }
    fclose(maps);
    return count;
}

/* The descriptors >= 3 this process holds, from /proc/self/fd. */
static size_t inherited_descriptors(int *out, size_t max)
{
    size_t count = 0;
    DIR *directory = opendir("/proc/self/fd");
    if (!directory)
        return 0;
    int own = dirfd(directory);
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL && count < max) {
        if (entry->d_name[0] == '.')
            continue;
        int fd = atoi(entry->d_name);
        if (fd >= 3 && fd != own)
            out[count++] = fd;
    }
    closedir(directory);
    return count;
}

/* ---- hostile bytes ---- */

static uint64_t random_state;

static uint64_t random_next(void)
{
    /* xorshift64*: the same bytes for the same seed, every run. */
    random_state ^= random_state >> 12;
    random_state ^= random_state << 25;
    random_state ^= random_state >> 27;
    return random_state * 0x2545F4914F6CDD1DULL;
}

/* Fills `length` bytes at `start` (part of a mapping of `mapping_length`
 * bytes) with `pattern`. Returns false for an unknown pattern. */
static bool hostile_fill(unsigned char *start, size_t length,
                         size_t mapping_length, const char *pattern)
{
    if (strcmp(pattern, "ff") == 0) {
        memset(start, 0xff, length);
    } else if (strcmp(pattern, "zeros") == 0) {
        memset(start, 0, length);
    } else if (strcmp(pattern, "huge") == 0) {
        uint32_t word = 0x7fffffffu;
        for (size_t i = 0; i + sizeof word <= length; i += sizeof word)
            memcpy(start + i, &word, sizeof word);
    } else if (strcmp(pattern, "near-end") == 0) {
        uint64_t word = mapping_length - 64;
        for (size_t i = 0; i + sizeof word <= length; i += sizeof word)
            memcpy(start + i, &word, sizeof word);
    } else if (strncmp(pattern, "random:", 7) == 0) {
        random_state =
            strtoull(pattern + 7, NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
        for (size_t i = 0; i + 8 <= length; i += 8) {
            uint64_t word = random_next();
            memcpy(start + i, &word, sizeof word);
        }
    } else {
        return false;
    }
    return true;
}

static size_t region_length(const struct mapping *mapping)
{
    const char *region = getenv("HOSTILE_REGION");
    if (region && strncmp(region, "head:", 5) == 0) {
        size_t head = strtoull(region + 5, NULL, 10);
        return head < mapping->length ? head : mapping->length;
    }
    return mapping->length;
}

/* Fills every shared mapping of one kind (trace arenas or runner state)
 * with `pattern` over HOSTILE_REGION; writes what it did to `log_file`.
 * Returns the number of mappings filled, or -1 for an unknown pattern. */
static int fill_mappings(bool trace_arenas, const char *pattern,
                         const char *log_file)
{
    struct mapping mappings[MAPPINGS_MAX];
    size_t count = shared_mappings(mappings, MAPPINGS_MAX);
    char log[4096];
    size_t used = 0;
    int filled = 0;
    for (size_t i = 0; i < count; i++) {
        if (mappings[i].trace_arena != trace_arenas)
            continue;
        size_t length = region_length(&mappings[i]);
        if (!hostile_fill(mappings[i].start, length, mappings[i].length,
                          pattern))
            return -1;
        filled++;
        if (used < sizeof log)
            used += (size_t)snprintf(log + used, sizeof log - used,
                                     "filled %zu of %zu bytes with %s\n",
                                     length, mappings[i].length, pattern);
    }
    if (used < sizeof log)
        snprintf(log + used, sizeof log - used, "mappings filled: %d\n",
                 filled);
    if (log_file)
        write_file(log_file, log);
    return filled;
}

static const char *fill_pattern(void)
{
    const char *pattern = getenv("HOSTILE_FILL");
    return pattern ? pattern : "ff";
}

static bool word_in_list(const char *list, const char *word)
{
    size_t length = strlen(word);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == length && strncmp(p, word, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

/* Bytes no report may ever show as another test's: a marker, a NUL,
 * invalid UTF-8, half a JSON object. */
static const char garbage[] = "HOSTILE-GARBAGE\x00\xff\xfe{\"event\":\n";

/* ---- before: the tests every run starts with ---- */

TEST(before, passes)
{
    printf("before passes\n");
}

/* ---- 1. the result slot ---- */

/* Overwrites every runner-state mapping (its own result slot among them)
 * with HOSTILE_FILL, then ends as if nothing happened. */
TEST(slot, overwrite)
{
    ASSERT(fill_mappings(false, fill_pattern(), "slot.filled") >= 0,
           "unknown HOSTILE_FILL %s", fill_pattern());
}

/* Records a failure, then overwrites its message and everything after it
 * up to the end of the slot's mapping with 'A', and every other runner
 * state it can reach (another job's slot may lie right after its own)
 * too: no terminator anywhere. Writes to slot.unterminated how many bytes
 * lay between the message and the end of its mapping. */
TEST(slot, unterminated)
{
    static const char marker[] = "UNTERMINATED-MARKER-";
    EXPECT(0, "%s%s", marker, "the rest of the message");
    struct mapping mappings[MAPPINGS_MAX];
    size_t count = shared_mappings(mappings, MAPPINGS_MAX);
    size_t to_end = 0;
    for (size_t i = 0; i < count; i++) {
        if (mappings[i].trace_arena)
            continue;
        unsigned char *found = memmem(mappings[i].start, mappings[i].length,
                                      marker, sizeof marker - 1);
        if (found && to_end == 0) {
            to_end = (size_t)(mappings[i].start + mappings[i].length - found);
            memset(found, 'A', to_end);
        } else {
            memset(mappings[i].start, 'A', mappings[i].length);
        }
    }
    char text[64];
    snprintf(text, sizeof text, "%zu\n", to_end);
    write_file("slot.unterminated", to_end ? text : "not found\n");
}

/* ---- 2. the trace arena ---- */

/* Records two events, then overwrites its own arena (every trace arena
 * it can reach) with HOSTILE_FILL over HOSTILE_REGION. */
TEST(arena, corrupted, .tags = "trace_messages")
{
    tattle_trace_event(1, "arena", "peer", "arena-1", "before the damage");
    tattle_trace_event(1, "arena", "peer", "arena-2", "before the damage");
    ASSERT(fill_mappings(true, fill_pattern(), "arena.filled") >= 0,
           "unknown HOSTILE_FILL %s", fill_pattern());
}

/* The same with a large cap: a ring that looks valid but starts near the
 * end of the arena then reaches far beyond it. */
TEST(arena, corrupted_large_cap, .tags = "trace_messages", .trace_cap = 20000)
{
    tattle_trace_event(1, "arena", "peer", "arena-1", "before the damage");
    tattle_trace_event(1, "arena", "peer", "arena-2", "before the damage");
    ASSERT(fill_mappings(true, fill_pattern(), "arena.filled") >= 0,
           "unknown HOSTILE_FILL %s", fill_pattern());
}

/* Records two events, then cuts its arena's file to nothing: through
 * every descriptor it holds on a memfd named tattle-trace, and through
 * /proc/self/map_files for each mapping of one (open to root). Reading a
 * mapping past its file's end is SIGBUS, in the runner too. */
TEST(arena, truncated, .tags = "trace_messages")
{
    tattle_trace_event(1, "arena", "peer", "arena-1", "before the damage");
    tattle_trace_event(1, "arena", "peer", "arena-2", "before the damage");
    char log[4096];
    size_t used = 0;
    int found = 0;
    DIR *directory = opendir("/proc/self/fd");
    ASSERT_NOT_NULL(directory);
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        char path[300], target[256] = {0};
        snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
        if (readlink(path, target, sizeof target - 1) < 0 ||
            !strstr(target, "tattle-trace"))
            continue;
        found++;
        int fd = atoi(entry->d_name);
        int rc = ftruncate(fd, 0) == 0 ? 0 : errno;
        if (used < sizeof log)
            used += (size_t)snprintf(log + used, sizeof log - used,
                                     "fd %d (%s): ftruncate %s\n", fd, target,
                                     rc ? strerror(rc) : "done");
    }
    closedir(directory);
    FILE *maps = fopen("/proc/self/maps", "r");
    ASSERT_NOT_NULL(maps);
    char line[512];
    while (fgets(line, sizeof line, maps)) {
        if (!strstr(line, "tattle-trace"))
            continue;
        char range[128] = {0};
        if (sscanf(line, "%127s", range) != 1)
            continue;
        char path[200];
        snprintf(path, sizeof path, "/proc/self/map_files/%s", range);
        int fd = open(path, O_RDWR);
        int rc = fd < 0 ? errno : (ftruncate(fd, 0) == 0 ? 0 : errno);
        if (fd >= 0)
            close(fd);
        found++;
        if (used < sizeof log)
            used += (size_t)snprintf(log + used, sizeof log - used,
                                     "map %s: ftruncate %s\n", range,
                                     rc ? strerror(rc) : "done");
    }
    fclose(maps);
    if (used < sizeof log)
        snprintf(log + used, sizeof log - used, "arena files found: %d\n",
                 found);
    write_file("arena.truncated", log);
}

/* ---- 3. inherited descriptors ---- */

/* Does HOSTILE_FDS to every descriptor it inherited: reads what is there
 * (never blocking), makes it blocking, truncates it to 0, seeks to 1 MiB,
 * writes garbage. */
TEST(fds, hostile)
{
    const char *what = getenv("HOSTILE_FDS");
    int fds[DESCRIPTORS_MAX];
    size_t count = inherited_descriptors(fds, DESCRIPTORS_MAX);
    char log[8192];
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        int fd = fds[i];
        long wrote = -2, truncated = -2, sought = -2, read_bytes = -2,
             blocked = -2;
        if (word_in_list(what, "read")) {
            read_bytes = 0;
            char buffer[65536];
            struct pollfd ready = {fd, POLLIN, 0};
            while (poll(&ready, 1, 0) == 1 && (ready.revents & POLLIN)) {
                ssize_t n = read(fd, buffer, sizeof buffer);
                if (n <= 0)
                    break;
                read_bytes += n;
                if (read_bytes > (1 << 24))
                    break;
            }
        }
        if (word_in_list(what, "block")) {
            /* The descriptor's flags are the runner's too: a read end that
             * blocks can hang a runner that expects EAGAIN. */
            int flags = fcntl(fd, F_GETFL);
            blocked =
                flags < 0 ? -errno : fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        }
        if (word_in_list(what, "truncate"))
            truncated = ftruncate(fd, 0) == 0 ? 0 : -errno;
        if (word_in_list(what, "seek"))
            sought = (long)lseek(fd, 1 << 20, SEEK_SET);
        if (word_in_list(what, "write")) {
            struct pollfd ready = {fd, POLLOUT, 0};
            /* A full pipe would block: only what fits goes in. */
            if (poll(&ready, 1, 0) == 1 && (ready.revents & POLLOUT))
                wrote = (long)write(fd, garbage, sizeof garbage - 1);
        }
        char target[256] = {0}, path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n < 0)
            target[0] = '\0';
        if (used < sizeof log)
            used += (size_t)snprintf(
                log + used, sizeof log - used,
                "fd %d (%s): read %ld, block %ld, truncate %ld, "
                "seek %ld, write %ld\n",
                fd, target, read_bytes, blocked, truncated, sought, wrote);
    }
    write_file("fds.log", used ? log : "no inherited descriptor\n");
}

/* ---- 4. neighbours at -j2 ---- */

enum { VICTIM_LINES_MAX = 1000 };

/* Fails, prints, records two events; then, while the attacker is at
 * work, prints more lines (until the attacker stole some output when it
 * reads pipes); waits for the attacker to finish. */
TEST(neighbour, victim, .tags = "trace_messages")
{
    const char *attack = getenv("HOSTILE_ATTACK");
    tattle_trace_event(1, "victim", "peer", "victim-1", "own event");
    tattle_trace_event(1, "victim", "peer", "victim-2", "own event");
    EXPECT(0, "victim failure"); /* @victim */
    printf("victim first line\n");
    touch("victim.started");
    EXPECT(wait_for_file("attacker.reading", wait_ms()),
           "the attacker never started: the two tests did not overlap");
    int lines = 0;
    bool until_stolen = word_in_list(attack, "read");
    do {
        printf("victim line %04d\n", lines++);
    } while (until_stolen && lines < VICTIM_LINES_MAX &&
             !file_exists("attacker.stole"));
    char text[32];
    snprintf(text, sizeof text, "%d\n", lines);
    write_file("victim.lines", text);
    touch("victim.printed");
    EXPECT(wait_for_file("attacker.done", wait_ms()),
           "the attacker never finished");
}

/* Waits for the victim, then attacks everything it can reach: reads
 * every inherited descriptor while the victim prints, writes garbage to
 * them, fills runner state and trace arenas. */
TEST(neighbour, attacker)
{
    const char *attack = getenv("HOSTILE_ATTACK");
    if (!wait_for_file("victim.started", wait_ms())) {
        touch("attacker.missed");
        FAIL("the victim never started: the two tests did not overlap");
    }
    int fds[DESCRIPTORS_MAX];
    size_t count = inherited_descriptors(fds, DESCRIPTORS_MAX);
    touch("attacker.reading");
    long stolen = 0;
    if (word_in_list(attack, "read")) {
        /* Spins over every pipe it inherited while the victim prints, to
         * be first to read what lands in one. */
        int pipes[DESCRIPTORS_MAX];
        size_t pipe_count = 0;
        for (size_t i = 0; i < count; i++) {
            struct stat status;
            if (fstat(fds[i], &status) == 0 && S_ISFIFO(status.st_mode))
                pipes[pipe_count++] = fds[i];
        }
        uint64_t deadline = now_ms() + (uint64_t)wait_ms();
        for (unsigned round = 0;; round++) {
            if ((round & 255) == 0 &&
                (file_exists("victim.printed") || now_ms() >= deadline))
                break;
            for (size_t i = 0; i < pipe_count; i++) {
                struct pollfd ready = {pipes[i], POLLIN, 0};
                if (poll(&ready, 1, 0) != 1 || !(ready.revents & POLLIN))
                    continue;
                char buffer[4096];
                ssize_t n = read(pipes[i], buffer, sizeof buffer);
                if (n > 0 && stolen == 0)
                    touch("attacker.stole");
                if (n > 0)
                    stolen += n;
            }
        }
    }
    if (word_in_list(attack, "write"))
        for (size_t i = 0; i < count; i++) {
            struct pollfd ready = {fds[i], POLLOUT, 0};
            if (poll(&ready, 1, 0) == 1 && (ready.revents & POLLOUT)) {
                ssize_t ignored = write(fds[i], garbage, sizeof garbage - 1);
                (void)ignored;
            }
        }
    if (word_in_list(attack, "slots-zeros"))
        fill_mappings(false, "zeros", NULL);
    if (word_in_list(attack, "slots-ff"))
        fill_mappings(false, "ff", NULL);
    if (word_in_list(attack, "arenas-ff"))
        fill_mappings(true, "ff", NULL);
    char text[64];
    snprintf(text, sizeof text, "%ld\n", stolen);
    write_file("attacker.stolen", text);
    touch("attacker.done");
}

/* ---- 5. processes that escape their test ---- */

/* Every escaped process holds a shared lock on escapees.lock (the
 * descriptor passes down every fork of the hopper): whoever gets the lock
 * exclusively knows that none of them runs any more, with no race on pids
 * that change at every hop. */
static void hold_lock(const char *name)
{
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        flock(fd, LOCK_SH); /* held until every holder of fd is gone */
}

/* Whether some process still holds a lock taken by hold_lock(). */
static bool lock_held(const char *name)
{
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_EX | LOCK_NB) != 0;
    close(fd);
    return held;
}

/* What every escaped process does once it runs on its own: waits for the
 * next test to start, then prints into the output it inherited, zeroes
 * the runner state it can reach (the next test's result slot), and
 * lingers until the driver says stop. A process that dies with its test
 * does none of it. */
static _Noreturn void escapee(const char *style)
{
    char name[128];
    snprintf(name, sizeof name, "escapee.%s.pid", style);
    write_pid_file(name);
    if (wait_for_file("next.started", wait_ms())) {
        snprintf(name, sizeof name, "escapee.%s.outlived", style);
        touch(name);
        char text[128];
        int length =
            snprintf(text, sizeof text, "ESCAPEE %s printed this\n", style);
        ssize_t ignored = write(STDOUT_FILENO, text, (size_t)length);
        ignored = write(STDERR_FILENO, text, (size_t)length);
        (void)ignored;
        fill_mappings(false, "zeros", NULL);
        snprintf(name, sizeof name, "escapee.%s.done", style);
        touch(name);
    }
    linger("escapees.stop", 3 * wait_ms());
    _exit(0);
}

static _Noreturn void start_escapee(const char *style)
{
    hold_lock("escapees.lock");
    escapee(style);
}

/* Writes the pid of the server the test was forked from into `name`:
 * which job server ran it. */
static void note_server(const char *name)
{
    char text[32];
    snprintf(text, sizeof text, "%d\n", (int)getppid());
    write_file(name, text);
}

/* Run at -j2 before an escape test (registered first, it takes the first
 * job): holds that job until escape/next has started, so that the escape
 * test and escape/next run one after the other in the second job (on two
 * processors its server is not the first job's), while this job's server
 * has a test. */
TEST(escape, beside)
{
    note_server("beside.server");
    ASSERT(wait_for_file("next.started", wait_ms()),
           "escape/next never started");
}

static char clone_stack[256 * 1024];

static int clone_parent_entry(void *argument)
{
    (void)argument;
    start_escapee("clone_parent");
}

static void wait_until_running(const char *style)
{
    char name[128];
    snprintf(name, sizeof name, "escapee.%s.pid", style);
    ASSERT(wait_for_file(name, wait_ms()), "the %s process never started",
           style);
}

/* A child whose parent is the runner, not the test. */
TEST(escape, clone_parent)
{
    note_server("escape.server");
    pid_t pid = clone(clone_parent_entry, clone_stack + sizeof clone_stack,
                      CLONE_PARENT | SIGCHLD, NULL);
    ASSERT(pid > 0, "clone: %s", strerror(errno));
    wait_until_running("clone_parent");
}

/* A process that keeps forking and letting its parent exit, so it has a
 * new pid every moment, until the next test started. The test ends only
 * after the hopper made HOPS_BEFORE_END hops: the test process then has
 * as many zombie children, and a sweep that walks them gives the hopper
 * time to move on. */
enum { HOPS_BEFORE_END = 500 };

TEST(escape, fork_hopper)
{
    note_server("escape.server");
    pid_t pid = fork();
    ASSERT(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        hold_lock("escapees.lock");
        uint64_t deadline = now_ms() + (uint64_t)wait_ms();
        for (long hops = 0; hops < 1000000 && now_ms() < deadline; hops++) {
            if (hops == 0)
                write_pid_file(
                    "escapee.fork_hopper.pid"); /* escapee() writes the last */
            if (hops == HOPS_BEFORE_END)
                touch("escapee.fork_hopper.hopping");
            if (file_exists("next.started"))
                break;
            pid_t next = fork();
            if (next > 0)
                _exit(0);
            if (next < 0)
                break;
        }
        escapee("fork_hopper");
    }
    ASSERT(wait_for_file("escapee.fork_hopper.hopping", wait_ms()),
           "the hopper did not make %d hops", (int)HOPS_BEFORE_END);
}

/* A grandchild whose parent exited at once. */
TEST(escape, double_fork)
{
    note_server("escape.server");
    pid_t pid = fork();
    ASSERT(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (fork() == 0)
            start_escapee("double_fork");
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    wait_until_running("double_fork");
}

/* Leaves the escaping process `style` running as a grandchild in a
 * session and process group of its own. */
static void leave_setsid_grandchild(const char *style)
{
    note_server("escape.server");
    pid_t pid = fork();
    ASSERT(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        setsid();
        if (fork() == 0)
            start_escapee(style);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    wait_until_running(style);
}

TEST(escape, setsid_grandchild)
{
    leave_setsid_grandchild("setsid_grandchild");
}

/* A test of a suite with before_all leaves a setsid grandchild behind and
 * kills its suite server, which the test dies with: the grandchild is
 * then the fork server's child, not the dead suite server's. */
static void escape_suite_before_all(void)
{
}

SUITE(escape_suite, .before_all = escape_suite_before_all);

TEST(escape_suite, orphan_of_a_dead_server)
{
    leave_setsid_grandchild("suite_orphan");
    kill(getppid(), SIGKILL);
    for (;;)
        pause(); /* its parent-death signal ends it */
}

/* The test after an escape test: fails and prints on its own; notes
 * whether an escaped process still runs when it starts; then gives them
 * the time to do their damage (until each is done, or none runs). */
TEST(escape, next)
{
    EXPECT(0, "next failure"); /* @next */
    printf("next output\n");
    if (lock_held("escapees.lock"))
        touch("next.saw_alive");
    touch("next.started");
    static const char *const styles[] = {"clone_parent", "fork_hopper",
                                         "double_fork", "setsid_grandchild",
                                         "suite_orphan"};
    uint64_t deadline = now_ms() + (uint64_t)wait_ms();
    for (;;) {
        bool all_done = true;
        for (size_t i = 0; i < sizeof styles / sizeof *styles; i++) {
            char pid_name[128], done_name[128];
            snprintf(pid_name, sizeof pid_name, "escapee.%s.pid", styles[i]);
            snprintf(done_name, sizeof done_name, "escapee.%s.done", styles[i]);
            if (file_exists(pid_name) && !file_exists(done_name))
                all_done = false;
        }
        if (all_done || !lock_held("escapees.lock") || now_ms() >= deadline)
            break;
        pause_briefly();
    }
}

/* ---- 6. pooled trace arenas ---- */

/* Records 48 events into its arena and passes. */
TEST(pool, earlier_traced, .tags = "trace_messages")
{
    for (int i = 0; i < 48; i++)
        tattle_trace_event(1, "earlier", "peer", "earlier", "event %d", i);
}

/* Untraced: overwrites every trace arena it can reach with HOSTILE_FILL
 * over HOSTILE_REGION (zeros over the head keep the rings' contents). */
TEST(pool, untraced_writer)
{
    ASSERT(fill_mappings(true, fill_pattern(), "pool.filled") >= 0,
           "unknown HOSTILE_FILL %s", fill_pattern());
}

/* Records exactly three events and fails, so its trace is reported. */
TEST(pool, later_traced, .tags = "trace_messages")
{
    for (int i = 1; i <= 3; i++)
        tattle_trace_event(1, "later", "peer", "later", "own event %d", i);
    FAIL("later traced failure"); /* @later */
}

/* ---- 9. the runner killed or signalled from outside ---- */

static _Noreturn void start_worker(const char *kind)
{
    char name[128];
    snprintf(name, sizeof name, "worker.%s.pid", kind);
    write_pid_file(name);
    linger("workers.stop", 6 * wait_ms());
    _exit(0);
}

static int clone_worker_entry(void *argument)
{
    (void)argument;
    start_worker("clone_parent");
}

/* Starts workers of every kind (a child, a grandchild, a setsid
 * grandchild, a CLONE_PARENT child), says it is inside its body once they
 * all run, and waits for the runner to be killed. */
TEST(killed, worker)
{
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0)
        start_worker("child");
    pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        if (fork() == 0)
            start_worker("grandchild");
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        setsid();
        if (fork() == 0)
            start_worker("setsid_grandchild");
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    pid = clone(clone_worker_entry, clone_stack + sizeof clone_stack,
                CLONE_PARENT | SIGCHLD, NULL);
    ASSERT(pid > 0, "clone: %s", strerror(errno));
    static const char *const kinds[] = {"child", "grandchild",
                                        "setsid_grandchild", "clone_parent"};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        char name[128];
        snprintf(name, sizeof name, "worker.%s.pid", kinds[i]);
        ASSERT(wait_for_file(name, wait_ms()), "worker %s never started",
               kinds[i]);
    }
    write_pid_file("worker.test.pid");
    touch("inside.body");
    linger("workers.stop", 6 * wait_ms());
    FAIL("the runner was never killed");
}

TEST(hangup, quick)
{
    printf("quick done\n");
}

/* Says it is inside its body, then waits for the runner's signal. */
TEST(hangup, sleeps)
{
    write_pid_file("sleeper.pid");
    touch("inside.body");
    linger("sleeper.stop", 6 * wait_ms());
    FAIL("the runner was never signalled");
}

TEST(hangup, never_started)
{
    printf("never started\n");
}

/* ---- 9. what shared memory a test holds ---- */

/* Writes to reach.NAME the writable shared mappings this test process
 * holds: "runner N" (runner state: its own result slot must be the only
 * one), "arenas N", and each mapping's size. Whatever the runner shares
 * with its servers (the answers to spawn requests) must not be here. */
static void list_reach(const char *name)
{
    struct mapping mappings[MAPPINGS_MAX];
    size_t count = shared_mappings(mappings, MAPPINGS_MAX);
    size_t runner = 0, arenas = 0;
    char sizes[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (mappings[i].trace_arena)
            arenas++;
        else
            runner++;
        if (used < sizeof sizes)
            used +=
                (size_t)snprintf(sizes + used, sizeof sizes - used, " %s:%zu",
                                 mappings[i].trace_arena ? "arena" : "runner",
                                 mappings[i].length);
    }
    char text[1200];
    snprintf(text, sizeof text, "runner %zu\narenas %zu\nsizes%s\n", runner,
             arenas, sizes);
    char file[64];
    snprintf(file, sizeof file, "reach.%s", name);
    write_file(file, text);
}

TEST(reach, first)
{
    list_reach("first");
}
TEST(reach, second)
{
    list_reach("second");
}
TEST(reach, third)
{
    list_reach("third");
}
TEST(reach, traced, .tags = "trace_messages")
{
    list_reach("traced");
}

/* ---- 10. a test that kills the server it was forked from ---- */

/* At -j2 server_killed/bystander runs in the first job, forked by its
 * suite server (whose after_all must not run once the run stops on the
 * error), and killer/kills_its_server in the second, forked by the
 * second job's server, which it kills once the bystander is inside its
 * body. */
static void server_killed_before_all(void)
{
}

static void server_killed_after_all(void)
{
    touch("after_all.ran");
}

SUITE(server_killed, .before_all = server_killed_before_all,
      .after_all = server_killed_after_all);

TEST(server_killed, bystander)
{
    printf("bystander inside\n");
    write_pid_file("bystander.pid");
    touch("bystander.inside");
    linger("bystander.stop", 6 * wait_ms());
    FAIL("the bystander was never stopped");
}

TEST(killer, kills_its_server)
{
    if (!wait_for_file("bystander.inside", 3 * wait_ms()))
        FAIL("the bystander never got inside its body");
    touch("killer.kills");
    kill(getppid(), SIGKILL);
    for (;;)
        pause(); /* its parent-death signal ends it */
}

/* ---- 11. a test that stops the server it was forked from ---- */

/* Stops its parent, the server that forked it, and passes: a stopped
 * server neither reaps nor tells, so the runner must set it going again
 * (it may be stopped before it even answered the spawn). */
TEST(stopper, first)
{
    kill(getppid(), SIGSTOP);
    printf("first stopped its server\n");
}

TEST(stopper, second)
{
    kill(getppid(), SIGSTOP);
    printf("second stopped its server\n");
}

TEST(stopper, control)
{
    printf("control\n");
}

/* ---- 12. a library whose debug file is a FIFO ---- */

/* The function `name` of the library HOSTILE_LIBRARY names (the driver's
 * copy, beside a FIFO named as its debug file). */
static void (*load_library_function(const char *name))(void)
{
    const char *path = getenv("HOSTILE_LIBRARY");
    ASSERT(path, "HOSTILE_LIBRARY is not set");
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ASSERT(library, "dlopen %s: %s", path, dlerror());
    /* Loaded: the FIFO takes the library's place at its path, and a
     * second one the name the maps now give the library's file (deleted,
     * since the rename unlinked it). */
    const char *swap = getenv("HOSTILE_LIBRARY_SWAP");
    if (swap) {
        ASSERT(rename(swap, path) == 0, "rename %s: %s", swap, strerror(errno));
        char deleted[PATH_MAX];
        snprintf(deleted, sizeof deleted, "%s (deleted)", path);
        ASSERT(mkfifo(deleted, 0600) == 0, "mkfifo %s: %s", deleted,
               strerror(errno));
    }
    void (*function)(void) = (void (*)(void))dlsym(library, name);
    ASSERT(function, "dlsym %s: %s", name, dlerror());
    return function;
}

/* Times out inside the library: the runner names the frames of every
 * thread, the library's among them. */
TEST(debuglink, times_out_in_its_library, .timeout_ms = 500)
{
    void (*wait_forever)(void) = load_library_function("hostile_library_wait");
    touch("debuglink.inside");
    wait_forever();
}

/* Crashes inside the library, traced: the runner takes every thread's
 * stack while the crashing one waits, and names their frames. */
TEST(debuglink, crashes_in_its_library, .tags = "trace_messages")
{
    void (*crash)(void) = load_library_function("hostile_library_crash");
    touch("debuglink.inside");
    crash();
}

/* ---- 13. a timeout with tens of thousands of mappings ---- */

/* Maps `count` pages alternately of the `files` files (one page each,
 * made in the working directory), every other page left unmapped between
 * them, so each is a line of its own in /proc/self/maps. Returns how many
 * it made: the kernel's vm.max_map_count may end it sooner, and a refusal
 * (a directory mounted noexec) ends it too, said in mappings.refused. */
static long map_pages_of(int files, long count, int protection)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int fds[2];
    for (int f = 0; f < files; f++) {
        char name[32];
        snprintf(name, sizeof name, "mapped.%d", f);
        fds[f] = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ASSERT(fds[f] >= 0, "open %s: %s", name, strerror(errno));
        ASSERT(ftruncate(fds[f], (off_t)page) == 0, "ftruncate: %s",
               strerror(errno));
    }
    /* A free stretch of the address space, found by mapping it once. */
    ASSERT(count > 0, "HOSTILE_MAPPINGS is not a count of mappings");
    size_t span = 2 * (size_t)count * page;
    char *base =
        mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT(base != MAP_FAILED, "mmap of %zu bytes: %s", span, strerror(errno));
    munmap(base, span);
    long made = 0;
    for (long place = 0; place < count; place++) {
        void *at = base + 2 * (size_t)place * page;
        void *got =
            mmap(at, page, protection, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
                 fds[place % files], 0);
        if (got == MAP_FAILED && errno == ENOMEM)
            break; /* vm.max_map_count reached */
        if (got == MAP_FAILED && errno == EEXIST)
            continue; /* a page of the span taken meanwhile (a runtime's) */
        if (got == MAP_FAILED) {
            write_file("mappings.refused", strerror(errno));
            break;
        }
        ASSERT(got == at, "mmap put the page at %p, not %p", got, at);
        made++;
    }
    for (int f = 0; f < files; f++)
        close(fds[f]);
    return made;
}

/* Maps HOSTILE_MAPPINGS pages of HOSTILE_MAPPED_FILES files (executable
 * when HOSTILE_MAPPED_EXEC is 1), says how many in mappings.made, then
 * waits past its timeout: the runner takes its stacks with every one of
 * those mappings in its maps. */
TEST(mappings, times_out_with_many, .timeout_ms = 2000)
{
    const char *count = getenv("HOSTILE_MAPPINGS");
    const char *files = getenv("HOSTILE_MAPPED_FILES");
    int file_count = files ? atoi(files) : 2;
    ASSERT(file_count == 1 || file_count == 2, "HOSTILE_MAPPED_FILES: %s",
           files);
    const char *exec = getenv("HOSTILE_MAPPED_EXEC");
    int protection = PROT_READ | (exec && *exec == '1' ? PROT_EXEC : 0);
    long made = map_pages_of(file_count, count ? strtol(count, NULL, 10) : 0,
                             protection);
    char text[32];
    snprintf(text, sizeof text, "%ld\n", made);
    write_file("mappings.made", text);
    wait_for_file("mappings.never", 3 * wait_ms()); /* @mappings */
}

/* ---- after: the tests every run ends with, whose results must be their
 * own whatever ran before ---- */

TEST(after, fails)
{
    printf("after fails\n");
    EXPECT_EQ(1, 2, "after failure"); /* @after */
}

TEST(after, passes)
{
    printf("after passes\n");
}

TEST(after, traced, .tags = "trace_messages")
{
    for (int i = 1; i <= 3; i++)
        tattle_trace_event(1, "after", "peer", "after", "own event %d", i);
    FAIL("after traced failure");
}
