/*
 * wrapped_program.c — a test program written without tattle, for the
 * tests of `tattle run`: it knows nothing of the runner, and each mode is
 * one way such a program ends.
 *
 *   wrapped_program segv              writes through a null pointer
 *   wrapped_program hang PIDFILE      starts a thread and a child process,
 *                                     writes "PID CHILD_PID" to PIDFILE once
 *                                     both wait, then waits forever
 *   wrapped_program loud LINES        prints LINES numbered lines to stdout
 *                                     and one line to stderr
 *   wrapped_program inherited         prints the descriptors it was given
 *                                     (beyond 0, 1, 2) and the signals it
 *                                     ignores, then exits 0
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int never_written[2];
/* Each wait counts in a variable of its own, so the compiler cannot fold
 * the three into one function and the stacks name each. */
static volatile int second_thread_wakeups, main_thread_wakeups,
    child_process_wakeups;

__attribute__((noinline)) static void wait_in_second_thread(void)
{
    char byte;
    while (read(never_written[0], &byte, 1) != 0)
        second_thread_wakeups++;
}

__attribute__((noinline)) static void wait_in_main_thread(void)
{
    char byte;
    while (read(never_written[0], &byte, 1) != 0)
        main_thread_wakeups++;
}

__attribute__((noinline)) static void wait_in_child_process(void)
{
    char byte;
    while (read(never_written[0], &byte, 1) != 0)
        child_process_wakeups++;
}

static int started[2];

static void *second_thread(void *unused)
{
    (void)unused;
    char byte = 't';
    if (write(started[1], &byte, 1) != 1)
        abort();
    wait_in_second_thread();
    return NULL;
}

static int hang(const char *pid_file)
{
    if (pipe(never_written) != 0 || pipe(started) != 0)
        return 10;
    pid_t child = fork();
    if (child < 0)
        return 11;
    if (child == 0) {
        char byte = 'c';
        if (write(started[1], &byte, 1) != 1)
            _exit(12);
        wait_in_child_process();
        _exit(0);
    }
    pthread_t thread;
    if (pthread_create(&thread, NULL, second_thread, NULL) != 0)
        return 13;
    char bytes[2];
    for (size_t got = 0; got < sizeof bytes;) {
        ssize_t n = read(started[0], bytes + got, sizeof bytes - got);
        if (n <= 0)
            return 14;
        got += (size_t)n;
    }
    FILE *file = fopen(pid_file, "w");
    if (!file)
        return 15;
    fprintf(file, "%d %d\n", (int)getpid(), (int)child);
    fclose(file);
    wait_in_main_thread();
    return 0;
}

static int loud(long lines)
{
    for (long i = 0; i < lines; i++)
        printf("line %ld of the loud program\n", i);
    fprintf(stderr, "the loud program is done\n");
    return 0;
}

static int inherited(void)
{
    DIR *directory = opendir("/proc/self/fd");
    if (!directory)
        return 20;
    printf("fds:");
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        int fd = atoi(entry->d_name);
        if (entry->d_name[0] != '.' && fd > 2 && fd != dirfd(directory))
            printf(" %d", fd);
    }
    closedir(directory);
    printf("\n");
    FILE *status = fopen("/proc/self/status", "r");
    if (!status)
        return 21;
    char line[256];
    while (fgets(line, sizeof line, status))
        if (strncmp(line, "SigIgn:", 7) == 0 ||
            strncmp(line, "SigBlk:", 7) == 0)
            fputs(line, stdout);
    fclose(status);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "segv") == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
        return 30;
    }
    if (strcmp(mode, "hang") == 0 && argc > 2)
        return hang(argv[2]);
    if (strcmp(mode, "loud") == 0 && argc > 2)
        return loud(atol(argv[2]));
    if (strcmp(mode, "inherited") == 0)
        return inherited();
    fprintf(stderr, "usage: %s segv | hang PIDFILE | loud LINES | inherited\n",
            argv[0]);
    return 2;
}
