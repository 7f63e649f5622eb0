#!/usr/bin/env python3
"""Tests of what the console shows a person: the trace header says when it
shows fewer messages than were recorded, --trace-passed shows the traces
of passed tests too, a crash's frame of the test body is named by the
test id, and a worker process killed by a signal shows its death. Runs console_fixture (fixture_console.c).

    test_console.py --list
    test_console.py CASE --fixture PATH

Exits 0 when every check of the case held, 1 otherwise.
"""
import json
import os
import re
import subprocess
import sys

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402

CASES = driver.Cases()


class Case(driver.Checks):
    def __init__(self, fixture):
        super().__init__("tattle-console-")
        self.fixture = fixture

    def console(self, *args):
        env = driver.clean_env()
        done = subprocess.run([self.fixture, "--color", "never"] + list(args),
                              cwd=self.new_dir(), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=120 * driver.wait_scale(),
                              text=True, errors="replace")
        return done.stdout

    def block(self, text, test_id):
        """The lines the console printed for one test."""
        match = re.search(r"^\S+\s+%s  .*?(?=^\S|\Z)" % re.escape(test_id), text,
                          re.S | re.M)
        self.require(match, "no block for %s in:\n%s" % (test_id, text))
        return match.group(0)


@CASES("api_console_trace_header_says_what_it_shows")
def trace_header(c):
    """40 messages recorded, fewer shown: the header says which ones."""
    block = c.block(c.console("console/traced_fails"), "console/traced_fails")
    header = re.search(r"last messages \((\d+) recorded, (\d+) dropped; showing the last (\d+)\)",
                       block)
    c.require(header, "the header says how many it shows: %r" % block[:400])
    recorded, shown = int(header.group(1)), int(header.group(3))
    c.expect_eq(recorded, 40, "recorded")
    lines = [l for l in block.splitlines() if re.match(r"\s+\d+us  main", l)]
    c.expect_eq(len(lines), shown, "as many lines as it says it shows")
    c.expect(shown < recorded, "fewer shown than recorded")


@CASES("api_console_trace_passed_shows_passed_traces")
def trace_passed(c):
    """--trace-passed shows a passed test's trace on the console; without
    it the passed test is one line."""
    block = c.block(c.console("console/traced_passes"), "console/traced_passes")
    c.expect("last messages" not in block, "no trace without --trace-passed: %r" % block)
    block = c.block(c.console("console/traced_passes", "--trace-passed"),
                    "console/traced_passes")
    c.expect("last messages (40 recorded" in block,
             "the trace with --trace-passed: %r" % block[:400])


@CASES("api_console_crash_frame_of_the_body_is_the_test_id")
def crash_frame_named_by_id(c):
    """The crash's frame of the test body reads console/crashes, not the
    function TEST() generated."""
    block = c.block(c.console("console/crashes"), "console/crashes")
    c.expect(re.search(r"#\d+ console/crashes at .*fixture_console\.c:\d+", block),
             "the body's frame is named by the test id: %r" % block)
    c.expect("tattle__body__" not in block, "no generated name: %r" % block)


@CASES("api_console_worker_killed_by_a_signal")
def worker_killed(c):
    """A traced test's worker process killed by SIGKILL shows it as an
    exit event of the worker, in the JSON trace and on the console, once,
    whether the test collected it (waitpid) or left it a zombie."""
    for test_id in ("console/worker_killed_reaped", "console/worker_killed_unreaped"):
        report = os.path.join(c.new_dir(), "report.json")
        block = c.block(c.console(test_id, "--json", report), test_id)
        c.expect(re.search(r"\d+us  worker +-> - +exit  killed +SIGKILL", block),
                 "%s: the console shows the death: %r" % (test_id, block))
        with open(report, encoding="utf-8") as f:
            trace = json.load(f)["tests"][0].get("trace", {})
        deaths = [(e.get("from"), e.get("label"), e.get("msg"))
                  for e in trace.get("events", []) if e["kind"] == "exit"]
        c.expect_eq(deaths, [("worker", "killed", "SIGKILL")],
                    test_id + ": exit events")
        worker = [a for a in trace.get("actors", []) if a["name"] == "worker"]
        c.expect_eq([a["alive_at_exit"] for a in worker], [False],
                    test_id + ": the worker actor")


if __name__ == "__main__":
    sys.exit(driver.fixture_main(CASES, Case))
