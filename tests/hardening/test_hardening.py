#!/usr/bin/env python3
"""Tests of the hardening against hostile test data: runs hardening_fixture
(a tattle suite that fails on purpose with control bytes, escape sequences,
invalid UTF-8, binary trace payloads, more failures than the result slot
holds and a huge message) and checks what really happened: console bytes,
exit status and the JSON report (validated against schemas/ by
tests/tools/validate_json.py on every run).

    test_hardening.py CASE --fixture PATH

Each CASE is one behaviour, named by its CTest test (`--list`). Every run
happens in its own temporary working directory. Exits 0 when every check of
the case held, 1 otherwise, printing each broken check.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402

FIXTURE_SOURCE = os.path.join(SOURCE_DIR, "tests", "hardening",
                              "fixture_hardening.c")


OLD_REPORT = "OLD REPORT\n"


CheckFailed = driver.CheckFailed


class Run:
    def __init__(self, status, stdout, stderr, cwd):
        self.status = status
        self.stdout = stdout        # bytes
        self.stderr = stderr        # bytes
        self.cwd = cwd
        self.report = None
        self.tests = {}


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-hardening-")
        self.options = options

    def run(self, args, cwd=None, report=True):
        """Runs the fixture with `args` in `cwd` (a new directory when
        None); with `report`, adds --json report.json, then loads and
        validates the report."""
        cwd = cwd or self.new_dir()
        argv = [self.options.fixture] + list(args)
        if report:
            argv += ["--json", "report.json"]
        env = driver.clean_env()
        env["TERM"] = "dumb"
        process = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, timeout=50)
        run = Run(process.returncode, process.stdout, process.stderr, cwd)
        if report:
            path = os.path.join(cwd, "report.json")
            self.require(os.path.exists(path),
                         "no report.json (exit %d, stderr %r)"
                         % (run.status, run.stderr[-2000:]))
            with open(path, encoding="utf-8") as f:
                run.report = json.load(f)
            for p in validate_json.check_report(run.report, complete=True):
                self.problems.append("report does not validate: %s" % p)
            run.tests = {t["id"]: t for t in run.report["tests"]}
        return run

    def test(self, run, test_id):
        self.require(test_id in run.tests, "%s is not in the report (%s)"
                     % (test_id, sorted(run.tests)))
        return run.tests[test_id]


def marker_line(marker):
    with open(FIXTURE_SOURCE, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if "/* @%s */" % marker in line:
                return number
    raise CheckFailed("no marker @%s in %s" % (marker, FIXTURE_SOURCE))


write = driver.write
read = driver.read


CASES = driver.Cases()


# ------------------------------------------------------------------ console

@CASES("hardening_console_escapes_everything_from_tests")
def console_escapes(c):
    r = c.run(["--color=never", "console/*"])
    c.expect_eq(r.status, 1, "exit status")
    c.expect_eq(r.tests.get("console/hostile_failure", {}).get("state"), "failed",
                "console/hostile_failure state")
    c.expect_eq(r.tests.get("console/hostile_skip", {}).get("state"), "skipped",
                "console/hostile_skip state")
    for name, data in (("stdout", r.stdout), ("stderr", r.stderr)):
        c.expect(b"\x1b" not in data, "%s holds an ESC byte" % name)
        raw = sorted({b for b in data if (b < 0x20 and b != 0x0a) or b == 0x7f})
        c.expect(not raw, "%s holds raw control bytes %s" % (name, raw))
        try:
            decoded = data.decode("utf-8", "strict")
            c1 = sorted({ch for ch in decoded if "\x80" <= ch <= "\x9f"})
            c.expect(not c1, "%s holds C1 control characters %r" % (name, c1))
        except UnicodeDecodeError as error:
            c.expect(False, "%s is not valid UTF-8: %s" % (name, error))
    text = r.stdout.decode("utf-8", "replace")
    hostile = "\\x1b[31m\\x01\\x7f\\xff\\xfe"
    # Each place a test's string reaches the console shows it escaped.
    for where in ("second " + hostile + " C1 CSI \\xc2\\x9b",  # 2nd line
                  "stdout " + hostile + "\\x09tab",   # captured output
                  "stderr " + hostile,
                  "actor " + hostile,                 # actor name
                  "to " + hostile,                    # trace: to, label, text
                  "label " + hostile,
                  "from " + hostile,
                  "text " + hostile,
                  "box " + hostile,                   # mailbox name, message
                  "formatted " + hostile,
                  "reason " + hostile):               # skip reason
        c.expect(where in text, "the console does not show %r escaped" % where)
    summary = text[text.find("Failed tests:"):]
    lines = [l for l in summary.splitlines() if "console/hostile_failure" in l]
    c.require(len(lines) == 1, "one summary line for console/hostile_failure: %r"
              % summary)
    # 159 bytes of the message (the next character straddles byte 160).
    c.expect(lines[0].endswith("  " + hostile + "a" * 150 + "..."),
             "the summary line is cut before the straddling character: %r"
             % lines[0])


# -------------------------------------------------------------------- trace

@CASES("hardening_trace_shows_binary_payloads_as_hex")
def binary_payloads(c):
    r = c.run(["trace/binary_payloads"])
    c.expect_eq(r.status, 1, "exit status")
    t = c.test(r, "trace/binary_payloads")
    c.require(t["trace"] is not None, "the failed traced test has a trace")
    expected = ["hex:" + struct.pack("=i", v).hex() for v in (0, 65, 10, 0x4142)]
    expected.append("hello")
    sent = [e["msg"] for e in t["trace"]["events"]
            if e["kind"] == "send" and e["to"] == "peer"]
    c.expect_eq(sent, expected, "messages of tattle_trace_send")
    boxes = [m for m in t["trace"]["mailboxes"] if m["name"] == "box"]
    c.require(len(boxes) == 1, "one mailbox 'box': %r" % t["trace"]["mailboxes"])
    c.expect_eq(boxes[0]["messages"], expected, "pending messages of the mailbox")


# --------------------------------------------------------------------- slot

@CASES("hardening_dropped_records_keep_slot_space")
def slot_space(c):
    r = c.run(["slot/dropped_records_keep_the_space"])
    c.expect_eq(r.status, 1, "exit status")
    t = c.test(r, "slot/dropped_records_keep_the_space")
    failures = t["failures"]
    c.require(failures, "the test has failures")
    first = failures[0]
    c.expect_eq(first["kind"], "assertion", "first failure kind")
    c.expect_eq(first["message"], "first", "first failure message")
    c.expect_eq(first["line"], marker_line("first"), "first failure line")
    c.expect(first["file"].endswith("fixture_hardening.c"),
             "first failure file: %r" % first["file"])
    last = [f for f in failures if f["message"] == "last"]
    c.expect(len(last) == 1 and last[0]["line"] == marker_line("last"),
             "the small failure after the dropped ones is recorded: %s"
             % [f["message"][:20] for f in failures])
    errors = [f for f in failures if f["kind"] == "error"]
    c.expect(len(errors) == 1 and errors[0]["message"].startswith("5 more failures"),
             "one error failure counts the 5 dropped records: %r"
             % [f["message"] for f in errors])
    c.expect_eq(len(failures), 1 + 15 + 1 + 1 + 1, "failures recorded")


@CASES("hardening_huge_message_is_cut_not_dropped")
def huge_message(c):
    r = c.run(["slot/huge_message_is_cut"])
    c.expect_eq(r.status, 1, "exit status")
    t = c.test(r, "slot/huge_message_is_cut")
    c.require(len(t["failures"]) == 1, "one failure: %s"
              % json.dumps(t["failures"])[:2000])
    failure = t["failures"][0]
    c.expect_eq(failure["kind"], "assertion", "kind")
    c.expect_eq(failure["line"], marker_line("huge"), "line")
    c.expect(failure["file"].endswith("fixture_hardening.c"),
             "file: %r" % failure["file"])
    c.expect_eq((failure.get("assertion") or {}).get("macro"), "FAIL", "macro")
    kept = 16 * 1024
    c.expect_eq(failure["message"],
                "h" * kept + "... [truncated %d bytes]" % (400000 - kept), "message")


# ------------------------------------------------------------------- config

def broken_config(c, text, pattern, what):
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"), text)
    write(os.path.join(directory, "report.json"), OLD_REPORT)
    r = c.run(["--json", "report.json"], cwd=directory, report=False)
    stderr = r.stderr.decode("utf-8", "replace")
    c.expect_eq(r.status, 2, "%s: exit status" % what)
    c.expect(stderr.count("\n") == 1 and stderr.endswith("\n"),
             "%s: one line on stderr: %r" % (what, stderr))
    c.expect(re.fullmatch(r"(.*: )?" + pattern, stderr.rstrip("\n")) is not None,
             "%s: %r does not match %r" % (what, stderr, pattern))
    c.expect_eq(r.stdout, b"", "%s: nothing ran" % what)
    c.expect_eq(read(os.path.join(directory, "report.json")), OLD_REPORT,
                "%s: the old report is untouched" % what)


@CASES("hardening_config_duplicate_key_exits_2")
def config_duplicate_key(c):
    broken_config(c, "jobs: 2\njobs: 3\n",
                  r"tattle\.yml:2:1: 'jobs' is given twice \(first at 1:1\)",
                  "top-level key")
    broken_config(c, "jobs: 2\ntrace:\n  cap: 5\n  level: 3\n  cap: 6\n",
                  r"tattle\.yml:5:3: 'cap' is given twice \(first at 3:3\)",
                  "nested key")
    broken_config(c, "tags:\n  - {match: 'a*', add: [x], match: 'b*'}\n",
                  r"tattle\.yml:2:29: 'match' is given twice \(first at 2:6\)",
                  "key of a tag rule")
    # The same key in two different mappings is fine.
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"),
          "jobs: 1\ntags:\n  - {match: 'a*', add: [x]}\n"
          "  - {match: 'b*', add: [y]}\n")
    r = c.run(["config/*"], cwd=directory)
    c.expect_eq(r.status, 0, "the same key in two mappings: exit status")


@CASES("hardening_config_value_out_of_range_exits_2")
def config_value_out_of_range(c):
    # A value the tracer cannot honour is refused at its location, not
    # clamped silently.
    broken_config(c, "trace:\n  payload_bytes: 300\n",
                  r"tattle\.yml:2:18: '300' is not a whole number from 1 to 256",
                  "payload_bytes above the record size")


@CASES("hardening_config_unknown_reporter_exits_2")
def config_unknown_reporter(c):
    # The one line lists the reporters there are.
    known = r" \(known reporters: [^)]*\bjsonl\b[^)]*\)"
    broken_config(c, "reports: {xunit: out.xml}\n",
                  r"tattle\.yml:1:11: no reporter named 'xunit'" + known,
                  "flow mapping")
    broken_config(c, "jobs: 1\nreports:\n  json: r.json\n  subunit: out.subunit\n",
                  r"tattle\.yml:4:3: no reporter named 'subunit'" + known,
                  "block mapping")
    # A reporter that is not built is fine when nothing asks for it.
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"),
          "reports: {json: from-config.json, junit: null, tap: ~}\n")
    r = c.run(["config/*"], cwd=directory, report=False)
    c.expect_eq(r.status, 0, "reports with null entries: exit status")
    path = os.path.join(directory, "from-config.json")
    if c.expect(os.path.exists(path), "the configured json report is written"):
        with open(path, encoding="utf-8") as f:
            for p in validate_json.check_report(json.load(f), complete=True):
                c.problems.append("from-config.json does not validate: %s" % p)


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
