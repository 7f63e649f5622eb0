/*
 * check_program.c — a real Check suite, for the tests of `tattle run` on
 * a framework's own output: in suite "arith", test case "core", one test
 * passes, one fails an assertion (the line marked "the failing
 * assertion"), one writes through a null pointer and one exits early.
 * Check runs each test in a process of its own (fork mode, its default),
 * so the segfault and the exit are reported as errors of those tests and
 * the program goes on; CK_TAP_LOG_FILE_NAME=- adds TAP on stdout to its
 * usual output.
 */
#include <check.h>
#include <stdlib.h>

START_TEST(passes)
{
    ck_assert_int_eq(2, 1 + 1);
}
END_TEST

START_TEST(fails)
{
    int sum = 1 + 1;
    ck_assert_int_eq(3, sum); /* the failing assertion */
}
END_TEST

START_TEST(segfaults)
{
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}
END_TEST

START_TEST(exits_early)
{
    exit(3);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("arith");
    TCase *core = tcase_create("core");
    tcase_add_test(core, passes);
    tcase_add_test(core, fails);
    tcase_add_test(core, segfaults);
    tcase_add_test(core, exits_early);
    suite_add_tcase(suite, core);
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_FORK);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
