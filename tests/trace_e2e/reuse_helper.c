/*
 * reuse_helper.c — a program that is not a tattle test, built with
 * -D_FORTIFY_SOURCE=2 -O2 and started with exec by a traced test of
 * fixture_exec.c, to show that the preload library forgets a pipe's
 * number handed out again by the calls that open files or descriptors
 * that are no endpoint (reused_numbers.h): the fortified __open_2 and its
 * 64 and openat forms, freopen, tmpfile, mkostemp, timerfd_create,
 * signalfd, inotify_init and inotify_init1. test_exec_e2e.py checks that
 * the trace holds its pipes' messages and nothing else.
 *
 * Exits 0 when every scenario went as libc's calls go, 1 otherwise
 * (what went wrong on stderr).
 */
#define _GNU_SOURCE /* open64, openat64 */
#include <stdio.h>

#include "reused_numbers.h"

#if !defined(_FORTIFY_SOURCE) || _FORTIFY_SOURCE < 2
#error "reuse_helper.c is built with -D_FORTIFY_SOURCE=2"
#endif

int main(void)
{
    const char *which = "fortified open";
    const char *wrong = reused_by_fortified_open();
    if (wrong == NULL)
        wrong = reused_by_every_call(&which);
    if (wrong == NULL)
        return 0;
    fprintf(stderr, "reuse_helper: %s: %s\n", which, wrong);
    return 1;
}
