#!/usr/bin/env python3
"""Drives the tests of the `tattle` command: runs it on real reports and
streams (written by report_fixture and by the example suite) and asserts
on what it writes, prints and exits with.

    test_cli.py CASE TATTLE REPORT_FIXTURE [EXAMPLES]

Each case is one CTest test, named by it (`test_cli.py --list`).
"""
import ctypes
import json
import os
import re
import shutil
import select
import signal
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "consumers"))
import report_consumers  # noqa: E402


# The cases, by CTest test name (`test_cli.py --list`).
CASES = driver.Cases()

FAILED = []
TATTLE = FIXTURE = EXAMPLES = None


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what)
    return cond


def tattle(*args, cwd=None, stdin=None):
    proc = subprocess.run([TATTLE] + list(args), cwd=cwd, capture_output=True,
                          input=stdin, timeout=120)
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def fixture_reports(out):
    """The reports and streams report_fixture writes (every state and
    failure kind, a trace, hostile strings, every agent mode)."""
    d = os.path.join(out, "fixture")
    os.mkdir(d)
    subprocess.run([FIXTURE, "write", d], check=True, capture_output=True)
    return d


def example_run(out, name, *args, env=None):
    """Runs the example suite (deliberately failing tests, traces) with
    `args` in a directory of its own; returns that directory."""
    d = os.path.join(out, name)
    os.mkdir(d)
    subprocess.run([EXAMPLES, "--seed", "7", "--color=never"] + list(args), cwd=d,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env or os.environ, timeout=300)
    return d


def one_line_error(stderr, *words):
    lines = stderr.strip("\n").split("\n")
    return (len(lines) == 1 and re.match(r"^tattle[ :]", lines[0])
            and all(w in lines[0] for w in words))


# ---- convert ---------------------------------------------------------------

# Fixture reports, each of whose round trip is exact; failures_grouped_summary
# is a --summary-only report with error groups, carried over without tests.
ROUND_TRIP = ("full.json", "failures_only.json", "first_failure.json",
              "group_by_error.json", "summary_only.json", "empty.json", "hostile.json",
              "failures_grouped_summary.json")


@CASES("cli_convert_to_json_rewrites_reports_byte_for_byte")
def case_round_trip(out):
    """convert R.json --to json writes R.json again, byte for byte, for
    real reports: every fixture mode, hostile strings, 64-bit seeds, the
    example suite's report with traces, and a report read from stdin."""
    fixture = fixture_reports(out)
    reports = [os.path.join(fixture, n) for n in ROUND_TRIP]
    if EXAMPLES:
        reports.append(os.path.join(example_run(out, "examples", "--json", "report.json"),
                                    "report.json"))
        reports.append(os.path.join(example_run(out, "grouped", "--json", "report.json",
                                                "--group-by-error", "--trace-passed"),
                                    "report.json"))
    for report in reports:
        target = os.path.join(out, "again.json")
        rc, _, err = tattle("convert", report, "--to", "json", "-o", target)
        check(rc == 0, "convert %s exits 0: %s" % (report, err))
        check(os.path.exists(target) and read_bytes(target) == read_bytes(report),
              "convert %s --to json is the same report byte for byte" % report)
        os.remove(target) if os.path.exists(target) else None
    rc, text, _ = tattle("convert", "-", "--to", "json", stdin=read_bytes(reports[0]))
    check(rc == 0 and text.encode() == read_bytes(reports[0]), "a report read from stdin")
    check(b"18446744073709551557" in read_bytes(reports[0]),
          "the fixture's seed needs 64 bits (a double would round it)")


@CASES("cli_convert_writes_every_format_valid")
def case_formats(out):
    """Every format a test binary writes can be written from a report and
    from a stream, and each output is valid against its schema."""
    fixture = fixture_reports(out)
    for source in ("full.json", "stream.jsonl", "hostile.json"):
        path = os.path.join(fixture, source)
        for fmt, kind in (("json", "report"), ("jsonl", "stream"), ("compact", "compact")):
            target = os.path.join(out, "out." + fmt)
            rc, _, err = tattle("convert", path, "--to", fmt, "-o", target)
            check(rc == 0, "convert %s --to %s: %s" % (source, fmt, err))
            problems = validate_json.check_file(target, kind)
            check(not problems, "%s as %s is valid: %s" % (source, fmt, problems[:3]))
            rc, text, err = tattle("validate", target)
            check(rc == 0 and "valid " + kind in text,
                  "tattle validate accepts %s as %s: %s%s" % (source, fmt, text, err))
    # A stream becomes the report of the same run.
    rc, _, _ = tattle("convert", os.path.join(fixture, "stream.jsonl"), "--to", "json",
                      "-o", os.path.join(out, "from-stream.json"))
    from_stream = json.loads(read_bytes(os.path.join(out, "from-stream.json")))
    full = json.loads(read_bytes(os.path.join(fixture, "full.json")))
    check([(t["id"], t["state"]) for t in from_stream["tests"]] ==
          [(t["id"], t["state"]) for t in full["tests"]] and
          from_stream["summary"] == full["summary"],
          "a stream converted to json holds the tests and summary of the run")
    # console goes to stdout; an unknown format lists the ones that exist.
    rc, text, _ = tattle("convert", os.path.join(fixture, "full.json"), "--to", "console")
    check(rc == 0 and "math/compares" in text, "convert --to console prints the run")
    rc, _, err = tattle("convert", os.path.join(fixture, "full.json"), "--to", "nope",
                        "-o", os.path.join(out, "x"))
    check(rc == 2 and one_line_error(err, "nope", "json", "jsonl", "compact", "console"),
          "an unknown format is named and the formats listed: %r" % err)
    check(not os.path.exists(os.path.join(out, "x")), "nothing written for a bad format")


@CASES("cli_convert_to_ci_formats_read_by_their_consumers")
def case_ci_formats(out):
    """convert --to junit, tap and ctrf, from reports and from a stream
    (every state and failure kind, hostile strings, and the example
    suite's crashes, timeouts and traces), writes what the real consumers
    accept and count as the report does (tests/consumers/
    report_consumers.py: xmllint --schema and junit2json, TAP::Parser and
    tap-parser in strict mode, the ctrf validator). Skipped (77), saying
    why, without node or the npm packages."""
    missing = report_consumers.npm_consumers_missing()
    if missing:
        print("SKIPPED: %s: the npm consumers cannot run" % missing)
        raise SystemExit(77)
    fixture = fixture_reports(out)
    sources = [os.path.join(fixture, n) for n in ("full.json", "stream.jsonl", "hostile.json")]
    if EXAMPLES:
        run = example_run(out, "examples", "--json", "report.json", "--jsonl", "run.jsonl")
        sources += [os.path.join(run, "report.json"), os.path.join(run, "run.jsonl")]
    for source in sources:
        name = os.path.relpath(source, out)
        rc, text, err = tattle("convert", source, "--to", "json")
        if not check(rc == 0, "convert %s --to json: %s" % (name, err)):
            continue
        written = {}
        for fmt in ("junit", "tap", "ctrf"):
            written[fmt] = os.path.join(out, "converted." + fmt)
            rc, _, err = tattle("convert", source, "--to", fmt, "-o", written[fmt])
            check(rc == 0 and os.path.exists(written[fmt]),
                  "convert %s --to %s: %d %s" % (name, fmt, rc, err))
        for problem in report_consumers.check(json.loads(text)["summary"], **written):
            check(False, "%s converted: %s" % (name, problem))


# ---- bad inputs ---------------------------------------------------------------

def bad_inputs(out):
    """(name, bytes, words the error must hold) for broken reports and
    streams made from real ones."""
    fixture = fixture_reports(out)
    report = read_bytes(os.path.join(fixture, "full.json"))
    stream = read_bytes(os.path.join(fixture, "stream.jsonl"))
    lines = stream.split(b"\n")
    cut = stream[:stream.index(b"test_finished") + 200]
    parsed = json.loads(report)
    wrong_version = dict(parsed, version=2)
    bad_type = json.loads(report)
    bad_type["tests"][2]["duration_us"] = "slow"
    bad_state = json.loads(report)
    bad_state["tests"][1]["state"] = "exploded"
    return [
        ("truncated.json", report[:len(report) // 2], ["truncated", "line", "byte"]),
        ("not-json.json", b"this is not a report\n", ["not", "line 1", "byte 0"]),
        ("garbage-inside.json", report[:300] + b"@" + report[301:], ["not JSON", "byte"]),
        ("wrong-version.json", json.dumps(wrong_version).encode(), [".version", "version 2"]),
        ("bad-type.json", json.dumps(bad_type).encode(), [".tests[2].duration_us", "integer"]),
        ("bad-state.json", json.dumps(bad_state).encode(), [".tests[1].state", "exploded"]),
        ("cut-mid-line.jsonl", cut, ["cut mid-line", "line %d:" % (cut.count(b"\n") + 1)]),
        ("second-run.jsonl", stream + lines[0] + b"\n",
         ["run_finished", "line %d:" % (stream.count(b"\n") + 1)]),
        ("empty.json", b"", ["empty"]),
        ("array.json", b"[1, 2]\n", ["not a JSON object"]),
    ]


@CASES("cli_bad_input_one_line_error_exit_2_nothing_written")
def case_bad_inputs(out):
    """Missing, truncated, non-JSON, wrong-version and cut inputs: one line
    naming the file and the place, exit 2, and nothing written (an
    existing output stays as it was, no temporary file is left)."""
    cases = bad_inputs(out)
    work = os.path.join(out, "work")
    os.mkdir(work)
    cases.append(("missing.json", None, ["cannot open", "No such file"]))
    for name, data, words in cases:
        path = os.path.join(work, name)
        if data is not None:
            write_bytes(path, data)
        for command in (["convert", path, "--to", "json", "-o", "out.json"],
                        ["merge", "-o", "out.json", path],
                        ["summary", path], ["show", path]):
            write_bytes(os.path.join(work, "out.json"), b"OLD")
            before = sorted(os.listdir(work))
            rc, text, err = tattle(*command, cwd=work)
            check(rc == 2, "%s %s exits 2, not %d" % (command[0], name, rc))
            check(one_line_error(err, name, *words),
                  "%s %s: one line naming the file and %s: %r" % (command[0], name, words, err))
            check(read_bytes(os.path.join(work, "out.json")) == b"OLD",
                  "%s %s leaves the old output" % (command[0], name))
            check(sorted(os.listdir(work)) == before,
                  "%s %s leaves no file behind: %s" % (command[0], name, os.listdir(work)))
            check(command[0] in ("summary", "show") or text == "",
                  "%s %s writes nothing on stdout" % (command[0], name))


@CASES("cli_help_and_usage_errors")
def case_usage(out):
    """--help for the command and every subcommand; usage errors exit 2
    with one line."""
    rc, text, _ = tattle("--help")
    check(rc == 0 and all(c in text for c in ("merge", "summary", "show", "validate",
                                                  "convert")), "tattle --help lists commands")
    for command in ("merge", "summary", "show", "validate", "convert"):
        rc, text, _ = tattle(command, "--help")
        check(rc == 0 and text.startswith("usage: tattle " + command),
              "tattle %s --help" % command)
        rc, _, err = tattle(command, "--no-such-option", "x")
        check(rc == 2 and one_line_error(err, "--no-such-option"),
              "tattle %s with an unknown option exits 2: %r" % (command, err))
    rc, _, err = tattle("frobnicate")
    check(rc == 2 and one_line_error(err, "frobnicate"), "an unknown command exits 2")
    rc, _, _ = tattle()
    check(rc == 2, "no command exits 2")
    rc, text, _ = tattle("--version")
    check(rc == 0 and text.startswith("tattle "), "--version")
    rc, _, err = tattle("merge", "in.json")
    check(rc == 2 and one_line_error(err, "-o"), "merge without -o is a usage error")


# ---- merge -------------------------------------------------------------------

def tests_of(path):
    return json.loads(read_bytes(path))["tests"]


@CASES("cli_merge_of_shards_equals_the_whole_run", needs=("examples",))
def case_merge_shards(out):
    """The shards of one run merged equal the run itself: the same tests
    with the same results, the summary counted again, a valid report."""
    full = example_run(out, "full", "--json", "report.json")
    shards = os.path.join(out, "shards")
    os.mkdir(shards)
    for i in range(3):
        d = example_run(out, "shard%d" % i, "--shard", "%d/3" % i, "--jsonl", "s.jsonl")
        shutil.copy(os.path.join(d, "s.jsonl"), os.path.join(shards, "shard%d.jsonl" % i))
    merged = os.path.join(out, "merged.json")
    rc, _, err = tattle("merge", "-o", merged, shards)
    check(rc == 0, "merge of shards exits 0: %s" % err)
    problems = validate_json.check_file(merged, "report", complete=True)
    check(not problems, "the merged report is valid and complete: %s" % problems[:3])
    whole = json.loads(read_bytes(os.path.join(full, "report.json")))
    mine = json.loads(read_bytes(merged))

    def comparable(t):
        t = dict(t, duration_us=0)
        if t["trace"]:
            t["trace"] = "traced"
        t["output"] = dict(t["output"], stdout="", stderr="")
        return t
    check(sorted(t["id"] for t in mine["tests"]) == sorted(t["id"] for t in whole["tests"]),
          "the merged report has every test of the run once")
    by_id = {t["id"]: comparable(t) for t in whole["tests"]}
    for t in mine["tests"]:
        check(comparable(t)["state"] == by_id[t["id"]]["state"] and
              comparable(t)["failures"][:0] == [] and
              [f["kind"] for f in t["failures"]] ==
              [f["kind"] for f in by_id[t["id"]]["failures"]],
              "%s has the same result merged" % t["id"])
    for key in ("total", "passed", "failed", "skipped", "excluded", "invalid", "flaky"):
        check(mine["summary"][key] == whole["summary"][key], "summary.%s counted again" % key)
    check(mine["run"]["shard"] is None, "the merged run is not one shard")
    # A report and streams mix; one input merges to itself.
    rc, _, _ = tattle("merge", "-o", os.path.join(out, "self.json"),
                      os.path.join(full, "report.json"))
    check(rc == 0 and read_bytes(os.path.join(out, "self.json")) ==
          read_bytes(os.path.join(full, "report.json")),
          "merging one report writes that report again")


def report_test_lines(data):
    """The tests of a json report as the bytes it wrote them: one line
    each, without the separating comma."""
    lines = data.split(b"\n")
    return [line.rstrip(b",") for line in lines if line.startswith(b'{"id":')]


@CASES("cli_merge_writes_each_streamed_test_as_the_json_reporter_does",
       needs=("examples",))
def case_merge_same_bytes(out):
    """A merged stream's tests are the very bytes the json reporter wrote
    for the same results: streams of report_fixture (every state, failure
    kind, a trace, hostile strings) against its reports, a stream cut
    short after some tests, and the example suite's stream against the
    report of the same run."""
    fixture = fixture_reports(out)
    pairs = (("stream.jsonl", "group_by_error.json"), ("hostile.jsonl", "hostile.json"))
    for stream, report in pairs:
        merged = os.path.join(out, "merged.json")
        rc, _, err = tattle("merge", "-o", merged, os.path.join(fixture, stream))
        check(rc == 0, "merge %s exits 0: %s" % (stream, err))
        mine = report_test_lines(read_bytes(merged)) if rc == 0 else []
        theirs = report_test_lines(read_bytes(os.path.join(fixture, report)))
        check(len(theirs) >= 2 and mine == theirs,
              "merge of %s writes the tests of %s byte for byte" % (stream, report))
    # Cut after the second finished test, inside the third test's run.
    lines = read_bytes(os.path.join(fixture, "stream.jsonl")).split(b"\n")
    finished = [i for i, line in enumerate(lines) if b'"event":"test_finished"' in line]
    check(len(finished) >= 3, "the fixture stream has three finished tests")
    cut = os.path.join(out, "cut.jsonl")
    write_bytes(cut, b"\n".join(lines[:finished[2]]) + b"\n")
    merged = os.path.join(out, "cut.json")
    rc, _, err = tattle("merge", "-o", merged, cut)
    check(rc == 0, "merge of a cut stream exits 0: %s" % err)
    mine = report_test_lines(read_bytes(merged)) if rc == 0 else []
    theirs = report_test_lines(read_bytes(os.path.join(fixture, "group_by_error.json")))
    check(mine[:2] == theirs[:2] and len(mine) == 3 and b'"killed: ' in mine[2],
          "a cut stream keeps its finished tests byte for byte, then the killed one")
    run = example_run(out, "examples", "--json", "report.json", "--jsonl", "s.jsonl")
    merged = os.path.join(out, "examples.json")
    rc, _, err = tattle("merge", "-o", merged, os.path.join(run, "s.jsonl"))
    check(rc == 0, "merge of the example suite's stream exits 0: %s" % err)
    mine = report_test_lines(read_bytes(merged)) if rc == 0 else []
    theirs = report_test_lines(read_bytes(os.path.join(run, "report.json")))
    check(len(theirs) > 10 and sorted(mine) == sorted(theirs),
          "the example suite's stream merges to the tests of its own report, "
          "byte for byte (%d and %d tests)" % (len(mine), len(theirs)))


@CASES("cli_merge_duplicate_id_is_an_error_unless_keep_last")
def case_merge_duplicates(out):
    """A test id in two inputs is an error naming both, unless --keep-last,
    which keeps the later input's result."""
    fixture = fixture_reports(out)
    first = os.path.join(fixture, "full.json")
    later = json.loads(read_bytes(first))
    for t in later["tests"]:
        t["duration_us"] = 777777
    second = os.path.join(out, "later.json")
    write_bytes(second, json.dumps(later).encode())
    target = os.path.join(out, "m.json")
    rc, _, err = tattle("merge", "-o", target, first, second)
    check(rc == 2 and one_line_error(err, "full.json", "later.json", "--keep-last"),
          "a duplicate id names both inputs: %r" % err)
    check(not os.path.exists(target), "no output after a duplicate")
    rc, _, err = tattle("merge", "--keep-last", "-o", target, first, second)
    check(rc == 0, "--keep-last merges: %s" % err)
    tests = tests_of(target)
    check(len(tests) == len(later["tests"]) and
          all(t["duration_us"] == 777777 for t in tests),
          "--keep-last keeps the later input's results, each once")
    # Repeats within one input are not duplicates across inputs.
    stream = read_bytes(os.path.join(fixture, "stream.jsonl")).split(b"\n")
    finished = [l for l in stream if b'"test_finished"' in l]
    twice = b"\n".join(stream[:-2] + finished[:1] + stream[-2:])
    write_bytes(os.path.join(out, "twice.jsonl"), twice)
    rc, _, err = tattle("merge", "-o", target, os.path.join(out, "twice.jsonl"))
    check(rc == 0, "a test repeated within one input merges: %s" % err)


@CASES("cli_merge_keeps_groups_and_counts_of_summary_only_reports")
def case_merge_summary_only(out):
    """A report written without its tests (--summary-only) still carries its
    error groups and counts: merge keeps both, and adds up the groups of
    two such reports pattern by pattern."""
    fixture = fixture_reports(out)
    first = os.path.join(fixture, "failures_grouped_summary.json")
    report = json.loads(read_bytes(first))
    check(report["error_groups"] and "tests" not in report,
          "the fixture is summary-only with groups")
    target = os.path.join(out, "m.json")
    rc, _, err = tattle("merge", "-o", target, first)
    check(rc == 0, "a summary-only report merges: %s" % err)
    merged = json.loads(read_bytes(target)) if rc == 0 else {}
    check(merged.get("error_groups") == report["error_groups"],
          "its error groups are kept: %r" % merged.get("error_groups"))
    check(merged and "tests" not in merged,
          "inputs all without tests give a report without tests")
    counts = ("total", "passed", "failed", "skipped", "excluded", "invalid",
              "flaky")
    check(all(merged.get("summary", {}).get(k) == report["summary"][k]
              for k in counts) and merged["summary"]["result"] == "failed",
          "its counts are kept: %r" % merged.get("summary"))
    other = json.loads(read_bytes(first))
    for group in other["error_groups"]:
        group["tests"] = ["other-" + t for t in group["tests"]]
        for pattern in group.get("patterns", []):
            pattern["tests"] = ["other-" + t for t in pattern["tests"]]
    second = os.path.join(out, "other.json")
    write_bytes(second, json.dumps(other).encode())
    rc, _, err = tattle("merge", "-o", target, first, second)
    check(rc == 0, "two summary-only reports merge: %s" % err)
    merged = json.loads(read_bytes(target)) if rc == 0 else {}
    by_pattern = {g["pattern"]: g for g in merged.get("error_groups", [])}
    check(len(by_pattern) == len(report["error_groups"]) and
          all(by_pattern.get(g["pattern"], {}).get("count") == 2 * g["count"] and
              by_pattern[g["pattern"]]["tests"] ==
              g["tests"] + ["other-" + t for t in g["tests"]]
              for g in report["error_groups"]),
          "the groups of both are added up: %r" % merged.get("error_groups"))
    check(merged.get("summary", {}).get("failed") == 2 * report["summary"]["failed"],
          "the counts of both are added up: %r" % merged.get("summary"))
    problems = validate_json.check_file(target, "report")
    check(not problems, "the merged report is valid: %s" % problems)


def become_subreaper():
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)


def kill_orphans():
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            try:
                os.kill(int(pid), signal.SIGKILL)
                os.waitpid(int(pid), 0)
            except OSError:
                pass


@CASES("cli_merge_keeps_killed_stream_and_fails_its_running_test", needs=("examples",))
def case_merge_killed(out):
    """A stream cut short by SIGKILL: merge keeps its finished tests and
    reports the running one failed with an error naming the kill; the
    merged run is interrupted; a complete shard merges beside it."""
    become_subreaper()
    d = os.path.join(out, "killed")
    os.mkdir(d)
    stream = os.path.join(d, "run.jsonl")
    hang = "demo/hangs_until_timeout"
    env = dict(os.environ, TATTLE_TIMEOUT_MULTIPLIER="200")
    proc = subprocess.Popen([EXAMPLES, "-j", "1", "--jsonl", stream, "queue/*", hang],
                            cwd=d, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    seen = False
    while time.time() < deadline and not seen:
        time.sleep(0.02)
        if os.path.exists(stream):
            seen = ('"event":"test_started","id":"%s"' % hang).encode() in read_bytes(stream)
    check(seen, "the runner reached the hanging test")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kill_orphans()
    other = example_run(out, "other", "--jsonl", "s.jsonl", "demo/off_by_one_capacity")
    target = os.path.join(out, "merged.json")
    rc, _, err = tattle("merge", "-o", target, stream, os.path.join(other, "s.jsonl"))
    check(rc == 0, "merge of a killed stream exits 0: %s" % err)
    problems = validate_json.check_file(target, "report", complete=True)
    check(not problems, "the merged report is valid: %s" % problems[:3])
    report = json.loads(read_bytes(target))
    tests = {t["id"]: t for t in report["tests"]}
    check(all(tests.get(i, {}).get("state") in ("passed", "skipped")
              for i in tests if i.startswith("queue/")) and
          sum(i.startswith("queue/") for i in tests) >= 5,
          "the finished tests are kept: %s" % sorted(tests))
    killed = tests.get(hang, {})
    failure = (killed.get("failures") or [{}])[0]
    check(killed.get("state") == "failed" and failure.get("kind") == "error" and
          "killed" in failure.get("message", ""),
          "the running test is failed with an error naming the kill: %s" % failure)
    check(killed.get("rerun", "").endswith("--id=" + hang), "the killed test can be rerun")
    check(report["run"]["interrupted"] is True and report["summary"]["result"] == "failed",
          "the merged run is interrupted")
    check("demo/off_by_one_capacity" in tests, "the other input is merged too")
    rc, text, _ = tattle("summary", stream)
    check(rc == 1 and "interrupted" in text and hang in text,
          "summary of the killed stream names it: %s" % text)


# ---- summary and show ----------------------------------------------------------

LINE = re.compile(r"^(\S+)  (assertion|crash|timeout|exit|error)  (\S+:\d+|\?)  (.*)$")


@CASES("cli_summary_digest_one_line_per_failure", needs=("examples",))
def case_summary(out):
    """The digest: counts, error groups, one line per failure (id, kind,
    file:line, first line of its message) with its rerun command; exit 1
    when something failed, 0 when not."""
    failing = os.path.join(example_run(out, "failing", "--json", "r.json"), "r.json")
    passing = os.path.join(example_run(out, "passing", "--json", "r.json", "queue/*"), "r.json")
    rc, text, err = tattle("summary", failing)
    check(rc == 1, "summary of a failing report exits 1: %s" % err)
    report = json.loads(read_bytes(failing))
    s = report["summary"]
    check(("%d tests: %d passed, %d failed" % (s["total"], s["passed"], s["failed"])) in text,
          "the counts are printed: %s" % text[:200])
    check("error groups:" in text, "the error groups are printed")
    failure_lines = [l for l in text.split("\n") if LINE.match(l)]
    expected = sum(len(t["failures"]) for t in report["tests"]
                   if t["state"] in ("failed", "invalid"))
    check(len(failure_lines) == expected,
          "one line per failure: %d lines, %d failures" % (len(failure_lines), expected))
    for t in report["tests"]:
        if t["state"] == "failed":
            first = t["failures"][0]["message"].split("\n")[0]
            check(any(l.startswith(t["id"] + "  ") and first in l for l in failure_lines),
                  "%s has its line with its message" % t["id"])
            check(("  rerun: " + t["rerun"]) in text, "%s has its rerun command" % t["id"])
    rc, text, _ = tattle("summary", passing)
    check(rc == 0 and "failures:" not in text, "summary of a passing report exits 0")


def hostile_report(out):
    """The example report with a trace whose names and payloads are made to
    break a Mermaid diagram or a terminal."""
    report = json.loads(read_bytes(os.path.join(
        example_run(out, "hostile-src", "--json", "r.json"), "r.json")))
    traced = [t for t in report["tests"] if t["trace"]]
    t = traced[0]
    evil = ["end", "a;b", "x-->>y: z", "#quot; %%{init}%%", "line\nbreak",
            "<script>alert(1)</script>", "\u202eRTL", "esc\u001b[31m"]
    names = {}
    for i, e in enumerate(t["trace"]["events"]):
        for key in ("from", "to"):
            if key in e:
                names.setdefault(e[key], evil[len(names) % len(evil)])
                e[key] = names[e[key]]
        if "label" in e:
            e["label"] = "lbl: ;#\n" + e["label"]
        if "msg" in e:
            e["msg"] = e["msg"] + " -->> Note over x: pwned\nsequenceDiagram"
    for a in t["trace"]["actors"]:
        a["name"] = names.get(a["name"], a["name"])
    for m in t["trace"]["mailboxes"]:
        m["name"] = names.get(m["name"], m["name"])
        m["messages"] = [x + "\n%% end" for x in m["messages"]]
    path = os.path.join(out, "hostile.json")
    write_bytes(path, json.dumps(report).encode())
    return path, t["id"]


MERMAID_LINE = re.compile(
    r"^(sequenceDiagram"
    r"|    participant p\d+ as [A-Za-z0-9 .,_\-()/=+*!?@\[\]'#;]+"
    r"|    p\d+(->>|--\)|-->>)p\d+: [A-Za-z0-9 .,_\-()/=+*!?@\[\]'#;]+"
    r"|    Note (over|right of) p\d+(,p\d+)?: [A-Za-z0-9 .,_\-()/=+*!?@\[\]'#;<>]+)$")


@CASES("cli_show_chart_and_mermaid_safe_against_hostile_names", needs=("examples",))
def case_show(out):
    """show prints one test in full with its trace as a chart; --mermaid
    prints a sequenceDiagram that no name or payload can break."""
    report = os.path.join(example_run(out, "ex", "--json", "r.json"), "r.json")
    data = json.loads(read_bytes(report))
    first_failed = [t for t in data["tests"] if t["state"] == "failed"][0]
    rc, text, _ = tattle("show", report)
    check(rc == 0 and text.startswith(first_failed["id"] + "  failed"),
          "without ID, the first failed test: %s" % text[:80])
    check(first_failed["failures"][0]["message"].split("\n")[0] in text, "its failure")
    check(("rerun: " + first_failed["rerun"]) in text, "its rerun command")
    pending = "trace_demo/worker_crashes_with_pending_jobs"
    rc, text, _ = tattle("show", report, pending)
    check(rc == 0, "show ID exits 0")
    lines = text.split("\n")
    header = [l for l in lines if re.match(r"^\s+main\s+worker", l)]
    check(header, "a column per actor: %s" % text)
    check(any("|---job-->|" in l for l in lines), "an arrow per received message")
    check(sum("(never received)" in l for l in lines) == 4, "unreceived messages marked")
    check("pending in mailboxes" in text and "job #4 c.txt" in text,
          "the pending messages at the bottom")
    check(any(re.search(r"X\s+.*not alive", l) for l in lines), "the dead worker is marked")
    rc, _, err = tattle("show", report, "no/such_test")
    check(rc == 2 and one_line_error(err, "no/such_test"), "an unknown id exits 2")
    rc, text, _ = tattle("show", report, pending, "--mermaid")
    check(rc == 0 and text.startswith("sequenceDiagram\n"), "--mermaid prints a diagram")
    check("->>" in text and "Note over" in text and "pending" in text,
          "arrows, notes and pending messages: %s" % text)
    rc, text, _ = tattle("show", report, "queue/push_then_pop", "--mermaid")
    check(rc == 0 and "no trace recorded" in text, "an untraced test gives a valid diagram")
    path, test_id = hostile_report(out)
    rc, text, err = tattle("show", path, test_id, "--mermaid")
    check(rc == 0, "hostile names: %s" % err)
    bad = [l for l in text.rstrip("\n").split("\n") if not MERMAID_LINE.match(l)]
    check(not bad, "every Mermaid line keeps the grammar whatever the names: %s" % bad[:5])
    check("participant p0 as #101;nd" in text or "#101;nd" in text,
          "a keyword as a name is escaped")
    rc, text, err = tattle("show", path, test_id)
    check(rc == 0 and "\x1b" not in text and "\u202e" not in text,
          "no terminal control reaches the chart")


def many_actors_report(out, fixture, actors):
    """The fixture's traced failed test with `actors` more event rows, each
    from an actor of its own."""
    report = json.loads(read_bytes(os.path.join(fixture, "full.json")))
    t = [t for t in report["tests"] if t["trace"] and t["state"] == "failed"][0]
    events = t["trace"]["events"]
    for i in range(actors):
        events.append({"seq": len(events) + 1, "t_us": 100 + i, "kind": "event",
                       "from": "actor-%d" % i, "label": "tick", "msg": "n=%d" % i,
                       "size": 0, "level": 0})
        t["trace"]["actors"].append({"name": "actor-%d" % i, "pid": 100, "tid": 1000 + i,
                                     "alive_at_exit": True})
    t["trace"]["recorded"] = len(events)
    path = os.path.join(out, "actors-%d.json" % actors)
    write_bytes(path, json.dumps(report).encode())
    return path, t["id"]


@CASES("cli_show_chart_linear_in_trace_with_thousands_of_actors")
def case_show_many_actors(out):
    """A trace naming thousands of actors gives a chart whose size is
    linear in the trace: a bounded number of lanes, the rest folded into
    one "others" lane, said in a line, each folded actor named in its row."""
    fixture = fixture_reports(out)
    sizes = {}
    for actors in (2000, 4000):
        path, test_id = many_actors_report(out, fixture, actors)
        proc = subprocess.run([TATTLE, "show", path, test_id], capture_output=True,
                              timeout=120)
        sizes[actors] = len(proc.stdout)
        text = proc.stdout.decode("utf-8", "replace")
        check(proc.returncode == 0, "show with %d actors exits 0" % actors)
        check(sizes[actors] < 300 * actors,
              "%d actors: %d bytes, at most 300 a row" % (actors, sizes[actors]))
        check(re.search(r"share the lane \"others\"", text), "the folding is said in a line")
        check("actor-%d" % (actors - 1) in text and "n=%d" % (actors - 1) in text,
              "a folded actor is named in its row")
        widest = max(len(l) for l in text.split("\n"))
        check(widest < 600, "no row is wider than the lanes allow: %d" % widest)
    check(sizes[4000] < 2.5 * sizes[2000], "twice the actors, about twice the output: %s"
          % sizes)


def through_fifo(fifo, command, cwd=None):
    """Runs `command`, which writes to the FIFO `fifo`, reading the FIFO
    until the command has exited and every byte is read. Returns the exit
    status and the bytes."""
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    data = bytearray()
    deadline = time.monotonic() + 120 * driver.wait_scale()
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([reader], [], [], 0.1)
            chunk = os.read(reader, 65536) if ready else b""
            data += chunk
            if not chunk:
                try:
                    proc.wait(timeout=0.05)
                except subprocess.TimeoutExpired:
                    continue
                data += os.read(reader, 1 << 24) if select.select([reader], [], [], 0)[0] \
                    else b""
                break
    finally:
        os.close(reader)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, bytes(data)


@CASES("cli_fifo_or_device_output_written_into_never_replaced")
def case_special_outputs(out):
    """An output that exists and is not a regular file (a FIFO, a device)
    gets the report written into it and stays what it was: convert, merge
    and a test binary's --json."""
    fixture = fixture_reports(out)
    report = os.path.join(fixture, "full.json")
    fifo = os.path.join(out, "fifo")
    os.mkfifo(fifo)
    rc, data = through_fifo(fifo, [TATTLE, "convert", report, "--to", "json", "-o", fifo])
    check(rc == 0, "convert -o FIFO exits 0")
    check(stat.S_ISFIFO(os.stat(fifo).st_mode), "convert leaves the FIFO a FIFO")
    check(data == read_bytes(report), "the report came through the FIFO (%d bytes)" % len(data))
    if not stat.S_ISFIFO(os.stat(fifo).st_mode):
        os.remove(fifo)
        os.mkfifo(fifo)
    rc, data = through_fifo(fifo, [TATTLE, "merge", "-o", fifo, report])
    check(rc == 0 and stat.S_ISFIFO(os.stat(fifo).st_mode) and data == read_bytes(report),
          "merge -o FIFO writes into the FIFO")
    if EXAMPLES:
        if not stat.S_ISFIFO(os.stat(fifo).st_mode):
            os.remove(fifo)
            os.mkfifo(fifo)
        run_dir = os.path.join(out, "run")
        os.mkdir(run_dir)
        rc, data = through_fifo(fifo, [EXAMPLES, "--seed", "7", "--color=never",
                                       "--json", fifo], cwd=run_dir)
        check(stat.S_ISFIFO(os.stat(fifo).st_mode), "a test binary's --json keeps the FIFO")
        check(data.startswith(b"{") and json.loads(data)["tests"],
              "the binary's report came through the FIFO: %r" % data[:80])
    if os.geteuid() == 0:
        # A character device of our own (what /dev/null is), in our scratch.
        device = os.path.join(out, "null")
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        rc, _, err = tattle("merge", "-o", device, report)
        check(rc == 0 and stat.S_ISCHR(os.stat(device).st_mode),
              "merge -o a character device writes into it: %s" % err)
        check(sorted(os.listdir(out)) == sorted(["fixture", "fifo", "null"] + (["run"] if EXAMPLES else [])),
              "no temporary file left: %s" % os.listdir(out))
    else:
        print("not root: the character device part needs mknod")


@CASES("cli_merge_reads_standard_input")
def case_merge_stdin(out):
    """merge reads '-' (standard input) like any input, although it reads
    every input twice: a report, a stream, and '-' beside a file."""
    fixture = fixture_reports(out)
    report = os.path.join(fixture, "full.json")
    merged = os.path.join(out, "m.json")
    rc, _, err = tattle("merge", "-o", merged, "-", stdin=read_bytes(report))
    check(rc == 0 and os.path.exists(merged) and read_bytes(merged) == read_bytes(report),
          "a report on stdin merges to itself: %s" % err)
    stream = os.path.join(fixture, "stream.jsonl")
    from_file = os.path.join(out, "from_file.json")
    rc, _, err = tattle("merge", "-o", from_file, stream)
    check(rc == 0, "the stream merges from its file: %s" % err)
    rc, _, err = tattle("merge", "-o", merged, "-", stdin=read_bytes(stream))
    check(rc == 0 and os.path.exists(merged) and
          tests_of(merged) == tests_of(from_file), "a stream on stdin: %s" % err)
    others = os.path.join(fixture, "hostile.json")
    rc, _, err = tattle("merge", "-o", merged, others, "-", stdin=read_bytes(report))
    check(rc == 0 and len(tests_of(merged)) == len(tests_of(others)) + len(tests_of(report)),
          "'-' beside a file: %s" % err)


def variants(report):
    """Broken copies of a real report, each with one field wrong."""
    out = []

    def add(name, mutate):
        r = json.loads(json.dumps(report))
        mutate(r)
        out.append((name, r))
    add("version", lambda r: r.__setitem__("version", 2))
    add("version-string", lambda r: r.__setitem__("version", "1"))
    add("no-tool", lambda r: r.pop("tool"))
    add("tool-name", lambda r: r["tool"].__setitem__("name", "other"))
    add("tool-version", lambda r: r["tool"].__setitem__("version", "x.y"))
    add("extra-top", lambda r: r.__setitem__("extra", 1))
    add("started_at", lambda r: r["run"].__setitem__("started_at", "yesterday"))
    add("seed-negative", lambda r: r["run"].__setitem__("seed", -1))
    add("seed-float", lambda r: r["run"].__setitem__("seed", 1.5))
    add("jobs-zero", lambda r: r["run"].__setitem__("jobs", 0))
    add("argv-item", lambda r: r["run"]["argv"].append(3))
    add("shard-total", lambda r: r["run"].__setitem__("shard", {"index": 0, "total": 0}))
    add("shard-extra", lambda r: r["run"].__setitem__("shard", {"index": 0, "total": 1,
                                                                 "x": 1}))
    add("interrupted", lambda r: r["run"].__setitem__("interrupted", "no"))
    add("summary-missing", lambda r: r["summary"].pop("flaky"))
    add("summary-result", lambda r: r["summary"].__setitem__("result", "ok"))
    add("summary-count", lambda r: r["summary"].__setitem__("total", -3))
    add("tests-object", lambda r: r.__setitem__("tests", {}))
    for i, t in enumerate(report.get("tests", [])[:5]):
        p = "tests[%d]." % i
        add(p + "id", lambda r, i=i: r["tests"][i].__setitem__("id", "noslash"))
        add(p + "id-newline", lambda r, i=i: r["tests"][i].__setitem__("id", "a/b\nc"))
        add(p + "id-trailing-newline",
            lambda r, i=i: r["tests"][i].__setitem__("id", "a/b\n"))
        add(p + "line", lambda r, i=i: r["tests"][i].__setitem__("line", 0))
        add(p + "tags", lambda r, i=i: r["tests"][i].__setitem__("tags", {"a": False}))
        add(p + "state", lambda r, i=i: r["tests"][i].__setitem__("state", "exploded"))
        add(p + "flaky", lambda r, i=i: r["tests"][i].__setitem__("flaky", 1))
        add(p + "output", lambda r, i=i: r["tests"][i]["output"].pop("truncated"))
        add(p + "unknown", lambda r, i=i: r["tests"][i].__setitem__("unknown", None))
        add(p + "no-failures", lambda r, i=i: (r["tests"][i].__setitem__("state", "failed"),
                                               r["tests"][i].__setitem__("failures", [])))
        for k, f in enumerate(t["failures"][:2]):
            q = "%sfailures[%d]." % (p, k)
            add(q + "kind", lambda r, i=i, k=k: r["tests"][i]["failures"][k]
                .__setitem__("kind", "boom"))
            add(q + "signal", lambda r, i=i, k=k: r["tests"][i]["failures"][k]
                .__setitem__("signal", "sigsegv"))
            add(q + "exit_code", lambda r, i=i, k=k: r["tests"][i]["failures"][k]
                .__setitem__("exit_code", 3))
            add(q + "filtered", lambda r, i=i, k=k: r["tests"][i]["failures"][k]
                .__setitem__("filtered", False))
            add(q + "message", lambda r, i=i, k=k: r["tests"][i]["failures"][k]
                .__setitem__("message", None))
            if "assertion" in f:
                add(q + "assertion", lambda r, i=i, k=k: r["tests"][i]["failures"][k]
                    ["assertion"].pop("left"))
        if t["trace"]:
            add(p + "trace-kind", lambda r, i=i: r["tests"][i]["trace"]["events"][0]
                .__setitem__("kind", "teleport"))
            add(p + "trace-size", lambda r, i=i: r["tests"][i]["trace"]["events"][0]
                .__setitem__("size", -1))
            add(p + "mailbox", lambda r, i=i: r["tests"][i]["trace"].__setitem__(
                "mailboxes", [{"name": "m"}]))
            add(p + "actor", lambda r, i=i: r["tests"][i]["trace"]["actors"].append(
                {"name": 1, "pid": 1, "tid": 1, "alive_at_exit": True}))
    return out


@CASES("cli_validate_agrees_with_python_jsonschema")
def case_validate(out):
    """tattle validate agrees with python-jsonschema (draft 2020-12) on real
    reports, streams, compact reports and listings, and on many broken
    variants with one field wrong each; the error names a path python
    names too."""
    fixture = fixture_reports(out)
    docs = []
    for name in ("full.json", "hostile.json", "summary_only.json"):
        docs.append((name, json.loads(read_bytes(os.path.join(fixture, name)))))
    if EXAMPLES:
        ex = example_run(out, "ex", "--json", "r.json", "--trace-passed")
        docs.append(("examples", json.loads(read_bytes(os.path.join(ex, "r.json")))))
    v = validate_json.validator("report.schema.json")
    count = 0
    work = os.path.join(out, "v")
    os.mkdir(work)
    for name, doc in docs:
        for variant, broken in [("as-is", doc)] + variants(doc):
            path = os.path.join(work, "r.json")
            write_bytes(path, json.dumps(broken).encode())
            errors = list(v.iter_errors(broken))
            rc, text, err = tattle("validate", "--kind", "report", path)
            count += 1
            check(rc == (1 if errors else 0),
                  "%s/%s: python says %s, tattle exits %d: %s%s"
                  % (name, variant, "invalid" if errors else "valid", rc, text, err))
            if errors and rc == 1:
                # python names the place of each error; tattle names the
                # first, at that place or inside it (where python stops at
                # a oneOf, tattle goes into the alternative that came
                # closest).
                paths = ["".join("[%d]" % x if isinstance(x, int) else "." + x
                                 for x in e.absolute_path) for e in errors]
                got = re.search(r"invalid report: (\S+): ", text)
                got = got.group(1) if got else None
                check(got and any(got == p or (got + " ").startswith(p) and
                                  got[len(p)] in ".[" or p == "" for p in paths),
                      "%s/%s: tattle's path %s is at or inside one python names (%s)"
                      % (name, variant, got, sorted(paths)[:6]))
    print("validated %d reports" % count)
    # Streams, compact reports and listings, whole and broken.
    stream = read_bytes(os.path.join(fixture, "stream.jsonl"))
    for name, data, kind in (
            ("stream.jsonl", stream, "stream"),
            ("compact.json", read_bytes(os.path.join(fixture, "compact.json")), "compact")):
        path = os.path.join(work, name)
        write_bytes(path, data)
        rc, text, _ = tattle("validate", path)
        check(rc == 0 and "valid " + kind in text, "%s is a valid %s: %s" % (name, kind, text))
        lines = data.decode().split("\n")
        for n, line in enumerate(lines[:-1]):
            obj = json.loads(line)
            for key in list(obj)[:3]:
                broken = dict(obj)
                broken[key] = {"wrong": True}
                write_bytes(path, "\n".join(lines[:n] + [json.dumps(broken)] +
                                            lines[n + 1:]).encode())
                py = validate_json.check_file(path, kind, finished=False)
                rc, text, _ = tattle("validate", path)
                check((rc == 1) == bool(py) and ("line %d:" % (n + 1)) in text,
                      "%s line %d with %s broken: tattle %d %s, python %s"
                      % (name, n + 1, key, rc, text, py[:1]))
    if EXAMPLES:
        listing = subprocess.run([EXAMPLES, "--list", "--json"], capture_output=True).stdout
        path = os.path.join(work, "list.json")
        write_bytes(path, listing)
        rc, text, _ = tattle("validate", path)
        check(rc == 0 and "valid list" in text, "a --list --json listing is valid: %s" % text)
        items = json.loads(listing)
        items[0]["state"] = "maybe"
        write_bytes(path, json.dumps(items).encode())
        rc, text, _ = tattle("validate", path)
        check(rc == 1 and ".[0].state" in text, "a broken listing names the item: %s" % text)
    rc, _, err = tattle("validate", os.path.join(work, "nope.json"))
    check(rc == 2 and one_line_error(err, "nope.json"), "a missing file exits 2")
    write_bytes(os.path.join(work, "bad.json"), b'{"version": 1,')
    rc, _, err = tattle("validate", os.path.join(work, "bad.json"))
    check(rc == 2 and one_line_error(err, "bad.json", "line 1"), "broken JSON exits 2: %r" % err)


def ctrf_variants(doc):
    """(name, broken copy) of a CTRF report: one thing a CTRF reader relies
    on wrong each."""
    out = []

    def add(name, change):
        broken = json.loads(json.dumps(doc))
        change(broken)
        out.append((name, broken))
    add("format", lambda r: r.__setitem__("reportFormat", "JUnit"))
    add("no-spec-version", lambda r: r.pop("specVersion"))
    add("no-tool", lambda r: r["results"].pop("tool"))
    add("tool-name", lambda r: r["results"]["tool"].__setitem__("name", 7))
    add("no-summary", lambda r: r["results"].pop("summary"))
    add("summary-count", lambda r: r["results"]["summary"].__setitem__("failed", -1))
    add("summary-start", lambda r: r["results"]["summary"].__setitem__("start", "now"))
    add("tests-object", lambda r: r["results"].__setitem__("tests", {}))
    add("status", lambda r: r["results"]["tests"][-1].__setitem__("status", "exploded"))
    add("no-name", lambda r: r["results"]["tests"][0].pop("name"))
    add("duration", lambda r: r["results"]["tests"][0].__setitem__("duration", "slow"))
    add("no-status", lambda r: r["results"]["tests"][-1].pop("status"))
    return out


@CASES("cli_validate_checks_ctrf_against_its_built_in_schema")
def case_validate_ctrf(out):
    """tattle validate checks a CTRF report against schemas/ctrf.schema.json,
    built into the command: the CTRF files tattle writes (every state, a
    stream's, hostile strings) are valid, and each variant with one field
    wrong is invalid, with a JSON path python-jsonschema names too. When
    node and npm's ctrf are installed, ctrf agrees that tattle's files
    are valid and that a wrong format or status is not."""
    fixture = fixture_reports(out)
    v = validate_json.validator("ctrf.schema.json")
    npm = report_consumers.npm_consumers_missing() is None
    work = os.path.join(out, "ctrf")
    os.mkdir(work)
    for source in ("full.json", "stream.jsonl", "hostile.json"):
        path = os.path.join(work, source + ".ctrf.json")
        rc, _, err = tattle("convert", os.path.join(fixture, source), "--to", "ctrf",
                            "-o", path)
        if not check(rc == 0, "convert %s --to ctrf: %s" % (source, err)):
            continue
        doc = json.loads(read_bytes(path))
        if not check(doc["results"]["tests"], "%s: a CTRF with tests" % source):
            continue
        for variant, broken in [("as-is", doc)] + ctrf_variants(doc):
            target = os.path.join(work, "v.json")
            write_bytes(target, json.dumps(broken).encode())
            what = "%s/%s" % (source, variant)
            python_errors = list(v.iter_errors(broken))
            check(bool(python_errors) == (variant != "as-is"),
                  "%s: python-jsonschema finds %d errors" % (what, len(python_errors)))
            for how in ([], ["--kind", "ctrf"]):
                rc, text, err = tattle("validate", *how, target)
                if variant == "as-is":
                    check(rc == 0 and text == target + ": valid ctrf\n",
                          "%s %s: valid ctrf: %d %r %r" % (what, how, rc, text, err))
                    continue
                got = re.search(r"invalid ctrf: (\S+): ", text)
                paths = ["".join("[%d]" % x if isinstance(x, int) else "." + x
                                 for x in e.absolute_path) for e in python_errors]
                check(rc == 1 and got and (got.group(1) in paths or
                                           any(got.group(1).startswith(p + ".")
                                               for p in paths)),
                      "%s %s: invalid at a path python names (%s): %d %r %r"
                      % (what, how, paths, rc, text, err))
            # npm's ctrf checks less (it takes a negative count, and a
            # reader of it stops at tests that are no list): it is asked
            # about the files tattle writes and two variants it must refuse.
            if npm and variant in ("as-is", "format", "status"):
                verdict = report_consumers.run_json(
                    ["node", os.path.join(HERE, "..", "consumers", "check_ctrf.mjs"),
                     target], "ctrf on " + what, FAILED)
                check(verdict is not None and verdict["valid"] == (variant == "as-is"),
                      "%s: npm's ctrf agrees: %r" % (what, verdict and verdict["errors"][:2]))


@CASES("cli_validate_bad_inputs_one_line_error_or_invalid")
def case_validate_bad_inputs(out):
    """tattle validate on each broken input: what cannot be read as JSON
    (missing, empty, truncated, not JSON, cut mid-line) exits 2 with one
    line on stderr naming the file and the place; what is JSON but not a
    valid report or stream (wrong version, a field of the wrong type or
    value, a second run in a stream) exits 1 naming the place on stdout."""
    cases = bad_inputs(out) + [("missing.json", None, [])]
    stream = read_bytes(os.path.join(out, "fixture", "stream.jsonl"))
    cut = stream[:stream.index(b"test_finished") + 200]
    expected = {
        "truncated.json": (2, ["truncated", "line", "byte"]),
        "not-json.json": (2, ["not JSON", "line 1", "byte 0"]),
        "garbage-inside.json": (2, ["not JSON", "byte"]),
        "wrong-version.json": (1, ["invalid report", ".version"]),
        "bad-type.json": (1, ["invalid report", ".tests[2].duration_us"]),
        "bad-state.json": (1, ["invalid report", ".tests[1].state"]),
        "cut-mid-line.jsonl": (2, ["truncated", "line %d," % (cut.count(b"\n") + 1)]),
        "second-run.jsonl": (1, ["invalid stream", "line %d:" % (stream.count(b"\n") + 1),
                                 "after run_finished"]),
        "empty.json": (2, ["empty"]),
        "array.json": (1, ["invalid list", ".[0]"]),
        "missing.json": (2, ["cannot read", "No such file"]),
    }
    work = os.path.join(out, "work")
    os.mkdir(work)
    check(sorted(name for name, _, _ in cases) == sorted(expected),
          "an expectation for each bad input")
    lines = stream.split(b"\n")
    cases += [("second-start.jsonl", b"\n".join(lines[:2] + lines[:1] + lines[2:]),
               None),
              ("no-start.jsonl", b"\n".join(lines[1:]), None)]
    expected["second-start.jsonl"] = (1, ["invalid stream", "line 3:", "second run_started"])
    expected["no-start.jsonl"] = (1, ["invalid stream", "line 1:", "starts with run_started"])
    for name, data, _ in cases:
        path = os.path.join(work, name)
        if data is not None:
            write_bytes(path, data)
        status, words = expected[name]
        rc, text, err = tattle("validate", path, cwd=work)
        check(rc == status, "validate %s exits %d, not %d: %r %r"
              % (name, status, rc, text, err))
        if status == 2:
            check(text == "" and one_line_error(err, name, *words),
                  "validate %s: one line on stderr naming the file and %s: %r"
                  % (name, words, err))
        else:
            check(err == "" and text.count("\n") == 1 and text.startswith(path + ": ")
                  and all(w in text for w in words),
                  "validate %s: one line on stdout naming the file and %s: %r"
                  % (name, words, text))
    # The whole stream, and a killed run's (no run_finished), are valid.
    for name, data in (("whole.jsonl", stream),
                       ("killed.jsonl", b"\n".join(lines[:-2]) + b"\n")):
        write_bytes(os.path.join(work, name), data)
        rc, text, err = tattle("validate", os.path.join(work, name))
        check(rc == 0 and "valid stream" in text, "validate %s: %r %r" % (name, text, err))


# ---- fuzz ------------------------------------------------------------------------------

def corruptions(report, stream):
    """Corrupted reports and streams: cut every N bytes, bytes flipped,
    fields given other types, huge numbers, deep nesting."""
    out = []
    for data, tag in ((report, "r"), (stream, "s")):
        step = max(1, len(data) // 40)
        for cut in range(0, len(data), step):
            out.append(("%s-cut%d" % (tag, cut), data[:cut]))
        for i in range(0, len(data), max(1, len(data) // 40)):
            for flip in (0x20, 0xff):
                b = bytearray(data)
                b[i] ^= flip
                out.append(("%s-flip%d-%x" % (tag, i, flip), bytes(b)))
    parsed = json.loads(report)
    replacements = [None, True, 0, -1, 1e308, 18446744073709551616, 10 ** 40, "s", [], {},
                    [[[[[]]]]], {"x": {"y": None}}]

    def walk(value, path):
        yield path
        if isinstance(value, dict):
            for k, v in value.items():
                yield from walk(v, path + [k])
        elif isinstance(value, list):
            for i, v in enumerate(value[:2]):
                yield from walk(v, path + [i])
    paths = list(walk(parsed, []))[1:]
    paths = paths[::max(1, len(paths) // 150)]
    for n, path in enumerate(paths):
        r = json.loads(report)
        target = r
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = replacements[n % len(replacements)]
        out.append(("swap-%d" % n, json.dumps(r).encode()))
    out.append(("deep", b'{"version":1,"tests":[' + b"[" * 100000 + b"]" * 100000 + b"]}"))
    out.append(("deep-open", b"[" * 1000000))
    out.append(("deep-stream", stream.split(b"\n")[0] + b"\n" + b'{"event":' + b"{" * 5000
                + b"\n"))
    out.append(("huge-number", report.replace(b'"duration_us":', b'"duration_us":1' + b"0" * 400
                                               + b", \"x\":", 1)))
    out.append(("nul", report[:200] + b"\0" + report[200:]))
    return out


@CASES("cli_fuzz_corrupted_inputs_never_crash_or_leave_output")
def case_fuzz(out):
    """The command never crashes on corrupted reports and streams (run also
    under AddressSanitizer by the sanitizer build), always exits 0, 1 or
    2, and never leaves a partial output file."""
    fixture = fixture_reports(out)
    report = read_bytes(os.path.join(fixture, "full.json"))
    stream = read_bytes(os.path.join(fixture, "stream.jsonl"))
    work = os.path.join(out, "fuzz")
    os.mkdir(work)
    runs = 0
    for name, data in corruptions(report, stream):
        path = os.path.join(work, "in.json")
        write_bytes(path, data)
        commands = [["convert", path, "--to", "json", "-o", "out.json"],
                    ["merge", "-o", "out.json", path], ["summary", path],
                    ["show", path, "--mermaid"], ["validate", path]]
        # Every input through every command would take minutes under the
        # sanitizers; each input goes through two, in turn.
        for command in (commands[runs % 5], commands[(runs + 2) % 5]):
            runs += 1
            try:
                rc, _, err = tattle(*command, cwd=work)
            except subprocess.TimeoutExpired:
                check(False, "%s %s hangs" % (command[0], name))
                continue
            check(rc in (0, 1, 2), "%s %s exits %d: %s" % (command[0], name, rc, err[-300:]))
            check("AddressSanitizer" not in err and "runtime error" not in err,
                  "%s %s: sanitizer report: %s" % (command[0], name, err[-500:]))
            left = sorted(set(os.listdir(work)) - {"in.json"})
            if rc == 2:
                check(left == [], "%s %s leaves no file: %s" % (command[0], name, left))
            for f in left:
                os.remove(os.path.join(work, f))
    print("%d runs" % runs)


def main():
    global TATTLE, FIXTURE, EXAMPLES
    CASES.list_if_asked()
    case = sys.argv[1]
    TATTLE, FIXTURE = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    EXAMPLES = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else None
    return driver.run_in_scratch({case: lambda _b, o: CASES[case](o)},
                                 [sys.argv[0], case, TATTLE], "tattle-cli-", FAILED)


if __name__ == "__main__":
    sys.exit(main())
