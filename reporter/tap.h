/*
 * tap.h — the "tap" reporter: TAP version 14 (SPEC section 10), the
 * protocol of Perl's prove and of Node's tap-parser, streamed as tests
 * finish.
 *
 *   TAP version 14
 *   1..N                                   N: the tests selected
 *   ok 1 - suite/name
 *   not ok 2 - suite/other
 *     ---                                  a failed or flaky test only
 *     message: ...                         libyaml's emitter writes the
 *     severity: fail | error               block (valid YAML whatever the
 *     kind: assertion | crash | ...        test printed), indented two
 *     at: {file, line}                     spaces
 *     expression, found, wanted            an assertion's values
 *     signal, exit_code, timeout_ms, stack
 *     failures: [...]                      the test's further failures
 *     state, duration_ms, attempts, flaky
 *     output: {stdout, stderr}             the tails of the output
 *     trace: {recorded, dropped, overflow, events}  the trace's last lines
 *     rerun: ...
 *     ...
 *   ok 3 - suite/skipped # SKIP reason     skipped and excluded tests
 *   Bail out! the run was interrupted      at the end of an interrupted run
 *
 * A description is the test's id with `\` and `#` escaped (TAP 14), line
 * breaks turned into spaces and other control characters into U+FFFD, so
 * a test point is always one line. To standard output ("-") each test
 * point goes out as its test finishes; a file is written beside its
 * destination and gets its name at the end (report_output.h). The agent
 * modes of the JSON report do not apply: a TAP consumer counts every
 * test of the plan.
 */
#ifndef TATTLE_REPORTER_TAP_H
#define TATTLE_REPORTER_TAP_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_tap;

#endif /* TATTLE_REPORTER_TAP_H */
