#!/usr/bin/env python3
"""Tests of the crash doorbell against tests that abuse it: runs
doorbell_fixture, whose traced tests find their result slot and ring the
runner without crashing, signal it a thousand times, re-arm the doorbell
while their own crash handler waits, close it before they crash, or crash
after a forged ring, and checks that the runner survives, answers a
bounded number of rings per test, ends every run in bounded time, and
reports each test as what it did, with the stacks taken for its crash and
no other (JSON validated against schemas/ by tests/tools/validate_json.py).
Also: two threads crashing at once are reported as the first one's crash,
and a process forked in the runner dies of the doorbell's signal.

    test_doorbell.py CASE --fixture PATH

Exits 0 when every check held, 1 otherwise.
"""
import os
import sys
import time

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402

# The bound of every wait inside the fixture's tests.
os.environ["HOSTILE_WAIT_MS"] = str(int(10000 * driver.wait_scale()))


class Case(driver.Checks):
    def __init__(self, fixture):
        super().__init__("tattle-doorbell-")
        self.fixture = fixture

    def run(self, tests, options=()):
        """Runs `tests` then doorbell/after_passes at -j1 (with `options`):
        returns the process, the report's tests by id, and how long the
        run took; self.cwd is where it ran."""
        started = time.monotonic()
        process, report, self.cwd = self.run_for_report(
            [self.fixture, "--color=never", "-j1"] + list(options)
            + list(tests) + ["doorbell/after_passes"])
        took = time.monotonic() - started
        tests = {t["id"]: t for t in report["tests"]}
        after = tests.get("doorbell/after_passes")
        self.expect(after is not None and after["state"] == "passed",
                    "the test after the hostile one did not pass: %r" % after)
        self.expect(not report["run"]["interrupted"],
                    "the run was interrupted")
        return process, tests, took

    def passed_with(self, tests, test_id, stdout):
        test = tests.get(test_id)
        self.require(test is not None, "%s not in the report" % test_id)
        self.expect_eq(test["state"], "passed", "%s state" % test_id)
        self.expect_eq(test["output"]["stdout"], stdout, "%s stdout" % test_id)
        for failure in test["failures"]:
            self.expect("stacks" not in failure,
                        "%s: stacks on a failure: %r" % (test_id, failure))

    def crashed(self, tests, test_id):
        test = tests.get(test_id)
        self.require(test is not None, "%s not in the report" % test_id)
        self.expect_eq(test["state"], "failed", "%s state" % test_id)
        failures = test["failures"]
        self.require(failures and failures[0]["kind"] == "crash",
                     "%s: expected a crash, got %r" % (test_id, failures))
        self.expect_eq(failures[0]["signal"], "SIGSEGV", "%s signal" % test_id)
        return failures[0]


CASES = driver.Cases()


@CASES("hardening_doorbell_forged_is_answered_once")
def forged(c):
    """Rung without a crash, then a thousand times more: the runner
    answers the first ring (and a few more at most, cheaply), and the test
    passes."""
    process, tests, _ = c.run(["doorbell/forged_then_passes"])
    c.expect_eq(process.returncode, 0, "exit status")
    c.passed_with(tests, "doorbell/forged_then_passes",
                  "answered once\nrang 1000 times more\n")


@CASES("hardening_doorbell_child_ring_leaves_test_alone")
def child_rings(c):
    """A process the test forked rings: answered at once without stacks
    (the word goes back to none), and the test's own ring later is still
    answered with them."""
    process, tests, _ = c.run(["doorbell/child_rings_then_passes"])
    c.expect_eq(process.returncode, 0, "exit status")
    c.passed_with(tests, "doorbell/child_rings_then_passes",
                  "the child's ring answered without stacks\n"
                  "its own ring answered with stacks\n")


@CASES("hardening_doorbell_signals_alone_are_ignored")
def signals_only(c):
    """The doorbell's signal without the slot's word: nothing to answer,
    and the runner is neither stopped nor killed by it."""
    process, tests, _ = c.run(["doorbell/signals_only"])
    c.expect_eq(process.returncode, 0, "exit status")
    c.passed_with(tests, "doorbell/signals_only", "signalled 1000 times\n")


@CASES("hardening_doorbell_rearmed_crash_ends_in_bounded_time")
def rearmed(c):
    """A thread puts the doorbell back to rung whenever the runner
    answers: the crash handler gives up at the runner's bound and the test
    is reported as the crash it was. The rearming thread races the
    runner's stack taking (it runs while the stacks are taken, and rings
    again after each answer), so which of the two threads' stacks survive
    is not fixed: a stack reported must be one of the test's two threads,
    each once, never another process's."""
    process, tests, took = c.run(["doorbell/rearmed_while_crashing"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = c.crashed(tests, "doorbell/rearmed_while_crashing")
    stacks = failure.get("stacks", [])
    c.expect(len(stacks) <= 2, "more stacks than threads: %r" % failure)
    c.expect(len({stack.get("pid") for stack in stacks}) <= 1 and
             len({stack.get("tid") for stack in stacks}) == len(stacks),
             "stacks of one process, each thread once: %r" % failure)
    # The handler waits at most the runner's stacks budget plus a second
    # (8 s plus one in a sanitized runner), times the multiplier.
    bound = 30 * driver.wait_scale()
    c.expect(took < bound, "the run took %.1f s (bound %.1f s)" % (took, bound))


@CASES("hardening_doorbell_closed_crash_is_reported_as_before")
def closed(c):
    """The doorbell closed before the crash: the crash is reported as
    before, with its own stack and without the other threads'."""
    process, tests, _ = c.run(["doorbell/closed_then_crashes"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = c.crashed(tests, "doorbell/closed_then_crashes")
    c.expect("stacks" not in failure,
             "stacks taken though the doorbell was closed: %r" % failure)


def top_function(thread):
    """The first named function of a thread's stack, or None."""
    for frame in thread.get("frames", []):
        if frame.get("function"):
            return frame["function"]
    return None


def ptrace_refused(failure):
    if "ptrace was refused" in failure["message"]:
        print("skipped: ptrace is refused on this machine: %s"
              % failure["message"])
        sys.exit(77)


@CASES("hardening_doorbell_forged_then_crash_has_the_crash_stacks")
def forged_then_crashes(c):
    """A forged ring is answered, then the test crashes elsewhere: the
    crash rings again, and the stacks reported are the ones taken then,
    the crashing thread first, stopped where it crashed."""
    process, tests, _ = c.run(["doorbell/forged_then_crashes"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = c.crashed(tests, "doorbell/forged_then_crashes")
    ptrace_refused(failure)
    c.require("stacks" in failure,
              "the crash has no stacks of its threads: %r" % failure)
    c.expect_eq(top_function(failure["stacks"][0]), "crash_after_the_forgery",
                "the top of the crashing thread's stack (those of the "
                "forged ring were reported)")


@CASES("hardening_doorbell_forged_then_silent_crash_has_no_stale_stacks")
def forged_then_closed_then_crashes(c):
    """A forged ring is answered, then the test closes the doorbell and
    crashes: the crash never rang, so no stacks are reported with it (the
    message says why), and never those of the forged ring."""
    process, tests, _ = c.run(["doorbell/forged_then_closed_then_crashes"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = c.crashed(tests, "doorbell/forged_then_closed_then_crashes")
    ptrace_refused(failure)
    c.expect("stacks" not in failure,
             "the stacks of the forged ring are reported with the crash: %r"
             % failure)
    c.expect("the crash doorbell was last answered before this crash"
             in failure["message"],
             "the message does not say why no stacks: %r" % failure["message"])


@CASES("hardening_doorbell_two_threads_crashing_report_the_first")
def two_threads_crash(c):
    """A second thread crashes (SIGABRT) while the first one's handler
    (SIGSEGV) waits for the runner: the test dies of the first crash, whose
    stack, recorded by its handler and taken by the runner, is the one
    reported first."""
    process, tests, _ = c.run(["doorbell/two_threads_crash"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = c.crashed(tests, "doorbell/two_threads_crash")
    names = [f.get("function") for f in failure.get("stacktrace", [])]
    c.expect("crash_first" in names and "crash_second" not in names,
             "the crash's own stacktrace is not the first thread's: %r"
             % names)
    ptrace_refused(failure)
    c.require("stacks" in failure,
              "the crash has no stacks of its threads: %r" % failure)
    stacks = failure["stacks"]
    c.expect_eq(len(stacks), 2, "threads")
    c.expect_eq(top_function(stacks[0]), "crash_first",
                "the top of the stack of the thread reported first")


@CASES("hardening_doorbell_worker_crash_after_the_ring_keeps_the_stacks")
def worker_crashes_after_the_ring(c):
    """The test records its crash and rings as its handler does, is
    answered with its stacks, then a worker it forked crashes (SIGABRT)
    before the test dies of SIGABRT: the worker's later crash record is
    not the test's, so the stacks taken at the test's ring are reported,
    the ringing thread's first, stopped where the test crashed."""
    test_id = "doorbell/worker_crashes_after_the_ring"
    process, tests, _ = c.run([test_id])
    c.expect_eq(process.returncode, 1, "exit status")
    test = tests.get(test_id)
    c.require(test is not None, "%s not in the report" % test_id)
    failures = test["failures"]
    c.require(failures and failures[0]["kind"] == "crash",
              "expected a crash, got %r" % failures)
    failure = failures[0]
    c.expect_eq(failure["signal"], "SIGABRT", "signal")
    ptrace_refused(failure)
    c.expect("last answered before this crash" not in failure["message"],
             "the worker's crash threw the test's stacks away: %r"
             % failure["message"])
    c.require("stacks" in failure,
              "the crash has no stacks of its threads: %r" % failure)
    names = [f.get("function") for f in failure["stacks"][0].get("frames", [])]
    c.expect("crash_while_a_worker_crashes" in names,
             "the ringing thread's stack is not where the test crashed: %r"
             % names)


@CASES("hardening_doorbell_signal_kills_a_process_the_runner_forks")
def runner_child_dies_of_doorbell_signal(c):
    """A reporter of the test binary forks a process in the runner while
    tests run and after: raising SIGRTMIN+3 (the doorbell's signal, which
    the runner blocks and handles for itself) kills it, as anywhere else."""
    process, tests, _ = c.run(["doorbell/signals_only"],
                              ["--reporter", "doorbell-forks=forks.txt"])
    c.expect_eq(process.returncode, 0, "exit status")
    with open(os.path.join(c.cwd, "forks.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    c.expect(len(lines) == 3, "a line per test and one after: %r" % lines)
    for line in lines:
        c.expect(line.endswith(": killed by SIGRTMIN+3"),
                 "a forked process did not die of the signal: %r" % line)


if __name__ == "__main__":
    sys.exit(driver.fixture_main(CASES, Case))
