#!/usr/bin/env python3
"""Tests of what a run takes from outside a test and must not be fooled by:
several runs at once in one working directory (.tattle/last-run.json),
test ids that a glob, a shell or an option parser would misread, ids that
are not valid at all, a disk that fills up under the JSON Lines stream, and
tattle.yml files that are huge, deeply nested or hold two documents. Runs
inputs_fixture (tests/hardening/fixture_inputs.c) and checks what really
happened: exit status, stderr, files, and every JSON report validated
against schemas/ by tests/tools/validate_json.py.

    test_inputs.py CASE --fixture PATH

Each CASE is one behaviour, named by its CTest test (`--list`). Every run
happens in its own temporary working directory. Exits 0 when every check of
the case held, 1 otherwise, printing each broken check.
"""
import argparse
import json
import os
import re
import resource
import select
import shlex
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


MULTIPLIER = float(os.environ.get("TATTLE_TIMEOUT_MULTIPLIER") or 1)
OLD_REPORT = "OLD REPORT\n"

CONCURRENT_IDS = ["concurrent/f%02d" % i for i in range(16)]
# The tests wait at a barrier so that their runs end together: a runner
# without a lock on the state file lost 10 to 14 of the 16 failures in the
# first round, every time; the further rounds are a margin.
CONCURRENT_ROUNDS = 3

# Valid ids that a glob, a shell or an option parser would misread, each
# beside the test that the misreading would select instead.
HOSTILE_IDS = [
    "glob/[ab]", "glob/a", "glob/star*", "glob/starry", "glob/question?",
    "glob/questions", "escape/back\\slash", "escape/backslash",
    "-dash/suite", "--double-dash/suite", "--id=other/suite", "names/-dash",
    "names/with space", "names/single'quote",
    "names/double\"quote $HOME `id` ;|&<>()", "names/caf\u00e9 \u2713"]

# Ids that are not valid, as the report shows them, and the message of
# the error failure that says what is wrong.
INVALID_IDS = {
    "names/line\\x0abreak":
        "invalid test id: the name holds the control character U+000A at byte 5",
    "names/tab\\x09here":
        "invalid test id: the name holds the control character U+0009 at byte 4",
    "names/delete\\x7f":
        "invalid test id: the name holds the control character U+007F at byte 7",
    "names/c1 \\xc2\\x85 next line":
        "invalid test id: the name holds the control character U+0085 at byte 4",
    "names/invalid \\xff utf-8":
        "invalid test id: the name is not valid UTF-8 at byte 9 (\\xff)",
    "names/truncated \\xe2\\x9c":
        "invalid test id: the name is not valid UTF-8 at byte 11 (\\xe2\\x9c)",
    "(empty)/empty_suite":
        "invalid test id: the suite name is empty",
    "empty_name/(empty)":
        "invalid test id: the name is empty",
    "esc\\x1b[31m/in_suite":
        "invalid test id: the suite name holds the control character U+001B at byte 4",
    "slash\\x2fin/suite":
        "invalid test id: the suite name holds '/' at byte 6 (it separates suite and name)",
}
NULL_IDS = {
    "names/(null)": "invalid test id: the name is missing (NULL)",
    "(null)/null_suite": "invalid test id: the suite name is missing (NULL)",
}


CheckFailed = driver.CheckFailed
write = driver.write
read = driver.read


class Run:
    def __init__(self, status, stdout, stderr, cwd, seconds):
        self.status = status
        self.stdout = stdout        # bytes
        self.stderr = stderr        # bytes
        self.cwd = cwd
        self.seconds = seconds
        self.report = None
        self.tests = {}


def runner_environment(extra=None):
    env = driver.clean_env(
        also=("TATTLE_FIXTURE_BARRIER", "TATTLE_FIXTURE_NULL_NAMES"))
    env["TERM"] = "dumb"
    env.update(extra or {})
    return env


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-inputs-")
        self.options = options
        self.fixture = os.path.abspath(options.fixture)

    def run(self, args, cwd=None, report=True, env=None, program=None,
            preexec_fn=None, timeout=50):
        """Runs the fixture (or `program`) with `args` in `cwd` (a new
        directory when None); with `report`, adds --json report.json, then
        loads and validates the report."""
        cwd = cwd or self.new_dir()
        argv = [program or self.fixture] + list(args)
        if report:
            argv += ["--json", "report.json"]
        started = time.monotonic()
        process = subprocess.run(argv, cwd=cwd, env=runner_environment(env),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 preexec_fn=preexec_fn, timeout=timeout * MULTIPLIER)
        run = Run(process.returncode, process.stdout, process.stderr, cwd,
                  time.monotonic() - started)
        if report:
            self.load_report(run, "report.json")
        return run

    def load_report(self, run, name):
        path = os.path.join(run.cwd, name)
        self.require(os.path.exists(path), "no %s (exit %d, stderr %r)"
                     % (name, run.status, run.stderr[-2000:]))
        with open(path, encoding="utf-8") as f:
            run.report = json.load(f)
        for p in validate_json.check_report(run.report, complete=True):
            self.problems.append("%s does not validate: %s" % (name, p))
        run.tests = {t["id"]: t for t in run.report["tests"]}

    def test(self, run, test_id):
        self.require(test_id in run.tests, "%s is not in the report (%s)"
                     % (test_id, sorted(run.tests)))
        return run.tests[test_id]

    def stderr_lines(self, run):
        return run.stderr.decode("utf-8", "replace").splitlines()


CASES = driver.Cases()


# ------------------------------------------------------- concurrent state

def read_byte_before(fd, deadline, processes):
    """Waits for one byte on `fd` until `deadline`; fails when a process
    ended before saying it was at the barrier."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise CheckFailed("the tests did not all reach the barrier in time")
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if ready:
            return os.read(fd, 1)
        ended = [p.args[1] for p in processes if p.poll() is not None]
        if ended:
            raise CheckFailed("a run ended before reaching the barrier: %s"
                              % ended)


def concurrent_round(c, directory):
    """Starts one run per concurrent test in `directory`, lets their tests
    end together, waits for every run, and returns the failed ids the state
    file records for the fixture."""
    barrier = os.path.join(directory, "barrier")
    os.mkdir(barrier)
    os.mkfifo(os.path.join(barrier, "ready"))
    os.mkfifo(os.path.join(barrier, "go"))
    # Both ends held by the driver (O_RDWR): a test's open never blocks,
    # and its read of `go` ends when the driver closes it.
    ready = os.open(os.path.join(barrier, "ready"), os.O_RDWR)
    go = os.open(os.path.join(barrier, "go"), os.O_RDWR)
    processes = []
    logs = []
    try:
        env = runner_environment({"TATTLE_FIXTURE_BARRIER": barrier})
        for test_id in CONCURRENT_IDS:
            log = open(os.path.join(directory, test_id.replace("/", "_") + ".log"),
                       "wb")
            logs.append(log)
            processes.append(subprocess.Popen(
                [c.fixture, test_id], cwd=directory, env=env,
                stdout=log, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 30 * MULTIPLIER
        for _ in CONCURRENT_IDS:
            read_byte_before(ready, deadline, processes)
    finally:
        os.close(go)
        os.close(ready)
        for p in processes:
            try:
                p.wait(timeout=30 * MULTIPLIER)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for log in logs:
            log.close()
    statuses = [p.returncode for p in processes]
    c.expect(statuses == [1] * len(processes),
             "every run exits 1 (one failed test): %r" % statuses)
    path = os.path.join(directory, ".tattle", "last-run.json")
    c.require(os.path.exists(path), "no .tattle/last-run.json")
    with open(path, encoding="utf-8") as f:
        state = json.load(f)
    for p in validate_json.check_against(state, "last-run.schema.json"):
        c.problems.append("last-run.json does not validate: %s" % p)
    entry = state["executables"].get(os.path.realpath(c.fixture), {})
    leftovers = [n for n in os.listdir(os.path.join(directory, ".tattle"))
                 if n.endswith(".tmp")]
    c.expect(not leftovers, "temporary files left in .tattle: %r" % leftovers)
    return entry.get("failed", [])


@CASES("hardening_last_run_survives_concurrent_runs")
def last_run_concurrent(c):
    for round_number in range(1, CONCURRENT_ROUNDS + 1):
        directory = c.new_dir()
        recorded = concurrent_round(c, directory)
        lost = sorted(set(CONCURRENT_IDS) - set(recorded))
        c.require(not lost, "round %d: %d of %d failures are not recorded: %s"
                  % (round_number, len(lost), len(CONCURRENT_IDS), lost))
        c.expect_eq(sorted(recorded), CONCURRENT_IDS,
                    "round %d: the recorded failures" % round_number)
        # --failed reruns exactly those tests, each once.
        r = c.run(["--failed"], cwd=directory)
        c.expect_eq(r.status, 1, "round %d: --failed exit status" % round_number)
        c.expect_eq(sorted(r.tests), CONCURRENT_IDS,
                    "round %d: the tests --failed reran" % round_number)
        c.expect(all(t["state"] == "failed" and t["attempts"] == 1
                     for t in r.tests.values()),
                 "round %d: each rerun test failed once: %r" % (
                     round_number, [(t["id"], t["state"], t["attempts"])
                                    for t in r.tests.values()]))


# ------------------------------------------------------------------ rerun

def program_in_hostile_directory(c):
    """The fixture reached through a directory whose name needs quoting,
    so that the rerun command must quote the program as well."""
    directory = os.path.join(c.new_dir(), "a dir with 'quotes' and $x")
    os.mkdir(directory)
    program = os.path.join(directory, "inputs fixture")
    os.symlink(c.fixture, program)
    return program


def rerun_selects_only(c, command, test_id, expected_state, prints_ran):
    """Runs a report's rerun command with /bin/sh and checks that exactly
    the test `test_id` ran, once (its body printed "ran" when `prints_ran`)."""
    directory = c.new_dir()
    process = subprocess.run(
        ["/bin/sh", "-c", command + " --json rerun.json"], cwd=directory,
        env=runner_environment(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, timeout=50 * MULTIPLIER)
    run = Run(process.returncode, process.stdout, process.stderr, directory, 0)
    where = "rerun of %r (%s)" % (test_id, command)
    if not c.expect(os.path.exists(os.path.join(directory, "rerun.json")),
                    "%s: no report (exit %d, stderr %r)"
                    % (where, run.status, run.stderr[-500:])):
        return
    c.load_report(run, "rerun.json")
    c.expect_eq(sorted(run.tests), [test_id], "%s: the tests that ran" % where)
    c.expect_eq(run.report["summary"]["total"], 1, "%s: summary total" % where)
    test = run.tests.get(test_id)
    if test:
        c.expect_eq(test["state"], expected_state, "%s: state" % where)
        if prints_ran:
            c.expect_eq(test["output"]["stdout"], "ran\n", "%s: the body ran" % where)
        if expected_state != "invalid":
            c.expect_eq(test["attempts"], 1, "%s: attempts" % where)
    c.expect_eq(run.status, 0 if expected_state == "passed" else 1,
                "%s: exit status" % where)


@CASES("hardening_rerun_selects_exactly_one_test")
def rerun_exact(c):
    program = program_in_hostile_directory(c)
    r = c.run([], program=program)
    c.expect_eq(r.status, 1, "exit status of the whole run")
    for test_id in HOSTILE_IDS:
        test = c.test(r, test_id)
        c.expect_eq(test["state"], "passed", "%s: state" % test_id)
    # Every test's rerun command reruns exactly that test: the hostile ids,
    # and the others (failed, invalid) as well.
    for test_id, test in sorted(r.tests.items()):
        c.require(isinstance(test["rerun"], str),
                  "%s: rerun is %r" % (test_id, test["rerun"]))
        words = shlex.split(test["rerun"])
        c.expect_eq(words[0], program, "%s: the program of the rerun" % test_id)
        rerun_selects_only(c, test["rerun"], test_id, test["state"],
                           test_id in HOSTILE_IDS)


@CASES("hardening_id_option_selects_exact_ids")
def id_option(c):
    # --id selects by exact id, --id and PATTERN both select.
    r = c.run(["--id", "glob/[ab]", "--id=glob/star*", "glob/q*"])
    c.expect_eq(sorted(r.tests), ["glob/[ab]", "glob/question?",
                                  "glob/questions", "glob/star*"],
                "--id glob/[ab] --id=glob/star* glob/q*")
    r = c.run(["--id", "-dash/suite"])
    c.expect_eq(sorted(r.tests), ["-dash/suite"], "--id -dash/suite")
    r = c.run(["--id=--double-dash/suite"])
    c.expect_eq(sorted(r.tests), ["--double-dash/suite"], "--id=--double-dash/suite")
    r = c.run(["--id=--id=other/suite", "--list"], report=False)
    c.expect_eq(r.stdout.decode(), "--id=other/suite\n", "--list of --id=--id=other/suite")
    c.expect(b"--id ID" in c.run(["--help"], report=False).stdout,
             "--help shows --id ID")
    # An id that names no test is a usage error: nothing runs, nothing is
    # written (a typo must not pass as "nothing failed").
    for args, pattern in (
            (["--id", "glob/nope"],
             r"--id: no test has the id 'glob/nope'"),
            (["--id", "glob/a", "--id", "glob/[ab"],
             r"--id: no test has the id 'glob/\[ab'"),
            (["--id="], r"--id: the id is empty")):
        directory = c.new_dir()
        write(os.path.join(directory, "report.json"), OLD_REPORT)
        r = c.run(args + ["--json", "report.json"], cwd=directory, report=False)
        what = " ".join(args)
        c.expect_eq(r.status, 2, "%s: exit status" % what)
        lines = c.stderr_lines(r)
        c.expect(len(lines) == 1 and re.fullmatch(r".*: " + pattern, lines[0]),
                 "%s: one line matching %r on stderr: %r" % (what, pattern, lines))
        c.expect_eq(r.stdout, b"", "%s: nothing ran" % what)
        c.expect_eq(read(os.path.join(directory, "report.json")), OLD_REPORT,
                    "%s: the old report is untouched" % what)
        c.expect(not os.path.exists(os.path.join(directory, ".tattle")),
                 "%s: no state written" % what)


@CASES("hardening_invalid_test_ids_are_reported_invalid")
def invalid_ids(c):
    r = c.run([], env={"TATTLE_FIXTURE_NULL_NAMES": "1"})
    c.expect_eq(r.status, 1, "exit status")
    expected = dict(INVALID_IDS, **NULL_IDS)
    for test_id, message in sorted(expected.items()):
        if not c.expect(test_id in r.tests, "%r is not in the report (%s)"
                        % (test_id, sorted(r.tests))):
            continue
        test = r.tests[test_id]
        c.expect_eq(test["state"], "invalid", "%r: state" % test_id)
        c.expect_eq([(f["kind"], f["message"]) for f in test["failures"]],
                    [("error", message)], "%r: failures" % test_id)
        c.expect_eq(test["output"]["stdout"], "", "%r: never ran" % test_id)
    for test_id in HOSTILE_IDS:
        c.expect_eq(r.tests.get(test_id, {}).get("state"), "passed",
                    "%r: state" % test_id)
    c.expect_eq(r.report["summary"]["invalid"], len(expected), "summary invalid")
    # The console shows every id on one line of its own.
    console = r.stdout.decode("utf-8", "replace")
    for test_id in expected:
        c.expect(any(test_id in line for line in console.splitlines()),
                 "the console does not show %r" % test_id)
    # The listing and the stream carry the same valid ids.
    listing = c.run(["--list", "--json"], report=False,
                    env={"TATTLE_FIXTURE_NULL_NAMES": "1"})
    c.expect_eq(listing.status, 0, "--list --json exit status")
    tests = json.loads(listing.stdout)
    for p in validate_json.check_against(tests, "list.schema.json"):
        c.problems.append("the listing does not validate: %s" % p)
    listed = {t["id"]: t for t in tests}
    for test_id, message in expected.items():
        c.expect_eq((listed.get(test_id) or {}).get("reason"), message,
                    "--list --json: reason of %r" % test_id)
    stream_run = c.run(["--jsonl", "stream.jsonl"], report=False,
                       env={"TATTLE_FIXTURE_NULL_NAMES": "1"})
    lines, problems = validate_json.parse_lines(
        read(os.path.join(stream_run.cwd, "stream.jsonl")), "stream")
    for n, line in enumerate(lines, 1):
        problems += validate_json.check_against(line, "stream.schema.json")
    finished = {line["test"]["id"]: line["test"] for line in lines
                if line["event"] == "test_finished"}
    for test_id in expected:
        c.expect_eq((finished.get(test_id) or {}).get("state"), "invalid",
                    "the stream: state of %r" % test_id)
    for p in problems:
        c.problems.append("the stream does not validate: %s" % p)


# ------------------------------------------------------------ full disk

def full_disk_at(limit):
    """A preexec_fn: files the run writes stop growing at `limit` bytes
    (write returns EFBIG, as on a full disk, rather than SIGXFSZ)."""
    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_file_size


@CASES("hardening_stream_keeps_whole_lines_on_full_disk")
def stream_full_disk(c):
    args = ["stream/*", "--jsonl", "stream.jsonl", "--json", "report.json"]
    whole = c.run(args, report=False)
    c.require(whole.status == 1, "a run without a limit exits 1: %d %r"
              % (whole.status, whole.stderr))
    text = read(os.path.join(whole.cwd, "stream.jsonl"))
    for p in validate_json.check_stream(text):
        c.problems.append("the whole stream does not validate: %s" % p)
    report_size = os.path.getsize(os.path.join(whole.cwd, "report.json"))
    # Limits that cut lines in their middle: the first line, each test's
    # started and finished lines, and the last line.
    longest_line = max(len(line.encode()) for line in text.splitlines(True))
    limits, offset = [], 0
    for line in text.splitlines(keepends=True):
        limits.append(offset + len(line.encode()) // 2)
        offset += len(line.encode())
    c.require(len(limits) >= 6, "the stream has lines to cut: %r" % text)
    json_failures = 0
    for limit in limits:
        directory = c.new_dir()
        write(os.path.join(directory, "report.json"), OLD_REPORT)
        r = c.run(args, cwd=directory, report=False, preexec_fn=full_disk_at(limit))
        where = "limit %d" % limit
        c.expect_eq(r.status, 3, "%s: exit status" % where)
        stream = open(os.path.join(directory, "stream.jsonl"), "rb").read()
        c.expect(len(stream) <= limit, "%s: the stream holds %d bytes"
                 % (where, len(stream)))
        c.expect(stream == b"" or stream.endswith(b"\n"),
                 "%s: the stream ends with a half line: %r" % (where, stream[-80:]))
        if stream:
            for p in validate_json.check_stream(stream.decode("utf-8"),
                                                finished=False):
                c.problems.append("%s: %s" % (where, p))
        # Whole lines up to the limit: only the line that did not fit is
        # left out (lines differ between runs by a few digits).
        c.expect(len(stream) > limit - longest_line - 64,
                 "%s: only %d bytes kept" % (where, len(stream)))
        errors = [l for l in c.stderr_lines(r) if "jsonl" in l]
        c.expect(len(errors) == 1 and "could not be written" in errors[0],
                 "%s: one line on stderr about the stream: %r" % (where, errors))
        # Below its size the JSON report does not fit either: the old one
        # survives whole. (Above it, the new one is written whole.)
        json_failed = any("json report could not be written" in l
                          for l in c.stderr_lines(r))
        if limit < report_size - 256:
            c.expect(json_failed, "%s: stderr names the json report: %r"
                     % (where, r.stderr))
        if json_failed:
            json_failures += 1
            c.expect_eq(read(os.path.join(directory, "report.json")), OLD_REPORT,
                        "%s: the old report is untouched" % where)
        else:
            c.load_report(Run(r.status, b"", b"", directory, 0), "report.json")
        leftovers = [n for n in os.listdir(directory)
                     if n not in ("report.json", "stream.jsonl", ".tattle")]
        c.expect(not leftovers, "%s: files left behind: %r" % (where, leftovers))
    c.expect(json_failures >= 4, "the JSON report failed at %d limits only"
             % json_failures)


# ---------------------------------------------------------------- config

def broken_config(c, text, pattern, what, seconds=None):
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"), text)
    write(os.path.join(directory, "report.json"), OLD_REPORT)
    r = c.run(["--json", "report.json"], cwd=directory, report=False)
    stderr = r.stderr.decode("utf-8", "replace")
    c.expect_eq(r.status, 2, "%s: exit status" % what)
    c.expect(stderr.count("\n") == 1 and stderr.endswith("\n"),
             "%s: one line on stderr: %r" % (what, stderr[:300]))
    c.expect(re.fullmatch(r"(.*: )?" + pattern, stderr.rstrip("\n")) is not None,
             "%s: %r does not match %r" % (what, stderr[:300], pattern))
    c.expect(r.stdout == b"", "%s: nothing ran: %r" % (what, r.stdout[:200]))
    c.expect(read(os.path.join(directory, "report.json")) == OLD_REPORT,
             "%s: the old report is overwritten" % what)
    c.expect(not os.path.exists(os.path.join(directory, ".tattle")),
             "%s: no state written" % what)
    if seconds is not None:
        c.expect(r.seconds < seconds * MULTIPLIER,
                 "%s: the error took %.1f s" % (what, r.seconds))
    return r


def good_config(c, text, what):
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"), text)
    r = c.run(["config/*"], cwd=directory)
    c.expect_eq(r.status, 0, "%s: exit status (stderr %r)" % (what, r.stderr[:300]))
    return r


# Far below libyaml's time for the same input (about 64 s for 200 KB of
# '['), far above the pre-scan's (milliseconds), however loaded the machine.
FAST_SECONDS = 5

DEPTH_ERROR = (r"tattle\.yml:%d:%d: collections nested deeper than 64 "
               r"levels, the limit of a configuration")


@CASES("hardening_config_depth_limit_is_fast")
def config_depth_limit(c):
    # The root collection is the first level: the 65th collection is the
    # first too deep.
    broken_config(c, "[" * 200 * 1024, DEPTH_ERROR % (1, 65),
                  "200 KB of '['", seconds=FAST_SECONDS)
    line = "tags: " + "{a: [" * 40
    column = [i for i, ch in enumerate(line) if ch in "[{"][63] + 1
    broken_config(c, "jobs: 1\n" + line + "\n", DEPTH_ERROR % (2, column),
                  "flow mappings and sequences", seconds=FAST_SECONDS)
    broken_config(c, "tags:\n" + "  [\n" * 70, DEPTH_ERROR % (65, 3),
                  "one bracket per line", seconds=FAST_SECONDS)
    broken_config(c, "- " * 500 * 1024 + "x\n", DEPTH_ERROR % (1, 129),
                  "1 MB of block sequences", seconds=FAST_SECONDS)
    broken_config(c, "".join(" " * n + "a:\n" for n in range(70)) + " " * 70 + "b\n",
                  DEPTH_ERROR % (65, 65), "indented block mappings",
                  seconds=FAST_SECONDS)
    # 64 levels are read: the configuration check refuses them (a tag rule
    # is not a list of lists), 65 are not.
    broken_config(c, "tags: " + "[" * 63 + "]" * 63 + "\n",
                  r"tattle\.yml:1:8: a tag rule must be \{match, add\}",
                  "64 levels")
    broken_config(c, "tags: " + "[" * 64 + "]" * 64 + "\n",
                  DEPTH_ERROR % (1, 70), "65 levels")


@CASES("hardening_config_size_limit_exits_2")
def config_size_limit(c):
    line = "# " + "x" * 1021 + "\n"       # 1 KiB
    text = "jobs: 1\n" + line * 1024
    broken_config(c, text, r"tattle\.yml: %d bytes, above the 1 MiB limit "
                  r"of a configuration" % len(text),
                  "a file above 1 MiB", seconds=FAST_SECONDS)
    good_config(c, "jobs: 1\n" + line * 1023, "a file just below 1 MiB")


@CASES("hardening_config_second_document_exits_2")
def config_second_document(c):
    broken_config(c, "jobs: 1\n---\njobs: 2\n",
                  r"tattle\.yml:2:1: a second YAML document; a configuration "
                  r"is one document", "--- between two documents")
    broken_config(c, "---\njobs: 1\n...\n# another\n--- {jobs: 2}\n",
                  r"tattle\.yml:5:1: a second YAML document; a configuration "
                  r"is one document", "a document after ...")
    broken_config(c, "jobs: 1\n...\njobs: 2\n",
                  r"tattle\.yml:3:1: did not find expected <document start>",
                  "a document after ... without ---")
    broken_config(c, "jobs: 1\n--- \n",
                  r"tattle\.yml:2:1: a second YAML document; a configuration "
                  r"is one document", "an empty second document")
    broken_config(c, "jobs: 1\n---\njobs: [\n",
                  r"tattle\.yml:4:1: did not find expected node content",
                  "a broken second document")
    good_config(c, "---\njobs: 1\n...\n", "one document with markers")
    good_config(c, "# only a comment\n", "no document")


@CASES("hardening_config_brackets_in_strings_are_not_nesting")
def config_brackets_in_strings(c):
    many = "[" * 70 + "{" * 70
    text = "\n".join([
        "# " + many,
        "jobs: 1   # " + many,
        "tags:",
        "  - match: \"" + many + " # not a comment \\\" still quoted\"",
        "    add: [x]   # " + many,
        "  - match: '" + many + " it''s still quoted'",
        "    add: [y]",
        "  - match: it's plain " + many,
        "    add: [z]",
        "  - {match: \"" + many + "\", add: ['w']}",
        "  - match: |",
        "      " + many,
        "      'not a quote",
        "    add: [v]",
        "  - match: >-",
        "      " + many,
        "",
        "      \"" + many,
        "    add: [u]",
        "  - match: \"a multi-line",
        "      " + many + "\"",
        "    add: [t]",
        ""])
    r = good_config(c, text, "brackets in comments and strings")
    test = r.tests.get("config/passes")
    if c.expect(test is not None, "config/passes ran"):
        c.expect_eq(test["tags"], {}, "no rule matched config/passes")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
