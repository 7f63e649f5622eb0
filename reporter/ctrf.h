/*
 * ctrf.h — the "ctrf" reporter: the Common Test Report Format, the open
 * JSON test report standard (reportFormat "CTRF", specVersion 0.0.0, the
 * version of the schema the reference implementation, npm's `ctrf`,
 * validates against; SPEC section 10).
 *
 *   {"reportFormat":"CTRF","specVersion":"0.0.0","reportId":UUID,
 *    "results":{"tool":{"name":"tattle","version"},
 *               "tests":[TEST,...],
 *               "summary":{"tests","passed","failed","skipped","pending",
 *                          "other","flaky","start","stop",
 *                          "duration","extra":{tattle's summary}},
 *               "environment":{"osPlatform","osRelease","shardId"},
 *               "extra":{"run":{tattle's run object}}},
 *    "timestamp","generatedBy":"tattle"}
 *   TEST = {"testId":"suite/name","name","status","rawStatus","duration",
 *           "suite":[SUITE],"filePath","line","tags":["area:net"],
 *           "message","trace","retries","flaky","stdout":[line],
 *           "stderr":[line],"retryAttempts":[...],
 *           "extra":{"state","attempts","failures","trace","output","rerun"}}
 *
 * status: passed, failed (failed and invalid tests), skipped (skipped and
 * excluded ones); rawStatus keeps tattle's state. duration is in
 * milliseconds, start and stop in milliseconds since the epoch. message is
 * the first failure's message (a skip's reason), trace every failure as
 * text (values, place, stack: plain_text.h). retryAttempts holds the
 * failed runs before the one the test object stands for, each with its run
 * number, failures and output: every failed run of a flaky pass, the
 * earlier ones of a failed test. retries counts them (--repeat runs that
 * passed are not retries).
 * tattle's own FAILURE and TRACE objects (SPEC section 6, the same bytes
 * as the JSON report) sit under the test's `extra`.
 *
 * Key order is free in JSON, so the tests come before the summary: each
 * test is printed as it finishes into a file that gets its name when the
 * report is complete (report_output.h), and memory stays flat. The agent
 * modes of the JSON report do not apply.
 */
#ifndef TATTLE_REPORTER_CTRF_H
#define TATTLE_REPORTER_CTRF_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_ctrf;

#endif /* TATTLE_REPORTER_CTRF_H */
