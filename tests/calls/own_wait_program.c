/*
 * own_wait_program.c — a test program that defines a wait4 of its own (a
 * mock that counts its calls) and links libtattle, shared and static: it
 * must link (libtattle's wait functions yield to a program's own) and the
 * runner's waitpid calls collecting its forked tests must never reach the
 * mock.
 *
 * Runs its one test through tattle_main (forked), then prints
 * "runner calls W" and exits 0 when the runner called neither mock and
 * the program's own call reached its wait4.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tattle/tattle.h>

static volatile unsigned long own_wait_calls;

pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
    own_wait_calls++;
    return (pid_t)syscall(SYS_wait4, pid, status, options, usage);
}

TATTLE_TEST(own_wait, passes)
{
    ASSERT_EQ(1 + 1, 2);
}

int main(int argc, char **argv)
{
    int status = tattle_main(argc, argv);
    unsigned long runner_calls = own_wait_calls;
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    int child_status = 0;
    pid_t collected = wait4(child, &child_status, 0, NULL);
    printf("runner calls %lu own calls %lu\n", runner_calls,
           own_wait_calls - runner_calls);
    return status == 0 && runner_calls == 0 && collected == child &&
                   own_wait_calls == 1
               ? 0
               : 1;
}
