/*
 * crash_library.c — a library fixture_stacks.c's dlopened tests load with
 * dlopen() and crash through: the crash's frames run from the test binary
 * into this library and back, and only the crashed process's maps say
 * where the library was loaded (the runner never loads it).
 */

/* Found with dlsym() by the tests that load the library. */
void crash_library_call(void (*then)(void));

/* Calls `then`, in a frame of its own (no tail call). */
__attribute__((noinline, visibility("default"))) void
crash_library_call(void (*then)(void))
{
    then(); /* @calls_back */
    __asm__ volatile("" ::: "memory");
}
