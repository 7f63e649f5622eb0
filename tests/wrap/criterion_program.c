/*
 * criterion_program.c — a real Criterion suite, for the tests of `tattle
 * run` on a framework's own output: in suite "arith", one test passes,
 * one fails an assertion (the line marked "the failing assertion"), one
 * skips and one writes through a null pointer. Criterion runs each test
 * in a process of its own, reports the segfault as that test's crash and
 * writes its JUnit report where --xml=FILE says.
 */
#include <criterion/criterion.h>
#include <stddef.h>

Test(arith, passes)
{
    cr_assert_eq(2, 1 + 1);
}

Test(arith, fails)
{
    int sum = 1 + 1;
    cr_assert_eq(3, sum, "three is not %d", sum); /* the failing assertion */
}

Test(arith, skips)
{
    cr_skip_test("not today");
}

Test(arith, segfaults)
{
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}
