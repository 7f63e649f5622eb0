#!/usr/bin/env python3
"""Tests of the stacks taken at a timeout: runs stacks_fixture, whose tests
time out on purpose, and checks the `stacks` of the timeout failure in the
JSON report (validated against schemas/ by tests/tools/validate_json.py),
the console, JUnit and what `tattle merge` reads back, and that the
stacks, the mailbox snapshot and the trace of a test stopped at its
timeout show the same moment.

    test_stacks.py CASE --fixture PATH --tattle PATH \
        --stripped-fixture PATH --split-fixture PATH

The two copies of the fixture are the same program without its debug
information and with it split off into a file its .gnu_debuglink names.

The fixture's tests meet through barriers and pipes, never by sleeping;
each run happens in its own temporary working directory. Exits 0 when
every check of the case held, 1 otherwise, 77 when the case cannot run
here (ptrace refused).
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

FIXTURE_SOURCE = os.path.join(SOURCE_DIR, "tests", "stacks",
                              "fixture_stacks.c")


# What a thread waiting for a mutex shows at its top, by C library.
LOCK_WAITS = ("pthread_mutex_lock", "__lll_lock_wait", "futex")

CheckFailed = driver.CheckFailed


def marker_line(marker):
    with open(FIXTURE_SOURCE, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if "/* @%s */" % marker in line:
                return number
    raise CheckFailed("no marker @%s in %s" % (marker, FIXTURE_SOURCE))


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-stacks-")
        self.options = options

    def run(self, args, extra=(), env=None):
        """Runs the fixture. TATTLE_TIMEOUT_MULTIPLIER, as the sanitizer
        builds set it, scales the tests' timeouts and what taking their
        stacks may cost: both run many times slower there."""
        return self.run_for_report(
            [self.options.fixture, "--color=never"] + list(extra)
            + list(args), env=env)

    def timeout_failure(self, report, test_id):
        tests = {t["id"]: t for t in report["tests"]}
        self.require(test_id in tests, "%s not in the report" % test_id)
        failures = tests[test_id]["failures"]
        self.require(len(failures) >= 1 and failures[0]["kind"] == "timeout",
                     "%s: expected a timeout, got %r" % (test_id, failures))
        failure = failures[0]
        if "ptrace was refused" in failure["message"]:
            print("skipped: ptrace is refused on this machine: %s"
                  % failure["message"])
            sys.exit(77)
        self.require("stacks" in failure,
                     "%s: the timeout has no stacks: %r" % (test_id, failure))
        return failure


def thread_with(stacks, function):
    for thread in stacks:
        if any(f["function"] == function for f in thread["frames"]):
            return thread
    return None


CASES = driver.Cases()


@CASES("stacks_timeout_deadlock_shows_both_threads")
def deadlock(c):
    process, report, cwd = c.run(["deadlock/two_mutexes"],
                                 ["--junit", "report.xml"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = c.timeout_failure(report, "deadlock/two_mutexes")
    stacks = failure["stacks"]
    pids = {t["pid"] for t in stacks}
    c.expect_eq(len(pids), 1, "processes in the stacks")
    c.expect_eq(len(stacks), 3, "threads (the test's and its two)")
    for function, marker in (("lock_first_then_second", "first_waits"),
                             ("lock_second_then_first", "second_waits")):
        thread = thread_with(stacks, function)
        if not c.expect(thread is not None,
                        "no thread in %s: %r" % (function, stacks)):
            continue
        c.expect(thread["state"] in ("S", "D"),
                 "%s: state %r" % (function, thread["state"]))
        c.expect(thread["actor"], "%s: no actor" % function)
        frames = thread["frames"]
        index = [f["function"] for f in frames].index(function)
        frame = frames[index]
        c.expect(frame["file"] and frame["file"].endswith("fixture_stacks.c"),
                 "%s: file %r" % (function, frame["file"]))
        c.expect_eq(frame["line"], marker_line(marker), "%s: line" % function)
        above = " ".join(f["function"] or "" for f in frames[:index])
        c.expect(any(name in above for name in LOCK_WAITS),
                 "%s: not waiting in a lock call: %r" % (function, above))
    main = thread_with(stacks, "deadlock/two_mutexes")
    c.expect(main is not None and main["tid"] == main["pid"],
             "the test's own thread shows the test's body: %r" % stacks)
    console = process.stdout.decode("utf-8", "replace")
    for function in ("lock_first_then_second", "lock_second_then_first"):
        c.expect(function + " at " in console,
                 "console does not show %s:\n%s" % (function, console))
    junit = driver.read(os.path.join(cwd, "report.xml"))
    c.expect("lock_second_then_first at " in junit,
             "JUnit does not show the threads:\n%s" % junit[-3000:])
    # The tattle command reads the stacks back unchanged.
    merged = os.path.join(cwd, "merged.json")
    subprocess.run([c.options.tattle, "merge", "-o", merged,
                    os.path.join(cwd, "report.json")], check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(merged, encoding="utf-8") as f:
        again = json.load(f)
    c.expect_eq(again["tests"][0]["failures"][0].get("stacks"), stacks,
                "stacks after tattle merge")


@CASES("stacks_timeout_bounds_threads")
def many_threads(c):
    if os.environ.get("TATTLE_SANITIZED") == "thread":
        print("skipped: under the thread sanitizer 300 threads take longer "
              "to start than the test's 1000 ms timeout; the bounds are "
              "checked in the other builds")
        sys.exit(77)
    # The bound is checked only when the timeout came after all 300 threads
    # existed, which the test says in its output. On a loaded machine
    # starting them can take longer than the 1000 ms timeout: the run is
    # made again with the timeout doubled, until the test got there.
    test_id = "hostile/more_threads_than_shown"
    scale = driver.wait_scale()
    for attempt in range(5):
        multiplier = scale * 2 ** attempt
        process, report, _ = c.run(
            [test_id], env={"TATTLE_TIMEOUT_MULTIPLIER": "%g" % multiplier})
        failure = c.timeout_failure(report, test_id)
        test = next(t for t in report["tests"] if t["id"] == test_id)
        if "all 300 threads started" in test["output"]["stdout"]:
            break
        print("the timeout (x%g) came before all threads had started; "
              "again with it doubled" % multiplier)
    else:
        c.require(False, "300 threads never started before the timeout, "
                  "even at x%g" % multiplier)
    c.expect_eq(len(failure["stacks"]), 256, "threads shown")
    # Under a sanitizer on a loaded machine the time bound may come first;
    # either way the message says why some are missing.
    c.expect("more threads than are shown" in failure["message"] or
             "ran out of time" in failure["message"],
             "the message does not say threads were left out: %r"
             % failure["message"])
    c.expect(thread_with(failure["stacks"], "wait_forever") is not None,
             "no thread in wait_forever")
    for thread in failure["stacks"]:
        c.expect(len(thread["frames"]) <= 64, "more than 64 frames")


@CASES("stacks_timeout_covers_child_processes")
def child_process(c):
    process, report, _ = c.run(["hostile/child_process"])
    failure = c.timeout_failure(report, "hostile/child_process")
    pids = {t["pid"] for t in failure["stacks"]}
    c.expect_eq(len(pids), 2, "processes in the stacks")
    child = thread_with(failure["stacks"], "child_waits")
    if child is None and "ran out of time" in failure["message"]:
        # Sanitized runtimes are slow to unwind: the bound held, and said so.
        print("skipped: the time bound was reached before the child was "
              "unwound (%s)" % failure["message"])
        sys.exit(77)
    c.expect(child is not None and child["pid"] != min(pids),
             "the child's thread is not shown in child_waits: %r"
             % failure["stacks"])


@CASES("stacks_timeout_survives_garbage_stack")
def garbage_stack(c):
    if os.uname().machine != "x86_64":
        print("skipped: the garbage stack test is x86-64 only")
        sys.exit(77)
    process, report, _ = c.run(["hostile/garbage_stack", "deadlock/*"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = c.timeout_failure(report, "hostile/garbage_stack")
    c.expect_eq(len(failure["stacks"]), 2, "threads")
    c.expect(thread_with(failure["stacks"], "wait_forever") is not None,
             "the test's own thread lost its stack")
    # The run goes on: the next test's stacks are whole.
    later = c.timeout_failure(report, "deadlock/two_mutexes")
    c.expect(thread_with(later["stacks"], "lock_first_then_second"),
             "the test after the garbage stack has no stacks")


@CASES("stacks_timeout_reaps_threads_that_end_while_taken")
def threads_come_and_go(c):
    # Under a sanitizer the test's thread is often inside the runtime's
    # pthread_create, and threads just started wait in the runtime: they
    # are the test's, and shown.
    # --repeat stops at the first failure: each run is a run of its own.
    for _ in range(3):
        process, report, _ = c.run(["hostile/threads_come_and_go"])
        c.expect_eq(process.returncode, 1, "exit status")
        failure = c.timeout_failure(report, "hostile/threads_come_and_go")
        stacks = failure["stacks"]
        leaders = [t for t in stacks if t["tid"] == t["pid"]]
        c.expect(len(leaders) == 1, "the test's own thread is not shown: %r"
                 % stacks)
        # Every process of the test is gone: none was left traced.
        for pid in {t["pid"] for t in stacks}:
            c.expect(not os.path.exists("/proc/%d" % pid),
                     "process %d of the test outlived the run" % pid)


@CASES("stacks_timeout_shows_test_thread_inside_sanitizer_runtime")
def inside_sanitizer_runtime(c):
    if os.environ.get("TATTLE_SANITIZED") != "address":
        print("skipped: only the address sanitizer's build has the fixture "
              "whose thread is busy inside the sanitizer's runtime")
        sys.exit(77)
    process, report, _ = c.run(["hostile/inside_the_sanitizer_runtime"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = c.timeout_failure(report, "hostile/inside_the_sanitizer_runtime")
    stacks = failure["stacks"]
    c.expect_eq(len(stacks), 1, "threads shown")
    c.expect(thread_with(stacks, "ask_the_runtime_forever") is not None,
             "the test's thread lost its stack: %r" % stacks)


def step_numbers(texts):
    numbers = []
    for text in texts:
        match = re.fullmatch(r"step (\d+)", text or "")
        if match:
            numbers.append(int(match.group(1)))
    return numbers


@CASES("stacks_timeout_agrees_with_trace_and_snapshot")
def agrees_with_trace(c):
    """The test is stopped when its timeout is seen, before anything of it
    is read: its stacks, its mailbox snapshot and its trace show the same
    moment, however long the runner takes before the kill. The runner's
    test hook TATTLE_TEST_DELAY_BEFORE_KILL_MS holds it 300 ms between
    reading the test and killing it: a test left running in that time
    would make hundreds of steps no trace shows. Both ways of stopping are
    run: the cgroup freeze where the machine has cgroups, SIGSTOP of the
    process tree without."""
    for way, env in (("cgroup", {}), ("SIGSTOP", {"TATTLE_NO_CGROUP": "1"})):
        env["TATTLE_TEST_DELAY_BEFORE_KILL_MS"] = "300"
        process, report, cwd = c.run(["race/records_until_stopped"], env=env)
        c.expect_eq(process.returncode, 1, "%s: exit status" % way)
        failure = c.timeout_failure(report, "race/records_until_stopped")
        stepper = thread_with(failure["stacks"], "record_until_stopped")
        if not c.expect(stepper is not None and stepper["tid"] ==
                        stepper["pid"], "%s: the test's thread is not in "
                        "record_until_stopped: %r" % (way, failure["stacks"])):
            continue
        # The state is where the thread was, not the stop the runner put
        # it in to read it.
        c.expect(stepper["state"] in ("R", "S", "D"),
                 "%s: state %r" % (way, stepper["state"]))
        with open(os.path.join(cwd, "race_progress.bin"), "rb") as f:
            progress = struct.unpack("<i", f.read(4))[0]
        test = report["tests"][0]
        trace = test.get("trace")
        if not c.expect(trace is not None, "%s: no trace" % way):
            continue
        sent = step_numbers(e.get("msg") for e in trace["events"]
                            if e["kind"] == "send")
        # A test slow to start (a sanitizer's runtime) may be stopped
        # inside its first send: then no step is in the trace yet.
        last_sent = max(sent, default=0)
        print("%s: the test was stopped at step %d; its trace ends at step "
              "%d" % (way, progress, last_sent))
        # Each step is written to the file before it is sent: stopped
        # between the two, the file is one step ahead of the trace.
        c.expect(progress - last_sent in (0, 1),
                 "%s: the test reached step %d but its trace ends at step "
                 "%d: it ran on after it was read" % (way, progress,
                                                      last_sent))
        boxes = [m for m in trace["mailboxes"] if m["name"] == "steps"]
        if not c.expect(len(boxes) == 1, "%s: mailboxes %r"
                        % (way, trace["mailboxes"])):
            continue
        # The newest four steps stay pending, and the one being sent when
        # the test was stopped may be in the mailbox already.
        pending = step_numbers(boxes[0]["messages"])
        c.expect(all(progress - 5 <= p <= progress for p in pending) and
                 (pending or last_sent == 0),
                 "%s: the test reached step %d but its mailbox snapshot "
                 "holds steps %r" % (way, progress, pending))


def crash_failure(c, report, test_id, signal="SIGSEGV"):
    tests = {t["id"]: t for t in report["tests"]}
    c.require(test_id in tests, "%s not in the report" % test_id)
    failures = tests[test_id]["failures"]
    c.require(len(failures) >= 1 and failures[0]["kind"] == "crash",
              "%s: expected a crash, got %r" % (test_id, failures))
    c.expect_eq(failures[0]["signal"], signal, "signal")
    return failures[0]


@CASES("stacks_crash_of_traced_test_shows_every_thread")
def crash_traced(c):
    process, report, cwd = c.run(["crash/traced_with_a_waiting_thread"],
                                 ["--junit", "report.xml"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = crash_failure(c, report, "crash/traced_with_a_waiting_thread")
    if "ptrace was refused" in failure["message"]:
        print("skipped: ptrace is refused on this machine: %s"
              % failure["message"])
        sys.exit(77)
    c.require("stacks" in failure,
              "the crash has no stacks of its threads: %r" % failure)
    stacks = failure["stacks"]
    c.expect_eq(len(stacks), 2, "threads (the crashing one and the worker)")
    crashed = stacks[0]
    c.expect(crashed["tid"] == crashed["pid"],
             "the crashing thread (the test's own) is not first: %r" % stacks)
    names = [f["function"] for f in crashed["frames"]]
    c.expect(names[:1] == ["write_to_inaccessible"],
             "the crashing thread does not start where it crashed: %r"
             % names)
    if crashed["frames"]:
        c.expect_eq(crashed["frames"][0]["line"], marker_line("crashes"),
                    "the crashing thread's top line")
    c.expect(not any(n and "crash_handler" in n for n in names),
             "the crash handler's frames are shown: %r" % names)
    c.expect("crash/traced_with_a_waiting_thread" in names,
             "the crashing thread does not show the test's body: %r" % names)
    worker = thread_with(stacks, "worker_waits_for_the_crash")
    c.require(worker is not None,
              "no thread in worker_waits_for_the_crash: %r" % stacks)
    c.expect(worker["tid"] != worker["pid"], "the worker is not a thread")
    frame = [f for f in worker["frames"]
             if f["function"] == "worker_waits_for_the_crash"][0]
    c.expect(frame["file"] and frame["file"].endswith("fixture_stacks.c"),
             "worker: file %r" % frame["file"])
    c.expect(marker_line("worker_begins") <= (frame["line"] or 0)
             <= marker_line("worker_ends"),
             "worker: line %r outside worker_waits_for_the_crash"
             % frame["line"])
    console = process.stdout.decode("utf-8", "replace")
    c.expect("worker_waits_for_the_crash at " in console,
             "console does not show the worker's stack:\n%s" % console)
    junit = driver.read(os.path.join(cwd, "report.xml"))
    c.expect("worker_waits_for_the_crash at " in junit,
             "JUnit does not show the threads:\n%s" % junit[-3000:])
    # The crash is still the crash: its own stacktrace and location.
    c.expect_eq(failure["line"], marker_line("crashes"), "crash line")
    # Every process of the test is gone: none was left traced.
    for pid in {t["pid"] for t in stacks}:
        c.expect(not os.path.exists("/proc/%d" % pid),
                 "process %d of the test outlived the run" % pid)


@CASES("stacks_crash_of_untraced_test_keeps_its_own_stack")
def crash_untraced(c):
    process, report, _ = c.run(["crash/untraced_with_a_waiting_thread"])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = crash_failure(c, report,
                            "crash/untraced_with_a_waiting_thread")
    c.expect("stacks" not in failure,
             "an untraced crash took every thread's stack: %r" % failure)
    c.expect(any(f["function"] == "write_to_inaccessible"
                 for f in failure.get("stacktrace", [])),
             "the crash lost its own stacktrace: %r" % failure)


@CASES("stacks_crash_through_a_library_the_test_loaded_is_named")
def crash_through_a_loaded_library(c):
    # The test loads a library with dlopen() and crashes in a callback the
    # library called: the frames run from the test binary into the library
    # and back. Only the crashed process's maps say where the library was
    # (the runner never loaded it, so its own image has nothing or another
    # module there): the library's frame has its function, file and line,
    # and the test binary's frames on both sides of it theirs, untraced
    # and traced.
    library_source = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "crash_library.c")
    with open(library_source, encoding="utf-8") as f:
        calls_back = next(n for n, line in enumerate(f, 1)
                          if "/* @calls_back */" in line)
    env = {"STACKS_CRASH_LIBRARY": c.options.crash_library}
    for test in ("dlopened/untraced_crash", "dlopened/traced_crash"):
        process, report, _ = c.run([test], env=env)
        c.expect_eq(process.returncode, 1, "%s: exit status" % test)
        failure = crash_failure(c, report, test)
        frames = failure.get("stacktrace", [])
        names = [f["function"] for f in frames]
        c.expect_eq(names[:5], ["write_to_inaccessible", "crash_in_a_callback",
                                "crash_library_call",
                                "crash_through_the_library", test],
                    "%s: the crash's frames" % test)
        library = [f for f in frames if f["function"] == "crash_library_call"]
        if c.expect(library, "%s: no frame of the library" % test):
            c.expect((library[0]["file"] or "").endswith("crash_library.c"),
                     "%s: the library's frame: %r" % (test, library[0]))
            c.expect_eq(library[0]["line"], calls_back,
                        "%s: the library's frame's line" % test)
        c.expect_eq(failure["line"], marker_line("crashes"),
                    "%s: crash line" % test)


def crash_of_a_copy(c, program, pattern):
    """Runs a copy of the fixture (`program`) on `pattern` at -j1, for
    after_a_crash/crashes; returns the report and the crash's frame of
    write_to_inaccessible (required: the crash was symbolized)."""
    process, report, _ = c.run_for_report(
        [program, "--color=never", "-j1", pattern])
    c.expect_eq(process.returncode, 1, "exit status")
    failure = crash_failure(c, report, "after_a_crash/crashes")
    frames = [f for f in failure.get("stacktrace", [])
              if f.get("function") == "write_to_inaccessible"]
    c.require(frames, "the crash was not symbolized: %r" % failure)
    return report, frames[0]


@CASES("stacks_crash_maps_no_library_into_the_runner")
def crash_maps_no_library(c):
    # A copy of the fixture stripped of its debug information: the crash's
    # frames are named from its symbol table, and the test after the crash
    # finds no library in the runner that the runner did not start with.
    # libdw's standard lookup of a debug file for such a module ended in
    # its debuginfod client, which mapped libcurl and its TLS libraries
    # into the runner, and every later fork paid for them.
    report, frame = crash_of_a_copy(c, c.options.stripped_fixture,
                                    "after_a_crash/*")
    # No file:line: the copy really has no debug information to give.
    c.expect(not frame.get("line"),
             "the stripped copy still has its debug information: %r" % frame)
    ids = [t["id"] for t in report["tests"]]
    c.expect_eq(ids, ["after_a_crash/crashes",
                      "after_a_crash/runner_mapped_no_new_library"],
                "the tests, in the order they ran")
    tests = {t["id"]: t for t in report["tests"]}
    checked = tests.get("after_a_crash/runner_mapped_no_new_library", {})
    c.expect_eq(checked.get("state"), "passed",
                "the check after the crash: %r" % checked.get("failures"))


@CASES("stacks_crash_finds_a_debug_file_by_its_debuglink")
def crash_debuglink(c):
    # The program's debug information lives in the file its .gnu_debuglink
    # names, beside it: the crash still has its file:line from there.
    _, frame = crash_of_a_copy(c, c.options.split_fixture,
                               "after_a_crash/crashes")
    c.expect((frame.get("file") or "").endswith("fixture_stacks.c")
             and (frame.get("line") or 0) > 0,
             "the split-off debug file gave no file:line: %r" % frame)


@CASES("stacks_crash_inside_the_crash_handler_names_the_death")
def crash_in_handler(c):
    if os.environ.get("TATTLE_SANITIZED") == "thread":
        print("skipped: the thread sanitizer's runtime takes a fault inside "
              "a signal handler itself and ends the process with it, "
              "before tattle's handler sees it; checked in the other builds")
        sys.exit(77)
    test_id = "crash/faults_again_in_its_handler"
    process, report, _ = c.run([test_id])
    c.expect_eq(process.returncode, 1, "exit status")
    # The SIGSEGV inside the handler of the SIGBUS does not become the
    # death: the process dies of the crash its slot records, so the
    # report keeps that crash's own stacktrace and place.
    failure = crash_failure(c, report, test_id, "SIGBUS")
    c.expect("SIGBUS" in failure["message"], "message: %r" % failure["message"])
    c.expect(any(f["function"] == "bus_error_with_the_arena_hidden"
                 for f in failure.get("stacktrace", [])),
             "the crash lost its own stacktrace: %r" % failure)
    c.expect_eq(failure.get("line"), marker_line("bus_error"), "crash line")


@CASES("stacks_crash_after_a_vfork_child_crashed_names_the_test")
def crash_after_vfork_child(c):
    for test_id in ("crash/vfork_child_then_traced_test",
                    "crash/vfork_child_then_untraced_test"):
        process, report, _ = c.run([test_id])
        c.expect_eq(process.returncode, 1, "%s: exit status" % test_id)
        failure = crash_failure(c, report, test_id)
        names = [f["function"] for f in failure.get("stacktrace", [])]
        c.expect(names[:1] == ["write_to_inaccessible"],
                 "%s: the crash is not the test's own: %r" % (test_id, names))
        c.expect("vfork_child_writes_to_inaccessible" not in names,
                 "%s: the child's frames are the test's: %r"
                 % (test_id, names))
        c.expect_eq(failure.get("line"), marker_line("crashes"),
                    "%s: crash line" % test_id)
        stacks = failure.get("stacks", [])
        c.expect(all("vfork_child_writes_to_inaccessible" not in
                     [f["function"] for f in s["frames"]] for s in stacks),
                 "%s: a stack shows the dead child: %r" % (test_id, stacks))
        c.expect(all(s["pid"] == failure.get("stacks")[0]["pid"]
                     for s in stacks),
                 "%s: stacks of another process: %r" % (test_id, stacks))


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--tattle", required=True)
    parser.add_argument("--stripped-fixture", required=True)
    parser.add_argument("--split-fixture", required=True)
    parser.add_argument("--crash-library", required=True)
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())

