#!/usr/bin/env python3
"""Tests of --group-by-error: failed tests grouped by where their first
failure happened (file:line), the message's first line a sub-key, so two
errno values from one line are one group; a failure without a location
(an exit, a timeout, a crash without frames) grouped by its message. Runs
groups_fixture (fixture_groups.c) through the real runner and checks the
JSON report (validated against schemas/), the --compact summary line and
`tattle summary`.

    test_groups.py --list
    test_groups.py CASE --fixture PATH --tattle PATH

Each CASE is one behaviour (one CTest test). Exits 0 when every check of
the case held, 1 otherwise, printing each broken check.
"""
import argparse
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
import validate_json  # noqa: E402

CASES = driver.Cases()

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixture_groups.c")


def line_of(text):
    with open(SOURCE, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise AssertionError("%r not in %s" % (text, SOURCE))


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-groups-")
        self.options = options
        self.env = driver.clean_env()

    def run(self, *args):
        cwd = self.new_dir()
        done = subprocess.run([self.options.fixture] + list(args), cwd=cwd,
                              env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE,
                              timeout=120 * driver.wait_scale())
        return done, cwd


@CASES("api_groups_by_location_then_message")
def by_location(c):
    """Three tests failing on one line with two errno messages are one
    group with two patterns; the same message from another line is a
    group of its own; an exit is grouped by its message."""
    done, cwd = c.run("--json", "report.json", "--group-by-error")
    c.expect_eq(done.returncode, 1, "exit status")
    with open(os.path.join(cwd, "report.json"), encoding="utf-8") as f:
        report = json.load(f)
    problems = validate_json.check_report(report, complete=True)
    c.expect(not problems, "the report fails the schema: %s" % problems)
    groups = report.get("error_groups", [])
    c.require(len(groups) == 3, "three groups: %s" % json.dumps(groups, indent=1))
    shared, elsewhere, exits = groups
    enoent, eacces = os.strerror(2), os.strerror(13)
    c.expect(shared["location"].endswith("fixture_groups.c:%d"
                                         % line_of("the shared line")),
             "the shared line's group: %r" % shared["location"])
    c.expect_eq((shared["count"], shared["pattern"]), (3, enoent),
                "largest first; its most frequent message")
    c.expect_eq([(p["pattern"], p["tests"]) for p in shared["patterns"]],
                [(enoent, ["files/missing", "files/missing_too"]),
                 (eacces, ["files/refused"])],
                "two errno values of one line: two patterns of one group")
    c.expect(elsewhere["location"].endswith(
        "fixture_groups.c:%d" % line_of("ASSERT_EQ(ENOENT, 0")),
        "the same message from another line is another group: %r"
        % elsewhere["location"])
    c.expect_eq((elsewhere["tests"], elsewhere["pattern"]),
                (["files/missing_elsewhere"], enoent), "elsewhere")
    c.expect_eq((exits["location"], exits["tests"]), (None, ["files/exits"]),
                "an exit has no location: grouped by its message")


@CASES("api_groups_in_compact_and_summary")
def in_compact_and_summary(c):
    """--compact carries the same groups on its summary line; `tattle
    summary` prints the location and each message of a group."""
    done, cwd = c.run("--json", "-", "--compact", "--group-by-error",
                      "--failures-only")
    lines = [json.loads(l) for l in done.stdout.decode().splitlines() if l]
    c.require(lines and "error_groups" in lines[-1],
              "groups on the summary line: %r" % lines[-1:])
    shared = lines[-1]["error_groups"][0]
    c.expect_eq([p["count"] for p in shared.get("patterns", [])], [2, 1],
                "compact: two patterns in the first group")

    done, cwd = c.run("--json", "report.json")
    summary = subprocess.run([c.options.tattle, "summary",
                              os.path.join(cwd, "report.json")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=60)
    text = summary.stdout.decode("utf-8", "replace")
    pattern = (r"\n  3  \S*fixture_groups\.c:%d  \(2 messages\)\n"
               r"       2  %s\n       1  %s\n"
               % (line_of("the shared line"), re.escape(os.strerror(2)),
                  re.escape(os.strerror(13))))
    c.expect(re.search(pattern, text), "the digest's group: %s" % text[:1500])


@CASES("api_groups_compact_keeps_both_values")
def compact_keeps_both_values(c):
    """--compact's "e" keeps both values of an assertion that gave a
    message, after the message."""
    done, cwd = c.run("--json", "-", "--compact", "files/missing")
    lines = [json.loads(l) for l in done.stdout.decode().splitlines() if l]
    c.require(lines and lines[0].get("id") == "files/missing",
              "the test's compact line: %r" % lines[:1])
    c.expect_eq(lines[0].get("e"), "%s (left: 2, right: 0)" % os.strerror(2),
                "message then both values")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--tattle", required=True)
    args = parser.parse_args()
    args.fixture = os.path.abspath(args.fixture)
    return driver.run_case(CASES[args.case], Case(args), args.case)


if __name__ == "__main__":
    sys.exit(main())
