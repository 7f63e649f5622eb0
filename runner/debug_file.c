/*
 * debug_file.c — where the runner's libdw sessions open a module's file
 * and find its separate debug information.
 *
 * Every file is opened without blocking and taken only when it is a
 * regular file: the paths come from a test's maps and debug links, and a
 * FIFO put there would otherwise hang the runner in open().
 *
 * Debug information is found first by build id (libdw's own lookup under the
 * debug directories: /usr/lib/debug/.build-id, where Debian's -dbgsym packages,
 * libc6-dbg and Fedora's -debuginfo packages put it), then by the module's
 * .gnu_debuglink name in the three places a debug file split off with
 * `objcopy --only-keep-debug` is kept: beside the module, in its .debug
 * directory, and under /usr/lib/debug by the module's directory. A file
 * found by name is taken only when its build id is the module's (which
 * also turns away a dwz alt file's lookup, whose build id differs: libdw
 * then finds that file itself). libdw's standard lookup is not used: for a
 * module with no debug file it ends in libdw's debuginfod client, which
 * loads libcurl and its TLS libraries into the runner for good (9 MB,
 * paid for by every later fork of the runner) and, where DEBUGINFOD_URLS
 * is set, asks a server over the network while a crash or a timeout waits.
 */
#include "runner/debug_file.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"

/* Whether the ELF file open at `fd` carries the build id `id`. */
static bool has_build_id(int fd, const unsigned char *id, int id_length)
{
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf)
        return false;
    const void *found = NULL;
    ssize_t length = dwelf_elf_gnu_build_id(elf, &found);
    bool same = length == id_length && found &&
                memcmp(found, id, (size_t)id_length) == 0;
    elf_end(elf);
    return same;
}

/* Opens `path` when it is a regular file other than the module's own
 * (`module`, from stat) and carries the module's build id; -1 otherwise.
 * The name comes from the module's .gnu_debuglink, which a test writes
 * when the module is a library of its own: opened without blocking, so a
 * FIFO of that name cannot hang the runner in open(). */
static int open_if_debug_file(const char *path, const struct stat *module,
                              const unsigned char *id, int id_length)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat candidate;
    if (fstat(fd, &candidate) != 0 || !S_ISREG(candidate.st_mode) ||
        (candidate.st_dev == module->st_dev &&
         candidate.st_ino == module->st_ino) ||
        !has_build_id(fd, id, id_length)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The .gnu_debuglink lookup: `link` beside `file_name`, in its .debug
 * directory, and under /usr/lib/debug by its directory. */
static int find_by_debuglink(const char *file_name, const char *link,
                             const unsigned char *id, int id_length,
                             char **debuginfo_file_name)
{
    struct stat module;
    if (!file_name || !link || !*link || strchr(link, '/') ||
        stat(file_name, &module) != 0)
        return -1;
    const char *slash = strrchr(file_name, '/');
    int directory_length = slash ? (int)(slash - file_name) : 1;
    const char *directory = slash ? file_name : ".";
    /* Beside the module, in its .debug directory, under /usr/lib/debug by
     * its directory (for an absolute one only). */
    static const struct {
        const char *before, *after;
    } places[] = {{"", ""}, {"", "/.debug"}, {"/usr/lib/debug", ""}};
    for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
        if (*places[i].before && directory[0] != '/')
            break;
        char path[PATH_MAX];
        int length =
            snprintf(path, sizeof path, "%s%.*s%s/%s", places[i].before,
                     directory_length, directory, places[i].after, link);
        if (length < 0 || (size_t)length >= sizeof path)
            continue;
        int fd = open_if_debug_file(path, &module, id, id_length);
        if (fd >= 0) {
            *debuginfo_file_name = tattle__strdup(path);
            return fd;
        }
    }
    return -1;
}

int tattle__find_debug_file(Dwfl_Module *module, void **user_data,
                            const char *module_name, Dwarf_Addr base,
                            const char *file_name, const char *debuglink_file,
                            GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    int fd = dwfl_build_id_find_debuginfo(module, user_data, module_name, base,
                                          file_name, debuglink_file,
                                          debuglink_crc, debuginfo_file_name);
    if (fd >= 0)
        return fd;
    const unsigned char *id;
    GElf_Addr id_address;
    int id_length = dwfl_module_build_id(module, &id, &id_address);
    if (id_length > 0)
        fd = find_by_debuglink(file_name, debuglink_file, id, id_length,
                               debuginfo_file_name);
    if (fd < 0)
        errno = 0; /* nothing found, which is no error */
    return fd;
}

/* Whether `name` is how /proc maps name a file deleted since it was
 * mapped. */
static bool is_deleted_name(const char *name)
{
    static const char deleted[] = " (deleted)";
    size_t length = strlen(name);
    return length > sizeof deleted - 1 &&
           strcmp(name + length - (sizeof deleted - 1), deleted) == 0;
}

int tattle__open_module_file(pid_t memory_of, Dwfl_Module *module,
                             void **user_data, const char *module_name,
                             Dwarf_Addr base, char **file_name, Elf **elfp)
{
    /* libdw's own callback for what is not a path: the vDSO, whose image
     * it reads from /proc/PID/mem and nowhere else. */
    if (module_name[0] != '/')
        return dwfl_linux_proc_find_elf(module, user_data, module_name, base,
                                        file_name, elfp);
    /* A deleted file is read from the memory of the process that mapped
     * it, when it is alive: asked for by the vDSO's name, so that libdw
     * opens nothing but /proc/PID/mem (given the path, it would stat it and
     * open, blocking, whatever is there by then). What is at that path now
     * is not the file, whatever it is. */
    if (!is_deleted_name(module_name)) {
        int fd =
            open(module_name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        struct stat file;
        if (fd >= 0 && fstat(fd, &file) == 0 && S_ISREG(file.st_mode)) {
            *file_name = tattle__strdup(module_name);
            return fd;
        }
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (memory_of <= 0)
        return -1;
    char in_memory[32];
    snprintf(in_memory, sizeof in_memory, "[vdso: %d]", (int)memory_of);
    return dwfl_linux_proc_find_elf(module, user_data, in_memory, base,
                                    file_name, elfp);
}

int tattle__find_module_file(Dwfl_Module *module, void **user_data,
                             const char *module_name, Dwarf_Addr base,
                             char **file_name, Elf **elfp)
{
    return tattle__open_module_file(-1, module, user_data, module_name, base,
                                    file_name, elfp);
}

int tattle__find_own_module_file(Dwfl_Module *module, void **user_data,
                                 const char *module_name, Dwarf_Addr base,
                                 char **file_name, Elf **elfp)
{
    return tattle__open_module_file(getpid(), module, user_data, module_name,
                                    base, file_name, elfp);
}
