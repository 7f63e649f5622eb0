/*
 * hostile_library.c — a library a hostile test of fixture_hostile.c loads
 * with dlopen() and then times out or crashes in, so that the runner, for
 * the file:line of the library's frames, looks for its debug information.
 * The build splits that off into a file the library's .gnu_debuglink
 * names; the driver puts a copy of the library beside a FIFO of that name
 * (or beside the real file), so what the runner opens is whatever the
 * test made of it.
 */
#include <unistd.h>

/* Found with dlsym() by the tests that load the library. */
void hostile_library_wait(void);
void hostile_library_crash(void);

/* Waits until the process is killed (the test's timeout). */
__attribute__((noinline, visibility("default"))) void hostile_library_wait(void)
{
    for (;;)
        pause();
}

/* Writes through a null pointer the compiler cannot see is null. */
__attribute__((noinline, visibility("default"))) void
hostile_library_crash(void)
{
    volatile int *volatile nowhere = 0;
    *nowhere = 1;
}
