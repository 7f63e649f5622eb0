#!/usr/bin/env python3
"""Tests of expected deaths: tests declared to die (.expect_signal,
.expect_exit) and death checks inside a test (ASSERT_SIGNAL, ASSERT_EXIT
and their EXPECT_ forms). Runs deaths_fixture (fixture_deaths.c) through
the real runner and checks each test's state and failures in its JSON
report, validated against schemas/.

    test_deaths.py --list
    test_deaths.py CASE --fixture PATH

Each CASE is one behaviour (one CTest test). Exits 0 when every check of
the case held, 1 otherwise, printing each broken check.
"""
import json
import os
import subprocess
import sys

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402

CASES = driver.Cases()


class Case(driver.Checks):
    def __init__(self, fixture):
        super().__init__("tattle-deaths-")
        self.fixture = fixture

    def run(self, *args):
        """Runs the fixture with the given arguments and a JSON report;
        returns (exit status, {id: result})."""
        cwd = self.new_dir()
        env = driver.clean_env()
        report = os.path.join(cwd, "report.json")
        done = subprocess.run([self.fixture, "--json", report, "--timeout", "20000"]
                              + list(args), cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=120 * driver.wait_scale())
        self.require(os.path.exists(report),
                     "no report; stderr: %r" % done.stderr[-2000:])
        with open(report, encoding="utf-8") as f:
            document = json.load(f)
        problems = validate_json.check_report(document, complete=True)
        self.expect(not problems, "the report fails the schema: %s" % problems)
        tests = {t["id"]: t for t in document["tests"]}
        return done.returncode, tests

    def state(self, tests, test_id, state):
        self.require(test_id in tests, "%s is not in the report" % test_id)
        return self.expect_eq(tests[test_id]["state"], state, test_id + " state")

    def failure(self, tests, test_id, kind, *words):
        """The test has one failure of `kind` whose message holds every
        word."""
        failures = tests[test_id]["failures"]
        self.require(len(failures) >= 1, "%s has no failure" % test_id)
        matching = [f for f in failures if f["kind"] == kind]
        self.require(matching, "%s: no %s failure in %r" % (test_id, kind, failures))
        message = matching[0]["message"]
        for word in words:
            self.expect(word in message, "%s: %r not in %r" % (test_id, word, message))
        return matching[0]


@CASES("api_deaths_declared_deaths")
def declared_deaths(c):
    """A test declared to die passes only when it dies that way after its
    setup; every other ending is a failure saying what happened and what
    was declared."""
    status, tests = c.run("declared/*")
    c.expect_eq(status, 1, "exit status (some declared deaths fail)")
    c.state(tests, "declared/aborts_as_declared", "passed")
    c.state(tests, "declared/exits_as_declared", "passed")
    c.expect_eq(tests["declared/aborts_as_declared"]["failures"], [],
                "an expected death is no failure")

    c.state(tests, "declared/killed_by_another_signal", "failed")
    f = c.failure(tests, "declared/killed_by_another_signal", "crash",
                  "SIGTERM", "expected to be killed by SIGABRT")
    c.expect_eq(f.get("signal"), "SIGTERM", "the real signal is reported")

    c.state(tests, "declared/exits_with_another_status", "failed")
    f = c.failure(tests, "declared/exits_with_another_status", "exit",
                  "status 4", "expected to exit with status 3")
    c.expect_eq(f.get("exit_code"), 4, "the real status is reported")

    c.state(tests, "declared/does_not_die", "failed")
    f = c.failure(tests, "declared/does_not_die", "exit",
                  "finished without dying", "expected to be killed by SIGABRT")
    c.expect(f["file"] and f["file"].endswith("fixture_deaths.c"),
             "the failure points at the test: %r" % f["file"])

    # The death happened, but a check failed before it.
    c.state(tests, "declared/dies_with_a_failed_check_too", "failed")
    c.failure(tests, "declared/dies_with_a_failed_check_too", "assertion")
    c.expect_eq(len(tests["declared/dies_with_a_failed_check_too"]["failures"]), 1,
                "the expected exit adds no failure of its own")

    # Dying in setup is not the declared death.
    c.state(tests, "declared/dies_in_setup", "invalid")
    c.failure(tests, "declared/dies_in_setup", "crash", "SIGABRT", "during setup")


@CASES("api_deaths_death_checks")
def death_checks(c):
    """ASSERT_SIGNAL / ASSERT_EXIT run the statement in a child: a death
    as expected holds; any other ending fails with how it really ended and
    the end of the child's stderr; the fatal form leaves the test."""
    status, tests = c.run("checks/*")
    c.expect_eq(status, 1, "exit status")
    c.state(tests, "checks/statement_dies_as_expected", "passed")

    c.state(tests, "checks/statement_returns", "failed")
    failures = tests["checks/statement_returns"]["failures"]
    c.expect_eq(len(failures), 1, "ASSERT_SIGNAL is fatal: nothing after it ran")
    f = failures[0]
    c.expect_eq(f["assertion"]["macro"], "ASSERT_SIGNAL", "macro")
    c.expect_eq(f["message"], "the guard must abort", "the user's message")
    c.expect_eq(f["assertion"]["left"], "returned without dying", "how it ended")
    c.expect_eq(f["assertion"]["right"], "killed by SIGABRT (Aborted)", "what was expected")

    c.state(tests, "checks/statement_dies_otherwise_with_stderr", "failed")
    failures = tests["checks/statement_dies_otherwise_with_stderr"]["failures"]
    c.expect_eq([f["assertion"]["macro"] for f in failures],
                ["EXPECT_EXIT", "EXPECT_SIGNAL"], "both non-fatal checks failed")
    if len(failures) == 2:
        first, second = failures
        c.expect("killed by SIGABRT" in first["message"] and
                 "expected: exited with status 2" in first["message"],
                 "how it ended and what was expected: %r" % first["message"])
        c.expect("about to abort: state is bad" in first["message"],
                 "the child's stderr tail is in the message: %r" % first["message"])
        c.expect("exited with status 1" in second["message"] and
                 "expected: killed by SIGSEGV" in second["message"],
                 "exit instead of a signal: %r" % second["message"])
    stderr = tests["checks/statement_dies_otherwise_with_stderr"]["output"]["stderr"]
    c.expect("after the checks" in stderr, "the test went on after EXPECT_: %r" % stderr)
    c.expect("about to abort" not in stderr,
             "the child's stderr goes to the check, not the test: %r" % stderr)

    c.state(tests, "checks/output_before_the_check_is_written_once", "passed")
    stdout = tests["checks/output_before_the_check_is_written_once"]["output"]["stdout"]
    c.expect_eq(stdout.count("before the check"), 1, "buffered output written once")


@CASES("api_deaths_no_fork_skips_declared_deaths")
def no_fork_skips_declared_deaths(c):
    """Under --no-fork a test declared to die is skipped with a reason:
    its death would be the runner's."""
    status, tests = c.run("--no-fork", "declared/*")
    c.expect_eq(status, 0, "exit status: every declared death skipped")
    for test_id, test in tests.items():
        c.expect_eq(test["state"], "skipped", test_id + " state")
        c.expect("--no-fork" in (test.get("skip_reason") or ""),
                 "%s: reason %r" % (test_id, test.get("skip_reason")))


if __name__ == "__main__":
    sys.exit(driver.fixture_main(CASES, Case))
