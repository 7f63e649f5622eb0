/*
 * child_path.h — marks the functions every forked test process runs, from
 * the fork server's fork to the test's exit. A forked process faults once
 * on each 64 KiB window of text it runs (fork copies no page-table entries
 * of file-backed code), and in a test binary these functions would sit far
 * apart among the tests; marked hot, the compiler puts them in .text.hot,
 * which the linker gathers in one place, so a test touches few windows.
 *
 * Likewise every page of static data a test process writes is copied on
 * its first write (fork shares the server's pages copy-on-write): the
 * statics the child path writes are marked TATTLE__CHILD_STATE, which puts
 * them in one section of their own, so together they take one or two
 * pages, not one page in each object file's .bss.
 */
#ifndef TATTLE_BASE_CHILD_PATH_H
#define TATTLE_BASE_CHILD_PATH_H

#if defined(__GNUC__)
#define TATTLE__CHILD_PATH __attribute__((hot))
#define TATTLE__CHILD_STATE __attribute__((section("tattle_child_state")))
#else
#define TATTLE__CHILD_PATH
#define TATTLE__CHILD_STATE
#endif

#endif
