/*
 * github.h — the "github" reporter: GitHub Actions workflow commands on
 * standard output (or `--reporter github=FILE`), so a failed run shows its
 * failures on the lines of code that failed, and a Markdown job summary.
 *
 *   ::error file=F,line=L,title=SUITE/NAME::TEXT    one per failure of a
 *                                    failed or invalid test (assertion,
 *                                    crash, timeout, exit, error): TEXT is
 *                                    the failure's message, expression,
 *                                    values, place, stack, and the command
 *                                    that reruns the test
 *   ::warning file=F,line=L,title=SUITE/NAME (flaky)::TEXT
 *                                    a test that passed on a retry: its
 *                                    failed attempt
 *   ::group::SUITE/NAME output       a failed test's stdout, stderr and
 *   ::stop-commands::TOKEN           trace, with workflow commands turned
 *   ...                              off while they are written (TOKEN is
 *   ::TOKEN::                        random and not in the output), so a
 *   ::endgroup::                     test cannot issue a command
 *
 * Every value is escaped by the workflow-command rules: in the message
 * `%`, CR and LF become `%25`, `%0D` and `%0A`; in a property (file,
 * title) `:` and `,` also become `%3A` and `%2C`. A line of tattle's
 * always starts with `::` and holds no raw CR or LF, whatever a test
 * printed. Characters a log should not carry (the C0 and C1 controls but
 * tab, DEL) are shown as `\u001b`, invalid UTF-8 as U+FFFD. A file under
 * GITHUB_WORKSPACE is named relative to it (annotations name files of the
 * repository).
 *
 * When GITHUB_STEP_SUMMARY names a file, `end` appends to it a Markdown
 * summary: the counts, a table of the failed tests (id, place, first line
 * of the first failure) and the commands that rerun them. Text from tests
 * is escaped for Markdown there (every ASCII punctuation character
 * backslash-escaped; the rerun commands in a code fence longer than any
 * run of backticks they hold).
 */
#ifndef TATTLE_REPORTER_GITHUB_H
#define TATTLE_REPORTER_GITHUB_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_github;

/** Length of a stop-commands token: 32 random hex digits. */
#define TATTLE__GITHUB_TOKEN_LENGTH 32

/** Draws a token for `::stop-commands::TOKEN` ... `::TOKEN::` around text
 * from tests: random hex digits (getrandom), drawn again in the unlikely
 * case that one of the `count` texts holds them. `token` has room for
 * TATTLE__GITHUB_TOKEN_LENGTH + 1 bytes and is NUL-terminated. */
void tattle__github_stop_token(char *token, const char *const *texts,
                               const size_t *lengths, size_t count);

#endif /* TATTLE_REPORTER_GITHUB_H */
