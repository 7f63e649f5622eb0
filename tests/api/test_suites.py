#!/usr/bin/env python3
"""Tests of suite fixtures paid once: SUITE(.before_all, .after_all). Runs
suites_fixture (fixture_suites.c) through the real runner, in a fresh
working directory each run, and checks each test's state and failures in
its JSON report (validated against schemas/) and the evidence files the
fixtures and tests write (which process ran what, how often).

    test_suites.py --list
    test_suites.py CASE --fixture PATH

Each CASE is one behaviour (one CTest test). Exits 0 when every check of
the case held, 1 otherwise, printing each broken check.
"""
import json
from xml.etree import ElementTree
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
        super().__init__("tattle-suites-")
        self.fixture = fixture
        # The tattle command of the same build (cli/tattle), for merge and
        # convert.
        self.tattle = os.path.join(os.path.dirname(fixture), os.pardir,
                                   os.pardir, "cli", "tattle")
        self.cwd = None

    def run(self, *args):
        """Runs the fixture with the given arguments and a JSON report in a
        new directory; returns (exit status, {id: result})."""
        self.cwd = self.new_dir()
        env = driver.clean_env()
        report = os.path.join(self.cwd, "report.json")
        done = subprocess.run([self.fixture, "--json", report, "--timeout", "20000"]
                              + list(args), cwd=self.cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=120 * driver.wait_scale())
        self.done = done
        self.require(os.path.exists(report),
                     "no report; stderr: %r" % done.stderr[-2000:])
        with open(report, encoding="utf-8") as f:
            document = json.load(f)
        problems = validate_json.check_report(document, complete=True)
        self.expect(not problems, "the report fails the schema: %s" % problems)
        tests = {t["id"]: t for t in document["tests"]}
        return done.returncode, tests

    def lines(self, name):
        """The lines of an evidence file of the last run ([] when absent)."""
        path = os.path.join(self.cwd, name)
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8") as f:
            return f.read().split("\n")[:-1]

    def state(self, tests, test_id, state):
        self.require(test_id in tests, "%s is not in the report" % test_id)
        return self.expect_eq(tests[test_id]["state"], state, test_id + " state")

    def stacks(self, failure, *functions):
        """The failure carries the stacks of the fixture's threads, one of
        them in each function; skips the case when ptrace is refused."""
        if "ptrace was refused" in failure["message"]:
            print("skipped: ptrace is refused on this machine: %s"
                  % failure["message"])
            sys.exit(77)
        stacks = failure.get("stacks")
        self.require(stacks, "no stacks in %r" % failure)
        for function in functions:
            self.expect(any(frame["function"] == function
                            for thread in stacks for frame in thread["frames"]),
                        "no thread in %s: %r" % (function, stacks))
        return stacks

    def error(self, tests, test_id, *words):
        """The test failed with an error failure whose message holds every
        word."""
        self.state(tests, test_id, "failed")
        failures = tests[test_id]["failures"]
        errors = [f for f in failures if f["kind"] == "error"]
        self.require(errors, "%s: no error failure in %r" % (test_id, failures))
        message = errors[0]["message"]
        for word in words:
            self.expect(word in message, "%s: %r not in %r" % (test_id, word, message))
        return errors[0]


READY = ["ready/sees_state_%d" % i for i in range(1, 7)]


@CASES("api_suites_state_seen_once_j2")
def state_seen_once(c):
    """Under -j2, before_all runs once, in the process every test of the
    suite is forked from; every test sees the state it set (a global and
    heap memory), a test's change stays in its own copy, and after_all runs
    once, in that same process, seeing the state unchanged."""
    status, tests = c.run("-j", "2", "ready/*")
    c.expect_eq(status, 0, "exit status")
    for test_id in READY + ["ready/changes_its_own_copy",
                            "ready/sees_state_after_a_change"]:
        c.state(tests, test_id, "passed")
    before = c.lines("ready_before_all.log")
    c.require(len(before) == 1, "before_all ran %d times: %r" % (len(before), before))
    server = before[0].split()[1]
    parents = [line.split()[1] for line in c.lines("ready_parents.log")
               if line.startswith("parent ")]
    c.expect_eq(len(parents), len(READY), "tests that noted their parent")
    c.expect(all(p == server for p in parents),
             "a test's parent is not the before_all process %s: %r" % (server, parents))
    tests_ran = [line.split()[1] for line in c.lines("ready_parents.log")
                 if line.startswith("test ")]
    c.expect(server not in tests_ran, "a test ran in the before_all process")
    after = c.lines("ready_after_all.log")
    c.expect_eq(after, ["after_all-intact " + server], "after_all evidence")


@CASES("api_suites_j2_runs_a_suite_side_by_side_from_one_server")
def side_by_side(c):
    """Under -j2 the two jobs run tests of one suite at the same time,
    each forked from the one process before_all ran in: the two tests meet
    at a FIFO (each open blocks until the other's), so they pass only
    when they run at once, and each checks its parent is that process."""
    status, tests = c.run("-j", "2", "side_by_side/*")
    c.expect_eq(status, 0, "exit status: %s" % c.done.stdout[-2000:])
    c.state(tests, "side_by_side/reader", "passed")
    c.state(tests, "side_by_side/writer", "passed")


@CASES("api_suites_schema_describes_fixture_errors")
def schema_describes_fixture_errors(c):
    """The report's schema says how a suite fixture's failure is reported
    (kind error, the message naming the fixture and the suite), and a
    failing before_all's and after_all's messages read as it says."""
    with open(os.path.join(SOURCE_DIR, "schemas", "report.schema.json"),
              encoding="utf-8") as f:
        schema = json.load(f)
    kind = schema["$defs"]["failure"]["properties"]["kind"]
    description = kind.get("description", "")
    for prefix in ("before_all of suite 'S' failed: ",
                   "after_all of suite 'S' failed: "):
        c.expect(prefix in description,
                 "the failure kind's description names %r: %r" % (prefix, description))
    status, tests = c.run("asserting/first")
    c.error(tests, "asserting/first", "before_all of suite 'asserting' failed: ")
    status, tests = c.run("leaky/*")
    errors = [f["message"] for t in tests.values() for f in t["failures"]
              if f["kind"] == "error"]
    c.expect_eq([m.startswith("after_all of suite 'leaky' failed: ")
                 for m in errors], [True], "the after_all error: %r" % errors)


@CASES("api_suites_after_all_after_crash")
def after_all_after_crash(c):
    """after_all runs after the suite's last test even when a test of it
    crashed; the crash is the test's own result."""
    status, tests = c.run("crashing/*")
    c.expect(status != 0, "exit status is 0 with a crashed test")
    c.state(tests, "crashing/passes", "passed")
    c.state(tests, "crashing/segfaults", "failed")
    kinds = [f["kind"] for f in tests["crashing/segfaults"]["failures"]]
    c.expect_eq(kinds, ["crash"], "the crashed test's failures")
    c.expect_eq(len(c.lines("crashing_after_all.log")), 1, "after_all runs")


@CASES("api_suites_before_all_assertion")
def before_all_assertion(c):
    """A before_all whose assertion fails fails every test of the suite
    with an error naming the fixture and the failed assertion; no test
    body runs and the run's exit status is non-zero."""
    status, tests = c.run("asserting/*")
    c.expect_eq(status, 1, "exit status")
    for name in ("first", "second", "third"):
        c.error(tests, "asserting/" + name, "before_all of suite 'asserting' failed",
                "connections", "fixture_suites.c")
    c.expect_eq(len(c.lines("asserting_before_all.log")), 1, "before_all runs once")
    c.expect_eq(c.lines("asserting_ran.log"), [], "no test body runs")


@CASES("api_suites_before_all_crash_exit")
def before_all_crash_exit(c):
    """A before_all that crashes or exits fails every test of its suite
    with an error saying how its process ended; other suites in the run
    are unaffected."""
    status, tests = c.run("aborting/*", "exiting/*", "ready/sees_state_1")
    c.expect_eq(status, 1, "exit status")
    for name in ("first", "second"):
        c.error(tests, "aborting/" + name, "before_all of suite 'aborting' failed",
                "SIGABRT")
    c.expect_eq(c.lines("aborting_ran.log"), [], "no test body runs")
    c.error(tests, "exiting/first", "before_all of suite 'exiting' failed",
            "exited with status 3")
    c.state(tests, "ready/sees_state_1", "passed")


@CASES("api_suites_before_all_crash_frames")
def before_all_crash_frames(c):
    """A before_all that segfaults fails its suite's test with a one-line
    error (which fixture, which signal) whose frames are the failure's
    frames, as a test's crash's are: innermost first, named after the
    function it crashed in and the fixture itself, in the JSON report's
    stacktrace and one per line on the console; `tattle convert` writes
    them back the same."""
    status, tests = c.run("segfaulting/*")
    c.expect_eq(status, 1, "exit status")
    c.expect_eq(c.lines("segfaulting_ran.log"), [], "no test body runs")
    error = c.error(tests, "segfaulting/first",
                    "before_all of suite 'segfaulting' failed", "SIGSEGV")
    c.expect("\n" not in error["message"],
             "the message is not one line: %r" % error["message"])
    functions = [frame.get("function")
                 for frame in error.get("stacktrace", [])]
    c.expect(functions[:2] == ["open_a_missing_database",
                               "segfaulting_before_all"],
             "the fixture's frames, innermost first, are not the "
             "failure's: %r" % error)
    console = c.done.stdout.decode(errors="replace")
    converted = subprocess.run(
        [c.tattle, "convert", os.path.join(c.cwd, "report.json"),
         "--to", "console"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        timeout=60 * driver.wait_scale())
    c.expect_eq(converted.returncode, 0,
                "convert: %r" % converted.stderr[-800:])
    for name, text in (("the console", console),
                       ("the converted console",
                        converted.stdout.decode(errors="replace"))):
        c.expect("\\x0a" not in text,
                 "%s escapes a newline: %r" % (name, text[-2000:]))
        lines = text.split("\n")
        for function in ("open_a_missing_database", "segfaulting_before_all"):
            c.expect(any(line.lstrip().startswith("#") and
                         (" %s " % function) in line + " " for line in lines),
                     "%s has no frame line of %s: %r"
                     % (name, function, text[-2000:]))


@CASES("api_suites_after_all_crash_frames_beside_the_test_s")
def after_all_crash_frames_beside_the_test_s(c):
    """A test that segfaults, then its suite's after_all that segfaults:
    the test's result has both crashes, each with its own frames (the
    test's named by its id, after_all's by the fixture function), and the
    error is one line."""
    status, tests = c.run("crashing_twice/*")
    c.expect_eq(status, 1, "exit status")
    c.state(tests, "crashing_twice/segfaults", "failed")
    failures = tests["crashing_twice/segfaults"]["failures"]
    frames = {f["kind"]: [frame.get("function")
                          for frame in f.get("stacktrace", [])]
              for f in failures}
    c.expect_eq(frames.get("crash", [])[:2],
                ["open_a_missing_database", "crashing_twice/segfaults"],
                "the test's crash frames")
    c.expect_eq(frames.get("error", [])[:2],
                ["open_a_missing_database", "crashing_twice_after_all"],
                "after_all's crash frames")
    errors = [f["message"] for f in failures if f["kind"] == "error"]
    c.expect(len(errors) == 1 and "after_all of suite 'crashing_twice' "
             "failed" in errors[0] and "\n" not in errors[0],
             "after_all's error: %r" % errors)


@CASES("api_suites_before_all_timeout")
def before_all_timeout(c):
    """A before_all that does not finish is stopped at the timeout of the
    test that started it, and its suite's tests fail with the error, which
    keeps what before_all had recorded before it hung; the helper it
    forked is killed with it (a later test finds it gone)."""
    status, tests = c.run("-j", "1", "hanging/*", "after_hanging/*")
    c.expect_eq(status, 1, "exit status")
    c.state(tests, "after_hanging/helper_is_gone", "passed")
    for name in ("first", "second"):
        c.error(tests, "hanging/" + name, "before_all of suite 'hanging' failed",
                "a connection was left open", "did not finish within 1000 ms")
    c.expect_eq(len(c.lines("hanging_before_all.log")), 1, "before_all started")


@CASES("api_suites_before_all_timeout_shows_stacks")
def before_all_timeout_stacks(c):
    """A before_all that blocks forever is halted at the timeout like a
    test: the error on the test that started the suite shows where every
    thread of it was (its own, in the function it blocks in, and the thread
    it started, and the helper process it forked), and keeps what it
    recorded before it hung; the suite's other test fails with the error
    too, and another suite is unaffected."""
    status, tests = c.run("-j", "1", "hanging/*", "ready/sees_state_1")
    c.expect_eq(status, 1, "exit status")
    c.state(tests, "ready/sees_state_1", "passed")
    errors = {}
    for name in ("first", "second"):
        errors[name] = c.error(tests, "hanging/" + name,
                               "before_all of suite 'hanging' failed",
                               "a connection was left open",
                               "did not finish within 1000 ms")
    stacks = c.stacks(errors["first"], "read_a_pipe_nobody_writes",
                      "blocked_fixture_thread")
    c.expect_eq(len({thread["pid"] for thread in stacks}), 2,
                "processes in the stacks (the suite server, its helper)")


@CASES("api_suites_after_all_timeout_shows_stacks")
def after_all_timeout_stacks(c):
    """An after_all that blocks forever after its suite's last test is
    halted at that test's timeout: its error on that test shows where the
    fixture was, and what it printed follows the test's own output. Run at
    the end of the run (--retry), its own result shows the same."""
    status, tests = c.run("blocked_after/*")
    c.expect_eq(status, 1, "exit status")
    error = c.error(tests, "blocked_after/only",
                    "after_all of suite 'blocked_after' failed",
                    "did not finish within 1000 ms")
    c.stacks(error, "read_a_pipe_nobody_writes")
    c.expect_eq(tests["blocked_after/only"]["output"]["stdout"],
                "the test's own line\n"
                "[tattle: what after_all of suite 'blocked_after' printed]\n"
                "after_all waits for a writer\n", "stdout")
    status, tests = c.run("--retry", "1", "blocked_after/*")
    c.expect_eq(status, 1, "exit status with --retry")
    c.state(tests, "blocked_after/only", "passed")
    error = c.error(tests, "blocked_after/(after_all)",
                    "after_all of suite 'blocked_after' failed",
                    "did not finish within 1000 ms")
    c.stacks(error, "read_a_pipe_nobody_writes")


@CASES("api_suites_after_all_output_follows_the_last_test")
def after_all_output_on_last_test(c):
    """What an after_all run right after its suite's last test prints
    follows that test's output in its result, under a heading that names
    the fixture, on each stream it printed to: in the JSON report, the
    JUnit report and the console. The counts of bytes are those of the
    output shown, heading included."""
    status, tests = c.run("--junit", "report.xml", "leaky/*")
    c.expect_eq(status, 1, "exit status")
    heading = "[tattle: what after_all of suite 'leaky' printed]\n"
    output = tests["leaky/last"]["output"]
    c.expect_eq(output["stdout"], heading + "after_all counted 2 leaked\n",
                "stdout")
    c.expect_eq(output["stderr"], heading + "after_all stderr line\n",
                "stderr")
    c.expect_eq((output["stdout_bytes"], output["stderr_bytes"]),
                (len(heading) + 27, len(heading) + 22), "bytes counted")
    c.expect_eq(tests["leaky/first"]["output"]["stdout"], "",
                "the first test's output")
    cases = {case.get("name"): case for case in
             ElementTree.parse(os.path.join(c.cwd, "report.xml")).getroot()
             .iter("testcase")}
    c.require("last" in cases, "no JUnit testcase 'last': %r" % sorted(cases))
    for element, line in (("system-out", "after_all counted 2 leaked"),
                          ("system-err", "after_all stderr line")):
        text = cases["last"].findtext(element) or ""
        c.expect(heading + line in text,
                 "JUnit %s: %r" % (element, text))
    console = c.done.stdout.decode(errors="replace")
    c.expect("what after_all of suite 'leaky' printed" in console and
             "after_all counted 2 leaked" in console,
             "the console shows the after_all's output: %r" % console[-2000:])


@CASES("api_suites_after_all_failure")
def after_all_failure(c):
    """A failing after_all is reported as an error on the suite's last test
    to finish, naming the fixture and its failure."""
    status, tests = c.run("leaky/*")
    c.expect_eq(status, 1, "exit status")
    c.state(tests, "leaky/first", "passed")
    c.error(tests, "leaky/last", "after_all of suite 'leaky' failed", "leaked")


@CASES("api_suites_late_after_all_failure_is_a_result")
def late_after_all_failure(c):
    """With --retry, after_all runs at the end of the run, after its
    suite's tests were reported: its failure is a result of its own,
    `leaky/(after_all)`, in the JSON, the summary and the JUnit, with a
    rerun command that runs the suite again."""
    status, tests = c.run("--retry", "1", "--junit", "report.xml",
                          "--tap", "report.tap", "--jsonl", "report.jsonl",
                          "leaky/*")
    c.expect_eq(status, 1, "exit status")
    c.state(tests, "leaky/first", "passed")
    c.state(tests, "leaky/last", "passed")
    error = c.error(tests, "leaky/(after_all)",
                    "after_all of suite 'leaky' failed", "leaked")
    c.expect_eq(error.get("fixture"), None, "no test fixture is named")
    late = tests.get("leaky/(after_all)", {})
    c.expect_eq((late.get("suite"), late.get("name"), late.get("attempts")),
                ("leaky", "(after_all)", 1), "suite, name, attempts")
    c.expect("'leaky/*'" in (late.get("rerun") or ""),
             "the rerun command runs the suite: %r" % late.get("rerun"))
    with open(os.path.join(c.cwd, "report.json"), encoding="utf-8") as f:
        summary = json.load(f)["summary"]
    c.expect_eq((summary["total"], summary["passed"], summary["failed"],
                 summary["result"]), (3, 2, 1, "failed"), "summary")
    cases = ElementTree.parse(os.path.join(c.cwd, "report.xml")).getroot()
    errors = [(case.get("classname"), case.get("name"))
              for case in cases.iter("testcase") if case.find("error") is not None]
    c.expect_eq(errors, [("leaky", "(after_all)")], "JUnit error testcases")
    with open(os.path.join(c.cwd, "report.tap"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    c.expect_eq(tap_plan_and_points(lines), (["1..3"], 3),
                "TAP: the plan counts the after_all's result")
    # The stream, written again as TAP, also counts it.
    done = subprocess.run([c.tattle, "convert", os.path.join(c.cwd, "report.jsonl"),
                           "--to", "tap"], capture_output=True, text=True)
    c.expect_eq((done.returncode,
                 tap_plan_and_points(done.stdout.splitlines())),
                (0, (["1..3"], 3)), "the stream converted to TAP")


@CASES("api_suites_late_after_all_result_has_its_output")
def late_after_all_output(c):
    """The result of a late after_all carries what the fixture printed, on
    stdout and on stderr, as a test's result would."""
    status, tests = c.run("--retry", "1", "leaky/*")
    c.expect_eq(status, 1, "exit status")
    late = tests.get("leaky/(after_all)")
    c.require(late, "no leaky/(after_all) result: %r" % sorted(tests))
    output = late["output"]
    c.expect_eq(output["stdout"], "after_all counted 2 leaked\n", "stdout")
    c.expect_eq(output["stderr"], "after_all stderr line\n", "stderr")
    c.expect_eq((output["stdout_bytes"], output["stderr_bytes"]), (27, 22),
                "bytes written")
    for test_id in ("leaky/first", "leaky/last"):
        c.expect_eq(tests[test_id]["output"]["stdout"], "",
                    test_id + ": after_all's output is not a test's")


def tap_plan_and_points(lines):
    """The plan lines of a TAP document, and how many test points it has."""
    plans = [line for line in lines if line.startswith("1..")]
    points = [line for line in lines if line.startswith(("ok ", "not ok "))]
    return plans, len(points)


@CASES("api_suites_late_after_all_after_max_failures")
def late_after_all_after_max_failures(c):
    """--max-failures stops the run while a test of the suite is still to
    come: after_all runs at the end, and its result is counted by the TAP
    plan written at the end."""
    status, tests = c.run("-j", "1", "--max-failures", "1", "--tap",
                          "report.tap", "leaky_stopped/*")
    c.expect_eq(status, 1, "exit status")
    c.state(tests, "leaky_stopped/fails", "failed")
    c.state(tests, "leaky_stopped/never_starts", "skipped")
    c.error(tests, "leaky_stopped/(after_all)",
            "after_all of suite 'leaky_stopped' failed", "leaked")
    with open(os.path.join(c.cwd, "report.tap"), encoding="utf-8") as f:
        c.expect_eq(tap_plan_and_points(f.read().splitlines()), (["1..4"], 4),
                    "TAP plan and points")


@CASES("api_suites_late_after_all_shards_merge")
def late_after_all_shards_merge(c):
    """Each shard runs the suite's after_all for itself; their results have
    ids of their own, so `tattle merge` joins the shards into one report."""
    reports = []
    for index in (0, 1):
        status, tests = c.run("--retry", "1", "--shard", "%d/2" % index,
                              "leaky/*")
        c.expect_eq(status, 1, "shard %d exit status" % index)
        late = [test_id for test_id in tests if "(after_all" in test_id]
        c.expect_eq(late, ["leaky/(after_all, shard %d of 2)" % index],
                    "shard %d's after_all result" % index)
        reports.append(os.path.join(c.cwd, "report.json"))
    merged = os.path.join(c.new_dir(), "merged.json")
    done = subprocess.run([c.tattle, "merge", "-o", merged] + reports,
                          capture_output=True, text=True)
    c.expect_eq(done.returncode, 0, "tattle merge: %s" % done.stderr)
    if done.returncode == 0:
        with open(merged, encoding="utf-8") as f:
            summary = json.load(f)["summary"]
        c.expect_eq((summary["total"], summary["failed"]), (4, 2),
                    "merged total and failed")


@CASES("api_suites_hostile_kills_server")
def hostile_kills_server(c):
    """A test that kills the process its suite's tests are forked from is
    reported with an error saying so, the suite's later tests are reported
    as not run for it (error), and another suite in the same run, before
    and after, passes."""
    status, tests = c.run("hostile/*", "ready/*")
    c.expect_eq(status, 1, "exit status")
    c.state(tests, "hostile/a_runs_first", "passed")
    # It may kill the server before the server said it started: then the
    # error says the server ended while the test was being started.
    c.error(tests, "hostile/b_kills_its_parent", "suite server of 'hostile'",
            "while this test")
    c.error(tests, "hostile/c_runs_after", "suite server of 'hostile'",
            "before this test could start")
    c.expect_eq(c.lines("hostile_after.log"), [], "no later test body runs")
    for test_id in READY:
        c.state(tests, test_id, "passed")


@CASES("api_suites_no_fork")
def no_fork(c):
    """With --no-fork, before_all runs once in the runner's process before
    the suite's tests and after_all after them; a failing before_all still
    fails its tests with the error."""
    status, tests = c.run("--no-fork", "ready/sees_state_*", "asserting/*")
    c.expect_eq(status, 1, "exit status")
    for test_id in READY:
        c.state(tests, test_id, "passed")
    before = c.lines("ready_before_all.log")
    c.require(len(before) == 1, "before_all ran %d times" % len(before))
    runner = before[0].split()[1]
    tests_ran = {line.split()[1] for line in c.lines("ready_parents.log")
                 if line.startswith("test ")}
    c.expect_eq(tests_ran, {runner}, "tests ran in before_all's process")
    c.expect_eq(c.lines("ready_after_all.log"), ["after_all-intact " + runner],
                "after_all evidence")
    for name in ("first", "second", "third"):
        c.error(tests, "asserting/" + name, "before_all of suite 'asserting' failed")


@CASES("api_suites_no_fork_after_all_once_with_retry_or_repeat")
def no_fork_after_all_once(c):
    """With --no-fork, --retry and --repeat keep after_all waiting while a
    run of the suite may come; it still runs once, after the suite's last
    attempt, and a failure then is a result of its own."""
    for again in (["--retry", "1"], ["--repeat", "2"]):
        status, tests = c.run("--no-fork", *again, "ready/sees_state_*")
        c.expect_eq(status, 0, "%s: exit status" % again)
        runner = [line.split()[1] for line in c.lines("ready_before_all.log")]
        c.require(len(runner) == 1, "%s: before_all ran %d times" % (again, len(runner)))
        c.expect_eq(c.lines("ready_after_all.log"), ["after_all-intact " + runner[0]],
                    "%s: after_all ran once" % again)
    status, tests = c.run("--no-fork", "--retry", "1", "--tap", "report.tap",
                          "leaky/*")
    c.expect_eq(status, 1, "leaky: exit status")
    c.state(tests, "leaky/last", "passed")
    c.error(tests, "leaky/(after_all)", "after_all of suite 'leaky' failed",
            "leaked")
    with open(os.path.join(c.cwd, "report.tap"), encoding="utf-8") as f:
        c.expect_eq(tap_plan_and_points(f.read().splitlines()), (["1..3"], 3),
                    "TAP: the plan counts the after_all's result")
    # stdout carries the JSON report: what the fixture prints goes to stderr.
    done = subprocess.run([c.fixture, "--no-fork", "--retry", "1", "--json",
                           "-", "leaky/*"], cwd=c.new_dir(),
                          env=driver.clean_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE,
                          timeout=120 * driver.wait_scale())
    try:
        document = json.loads(done.stdout.decode("utf-8"))
    except ValueError as error:
        document = None
        c.expect(False, "--json -: stdout is not the report (%s): %r"
                 % (error, done.stdout[:200]))
    if document is not None:
        c.expect_eq(sorted(t["id"] for t in document["tests"]),
                    ["leaky/(after_all)", "leaky/first", "leaky/last"],
                    "--json -: the tests")
    c.expect(b"after_all counted 2 leaked" in done.stderr,
             "--json -: after_all's output is not on stderr: %r"
             % done.stderr[-2000:])


if __name__ == "__main__":
    sys.exit(driver.fixture_main(CASES, Case))
