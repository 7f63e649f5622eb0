#!/usr/bin/env python3
"""End-to-end report tests: runs a real tattle suite (the examples, which
include deliberately failing tests of every kind) with --json, --jsonl and
the agent modes, validates everything against the schemas, checks what
each mode promises, runs the jq recipes of docs/AGENTS.md against a real
report, and kills the runner with SIGKILL mid-run to check the stream.

    test_e2e.py CASE SUITE_BINARY    (CASE: a name `--list` prints)
"""
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("TATTLE_SOURCE_DIR", os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402


# The cases, by CTest test name (`test_e2e.py --list`).
CASES = driver.Cases()

FAILED = []


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what)


def run(binary, *args, cwd, env=None):
    return subprocess.run([binary] + list(args), cwd=cwd, capture_output=True,
                          timeout=120, env=env)


def valid(path, **kw):
    problems = validate_json.check_file(path, **kw)
    check(not problems, "%s is valid: %s" % (os.path.basename(path), problems[:5]))


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def lines(text):
    return [json.loads(line) for line in text.splitlines()]


@CASES("report_e2e_agent_modes_write_valid_reports")
def case_modes(binary, out):
    p = run(binary, "--json", "full.json", "--jsonl", "full.jsonl", "-j", "2", cwd=out)
    check(p.returncode == 1, "a failing suite exits 1 (got %d)" % p.returncode)
    valid(os.path.join(out, "full.json"), complete=True)
    valid(os.path.join(out, "full.jsonl"))
    full = load(os.path.join(out, "full.json"))
    failed = sorted(t["id"] for t in full["tests"] if t["state"] in ("failed", "invalid"))
    check(failed, "the suite has failures")
    kinds = {f["kind"] for t in full["tests"] for f in t["failures"]}
    check({"assertion", "crash", "timeout", "exit"} <= kinds, "every failure kind: %s" % kinds)
    stream = lines(open(os.path.join(out, "full.jsonl"), encoding="utf-8").read())
    finished = {e["test"]["id"]: e["test"] for e in stream if e["event"] == "test_finished"}
    check(sorted(finished) == sorted(t["id"] for t in full["tests"]), "stream has every test")

    # "-": the report alone on stdout.
    p = run(binary, "--json", "-", "--failures-only", cwd=out)
    report = json.loads(p.stdout)
    check(validate_json.check_report(report) == [], "--json - is a valid report")
    check(sorted(t["id"] for t in report["tests"]) == failed, "--failures-only")

    p = run(binary, "--json", "-", "--summary-only", cwd=out)
    report = json.loads(p.stdout)
    check("tests" not in report and report["summary"]["failed"] == full["summary"]["failed"],
          "--summary-only")

    p = run(binary, "--json", "-", "--first-failure", cwd=out)
    report = json.loads(p.stdout)
    check(len(report["tests"]) == 1 and report["tests"][0]["id"] in failed, "--first-failure")

    p = run(binary, "--json", "-", "--group-by-error", "--filter-out", "SIGSEGV", cwd=out)
    report = json.loads(p.stdout)
    check(validate_json.check_report(report) == [], "--group-by-error report valid")
    grouped = sorted(i for g in report["error_groups"] for i in g["tests"])
    crashed = [t["id"] for t in report["tests"]
               if any(f["kind"] == "crash" for f in t["failures"])]
    check(crashed and all(f.get("filtered") for t in report["tests"] for f in t["failures"]
                          if f["kind"] == "crash"), "--filter-out marks the crash")
    check(grouped == sorted(set(failed) - set(crashed)), "groups hold the unfiltered failures")

    p = run(binary, "--json", "-", "--compact", "--failures-only", cwd=out)
    text = p.stdout.decode("utf-8")
    check(validate_json.check_compact(text) == [], "--compact is valid")
    compact = lines(text)
    check(sorted(c["id"] for c in compact[:-1]) == failed and "summary" in compact[-1],
          "--compact --failures-only: the failed tests, then the summary")
    check(all("f" in c and "e" in c for c in compact[:-1]), "compact lines have f and e")

    # An existing report is replaced only by a complete one.
    p = run(binary, "--json", "full.json", "--no-such-flag", cwd=out)
    check(p.returncode == 2, "usage error exits 2")
    check(load(os.path.join(out, "full.json")) == full, "usage error keeps the old report")
    leftovers = [n for n in os.listdir(out) if n.startswith(".full.json")]
    check(not leftovers, "no temporary file left: %s" % leftovers)


def recipes():
    with open(os.path.join(SOURCE, "docs", "AGENTS.md"), encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"```sh jq-recipe\n(.*?)```", text, re.S)


@CASES("report_e2e_agents_md_jq_recipes_work")
def case_recipes(binary, out):
    run(binary, "--json", "report.json", "--jsonl", "stream.jsonl", cwd=out)
    found = recipes()
    check(len(found) >= 5, "docs/AGENTS.md has jq recipes (%d)" % len(found))
    for recipe in found:
        p = subprocess.run(["bash", "-c", "set -o pipefail; " + recipe], cwd=out,
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 0, "recipe runs: %s -> %s" % (recipe.strip(), p.stderr.strip()))
        if "trace" not in recipe and "stream.jsonl" not in recipe:
            check(p.stdout.strip(), "recipe prints something: %s" % recipe.strip())


def become_subreaper():
    """Orphans of the killed runner (its test processes) become ours, so
    they can be found and cleaned up."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


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


@CASES("report_e2e_sigkill_leaves_stream_naming_running_test")
def case_sigkill(binary, out):
    sigkill_mid_run(binary, out, [])


@CASES("report_e2e_sigkill_leaves_no_compact_temporary_file")
def case_sigkill_compact(binary, out):
    sigkill_mid_run(binary, out, ["--compact"])


def sigkill_mid_run(binary, out, extra):
    """Kills the runner with SIGKILL while a test hangs: the stream names
    it, the old report (written with `extra` flags) is untouched, and no
    temporary file is left beside it."""
    become_subreaper()
    with open(os.path.join(out, "report.json"), "w") as f:
        f.write("OLD")
    env = dict(os.environ, TATTLE_TIMEOUT_MULTIPLIER="200")
    stream_path = os.path.join(out, "stream.jsonl")
    proc = subprocess.Popen([binary, "-j", "1", "--json", "report.json",
                             "--jsonl", "stream.jsonl"] + extra, cwd=out, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hang = "demo/hangs_until_timeout"
    deadline = time.time() + 30 * driver.wait_scale()
    seen = False
    while time.time() < deadline and not seen:
        time.sleep(0.02)
        if os.path.exists(stream_path):
            with open(stream_path, encoding="utf-8") as f:
                seen = '"event":"test_started","id":"%s"' % hang in f.read()
    check(seen, "the runner reached %s" % hang)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kill_orphans()
    with open(stream_path, encoding="utf-8") as f:
        text = f.read()
    check(validate_json.check_stream(text, finished=False) == [],
          "the cut stream is valid: %s" % validate_json.check_stream(text, finished=False)[:3])
    events = lines(text)
    started = [e["id"] for e in events if e["event"] == "test_started"]
    done = [e["test"]["id"] for e in events if e["event"] == "test_finished"]
    check(events[-1]["event"] != "run_finished", "no run_finished after SIGKILL")
    check([i for i in started if i not in done] == [hang],
          "the stream names the running test: %s" % [i for i in started if i not in done])
    check(len(set(started) & set(done)) == len(started) - 1 and done,
          "every other started test finished")
    with open(os.path.join(out, "report.json")) as f:
        check(f.read() == "OLD", "the old report is untouched")
    check(sorted(os.listdir(out)) in (["report.json", "stream.jsonl"],
                                      [".tattle", "report.json", "stream.jsonl"]),
          "no temporary file left: %s" % os.listdir(out))


# A fixed run of the examples whose output is the same in every build (the
# crash demo is left out: its stack trace depends on the build's inlining).
# Its report, stream and console output are pinned by golden files.
GOLDEN_SELECTION = ["queue/*", "demo/off_by_one_capacity", "demo/expectations_keep_going",
                    "demo/hangs_until_timeout", "demo/exits_in_the_middle",
                    "--seed", "7", "-j", "1", "--color=never"]


def normalize_console(text, binary):
    text = text.replace(binary, "<binary>")
    text = text.replace(os.path.basename(binary), "<binary>")
    text = re.sub(r"\(\d+\.\d ms", "(<ms> ms", text)
    text = re.sub(r"; \d+\.\d\d s;", "; <s> s;", text)
    # A timeout's threads: their ids and addresses change from run to run.
    text = re.sub(r"thread \d+ of \d+ \(", "thread <tid> of <pid> (", text)
    text = re.sub(r"\(0x[0-9a-f]+\)", "(0x<address>)", text)
    import normalize  # tests/tools/normalize.py
    return normalize.replace_paths(text)


@CASES("report_e2e_examples_match_golden_report_stream_and_console")
def case_golden(binary, out):
    import normalize  # tests/tools/normalize.py
    p = run(binary, "--json", "golden.json", "--jsonl", "golden.jsonl", *GOLDEN_SELECTION, cwd=out)
    check(p.returncode == 1, "the golden run exits 1 (got %d)" % p.returncode)
    valid(os.path.join(out, "golden.json"), complete=True)
    valid(os.path.join(out, "golden.jsonl"))
    produced = {
        "e2e-report.json": normalize.normalized_text(os.path.join(out, "golden.json")),
        "e2e-stream.json": normalize.normalized_text(os.path.join(out, "golden.jsonl")),
        "e2e-console.txt": normalize_console(p.stdout.decode("utf-8", "replace"), binary),
    }
    for name, text in produced.items():
        golden = os.path.join(HERE, "golden", name)
        if os.environ.get("TATTLE_UPDATE_GOLDEN") == "1":
            with open(golden, "w", encoding="utf-8") as f:
                f.write(text)
        expected = open(golden, encoding="utf-8").read() if os.path.exists(golden) else None
        check(expected == text, "%s matches golden/%s (TATTLE_UPDATE_GOLDEN=1 rewrites it)"
              % (name, name))
        if expected is not None and expected != text:
            import difflib
            sys.stdout.writelines(list(difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), "golden", "produced"))[:40])


def main():
    CASES.list_if_asked()
    return driver.run_in_scratch(CASES, sys.argv, "tattle-e2e-", FAILED)


if __name__ == "__main__":
    sys.exit(main())
