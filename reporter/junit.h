/*
 * junit.h — the "junit" reporter: JUnit XML in the dialect Jenkins,
 * GitLab, Azure DevOps and the GitHub test-report actions read (SPEC
 * section 10; schemas/junit.xsd describes exactly what it writes).
 *
 *   <testsuites name=EXECUTABLE tests failures errors skipped time timestamp>
 *     <testsuite name=SUITE tests failures errors skipped time timestamp
 * hostname> <properties> seed, shard (when sharded), tattle.version
 * </properties> <testcase classname=SUITE name=NAME file line time>
 *         <properties> one per tag (a bare tag has the value "true")
 * </properties> <failure message=FIRST-LINE type=ASSERT_EQ>     an assertion
 *         <error message=FIRST-LINE type=SIGSEGV|timeout|exit|error>
 *                                       a crash, timeout, exit or error
 *         <skipped message=REASON/>     skipped or excluded
 *         <rerunFailure|rerunError message type><stackTrace/><system-out/>
 *           <system-err/></...>         after a failure: each earlier
 *                                       failed attempt of a retried test
 *         <flakyFailure|flakyError ...> a flaky pass: each failed attempt
 *         <system-out> the captured stdout, then the trace as text
 *         <system-err> the captured stderr
 *
 * A failed test has one <failure> or <error>: an <error> as soon as one of
 * its failures is not an assertion (a crash after a failed EXPECT is a
 * crash), typed by that failure; its text holds every failure of the test
 * (message, expression, both values, place, stack), which attempt that
 * was when the test ran more than once, and the command that reruns the
 * test. A retried test's earlier failed attempts follow as Maven
 * Surefire writes them: <rerunFailure>s after a final failure, and one
 * <flakyFailure> per failed attempt of a flaky pass. A test's output is
 * written as captured (head and tail, with the marker between).
 *
 * Results arrive in run order (shuffled, several jobs), but a suite's test
 * cases must sit together: each test case is written as it finishes into
 * a scratch file beside the report, and only its suite, offset and length
 * stay in memory (24 bytes a test); `end` writes the suites in the order
 * they first finished, each with its test cases copied in the kernel, into
 * a file that gets its name when complete (report_output.h). Every string
 * goes through the one escaping writer, reporter/xml_writer.h. The agent
 * modes of the JSON report (--failures-only, ...) do not apply: CI reads
 * every test.
 */
#ifndef TATTLE_REPORTER_JUNIT_H
#define TATTLE_REPORTER_JUNIT_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_junit;

#endif /* TATTLE_REPORTER_JUNIT_H */
