/*
 * hand_down.c — writing and reading the hand-down of a traced test's
 * arena across exec (see hand_down.h): the environment a traced test
 * process leaves its exec'd programs, the removal of it everywhere else,
 * and the strict parser the preload library reads it with.
 */
#include "tracer/exec/hand_down.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/child_path.h"
#include "tracer/peek.h"
#include "tracer/test_process/recorder.h"

static char preload_path[PATH_MAX];
static bool preload_located;

/* Sets preload_path to `candidate` when a readable file is there. */
static bool try_preload(const char *candidate)
{
    return candidate != NULL && access(candidate, R_OK) == 0 &&
           realpath(candidate, preload_path) != NULL;
}

void tattle__hand_down_locate_preload(void)
{
    if (preload_located)
        return;
    preload_located = true;
    preload_path[0] = '\0';
    /* Beside the library (or the program) this code is linked into. */
    Dl_info info;
    if (dladdr((void *)(uintptr_t)tattle__hand_down_locate_preload, &info) !=
            0 &&
        info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        int directory = slash ? (int)(slash - info.dli_fname) : 1;
        char candidate[PATH_MAX];
        int length =
            snprintf(candidate, sizeof candidate, "%.*s/%s", directory,
                     slash ? info.dli_fname : ".", TATTLE__PRELOAD_FILE);
        if (length > 0 && (size_t)length < sizeof candidate &&
            try_preload(candidate))
            return;
    }
#ifdef TATTLE_PRELOAD_BUILT
    if (try_preload(TATTLE_PRELOAD_BUILT))
        return;
#endif
#ifdef TATTLE_PRELOAD_INSTALLED
    if (try_preload(TATTLE_PRELOAD_INSTALLED))
        return;
#endif
    preload_path[0] = '\0';
}

const char *tattle__hand_down_preload_path(void)
{
    tattle__hand_down_locate_preload();
    return preload_path[0] != '\0' ? preload_path : NULL;
}

/* Whether an LD_PRELOAD entry of `length` bytes names the preload library
 * (any copy of it: a nested run's). */
static bool is_preload_entry(const char *entry, size_t length)
{
    size_t name_length = sizeof TATTLE__PRELOAD_FILE - 1;
    if (length < name_length || memcmp(entry + length - name_length,
                                       TATTLE__PRELOAD_FILE, name_length) != 0)
        return false;
    return length == name_length || entry[length - name_length - 1] == '/';
}

/* LD_PRELOAD's entries (separated by colons or spaces, as ld.so reads
 * them) but the preload library's, after `first` when not NULL. A new
 * string (malloc). */
static char *preload_list(const char *first, const char *list)
{
    size_t capacity = (first ? strlen(first) : 0) + (list ? strlen(list) : 0);
    char *joined = malloc(capacity + 2);
    if (joined == NULL)
        return NULL;
    size_t used = 0;
    if (first != NULL) {
        memcpy(joined, first, strlen(first));
        used = strlen(first);
    }
    for (const char *entry = list; entry != NULL && *entry != '\0';) {
        size_t length = strcspn(entry, ": ");
        if (length > 0 && !is_preload_entry(entry, length)) {
            if (used > 0)
                joined[used++] = ':';
            memcpy(joined + used, entry, length);
            used += length;
        }
        entry += length;
        if (*entry != '\0')
            entry++;
    }
    joined[used] = '\0';
    return joined;
}

/* Sets LD_PRELOAD to the preload library (when `ours` is not NULL) and the
 * caller's other entries. Returns 0 or a negative errno. */
static int set_preload(const char *ours)
{
    char *list = preload_list(ours, getenv("LD_PRELOAD"));
    if (list == NULL)
        return -ENOMEM;
    int error = 0;
    if (list[0] == '\0')
        unsetenv("LD_PRELOAD");
    else if (setenv("LD_PRELOAD", list, 1) != 0)
        error = -errno;
    free(list);
    return error;
}

/* The ASan option that lets a program built with -fsanitize=address (and
 * not linked statically to its runtime) start with the preload library
 * ahead of the ASan runtime in LD_PRELOAD; the library defines no
 * allocator, so ASan still sees every allocation. */
#define ASAN_LINK_ORDER_OFF "verify_asan_link_order=0"

/* ASAN_OPTIONS with ASAN_LINK_ORDER_OFF after the caller's `options`:
 * *value NULL when they need no change, else a new string (malloc; a
 * "NAME=" ahead of it when `entry` is true). Returns 0 or -ENOMEM. */
static int asan_options_value(const char *options, bool entry, char **value)
{
    *value = NULL;
    if (options != NULL && strstr(options, ASAN_LINK_ORDER_OFF) != NULL)
        return 0;
    const char *prefix = entry ? "ASAN_OPTIONS=" : "";
    size_t prefix_length = strlen(prefix);
    size_t length = options != NULL ? strlen(options) : 0;
    char *joined =
        malloc(prefix_length + length + sizeof ":" ASAN_LINK_ORDER_OFF);
    if (joined == NULL)
        return -ENOMEM;
    memcpy(joined, prefix, prefix_length);
    if (length == 0) {
        memcpy(joined + prefix_length, ASAN_LINK_ORDER_OFF,
               sizeof ASAN_LINK_ORDER_OFF);
    } else {
        memcpy(joined + prefix_length, options, length);
        memcpy(joined + prefix_length + length, ":" ASAN_LINK_ORDER_OFF,
               sizeof ":" ASAN_LINK_ORDER_OFF);
    }
    *value = joined;
    return 0;
}

/* Adds ASAN_LINK_ORDER_OFF to ASAN_OPTIONS, after the caller's options.
 * Returns 0 or a negative errno. */
static int allow_asan_after_preload(void)
{
    char *value;
    int error = asan_options_value(getenv("ASAN_OPTIONS"), false, &value);
    if (error != 0 || value == NULL)
        return error;
    error = setenv("ASAN_OPTIONS", value, 1) != 0 ? -errno : 0;
    free(value);
    return error;
}

/* TATTLE_TRACE_ARENA's entry ("NAME=value"), written by each traced test
 * process into its own copy of this page (the statics every test writes). */
#define ARENA_ENTRY_PREFIX TATTLE__HAND_DOWN_VARIABLE "="
static TATTLE__CHILD_STATE char arena_entry[sizeof ARENA_ENTRY_PREFIX + 64 +
                                            TATTLE__HAND_DOWN_KEYS_MAX * 17];

/* The environment a traced test hands down, made once in the process
 * tests are forked from (tattle__hand_down_prepare): the process's own
 * entries (`source`, as they were then) but LD_PRELOAD, ASAN_OPTIONS when
 * it lacked ASAN_LINK_ORDER_OFF and TATTLE_TRACE_ARENA, followed by those
 * three as set_preload, allow_asan_after_preload and arena_entry have
 * them. A test process whose environment is still `source` takes it
 * whole: no setenv, no malloc, no page of the heap written. */
static struct {
    char **source;       /* environ when prepared */
    char **source_copy;  /* its entries then, NULL-terminated */
    size_t source_count; /* entries in source_copy */
    char **environment;  /* NULL: not prepared */
} prepared;

/* Whether `entry` is NAME=... for the given NAME. */
static bool entry_named(const char *entry, const char *name)
{
    size_t length = strlen(name);
    return strncmp(entry, name, length) == 0 && entry[length] == '=';
}

void tattle__hand_down_prepare(void)
{
    const char *preload = tattle__hand_down_preload_path();
    if (prepared.environment != NULL || preload == NULL ||
        strpbrk(preload, " :") != NULL)
        return;
    memcpy(arena_entry, ARENA_ENTRY_PREFIX, sizeof ARENA_ENTRY_PREFIX);
    char *list = preload_list(preload, getenv("LD_PRELOAD"));
    char *preload_entry =
        list != NULL ? malloc(sizeof "LD_PRELOAD=" + strlen(list)) : NULL;
    char *asan_entry = NULL;
    size_t count = 0;
    while (environ != NULL && environ[count] != NULL)
        count++;
    char **source_copy = malloc((count + 1) * sizeof *source_copy);
    char **environment = malloc((count + 4) * sizeof *environment);
    if (preload_entry == NULL || source_copy == NULL || environment == NULL ||
        asan_options_value(getenv("ASAN_OPTIONS"), true, &asan_entry) != 0) {
        free(list);
        free(preload_entry);
        free(source_copy);
        free(environment);
        return;
    }
    memcpy(preload_entry, "LD_PRELOAD=", sizeof "LD_PRELOAD=" - 1);
    memcpy(preload_entry + sizeof "LD_PRELOAD=" - 1, list, strlen(list) + 1);
    free(list);
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        source_copy[i] = environ[i];
        if (entry_named(environ[i], "LD_PRELOAD") ||
            entry_named(environ[i], TATTLE__HAND_DOWN_VARIABLE) ||
            (asan_entry != NULL && entry_named(environ[i], "ASAN_OPTIONS")))
            continue;
        environment[used++] = environ[i];
    }
    source_copy[count] = NULL;
    environment[used++] = preload_entry;
    if (asan_entry != NULL)
        environment[used++] = asan_entry;
    environment[used++] = arena_entry;
    environment[used] = NULL;
    prepared.source = environ;
    prepared.source_copy = source_copy;
    prepared.source_count = count;
    prepared.environment = environment;
}

/* Whether the calling process's environment is still the one prepared
 * from (a fixture of the server may have changed it since). */
TATTLE__CHILD_PATH static bool environment_as_prepared(void)
{
    if (prepared.environment == NULL || environ != prepared.source)
        return false;
    for (size_t i = 0; i <= prepared.source_count; i++)
        if (environ[i] != prepared.source_copy[i])
            return false;
    return true;
}

/* Writes `value` as exactly 16 lowercase hex digits after out[used]. */
TATTLE__CHILD_PATH static size_t append_hex16(char *out, size_t size,
                                              size_t used, uint64_t value)
{
    for (int shift = 60; shift >= 0 && used + 1 < size; shift -= 4)
        out[used++] = "0123456789abcdef"[(value >> shift) & 0xfu];
    out[used] = '\0';
    return used;
}

TATTLE__CHILD_PATH int
tattle__hand_down_set(int fd, const struct tattle_trace_arena *arena)
{
    /* Raw system calls, and no string function of libc's a prepared
     * environment does without: each is a page of libc's code a test
     * process would otherwise fault in for this alone. */
    bool as_prepared = environment_as_prepared();
    /* A prepared environment was made only for a preload library found at
     * a path without spaces or colons (ld.so splits LD_PRELOAD at them:
     * such a path would be read as pieces, each an error in every program
     * exec'd). */
    const char *preload = NULL;
    if (!as_prepared) {
        preload = tattle__hand_down_preload_path();
        if (preload == NULL)
            return -ENOENT;
        if (strpbrk(preload, " :") != NULL)
            return -EINVAL;
    }
    unsigned type;
    dev_t device;
    uint64_t inode;
    if (!tattle__descriptor_identity(fd, &type, &device, &inode))
        return -EBADF;
    /* Not close-on-exec: every program the test execs inherits it. */
    int high = (int)syscall(SYS_fcntl, fd, F_DUPFD, TATTLE__HAND_DOWN_FIRST_FD);
    if (high < 0)
        high = fd;
    /* NUMBER:SIZE:INODE:GENERATION, then :KEY (16 hex digits) each. */
    char *value = arena_entry + sizeof ARENA_ENTRY_PREFIX - 1;
    size_t size = sizeof arena_entry - (sizeof ARENA_ENTRY_PREFIX - 1);
    size_t used = tattle__append_decimal(value, size, 0, (uint64_t)high);
    used = tattle__append_text(value, size, used, ":");
    used = tattle__append_decimal(value, size, used, arena->size);
    used = tattle__append_text(value, size, used, ":");
    used = tattle__append_decimal(value, size, used, inode);
    used = tattle__append_text(value, size, used, ":");
    used = tattle__append_decimal(value, size, used, arena->generation);
    uint64_t keys[TATTLE__HAND_DOWN_KEYS_MAX];
    size_t count = tattle__ipc_excluded_keys(keys, TATTLE__HAND_DOWN_KEYS_MAX);
    for (size_t i = 0; i < count; i++) {
        used = tattle__append_text(value, size, used, ":");
        used = append_hex16(value, size, used, keys[i]);
    }
    int error = 0;
    if (as_prepared) {
        environ = prepared.environment;
    } else {
        error = set_preload(preload);
        if (error == 0)
            error = allow_asan_after_preload();
        if (error == 0 && setenv(TATTLE__HAND_DOWN_VARIABLE, value, 1) != 0)
            error = -errno;
    }
    if (error == 0 && syscall(SYS_fcntl, high, F_SETFD, 0) != 0)
        error = -errno;
    if (error != 0) {
        tattle__hand_down_remove();
        if (high != fd)
            close(high);
        return error;
    }
    if (high != fd)
        syscall(SYS_close, fd);
    return high;
}

int tattle__hand_down_reassert(void)
{
    const char *preload = tattle__hand_down_preload_path();
    if (getenv(TATTLE__HAND_DOWN_VARIABLE) == NULL || preload == NULL)
        return 0;
    int error = set_preload(preload);
    return error != 0 ? error : allow_asan_after_preload();
}

void tattle__hand_down_remove(void)
{
    unsetenv(TATTLE__HAND_DOWN_VARIABLE);
    const char *list = getenv("LD_PRELOAD");
    if (list != NULL && strstr(list, TATTLE__PRELOAD_FILE) != NULL)
        set_preload(NULL);
}

/* Reads one field of decimal digits (base 10) or exactly 16 lowercase hex
 * digits (base 16) no greater than `max`, then a ':' or the end. Returns
 * where the next field starts, the end of the text, or NULL. */
static const char *parse_field(const char *text, int base, uint64_t max,
                               uint64_t *out)
{
    uint64_t value = 0;
    size_t digits = 0;
    for (;; digits++) {
        char c = text[digits];
        unsigned digit;
        if (c >= '0' && c <= '9')
            digit = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            digit = (unsigned)(c - 'a' + 10);
        else
            break;
        if (value > (max - digit) / (unsigned)base)
            return NULL;
        value = value * (unsigned)base + digit;
    }
    if (digits == 0 || (base == 16 && digits != 16) ||
        (base == 10 && digits > 1 && text[0] == '0'))
        return NULL;
    if (text[digits] != ':' && text[digits] != '\0')
        return NULL;
    *out = value;
    return text[digits] == ':' ? text + digits + 1 : text + digits;
}

bool tattle__hand_down_parse(const char *text, struct tattle__hand_down *out)
{
    uint64_t fd, generation;
    *out = (struct tattle__hand_down){.fd = -1};
    if (text == NULL || (text = parse_field(text, 10, INT_MAX, &fd)) == NULL ||
        *text == '\0' ||
        (text = parse_field(text, 10, UINT64_MAX, &out->size)) == NULL ||
        *text == '\0' ||
        (text = parse_field(text, 10, UINT64_MAX, &out->inode)) == NULL ||
        *text == '\0' ||
        (text = parse_field(text, 10, UINT32_MAX, &generation)) == NULL)
        return false;
    if (text[-1] == ':' && *text == '\0')
        return false; /* a trailing colon */
    while (*text != '\0') {
        if (out->key_count == TATTLE__HAND_DOWN_KEYS_MAX)
            return false;
        text = parse_field(text, 16, UINT64_MAX, &out->keys[out->key_count]);
        if (text == NULL || (text[-1] == ':' && *text == '\0'))
            return false;
        out->key_count++;
    }
    out->fd = (int)fd;
    out->generation = (uint32_t)generation;
    return true;
}
