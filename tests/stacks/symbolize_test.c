/*
 * symbolize_test.c — the runner's symbolizer names what it is given and
 * runs none of libdw's code in the process that asks; a lookup process
 * that dies, sticks or sends much comes back as it should.
 *
 * Crash frames, fixture names and traced calls are looked up with libdw
 * in a process forked for each lookup (runner/symbolize.c,
 * runner/lookup_process.c), so that the runner's memory, which whatever
 * forks it later copies, stays what it was before its first crash. This
 * program asks for each kind of lookup, checks the names that come back,
 * and checks that its own process ran no page of libdw's or libelf's text
 * (their executable mappings grew no resident page), kept no child and no
 * descriptor. Then lookups of its own: one that never ends (killed when
 * its budget runs out), one that dies of a signal, one that sends half an
 * answer, one whose frames outgrow a pipe, some with SIGCHLD ignored. Exits 0
 * when every check held, 1 naming each that did not.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/lookup_process.h"
#include "runner/symbolize.h"

static int failures;

static void check(int holds, const char *what)
{
    if (!holds) {
        printf("FAILED: %s\n", what);
        failures++;
    }
}

static void check_name(const char *got, const char *expected, const char *what)
{
    if (got && strcmp(got, expected) == 0)
        return;
    printf("FAILED: %s: named %s, expected %s\n", what, got ? got : "(none)",
           expected);
    failures++;
}

/* Two functions to be named, with symbols of their own. */
void symbolize_test_first(void);
void symbolize_test_second(void);

/* Bodies that differ, so that no linker folds the two into one. */
static volatile int calls_of_first, calls_of_second;

__attribute__((noinline)) void symbolize_test_first(void)
{
    calls_of_first++;
}

__attribute__((noinline)) void symbolize_test_second(void)
{
    calls_of_second += 2;
}

/* Whether the smaps header `line` maps libdw's or libelf's file. */
static int of_libdw_or_libelf(const char *line)
{
    static const char *const names[] = {"/libdw-", "/libdw.so", "/libelf-",
                                        "/libelf.so"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strstr(line, names[i]))
            return 1;
    return 0;
}

/* The kilobytes resident of libdw's and libelf's executable mappings in
 * this process, or -1 when none is mapped. */
static long libdw_text_kb(void)
{
    FILE *smaps = fopen("/proc/self/smaps", "re");
    char line[512];
    long kb = -1;
    int in_libdw_text = 0;
    while (smaps && fgets(line, sizeof line, smaps)) {
        char permissions[8];
        if (sscanf(line, "%*x-%*x %7s", permissions) == 1) {
            in_libdw_text = of_libdw_or_libelf(line) && permissions[2] == 'x';
            if (in_libdw_text && kb < 0)
                kb = 0;
        } else if (in_libdw_text && strncmp(line, "Rss:", 4) == 0) {
            kb += strtol(line + 4, NULL, 10);
        }
    }
    if (smaps)
        fclose(smaps);
    return kb;
}

static int open_descriptors(void)
{
    DIR *directory = opendir("/proc/self/fd");
    int count = 0;
    struct dirent *entry;
    while (directory && (entry = readdir(directory)) != NULL)
        count += entry->d_name[0] != '.';
    if (directory)
        closedir(directory);
    return count;
}

/* A lookup that never returns. */
static TATTLE__NORETURN size_t never_ends(const void *request,
                                          struct tattle_frame *frames,
                                          size_t room)
{
    (void)request;
    (void)frames;
    (void)room;
    for (;;)
        pause();
}

/* A lookup that dies of a signal (abort: the sanitizers' runtimes leave
 * it alone, so their builds print no report for it). */
static TATTLE__NORETURN size_t crashes(const void *request,
                                       struct tattle_frame *frames, size_t room)
{
    (void)request;
    (void)frames;
    (void)room;
    abort();
}

enum { LONG_NAME = 200000 }; /* past a pipe's 64 KiB */

/* Frames of every shape: no strings, an empty one, one longer than a
 * pipe holds. */
static size_t of_every_shape(const void *request, struct tattle_frame *frames,
                             size_t room)
{
    (void)request;
    if (room < 3)
        return 0;
    char *long_name = malloc(LONG_NAME + 1);
    memset(long_name, 'n', LONG_NAME);
    long_name[LONG_NAME] = '\0';
    frames[0] = (struct tattle_frame){.address = 1};
    frames[1] = (struct tattle_frame){.function = strdup(""),
                                      .file = strdup("f.c"),
                                      .line = -7,
                                      .address = 2};
    frames[2] = (struct tattle_frame){
        .function = long_name, .file = NULL, .line = 3, .address = UINTPTR_MAX};
    return 3;
}

/* A lookup that writes, where its answer goes (the one descriptor it
 * holds above the standard streams), one whole frame named "x" as
 * runner/lookup_process.c sends it (address, line, the name's length, no
 * file, a spare word: 24 bytes, then the name) and half of the next, and
 * exits as if all went well. */
static TATTLE__NORETURN size_t sends_half_a_frame(const void *request,
                                                  struct tattle_frame *frames,
                                                  size_t room)
{
    (void)request;
    (void)frames;
    (void)room;
    uint32_t header[6] = {5, 0, 7, 1, UINT32_MAX, 0};
    char sent[sizeof header + 1 + 7] = {0};
    memcpy(sent, header, sizeof header);
    sent[sizeof header] = 'x';
    for (int fd = 3; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) >= 0 && write(fd, sent, sizeof sent) < 0)
            _exit(1);
    _exit(0);
}

/* A lookup that counts the descriptors its process holds. */
static size_t counts_descriptors(const void *request,
                                 struct tattle_frame *frames, size_t room)
{
    (void)request;
    (void)room;
    frames[0].line = open_descriptors();
    return 1;
}

static void check_lookup_processes(void)
{
    struct tattle_frame frames[3] = {{0}};
    /* Descriptors the runner holds (its servers' sockets, report files)
     * are not the lookup's: it keeps stdin, stdout, stderr, its pipe, and
     * here the directory it counts with. */
    int opened = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int spare = fcntl(opened, F_DUPFD_CLOEXEC, 10);
    int spare_too = fcntl(opened, F_DUPFD_CLOEXEC, 20);
    close(opened);
    int expected = 2;
    for (int fd = 0; fd < 3; fd++)
        expected += fcntl(fd, F_GETFD) >= 0;
    check(tattle__look_up_in_a_process(counts_descriptors, NULL, frames, 1,
                                       30000) == 1 &&
              frames[0].line == expected,
          "a lookup process kept descriptors it inherited");
    close(spare);
    close(spare_too);
    check(tattle__look_up_in_a_process(never_ends, NULL, frames, 3, 50) == -1,
          "a lookup that never ended was not given up");
    check(tattle__look_up_in_a_process(crashes, NULL, frames, 3, 30000) == -1,
          "a lookup that crashed was taken for an answer");
    check(tattle__look_up_in_a_process(sends_half_a_frame, NULL, frames, 3,
                                       30000) == -1,
          "an answer without its end was taken for a whole one");
    check(frames[0].function == NULL && frames[0].address == 0,
          "the whole frame before a torn one was kept");
    /* A program that ignores SIGCHLD: the kernel reaps the lookup, whose
     * exit status is lost; the end of the answer still tells. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, kept;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGCHLD, &ignore, &kept);
    check(tattle__look_up_in_a_process(crashes, NULL, frames, 3, 30000) == -1,
          "with SIGCHLD ignored, a lookup that crashed was taken for an "
          "answer");
    check(tattle__look_up_in_a_process(counts_descriptors, NULL, frames, 1,
                                       30000) == 1,
          "with SIGCHLD ignored, a lookup's answer was lost");
    sigaction(SIGCHLD, &kept, NULL);
    check(frames[1].function == NULL && frames[1].address == 0 &&
              frames[2].function == NULL && frames[2].address == 0,
          "a failed lookup left frames behind");
    long got =
        tattle__look_up_in_a_process(of_every_shape, NULL, frames, 3, 30000);
    check(got == 3, "frames of every shape did not all come back");
    if (got == 3) {
        check(frames[0].function == NULL && frames[0].file == NULL &&
                  frames[0].address == 1 && frames[0].line == 0,
              "a frame with no strings came back changed");
        check(frames[1].function && frames[1].function[0] == '\0' &&
                  frames[1].file && strcmp(frames[1].file, "f.c") == 0 &&
                  frames[1].line == -7 && frames[1].address == 2,
              "a frame with an empty name came back changed");
        check(frames[2].function && strlen(frames[2].function) == LONG_NAME &&
                  frames[2].function[LONG_NAME - 1] == 'n' &&
                  frames[2].file == NULL && frames[2].line == 3 &&
                  frames[2].address == UINTPTR_MAX,
              "a frame longer than a pipe holds came back changed");
        tattle__frames_free(frames, 3);
    }
    check(tattle__look_up_in_a_process(of_every_shape, NULL, frames, 0, 50) ==
              0,
          "a lookup with no room ran");
}

int main(void)
{
    long text_before = libdw_text_kb();
    int descriptors_before = open_descriptors();
    check(text_before >= 0, "libdw is not mapped into this program");

    char *name = tattle__symbolize_function((void *)symbolize_test_first);
    check_name(name, "symbolize_test_first", "a function's entry");
    free(name);

    uint64_t calls[2] = {(uint64_t)(uintptr_t)symbolize_test_second,
                         (uint64_t)(uintptr_t)symbolize_test_first};
    struct tattle_frame called[2];
    tattle__symbolize_calls(calls, 2, called);
    check_name(called[0].function, "symbolize_test_second", "traced call 0");
    check_name(called[1].function, "symbolize_test_first", "traced call 1");
    check(called[0].address == calls[0] && called[1].address == calls[1],
          "the traced calls' addresses came back changed");
    tattle__frames_free(called, 2);

    /* As a crash handler records them: its own frame, the faulting pc,
     * then return addresses (looked up one byte before). No maps: the
     * runner's own image. */
    uintptr_t crash[3] = {0, (uintptr_t)symbolize_test_first,
                          (uintptr_t)symbolize_test_second + 1};
    size_t count = 0;
    struct tattle_frame *frames = tattle__symbolize(crash, 3, NULL, &count);
    check(count == 2, "a crash of two frames did not give two");
    if (count == 2) {
        check_name(frames[0].function, "symbolize_test_first", "crash frame 0");
        check_name(frames[1].function, "symbolize_test_second",
                   "crash frame 1");
        check(frames[0].file && strstr(frames[0].file, "symbolize_test.c"),
              "crash frame 0 has no file of this program");
        check(frames[1].address == crash[2],
              "crash frame 1's address came back changed");
    }
    tattle__frames_free(frames, count);
    free(frames);

    /* The same crash, in the modules its process's maps name (what the
     * runner reads while the crash handler waits). */
    char *maps = tattle__symbolize_take_maps(getpid(), crash, 3);
    check(maps != NULL, "this process's maps named no module of the crash");
    frames = tattle__symbolize(crash, 3, maps, &count);
    check(count == 2, "a crash of two frames, with maps, did not give two");
    if (count == 2) {
        check_name(frames[0].function, "symbolize_test_first",
                   "crash frame 0, with maps");
        check_name(frames[1].function, "symbolize_test_second",
                   "crash frame 1, with maps");
    }
    tattle__frames_free(frames, count);
    free(frames);
    free(maps);

    /* Only the handler's own frame: nothing to name, and no lookup. */
    frames = tattle__symbolize(crash, 1, NULL, &count);
    check(count == 0, "the handler's frame alone gave frames");
    free(frames);

    long text_after = libdw_text_kb();
    /* Only a rise says libdw ran here (reclaim may drop pages). */
    if (text_after > text_before) {
        printf("FAILED: libdw's code ran in this process: %ld kB of its "
               "text resident before the lookups, %ld kB after\n",
               text_before, text_after);
        failures++;
    }
    check_lookup_processes();
    errno = 0;
    check(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
          "a lookup process was left behind");
    check(open_descriptors() == descriptors_before,
          "the lookups left a descriptor open");
    if (failures == 0)
        printf("symbolize_test: every check held\n");
    return failures ? 1 : 0;
}
