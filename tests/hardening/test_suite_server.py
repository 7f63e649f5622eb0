#!/usr/bin/env python3
"""Tests of the suite server (the process a suite's before_all runs in
and its tests are forked from) against fixtures that behave like real
ones and hostile ones: runs suite_server_fixture (fixture_suite_server.c)
in a fresh working directory each run and checks the JSON report
(validated against schemas/), the console, and the evidence files the
fixtures write.

    test_suite_server.py --list
    test_suite_server.py CASE --fixture PATH

Each CASE is one behaviour (one CTest test). Waits are bounded and scaled
by TATTLE_TIMEOUT_MULTIPLIER. Exits 0 when every check of the case held,
1 otherwise, printing each broken check.
"""
import json
import os
import signal
import subprocess
import sys
import time

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402

CASES = driver.Cases()


WAIT_MS = int(10000 * driver.wait_scale())
PROGRAM_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1",
                   "SIGUSR2")
GARBAGE = b"LEAKED-GARBAGE"


def default_signals():
    """The runner starts as from a terminal: default dispositions, nothing
    blocked (a CI shell may have ignored some)."""
    for name in PROGRAM_SIGNALS + ("SIGPIPE", "SIGCHLD"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


class Case(driver.Checks):
    def __init__(self, fixture):
        super().__init__("tattle-suite-server-")
        self.fixture = fixture
        self.cwd = None
        self.stdout = b""
        self.stderr = b""

    def run(self, *args, timeout_ms=20000):
        """Runs the fixture with a JSON report in a new directory; returns
        (exit status, {id: result})."""
        self.cwd = self.new_dir()
        env = driver.clean_env()
        env["SUITE_WAIT_MS"] = str(WAIT_MS)
        report = os.path.join(self.cwd, "report.json")
        started = time.monotonic()
        done = subprocess.run([self.fixture, "--json", report, "--timeout",
                               str(timeout_ms)] + list(args),
                              cwd=self.cwd, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              preexec_fn=default_signals,
                              timeout=12 * WAIT_MS / 1000)
        self.elapsed = time.monotonic() - started
        self.stdout, self.stderr = done.stdout, done.stderr
        self.require(os.path.exists(report),
                     "no report; status %d, stderr: %r"
                     % (done.returncode, done.stderr[-2000:]))
        with open(report, "rb") as f:
            data = f.read()
        self.expect(GARBAGE not in data, "garbage in report.json")
        document = json.loads(data.decode("utf-8"))
        problems = validate_json.check_report(document, complete=True)
        self.expect(not problems, "the report fails the schema: %s" % problems)
        tests = {t["id"]: t for t in document["tests"]}
        return done.returncode, tests

    def lines(self, name):
        """The lines of an evidence file of the last run ([] when absent)."""
        path = os.path.join(self.cwd, name)
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().split("\n")[:-1]

    def passed(self, tests, test_id):
        self.require(test_id in tests, "%s is not in the report" % test_id)
        result = tests[test_id]
        return self.expect(result["state"] == "passed",
                           "%s: %s with %r" % (test_id, result["state"],
                                               result.get("failures")))

    def output(self, tests, test_id, stream):
        return (tests[test_id].get("output") or {}).get(stream) or ""

    def wait_gone(self, pid):
        """Whether process `pid` is gone (bounded wait)."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            time.sleep(0.01)
        return False


@CASES("hardening_suite_fixtures_get_the_test_signal_state")
def fixtures_signal_state(c):
    """before_all and after_all run with the signal mask and dispositions
    a test body gets (the program's own: nothing blocked, default
    actions), not the fork server's (SIGCHLD blocked, the stop signals
    ignored): a fixture that forks a child sees its SIGCHLD."""
    status, tests = c.run("signals/*")
    c.expect_eq(status, 0, "exit status")
    c.passed(tests, "signals/body")
    body = c.lines("signals_body.txt")
    c.expect("SIGCHLD blocked 0" in body, "the body's SIGCHLD: %r" % body)
    c.expect("child exited 1 SIGCHLD handled 1" in body,
             "the body's child: %r" % body)
    for fixture in ("before_all", "after_all"):
        seen = c.lines("signals_%s.txt" % fixture)
        c.expect_eq(seen, body, "what %s sees (the body's state)" % fixture)


@CASES("hardening_suite_fixture_child_cannot_become_a_server")
def fixture_child_returns(c):
    """A child forked in before_all or after_all that returns from the
    fixture ends there: it never serves the suite's tests or reports (nor,
    with --no-fork, runs them as a second runner), the fixture sees it
    end, every test runs once and passes with its own output, and
    after_all runs once."""
    names = ("first", "second", "third", "fourth")
    for args in (("-j", "2"), ("--no-fork",)):
        label = " ".join(args)
        status, tests = c.run(*(args + ("twin/*",)))
        c.expect_eq(status, 0, "%s: exit status (stderr %r)"
                    % (label, c.stderr[-800:]))
        c.expect_eq(sorted(tests), sorted("twin/" + n for n in names),
                    "%s: tests in the report" % label)
        for name in names:
            if c.passed(tests, "twin/" + name) and args[0] != "--no-fork":
                c.expect_eq(c.output(tests, "twin/" + name, "stdout"),
                            "twin %s output\n" % name,
                            "%s: twin/%s stdout" % (label, name))
        c.expect_eq(sorted(line.split()[0] for line in c.lines("twin_tests.txt")),
                    sorted(names), "%s: test bodies that ran" % label)
        for fixture in ("before_all", "after_all"):
            seen = [line if line.startswith("child ended") else line.split()[0]
                    for line in c.lines("twin_%s.txt" % fixture)]
            c.expect_eq(seen, ["child-returns", "child ended exit 0",
                               "fixture-ends"],
                        "%s: %s evidence" % (label, fixture))


@CASES("hardening_suite_helpers_live_until_after_all")
def helpers_live(c):
    """A helper process before_all started (a server its tests talk to)
    is not killed as a test's leftover: every test of the suite talks to
    it, at -j1 and -j2, after_all still finds it answering, and it is
    gone once the run ended."""
    for jobs in ("1", "2"):
        status, tests = c.run("-j", jobs, "helper/*")
        c.expect_eq(status, 0, "-j%s exit status" % jobs)
        for name in ("first", "second", "third", "fourth"):
            c.passed(tests, "helper/" + name)
        c.expect_eq([line.split()[0] for line in c.lines("helper_after_all.txt")],
                    ["helper-answers"], "-j%s after_all evidence" % jobs)
        helpers = c.lines("helper_pid.txt")
        c.require(len(helpers) == 1, "helpers started: %r" % helpers)
        c.expect(c.wait_gone(int(helpers[0].split()[1])),
                 "-j%s: the helper outlived the run" % jobs)


@CASES("hardening_suite_helper_cannot_reach_descriptors")
def helper_descriptors(c):
    """A helper before_all started that writes garbage into every
    descriptor it holds (once while before_all runs, once while another
    suite's test prints at -j2) reaches nothing of the runner's: the
    report, the console and every test's output are as without it, and
    every test passes."""
    status, tests = c.run("-j", "2", "leaky/trigger", "printer/prints",
                          "leaky/later")
    c.expect_eq(status, 0, "exit status (stderr %r)" % c.stderr[-800:])
    for test_id in ("leaky/trigger", "printer/prints", "leaky/later"):
        c.passed(tests, test_id)
    expected = {
        ("leaky/trigger", "stdout"): "leaky trigger output\nleaky trigger done\n",
        ("printer/prints", "stdout"): "printer line 1\nprinter line 2\n",
        ("printer/prints", "stderr"): "printer error line\n",
        ("leaky/later", "stdout"): "leaky later output\n",
    }
    for (test_id, stream), text in expected.items():
        if test_id in tests:
            c.expect_eq(c.output(tests, test_id, stream), text,
                        "%s %s" % (test_id, stream))
    c.expect(GARBAGE not in c.stdout and GARBAGE not in c.stderr,
             "garbage on the console: %r" % (c.stdout[-400:] + c.stderr[-400:]))
    triggered = c.lines("leaky_trigger.txt")
    c.expect(len(triggered) == 1, "the helper was triggered: %r" % triggered)


@CASES("hardening_suite_before_all_cannot_reach_other_slots")
def before_all_slots(c):
    """A before_all that writes 0xff over every writable shared mapping it
    finds while another suite's test runs at -j2 cannot change that
    test's result: the victim keeps exactly its own failure and output."""
    status, tests = c.run("-j", "2", "victim/recorded", "scribble/first")
    c.expect_eq(status, 1, "exit status")
    c.require("victim/recorded" in tests, "victim/recorded is not in the report")
    victim = tests["victim/recorded"]
    c.expect_eq(victim["state"], "failed", "the victim's state")
    messages = [(f["kind"], f.get("message")) for f in victim["failures"]]
    c.expect_eq(messages, [("assertion", "the victim's own failure")],
                "the victim's failures")
    c.expect_eq(c.output(tests, "victim/recorded", "stdout"), "victim output\n",
                "the victim's stdout")
    c.expect(c.lines("scribbled.txt") and
             c.lines("scribbled.txt")[0].startswith("shared mappings written"),
             "before_all did not scribble: %r" % c.lines("scribbled.txt"))


@CASES("hardening_suite_end_of_run_after_all_times_out")
def end_of_run_after_all(c):
    """An after_all that hangs when it runs at the end of the run (with
    --retry a passed test's suite is kept for a retry that never comes)
    is stopped at the suite's timeout and reported as a result of its own,
    and the run fails."""
    status, tests = c.run("--retry", "1", "hang/*", timeout_ms=500)
    c.expect(c.elapsed < 6 * WAIT_MS / 1000, "the run took %.1f s" % c.elapsed)
    c.passed(tests, "hang/passes")
    c.expect_eq(len(c.lines("hang_tests.txt")), 1, "test runs")
    c.expect_eq(len(c.lines("hang_after_all.txt")), 1, "after_all runs")
    late = tests.get("hang/(after_all)", {})
    messages = [f.get("message", "") for f in late.get("failures", [])]
    c.expect(late.get("state") == "failed" and any(
        "after_all of suite 'hang' failed" in m and
        "did not finish within 500 ms" in m for m in messages),
        "the report does not carry the hang: %r" % late)
    c.expect(status != 0, "exit status is 0 after a hung after_all")


@CASES("hardening_suite_helper_late_failure_reaches_no_test")
def helper_late_failure(c):
    """A helper before_all started that fails an EXPECT, then crashes,
    after before_all returned (each while a test of the suite runs on the
    job before_all ran in) puts nothing on any test: both tests pass with
    no failure, and the helper did fail and crash."""
    status, tests = c.run("-j", "1", "late/helper_expects",
                          "late/helper_crashes")
    c.expect_eq(status, 0, "exit status (stderr %r)" % c.stderr[-800:])
    for test_id in ("late/helper_expects", "late/helper_crashes"):
        if c.passed(tests, test_id):
            c.expect_eq(tests[test_id].get("failures", []), [],
                        "%s failures" % test_id)
    c.expect_eq([line.split()[0] for line in c.lines("late_helper.txt")],
                ["expect-failed", "crashing"], "the helper's evidence")
    c.expect_eq(sorted(line.split()[0] for line in c.lines("late_tests.txt")),
                ["helper_crashes", "helper_expects"], "test bodies that ended")


@CASES("hardening_suite_thread_fork_cannot_reach_descriptors")
def thread_fork_descriptors(c):
    """A thread before_all left running that forks once before_all has
    returned (while a test of the suite runs) gives its child nothing of
    the runner's: the child writes garbage into every descriptor it holds
    and no report, console or test output shows it; every test passes
    with its own output."""
    status, tests = c.run("-j", "1", "threaded/trigger", "threaded/later")
    c.expect_eq(status, 0, "exit status (stderr %r)" % c.stderr[-800:])
    expected = {
        "threaded/trigger": "threaded trigger output\nthreaded trigger done\n",
        "threaded/later": "threaded later output\n",
    }
    for test_id, text in expected.items():
        if c.passed(tests, test_id):
            c.expect_eq(c.output(tests, test_id, "stdout"), text,
                        "%s stdout" % test_id)
            c.expect_eq(c.output(tests, test_id, "stderr"), "",
                        "%s stderr" % test_id)
    c.expect(GARBAGE not in c.stdout and GARBAGE not in c.stderr,
             "garbage on the console: %r" % (c.stdout[-400:] + c.stderr[-400:]))
    triggered = c.lines("threaded_trigger.txt")
    c.expect(len(triggered) == 1 and not triggered[0].startswith("-1"),
             "the thread's child did not run: %r" % triggered)


def fixture_crash_is_its_own(c, tests, test_id, fixture, evidence):
    """Checks that `test_id` carries the error of `fixture`, which forked
    a child that crashed (SIGSEGV) and then aborted: the error names the
    fixture's SIGABRT and its frames are the fixture's, nothing of the
    child's crash."""
    c.expect_eq([line.split()[0] for line in c.lines(evidence)],
                ["child-segfaulted"], "the fixture's evidence")
    c.require(test_id in tests, "%s is not in the report" % test_id)
    errors = [f for f in tests[test_id]["failures"]
              if f.get("kind") == "error" and fixture in f.get("message", "")]
    c.require(len(errors) == 1, "%s: no single %s error: %r"
              % (test_id, fixture, tests[test_id]["failures"]))
    message = errors[0]["message"]
    functions = [frame.get("function")
                 for frame in errors[0].get("stacktrace", [])]
    c.expect("killed by SIGABRT" in message, "no SIGABRT in %r" % message)
    c.expect("fixture_aborts_after_its_child" in functions,
             "the fixture's frames are not named: %r" % errors[0])
    c.expect("SIGSEGV" not in message and
             "child_segfaults" not in message + " ".join(map(str, functions)),
             "the child's crash is taken for the fixture's: %r" % errors[0])


@CASES("hardening_suite_before_all_crash_after_child_crash_is_its_own")
def before_all_crash_after_child_crash(c):
    """A before_all that forks a child which crashes (SIGSEGV, waited
    for), then aborts, fails its suite's test with an error naming
    SIGABRT and before_all's own frames: the child's crash record, first
    in the slot, is not taken for the fixture's."""
    status, tests = c.run("-j", "1", "crashing/first")
    c.expect_eq(status, 1, "exit status (stderr %r)" % c.stderr[-800:])
    fixture_crash_is_its_own(c, tests, "crashing/first",
                             "before_all of suite 'crashing' failed",
                             "crashing_before_all.txt")
    c.expect_eq(c.lines("crashing_ran.txt"), [], "the test body ran")


@CASES("hardening_suite_after_all_crash_after_child_crash_is_its_own")
def after_all_crash_after_child_crash(c):
    """The same of an after_all: its error, on the suite's last test,
    names SIGABRT and after_all's own frames, not its child's SIGSEGV."""
    status, tests = c.run("-j", "1", "crashing_late/first")
    c.expect_eq(status, 1, "exit status (stderr %r)" % c.stderr[-800:])
    c.expect_eq(len(c.lines("crashing_late_ran.txt")), 1, "the test ran")
    fixture_crash_is_its_own(c, tests, "crashing_late/first",
                             "after_all of suite 'crashing_late' failed",
                             "crashing_after_all.txt")


@CASES("hardening_suite_before_all_child_crash_is_not_its_failure")
def before_all_child_crash_not_its_failure(c):
    """A before_all that forks a child which crashes (SIGSEGV, waited
    for) and then returns has not failed: its suite's test runs and
    passes, as a test whose forked child crashed does. With --no-fork too
    (before_all then runs in the runner's own process)."""
    for options in ((), ("--no-fork",)):
        status, tests = c.run("-j", "1", *(options + ("surviving/first",)))
        c.expect_eq(status, 0, "exit status %r (stderr %r)"
                    % (options, c.stderr[-800:]))
        evidence = [line.split()[0]
                    for line in c.lines("surviving_before_all.txt")]
        if options and os.environ.get("TATTLE_SANITIZED"):
            # With --no-fork the sanitizer's own SIGSEGV handler ends
            # the child there, with an exit status.
            c.expect_eq(len(evidence), 1, "before_all's evidence %r" % evidence)
        else:
            c.expect_eq(evidence, ["child-segfaulted"],
                        "before_all's evidence %r" % (options,))
        if c.passed(tests, "surviving/first"):
            c.expect_eq(tests["surviving/first"].get("failures", []), [],
                        "surviving/first failures %r" % (options,))
        c.expect_eq(len(c.lines("surviving_ran.txt")), 1,
                    "the test body ran %r" % (options,))


def children_crashes_past_the_slot(c, test_id, evidence):
    """Runs `test_id`, which (or whose before_all) starts 600 children
    that crash, one after the other: their crash records fill the result
    slot and the last ones find no room. Those records are the
    children's, so nothing failed and no failure is said to be lost.
    600 children take long under a sanitizer: the timeout is scaled."""
    status, tests = c.run("-j", "1", test_id,
                          timeout_ms=int(20000 * driver.wait_scale()))
    c.expect_eq(status, 0, "exit status (stderr %r)" % c.stderr[-800:])
    c.expect_eq([line.split()[0] for line in c.lines(evidence)],
                ["segfaulted-600"], evidence)
    c.require(test_id in tests, "%s not reported" % test_id)
    c.expect_eq(tests[test_id]["state"], "passed", "state")
    c.expect_eq(tests[test_id].get("failures", []), [], "failures")


@CASES("hardening_suite_before_all_children_crashes_past_the_slot_pass")
def before_all_children_crashes_past_the_slot(c):
    children_crashes_past_the_slot(c, "crash_flood/first",
                                   "crash_flood_before_all.txt")
    c.expect_eq(len(c.lines("crash_flood_ran.txt")), 1, "the test ran")


@CASES("hardening_test_children_crashes_past_the_slot_pass")
def test_children_crashes_past_the_slot(c):
    children_crashes_past_the_slot(c, "crash_flood_in_test/first",
                                   "crash_flood_test.txt")


@CASES("hardening_suite_fixture_helper_output_is_capped")
def fixture_helper_output_capped(c):
    """What processes before_all forked printed (4 MiB) reaches the
    runner cut to the capture's size (64 KiB) with a note of how much was
    cut, not whole: the failed before_all's output on its test ends with
    the note, and the capture itself dropped no more than the note's
    length."""
    status, tests = c.run("-j", "1", "flood/first")
    c.expect_eq(status, 1, "exit status (stderr %r)" % c.stderr[-800:])
    c.require("flood/first" in tests, "flood/first is not in the report")
    c.expect_eq(tests["flood/first"]["state"], "failed", "flood/first state")
    c.expect_eq([line.split()[0] for line in c.lines("flood_before_all.txt")],
                ["flooded"], "before_all's evidence")
    c.expect_eq(c.lines("flood_ran.txt"), [], "the test body ran")
    stdout = c.output(tests, "flood/first", "stdout")
    c.expect("flood line 0123\n" in stdout, "no flood in %r" % stdout[:200])
    cut = "[... tattle: %d bytes printed by before_all's processes were cut ...]\n" \
        % (4 * 1024 * 1024 - 64 * 1024)
    c.expect(stdout.endswith(cut), "the output does not end with %r: %r"
             % (cut, stdout[-300:]))
    omitted = [int(line.split()[2]) for line in stdout.split("\n")
               if line.startswith("[... tattle: ") and "omitted" in line]
    c.expect(all(n < 200 for n in omitted),
             "the capture omitted %r bytes: more than the cap reached it"
             % omitted)


@CASES("hardening_suite_test_thread_fork_keeps_its_slot")
def test_thread_fork_slot(c):
    """In a test of a suite with before_all, a child forked from one of
    the test's threads records into the test's slot like any process of
    the test: its failed EXPECT is the test's one failure."""
    if os.environ.get("TATTLE_SANITIZED") == "thread":
        print("skipped: ThreadSanitizer ends a child forked from a thread "
              "of a process with threads (status 66); checked in the "
              "other builds")
        sys.exit(77)
    status, tests = c.run("-j", "1", "threaded/thread_child_fails")
    c.expect_eq(status, 1, "exit status (stderr %r)" % c.stderr[-800:])
    c.require("threaded/thread_child_fails" in tests, "the test is not reported")
    result = tests["threaded/thread_child_fails"]
    c.expect_eq(result["state"], "failed", "the test's state")
    c.expect_eq([f.get("message") for f in result.get("failures", [])],
                ["a failure in a child of the test's thread"],
                "the test's failures")
    c.expect_eq([line.split()[0] for line in c.lines("threaded_child.txt")],
                ["exit-0"], "how the child ended")


if __name__ == "__main__":
    sys.exit(driver.fixture_main(CASES, Case))
