#!/usr/bin/env python3
"""Tests of call tracing: runs calls_fixture (compiled by
tattle_instrument()), whose `trace_calls` tests make known calls, and
checks `trace.calls` and `trace.stacks` in the JSON report (validated
against schemas/ by tests/tools/validate_json.py), the console, and what
`tattle merge` reads back.

    test_calls.py CASE --fixture PATH --tattle PATH

Exits 0 when every check of the case held, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402

FIXTURE_SOURCE = os.path.join(SOURCE_DIR, "tests", "calls", "fixture_calls.c")

CheckFailed = driver.CheckFailed


def marker_line(marker):
    with open(FIXTURE_SOURCE, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if "/* @%s */" % marker in line:
                return number
    raise CheckFailed("no marker @%s in %s" % (marker, FIXTURE_SOURCE))


def definition_lines(function):
    """The lines a function's entry may be attributed to: its declarator
    and its opening brace."""
    with open(FIXTURE_SOURCE, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        if (" %s(" % function) in line and not line.rstrip().endswith(";"):
            return (number, number + 1)
    raise CheckFailed("no definition of %s in %s" % (function, FIXTURE_SOURCE))


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-calls-")
        self.options = options

    def run(self, args, extra=()):
        return self.run_for_report(
            [self.options.fixture, "--color=never", "--trace-passed"]
            + list(extra) + list(args))

    def run_traced(self, test_id, status):
        """Runs one test, checks the exit status, returns the report and
        the test's trace."""
        process, report, _ = self.run([test_id])
        self.expect_eq(process.returncode, status, "exit status")
        return report, self.trace(report, test_id)

    def expect_no_stack_left(self, trace):
        self.expect_eq([(s["actor"], s["depth"], s["frames"])
                        for s in trace["stacks"]], [("main", 0, [])],
                       "stacks at the end")

    def test(self, report, test_id):
        tests = {t["id"]: t for t in report["tests"]}
        self.require(test_id in tests, "%s not in the report" % test_id)
        return tests[test_id]

    def trace(self, report, test_id):
        test = self.test(report, test_id)
        trace = test.get("trace")
        self.require(trace is not None and "calls" in trace,
                     "%s: no calls in the trace: %r" % (test_id, trace))
        return trace


def body(test_id):
    suite, name = test_id.split("/")
    return "tattle__body__%s__%s" % (suite, name)


def named(calls):
    return [(c["kind"], c["function"], c["depth"]) for c in calls]


CASES = driver.Cases()


@CASES("calls_nested_in_order_with_messages")
def nested(c):
    process, report, cwd = c.run(["calls/nested"])
    c.expect_eq(process.returncode, 0, "exit status")
    trace = c.trace(report, "calls/nested")
    top = body("calls/nested")
    inner_twice = [("enter", "inner", 3), ("exit", "inner", 3)] * 2
    middle = [("enter", "middle", 2)] + inner_twice + [("exit", "middle", 2)]
    expected = ([("enter", top, 0), ("enter", "outer", 1)] + middle + middle +
                [("exit", "outer", 1), ("exit", top, 0)])
    c.expect_eq(named(trace["calls"]), expected, "calls")
    c.expect_eq(trace["calls_recorded"], len(expected), "calls_recorded")
    c.expect_eq(trace["call_cap"], 1000, "call_cap")
    for call in trace["calls"]:
        c.expect_eq(call["actor"], "main", "actor of %r" % call)
        c.expect(call["file"] and call["file"].endswith("fixture_calls.c"),
                 "file of %r" % call)
        c.expect(call["line"] in definition_lines(call["function"]),
                 "line of %r: expected %r" % (
                     call, definition_lines(call["function"])))
    times = [call["t_us"] for call in trace["calls"]]
    c.expect(times == sorted(times), "times go backwards: %r" % times)
    # One timeline: the event between the two middles is numbered between
    # them, and calls and events together are numbered 1..N.
    events = [e for e in trace["events"] if e.get("label") == "between"]
    c.require(len(events) == 1, "one event 'between': %r" % trace["events"])
    first_middle_exit = trace["calls"][8]
    second_middle_enter = trace["calls"][9]
    c.expect_eq((first_middle_exit["kind"], first_middle_exit["function"]),
                ("exit", "middle"), "the 9th call")
    c.expect(first_middle_exit["seq"] < events[0]["seq"] <
             second_middle_enter["seq"],
             "the event is not between the middles: %r %r %r" % (
                 first_middle_exit, events[0], second_middle_enter))
    seqs = sorted([call["seq"] for call in trace["calls"]] +
                  [e["seq"] for e in trace["events"]])
    c.expect_eq(seqs, list(range(1, len(seqs) + 1)), "one numbering")
    stacks = trace["stacks"]
    c.expect_eq([(s["actor"], s["depth"], s["frames"]) for s in stacks],
                [("main", 0, [])], "stacks at the end")
    console = process.stdout.decode("utf-8", "replace")
    c.expect("calls: 16 recorded" in console,
             "console does not show the calls:\n%s" % console)
    # The tattle command reads the calls back unchanged.
    merged = os.path.join(cwd, "merged.json")
    subprocess.run([c.options.tattle, "merge", "-o", merged,
                    os.path.join(cwd, "report.json")], check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(merged, encoding="utf-8") as f:
        again = json.load(f)
    again_trace = again["tests"][0]["trace"]
    for key in ("calls", "stacks", "call_cap", "calls_recorded"):
        c.expect_eq(again_trace.get(key), trace[key], "%s after merge" % key)


@CASES("calls_not_recorded_without_the_tag")
def untagged(c):
    process, report, _ = c.run(["calls/untagged", "calls/untagged_traced"])
    c.expect_eq(process.returncode, 0, "exit status")
    c.expect(c.test(report, "calls/untagged").get("trace") is None,
             "an untraced test has a trace")
    trace = c.test(report, "calls/untagged_traced")["trace"]
    c.expect(trace is not None and "calls" not in trace and
             "stacks" not in trace,
             "a test traced without trace_calls has calls: %r" % trace)


@CASES("calls_crash_keeps_the_shadow_stack")
def crash(c):
    process, report, cwd = c.run(["calls/crash_inside"])
    c.expect_eq(process.returncode, 1, "exit status")
    test = c.test(report, "calls/crash_inside")
    c.expect_eq(test["failures"][0]["kind"], "crash", "failure kind")
    trace = c.trace(report, "calls/crash_inside")
    main = [s for s in trace["stacks"] if s["actor"] == "main"]
    c.require(len(main) == 1, "no stack of main: %r" % trace["stacks"])
    frames = [f["function"] for f in main[0]["frames"]]
    c.expect_eq(frames, ["crash_here", "on_the_way",
                         body("calls/crash_inside")], "shadow stack")
    c.expect_eq(main[0]["depth"], 3, "depth")
    top = main[0]["frames"][0]
    c.expect(top["file"].endswith("fixture_calls.c") and
             top["line"] in definition_lines("crash_here"),
             "crash_here's place: %r" % top)
    c.expect_eq(named(trace["calls"][-1:]), [("enter", "crash_here", 2)],
                "the last call")
    console = process.stdout.decode("utf-8", "replace")
    c.expect("crash_here" in console and "on_the_way" in console,
             "console does not show the shadow stack:\n%s" % console)
    shown = subprocess.run([c.options.tattle, "show",
                            os.path.join(cwd, "report.json")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    text = shown.stdout.decode("utf-8", "replace")
    c.expect("calls: 9 recorded" in text and
             "main was inside 3 calls at the end" in text and
             "#0  crash_here at " in text,
             "tattle show does not show the calls:\n%s" % text)


@CASES("calls_threads_and_children_record")
def actors(c):
    process, report, _ = c.run(["calls/thread", "calls/forked_child"])
    c.expect_eq(process.returncode, 0, "exit status")
    trace = c.trace(report, "calls/thread")
    by_actor = {}
    for call in trace["calls"]:
        by_actor.setdefault(call["actor"], []).append(call)
    c.expect_eq(sorted(by_actor), sorted(["main", [a["name"] for a in
                                                   trace["actors"]
                                                   if a["name"] != "main"][0]]),
                "actors with calls")
    others = [calls for actor, calls in by_actor.items() if actor != "main"]
    c.require(len(others) == 1, "one other thread: %r" % by_actor)
    c.expect_eq(named(others[0]),
                [("enter", "worker", 0), ("enter", "inner", 1),
                 ("exit", "inner", 1), ("exit", "worker", 0)],
                "the thread's calls")
    c.expect_eq(len(trace["stacks"]), 2, "a stack per thread")

    trace = c.trace(report, "calls/forked_child")
    child = [call for call in trace["calls"] if call["actor"] != "main"]
    c.expect_eq(named(child),
                [("enter", "in_child", 1), ("enter", "inner", 2),
                 ("exit", "inner", 2), ("exit", "in_child", 1)],
                "the child's calls, under its parent's")
    stacks = {s["actor"]: s for s in trace["stacks"]}
    child_actor = child[0]["actor"] if child else None
    c.require(child_actor in stacks, "no stack of the child: %r" % stacks)
    c.expect_eq([f["function"] for f in stacks[child_actor]["frames"]],
                [body("calls/forked_child")],
                "the child's stack: it exited inside the test's body")


@CASES("calls_deep_and_many_are_bounded")
def bounded(c):
    process, report, _ = c.run(["calls/deeper_than_stored",
                                "calls/more_than_kept"])
    c.expect_eq(process.returncode, 1, "exit status")
    trace = c.trace(report, "calls/deeper_than_stored")
    main = [s for s in trace["stacks"] if s["actor"] == "main"][0]
    c.expect_eq(main["depth"], 102, "true depth")
    c.expect_eq(len(main["frames"]), 64, "frames stored")
    c.expect_eq(main["frames"][-1]["function"],
                body("calls/deeper_than_stored"), "outermost frame")
    c.expect(all(f["function"] == "recurse" for f in main["frames"][:-1]),
             "inner frames: %r" % main["frames"][:3])
    c.expect_eq(trace["calls_recorded"], 102, "calls recorded")

    trace = c.trace(report, "calls/more_than_kept")
    c.expect_eq(trace["call_cap"], 10, "call_cap")
    c.expect_eq(trace["calls_recorded"], 102, "calls recorded")
    c.expect_eq(len(trace["calls"]), 10, "calls kept")
    c.expect_eq([call["seq"] for call in trace["calls"]],
                list(range(93, 103)), "the last calls' numbers")
    c.expect_eq(named(trace["calls"][-1:]),
                [("exit", body("calls/more_than_kept"), 0)], "the last call")


def check_nesting(c, calls, what):
    """Each thread's kept calls, in order, nest: an enter at depth d is
    followed by an enter at d + 1 or its own exit at d; an exit at d by an
    enter at d or the exit at d - 1 of the call around it."""
    by_actor = {}
    for call in calls:
        by_actor.setdefault(call["actor"], []).append(call)
    for actor, mine in by_actor.items():
        for before, after in zip(mine, mine[1:]):
            d = before["depth"]
            if before["kind"] == "enter":
                ok = ((after["kind"] == "enter" and after["depth"] == d + 1) or
                      (after["kind"] == "exit" and after["depth"] == d and
                       after["function"] == before["function"]))
            else:
                ok = ((after["kind"] == "enter" and after["depth"] == d) or
                      (after["kind"] == "exit" and after["depth"] == d - 1))
            if not ok:
                c.expect(False, "%s: %s: %r then %r" % (what, actor, before,
                                                         after))
                return


@CASES("calls_signal_handler_inside_a_hook_loses_no_record")
def signal_handler(c):
    test_id = "calls/signal_handler"
    _, trace = c.run_traced(test_id, 0)
    made = [e for e in trace["events"] if e.get("label") == "made"]
    c.require(len(made) == 1, "one event 'made': %r" % trace["events"])
    text = [v for k, v in made[0].items() if k not in ("label",)
            and isinstance(v, str) and v[:1].isdigit()]
    c.require(len(text) == 1, "the event's text: %r" % made[0])
    loops, ticks = (int(n) for n in text[0].split())
    # The body's enter and exit, inner's two per loop, and per signal the
    # handler's and on_tick_work's enter and exit.
    calls_made = 2 + 2 * loops + 4 * ticks
    c.expect(ticks > 0, "no signal was handled")
    c.expect_eq(trace["calls_recorded"] + trace["calls_lost"], calls_made,
                "calls recorded %d + lost %d, for %d loops and %d signals" % (
                    trace["calls_recorded"], trace["calls_lost"], loops,
                    ticks))
    c.expect_eq(trace["calls_lost"] % 2, 0, "calls lost come in pairs")
    c.expect_eq(len(trace["calls"]), 1000, "calls kept")
    check_nesting(c, trace["calls"], test_id)
    c.expect_eq(named(trace["calls"][-1:]), [("exit", body(test_id), 0)],
                "the last call")
    c.expect_no_stack_left(trace)


@CASES("calls_fatal_failure_unwinds_the_shadow_stack")
def fatal_failure(c):
    test_id = "calls/fatal_failure_unwinds"
    report, trace = c.run_traced(test_id, 1)
    c.expect_eq([f["kind"] for f in c.test(report, test_id)["failures"]],
                ["assertion"], "failures")
    top = body(test_id)
    # The calls the longjmp left end where it landed, innermost first;
    # the teardown and the on-exit callback start again at depth 0.
    expected = [("enter", top, 0), ("enter", "fails_deep", 1),
                ("enter", "fails_here", 2), ("exit", "fails_here", 2),
                ("exit", "fails_deep", 1), ("exit", top, 0),
                ("enter", "tears_down", 0), ("enter", "inner", 1),
                ("exit", "inner", 1), ("exit", "tears_down", 0),
                ("enter", "on_exit_after_failure", 0), ("enter", "inner", 1),
                ("exit", "inner", 1), ("exit", "on_exit_after_failure", 0)]
    c.expect_eq(named(trace["calls"]), expected, "calls")
    check_nesting(c, trace["calls"], test_id)
    c.expect_no_stack_left(trace)


def run_own_programs(c, programs, option, problem, expected):
    """Runs the shared and static programs `option` names; each must exit
    0 (else `problem`) and print `expected`."""
    c.require(len(programs) == 2,
              "%s names the shared and static programs" % option)
    for program in programs:
        ran = subprocess.run([program], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        output = (ran.stdout + ran.stderr).decode("utf-8", "replace")
        name = os.path.basename(program)
        c.expect_eq(ran.returncode, 0, "%s: %s: %s" % (name, problem, output))
        c.expect(expected in output, "%s: %s" % (name, output))


@CASES("calls_program_keeps_its_own_hooks")
def own_hooks(c):
    run_own_programs(c, c.options.own_hooks, "--own-hooks",
                     "its hooks saw other calls than its own",
                     "entered 3 exited 2")


@CASES("calls_program_keeps_its_own_wait4")
def own_wait(c):
    run_own_programs(c, c.options.own_wait, "--own-wait",
                     "the runner called the program's own wait4",
                     "runner calls 0 own calls 1")


@CASES("calls_bad_cap_is_invalid")
def bad_cap(c):
    process, report, _ = c.run(["calls/bad_cap"])
    test = c.test(report, "calls/bad_cap")
    c.expect_eq(test["state"], "invalid", "state")
    c.expect("trace_calls:0" in json.dumps(test),
             "the reason does not name the tag: %r" % test)


@CASES("calls_overhead_is_measured")
def overhead(c):
    process, report, _ = c.run(["overhead/*"])
    c.expect_eq(process.returncode, 0, "exit status: %s" % process.stdout[-3000:])
    c.expect_eq(c.test(report, "overhead/measured")["state"], "passed",
                "measured outside a traced test")
    # Refused inside a traced test, which still records its own calls.
    trace = c.trace(report, "overhead/refused_in_a_traced_test")
    c.expect_eq([(x["kind"], x["function"]) for x in trace["calls"]][1:3],
                [("enter", "inner"), ("exit", "inner")],
                "the traced test's calls after the refusal")


@CASES("calls_overhead_shown_by_version_verbose")
def version_verbose(c):
    """`--version --verbose` measures the hooks here and shows the three
    figures of tattle_trace_overhead(); `--version` alone does not."""
    import re
    plain = subprocess.run([c.options.fixture, "--version"],
                           capture_output=True, text=True, timeout=60)
    c.expect_eq(plain.returncode, 0, "--version: %r" % plain.stderr)
    c.expect("call tracing" not in plain.stdout,
             "--version alone measured: %r" % plain.stdout)
    for program in (c.options.fixture, c.options.tattle):
        shown = subprocess.run([program, "--version", "--verbose"],
                               capture_output=True, text=True, timeout=120)
        c.expect_eq(shown.returncode, 0,
                    "%s --version --verbose: %r" % (program, shown.stderr))
        c.expect(shown.stdout.startswith("tattle "),
                 "the version first: %r" % shown.stdout)
        found = re.search(r"call tracing: traced ([0-9.]+) ns per "
                          r"enter\+exit pair \(enter ([0-9.]+), exit "
                          r"([0-9.]+)\), untraced ([0-9.]+) ns per call",
                          shown.stdout)
        c.expect(found is not None,
                 "%s: no call tracing figures in %r" % (program, shown.stdout))
        if found:
            pair, enter, exit_, untraced = map(float, found.groups())
            # The untraced hook is a load and a branch: less the clock's
            # own cost it may round to 0.00.
            c.expect(enter > 0 and exit_ > 0 and untraced >= 0,
                     "figures not measured: %r" % shown.stdout)
            c.expect(abs(pair - (enter + exit_)) < 0.15,
                     "the pair is not enter + exit: %r" % shown.stdout)
    either_order = subprocess.run([c.options.tattle, "--verbose", "--version"],
                                  capture_output=True, text=True, timeout=120)
    c.expect(either_order.returncode == 0 and "call tracing" in either_order.stdout,
             "tattle --verbose --version: %r" % (either_order,))
    for program in (c.options.fixture, c.options.tattle):
        alone = subprocess.run([program, "--verbose"], capture_output=True,
                               text=True, timeout=60)
        c.expect_eq(alone.returncode, 2, "%s --verbose without --version: %r"
                    % (program, alone.stderr))
        c.expect("--version" in alone.stderr and alone.stderr.count("\n") == 1,
                 "%s --verbose: one line naming --version: %r"
                 % (program, alone.stderr))

def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--tattle", required=True)
    parser.add_argument("--own-wait", nargs="+", default=[],
                        help="programs with a wait4 of their own (shared, "
                        "static)")
    parser.add_argument("--own-hooks", nargs="+", default=[],
                        help="programs with hooks of their own")
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
