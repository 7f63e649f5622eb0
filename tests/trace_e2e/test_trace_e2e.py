#!/usr/bin/env python3
"""End-to-end tests of the flight recorder through the real runner.

Runs traced suites (trace_stress, trace_options, the trace examples) as a
user would, each run in its own temporary working directory, validates
every JSON report and JSON Lines stream with tests/tools/validate_json.py,
and checks the traces they carry and the console text.

    test_trace_e2e.py CASE --stress BIN --options BIN [--examples BIN]

CASE is one behaviour, named by its CTest test (`--list` prints them, each
`@CASES` names one); the exit status is 0 when
every check of the case held, 1 otherwise (each failed check printed).
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402


# The cases, by CTest test name (`test_trace_e2e.py --list`).
CASES = driver.Cases()

FAILED = []
PRINTED_MAX = 80  # a broken barrier fails thousands of checks: show the first


def check(cond, what):
    if not cond:
        FAILED.append(what)
        if len(FAILED) <= PRINTED_MAX:
            print("FAIL:", what[:600])
        elif len(FAILED) == PRINTED_MAX + 1:
            print("FAIL: ... (further failures counted, not printed)")
    return cond


def clean_env():
    """The environment of every run: nothing that changes timeouts,
    configuration, colours or sharding leaks in from the caller, and no
    terminal capabilities."""
    env = driver.clean_env()
    env["TERM"] = "dumb"
    return env


class Run:
    """One run of a suite with --json and --jsonl, both validated."""

    def __init__(self, binary, *args, cwd, expect_status=None, complete=True,
                 multiplier=1, command=(), extra_env=None):
        """`command`: the tattle command's subcommand (`run`) after the
        binary; `extra_env`: variables added to the clean environment."""
        self.args = [binary] + list(command) + [
            "--json", "report.json", "--jsonl", "stream.jsonl",
            "--color", "never"] + list(args)
        env = clean_env()
        env.update(extra_env or {})
        if multiplier != 1:
            env["TATTLE_TIMEOUT_MULTIPLIER"] = str(multiplier)
        started = time.monotonic()
        p = subprocess.run(self.args, cwd=cwd, capture_output=True,
                           timeout=300 * driver.wait_scale(), env=env)
        self.seconds = time.monotonic() - started
        self.status = p.returncode
        self.stdout = p.stdout.decode("utf-8", "replace")
        self.stderr = p.stderr.decode("utf-8", "replace")
        where = " ".join(os.path.basename(a) for a in self.args)
        if expect_status is not None:
            check(self.status == expect_status,
                  "%s: exit status %d, expected %d; stderr: %s"
                  % (where, self.status, expect_status, self.stderr[-800:]))
        report_path = os.path.join(cwd, "report.json")
        stream_path = os.path.join(cwd, "stream.jsonl")
        self.report, self.stream = None, []
        if not check(os.path.exists(report_path), "%s wrote report.json" % where):
            return
        problems = validate_json.check_file(report_path, kind="report",
                                            complete=complete)
        problems += validate_json.check_file(stream_path, kind="stream")
        check(not problems, "%s: report and stream are valid: %s"
              % (where, problems[:8]))
        with open(report_path, encoding="utf-8") as f:
            self.report = json.load(f)
        with open(stream_path, encoding="utf-8") as f:
            self.stream = [json.loads(line) for line in f.read().splitlines()]
        self.tests = {t["id"]: t for t in self.report["tests"]}
        self.finished = {e["test"]["id"]: e["test"] for e in self.stream
                         if e["event"] == "test_finished"}
        check(sorted(self.finished) == sorted(self.tests),
              "%s: the stream finishes the report's tests" % where)
        for test_id, test in self.tests.items():
            streamed = self.finished.get(test_id, {})
            check(streamed.get("trace") == test.get("trace"),
                  "%s: %s: the stream's test_finished carries the report's trace"
                  % (where, test_id))

    def test(self, test_id):
        test = self.tests.get(test_id) if self.report else None
        check(test is not None, "the report has %s" % test_id)
        return test or {}


def trace_is_consistent(trace, where):
    """What holds for every trace: counts add up, seq and t_us ordered."""
    events = trace["events"]
    check(trace["recorded"] == trace["dropped"] + len(events),
          "%s: recorded %d == dropped %d + %d events"
          % (where, trace["recorded"], trace["dropped"], len(events)))
    check(len(events) <= trace["cap"],
          "%s: %d events within cap %d" % (where, len(events), trace["cap"]))
    seqs = [e["seq"] for e in events]
    first = trace["recorded"] - len(events) + 1
    check(seqs == list(range(first, trace["recorded"] + 1)),
          "%s: seq runs %d..%d without gaps: %s"
          % (where, first, trace["recorded"], seqs[:5]))
    times = [e["t_us"] for e in events]
    check(times == sorted(times), "%s: t_us never goes back" % where)
    for m in trace["mailboxes"]:
        check(m["pending"] >= len(m["messages"]),
              "%s: mailbox %s pending %d >= %d messages listed"
              % (where, m["name"], m["pending"], len(m["messages"])))


def messages(trace, kind=None, label=None):
    return [e.get("msg") for e in trace["events"]
            if (kind is None or e["kind"] == kind)
            and (label is None or e.get("label") == label)]


DIRECTORIES = []


def new_dir():
    """A fresh working directory, removed at the end unless a check failed
    (then its path is printed, with the reports in it)."""
    path = tempfile.mkdtemp(prefix="tattle-trace-e2e-")
    DIRECTORIES.append(path)
    return path


# ---- the on-exit barrier under stress ----------------------------------------

STRESS_NAME = re.compile(r"^id(\d{3})_([a-z0-9_]+?)(_spin)?$")
TOKEN = re.compile(r"id\d{3}")
FAILURE_KINDS = {"assert": ("assertion", None), "segv": ("crash", "SIGSEGV"),
                 "abort": ("crash", "SIGABRT"), "exit3": ("exit", 3),
                 "timeout": ("timeout", 80), "fork_crash": ("assertion", None),
                 "thread_live": ("assertion", None)}
# Events a test records when no thread spins: the prologue (3 sends,
# 3 receives, an event, 2 mailbox sends, 1 mailbox receive) and the last
# words; fork_crash adds the spawn, the child's 3 sends, its mailbox send,
# its last words and its death (SIGSEGV), recorded when the test collects it.
PROLOGUE_EVENTS = 10


def expected_recorded(kind):
    return PROLOGUE_EVENTS + 1 + (7 if kind == "fork_crash" else 0)


def names_only(value, token, where):
    """Every test id named in `value` is `token`; returns whether `token`
    is named."""
    if value is None:
        return False
    found = set(TOKEN.findall(value))
    check(found <= {token}, "%s: %r names another test" % (where, value))
    return token in found


def prologue_messages(token):
    """The messages a test records, in order, up to its last words."""
    texts = []
    for i in range(3):
        texts += ["%s send %d" % (token, i), "%s recv %d" % (token, i)]
    return texts + [token + " event", token + " pending 0", token + " pending 1",
                    token + " pending 0", token + " last words"]


def check_stress_test(test, where, multiplier):
    """Checks one stress test of a run. Returns False for a timeout test
    whose timeout fired before its last words: the runner stops recording
    when it decides on a timeout, which on a loaded machine may come while
    the test process is still starting. Such a trace must still be a
    prefix of what the test records, with nothing missing in between."""
    m = STRESS_NAME.match(test["name"])
    if not check(m, "%s: a stress test name" % where):
        return True
    token, kind, spinning = "id" + m.group(1), m.group(2), bool(m.group(3))
    if kind == "passed":
        check(test["state"] == "passed", "%s: passes (%s)" % (where, test["state"]))
        check(test.get("trace") is None, "%s: a passed test has no trace" % where)
        return True
    check(test["state"] == "failed", "%s: fails (%s)" % (where, test["state"]))
    failure = test["failures"][0] if test["failures"] else {}
    want_kind, detail = FAILURE_KINDS[kind]
    check(failure.get("kind") == want_kind,
          "%s: failure kind %s, expected %s" % (where, failure.get("kind"), want_kind))
    if want_kind == "crash":
        check(failure.get("signal") == detail, "%s: signal %s" % (where, failure.get("signal")))
    elif want_kind == "exit":
        check(failure.get("exit_code") == detail, "%s: exit code %s" % (where, failure.get("exit_code")))
    elif want_kind == "timeout":
        check(failure.get("timeout_ms") == detail * multiplier,
              "%s: timeout_ms %s, expected %d" % (where, failure.get("timeout_ms"),
                                                 detail * multiplier))
    trace = test.get("trace")
    if not check(trace is not None, "%s: a failed traced test has a trace" % where):
        return True
    cap = 16 if test["tags"].get("trace_messages") == "16" else 50
    check(trace["cap"] == cap, "%s: cap %d, expected %d" % (where, trace["cap"], cap))
    trace_is_consistent(trace, where)
    if kind == "timeout":
        own = [e.get("msg") for e in trace["events"] if e.get("from") != token + "_spin"]
        if token + " last words" not in own:
            for i, e in enumerate(trace["events"]):
                named = [names_only(e.get(field), token, "%s/events/%d/%s" % (where, i, field))
                         for field in ("from", "to", "label", "msg")]
                check(any(named), "%s/events/%d names %s: %s" % (where, i, token, e))
            if not spinning:
                check(own == prologue_messages(token)[:len(own)] and
                      trace["recorded"] == len(own),
                      "%s: stopped early, the trace is a prefix of what the test "
                      "records: %s" % (where, own))
            return False
    check(trace["events"], "%s: the trace has events" % where)

    for i, e in enumerate(trace["events"]):
        named = [names_only(e.get(field), token, "%s/events/%d/%s" % (where, i, field))
                 for field in ("from", "to", "label", "msg")]
        check(any(named), "%s/events/%d names %s: %s" % (where, i, token, e))
    for m in trace["mailboxes"]:
        mwhere = "%s/mailbox %s" % (where, m["name"])
        check(names_only(m["name"], token, mwhere), "%s: names %s" % (mwhere, token))
        names_only(m.get("owner"), token, mwhere + "/owner")
        for text in m["messages"]:
            check(names_only(text, token, mwhere), "%s: message %r names %s"
                  % (mwhere, text, token))
    actors = {a["name"]: a for a in trace["actors"]}
    for name in actors:
        check(names_only(name, token, where + "/actors"),
              "%s: actor %r names %s" % (where, name, token))

    boxes = {m["name"]: m for m in trace["mailboxes"]}
    box = boxes.get(token + "_mb")
    if check(box is not None, "%s: mailbox %s_mb in the snapshot" % (where, token)):
        check(box["owner"] == token + "_main", "%s: owner %s" % (where, box["owner"]))
        wanted = [token + " pending 1"]
        if kind == "fork_crash":
            wanted.append(token + " from child")
        check(box["messages"] == wanted and box["pending"] == len(wanted),
              "%s: pending %s, expected %s" % (where, box["messages"], wanted))
    if kind == "timeout":
        check(token + "_wait" in boxes, "%s: the mailbox it waited on is listed" % where)
        check(trace["mailboxes"] and all(m["approx"] for m in trace["mailboxes"]),
              "%s: a timeout's snapshot is taken live (approx)" % where)
    check(token + "_main" in actors, "%s: actor %s_main" % (where, token))
    if spinning or kind == "thread_live":
        spinner = actors.get(token + "_spin")
        check(spinner is not None and spinner["alive_at_exit"],
              "%s: the spinning thread is listed alive at exit: %s" % (where, spinner))
    if kind == "fork_crash":
        child = actors.get(token + "_child")
        check(child is not None and not child["alive_at_exit"],
              "%s: the crashed child is listed, not alive: %s" % (where, child))
        if not spinning:
            check(token + " child last words" in messages(trace),
                  "%s: the child's last event is kept" % where)
    if not spinning and kind != "thread_live":
        # The barrier: nothing recorded before the end is lost, the last
        # event is the test's last words.
        check(trace["recorded"] == expected_recorded(kind) and not trace["overflow"],
              "%s: recorded %d, expected %d" % (where, trace["recorded"],
                                               expected_recorded(kind)))
        last = trace["events"][-1] if trace["events"] else {}
        check(last.get("msg") == token + " last words" and last.get("kind") == "event",
              "%s: the last event is its last words: %s" % (where, last))
    return True


# The barrier at a timeout is only proven by timeout tests that were in
# their body when the runner's 80 ms ran out; on a loaded machine, under a
# sanitizer, some are still starting. Rounds go on until enough were seen
# (bounded); after a round where most timed out before their body, the
# next runs with TATTLE_TIMEOUT_MULTIPLIER doubled (the runner's own knob
# for slow machines; the timeout_ms checked is scaled with it).
STRESS_MIN_ROUNDS = 3
STRESS_TIMEOUTS_IN_BODY = 30
STRESS_MAX_MULTIPLIER = 16


@CASES("trace_e2e_barrier_holds_under_stress")
def case_stress(args):
    max_rounds = STRESS_MIN_ROUNDS + int(driver.wait_scale())
    rounds, total_seconds, timeouts_in_body, timeouts_early = 0, 0.0, 0, 0
    multiplier = 1
    while rounds < max_rounds and (rounds < STRESS_MIN_ROUNDS or
                                   timeouts_in_body < STRESS_TIMEOUTS_IN_BODY):
        rounds += 1
        round_number = rounds
        out = new_dir()
        run = Run(args.stress, "-j", "2", "--shuffle", "--seed", str(round_number),
                  cwd=out, expect_status=1, multiplier=multiplier)
        total_seconds += run.seconds
        if run.report is None:
            continue
        tests = run.report["tests"]
        check(len(tests) == 300, "round %d: 300 tests (%d)" % (round_number, len(tests)))
        check(run.report["run"]["jobs"] == 2, "round %d: -j 2" % round_number)
        before = len(FAILED)
        early = 0
        for test in tests:
            if not check_stress_test(test, "round %d: %s" % (round_number, test["id"]),
                                     multiplier):
                early += 1
        in_body = sum(1 for t in tests if "_timeout" in t["name"]) - early
        timeouts_in_body += in_body
        timeouts_early += early
        started = {e["id"] for e in run.stream if e["event"] == "test_started"}
        check(started == set(run.tests), "round %d: every test started in the stream"
              % round_number)
        kinds = {}
        for t in tests:
            kinds[t["state"]] = kinds.get(t["state"], 0) + 1
        print("round %d (timeout multiplier %d): %.2f s, %s, %d timeouts in their "
              "body, %d before, %d problems"
              % (round_number, multiplier, run.seconds, kinds, in_body, early,
                 len(FAILED) - before))
        if early > in_body and multiplier < STRESS_MAX_MULTIPLIER:
            multiplier *= 2
    print("stress: %d rounds in %.2f s; %d timeouts fired in the body, %d before it"
          % (rounds, total_seconds, timeouts_in_body, timeouts_early))
    check(timeouts_in_body >= STRESS_TIMEOUTS_IN_BODY,
          "only %d timeouts fired inside a test body in %d rounds: the barrier at "
          "a timeout was hardly tested" % (timeouts_in_body, rounds))


# ---- opting in and the options ------------------------------------------------

def sends(trace):
    return messages(trace, kind="send", label="note")


def numbered(first, last):
    return ["opts msg %d" % i for i in range(first, last + 1)]


@CASES("trace_e2e_untraced_test_has_no_trace")
def case_untraced(args):
    out = new_dir()
    run = Run(args.options, "opts/untraced", cwd=out, expect_status=1)
    test = run.test("opts/untraced")
    check(test.get("state") == "failed", "opts/untraced fails")
    check(test.get("trace") is None, "an untraced failed test has no trace")
    check("last messages" not in run.stdout, "the console shows no trace")


@CASES("trace_e2e_trace_all_traces_untraced_test")
def case_trace_all(args):
    out = new_dir()
    run = Run(args.options, "--trace-all", "opts/untraced", "opts/untraced_passes",
              cwd=out, expect_status=1)
    trace = run.test("opts/untraced").get("trace")
    if check(trace is not None, "--trace-all traces an untagged test"):
        trace_is_consistent(trace, "opts/untraced")
        check(trace["cap"] == 50 and trace["budget"] == 5000 and trace["level"] == 100,
              "--trace-all uses the defaults: %s" % {k: trace[k] for k in ("cap", "budget", "level")})
        check(sends(trace) == numbered(0, 9), "the 10 sends: %s" % sends(trace))
        check({a["name"] for a in trace["actors"]} == {"sender"}, "one actor, sender")
    passed = run.test("opts/untraced_passes")
    check(passed.get("state") == "passed" and passed.get("trace") is None,
          "--trace-all alone keeps no trace of a passed test")


@CASES("trace_e2e_tag_value_sets_cap")
def case_tag_cap(args):
    out = new_dir()
    run = Run(args.options, "opts/tag_cap", cwd=out, expect_status=1)
    test = run.test("opts/tag_cap")
    check(test.get("tags") == {"trace_messages": "7"}, "tags: %s" % test.get("tags"))
    trace = test.get("trace")
    if check(trace is not None, "trace_messages:7 traces the test"):
        trace_is_consistent(trace, "opts/tag_cap")
        check(trace["cap"] == 7, "cap 7 (%d)" % trace["cap"])
        check(trace["recorded"] == 20 and trace["dropped"] == 13,
              "recorded 20, dropped 13 (%d, %d)" % (trace["recorded"], trace["dropped"]))
        check(sends(trace) == numbered(13, 19), "the last 7 sends: %s" % sends(trace))
        check(not trace["overflow"], "no overflow")


@CASES("trace_e2e_test_fields_set_cap_and_budget")
def case_fields(args):
    out = new_dir()
    run = Run(args.options, "opts/field_cap_budget", cwd=out, expect_status=1)
    trace = run.test("opts/field_cap_budget").get("trace")
    if check(trace is not None, ".tags trace_messages traces the test"):
        trace_is_consistent(trace, "opts/field_cap_budget")
        check(trace["cap"] == 9 and trace["budget"] == 30,
              ".trace_cap 9, .trace_budget 30 (%d, %d)" % (trace["cap"], trace["budget"]))
        check(trace["recorded"] == 30 and trace["overflow"],
              "recording stops at the budget with overflow (%d, %s)"
              % (trace["recorded"], trace["overflow"]))
        check(sends(trace) == numbered(21, 29), "the last 9 sends within budget: %s"
              % sends(trace))


@CASES("trace_e2e_trace_cap_flag_sets_cap")
def case_cap_flag(args):
    out = new_dir()
    run = Run(args.options, "--trace-cap", "5", "opts/many", "opts/tag_cap",
              cwd=out, expect_status=1)
    for test_id, last in (("opts/many", 199), ("opts/tag_cap", 19)):
        trace = run.test(test_id).get("trace")
        if check(trace is not None, "%s has a trace" % test_id):
            trace_is_consistent(trace, test_id)
            check(trace["cap"] == 5, "%s: --trace-cap 5 wins (%d)" % (test_id, trace["cap"]))
            check(sends(trace) == numbered(last - 4, last), "%s: last 5 sends: %s"
                  % (test_id, sends(trace)))


@CASES("trace_e2e_trace_budget_flag_sets_overflow")
def case_budget_flag(args):
    out = new_dir()
    run = Run(args.options, "opts/many", cwd=out, expect_status=1)
    trace = run.test("opts/many").get("trace")
    if check(trace is not None, "opts/many has a trace"):
        trace_is_consistent(trace, "default budget")
        check(trace["budget"] == 5000 and trace["recorded"] == 200 and not trace["overflow"],
              "default budget: 200 recorded, no overflow")
    for budget, recorded, overflow in ((50, 50, True), (200, 200, False), (199, 199, True)):
        out = new_dir()
        run = Run(args.options, "--trace-budget", str(budget), "opts/many",
                  cwd=out, expect_status=1)
        trace = run.test("opts/many").get("trace")
        where = "--trace-budget %d" % budget
        if check(trace is not None, "%s: a trace" % where):
            trace_is_consistent(trace, where)
            check(trace["budget"] == budget, "%s: budget field" % where)
            check(trace["recorded"] == recorded and trace["overflow"] == overflow,
                  "%s: recorded %d overflow %s (expected %d %s)"
                  % (where, trace["recorded"], trace["overflow"], recorded, overflow))
            last = recorded - 1
            check(sends(trace) == numbered(max(0, last - 49), last),
                  "%s: the sends kept are the last within budget" % where)


@CASES("trace_e2e_trace_level_flag_drops_events_at_or_above")
def case_level_flag(args):
    below = ["level5", "level39"]
    for flag, kept in ((None, below + ["level40", "level41", "level99"]),
                       ("40", below), ("0", [])):
        out = new_dir()
        extra = ["--trace-level", flag] if flag is not None else []
        run = Run(args.options, *extra, "opts/levels", cwd=out, expect_status=1)
        trace = run.test("opts/levels").get("trace")
        where = "--trace-level %s" % flag
        if not check(trace is not None, "%s: a trace" % where):
            continue
        trace_is_consistent(trace, where)
        check(trace["level"] == (100 if flag is None else int(flag)),
              "%s: level field %d" % (where, trace["level"]))
        events = [e["label"] for e in trace["events"] if e["kind"] == "event"]
        check(events == kept, "%s: events below the threshold kept: %s, expected %s"
              % (where, events, kept))
        check(messages(trace, "send") == ["before"] and messages(trace, "recv") == ["after"],
              "%s: sends and receives are kept whatever the level" % where)
        for e in trace["events"]:
            if e["kind"] == "event":
                check(e["level"] == int(e["label"][5:]), "%s: level of %s" % (where, e["label"]))


@CASES("trace_e2e_trace_passed_keeps_passed_traces")
def case_trace_passed(args):
    out = new_dir()
    run = Run(args.options, "opts/traced_passes", "opts/untraced_passes",
              cwd=out, expect_status=0)
    check(run.test("opts/traced_passes").get("trace") is None,
          "without --trace-passed a passed traced test has no trace")
    out = new_dir()
    run = Run(args.options, "--trace-passed", "opts/traced_passes", "opts/untraced_passes",
              cwd=out, expect_status=0)
    test = run.test("opts/traced_passes")
    trace = test.get("trace")
    if check(test.get("state") == "passed" and trace is not None,
             "--trace-passed keeps the trace of a passed traced test"):
        trace_is_consistent(trace, "--trace-passed")
        check(sends(trace) == numbered(0, 4), "its 5 sends: %s" % sends(trace))
    check(run.test("opts/untraced_passes").get("trace") is None,
          "--trace-passed does not trace an untraced test")


@CASES("trace_e2e_config_file_sets_trace_cap")
def case_config_cap(args):
    out = new_dir()
    with open(os.path.join(out, "tattle.yml"), "w", encoding="utf-8") as f:
        f.write("trace: {cap: 5}\n")
    run = Run(args.options, "opts/many", "opts/field_cap_budget", cwd=out, expect_status=1)
    for test_id in ("opts/many", "opts/field_cap_budget"):
        trace = run.test(test_id).get("trace")
        if check(trace is not None, "%s: a trace" % test_id):
            trace_is_consistent(trace, test_id)
            check(trace["cap"] == 5, "tattle.yml trace.cap 5 applies to %s (%d)"
                  % (test_id, trace["cap"]))
    run = Run(args.options, "--trace-cap", "8", "opts/many", cwd=out, expect_status=1)
    trace = run.test("opts/many").get("trace")
    if check(trace is not None, "opts/many: a trace"):
        check(trace["cap"] == 8, "--trace-cap overrides tattle.yml (%d)" % trace["cap"])
    with open(os.path.join(out, "tattle.yml"), "w", encoding="utf-8") as f:
        f.write("trace: {cap: 5, budget: 20, level: 30, passed: true}\n")
    run = Run(args.options, "opts/many", "opts/levels", "opts/traced_passes",
              cwd=out, expect_status=1)
    trace = run.test("opts/many").get("trace") or {}
    check(trace.get("budget") == 20 and trace.get("recorded") == 20 and trace.get("overflow"),
          "tattle.yml trace.budget 20: %s" % {k: trace.get(k) for k in ("budget", "recorded", "overflow")})
    trace = run.test("opts/levels").get("trace") or {}
    check(trace.get("level") == 30 and
          [e["label"] for e in trace.get("events", []) if e["kind"] == "event"] == ["level5"],
          "tattle.yml trace.level 30 keeps only level5")
    check(run.test("opts/traced_passes").get("trace") is not None, "tattle.yml trace.passed keeps passed traces")


@CASES("trace_e2e_no_fork_traced_test_has_trace")
def case_no_fork(args):
    out = new_dir()
    run = Run(args.options, "--no-fork", "opts/tag_cap", "opts/untraced",
              cwd=out, expect_status=1)
    test = run.test("opts/tag_cap")
    check(test.get("state") == "failed", "opts/tag_cap fails in process")
    trace = test.get("trace")
    if check(trace is not None, "--no-fork: a failed traced test still has a trace"):
        trace_is_consistent(trace, "--no-fork")
        check(trace["cap"] == 7 and trace["recorded"] == 20,
              "--no-fork: cap 7, 20 recorded (%d, %d)" % (trace["cap"], trace["recorded"]))
        check(sends(trace) == numbered(13, 19), "--no-fork: last 7 sends: %s" % sends(trace))
    check(run.test("opts/untraced").get("trace") is None, "--no-fork: untraced test has no trace")


@CASES("trace_e2e_console_shows_last_messages_and_mailboxes")
def case_console(args):
    line = re.compile(r"^\s+(\d+)us\s+(\S+)\s+->\s+(\S+)\s+(\S+)\s+(\S*)\s+(.*?)\s*$")
    out = new_dir()
    run = Run(args.options, "console/fails_with_messages", cwd=out, expect_status=1)
    trace = run.test("console/fails_with_messages").get("trace") or {}
    check(trace.get("recorded") == 4, "the trace has 4 events (%s)" % trace.get("recorded"))
    text = run.stdout
    shown = []
    for text_line in text.splitlines():
        m = line.match(text_line)
        if m:
            shown.append(m.groups()[1:])
    want = [("client", "server", "send", "hello", "greetings"),
            ("server", "client", "recv", "welcome", "come in"),
            ("client", "requests", "send", "get", "GET /index"),
            ("client", "requests", "send", "put", "PUT /upload")]
    check(shown == want, "the console shows the last messages as"
          " t_us from -> to kind label msg: %s" % (shown,))
    check(re.search(r"^\s+last messages \(4 recorded, 0 dropped\):$", text, re.M),
          "the trace header line")
    check(re.search(r"^\s+mailbox requests \(owner client\): 2 pending$", text, re.M),
          "the mailbox line: %s" % text[-1500:])
    check(re.search(r"^\s+\[0\] GET /index$", text, re.M) and
          re.search(r"^\s+\[1\] PUT /upload$", text, re.M),
          "the pending messages, in order")
    fail_at = text.find("FAIL  console/fails_with_messages")
    check(0 <= fail_at < text.find("last messages"),
          "the trace follows the FAIL line")
    # With the report on stdout the console (and its trace) goes to stderr.
    p = subprocess.run([args.options, "--json", "-", "--color", "never",
                        "console/fails_with_messages"], cwd=out, capture_output=True,
                       timeout=60, env=clean_env())
    report = json.loads(p.stdout)
    check(validate_json.check_report(report) == [], "--json - is a valid report")
    err = p.stderr.decode("utf-8", "replace")
    check(re.search(r"^\s+\d+us\s+client\s+->\s+server\s+send\s+hello\s+greetings$", err, re.M)
          and "mailbox requests (owner client): 2 pending" in err,
          "with --json - the trace is on stderr")


# ---- the examples --------------------------------------------------------------

def example_run(args, test_id, status=1, multiplier=1):
    if not check(args.examples, "tattle_examples is built"):
        return None
    out = new_dir()
    run = Run(args.examples, test_id, cwd=out, expect_status=status,
              multiplier=multiplier)
    test = run.test(test_id)
    check(test.get("state") == "failed", "%s fails" % test_id)
    trace = test.get("trace")
    if check(trace is not None, "%s has a trace" % test_id):
        trace_is_consistent(trace, test_id)
    return test


@CASES("trace_e2e_example_ping_pong_shows_dropped_ball", needs=("examples",))
def case_ping_pong(args):
    test = example_run(args, "trace_demo/ping_pong_loses_a_message")
    if not test or test.get("trace") is None:
        return
    trace = test["trace"]
    failure = test["failures"][0]
    check(failure["kind"] == "assertion" and failure["assertion"]["left"] == "4",
          "the failure says 4 balls came back: %s" % failure)
    drops = [e for e in trace["events"] if e["kind"] == "event" and e.get("label") == "drop"]
    check(len(drops) == 1 and drops[0]["from"] == "ponger" and
          drops[0]["msg"] == "dropping ball 3",
          "the drop event for ball 3 is in the trace: %s" % drops)
    pongs = [e["msg"] for e in trace["events"] if e["kind"] == "send" and e.get("label") == "pong"]
    check(pongs == ["pong ball=%d" % b for b in (1, 2, 4, 5)],
          "pong sent for 1, 2, 4, 5 and not 3: %s" % pongs)
    pings = [e["msg"] for e in trace["events"] if e["kind"] == "send" and e.get("label") == "ping"]
    check(pings == ["ping ball=%d" % b for b in range(1, 6)], "every ping: %s" % pings)
    got = [e["msg"] for e in trace["events"] if e["kind"] == "recv" and e.get("label") == "pong"]
    check("pong ball=3" not in got and len(got) == 4, "pinger received 4 pongs: %s" % got)
    order = [e["seq"] for e in trace["events"]
             if e.get("msg") in ("ping ball=3", "dropping ball 3", "ping ball=4")
             and e["kind"] in ("send", "event")]
    check(order == sorted(order) and len(order) == 3, "ping 3, drop, ping 4 in order")
    check({a["name"] for a in trace["actors"]} == {"pinger", "ponger"},
          "actors pinger and ponger: %s" % trace["actors"])


@CASES("trace_e2e_example_worker_crash_lists_pending_jobs", needs=("examples",))
def case_worker_crash(args):
    test = example_run(args, "trace_demo/worker_crashes_with_pending_jobs")
    if not test or test.get("trace") is None:
        return
    trace = test["trace"]
    boxes = {m["name"]: m for m in trace["mailboxes"]}
    jobs = boxes.get("jobs")
    if check(jobs is not None, "the jobs mailbox is in the snapshot: %s" % list(boxes)):
        check(jobs["messages"] == ["job #4 c.txt", "job #5 d.txt"] and jobs["pending"] == 2,
              "jobs lists the pending jobs #4 and #5: %s" % jobs["messages"])
        check(jobs["approx"] is True, "read after a crash: approx")
    actors = {a["name"]: a for a in trace["actors"]}
    worker = actors.get("worker")
    check(worker is not None and worker["alive_at_exit"] is False,
          "the worker actor is listed, not alive at exit: %s" % worker)
    spawns = [(e.get("from"), e.get("to")) for e in trace["events"] if e["kind"] == "spawn"]
    check(spawns == [("main", "worker")], "the worker's spawn is recorded: %s" % spawns)
    worker_events = [e for e in trace["events"] if "worker" in (e.get("from"), e.get("to"))
                     and e["kind"] != "spawn"]
    check(len(worker_events) >= 2 and worker_events[-2]["kind"] == "recv" and
          worker_events[-2]["msg"] == "job #3 empty.txt",
          "the worker's last message is receiving the job that crashed it")
    check(worker_events and (worker_events[-1]["kind"], worker_events[-1].get("from"),
                             worker_events[-1].get("label"), worker_events[-1].get("msg"))
          == ("exit", "worker", "killed", "SIGSEGV"),
          "then its death by SIGSEGV: %s" % worker_events[-1:])


@CASES("trace_e2e_example_deadlock_snapshot_is_live", needs=("examples",))
def case_deadlock(args):
    # Bob's thread must have sent its hello before the timeout: the
    # build's multiplier scales the example's 300 ms for slow builds.
    multiplier = driver.wait_scale()
    test = example_run(args, "trace_demo/actors_deadlock_until_timeout",
                       multiplier=multiplier)
    if not test or test.get("trace") is None:
        return
    trace = test["trace"]
    failure = test["failures"][0]
    check(failure["kind"] == "timeout" and
          failure["timeout_ms"] == math.ceil(300 * multiplier),
          "a timeout failure: %s" % failure)
    boxes = {m["name"]: m for m in trace["mailboxes"]}
    check(set(boxes) == {"alice", "bob"}, "both mailboxes in the snapshot: %s" % list(boxes))
    check(all(m["approx"] for m in boxes.values()), "the snapshot is taken live (approx)")
    actors = {a["name"]: a for a in trace["actors"]}
    check(set(actors) == {"alice", "bob"}, "both actors present: %s" % list(actors))
    check(all(a["alive_at_exit"] for a in actors.values()),
          "both actors were alive when the snapshot was taken")
    hello = [e for e in trace["events"] if e.get("label") == "hello"]
    check([(e["kind"], e["from"], e["to"]) for e in hello] ==
          [("send", "bob", "alice"), ("recv", "alice", "alice")],
          "bob's hello is sent and received: %s" % hello)


@CASES("trace_e2e_example_exec_server_shows_its_short_answer", needs=("examples",))
def case_exec_server(args):
    """The example that starts upcase_server with fork and exec: the trace
    holds the client's request and the server's answer, each sent by one
    side and received by the other, the server named after its program,
    with no tracer call in either."""
    test = example_run(args, "trace_demo/exec_server_answers_short")
    if not test or test.get("trace") is None:
        return
    failure = test["failures"][0]
    check(failure["kind"] == "assertion" and "HELLO,\\n" in
          failure["assertion"]["left"],
          "the failure shows the short answer: %s" % failure)
    trace = test["trace"]
    by_seq = {e["seq"]: e for e in trace["events"]}
    got = [(e["kind"], e.get("from"), e.get("to"), e.get("label"), e.get("msg"))
           for e in trace["events"] if e["kind"] in ("send", "recv")]
    request, answer = "hello, exec'd server\n", "HELLO,\n"
    check(got == [("send", "client", "upcase_server", "write", request),
                  ("recv", "client", "upcase_server", "read", request),
                  ("send", "upcase_server", "client", "write", answer),
                  ("recv", "upcase_server", "client", "read", answer)],
          "request and answer, each sent and received: %s" % got)
    for e in trace["events"]:
        if e["kind"] == "recv":
            sent = by_seq.get(e.get("match"), {})
            check(sent.get("kind") == "send" and sent.get("msg") == e.get("msg")
                  and sent.get("match") == e["seq"],
                  "receive %s and its send name each other: %s" % (e, sent))
    names = {a["name"] for a in trace["actors"]}
    check({"client", "upcase_server"} <= names,
          "the client and the exec'd server are actors: %s" % names)


def run_case(cases, args):
    """Runs the case `args.case` of `cases` and says how it went: the
    driver's exit status (its runs' directories kept when a check failed)."""
    cases[args.case](args)
    if FAILED:
        print("%d check(s) failed; runs kept in %s" % (len(FAILED), DIRECTORIES))
        return 1
    for path in DIRECTORIES:
        shutil.rmtree(path, ignore_errors=True)
    print("ok")
    return 0


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--stress", required=True)
    parser.add_argument("--options", required=True)
    parser.add_argument("--examples")
    return run_case(CASES, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
