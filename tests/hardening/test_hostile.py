#!/usr/bin/env python3
"""Tests of a runner that trusts nothing a test can touch: runs
hostile_fixture, whose tests attack the runner on purpose (they overwrite
the shared memory and the descriptors they inherited, attack a neighbour
at -j2, leave processes behind, wait for the runner to be killed or
signalled, time out or crash in a library whose debug file, or the
library itself, is replaced by a FIFO, time out with tens of thousands of
mappings), and checks what must hold whatever a test does: the runner
survives; report.json and the --jsonl stream are valid (schemas/, through
tests/tools/validate_json.py) and complete; every other test's result,
output and trace are exactly what they are in a run without the hostile
test; no process of a test outlives it.

    test_hostile.py CASE --fixture PATH --library PATH

Each CASE is one behaviour, named by its CTest test (`--list`), tried
with several kinds of damage, each in its own run and working directory;
every broken check names the run ("[fill=ff]") and what went wrong.
Waits are bounded and scaled by TATTLE_TIMEOUT_MULTIPLIER; tests and the
driver meet through files in the run's directory, never by sleeping.
Exits 0 when every check of the case held, 1 otherwise.
"""
import argparse
import fcntl
import json
import os
import shutil
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

FIXTURE_SOURCE = os.path.join(SOURCE_DIR, "tests", "hardening",
                              "fixture_hostile.c")


def timeout_multiplier():
    try:
        value = float(os.environ.get("TATTLE_TIMEOUT_MULTIPLIER", "1") or "1")
    except ValueError:
        return 1.0
    return max(value, 1.0)


MULTIPLIER = timeout_multiplier()
WAIT_MS = int(10000 * MULTIPLIER)       # every wait inside the fixture
WAIT_S = WAIT_MS / 1000.0               # every wait of the driver
RUN_TIMEOUT_S = 3 * WAIT_S              # a run that takes longer hangs

# JSON numbers above this lose their value in most readers (and cJSON
# prints them as doubles): no count in a report may be larger.
SAFE_INTEGER = 2 ** 53 - 1

SIGNALS_RESET = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM,
                 signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE)

# The tests every run of the slot, arena and descriptor cases starts and
# ends with; their results must be the same as in a run without damage.
BEFORE = ["before/passes"]
AFTER = ["after/fails", "after/passes", "after/traced"]
CONTROLS = BEFORE + AFTER


def default_signals():
    """In the runner's process before exec: the signals a shell or CI may
    have ignored or blocked get their default action back, so a runner
    that does not handle them dies of them (as it would in a terminal)."""
    for number in SIGNALS_RESET:
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


def how_it_ended(status):
    if status is None:
        return "still running"
    if status < 0:
        return "died of %s" % signal_name(-status)
    return "exit status %d" % status


class Run:
    def __init__(self, label, cwd):
        self.label = label
        self.cwd = cwd
        self.status = None
        self.console = b""          # the runner's stdout (a regular file)
        self.console_err = b""      # the runner's stderr
        self.report = None
        self.tests = {}
        self.stream_events = []
        self.stream_complete = False

    def file(self, name):
        return os.path.join(self.cwd, name)

    def exists(self, name):
        return os.path.exists(self.file(name))

    def text(self, name):
        try:
            return driver.read(self.file(name)).strip()
        except (OSError, UnicodeDecodeError):
            return None

    def started_order(self):
        return [e["id"] for e in self.stream_events if e["event"] == "test_started"]


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-hostile-")
        self.options = options
        self.pid_files = []         # processes to reap when the case ends
        self.stop_files = []
        self.runner_env = {}        # what every run of the case is given

    # ---- running the fixture ----

    def environment(self, extra):
        env = driver.clean_env()
        env["TERM"] = "dumb"
        env["HOSTILE_WAIT_MS"] = str(WAIT_MS)
        env.update(self.runner_env)
        env.update(extra or {})
        return env

    def start(self, label, args, env=None):
        """Starts the fixture in a new directory: stdout and stderr go to
        regular files (console.txt, console.err) a test could truncate,
        stdin is /dev/null, no other descriptor is inherited."""
        run = Run(label, self.new_dir())
        argv = [self.options.fixture, "--timeout", str(8 * WAIT_MS)] + list(args)
        with open(run.file("console.txt"), "wb") as out, \
                open(run.file("console.err"), "wb") as err:
            process = subprocess.Popen(
                argv, cwd=run.cwd, env=self.environment(env), stdin=subprocess.DEVNULL,
                stdout=out, stderr=err, close_fds=True, preexec_fn=default_signals)
        return run, process

    def finish(self, run, process):
        try:
            run.status = process.wait(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            run.status = process.wait()
            self.problems.append("[%s] the runner did not end within %d s (killed)"
                                 % (run.label, RUN_TIMEOUT_S))
        with open(run.file("console.txt"), "rb") as f:
            run.console = f.read()
        with open(run.file("console.err"), "rb") as f:
            run.console_err = f.read()
        return run

    def run(self, label, args, env=None):
        run, process = self.start(label, args, env)
        return self.finish(run, process)

    def wait_for(self, run, process, name):
        """Waits (bounded) for a file a test writes from inside its body;
        False when the runner ended first or the bound passed."""
        deadline = time.monotonic() + 3 * WAIT_S
        while not run.exists(name):
            if process.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    # ---- reading what a run left ----

    def read_report(self, run):
        """Loads and validates report.json; records why when it cannot."""
        path = run.file("report.json")
        if not os.path.exists(path):
            self.problems.append(
                "[%s] no report.json: the runner %s; its stderr ends %r"
                % (run.label, how_it_ended(run.status), run.console_err[-600:]))
            return False
        with open(path, "rb") as f:
            data = f.read()
        try:
            run.report = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            at = getattr(error, "start", getattr(error, "pos", 0)) or 0
            self.problems.append(
                "[%s] report.json is not valid UTF-8 JSON (%s); bytes around "
                "the error: %r (the runner %s)"
                % (run.label, error, data[max(0, at - 40):at + 40],
                   how_it_ended(run.status)))
            return False
        for p in validate_json.check_report(run.report, complete=True):
            self.problems.append("[%s] report.json does not validate: %s"
                                 % (run.label, p))
        run.tests = {t["id"]: t for t in run.report.get("tests", [])}
        return True

    def read_stream(self, run, finished=True):
        path = run.file("stream.jsonl")
        if not os.path.exists(path):
            self.problems.append("[%s] no stream.jsonl" % run.label)
            return False
        with open(path, "rb") as f:
            data = f.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            self.problems.append("[%s] stream.jsonl is not UTF-8 (%s): %r"
                                 % (run.label, error,
                                    data[max(0, error.start - 40):error.start + 40]))
            return False
        problems = validate_json.check_stream(text, finished=finished)
        for p in problems[:8]:
            self.problems.append("[%s] stream.jsonl: %s" % (run.label, p))
        if problems:
            return False
        run.stream_events = [json.loads(line) for line in text.split("\n") if line]
        run.stream_complete = bool(run.stream_events) and \
            run.stream_events[-1]["event"] == "run_finished"
        return True

    def survived(self, run, status=None):
        """The runner ended on its own with `status` (when given), wrote a
        valid, complete report and a valid stream that ends with
        run_finished and finishes every test of the report."""
        if run.status is not None and run.status < 0:
            self.problems.append("[%s] the runner %s" % (run.label,
                                                         how_it_ended(run.status)))
        elif status is not None:
            self.expect_eq(run.status, status, "[%s] exit status" % run.label)
        report = self.read_report(run)
        stream = self.read_stream(run)
        if report and stream:
            finished = sorted(e["test"]["id"] for e in run.stream_events
                              if e["event"] == "test_finished")
            self.expect_eq(finished, sorted(run.tests),
                           "[%s] tests finished in the stream" % run.label)
        return report

    def in_order(self, run, expected):
        """The tests started in `expected` order (registration order at
        -j1): what the case relies on to put damage before a test. A
        stream that is not valid and complete says nothing (its problems
        are already recorded)."""
        if not run.stream_complete:
            return
        order = run.started_order()
        self.require(order == expected,
                     "[%s] the tests did not start in the order the case relies "
                     "on: %s instead of %s" % (run.label, order, expected))

    def test(self, run, test_id):
        if test_id not in run.tests:
            self.problems.append("[%s] %s is missing from the report (it has %s)"
                                 % (run.label, test_id, sorted(run.tests)))
            return None
        return run.tests[test_id]

    # ---- what must hold ----

    def same_as_reference(self, run, reference, ids):
        """Each test of `ids` has exactly the result, output and trace it
        has in the reference run (no hostile test)."""
        for test_id in ids:
            mine, theirs = self.test(run, test_id), reference.tests.get(test_id)
            if mine is None or theirs is None:
                continue
            for what, left, right in comparable(theirs, mine):
                self.expect(left == right,
                            "[%s] %s: %s is %s, without the hostile test %s"
                            % (run.label, test_id, what, shorten(right),
                               shorten(left)))

    def counts_bounded(self, run):
        """No number in the report exceeds a JSON-safe integer, and every
        trace's counts agree with each other."""
        for path, value in numbers(run.report):
            if isinstance(value, float) or abs(value) > SAFE_INTEGER:
                self.problems.append("[%s] report %s is %r: beyond what a count "
                                     "can be" % (run.label, path, value))
        for t in run.report.get("tests", []):
            trace = t.get("trace")
            if not trace:
                continue
            where = "[%s] %s trace" % (run.label, t["id"])
            self.expect(trace["dropped"] <= trace["recorded"],
                        "%s: dropped %d > recorded %d" % (where, trace["dropped"],
                                                          trace["recorded"]))
            self.expect(len(trace["events"]) <= trace["cap"],
                        "%s: %d events > cap %d" % (where, len(trace["events"]),
                                                    trace["cap"]))
            if trace["budget"]:
                self.expect(trace["recorded"] <= trace["budget"],
                            "%s: recorded %d > budget %d"
                            % (where, trace["recorded"], trace["budget"]))
            self.expect(len(trace["actors"]) <= 128,
                        "%s: %d actors, more than a trace holds"
                        % (where, len(trace["actors"])))

    def error_starting(self, run, test_id, prefix):
        """`test_id` failed with an error whose message starts `prefix`."""
        t = self.test(run, test_id)
        if t is None:
            return
        messages = [(f["kind"], f["message"][:100]) for f in t["failures"]]
        self.expect(t["state"] == "failed" and any(
            f["kind"] == "error" and f["message"].startswith(prefix)
            for f in t["failures"]),
            "[%s] %s must be failed with an error \"%s...\": it is %s with %s"
            % (run.label, test_id, prefix, t["state"], messages or "no failure"))

    def only_failure(self, run, test_id, message, marker):
        """`test_id` failed with exactly one failure: its own assertion."""
        t = self.test(run, test_id)
        if t is None:
            return
        got = [(f["kind"], f["message"][:100], f.get("line")) for f in t["failures"]]
        self.expect(t["state"] == "failed" and got == [("assertion", message,
                                                         marker_line(marker))],
                    "[%s] %s must be failed with its own assertion only (%r, line "
                    "%d): it is %s with %s" % (run.label, test_id, message,
                                               marker_line(marker), t["state"], got))

    def output_exact(self, run, test_id, stdout, stderr=""):
        t = self.test(run, test_id)
        if t is None:
            return
        output = t["output"]
        for stream, expected in (("stdout", stdout), ("stderr", stderr)):
            got = output[stream]
            self.expect(got == expected, "[%s] %s %s: %s" % (
                run.label, test_id, stream, difference(expected, got)))
            self.expect_eq(output[stream + "_bytes"], len(expected.encode()),
                           "[%s] %s %s_bytes" % (run.label, test_id, stream))

    def trace_events(self, run, test_id, labels, messages):
        """The trace of `test_id` holds exactly its own events."""
        t = self.test(run, test_id)
        if t is None:
            return
        trace = t.get("trace")
        if not self.expect(trace is not None, "[%s] %s has no trace"
                           % (run.label, test_id)):
            return
        got = [(e["kind"], e["label"], e["msg"]) for e in trace["events"]]
        want = [("event", label, message) for label, message in zip(labels, messages)]
        self.expect(got == want, "[%s] %s trace events: %d events %s, expected "
                    "exactly its own %s" % (run.label, test_id, len(got),
                                            shorten(got), want))
        self.expect_eq((trace["recorded"], trace["dropped"], trace["overflow"]),
                       (len(labels), 0, False),
                       "[%s] %s trace (recorded, dropped, overflow)"
                       % (run.label, test_id))

    # ---- processes ----

    def watch_pids(self, run, pattern_prefix, stop_file):
        self.stop_files.append(run.file(stop_file))
        self.pid_files.append((run, pattern_prefix))

    def survivors(self, run, prefix):
        """Processes named by the run's pid files PREFIX*.pid that still
        run (same pid and start time; a zombie is dead)."""
        alive = []
        for name in sorted(os.listdir(run.cwd)):
            if name.startswith(prefix) and name.endswith(".pid"):
                pid, start = read_pid_file(run.file(name))
                if pid and process_start(pid) == start:
                    alive.append((name[len(prefix):-len(".pid")], pid))
        return alive

    def wait_until_dead(self, run, prefix, lock=None):
        """Waits (bounded) until no process of the pid files PREFIX*.pid
        runs and nobody holds `lock`; returns the survivors."""
        deadline = time.monotonic() + WAIT_S
        while True:
            alive = self.survivors(run, prefix)
            held = lock is not None and lock_held(run.file(lock))
            if (not alive and not held) or time.monotonic() > deadline:
                if held and not alive:
                    alive = [("a process holding %s" % lock, 0)]
                return alive
            time.sleep(0.01)

    def reap(self):
        """Stops what the case left running: stop files first, then
        SIGKILL to whatever still runs."""
        for path in self.stop_files:
            try:
                driver.write(path, "")
            except OSError:
                pass
        for run, prefix in self.pid_files:
            for _, pid in self.survivors(run, prefix):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def cleanup(self):
        self.reap()
        super().cleanup()


# ---- helpers ----

def marker_line(marker):
    with open(FIXTURE_SOURCE, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if "/* @%s */" % marker in line:
                return number
    raise driver.CheckFailed("no marker @%s in %s" % (marker, FIXTURE_SOURCE))


def shorten(value, limit=300):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "... (%d chars)" % len(text)


def difference(expected, got):
    """Where `got` first differs from `expected`, in a few words."""
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b),
              min(len(expected), len(got)))
    return ("%d characters where %d were expected; from character %d: %r "
            "instead of %r" % (len(got), len(expected), at, got[at:at + 60],
                               expected[at:at + 60]))


def numbers(value, path="top"):
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, (int, float)):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from numbers(v, path + "/" + k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from numbers(v, "%s/%d" % (path, i))


def comparable(reference, test):
    """(what, reference value, value) for everything of a test's result
    that no other test may change."""
    yield "state", reference["state"], test["state"]
    strip = lambda fs: [{k: v for k, v in f.items() if k != "stacktrace"} for f in fs]
    yield "failures", strip(reference["failures"]), strip(test["failures"])
    for key in ("stdout", "stderr", "stdout_bytes", "stderr_bytes", "truncated"):
        yield "output." + key, reference["output"][key], test["output"][key]
    a, b = reference.get("trace"), test.get("trace")
    yield "having a trace", a is not None, b is not None
    if a is not None and b is not None:
        for key in ("recorded", "dropped", "overflow", "cap", "budget"):
            yield "trace." + key, a[key], b[key]
        event = lambda e: (e["kind"], e["from"], e["to"], e["label"], e["msg"], e["size"])
        yield "trace events", [event(e) for e in a["events"]], \
            [event(e) for e in b["events"]]
        yield "trace actors", len(a["actors"]), len(b["actors"])
        yield "trace mailboxes", a["mailboxes"], b["mailboxes"]


def read_pid_file(path):
    try:
        pid, start = driver.read(path).split()
        return int(pid), int(start)
    except (OSError, ValueError):
        return None, None


def process_start(pid):
    """The start time of a running process, None when it is dead or a
    zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] in ("Z", "X", "x"):
        return None
    return int(fields[19])


def lock_held(path):
    """Whether a process holds a lock on `path` (the escaped processes
    hold one shared lock, passed down every fork)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


CASES = driver.Cases()


def reference_run(c, extra=()):
    """The control tests without any hostile test: what their results must
    be in every other run. Checked against what the fixture says too, so a
    broken reference cannot hide a broken runner."""
    r = c.run("reference", ["-j1", "--json", "report.json", "--jsonl", "stream.jsonl"]
              + list(extra) + CONTROLS)
    c.require(c.survived(r, 1), "[reference] the run without a hostile test failed")
    c.only_failure(r, "after/fails", "after failure", "after")
    c.output_exact(r, "after/fails", "after fails\n")
    c.output_exact(r, "after/passes", "after passes\n")
    c.output_exact(r, "before/passes", "before passes\n")
    c.trace_events(r, "after/traced", ["after"] * 3,
                   ["own event %d" % i for i in (1, 2, 3)])
    c.require(not c.problems, "[reference] the control tests are not what the "
              "fixture says: the case cannot compare against them")
    return r


def hostile_run(c, reference, label, hostile, env, extra=()):
    """A run of the control tests around `hostile` at -j1: the runner must
    survive and the controls must be untouched. `ok` on the run says
    whether it left a report to look at."""
    r = c.run(label, ["-j1", "--json", "report.json", "--jsonl", "stream.jsonl"]
              + list(extra) + BEFORE + [hostile] + AFTER, env)
    r.ok = c.survived(r, 1)
    if r.ok:
        c.in_order(r, BEFORE + [hostile] + AFTER)
        c.same_as_reference(r, reference, CONTROLS)
        c.counts_bounded(r)
        r.ok = c.test(r, hostile) is not None
    return r


# ------------------------------------------------------ 1. the result slot

# Patterns no result slot can hold: the test must be reported for them.
IMPOSSIBLE_SLOT_FILLS = ("ff", "huge")


@CASES("hardening_slot_overwrite_is_reported_not_fatal")
def slot_overwrite(c):
    """A test that overwrites its whole result slot (and every other
    runner state it can reach) cannot crash the runner or change another
    test's result; when what it wrote is impossible it is failed with an
    error "result slot corrupted"."""
    reference = reference_run(c)
    for fill in ("ff", "huge", "near-end", "zeros", "random:1", "random:2"):
        label = "fill=%s" % fill
        r = hostile_run(c, reference, label, "slot/overwrite", {"HOSTILE_FILL": fill})
        filled = r.text("slot.filled") or ""
        c.expect("mappings filled: " in filled and "mappings filled: 0" not in filled,
                 "[%s] slot/overwrite found no writable shared mapping to fill "
                 "(it must reach its own result slot): %r" % (label, filled))
        if r.ok and fill in IMPOSSIBLE_SLOT_FILLS:
            c.error_starting(r, "slot/overwrite", "result slot corrupted")


@CASES("hardening_unterminated_slot_string_stays_in_the_slot")
def slot_unterminated(c):
    """A failure whose strings lose their terminator (everything from the
    message to the end of the slot, and every other slot, overwritten with
    'A') is never read past the slot: each string of it is at most the
    bytes between the message and the end of the slot, made of what the
    slot held, or the failure is an error "result slot corrupted"."""
    reference = reference_run(c)
    runs = [("-j1", hostile_run(c, reference, "-j1", "slot/unterminated", {}))]
    # At -j2 another job's slot may lie right after this one: a reader
    # that does not stop at the end of the slot runs on into it.
    r = c.run("-j2", ["-j2", "--json", "report.json", "--jsonl", "stream.jsonl",
                      "slot/unterminated"])
    r.ok = c.survived(r, 1)
    runs.append(("-j2", r))
    for label, r in runs:
        if not r.ok:
            continue
        t = c.test(r, "slot/unterminated")
        to_end = r.text("slot.unterminated")
        if t is None or not c.expect(to_end and to_end.isdigit(),
                                     "[%s] slot/unterminated did not find its "
                                     "message in shared memory: %r" % (label, to_end)):
            continue
        to_end = int(to_end)
        c.expect_eq(t["state"], "failed", "[%s] slot/unterminated state" % label)
        pristine = {"message": "UNTERMINATED-MARKER-the rest of the message",
                    "macro": "EXPECT", "expr": "0"}
        for f in t["failures"]:
            if f["kind"] == "error" and f["message"].startswith("result slot corrupted"):
                continue
            fields = [("message", f.get("message")), ("file", f.get("file"))]
            fields += [(k, v) for k, v in (f.get("assertion") or {}).items()]
            for key, value in fields:
                if value is None or value == pristine.get(key) or (
                        key == "file" and value.endswith("fixture_hostile.c")):
                    continue
                size = len(value.encode("utf-8"))
                c.expect(size <= to_end and set(value) <= {"A"},
                         "[%s] slot/unterminated %s: %d bytes %s; the slot held "
                         "only %d bytes of 'A' from the message on: read past "
                         "the slot" % (label, key, size, shorten(value[-80:]), to_end))


# ------------------------------------------------------ 2. the trace arena

# (test, fill, region, must be reported as "trace arena corrupted")
ARENA_DAMAGE = (
    ("arena/corrupted", "ff", "head:4096", True),
    ("arena/corrupted", "huge", "head:4096", True),
    ("arena/corrupted", "near-end", "all", True),
    ("arena/corrupted", "zeros", "head:4096", False),
    ("arena/corrupted", "random:3", "all", False),
    ("arena/corrupted_large_cap", "near-end", "head:4096", True),
    ("arena/corrupted_large_cap", "ff", "head:4096", True),
)


@CASES("hardening_arena_header_corruption_is_reported")
def arena_corruption(c):
    """A traced test that overwrites its own arena (header, counters,
    offsets) cannot crash the runner, make it read outside the mapping or
    report impossible counts; impossible contents make it failed with an
    error "trace arena corrupted"; the next traced test's trace is its
    own."""
    reference = reference_run(c, ["--trace-passed"])
    for test_id, fill, region, reported in ARENA_DAMAGE:
        label = "%s fill=%s region=%s" % (test_id, fill, region)
        r = hostile_run(c, reference, label, test_id,
                        {"HOSTILE_FILL": fill, "HOSTILE_REGION": region},
                        ["--trace-passed"])
        filled = r.text("arena.filled") or ""
        c.expect("mappings filled: " in filled and "mappings filled: 0" not in filled,
                 "[%s] the traced test found no writable shared mapping named "
                 "tattle-trace (its own arena; was it renamed?): %r" % (label, filled))
        if r.ok and reported:
            c.error_starting(r, test_id, "trace arena corrupted")


@CASES("hardening_arena_file_cannot_be_cut_short")
def arena_truncated(c):
    """A traced test that cuts its arena's memfd to nothing (ftruncate
    through any descriptor or /proc/self/map_files it can open) cannot
    make the runner read past the file's end (SIGBUS): the runner seals
    the file's size, the run goes on, and every other test, the next
    traced one's trace included, is as in the reference run."""
    reference = reference_run(c, ["--trace-passed"])
    r = hostile_run(c, reference, "arena truncated", "arena/truncated", {},
                    ["--trace-passed"])
    log = r.text("arena.truncated") or ""
    c.expect("arena files found: 0" not in log and "found:" in log,
             "the traced test reached no file of its arena: %r" % log)
    c.expect("ftruncate done" not in log,
             "the arena's file could be cut short:\n" + log)


# ------------------------------------------------- 3. inherited descriptors

# block: O_NONBLOCK cleared on a descriptor whose flags the runner shares.
FD_DAMAGE = ("write", "truncate", "seek", "read", "block",
             "read,truncate,seek,write")


@CASES("hardening_inherited_fds_cannot_reach_reports")
def inherited_fds(c):
    """Whatever a test does to the descriptors it inherited (writes
    garbage, truncates, seeks, reads), report.json and the stream stay
    valid and complete, and the console still shows every other test and
    none of the garbage."""
    reference = reference_run(c)
    for damage in FD_DAMAGE:
        label = "fds=%s" % damage
        before = len(c.problems)
        r = hostile_run(c, reference, label, "fds/hostile", {"HOSTILE_FDS": damage})
        if r.ok:
            c.expect_eq(r.tests["fds/hostile"]["state"], "passed",
                        "[%s] fds/hostile state" % label)
        for name, data in (("console", r.console), ("console stderr", r.console_err)):
            at = data.find(b"HOSTILE-GARBAGE")
            c.expect(at < 0, "[%s] the %s holds the garbage a test wrote: %r"
                     % (label, name, data[max(0, at - 60):at + 60]))
            c.expect(b"\0" not in data, "[%s] the %s holds %d NUL bytes of %d (it "
                     "was truncated or moved under the runner's feet)"
                     % (label, name, data.count(b"\0"), len(data)))
        text = r.console.decode("utf-8", "replace")
        for line in ("PASS  before/passes", "FAIL  after/fails", "after failure",
                     "PASS  after/passes", "FAIL  after/traced",
                     "after traced failure", "3 passed, 2 failed"):
            c.expect(line in text, "[%s] the console does not show %r: %s"
                     % (label, line, shorten(text[-600:], 700)))
        if len(c.problems) > before and r.exists("fds.log"):
            print("[%s] what fds/hostile did:\n%s" % (label, driver.read(r.file("fds.log"))))


# ------------------------------------------------------- 4. neighbours, -j2

ATTACKS = ("slots-zeros", "slots-ff", "arenas-ff", "read", "write",
           "read,write,slots-zeros,arenas-ff")

# Whether a reader of the victim's pipe is first to a line is a race with
# the runner: the read attack runs again until the attacker has stolen
# something (then the victim's output must still be whole), at most this
# many times.
READ_ATTACK_RUNS = 6


@CASES("hardening_neighbour_cannot_erase_failure")
def neighbour(c):
    """At -j2 a test cannot reach its neighbour's result slot, arena or
    pipes: the victim keeps its failure, its exact output and its trace,
    whatever the attacker does while they both run (they meet through
    files, so they overlap for certain)."""
    for attack in ATTACKS:
        runs = READ_ATTACK_RUNS if attack == "read" else 1
        for attempt in range(1, runs + 1):
            label = "attack=%s" % attack + (" run %d" % attempt if runs > 1 else "")
            stolen = neighbour_run(c, label, attack)
            if stolen:
                break


def neighbour_run(c, label, attack):
    """One run of neighbour/victim and neighbour/attacker at -j2; returns
    how many bytes the attacker read from the pipes it inherited."""
    r = c.run(label, ["-j2", "--json", "report.json", "--jsonl", "stream.jsonl",
                      "neighbour/*"], {"HOSTILE_ATTACK": attack})
    stolen = r.text("attacker.stolen")
    stolen = int(stolen) if stolen and stolen.isdigit() else 0
    overlap = [n for n in ("victim.started", "attacker.reading", "attacker.done")
               if not r.exists(n)]
    c.expect(not overlap and not r.exists("attacker.missed"),
             "[%s] the two tests did not overlap (missing %s)" % (label, overlap))
    if not c.survived(r, 1):
        return stolen
    c.only_failure(r, "neighbour/victim", "victim failure", "victim")
    lines = r.text("victim.lines")
    if c.expect(lines and lines.isdigit(), "[%s] victim.lines: %r" % (label, lines)):
        stdout = "victim first line\n" + "".join(
            "victim line %04d\n" % i for i in range(int(lines)))
        before = len(c.problems)
        c.output_exact(r, "neighbour/victim", stdout)
        if len(c.problems) > before and stolen:
            c.problems.append("[%s] (the attacker read %d bytes from the pipes "
                              "it inherited)" % (label, stolen))
    c.trace_events(r, "neighbour/victim", ["victim-1", "victim-2"],
                   ["own event", "own event"])
    c.counts_bounded(r)
    return stolen


# ------------------------------------------------- 5. escaped processes

# (style, test): the escaping process's name and the test that starts it.
ESCAPES = (("clone_parent", "escape/clone_parent"),
           ("fork_hopper", "escape/fork_hopper"),
           ("double_fork", "escape/double_fork"),
           ("setsid_grandchild", "escape/setsid_grandchild"),
           ("suite_orphan", "escape_suite/orphan_of_a_dead_server"))


@CASES("hardening_escaped_processes_die_with_their_test")
def escaped_processes(c, jobs="-j1"):
    """Every process a test started dies with it, however it escaped (a
    CLONE_PARENT child, a fork-hopping process, a double fork, a setsid
    grandchild, one left by a test that killed its suite server, which
    makes it the fork server's), even when the test passed: none is
    running when the next
    test starts, none prints into its output or erases its failure, none
    is left after the run. At -j2 escape/beside holds the first job, so
    the escape test and escape/next run in the second, one after the
    other, the first job's server busy meanwhile."""
    for style, escaping in ESCAPES:
        label = "escape=%s %s" % (style, jobs)
        beside = ["escape/beside"] if jobs == "-j2" else []
        order = beside + [escaping, "escape/next"]
        r = c.run(label, [jobs, "--json", "report.json", "--jsonl", "stream.jsonl"]
                  + order)
        c.watch_pids(r, "escapee.", "escapees.stop")
        c.expect(r.exists("escapee.%s.pid" % style),
                 "[%s] the escaping process never ran" % label)
        c.expect(not r.exists("next.saw_alive"),
                 "[%s] a process of %s was still running when escape/next "
                 "started" % (label, escaping))
        c.expect(not r.exists("escapee.%s.outlived" % style),
                 "[%s] the %s process outlived its test: it saw escape/next start%s"
                 % (label, style, ", printed into its output and zeroed the shared "
                    "memory it could reach" if r.exists("escapee.%s.done" % style)
                    else ""))
        left = c.wait_until_dead(r, "escapee.", "escapees.lock")
        c.expect(not left, "[%s] still running %.0f s after the run: %s"
                 % (label, WAIT_S, left))
        if not c.survived(r, 1):
            continue
        c.in_order(r, order)
        c.only_failure(r, "escape/next", "next failure", "next")
        c.output_exact(r, "escape/next", "next output\n")
        if style == "suite_orphan":
            t = c.test(r, escaping)
            messages = [f["message"] for f in t["failures"]] if t else []
            c.expect(t is not None and t["state"] == "failed" and any(
                m.startswith("the suite server of 'escape_suite'") for m in messages),
                "[%s] %s must fail on its suite server's death: %s" % (
                    label, escaping, t and (t["state"], messages)))
        for test_id in beside:
            t = c.test(r, test_id)
            c.expect(t is not None and t["state"] == "passed",
                     "[%s] %s must pass: it is %s" % (
                         label, test_id, t and (t["state"], t["failures"])))
            # With two processors each job has a server of its own: the
            # escape test's is then not the first job's. (A suite's test
            # is its suite server's, which the first job's server forked.)
            if len(os.sched_getaffinity(0)) >= 2 and style != "suite_orphan":
                servers = [r.text("beside.server"), r.text("escape.server")]
                c.expect(None not in servers and servers[0] != servers[1],
                         "[%s] escape/beside and %s must be forked by "
                         "different servers: %s" % (label, escaping, servers))


def escaped_processes_at_j2(c):
    escaped_processes(c, "-j2")


CASES("hardening_escaped_processes_die_at_j2")(escaped_processes_at_j2)


# ------------------------------------------------- 6. pooled trace arenas

# (fill, region): zeros over the head keep the rings' contents.
POOL_DAMAGE = (("zeros", "head:4096"), ("zeros", "head:65536"), ("ff", "all"),
               ("huge", "head:4096"), ("random:9", "all"), ("near-end", "all"))


@CASES("hardening_pooled_arena_cannot_be_forged")
def pooled_arena(c):
    """Whatever an earlier test wrote into a trace arena it could reach, a
    traced test's trace holds exactly the events it recorded."""
    reference = c.run("reference", ["-j1", "--json", "report.json", "--jsonl",
                                    "stream.jsonl", "pool/later_traced"])
    c.require(c.survived(reference, 1), "[reference] pool/later_traced alone")
    c.only_failure(reference, "pool/later_traced", "later traced failure", "later")
    c.trace_events(reference, "pool/later_traced", ["later"] * 3,
                   ["own event %d" % i for i in (1, 2, 3)])
    c.require(not c.problems, "[reference] pool/later_traced is not what the "
              "fixture says: the case cannot compare against it")
    order = ["pool/earlier_traced", "pool/untraced_writer", "pool/later_traced"]
    for fill, region in POOL_DAMAGE:
        label = "fill=%s region=%s" % (fill, region)
        r = c.run(label, ["-j1", "--json", "report.json", "--jsonl", "stream.jsonl",
                          "pool/*"], {"HOSTILE_FILL": fill, "HOSTILE_REGION": region})
        if not c.survived(r, 1):
            continue
        c.in_order(r, order)
        c.same_as_reference(r, reference, ["pool/later_traced"])
        c.counts_bounded(r)
        filled = r.text("pool.filled") or ""
        if "mappings filled: 0" in filled:
            print("[%s] pool/untraced_writer reached no trace arena" % label)


# ------------------------------------------- 9. the runner killed, signalled

WORKERS = ("child", "grandchild", "setsid_grandchild", "clone_parent")


@CASES("hardening_runner_sigkill_kills_workers")
def runner_sigkill(c):
    """When the runner is killed with SIGKILL (a CI timeout), every process
    of the test that was running dies: the test process and its workers,
    however they were started."""
    r, process = c.start("SIGKILL", ["-j1", "--json", "report.json", "--jsonl",
                                     "stream.jsonl", "killed/worker"])
    c.watch_pids(r, "worker.", "workers.stop")
    inside = c.wait_for(r, process, "inside.body")
    if not inside:
        process.kill()
    else:
        process.send_signal(signal.SIGKILL)
    c.finish(r, process)
    c.require(inside, "killed/worker never got inside its body (the runner %s; "
              "stderr %r)" % (how_it_ended(r.status), r.console_err[-600:]))
    named = sorted(n[len("worker."):-len(".pid")] for n in os.listdir(r.cwd)
                   if n.startswith("worker.") and n.endswith(".pid"))
    c.expect_eq(named, sorted(WORKERS + ("test",)), "processes that wrote a pid file")
    left = c.wait_until_dead(r, "worker.")
    c.expect(not left, "[SIGKILL] still running %.0f s after the runner was killed: "
             "%s" % (WAIT_S, ", ".join("%s (pid %d)" % item for item in left)))
    if c.read_stream(r, finished=False):
        c.expect("killed/worker" in r.started_order(),
                 "[SIGKILL] the stream does not name the running test")


HANGUPS = (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2,
           signal.SIGQUIT)


@CASES("hardening_hangup_signals_write_a_report")
def hangup_signals(c):
    """SIGHUP, SIGUSR1, SIGUSR2 and SIGQUIT stop the runner as SIGTERM does
    (SIGTERM is the reference): exit status 3, a complete report with
    run.interrupted true and every selected test, the running test failed
    with an error naming the signal, a stream that ends with run_finished,
    and the running test's process dead."""
    listing = subprocess.run([c.options.fixture, "--list", "--json", "hangup/*"],
                             capture_output=True, env=c.environment({}), timeout=60)
    selected = sorted(t["id"] for t in json.loads(listing.stdout))
    c.require(len(selected) == 3, "hangup/* lists %s" % selected)
    for number in HANGUPS:
        name = signal_name(number)
        r, process = c.start(name, ["-j1", "--json", "report.json", "--jsonl",
                                    "stream.jsonl", "hangup/*"])
        c.watch_pids(r, "sleeper", "sleeper.stop")
        inside = c.wait_for(r, process, "inside.body")
        if inside:
            process.send_signal(number)
        else:
            process.kill()
        c.finish(r, process)
        if not c.expect(inside, "[%s] hangup/sleeps never got inside its body "
                        "(the runner %s)" % (name, how_it_ended(r.status))):
            continue
        left = c.wait_until_dead(r, "sleeper")
        c.expect(not left, "[%s] the running test still runs after the runner "
                 "ended: %s" % (name, left))
        if not c.survived(r, 3):
            if number == signal.SIGTERM:
                c.problems.append("[SIGTERM] is the reference: the checks of "
                                  "this case may be wrong")
            continue
        c.expect_eq(r.report["run"]["interrupted"], True, "[%s] run.interrupted" % name)
        c.expect_eq(sorted(r.tests), selected, "[%s] tests in the report" % name)
        c.expect_eq(r.report["summary"]["total"], len(selected),
                    "[%s] summary.total" % name)
        c.expect_eq(r.tests.get("hangup/quick", {}).get("state"), "passed",
                    "[%s] hangup/quick state" % name)
        sleeps = r.tests.get("hangup/sleeps", {})
        errors = [f["message"] for f in sleeps.get("failures", []) if f["kind"] == "error"]
        c.expect(sleeps.get("state") == "failed" and any(name in m for m in errors),
                 "[%s] hangup/sleeps must be failed with an error naming %s: %s %s"
                 % (name, name, sleeps.get("state"), errors))
        c.expect_eq(r.stream_events[-1].get("interrupted"), True,
                    "[%s] run_finished.interrupted" % name)


# ---------------------------------------- 9. what shared memory a test holds

REACH_TESTS = ("first", "second", "third", "traced")


@CASES("hardening_test_holds_only_its_own_shared_memory")
def own_shared_memory(c):
    """At -j1, -j2 and -j3 a test process holds one writable shared
    mapping of the runner's, its own result slot, and a traced test one
    trace arena more: no other job's slot, no other test's arena, none of
    what the runner shares with its fork servers (their answers to spawn
    requests), whichever server forked it."""
    for jobs in (1, 2, 3):
        label = "-j%d" % jobs
        r = c.run(label, ["-j%d" % jobs, "--json", "report.json", "--jsonl",
                          "stream.jsonl", "reach/*"])
        if not c.survived(r, 0):
            continue
        for name in REACH_TESTS:
            text = r.text("reach.%s" % name)
            if not c.expect(text is not None, "[%s] reach/%s wrote no reach.%s"
                            % (label, name, name)):
                continue
            lines = dict(line.split(" ", 1) for line in text.split("\n"))
            c.expect_eq(lines.get("runner"), "1", "[%s] reach/%s: runner state "
                        "mappings (%s)" % (label, name, lines.get("sizes")))
            c.expect_eq(lines.get("arenas"), "1" if name == "traced" else "0",
                        "[%s] reach/%s: trace arenas (%s)"
                        % (label, name, lines.get("sizes")))


# ------------------------------- 10. a test kills the server it came from

@CASES("hardening_killed_server_stops_the_run_cleanly")
def killed_server(c):
    """At -j2 a test kills the server it was forked from while a test of
    the other job (a suite's, forked by its suite server) is inside its
    body: the run stops on an internal error (exit status 3) with a
    complete report, both tests failed with an error, the other test
    killed before it was reported and not left running, and no after_all
    run in the middle of the stop."""
    r, process = c.start("-j2", ["-j2", "--json", "report.json", "--jsonl",
                                 "stream.jsonl", "server_killed/*", "killer/*"])
    c.watch_pids(r, "bystander.", "bystander.stop")
    c.finish(r, process)
    c.require(r.exists("killer.kills"), "the killer never killed its server "
              "(the runner %s; stderr %r)" % (how_it_ended(r.status),
                                              r.console_err[-600:]))
    if c.survived(r, 3):
        c.error_starting(r, "server_killed/bystander",
                         "the run stopped on an internal error")
        c.error_starting(r, "killer/kills_its_server",
                         "the run stopped on an internal error")
        c.output_exact(r, "server_killed/bystander", "bystander inside\n")
    left = c.wait_until_dead(r, "bystander.")
    c.expect(not left, "the bystander still runs after the run: %s" % left)
    c.expect(not r.exists("after_all.ran"),
             "after_all ran while the run stopped on the server's death")


# ------------------------------ 11. a test stops the server it came from

@CASES("hardening_stopped_server_is_set_going")
def stopped_server(c):
    """A test that stops the server it was forked from (SIGSTOP to its
    parent) and passes is reported passed, and so is every test after it,
    at -j1 and -j2: the runner sends its servers SIGCONT whenever a wait
    on them passes unanswered (before, the run hung: a stopped server
    never reaps its test, and no timeout could end that)."""
    for jobs in ("-j1", "-j2"):
        r = c.run(jobs, [jobs, "--json", "report.json", "--jsonl",
                         "stream.jsonl", "stopper/*"])
        if not c.survived(r, 0):
            continue
        for name in ("first", "second", "control"):
            test = c.test(r, "stopper/%s" % name)
            if test is not None:
                c.expect_eq(test["state"], "passed",
                            "[%s] stopper/%s state" % (jobs, name))
        c.output_exact(r, "stopper/first", "first stopped its server\n")
        c.output_exact(r, "stopper/control", "control\n")


# ------------------- 12. a library whose debug file is a FIFO

@CASES("hardening_debug_file_that_is_a_fifo_cannot_hang_the_runner")
def debug_file_fifo(c):
    """A test loads a library of its own whose .gnu_debuglink names a
    FIFO, beside it and in its .debug directory, then times out or crashes
    (traced) inside it: the runner, looking for the debug file that gives
    the library's frames their file:line, takes no FIFO for it (before, it
    blocked in open() waiting for a writer, and not even SIGTERM ended the
    run), so the run ends, the test is failed for its timeout or crash
    with the library's function in its stacks (named from the library's
    symbol table, without file:line), and the tests around it are
    untouched. The same runs with the real debug file in the FIFO's place
    show that file found and used: the lookup is on the path. And a test
    that renames a FIFO over its library once it loaded it, and makes a
    FIFO of the name the maps then give the file ("PATH (deleted)"), ends
    as well."""
    debug_file = os.path.join(os.path.dirname(c.options.library),
                              "hostile_library.debug")
    reference = reference_run(c)
    for test, kind in (("debuglink/times_out_in_its_library", "timeout"),
                       ("debuglink/crashes_in_its_library", "crash")):
        for beside in ("fifo", "debug-file", "library-swapped"):
            label = "%s, %s" % (kind, beside)
            place = c.new_dir()
            library = os.path.join(place, "hostile_library_split.so")
            shutil.copyfile(c.options.library, library)
            os.mkdir(os.path.join(place, ".debug"))
            for name in ("hostile_library.debug",
                         ".debug/hostile_library.debug"):
                if beside == "fifo":
                    os.mkfifo(os.path.join(place, name))
            if beside == "debug-file":
                shutil.copyfile(debug_file,
                                os.path.join(place, "hostile_library.debug"))
            env = {"HOSTILE_LIBRARY": library,
                   "TATTLE_TIMEOUT_MULTIPLIER": str(MULTIPLIER)}
            if beside == "library-swapped":
                env["HOSTILE_LIBRARY_SWAP"] = os.path.join(place, "swap")
                os.mkfifo(env["HOSTILE_LIBRARY_SWAP"])
            r = hostile_run(c, reference, label, test, env)
            check_library_frame(c, r, label, test, kind, beside)


def first_failure_of_kind(c, r, label, test, kind):
    """The first failure of test `test` in run `r`, checked to be of
    `kind` (timeout, crash); None, the check broken, when it is not. Exits
    77 (skipped) when the stacks say ptrace is refused here."""
    failures = c.test(r, test)["failures"]
    if not c.expect(failures and failures[0]["kind"] == kind,
                    "[%s] %s: expected a %s, got %s"
                    % (label, test, kind, shorten(failures))):
        return None
    if "ptrace was refused" in failures[0]["message"]:
        print("skipped: ptrace is refused on this machine: %s"
              % failures[0]["message"])
        sys.exit(77)
    return failures[0]


def check_library_frame(c, r, label, test, kind, beside):
    """The test `test` of run `r` failed for its `kind` (timeout, crash)
    with the library's function in its stacks: without file:line when its
    debug file was a FIFO, with hostile_library.c's when it was real, and
    without file:line when the library itself was swapped for a FIFO (its
    image then comes from the process's memory, its symbols alone)."""
    c.expect(r.exists("debuglink.inside"),
             "[%s] %s never got to its library: %r"
             % (label, test, r.console[-600:]))
    if not r.ok:
        return
    failure = first_failure_of_kind(c, r, label, test, kind)
    if not failure:
        return
    # The stacks, taken while the process lived, reach the library, and so
    # do the crash's own frames, from the maps read while it waited (not
    # once the library's file is gone: the process is dead by then).
    function = "hostile_library_" + ("wait" if kind == "timeout" else "crash")
    if kind == "crash" and beside != "library-swapped":
        c.expect(any(f["function"] == function
                     for f in failure.get("stacktrace", [])),
                 "[%s] no frame of %s in the crash's stacktrace: %s"
                 % (label, function, shorten(failure.get("stacktrace"))))
    frames = [f for t in failure.get("stacks", []) for f in t["frames"]
              if f["function"] == function]
    if not c.expect(frames, "[%s] no frame of %s in the stacks: %s"
                    % (label, function, shorten(failure.get("stacks")))):
        return
    where = frames[0]["file"]
    if beside in ("fifo", "library-swapped"):
        c.expect(where is None, "[%s] %s has a file (%r) though no debug "
                 "file can be read" % (label, function, where))
    else:
        c.expect(where and where.endswith("hostile_library.c"),
                 "[%s] %s: file %r, not hostile_library.c from its debug "
                 "file" % (label, function, where))


# ------------- 13. a timeout with tens of thousands of mappings

def mapping_count():
    """As many mappings as the kernel lets a process have, less room for
    the fixture's own, at most 60,000 (vm.max_map_count is 65,530 by
    default)."""
    try:
        limit = int(driver.read("/proc/sys/vm/max_map_count").strip())
    except (OSError, ValueError):
        limit = 65530
    return max(min(60000, limit - 5000), 1000)


@CASES("hardening_timeout_with_many_mappings_ends_in_bounded_time")
def many_mappings(c):
    """A test that maps two small files alternately tens of thousands of
    times (each mapping a module of its own to libdw, which looks at every
    module already reported before it reports one) and times out: the
    runner reports only what an unwinding can land in, so taking its
    stacks stays within their budget (before, the report alone took 24 s
    at 60,000 mappings and the stacks were cut to their first frame), the
    run ends within a bound, the test is failed for its timeout with its
    frames from the test binary named with file:line, and the tests around
    it are untouched. With the mappings executable as well, at most a
    bounded number of them is reported, and a note says so."""
    count = mapping_count()
    if count < 10000:
        print("skipped: vm.max_map_count lets a process have too few "
              "mappings (%d) for the cap on the modules reported to matter"
              % count)
        sys.exit(77)
    # The timeout (2 s: making the mappings takes a few tenths of a second
    # of it), the halt (1 s at most) and the stacks' budget (1 s, 8 s in a
    # sanitized runner), the controls, and room for a loaded machine.
    stacks_budget_s = 8 if os.environ.get("TATTLE_SANITIZED") else 1
    bound_s = (2 + 1 + stacks_budget_s + 4) * MULTIPLIER
    reference = reference_run(c)
    for label, executable in (("read-only", "0"), ("executable", "1")):
        env = {"HOSTILE_MAPPINGS": str(count), "HOSTILE_MAPPED_FILES": "2",
               "HOSTILE_MAPPED_EXEC": executable,
               "TATTLE_TIMEOUT_MULTIPLIER": str(MULTIPLIER)}
        started = time.monotonic()
        r = hostile_run(c, reference, label, "mappings/times_out_with_many",
                        env)
        took = time.monotonic() - started
        refused = r.text("mappings.refused")
        if refused:
            print("skipped: the test's mappings were refused here (%s)"
                  % refused)
            sys.exit(77)
        c.expect(took <= bound_s, "[%s] the run took %.1f s, more than %.1f "
                 "s, with %d mappings" % (label, took, bound_s, count))
        made = int(r.text("mappings.made") or 0)
        c.expect(made >= count // 2, "[%s] the test made %d of its %d "
                 "mappings" % (label, made, count))
        if not r.ok:
            continue
        check_many_mappings_stack(c, r, label, executable == "1")


def check_many_mappings_stack(c, r, label, executable):
    """The test of run `r` failed for its timeout with its own two frames
    (the wait and the test's body, with their file:line): no more than a
    note of the mappings left out, when they were executable."""
    failure = first_failure_of_kind(c, r, label,
                                    "mappings/times_out_with_many", "timeout")
    if not failure:
        return
    c.expect("ran out of time" not in failure["message"],
             "[%s] the stacks ran out of time: %r" % (label, failure["message"]))
    if not executable:
        c.expect("(stacks:" not in failure["message"],
                 "[%s] the stacks have a note though no module was left "
                 "out: %r" % (label, failure["message"]))
    else:
        c.expect("more executable mappings" in failure["message"],
                 "[%s] no note that modules were left out: %r"
                 % (label, failure["message"]))
    frames = [f for t in failure.get("stacks", []) for f in t["frames"]]
    names = [f["function"] for f in frames]
    c.expect(any(f["function"] == "wait_for_file" and f["file"]
                 and f["file"].endswith("fixture_hostile.c") for f in frames),
             "[%s] no frame of wait_for_file at fixture_hostile.c in the "
             "stacks: %s" % (label, names))
    body = [f for f in frames
            if f["function"] == "mappings/times_out_with_many"]
    c.expect(body and body[0]["line"] == marker_line("mappings"),
             "[%s] the test's body is not at its @mappings line in the "
             "stacks: %s" % (label, shorten(body)))


# The same attacks on the other way of killing a test's processes: without
# cgroups, the process groups and the subreaper sweep must catch them all.
def without_cgroups(check):
    """`check` with every run told to use no cgroup (TATTLE_NO_CGROUP=1 in
    the runs' environment: driver.clean_env drops it from the driver's)."""
    def run(c):
        c.runner_env["TATTLE_NO_CGROUP"] = "1"
        check(c)
    return run


CASES("hardening_escaped_processes_die_without_cgroups")(
    without_cgroups(escaped_processes))
CASES("hardening_escaped_processes_die_at_j2_without_cgroups")(
    without_cgroups(escaped_processes_at_j2))
CASES("hardening_runner_sigkill_kills_workers_without_cgroups")(
    without_cgroups(runner_sigkill))
CASES("hardening_neighbour_cannot_erase_failure_without_cgroups")(
    without_cgroups(neighbour))
CASES("hardening_pooled_arena_cannot_be_forged_without_cgroups")(
    without_cgroups(pooled_arena))


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--library", required=True,
                        help="hostile_library with its debug file split off")
    options = parser.parse_args()
    options.fixture = os.path.abspath(options.fixture)
    options.library = os.path.abspath(options.library)
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
