#!/usr/bin/env python3
"""Drives the report tests: runs report_fixture (synthetic results through
the json and jsonl reporters) and asserts on the files it writes: schema
validity, exact values of hostile strings, agent modes, atomic replacement,
and golden files.

    test_report.py CASE FIXTURE_BINARY    (CASE: a name `--list` prints)

Golden files live in golden/; TATTLE_UPDATE_GOLDEN=1 rewrites them.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402
import normalize  # noqa: E402


# The cases, by CTest test name (`test_report.py --list`).
CASES = driver.Cases()

FAILED = []


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what)


def run_fixture(binary, *args):
    proc = subprocess.run([binary] + list(args), capture_output=True, text=True)
    check(proc.returncode == 0, "report_fixture %s exited %d: %s"
          % (" ".join(args), proc.returncode, proc.stderr))
    return proc


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def load_lines(path):
    return [json.loads(line) for line in read(path).splitlines()]


def expected_text(raw):
    """What the reporters must make of raw bytes: U+FFFD for each maximal
    invalid subpart (Python's decoder does the same) and for NUL."""
    return raw.decode("utf-8", "replace").replace("\0", "\ufffd")


@CASES("report_json_and_stream_are_valid_with_exact_hostile_strings")
def case_valid(binary, out):
    run_fixture(binary, "write", out)
    names = sorted(os.listdir(out))
    for name in names:
        if name.endswith(".bin"):
            continue
        problems = validate_json.check_file(os.path.join(out, name),
                                            complete=name in ("full.json", "hostile.json"))
        check(not problems, "%s valid: %s" % (name, problems[:5]))
        with open(os.path.join(out, name), "rb") as f:
            raw = f.read()
        check(b"\0" not in raw, "%s has no NUL byte" % name)
        check(all(b >= 0x20 or b == 0x0A for b in raw),
              "%s has no raw control byte" % name)

    h = [expected_text(open(os.path.join(out, "hostile-%d.bin" % i), "rb").read())
         for i in range(4)]
    quotes, control, nul, invalid = h
    check("\ufffd" in invalid and "\u20ac\U0001F600" in invalid,
          "hostile invalid text keeps valid characters")
    for name, tests in (("hostile.json", json.loads(read(os.path.join(out, "hostile.json")))["tests"]),
                        ("hostile.jsonl", [e["test"] for e in load_lines(os.path.join(out, "hostile.jsonl"))
                                           if e["event"] == "test_finished"])):
        t = tests[0]
        f = t["failures"][0]
        check(f["message"] == invalid, name + " message")
        check(f["assertion"] == {"macro": "ASSERT_STR_EQ", "expr": quotes,
                                 "left": control, "right": invalid},
              name + " assertion values")
        check(t["tags"] == {"note": quotes, "bad\ufffd": True, "trace_messages": True},
              name + " tags %r" % t["tags"])
        check(t["skip_reason"] == control and t["rerun"] == quotes,
              name + " skip_reason, rerun")
        check(t["output"]["stdout"] == nul and t["output"]["stdout_bytes"] == 17,
              name + " stdout with NUL bytes")
        check(t["output"]["stderr"] == invalid and t["output"]["truncated"] is True
              and t["output"]["stderr_bytes"] == 1000000, name + " stderr")
        e = t["trace"]["events"][0]
        check((e["from"], e["to"], e["label"], e["msg"]) == (quotes, invalid, control, invalid),
              name + " trace event strings")
        m = t["trace"]["mailboxes"][0]
        check(m["name"] == invalid and m["owner"] is None and m["messages"] == [invalid, control],
              name + " mailbox strings")
        check(t["trace"]["actors"][0]["name"] == control, name + " actor name")
        check(t["trace"]["overflow"] is True, name + " overflow")
        huge = tests[1]["output"]["stdout"]
        check(len(huge) == 1 << 20 and huge[:3] == "abc" and huge[26:29] == "abc",
              name + " 1 MB line kept whole")

    full = json.loads(read(os.path.join(out, "full.json")))
    by_id = {t["id"]: t for t in full["tests"]}
    check(full["run"]["seed"] == 18446744073709551557, "64-bit seed exact")
    crash = by_id["net/crashes"]["failures"][0]
    check(crash["signal"] == "SIGSEGV" and crash["stacktrace"][0]["address"] == "0x401234",
          "crash signal and frame")
    check(by_id["net/crashes"]["tags"] == {"area": "net", "trace_messages": True, "slow": True},
          "test tag overrides suite tag")
    check(by_id["net/hangs"]["failures"][0]["timeout_ms"] == 2000, "timeout_ms")
    check(by_id["proc/exits"]["failures"][0]["exit_code"] == 3, "exit_code")
    check(by_id["math/compares"]["failures"][0]["assertion"]["right"] == "2", "right value")
    check(by_id["net/refused"]["failures"][0]["assertion"]["right"] is None, "ASSERT has no right")
    check(len(by_id["net/crashes"]["trace"]["events"]) == 5, "trace events")
    check(all("filtered" not in f for t in full["tests"] for f in t["failures"]),
          "no filter, nothing filtered")
    first_line = read(os.path.join(out, "full.json")).split("\n", 1)[0].rstrip(" ")
    check('"summary":{' in first_line and first_line.endswith('"tests":['),
          "summary on the first line, before tests")

    failed_ids = [t["id"] for t in full["tests"] if t["state"] in ("failed", "invalid")]
    fo = json.loads(read(os.path.join(out, "failures_only.json")))
    check([t["id"] for t in fo["tests"]] == failed_ids, "--failures-only keeps failed ones")
    so = json.loads(read(os.path.join(out, "summary_only.json")))
    check("tests" not in so and so["summary"] == full["summary"], "--summary-only")
    ff = json.loads(read(os.path.join(out, "first_failure.json")))
    check([t["id"] for t in ff["tests"]] == failed_ids[:1], "--first-failure")
    gb = json.loads(read(os.path.join(out, "group_by_error.json")))
    refused = {t["id"]: t for t in gb["tests"]}["net/refused"]["failures"][0]
    check(refused.get("filtered") is True, "--filter-out marks the failure")
    grouped = [i for g in gb["error_groups"] for i in g["tests"]]
    check("net/refused" not in grouped, "filtered failure kept out of groups")
    check(gb["error_groups"][0] == {
        "pattern": "ASSERT_EQ(a, b) failed: 1 != 2", "location": "tests/math.c:22",
        "count": 2, "tests": ["math/compares", "math/compares_again"],
        "patterns": [{"pattern": "ASSERT_EQ(a, b) failed: 1 != 2", "count": 2,
                      "tests": ["math/compares", "math/compares_again"]}]},
          "largest group first, grouped by location, then first line")
    check([g["location"] for g in gb["error_groups"]][1:] ==
          [None, None, None, "tests/misc.c:81"],
          "failures without a location are grouped by their message")
    check(sorted(grouped) == sorted(i for i in failed_ids if i != "net/refused"),
          "every failed test in one group")
    compact = load_lines(os.path.join(out, "compact.json"))
    check(len(compact) == len(full["tests"]) + 1, "--compact: a line per test + summary")
    check(compact[1] == {"id": "math/compares", "s": "failed", "f": "tests/math.c:22",
                         "e": "ASSERT_EQ(a, b) failed: 1 != 2"}, "compact line fields")
    check(compact[0] == {"id": "math/adds", "s": "passed"}, "compact passed line")
    check(compact[-1] == {"summary": full["summary"]}, "compact summary line")
    cf = load_lines(os.path.join(out, "compact_failures.json"))
    check([line["id"] for line in cf[:-1]] == failed_ids, "compact + failures-only")
    check("error_groups" in cf[-1], "compact + group-by-error: groups on the summary line")
    stream = load_lines(os.path.join(out, "stream.jsonl"))
    check([e["event"] for e in stream[:3]] == ["run_started", "test_started", "test_finished"],
          "stream order")
    check(sum(e["event"] == "test_finished" for e in stream) == len(full["tests"]),
          "stream: every test finished")
    finished = {e["test"]["id"]: e["test"] for e in stream if e["event"] == "test_finished"}
    check(finished["math/compares"] == by_id["math/compares"], "stream TEST == report TEST")


@CASES("report_output_matches_golden_files")
def case_golden(binary, out):
    run_fixture(binary, "write", out)
    update = os.environ.get("TATTLE_UPDATE_GOLDEN") == "1"
    golden_dir = os.path.join(HERE, "golden")
    for name in ("full.json", "failures_only.json", "summary_only.json",
                 "first_failure.json", "group_by_error.json", "compact.json",
                 "compact_failures.json", "stream.jsonl", "empty.json"):
        path = os.path.join(out, name)
        text = normalize.normalized_text(path)
        golden = os.path.join(golden_dir, "fixture-" + name.replace(".jsonl", ".json"))
        if update:
            with open(golden, "w", encoding="utf-8") as f:
                f.write(text)
            continue
        check(os.path.exists(golden) and read(golden) == text,
              "%s matches %s (TATTLE_UPDATE_GOLDEN=1 rewrites it)" % (name, golden))


@CASES("report_golden_paths_replaced_only_where_whole")
def case_golden_paths(binary, out):
    """Golden files hold <source> and <build> for the checkout's paths: a
    checkout at a short path such as /t must not turn /tmp into <source>mp."""
    saved = {var: os.environ.get(var) for var in ("TATTLE_SOURCE_DIR", "TATTLE_BINARY_DIR")}
    os.environ["TATTLE_SOURCE_DIR"] = "/t"
    os.environ["TATTLE_BINARY_DIR"] = "/t/build/"
    try:
        got = normalize.normalize({"file": "/t/examples/queue.c", "out": "/t/build/x",
                                   "scratch": "/tmp/t/report.json", "other": "/opt/t2 /t.d",
                                   "said": "cannot open /t: denied (/t)"})
    finally:
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value
    check(got == {"file": "<source>/examples/queue.c", "out": "<build>/x",
                  "scratch": "/tmp/t/report.json", "other": "/opt/t2 /t.d",
                  "said": "cannot open <source>: denied (<source>)"},
          "only whole paths replaced: %r" % (got,))


@CASES("report_destroy_without_end_keeps_existing_report")
def case_keep_old(binary, out):
    run_fixture(binary, "keep-old", out)


@CASES("report_create_fails_cleanly_without_directory")
def case_bad_dir(binary, out):
    run_fixture(binary, "bad-dir", out)


@CASES("report_utf8_sanitize_replaces_invalid_bytes")
def case_utf8(binary, out):
    run_fixture(binary, "utf8")


@CASES("report_validator_rejects_broken_reports")
def case_validator(binary, out):
    """The validator must reject what the schema and the rules forbid."""
    run_fixture(binary, "write", out)
    good = json.loads(read(os.path.join(out, "full.json")))
    check(validate_json.check_report(good, complete=True) == [], "good report passes")

    def broken(mutate, what):
        report = json.loads(json.dumps(good))
        mutate(report)
        check(validate_json.check_report(report) != [], "validator rejects " + what)

    def test(r, i):
        return {t["id"]: t for t in r["tests"]}[i]
    broken(lambda r: test(r, "net/crashes")["failures"][0].pop("signal"), "crash without signal")
    broken(lambda r: test(r, "net/hangs")["failures"][0].pop("timeout_ms"), "timeout without timeout_ms")
    broken(lambda r: test(r, "proc/exits")["failures"][0].pop("exit_code"), "exit without exit_code")
    broken(lambda r: test(r, "math/compares")["failures"][0]["assertion"].pop("left"),
           "assertion without left")
    broken(lambda r: r["summary"].__setitem__("passed", 3), "wrong counts")
    broken(lambda r: r["summary"].__setitem__("result", "passed"), "wrong result")
    broken(lambda r: test(r, "math/adds").__setitem__("state", "failed"), "states vs summary")
    broken(lambda r: test(r, "math/adds").__setitem__("extra", 1), "unknown key")
    broken(lambda r: r["run"].__setitem__("started_at", "yesterday"), "bad date-time")
    broken(lambda r: test(r, "net/crashes")["failures"][0].__setitem__("exit_code", 1),
           "crash with exit_code")
    stream = read(os.path.join(out, "stream.jsonl"))
    check(validate_json.check_stream(stream) == [], "good stream passes")
    cut = "\n".join(stream.split("\n")[:-2]) + "\n"
    check(validate_json.check_stream(cut) != [], "cut stream rejected as finished")
    check(validate_json.check_stream(cut, finished=False) == [], "cut stream accepted unfinished")


def main():
    CASES.list_if_asked()
    return driver.run_in_scratch(CASES, sys.argv, "tattle-report-", FAILED)


if __name__ == "__main__":
    sys.exit(main())
