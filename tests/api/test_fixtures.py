#!/usr/bin/env python3
"""Tests of fixtures with state: a setup's pointer read by the body through
tattle_fixture() / tattle_suite_fixture() and handed to the teardown, plain
`void fn(void)` fixtures beside them, and failing setups that name the
fixture. Runs fixtures_fixture (fixture_fixtures.c) through the real
runner and checks its JSON report, validated against schemas/, and its
console.

    test_fixtures.py --list
    test_fixtures.py CASE --fixture PATH

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
        super().__init__("tattle-fixtures-")
        self.fixture = fixture

    def run(self, *args):
        """Runs the fixture with a JSON report; returns (exit status,
        {id: result}, console text)."""
        cwd = self.new_dir()
        env = driver.clean_env()
        env["NO_COLOR"] = "1"
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
        console = done.stdout.decode("utf-8", "replace") + \
            done.stderr.decode("utf-8", "replace")
        return done.returncode, tests, console

    def passed(self, tests, test_id):
        self.require(test_id in tests, "%s is not in the report" % test_id)
        test = tests[test_id]
        self.expect_eq(test["state"], "passed",
                       "%s state (failures: %r)" % (test_id, test["failures"]))
        return test


@CASES("api_fixtures_body_reads_setup_state")
def body_reads_setup_state(c):
    """The body reads the pointer the setup returned: the suite's when the
    test has no setup of its own, the test's when it has one, the suite's
    still through tattle_suite_fixture(); NULL without a setup."""
    status, tests, _ = c.run("stateful/*", "plain/no_fixture_is_null")
    c.expect_eq(status, 0, "exit status")
    c.passed(tests, "stateful/body_reads_the_suite_fixture")
    c.passed(tests, "stateful/test_setup_takes_precedence")
    c.passed(tests, "plain/no_fixture_is_null")


@CASES("api_fixtures_teardown_receives_state")
def teardown_receives_state(c):
    """Each teardown is given its own setup's pointer, with what the body
    left in it."""
    status, tests, _ = c.run("stateful/*")
    c.expect_eq(status, 0, "exit status")
    suite_only = c.passed(tests, "stateful/body_reads_the_suite_fixture")
    c.expect("suite teardown got magic 42 balance 250"
             in suite_only["output"]["stdout"],
             "the suite teardown saw the body's change: %r"
             % suite_only["output"]["stdout"])
    both = c.passed(tests, "stateful/test_setup_takes_precedence")
    stdout = both["output"]["stdout"]
    c.expect("test teardown got owner test balance 5" in stdout,
             "the test teardown got the test's fixture: %r" % stdout)
    c.expect("suite teardown got magic 42 balance 100" in stdout,
             "the suite teardown got the suite's fixture: %r" % stdout)
    c.expect(stdout.find("test teardown") < stdout.find("suite teardown"),
             "the test's teardown runs before the suite's: %r" % stdout)


@CASES("api_fixtures_plain_fixtures_still_run")
def plain_fixtures_still_run(c):
    """`void fn(void)` setups and teardowns run as before, with the
    signature unknown (C) or said with .setup_signature."""
    status, tests, _ = c.run("plain/*")
    c.expect_eq(status, 0, "exit status")
    for test_id, value in (("plain/void_fixtures_still_run", 2),
                           ("plain/signatures_said_exactly", 3)):
        test = c.passed(tests, test_id)
        c.expect("plain teardown ran with %d" % value in test["output"]["stdout"],
                 "%s: the teardown ran after the body: %r"
                 % (test_id, test["output"]["stdout"]))


@CASES("api_fixtures_failed_setup_names_the_fixture")
def failed_setup_names_the_fixture(c):
    """A setup that fails (an assertion, FAIL, a crash) leaves the test
    invalid as before, the body unrun, and each failure names the fixture
    (its role and function) in the JSON and on the console."""
    status, tests, console = c.run("broken/*", "broken_suite/*")
    c.expect_eq(status, 1, "exit status")
    expected = {
        "broken/test_setup_fails": ("assertion", "test setup refuse_to_connect"),
        "broken/test_setup_crashes": ("crash", "test setup crash_while_loading"),
        "broken_suite/suite_setup_fails": ("assertion", "suite setup refuse_suite"),
    }
    for test_id, (kind, fixture) in expected.items():
        c.require(test_id in tests, "%s is not in the report" % test_id)
        test = tests[test_id]
        c.expect_eq(test["state"], "invalid", test_id + " state")
        c.expect("the body ran" not in test["output"]["stdout"],
                 "%s: the body did not run" % test_id)
        failures = test["failures"]
        c.require(failures, "%s has no failure" % test_id)
        c.expect_eq(failures[0]["kind"], kind, test_id + " kind")
        c.expect_eq(failures[0].get("fixture"), fixture, test_id + " fixture")
        c.expect("in the " + fixture in console,
                 "the console names %r: %s" % (fixture, console[-3000:]))
    message = tests["broken/test_setup_fails"]["failures"][0]["message"]
    c.expect_eq(message, "the database did not answer", "the assertion's message")


if __name__ == "__main__":
    sys.exit(driver.fixture_main(CASES, Case))
