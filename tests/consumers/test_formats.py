#!/usr/bin/env python3
"""The TAP and CTRF reports read by their real consumers.

    test_formats.py CASE --fixture FIXTURE

formats_fixture (fixture_formats.c) runs with --json and the format under
test; the JSON report (validated against its schema) says what happened,
and the consumer must see the same: prove's TAP::Parser and npm's
tap-parser (strict mode) read the TAP with no parse error and count what
the JSON counts, with each description and diagnostic read back exactly;
npm's ctrf package validates the CTRF report against the CTRF schema, and
its summary and tests agree with the JSON; a runner interrupted with
SIGINT inside a test ends its TAP with "Bail out!", having streamed the
test that finished before.

A case that needs the npm packages (tests/consumers/package-lock.json,
installed by scripts/install-npm-deps.sh) exits 77, which CTest counts as
skipped, naming the reason, when node or the packages are not there.
"""
import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))

import driver  # noqa: E402

CASES = driver.Cases()
import validate_json  # noqa: E402

SKIP_STATUS = 77
NODE_PACKAGES = ("ctrf", "tap-parser")


class Skip(Exception):
    """The case cannot run here; the message says why."""


def require_node_packages():
    if not shutil.which("node"):
        raise Skip("node is not installed: the npm consumers cannot run")
    for package in NODE_PACKAGES:
        manifest = os.path.join(HERE, "node_modules", package, "package.json")
        if not os.path.exists(manifest):
            raise Skip("the npm package %s is not installed in tests/consumers "
                       "(scripts/install-npm-deps.sh installs it when npm and "
                       "the npm registry are there)" % package)


def node(script, path):
    """Runs tests/consumers/SCRIPT on PATH; its one line of JSON."""
    process = subprocess.run(["node", os.path.join(HERE, script), path],
                             capture_output=True, timeout=120 * driver.wait_scale())
    if process.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (
            script, process.returncode, process.stderr.decode(errors="replace")))
    return json.loads(process.stdout)


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-formats-")
        self.options = options

    def run(self, arguments, directory=None):
        """Runs the fixture in a new directory with ARGUMENTS; returns the
        directory and the completed process."""
        directory = directory or self.new_dir()
        process = subprocess.run([self.options.fixture] + arguments, cwd=directory,
                                 capture_output=True, timeout=300 * driver.wait_scale())
        return directory, process

    def json_report(self, directory):
        path = os.path.join(directory, "report.json")
        problems = validate_json.check_file(path, kind="report", complete=True)
        self.require(problems == [], "the JSON report is not valid: %s" % problems[:3])
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    def full_run(self, *format_arguments):
        """Every test but the interrupt/ ones, with one retry (the flaky test
        then passes). Returns the directory and the JSON report."""
        directory, process = self.run(["--json", "report.json", "--retry", "1",
                                       *format_arguments, "formats/*", "names/*"])
        self.require(process.returncode == 1, "the fixture exits 1 (tests failed), "
                     "not %d: %s" % (process.returncode, process.stderr[-2000:]))
        report = self.json_report(directory)
        states = {t["state"] for t in report["tests"]}
        self.require(states >= {"passed", "failed", "skipped", "invalid"},
                     "the run has every state: %s" % states)
        self.require(report["summary"]["flaky"] == 1, "one test is flaky")
        return directory, report


def expected_counts(report):
    summary = report["summary"]
    return {
        "total": summary["total"],
        "failed": summary["failed"] + summary["invalid"],
        "skipped": summary["skipped"] + summary["excluded"],
        "passed": summary["passed"],
        "flaky": summary["flaky"],
    }


def tap_escape(text):
    return text.replace("\\", "\\\\").replace("#", "\\#")


def printable_id(test_id):
    """An id the TAP description carries unchanged (once unescaped)."""
    return all(ord(c) >= 0x20 and c != "\x7f" and not 0x80 <= ord(c) < 0xa0
               and c != "\ufffd" for c in test_id)


# ---- the cases ----


@CASES("formats_tap_read_by_prove_counts_agree")
def tap_prove(c):
    """prove (TAP::Parser) reads the TAP without a parse error, counting the
    tests, failures and skips of the JSON report; prove's own summary says
    the same."""
    directory, report = c.full_run("--tap", "report.tap")
    tap_path = os.path.join(directory, "report.tap")
    counts = expected_counts(report)
    parsed = json.loads(subprocess.run(
        ["perl", os.path.join(HERE, "tap_parser.pl"), tap_path],
        capture_output=True, check=True, timeout=60).stdout)
    c.expect_eq(parsed["parse_errors"], [], "TAP::Parser parse errors")
    c.expect_eq(parsed["tests_planned"], counts["total"], "TAP::Parser plan")
    c.expect_eq(parsed["tests_run"], counts["total"], "TAP::Parser tests run")
    c.expect_eq(len(parsed["failed"]), counts["failed"], "TAP::Parser failed")
    c.expect_eq(len(parsed["skipped"]), counts["skipped"], "TAP::Parser skipped")
    c.expect_eq(len(parsed["passed"]), counts["total"] - counts["failed"],
                "TAP::Parser passed (skips included)")
    c.expect_eq(parsed["yaml_blocks"], counts["failed"] + counts["flaky"],
                "TAP::Parser YAML blocks (one per failed or flaky test)")
    c.expect_eq(parsed["bailout"], None, "TAP::Parser bail-out")

    prove = subprocess.run(["prove", "-e", "cat", tap_path], cwd=directory,
                           capture_output=True, timeout=60)
    text = prove.stdout.decode(errors="replace")
    c.expect("Tests: %d Failed: %d)" % (counts["total"], counts["failed"]) in text,
             "prove counts %d tests, %d failed: %s" % (counts["total"],
                                                       counts["failed"], text))
    errors = prove_parse_errors(text)
    if parsed["version_note"]:
        errors = [e for e in errors if not e.startswith("TAP specified version 14")]
    c.expect_eq(errors, [], "prove's parse errors")


def prove_parse_errors(text):
    """The lines of prove's "Parse errors:" section."""
    errors, inside = [], False
    for line in text.splitlines():
        if line.startswith("  Parse errors: "):
            inside = True
            errors.append(line[len("  Parse errors: "):].strip())
        elif inside and line.startswith(" " * 16):
            errors.append(line.strip())
        else:
            inside = False
    return errors


@CASES("formats_tap_read_by_tap_parser_strict_exactly")
def tap_tap_parser(c):
    """npm's tap-parser in strict mode reads the TAP with no parse error,
    counts what the JSON report counts, reads back every description that
    holds printable text exactly (`#` and `\\` escaped), and each failed
    test's diagnostics carry the failure's exact message, values and
    place."""
    directory, report = c.full_run("--tap", "report.tap")
    counts = expected_counts(report)
    parsed = node("check_tap.mjs", os.path.join(directory, "report.tap"))
    c.expect_eq(parsed["parse_errors"], [], "tap-parser parse errors")
    c.expect_eq(parsed["plan"], {"start": 1, "end": counts["total"]}, "tap-parser plan")
    c.expect_eq(parsed["count"], counts["total"], "tap-parser count")
    c.expect_eq(parsed["fail"], counts["failed"], "tap-parser fail")
    c.expect_eq(parsed["skip"], counts["skipped"], "tap-parser skip")
    c.expect_eq(parsed["pass"], counts["total"] - counts["failed"], "tap-parser pass")
    c.expect_eq(parsed["bailout"], False, "tap-parser bail-out")

    # Both parsers take YAML at any indentation; TAP 14 says two spaces.
    with open(os.path.join(directory, "report.tap"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    c.expect_eq((lines.count("  ---"), lines.count("  ...")),
                (counts["failed"] + counts["flaky"],) * 2,
                "YAML blocks opened and closed at two spaces (one per failed or flaky test)")

    by_id = {t["id"]: t for t in report["tests"]}
    points = parsed["points"]
    c.require(len(points) == len(report["tests"]), "one test point per test")
    for point, test in zip(points, report["tests"]):
        where = "test point %d (%r)" % (point["id"], test["id"])
        if printable_id(test["id"]):
            c.expect_eq(point["name"], test["id"].strip(), where + " name")
        c.expect_eq(point["ok"], test["state"] not in ("failed", "invalid"), where + " ok")
        if test["state"] in ("skipped", "excluded"):
            c.expect(point["skip"], where + " is a SKIP")
        failures = test.get("failures", [])
        if test["state"] == "failed":
            diag = point.get("diag") or {}
            first = failures[0]
            c.expect_eq(diag.get("message"), first["message"], where + " message")
            c.expect_eq(diag.get("kind"), first["kind"], where + " kind")
            assertion = first.get("assertion") or {}
            if "left" in assertion:
                c.expect_eq(diag.get("found"), assertion["left"], where + " found")
            if assertion.get("right") is not None:
                c.expect_eq(diag.get("wanted"), assertion["right"], where + " wanted")
            if first.get("file"):
                c.expect_eq(diag.get("at"), {"file": first["file"], "line": first["line"]},
                            where + " at")
            c.expect_eq(len(diag.get("failures", [])), len(failures) - 1,
                        where + " further failures")
        if test.get("flaky"):
            diag = point.get("diag") or {}
            c.expect_eq(diag.get("flaky"), True, where + " flaky")
    hostile = by_id.get("formats/hostile_bytes", {})
    c.expect(any("\x01" in f["message"] for f in hostile.get("failures", [])),
             "the hostile message keeps its control byte in the JSON report")


@CASES("formats_ctrf_valid_for_ctrf_package_counts_agree")
def ctrf(c):
    """npm's ctrf package validates the CTRF report against the CTRF schema;
    its summary counts what the JSON report counts, and each test carries
    its status, message, output lines and tattle's own failures."""
    directory, report = c.full_run("--ctrf", "report.ctrf.json")
    path = os.path.join(directory, "report.ctrf.json")
    checked = node("check_ctrf.mjs", path)
    c.expect_eq(checked["errors"], [], "ctrf validation errors")
    c.expect_eq(checked["valid"], True, "ctrf says the report is valid")
    counts = expected_counts(report)
    summary = checked["summary"] or {}
    c.expect_eq([summary.get(k) for k in ("tests", "passed", "failed", "skipped",
                                          "pending", "other", "flaky")],
                [counts["total"], counts["passed"], counts["failed"], counts["skipped"],
                 0, 0, counts["flaky"]], "CTRF summary counts")
    c.expect_eq(checked["statuses"],
                {k: v for k, v in (("passed", counts["passed"]), ("failed", counts["failed"]),
                                   ("skipped", counts["skipped"])) if v},
                "statuses of the CTRF tests")
    c.expect(summary.get("start", 0) <= summary.get("stop", -1), "start <= stop")

    with open(path, encoding="utf-8") as f:
        ctrf_report = json.load(f)
    ctrf_tests = {t["testId"]: t for t in ctrf_report["results"]["tests"]}
    c.require(len(ctrf_tests) == len(report["tests"]), "one CTRF test per test")
    for test in report["tests"]:
        got = ctrf_tests.get(test["id"], {})
        where = "CTRF test %r" % test["id"]
        failures = test.get("failures", [])
        c.expect_eq(got.get("extra", {}).get("failures", []), failures, where + " extra.failures")
        c.expect_eq(got.get("flaky"), test["flaky"], where + " flaky")
        if test["state"] in ("failed", "invalid") and failures:
            c.expect_eq(got.get("message"), failures[0]["message"], where + " message")
        stdout = test.get("output", {}).get("stdout", "")
        if stdout and not test["flaky"]:
            c.expect_eq("\n".join(got.get("stdout", [])), stdout.rstrip("\n")
                        if stdout.endswith("\n") else stdout, where + " stdout lines")
        if test.get("trace"):
            c.expect_eq(got.get("extra", {}).get("trace"), test["trace"], where + " extra.trace")


def wait_for_file(path, process, seconds):
    deadline = time.monotonic() + seconds * driver.wait_scale()
    while time.monotonic() < deadline and process.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.01)  # a polled condition, bounded by the deadline
    return os.path.exists(path)


def read_line_before(stream, deadline):
    """One line from the pipe, or None when none comes before the deadline."""
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([stream], [], [], left)[0]:
            return None
        byte = os.read(stream.fileno(), 1)
        if not byte:
            return None
        data += byte
    return data.decode(errors="replace")


@CASES("formats_tap_bails_out_when_interrupted")
def tap_interrupted(c):
    """SIGINT to the runner while a test runs: the TAP written to standard
    output has streamed the test that finished before (read while the run
    goes on) and ends with "Bail out!"; tap-parser (strict) and TAP::Parser
    see the bail-out and no parse error."""
    directory = c.new_dir()
    process = subprocess.Popen([c.options.fixture, "-j1", "--tap", "-", "interrupt/*"],
                               cwd=directory, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    streamed = []
    try:
        deadline = time.monotonic() + 60 * driver.wait_scale()
        while not any(line.startswith("ok ") and "interrupt/first" in line
                      for line in streamed):
            line = read_line_before(process.stdout, deadline)
            if line is None:
                break
            streamed.append(line)
        inside = wait_for_file(os.path.join(directory, "inside.body"), process, 60)
        if inside:
            process.send_signal(signal.SIGINT)
        else:
            process.kill()
        rest, errors = process.communicate(timeout=120 * driver.wait_scale())
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    c.require(inside, "interrupt/waits never got inside its body: %s" % errors[-2000:])
    c.expect(any("interrupt/first" in line for line in streamed),
             "the test point of interrupt/first was streamed before the interrupt: %r"
             % streamed)
    c.expect_eq(process.returncode, 3, "exit status of an interrupted run")
    text = "".join(streamed) + rest.decode(errors="replace")
    lines = text.splitlines()
    c.require(lines and lines[-1].startswith("Bail out!"),
              "the TAP ends with Bail out!: %r" % lines[-3:])
    tap_path = os.path.join(directory, "interrupted.tap")
    with open(tap_path, "w", encoding="utf-8") as f:
        f.write(text)
    parsed = json.loads(subprocess.run(
        ["perl", os.path.join(HERE, "tap_parser.pl"), tap_path],
        capture_output=True, check=True, timeout=60).stdout)
    c.expect_eq(parsed["parse_errors"], [], "TAP::Parser parse errors")
    c.expect(parsed["bailout"] is not None, "TAP::Parser sees the bail-out")
    try:
        require_node_packages()
    except Skip as reason:
        print("tap-parser part skipped: %s" % reason)
        return
    result = node("check_tap.mjs", tap_path)
    c.expect_eq(result["parse_errors"], [], "tap-parser parse errors")
    c.expect(result["bailout"], "tap-parser sees the bail-out: %r" % result["bailout"])


# The cases, by CTest name, that cannot run at all without the npm
# packages (formats_tap_bails_out_when_interrupted checks its tap-parser
# part only when they are there).
NEEDS_NODE = {"formats_tap_read_by_tap_parser_strict_exactly",
              "formats_ctrf_valid_for_ctrf_package_counts_agree"}

@CASES("formats_reporter_tap_without_file_owns_stdout")
def tap_reporter_owns_stdout(c):
    """`--reporter tap` without a file writes TAP to standard output and
    nothing else goes there: the console moves to stderr, as with
    `--tap -`."""
    for arguments in (["--reporter", "tap"], ["--tap", "-"]):
        directory, process = c.run(arguments + ["formats/passes", "formats/skipped"])
        c.expect_eq(process.returncode, 0, "%s: exit status" % arguments)
        c.expect_eq(process.stdout.decode(errors="replace"),
                    "TAP version 14\n1..2\nok 1 - formats/passes\n"
                    "ok 2 - formats/skipped # SKIP needs a \\# sign and a \\\\ "
                    "backslash in its reason\n", "%s: standard output" % arguments)
        c.expect(b"formats/passes" in process.stderr,
                 "%s: the console is on stderr" % arguments)


@CASES("formats_npm_cases_skip_naming_why_without_node")
def npm_cases_skip_without_node(c):
    """Each case that needs the npm packages names a case that exists, and
    run where there is no node (an empty PATH) it exits 77, which CTest
    counts as skipped, saying why, rather than failing."""
    c.expect_eq(sorted(NEEDS_NODE - set(CASES)), [], "NEEDS_NODE names no case")
    empty = c.new_dir()
    for name in sorted(NEEDS_NODE):
        process = subprocess.run(
            [sys.executable, os.path.abspath(__file__), name, "--fixture", c.options.fixture],
            cwd=empty, env=dict(os.environ, PATH=empty), capture_output=True,
            timeout=300 * driver.wait_scale())
        c.expect_eq(process.returncode, SKIP_STATUS, "%s without node: exit status (%s)"
                    % (name, process.stderr.decode(errors="replace")[-500:]))
        c.expect(b"SKIPPED: node is not installed" in process.stdout,
                 "%s without node says why: %r" % (name, process.stdout[-500:]))


@CASES("formats_npm_install_runs_only_for_a_changed_lock")
def npm_install_only_for_changed_lock(c):
    """scripts/install-npm-deps.sh runs `npm ci` (here a stand-in npm that
    records its call) when node_modules is missing or was installed from
    another lock, and not for the same lock checked out anew (a fresh clone
    or worktree: a newer file, the same bytes), whose node_modules may be a
    shared one linked in that `npm ci` would empty."""
    tree = c.new_dir()
    source = os.path.join(HERE, "..", "..")
    os.makedirs(os.path.join(tree, "scripts"))
    os.makedirs(os.path.join(tree, "tests", "consumers"))
    shutil.copy(os.path.join(source, "scripts", "install-npm-deps.sh"),
                os.path.join(tree, "scripts"))
    lock = os.path.join(tree, "tests", "consumers", "package-lock.json")
    shutil.copy(os.path.join(HERE, "package-lock.json"), lock)
    bin_dir = os.path.join(tree, "bin")
    os.mkdir(bin_dir)
    calls = os.path.join(tree, "npm-calls")
    with open(os.path.join(bin_dir, "npm"), "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\necho \"$*\" >> '%s'\n"
                "mkdir -p node_modules && echo '{}' > node_modules/.package-lock.json\n" % calls)
    os.chmod(os.path.join(bin_dir, "npm"), 0o755)

    def npm_calls_after_install():
        subprocess.run(["bash", os.path.join(tree, "scripts", "install-npm-deps.sh")],
                       env=dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"]),
                       capture_output=True, check=True, timeout=60 * driver.wait_scale())
        if not os.path.exists(calls):
            return 0
        with open(calls, encoding="utf-8") as f:
            return sum(1 for line in f if line.startswith("ci "))

    c.expect_eq(npm_calls_after_install(), 1, "npm ci without node_modules")
    c.expect_eq(npm_calls_after_install(), 1, "no npm ci again for the same lock")
    later = os.stat(lock).st_mtime + 60
    os.utime(lock, (later, later))
    c.expect_eq(npm_calls_after_install(), 1,
                "no npm ci for the same lock checked out anew (newer, same bytes)")
    with open(lock, "a", encoding="utf-8") as f:
        f.write("\n")
    c.expect_eq(npm_calls_after_install(), 2, "npm ci for a lock that changed")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    options = parser.parse_args()
    options.fixture = os.path.abspath(options.fixture)
    if options.case in NEEDS_NODE:
        try:
            require_node_packages()
        except Skip as reason:
            print("SKIPPED: %s" % reason)
            return SKIP_STATUS
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
