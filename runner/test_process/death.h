/*
 * death.h — how the child of a death check ended (runner/test_process/
 * death.c); the fork itself is declared in include/tattle/tattle.h, since
 * ASSERT_SIGNAL and ASSERT_EXIT expand to it in the user's code.
 */
#ifndef TATTLE_RUNNER_TEST_PROCESS_DEATH_H
#define TATTLE_RUNNER_TEST_PROCESS_DEATH_H

#include <stddef.h>

#include <tattle/tattle.h>

enum tattle__death_ended {
    TATTLE__ENDED_NOT_STARTED, /* value: the errno of pipe or fork */
    TATTLE__ENDED_BY_SIGNAL,   /* value: the signal */
    TATTLE__ENDED_BY_EXIT,     /* value: the exit status */
    TATTLE__ENDED_RETURNED,    /* the statement returned */
};

struct tattle__death_ending {
    enum tattle__death_ended how;
    int value;
    char stderr_tail[1024]; /* the last bytes the child wrote to stderr */
    size_t stderr_length;
};

/** Reads the child's stderr to its end, waits for the child, and says how
 * it ended; closes the check's descriptors. */
void tattle__death_wait(struct tattle__death *death,
                        struct tattle__death_ending *ending);

#endif /* TATTLE_RUNNER_TEST_PROCESS_DEATH_H */
