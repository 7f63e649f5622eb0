#!/usr/bin/env python3
"""Tests of the flame graph (--flamegraph) and the Chrome trace
(--chrome-trace): runs profile_fixture, whose `trace_calls` tests spend
known times in known functions, and checks the collapsed stacks against
those times and against the calls of the run's JSON report (validated
against schemas/), the Chrome trace's structure against the Trace Event
Format, the file rules, and that speedscope (npm, in Debian's chromium
through playwright-core) shows both files.

    test_profile.py CASE --fixture PATH --tattle PATH

Exits 0 when every check of the case held, 1 otherwise, 77 (skipped,
naming why) when a consumer is not installed.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402

CONSUMERS = os.path.join(SOURCE_DIR, "tests", "consumers")
SKIP_STATUS = 77

# The self times fixture_profile.c spins for, in microseconds.
PARENT_US, HEAVY_US, LIGHT_US, WORKER_US = 4000, 24000, 8000, 12000
# What a loaded machine may add to one spin, at most (scaled below).
SLACK_US = 150000


def body(test_id):
    suite, name = test_id.split("/")
    return "tattle__body__%s__%s" % (suite, name)


def read_collapsed(c, path):
    """{stack: weight} of a collapsed-stacks file, checking each line."""
    weights = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            match = re.fullmatch(r"(\S.*) (\d+)\n", line)
            c.require(match, "line %d is not 'STACK WEIGHT': %r" % (number, line))
            stack, weight = match.group(1), int(match.group(2))
            c.expect(stack not in weights, "stack %r twice" % stack)
            c.expect(weight > 0, "line %d weighs nothing: %r" % (number, line))
            weights[stack] = weight
    return weights


def replay(test):
    """The collapsed stacks of one test computed from its JSON calls: each
    actor's stack replayed (an actor's name is its identity: threads that
    named themselves alike read NAME, NAME#2, ...), the time between two
    of its calls added to the stack it was in, calls still open counted to
    the test's end."""
    calls = test["trace"]["calls"]
    end = max([test["duration_us"]] + [call["t_us"] for call in calls])
    stacks, last, weights = {}, {}, collections.Counter()
    for call in calls:
        actor = call["actor"]
        stack = stacks.setdefault(actor, [])
        if stack and call["t_us"] > last[actor]:
            weights[";".join([test["id"]] + stack)] += call["t_us"] - last[actor]
        last[actor] = max(call["t_us"], last.get(actor, 0))
        if call["kind"] == "enter":
            stack.append(call["function"])
        elif stack:
            stack.pop()
    for actor, stack in stacks.items():
        if stack and end > last[actor]:
            weights[";".join([test["id"]] + stack)] += end - last[actor]
    return {k: v for k, v in weights.items() if v > 0}


def chrome_events(path, test_id):
    """The events of one test's process in a Chrome trace, and its
    {tid: thread name}."""
    with open(path, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    pid = [e["pid"] for e in events if e["ph"] == "M" and
           e["name"] == "process_name" and e["args"]["name"] == test_id]
    mine = [e for e in events if pid and e["pid"] == pid[0]]
    names = {e["tid"]: e["args"]["name"] for e in mine
             if e["ph"] == "M" and e["name"] == "thread_name"}
    return mine, names


def set_calls(trace, calls):
    """Replaces a report's trace calls by `calls`, (t_us, actor, kind,
    function) each, numbered in their order."""
    template = trace["calls"][0]
    trace["calls"] = [dict(template, seq=number, t_us=t_us, actor=actor,
                           kind=kind, function=function, depth=0)
                      for number, (t_us, actor, kind, function)
                      in enumerate(calls, 1)]
    trace["calls_recorded"] = len(calls)
    trace["call_cap"] = max(trace["call_cap"], len(calls))
    trace["stacks"] = []


class Skip(Exception):
    """The case cannot run here; the message says why."""


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-profile-")
        self.options = options

    def run(self, extra):
        """Runs the tests with `extra` flags; (process, report, cwd)."""
        process, report, cwd = self.run_for_report(
            [self.options.fixture, "--color=never"] + list(extra))
        self.expect_eq(process.returncode, 1, "exit status (profile/threads "
                       "fails on purpose): %r" % process.stderr[-2000:])
        return process, report, cwd

    def tests(self, report):
        tests = {t["id"]: t for t in report["tests"]}
        for test_id in ("profile/weighted", "profile/threads"):
            self.require(test_id in tests and "calls" in
                         (tests[test_id].get("trace") or {}),
                         "%s has no calls in the report" % test_id)
        return tests

    def convert_crafted(self, edit, to):
        """The path of the `to` file that tattle convert writes from a real
        report whose profile/weighted trace `edit(trace, tests)` changed."""
        _, report, cwd = self.run(["--flamegraph", "kept.folded"])
        tests = self.tests(report)
        edit(tests["profile/weighted"]["trace"], tests)
        crafted = os.path.join(cwd, "crafted.json")
        driver.write(crafted, json.dumps(report))
        out = os.path.join(cwd, "crafted.out")
        done = subprocess.run([self.options.tattle, "convert", crafted, "--to",
                               to, "-o", out], cwd=cwd, capture_output=True)
        self.require(done.returncode == 0, "tattle convert --to %s: %r" % (
            to, done.stderr[-2000:]))
        return out

    def crafted_stacks(self, calls):
        """{stack: weight} of the flame graph of profile/weighted with
        `calls` (see set_calls) for its calls."""
        folded = self.convert_crafted(
            lambda trace, tests: set_calls(trace, calls), "flamegraph")
        return {stack: weight for stack, weight
                in read_collapsed(self, folded).items()
                if stack.startswith("profile/weighted;")}

    def within(self, weight, expected, what):
        """A spin's weight: at least what it spun, at most that and what
        a loaded machine adds."""
        slack = SLACK_US * driver.wait_scale()
        self.expect(expected - 2 <= weight <= expected + slack,
                    "%s weighs %d us, expected %d us (+%d)" % (
                        what, weight, expected, slack))


CASES = driver.Cases()


@CASES("profile_flamegraph_weights_known_times")
def flamegraph_weights(c):
    process, report, cwd = c.run(["--flamegraph", "profile.folded"])
    tests = c.tests(report)
    weights = read_collapsed(c, os.path.join(cwd, "profile.folded"))
    # Exactly the stacks and weights the JSON's calls give.
    expected = {}
    for test in tests.values():
        expected.update(replay(test))
    c.expect_eq(weights, expected, "stacks against the JSON's calls")
    weighted = "profile/weighted;" + body("profile/weighted")
    c.within(weights.get(weighted + ";parent", 0), PARENT_US, "parent")
    c.within(weights.get(weighted + ";parent;heavy", 0), HEAVY_US, "heavy")
    c.within(weights.get(weighted + ";parent;light", 0), LIGHT_US,
             "light under parent")
    c.within(weights.get(weighted + ";light", 0), LIGHT_US, "light")
    c.expect(weights.get(weighted, 0) < 1000 * driver.wait_scale(),
             "the body itself spins not: %r" % weights.get(weighted))
    # A test's weights add up to the time its thread was inside calls.
    calls = tests["profile/weighted"]["trace"]["calls"]
    c.expect_eq(sum(w for s, w in weights.items()
                    if s.startswith("profile/weighted;")),
                calls[-1]["t_us"] - calls[0]["t_us"], "total of weighted")
    c.expect_eq((calls[0]["kind"], calls[-1]["kind"]), ("enter", "exit"),
                "weighted's calls are whole")
    # The second thread's stack starts at its own function.
    c.within(weights.get("profile/threads;worker;handle", 0), WORKER_US,
             "handle on the worker")
    threads = "profile/threads;" + body("profile/threads")
    c.within(weights.get(threads + ";heavy", 0), HEAVY_US, "heavy in threads")
    # The same file from the report, through tattle convert.
    converted = os.path.join(cwd, "converted.folded")
    done = subprocess.run([c.options.tattle, "convert", "report.json", "--to",
                           "flamegraph", "-o", converted], cwd=cwd,
                          capture_output=True)
    c.expect_eq(done.returncode, 0, "tattle convert: %r" % done.stderr)
    c.expect_eq(driver.read(converted),
                driver.read(os.path.join(cwd, "profile.folded")),
                "the converted flame graph")


@CASES("profile_passed_traces_kept_only_when_asked")
def passed_traces(c):
    """A passed test's trace is in the report with --chrome-trace (or
    --flamegraph), which show every traced test, and not without."""
    process, report, _ = c.run([])
    weighted = [t for t in report["tests"] if t["id"] == "profile/weighted"]
    c.expect(weighted and weighted[0].get("trace") is None,
             "a passed test keeps its trace without --flamegraph")
    for flag, path in (("--chrome-trace", "timeline.json"),
                       ("--flamegraph", "profile.folded")):
        process, report, _ = c.run([flag, path])
        tests = c.tests(report)
        c.expect(tests["profile/weighted"]["trace"]["calls"],
                 "the passed test's calls with %s" % flag)


@CASES("profile_file_rules")
def file_rules(c):
    directory = c.new_dir()
    for flag in ("--flamegraph", "--chrome-trace"):
        missing = os.path.join(directory, "no", "such", "dir", "out")
        process = subprocess.run([c.options.fixture, flag, missing],
                                 capture_output=True,
                                 env=driver.clean_env())
        c.expect_eq(process.returncode, 2, "%s into a missing directory" % flag)
        lines = process.stderr.decode(errors="replace").strip().split("\n")
        c.expect(len(lines) == 1 and missing in lines[0],
                 "%s: not one line naming the path: %r" % (flag, lines))
        kept = os.path.join(directory, "kept")
        driver.write(kept, "old\n")
        process = subprocess.run([c.options.fixture, flag, kept, "--jobs", "0"],
                                 capture_output=True, env=driver.clean_env())
        c.expect_eq(process.returncode, 2, "%s with a bad --jobs" % flag)
        c.expect_eq(driver.read(kept), "old\n",
                    "%s clobbered on a usage error" % flag)


def event_key(event):
    return (event["pid"], event["tid"])


@CASES("profile_chrome_trace_structure")
def chrome_structure(c):
    process, report, cwd = c.run(["--chrome-trace", "timeline.json"])
    tests = c.tests(report)
    with open(os.path.join(cwd, "timeline.json"), encoding="utf-8") as f:
        trace = json.load(f)
    c.require(isinstance(trace, dict) and isinstance(trace.get("traceEvents"),
                                                     list),
              "not an object with traceEvents")
    events = trace["traceEvents"]
    for event in events:
        c.require(event.get("ph") in ("B", "E", "X", "i", "s", "f", "M"),
                  "unexpected phase: %r" % event)
        for key in ("pid", "tid", "ts"):
            c.require(isinstance(event.get(key), int) and event[key] >= 0,
                      "%s of %r" % (key, event))
        c.expect(event["ph"] in ("E",) or isinstance(event.get("name"), str),
                 "no name: %r" % event)
    processes = {e["pid"]: e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "process_name"}
    c.expect_eq(sorted(processes.values()), sorted(tests), "process names")
    pid_of = {name: pid for pid, name in processes.items()}
    threads = {event_key(e): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    for event in events:
        c.expect(event_key(event) in threads,
                 "a thread without a name: %r" % event)
    # Every B has its E on its thread, properly nested, in time order; the
    # B's of a thread are the entries of its actor's calls in the JSON.
    stacks, entered, last = {}, collections.defaultdict(list), {}
    for event in events:
        if event["ph"] not in ("B", "E"):
            continue
        key = event_key(event)
        c.expect(event["ts"] >= last.get(key, 0), "time goes back: %r" % event)
        last[key] = event["ts"]
        stack = stacks.setdefault(key, [])
        if event["ph"] == "B":
            stack.append(event["name"])
            entered[key].append(event["name"])
        else:
            c.require(stack, "an E without its B: %r" % event)
            c.expect_eq(event["name"], stack.pop(), "the E's name")
    for key, stack in stacks.items():
        c.expect_eq(stack, [], "calls left open on %r" % (key,))
    for test_id, test in tests.items():
        by_actor = collections.defaultdict(list)
        for call in test["trace"]["calls"]:
            if call["kind"] == "enter":
                by_actor[call["actor"]].append(call["function"])
        for actor, functions in by_actor.items():
            key = [k for k, name in threads.items()
                   if k[0] == pid_of[test_id] and name == actor]
            c.require(len(key) == 1, "no thread %s in %s" % (actor, test_id))
            c.expect_eq(entered[key[0]], functions,
                        "B events of %s in %s" % (actor, test_id))
    # The message: a flow from main to worker, after it was sent.
    flows = collections.defaultdict(list)
    for event in events:
        if event["ph"] in ("s", "f"):
            flows[event["id"]].append(event)
    c.expect_eq(len(flows), 1, "one flow (one message received)")
    for flow in flows.values():
        c.require(sorted(e["ph"] for e in flow) == ["f", "s"],
                  "a flow is one s and one f: %r" % flow)
        start, finish = sorted(flow, key=lambda e: e["ph"] != "s")
        c.expect_eq((threads[event_key(start)], threads[event_key(finish)]),
                    ("main", "worker"), "the flow's ends")
        c.expect(start["ts"] <= finish["ts"] and finish.get("bp") == "e",
                 "the flow: %r" % flow)
    threads_pid = pid_of["profile/threads"]
    instants = [e for e in events if e["ph"] == "i"
                and e["pid"] == threads_pid and e["s"] == "p"]
    names = [e["name"] for e in instants]
    c.expect("failure: assertion" in names, "no failure instant: %r" % names)
    mailbox = [e for e in instants if e["name"] == "mailbox work"]
    c.expect(len(mailbox) == 1 and mailbox[0]["args"]["pending"] == 1 and
             mailbox[0]["args"]["messages"] == ["two"],
             "the mailbox instant: %r" % mailbox)


@CASES("profile_threads_named_alike_kept_apart")
def threads_named_alike(c):
    """Two threads that both named themselves "twin", whose calls overlap,
    are two actors (twin, twin#2) with a stack each, in the report, the
    flame graph and the timeline."""
    process, report, cwd = c.run(["--flamegraph", "profile.folded",
                                  "--chrome-trace", "timeline.json"])
    tests = {t["id"]: t for t in report["tests"]}
    c.require("profile/twins" in tests and "calls" in
              (tests["profile/twins"].get("trace") or {}),
              "profile/twins has no calls in the report")
    trace = tests["profile/twins"]["trace"]
    names = [actor["name"] for actor in trace["actors"]]
    c.expect_eq(len(names), len(set(names)), "distinct actor names %r" % names)
    actor_of = {call["function"]: call["actor"] for call in trace["calls"]
                if call["kind"] == "enter"}
    c.require("twin_one" in actor_of and "twin_two" in actor_of,
              "the twins' calls: %r" % trace["calls"])
    c.expect_eq(sorted((actor_of["twin_one"], actor_of["twin_two"])),
                ["twin", "twin#2"], "the twins' actors")
    # Each thread's stack holds its own functions only.
    weights = read_collapsed(c, os.path.join(cwd, "profile.folded"))
    for stack in weights:
        frames = stack.split(";")
        for pair in (("twin_one", "twin_two"), ("first_twin", "second_twin")):
            c.expect(not set(pair) <= set(frames),
                     "one stack holds both threads' calls: %r" % stack)
    c.expect_eq({s: w for s, w in weights.items()
                 if s.startswith("profile/twins;")},
                replay(tests["profile/twins"]), "stacks against the calls")
    events, threads = chrome_events(os.path.join(cwd, "timeline.json"),
                                    "profile/twins")
    tid_of = {e["name"]: e["tid"] for e in events if e["ph"] == "B"}
    c.require("twin_one" in tid_of and "twin_two" in tid_of,
              "the twins' B events: %r" % events)
    c.expect(tid_of["twin_one"] != tid_of["twin_two"],
             "the twins share thread %r" % tid_of["twin_one"])
    c.expect_eq(sorted((threads.get(tid_of["twin_one"]),
                        threads.get(tid_of["twin_two"]))),
                ["twin", "twin#2"], "the twins' thread names")
    stacks = collections.defaultdict(list)
    for event in events:
        if event["ph"] == "B":
            stacks[event["tid"]].append(event["name"])
        elif event["ph"] == "E":
            c.require(stacks[event["tid"]], "an E without its B: %r" % event)
            c.expect_eq(stacks[event["tid"]].pop(), event["name"],
                        "the E's call on tid %d" % event["tid"])


@CASES("profile_deep_stack_bounded")
def deep_stack(c):
    """A recursion 300 calls deep: each line keeps the outermost and the
    innermost 64 frames and one frame counting those left out."""
    depth = 300
    calls = [(t, "main", "enter", "r%d" % (t + 1)) for t in range(depth)]
    calls += [(depth + t, "main", "exit", "r%d" % (depth - t))
              for t in range(depth)]
    stacks = c.crafted_stacks(calls)
    by_innermost = {stack.split(";")[-1]: stack.split(";")[1:]
                    for stack in stacks}
    c.expect_eq(len(by_innermost), depth, "a line per depth")
    for inner in range(1, depth + 1):
        frames = by_innermost.get("r%d" % inner)
        if inner <= 128:
            expected = ["r%d" % d for d in range(1, inner + 1)]
        else:
            expected = (["r%d" % d for d in range(1, 65)] +
                        ["[... %d frames]" % (inner - 128)] +
                        ["r%d" % d for d in range(inner - 63, inner + 1)])
        c.expect_eq(frames, expected, "the frames of depth %d" % inner)


@CASES("profile_frame_names_split_right")
def frame_names(c):
    """A space in a function's name reads `_` (flamegraph.pl would read a
    name ending in " NUMBER" as a second count), a `;` `:`."""
    stacks = c.crafted_stacks([
        (0, "main", "enter", "wait 12"), (10, "main", "enter", "a;b c"),
        (30, "main", "exit", "a;b c"), (40, "main", "exit", "wait 12")])
    c.expect_eq(stacks, {"profile/weighted;wait_12": 20,
                         "profile/weighted;wait_12;a:b_c": 20},
                "the stacks")


@CASES("profile_self_time_saturates")
def self_time_saturates(c):
    """Two threads each 2^64-1 us in one stack: its weight stays at the
    largest count, not wrapped round."""
    most = 2**64 - 1
    stacks = c.crafted_stacks([
        (0, "a", "enter", "f"), (0, "b", "enter", "f"),
        (most, "a", "exit", "f"), (most, "b", "exit", "f")])
    c.expect_eq(stacks, {"profile/weighted;f": most}, "the stacks")


@CASES("profile_chrome_trace_time_never_back")
def chrome_time_never_back(c):
    """A clock that went back on a thread: its B and E events are still in
    time order, so each E closes its own B."""
    calls = [(100, "main", "enter", "f"), (50, "main", "enter", "g"),
             (40, "main", "exit", "g"), (120, "main", "exit", "f")]
    timeline = c.convert_crafted(lambda trace, tests: set_calls(trace, calls),
                                 "chrome-trace")
    events, _ = chrome_events(timeline, "profile/weighted")
    c.expect_eq([(e["ph"], e["name"], e["ts"]) for e in events
                 if e["ph"] in ("B", "E")],
                [("B", "f", 100), ("B", "g", 100), ("E", "g", 100),
                 ("E", "f", 120)], "the calls' events")


@CASES("profile_chrome_trace_skips_empty_mailboxes")
def chrome_empty_mailboxes(c):
    """Only the mailboxes still holding messages are instants."""
    def edit(trace, tests):
        held = [m for m in tests["profile/threads"]["trace"]["mailboxes"]
                if m["name"] == "work"]
        c.require(held, "no mailbox work in profile/threads")
        trace["mailboxes"] = [held[0], dict(held[0], name="idle", pending=0,
                                            messages=[])]
    timeline = c.convert_crafted(edit, "chrome-trace")
    events, _ = chrome_events(timeline, "profile/weighted")
    c.expect_eq(sorted(e["name"] for e in events if e["ph"] == "i" and
                       e["name"].startswith("mailbox ")),
                ["mailbox work"], "the mailbox instants")


def require_speedscope():
    if not shutil.which("node"):
        raise Skip("node is not installed: speedscope cannot run")
    for package in ("speedscope", "playwright-core"):
        if not os.path.exists(os.path.join(CONSUMERS, "node_modules", package,
                                           "package.json")):
            raise Skip("the npm package %s is not installed in tests/consumers "
                       "(scripts/install-npm-deps.sh installs it)" % package)
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        raise Skip("Chromium is not installed at %s" % chromium)


def speedscope(c, path):
    process = subprocess.run(
        ["node", os.path.join(CONSUMERS, "check_speedscope.mjs"), path],
        capture_output=True, timeout=180 * driver.wait_scale())
    c.require(process.returncode == 0, "check_speedscope.mjs failed: %r"
              % process.stderr[-3000:])
    shown = json.loads(process.stdout)
    name = os.path.basename(path)
    if not c.expect_eq(shown["title"], "%s - speedscope" % name, "speedscope's title"):
        print("speedscope did not load %s; the page showed %r; its last console "
              "messages: %r" % (name, shown.get("page_text"), shown.get("console")))
    c.expect_eq((shown["alerts"], shown["page_errors"], shown["requests"]),
                ([], [], []), "speedscope's errors and requests")
    c.require(shown["profiles"], "speedscope shows no profile")
    return shown


def sandwich(profile):
    """{symbol: self weight text} of a speedscope sandwich table."""
    rows = [r for r in profile["rows"] if len(r) == 3 and r[0] != "Total"
            and r[0] != "#"]
    return {r[2].split(" {")[0]: r[1].split(" (")[0] for r in rows}


@CASES("profile_speedscope_reads_both")
def speedscope_reads(c):
    process, report, cwd = c.run(["--flamegraph", "profile.folded",
                                  "--chrome-trace", "timeline.json"])
    tests = c.tests(report)
    folded = os.path.join(cwd, "profile.folded")
    weights = read_collapsed(c, folded)
    shown = speedscope(c, folded)
    # Its sandwich table: every function's self time as the file has it.
    self_time = collections.Counter()
    for stack, weight in weights.items():
        self_time[stack.split(";")[-1]] += weight
    table = sandwich(shown["profiles"][0])
    for function, weight in self_time.items():
        c.expect_eq(table.get(function), "{:,}".format(weight),
                    "speedscope's self weight of %s" % function)
    # The timeline: a profile per thread with calls, named by test and
    # actor, whose frames are that thread's functions.
    shown = speedscope(c, os.path.join(cwd, "timeline.json"))
    expected = {}
    with open(os.path.join(cwd, "timeline.json"), encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    for (pid, tid), actor in threads.items():
        functions = {call["function"]
                     for call in tests[processes[pid]]["trace"]["calls"]
                     if call["actor"] == actor}
        if functions:
            expected["%s (pid %d), %s (tid %d)" % (processes[pid], pid, actor,
                                                  tid)] = functions
    listed = [r[1] for r in shown["profiles"][0]["rows"]
              if len(r) == 3 and r[0].isdigit()]
    c.expect_eq(sorted(listed), sorted(expected), "speedscope's profiles")
    c.expect_eq(len(shown["profiles"]), len(expected), "profiles visited")
    for profile in shown["profiles"]:
        names = [name for name in expected if name in profile["text"]]
        c.require(names, "a profile not named: %r" % profile["text"][:300])
        name = max(names, key=len)
        c.expect(expected[name] <= set(sandwich(profile)),
                 "%s: speedscope shows %r, the calls name %r" % (
                     name, sorted(sandwich(profile)), sorted(expected[name])))


@CASES("profile_example_loads_in_speedscope")
def example_in_speedscope(c):
    """What the README's first command writes for examples/calls: the
    word counter's functions in speedscope, from both files."""
    c.require(c.options.example, "no --example: the examples are not built")
    cwd = c.new_dir()
    process = subprocess.run(
        [c.options.example, "--flamegraph", "calls.folded", "--chrome-trace",
         "calls.trace.json"], cwd=cwd, capture_output=True,
        env=driver.clean_env(keep=("TATTLE_TIMEOUT_MULTIPLIER",)),
        timeout=120 * driver.wait_scale())
    c.expect_eq(process.returncode, 0, "calls_examples: %r" % process.stdout)
    functions = {"count_text", "count_word", "find_slot", "next_word",
                 "sort_counts"}
    weights = read_collapsed(c, os.path.join(cwd, "calls.folded"))
    named = {frame for stack in weights for frame in stack.split(";")}
    c.expect(functions <= named, "the flame graph names %r" % sorted(named))
    shown = speedscope(c, os.path.join(cwd, "calls.folded"))
    c.expect(functions <= set(sandwich(shown["profiles"][0])),
             "speedscope shows %r" % sorted(sandwich(shown["profiles"][0])))
    shown = speedscope(c, os.path.join(cwd, "calls.trace.json"))
    c.expect_eq(len(shown["profiles"]), 1, "one thread with calls")
    c.expect(functions <= set(sandwich(shown["profiles"][0])),
             "speedscope shows %r" % sorted(sandwich(shown["profiles"][0])))


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--tattle", required=True)
    parser.add_argument("--example")
    options = parser.parse_args()
    if options.case in ("profile_speedscope_reads_both",
                        "profile_example_loads_in_speedscope"):
        try:
            require_speedscope()
        except Skip as reason:
            print("skipped: %s" % reason)
            return SKIP_STATUS
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
