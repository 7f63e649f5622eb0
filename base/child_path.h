/*
 * child_path.h — marks the functions every forked test process runs, from
 * the fork server's fork to the test's exit. A forked process faults once
 * on each 64 KiB window of text it runs (fork copies no page-table entries
 * of file-backed code), and in a test binary these functions would sit far
 * apart among the tests; marked hot, the compiler puts them in .text.hot,
 * which the linker gathers in one place, so a test touches few windows.
 */
#ifndef TATTLE_BASE_CHILD_PATH_H
#define TATTLE_BASE_CHILD_PATH_H

#if defined(__GNUC__)
#define TATTLE__CHILD_PATH __attribute__((hot))
#else
#define TATTLE__CHILD_PATH
#endif

#endif
