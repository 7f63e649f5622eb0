#!/usr/bin/env python3
"""Hostile call tracing: runs calls_hostile_fixture, whose `trace_calls`
test writes over its own shadow stacks and call rings, and checks that the
runner survives, that the report still validates (tests/tools/
validate_json.py), that what it reports of the calls is either discarded
as corrupted or made only of calls the test really made, and that the
next test's calls are whole and its own.

    test_calls_hostile.py CASE --fixture PATH
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

# The fixture's functions: a named call must be one of them.
FUNCTIONS = {"leaf", "branch", "tattle__body__scribbled__calls",
             "tattle__body__scribbled__next", "scribble", "forge",
             "tattle__call_area_at", "tattle__arena_at",
             "tattle__call_record_at"}


class Case(driver.Checks):
    def __init__(self, fixture):
        super().__init__("tattle-calls-hostile-")
        self.fixture = fixture

    def run(self, how, then=""):
        cwd = self.new_dir()
        env = driver.clean_env(keep=("TATTLE_TIMEOUT_MULTIPLIER",))
        env["HOSTILE_CALLS"] = how
        env["HOSTILE_THEN"] = then
        process = subprocess.run(
            [self.fixture, "--color=never", "--json", "report.json",
             "--trace-passed", "-j", "1", "scribbled/calls",
             "scribbled/next"],
            cwd=cwd, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=60 * driver.wait_scale())
        self.require(process.returncode in (0, 1),
                     "[%s] the runner ended with %d: %r" % (
                         how, process.returncode, process.stderr[-2000:]))
        with open(os.path.join(cwd, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        for p in validate_json.check_report(report, complete=True):
            self.problems.append("[%s] report does not validate: %s"
                                 % (how, p))
        return {t["id"]: t for t in report["tests"]}

    def only_real_calls(self, how, test):
        trace = test.get("trace") or {}
        for call in trace.get("calls", []):
            self.expect(call["function"] is None or
                        call["function"] in FUNCTIONS,
                        "[%s] a call of no function of the test: %r"
                        % (how, call))
        for stack in trace.get("stacks", []):
            self.expect(len(stack["frames"]) <= 64,
                        "[%s] more than 64 frames" % how)
            for frame in stack["frames"]:
                self.expect(frame["function"] is None or
                            frame["function"] in FUNCTIONS,
                            "[%s] a frame of no function of the test: %r"
                            % (how, frame))

    def corrupted(self, how, test):
        self.expect(test["state"] == "failed" and any(
            f["kind"] == "error" and
            f["message"].startswith("trace arena corrupted")
            for f in test["failures"]),
            "[%s] not reported as corrupted: %r" % (how, test["failures"]))

    def next_is_whole(self, how, tests):
        test = tests.get("scribbled/next")
        self.require(test is not None, "[%s] scribbled/next is missing" % how)
        self.expect_eq(test["state"], "passed", "[%s] next: state" % how)
        calls = (test.get("trace") or {}).get("calls")
        self.expect_eq([(c["kind"], c["function"], c["depth"])
                        for c in calls or []],
                       [("enter", "tattle__body__scribbled__next", 0),
                        ("enter", "leaf", 1), ("exit", "leaf", 1),
                        ("exit", "tattle__body__scribbled__next", 0)],
                       "[%s] the next test's calls" % how)


CASES = driver.Cases()


@CASES("hardening_calls_scribbled_are_discarded")
def discarded(c):
    for how in ("ff", "random:1", "random:2", "count"):
        tests = c.run(how, then="die")
        test = tests.get("scribbled/calls")
        c.require(test is not None, "[%s] scribbled/calls is missing" % how)
        c.corrupted(how, test)
        c.only_real_calls(how, test)
        c.next_is_whole(how, tests)


@CASES("hardening_calls_scribbled_report_only_real_calls")
def only_real(c):
    # The test goes on calling after the damage: what it reports is only
    # calls it made (or unnamed forged ones), never an impossible count.
    for how in ("zeros", "forged", "random:3", "count"):
        tests = c.run(how)
        test = tests.get("scribbled/calls")
        c.require(test is not None, "[%s] scribbled/calls is missing" % how)
        c.expect(not any(f["message"].startswith("trace arena corrupted")
                         for f in test["failures"]),
                 "[%s] plausible contents were called corrupted: %r"
                 % (how, test["failures"]))
        c.only_real_calls(how, test)
        c.next_is_whole(how, tests)
    # After zeros, the calls made after the damage are all there, in order.
    tests = c.run("zeros")
    calls = [(x["kind"], x["function"]) for x in
             tests["scribbled/calls"]["trace"]["calls"]]
    c.expect_eq(calls[-7:], [("enter", "branch"), ("enter", "leaf"),
                             ("exit", "leaf"), ("enter", "leaf"),
                             ("exit", "leaf"), ("exit", "branch"),
                             ("exit", "tattle__body__scribbled__calls")],
                "the calls after the damage")


if __name__ == "__main__":
    sys.exit(driver.fixture_main(CASES, Case))
