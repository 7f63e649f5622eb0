/*
 * cmocka_program.c — a real cmocka suite, for the tests of `tattle run`
 * on a framework's own output: one test passes, one fails an assertion
 * (the line marked "the failing assertion"), one skips and one writes
 * through a null pointer. cmocka prints TAP with CMOCKA_MESSAGE_OUTPUT=TAP
 * and writes a JUnit report with =XML and CMOCKA_XML_FILE; it catches the
 * segfault itself and reports that test failed, unless CMOCKA_TEST_ABORT=1
 * lets the program die of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void passes(void **state)
{
    (void)state;
    assert_int_equal(2, 1 + 1);
}

static void fails(void **state)
{
    (void)state;
    int sum = 1 + 1;
    assert_int_equal(3, sum); /* the failing assertion */
}

static void skips(void **state)
{
    (void)state;
    skip();
}

static void segfaults(void **state)
{
    (void)state;
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(passes),
        cmocka_unit_test(fails),
        cmocka_unit_test(skips),
        cmocka_unit_test(segfaults),
    };
    return cmocka_run_group_tests_name("arith", tests, NULL, NULL);
}
