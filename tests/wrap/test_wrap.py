#!/usr/bin/env python3
"""Tests of `tattle run [options] -- COMMAND [ARGS...]`: programs written
without tattle (true, false, a shell, wrapped_program) run as one tattle
test, and what the reports say of them: the state and failure (exit
status, signal, timeout with every thread's stack), the captured output,
the rerun command, the usage errors. Every JSON report and stream is
validated against schemas/ (tests/tools/validate_json.py), the JUnit XML
with xmllint against schemas/junit.xsd; the CTRF, TAP and HTML reports
are checked to say the same result (their consumers are tested in
tests/ci_reports and tests/html).

    test_wrap.py CASE --tattle PATH --program PATH

Each run happens in a directory of its own; waits are handshakes (a file
the wrapped program writes once its threads and child wait) and bounds
scaled by TATTLE_TIMEOUT_MULTIPLIER. Exits 0 when every check of the
case held, 1 otherwise, 77 when the case cannot run here (ptrace
refused for the stacks).
"""
import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402

JUNIT_SCHEMA = os.path.join(SOURCE_DIR, "schemas", "junit.xsd")
REPORT_FLAGS = ["--json", "report.json", "--jsonl", "stream.jsonl",
                "--junit", "report.xml", "--tap", "report.tap",
                "--ctrf", "report.ctrf.json", "--html", "report.html"]

CheckFailed = driver.CheckFailed


class Run:
    def __init__(self, process, cwd):
        self.process = process
        self.cwd = cwd
        self.stdout = process.stdout.decode("utf-8", "replace")
        self.stderr = process.stderr.decode("utf-8", "replace")
        self.report = None
        self.test = None
        self.tests = {}

    def path(self, name):
        return os.path.join(self.cwd, name)


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-wrap-")
        self.options = options
        self.env = driver.clean_env()

    def tattle_run(self, command, options=(), reports=True, cwd=None,
                   pass_fds=(), tests=1, preexec_fn=None):
        """tattle run [options, every report flag] -- command, in a new
        directory; the JSON report read, validated, and its tests (as
        many as `tests`) kept, the first as run.test."""
        cwd = cwd or self.new_dir()
        argv = [self.options.tattle, "run", "--color=never"] + list(options)
        if reports:
            argv += REPORT_FLAGS
        argv += ["--"] + list(command)
        process = subprocess.run(argv, cwd=cwd, env=self.env,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, pass_fds=pass_fds,
                                 preexec_fn=preexec_fn,
                                 timeout=60 * driver.wait_scale())
        run = Run(process, cwd)
        if reports:
            self.check_reports(run, tests)
        return run

    def check_reports(self, run, count):
        path = run.path("report.json")
        self.require(os.path.exists(path), "no report.json (exit %d): %s"
                     % (run.process.returncode, run.stderr[-2000:]))
        with open(path, encoding="utf-8") as f:
            run.report = json.load(f)
        for p in validate_json.check_report(run.report, complete=True):
            self.problems.append("report does not validate: %s" % p)
        stream = driver.read(run.path("stream.jsonl"))
        for p in validate_json.check_stream(stream):
            self.problems.append("stream does not validate: %s" % p)
        tests = run.report["tests"]
        self.require(len(tests) == count, "%d tests expected: %r"
                     % (count, [t["id"] for t in tests]))
        run.test = tests[0]
        run.tests = {t["id"]: t for t in tests}
        finished = [json.loads(line)["test"]["id"] for line in
                    stream.splitlines() if '"test_finished"' in line]
        self.expect_eq(finished, [t["id"] for t in tests],
                       "the stream's finished tests")
        if shutil.which("xmllint"):
            done = subprocess.run(["xmllint", "--noout", "--schema",
                                   JUNIT_SCHEMA, run.path("report.xml")],
                                  capture_output=True, text=True)
            self.expect(done.returncode == 0, "xmllint: %s"
                        % done.stderr[-2000:])
        junit = driver.read(run.path("report.xml"))
        self.expect_eq(junit.count("<testcase "), count, "JUnit testcases")
        with open(run.path("report.ctrf.json"), encoding="utf-8") as f:
            ctrf = json.load(f)
        ctrf_tests = ctrf["results"]["tests"]
        self.expect(ctrf["reportFormat"] == "CTRF" and
                    [t["status"] for t in ctrf_tests] ==
                    [t["state"] for t in tests],
                    "CTRF does not say %r: %r"
                    % ([t["state"] for t in tests], ctrf))
        tap = driver.read(run.path("report.tap"))
        self.expect(tap.split("\n")[:2] == ["TAP version 14", "1..%d" % count],
                    "TAP does not start with its version and the plan "
                    "1..%d:\n%s" % (count, tap))
        for number, test in enumerate(tests, 1):
            ok = "ok %d - " % number if test["state"] != "failed" \
                else "not ok %d - " % number
            self.expect(ok + test["id"] in tap, "TAP does not say %r:\n%s"
                        % (ok + test["id"], tap))
        html = driver.read(run.path("report.html"))
        for test in tests:
            self.expect(test["id"] in html,
                        "the HTML report lacks %s" % test["id"])

    def failure(self, run, kind):
        failures = run.test["failures"]
        self.require(len(failures) == 1 and failures[0]["kind"] == kind,
                     "one %s failure expected: %r" % (kind, failures))
        return failures[0]


CASES = driver.Cases()


@CASES("wrap_true_passes")
def wraps_true(c):
    run = c.tattle_run(["true"], ["--report-dir", "streams"])
    c.expect_eq(run.process.returncode, 0, "exit status")
    streams = os.listdir(run.path("streams"))
    c.expect_eq(len(streams), 1, "streams in --report-dir")
    for name in streams:
        text = driver.read(os.path.join(run.path("streams"), name))
        for p in validate_json.check_stream(text):
            c.problems.append("%s does not validate: %s" % (name, p))
        c.expect('"id":"run/true"' in text.replace(" ", ""),
                 "%s does not hold run/true" % name)
    c.expect_eq(run.test["id"], "run/true", "id")
    c.expect_eq((run.test["suite"], run.test["name"]), ("run", "true"),
                "suite and name")
    c.expect_eq(run.test["state"], "passed", "state")
    c.expect_eq(run.test["failures"], [], "failures")
    c.expect_eq(run.report["summary"]["passed"], 1, "passed")
    argv = run.report["run"]["argv"]
    c.expect(argv[-2:] == ["--", "true"] and argv[1] == "run",
             "run.argv is the whole command line: %r" % argv)
    rerun = run.test["rerun"]
    words = rerun.split(" ")
    c.expect(words[1:4] == ["run", "--name=run/true", "--"] and
             words[0].startswith("/") and words[4].startswith("/") and
             words[4].endswith("/true") and len(words) == 5,
             "rerun: tattle and true as absolute paths: %r" % rerun)
    # The rerun command runs the command again, alone.
    again = subprocess.run(rerun, shell=True, cwd=run.cwd, env=c.env,
                           capture_output=True, text=True, timeout=60)
    c.expect_eq(again.returncode, 0, "exit status of the rerun")
    c.expect("run/true" in again.stdout + again.stderr,
             "the rerun does not name run/true: %r" % again.stdout)


@CASES("wrap_started_with_sigchld_ignored_still_ends")
def wraps_with_sigchld_ignored(c):
    # Ignored SIGCHLD is inherited: the kernel would reap the test unseen.
    try:
        run = c.tattle_run(["true"], preexec_fn=lambda: signal.signal(
            signal.SIGCHLD, signal.SIG_IGN))
    except subprocess.TimeoutExpired:
        c.require(False, "tattle run started with SIGCHLD ignored hung")
    c.expect_eq(run.process.returncode, 0, "exit status")
    c.expect_eq(run.test["state"], "passed", "state")


@CASES("wrap_will_fail_with_retry_or_repeat_is_a_usage_error")
def will_fail_with_attempts(c):
    for flags in (["--retry=2"], ["--repeat", "3"]):
        cwd = c.new_dir()
        done = subprocess.run(
            [c.options.tattle, "run", "--will-fail", "--json", "r.json"] +
            flags + ["--", "false"], cwd=cwd, env=c.env,
            capture_output=True, text=True,
            timeout=60 * driver.wait_scale())
        c.expect_eq((done.returncode, done.stderr.count("\n"),
                     "--will-fail" in done.stderr),
                    (2, 1, True), "%s: exit status, one line naming "
                    "--will-fail (%r)" % (flags, done.stderr))
        c.expect(not os.path.exists(os.path.join(cwd, "r.json")),
                 "%s: a report was written" % flags)


@CASES("wrap_false_fails_with_its_exit_status")
def wraps_false(c):
    run = c.tattle_run(["false"], ["--name", "legacy/always_false"])
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(run.test["id"], "legacy/always_false", "id from --name")
    c.expect_eq(run.test["state"], "failed", "state")
    failure = c.failure(run, "exit")
    c.expect_eq(failure["exit_code"], 1, "exit_code")
    c.expect_eq(failure["message"], "the command exited with status 1",
                "message")
    junit = driver.read(run.path("report.xml"))
    c.expect('type="exit"' in junit, "JUnit has no exit error:\n" + junit)
    c.expect("the command exited with status 1" in run.stdout,
             "the console does not say the status:\n" + run.stdout)
    # Any status, and the arguments reach the command unchanged.
    run = c.tattle_run(["sh", "-c", "echo \"$1\"; exit 3", "sh", "a b"])
    c.expect_eq(c.failure(run, "exit")["exit_code"], 3, "exit_code of sh")
    c.expect_eq(run.test["output"]["stdout"], "a b\n", "stdout of sh")
    c.expect_eq(run.test["id"], "run/sh", "id of sh")


@CASES("wrap_segfault_is_a_crash")
def wraps_segfault(c):
    run = c.tattle_run([c.options.program, "segv"])
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(run.test["id"], "run/wrapped_program", "id")
    failure = c.failure(run, "crash")
    c.expect_eq(failure["signal"], "SIGSEGV", "signal")
    c.expect("SIGSEGV" in failure["message"], "message: %r"
             % failure["message"])
    junit = driver.read(run.path("report.xml"))
    c.expect('type="SIGSEGV"' in junit, "JUnit has no SIGSEGV error")


def process_gone(pid):
    """Whether no process has `pid` (a zombie counts as gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@CASES("wrap_hang_times_out_with_stacks_and_tree_killed")
def wraps_hang(c):
    # Long enough for the program to start its thread and child on a
    # loaded machine: the stacks are taken only when the timeout comes.
    timeout_ms = int(3000 * driver.wait_scale())
    cwd = c.new_dir()
    pid_file = os.path.join(cwd, "pids")
    run = c.tattle_run([c.options.program, "hang", pid_file],
                       ["--timeout", str(timeout_ms)], cwd=cwd)
    c.expect_eq(run.process.returncode, 1, "exit status")
    failure = c.failure(run, "timeout")
    c.expect_eq(failure["timeout_ms"], timeout_ms, "timeout_ms")
    if "ptrace was refused" in failure["message"]:
        print("skipped: ptrace is refused here: %s" % failure["message"])
        sys.exit(77)
    c.require(os.path.exists(pid_file),
              "the program never got its thread and child waiting: %r"
              % failure["message"])
    pid, child = (int(word) for word in driver.read(pid_file).split())
    stacks = failure.get("stacks", [])

    def functions(thread):
        return [f["function"] for f in thread["frames"]]

    for function, process in (("wait_in_main_thread", pid),
                              ("wait_in_second_thread", pid),
                              ("wait_in_child_process", child)):
        threads = [t for t in stacks if function in functions(t)]
        c.expect(len(threads) == 1 and threads[0]["pid"] == process,
                 "%s: not one thread of %d: %r" % (function, process, stacks))
    # The runner killed the whole tree before it reported: the child the
    # program forked is gone (reaped by now, or a zombie at most).
    for p in (pid, child):
        c.expect(process_gone(p), "process %d survived the timeout" % p)


@CASES("wrap_output_is_captured_head_and_tail")
def wraps_loud(c):
    lines = 200000
    run = c.tattle_run([c.options.program, "loud", str(lines)])
    c.expect_eq(run.test["state"], "passed", "state")
    output = run.test["output"]
    total = sum(len("line %d of the loud program\n" % i)
                for i in range(lines))
    c.expect_eq(output["stdout_bytes"], total, "stdout_bytes")
    c.expect(output["truncated"], "output not marked truncated")
    c.expect(len(output["stdout"]) < total // 4,
             "stdout kept whole: %d bytes" % len(output["stdout"]))
    c.expect(output["stdout"].startswith("line 0 of the loud program\n"),
             "the head is missing: %r" % output["stdout"][:100])
    c.expect(output["stdout"].endswith(
        "line %d of the loud program\n" % (lines - 1)),
        "the tail is missing: %r" % output["stdout"][-100:])
    c.expect_eq(output["stderr"], "the loud program is done\n", "stderr")


@CASES("wrap_command_inherits_no_runner_descriptor")
def wraps_inherited(c):
    # What the caller hands down reaches the command, as it would run
    # alone; nothing the runner opened does.
    handed_down = os.open(os.devnull, os.O_RDONLY)
    try:
        run = c.tattle_run([c.options.program, "inherited"],
                           pass_fds=(handed_down,))
    finally:
        os.close(handed_down)
    c.expect_eq(run.test["state"], "passed", "state")
    stdout = run.test["output"]["stdout"]
    c.expect("fds: %d\n" % handed_down in stdout,
             "the command inherited other descriptors than %d: %r"
             % (handed_down, stdout))
    c.expect("SigIgn:\t0000000000000000" in stdout,
             "the command inherited ignored signals: %r" % stdout)
    c.expect("SigBlk:\t0000000000000000" in stdout,
             "the command inherited blocked signals: %r" % stdout)


@CASES("wrap_exec_failure_is_an_error_result")
def wraps_unrunnable(c):
    cwd = c.new_dir()
    path = os.path.join(cwd, "not_a_program")
    driver.write(path, "\x01\x02 no interpreter, no ELF\n")
    os.chmod(path, 0o755)
    run = c.tattle_run([path], cwd=cwd)
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(run.test["state"], "failed", "state")
    failure = c.failure(run, "error")
    c.expect(failure["message"].startswith("cannot run " + path + ": "),
             "message: %r" % failure["message"])


@CASES("wrap_skip_exit_code_skips_the_command")
def wraps_skipping_program(c):
    run = c.tattle_run(["sh", "-c", "exit 77"], ["--skip-exit-code", "77"])
    c.expect_eq(run.process.returncode, 0, "exit status")
    c.expect_eq((run.test["state"], run.test.get("skip_reason"),
                 run.test.get("failures")),
                ("skipped", "the command exited with 77, its skip status", []),
                "the skipped command")
    run = c.tattle_run(["sh", "-c", "exit 3"], ["--skip-exit-code", "77"])
    c.expect_eq(run.process.returncode, 1, "exit status of another status")
    c.expect_eq(c.failure(run, "exit").get("exit_code"), 3, "exit_code")


@CASES("wrap_usage_errors_exit_2")
def usage_errors(c):
    cwd = c.new_dir()
    old = os.path.join(cwd, "report.json")
    driver.write(old, "an older report\n")
    for argv, said in (
            (["--json", "report.json", "--", "no-such-command-for-tattle"],
             "command not found: no-such-command-for-tattle"),
            (["--json", "report.json", "--", "./no-such-file"],
             "command not found: ./no-such-file"),
            (["--json", "report.json", "true"], "no command"),
            (["--json", "report.json", "--"], "no command after --"),
            (["--name", "nosuite", "--", "true"], "--name: 'nosuite'"),
            (["--timeout", "500", "true", "--", "true"],
             "'true' is not an option"),
            (["--no-fork", "--", "true"], "--no-fork"),
            (["--tags", "fast odd/tag", "--", "true"],
             "--tags: 'odd/tag' is not a tag"),
            (["--json", "report.json", "--tags"], "--tags needs a value"),
            (["--skip-exit-code", "256", "--", "true"],
             "--skip-exit-code: '256' is not a status"),
            (["--timeout", "soon", "--", "true"], "timeout")):
        done = subprocess.run([c.options.tattle, "run"] + argv, cwd=cwd,
                              env=c.env, capture_output=True, text=True,
                              timeout=60)
        c.expect_eq(done.returncode, 2, "exit status of %r" % argv)
        lines = done.stderr.splitlines()
        c.expect(len(lines) == 1 and said in lines[0]
                 and lines[0].startswith("tattle run: "),
                 "%r: stderr is not one line saying %r: %r"
                 % (argv, said, done.stderr))
        c.expect_eq(done.stdout, "", "stdout of %r" % argv)
    c.expect_eq(driver.read(old), "an older report\n",
                "the old report was overwritten")
    done = subprocess.run([c.options.tattle, "run", "--help"],
                          capture_output=True, text=True, timeout=60)
    c.expect(done.returncode == 0 and "-- COMMAND" in done.stdout
             and "--timeout" in done.stdout and "--tags" in done.stdout,
             "tattle run --help: %r"
             % done.stdout[:500])
    done = subprocess.run([c.options.tattle, "run", "--version"],
                          capture_output=True, text=True, timeout=60)
    c.expect(done.returncode == 0 and done.stdout.startswith("tattle "),
             "tattle run --version: %r" % done.stdout)
    done = subprocess.run([c.options.tattle, "--help"],
                          capture_output=True, text=True, timeout=60)
    c.expect("run [OPTIONS] -- COMMAND" in done.stdout,
             "tattle --help does not list run")


def gtest_program(c):
    """The GoogleTest program, or exit 77 when it was not built."""
    if not c.options.gtest_program:
        print("skipped: no GoogleTest (libgtest-dev) in this build")
        sys.exit(77)
    return c.options.gtest_program


def failing_line():
    """The line of the EXPECT_EQ that fails in gtest_program.cpp."""
    source = driver.read(os.path.join(SOURCE_DIR, "tests", "wrap",
                                      "gtest_program.cpp"))
    for number, line in enumerate(source.splitlines(), 1):
        if "// the failing assertion" in line:
            return number
    raise CheckFailed("gtest_program.cpp has no failing assertion")


def states(run):
    return {test_id: test["state"] for test_id, test in run.tests.items()}


@CASES("wrap_gtest_one_result_per_inner_test")
def wraps_gtest(c):
    program = gtest_program(c)
    run = c.tattle_run([program, "--gtest_filter=Basics.*"],
                       ["--tags", "unit area:math"], tests=3)
    c.expect_eq(run.process.returncode, 1, "exit status")
    for test_id, test in run.tests.items():
        c.expect_eq(test.get("tags"), {"unit": True, "area": "math"},
                    "the tags of %s" % test_id)
    c.expect_eq(states(run), {"Basics/Passes": "passed",
                              "Basics/Fails": "failed",
                              "Basics/Skips": "skipped"}, "states")
    summary = run.report["summary"]
    c.expect_eq((summary["total"], summary["passed"], summary["failed"],
                 summary["skipped"]), (3, 1, 1, 1), "summary counts")
    fails = run.tests["Basics/Fails"]
    c.expect_eq((fails["suite"], fails["name"]), ("Basics", "Fails"),
                "suite and name")
    c.expect_eq(len(fails["failures"]), 1, "failures of Basics/Fails")
    failure = fails["failures"][0]
    c.expect_eq(failure["kind"], "assertion", "failure kind")
    c.expect(failure.get("file", "").endswith("gtest_program.cpp"),
             "failure file: %r" % failure)
    c.expect_eq(failure.get("line"), failing_line(), "failure line")
    c.expect("sum" in failure["message"] and
             not failure["message"].startswith(failure.get("file", "-")),
             "failure message: %r" % failure["message"])
    junit = driver.read(run.path("report.xml"))
    c.expect("gtest_program.cpp" in junit and "sum" in junit,
             "JUnit lacks the failure:\n" + junit)
    c.expect("Basics/Fails" in run.stdout and "sum" in run.stdout,
             "the console does not show the failure:\n" + run.stdout)
    # Each inner test reruns alone.
    rerun = fails["rerun"]
    c.expect(rerun.endswith("--gtest_filter=Basics.Fails"), "rerun: %r"
             % rerun)
    again = subprocess.run(rerun.replace(" run --", " run --json again.json --",
                                         1),
                           shell=True, cwd=run.cwd, env=c.env,
                           capture_output=True,
                           timeout=60 * driver.wait_scale())
    with open(run.path("again.json"), encoding="utf-8") as f:
        tests = json.load(f)["tests"]
    c.expect_eq([(t["id"], t["state"]) for t in tests],
                [("Basics/Fails", "failed")], "the rerun's tests")


@CASES("wrap_gtest_output_given_with_env_gives_way_to_tattles")
def wraps_gtest_output_given_with_env(c):
    # A GTEST_OUTPUT given with --env is replaced by tattle's own report
    # file, as one in the caller's environment is: the results come from
    # GoogleTest's report (with file and line), and the listing of the
    # tests is not written where the given variable says.
    program = gtest_program(c)
    mine = os.path.join(c.new_dir(), "mine.json")
    run = c.tattle_run([program, "--gtest_filter=Basics.*"],
                       ["--env", "GTEST_OUTPUT=json:" + mine], tests=3)
    failure = (run.tests["Basics/Fails"].get("failures") or [{}])[0]
    c.expect(failure.get("file", "").endswith("gtest_program.cpp"),
             "the failure read from GoogleTest's report: %r" % failure)
    c.expect(not os.path.exists(mine),
             "nothing written at the GTEST_OUTPUT given with --env")


@CASES("wrap_gtest_segfault_is_attributed_to_its_test")
def wraps_gtest_segfault(c):
    program = gtest_program(c)
    run = c.tattle_run([program, "--gtest_filter=-Hangs.*"], tests=5)
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(states(run), {"Basics/Passes": "passed",
                              "Basics/Fails": "failed",
                              "Basics/Skips": "skipped",
                              "Crashes/Segfaults": "failed",
                              "After/NeverReached": "skipped"}, "states")
    crashed = run.tests["Crashes/Segfaults"]
    c.require(len(crashed["failures"]) == 1, "failures: %r"
              % crashed["failures"])
    failure = crashed["failures"][0]
    c.expect_eq((failure["kind"], failure.get("signal")),
                ("crash", "SIGSEGV"), "the crash")
    c.expect("[ RUN      ] Crashes.Segfaults" in crashed["output"]["stdout"],
             "the crashed test lacks the program's output")
    c.expect_eq(run.tests["After/NeverReached"].get("skip_reason"),
                "not run: the program crashed in Crashes.Segfaults",
                "skip reason of the test never reached")
    fails = run.tests["Basics/Fails"]["failures"]
    c.expect(len(fails) == 1 and fails[0]["kind"] == "assertion" and
             fails[0].get("line") == failing_line(),
             "the failure before the crash, from the printed progress: %r"
             % fails)
    summary = run.report["summary"]
    c.expect_eq((summary["total"], summary["failed"], summary["skipped"]),
                (5, 2, 2), "summary counts")
    junit = driver.read(run.path("report.xml"))
    c.expect('type="SIGSEGV"' in junit, "JUnit has no SIGSEGV error")


@CASES("wrap_gtest_timeout_is_attributed_to_its_test")
def wraps_gtest_hang(c):
    program = gtest_program(c)
    timeout_ms = int(1000 * driver.wait_scale())
    run = c.tattle_run([program, "--gtest_filter=Basics.Passes:Hangs.*:After.*"],
                       ["--timeout", str(timeout_ms)], tests=3)
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(states(run), {"Basics/Passes": "passed",
                              "Hangs/Forever": "failed",
                              "After/NeverReached": "skipped"}, "states")
    failures = run.tests["Hangs/Forever"]["failures"]
    c.expect(len(failures) == 1 and failures[0]["kind"] == "timeout" and
             failures[0]["timeout_ms"] == timeout_ms,
             "the timeout: %r" % failures)
    c.expect_eq(run.tests["After/NeverReached"].get("skip_reason"),
                "not run: the program timed out in Hangs.Forever",
                "skip reason of the test never reached")


@CASES("wrap_plain_program_keeps_one_result")
def wraps_plain_program(c):
    # A program that is not GoogleTest writes nothing where GTEST_OUTPUT
    # says and prints no progress: it stays one test.
    run = c.tattle_run(["sh", "-c", "echo \"$GTEST_OUTPUT\""])
    c.expect_eq(run.test["id"], "run/sh", "id")
    c.expect(run.test["output"]["stdout"].startswith("json:"),
             "GTEST_OUTPUT not set for the command: %r"
             % run.test["output"]["stdout"])


@CASES("wrap_sharding_and_test_filter_are_the_commands")
def wraps_with_sharding_variables(c):
    # Sharding and a test filter from the environment (GoogleTest's,
    # Bazel's) go to the wrapped command, which shards its own tests:
    # applied to tattle's one test they would leave shard 1 running
    # nothing, and passing.
    for shard in ({"GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "1"},
                  {"TEST_TOTAL_SHARDS": "3", "TEST_SHARD_INDEX": "2"},
                  {"TESTBRIDGE_TEST_ONLY": "Other.*"}):
        c.env = dict(c.env, **shard)
        run = c.tattle_run(["sh", "-c", " ".join(
            "echo %s=$%s;" % (k, k) for k in shard)])
        c.expect_eq(run.process.returncode, 0, "exit status with %r" % shard)
        c.expect_eq(run.test["id"], "run/sh", "the command ran: %r" % shard)
        c.expect_eq(run.test["output"]["stdout"],
                    "".join("%s=%s\n" % kv for kv in shard.items()),
                    "the command sees the variables")
        for name in shard:
            del c.env[name]


@CASES("wrap_hostile_report_path_and_plan_are_bounded")
def wraps_hostile_program(c):
    # The program knows where GoogleTest's report goes: a FIFO there would
    # block a plain open, a link to /dev/zero would never end. Neither is
    # read, so the test comes from the progress lines alone.
    for make in ('mkfifo "${GTEST_OUTPUT#json:}"',
                 'ln -s /dev/zero "${GTEST_OUTPUT#json:}"'):
        run = c.tattle_run(["sh", "-c", make + "; echo '[ RUN      ] A.b'"])
        c.expect_eq(run.process.returncode, 1, "exit status after %r" % make)
        c.expect_eq((run.test["id"], [f["message"] for f in
                                      run.test["failures"]]),
                    ("A/b", ["the program exited 0 before this test ended"]),
                    "one test, unfinished, after %r" % make)
    # A TAP plan of 10^20 points, one printed, and a failure: the points
    # never printed are bounded, the rest named by their range.
    run = c.tattle_run(["sh", "-c",
                        "echo 1..100000000000000000000; echo ok 1 - a; exit 1"],
                       tests=1002)
    ids = [t["id"] for t in run.report["tests"]]
    c.expect_eq(len(ids), 1002, "results")
    c.expect_eq(ids[-1], "sh/1002-2147483647", "the rest, by their range")


def fake_gtest(c, listing, body):
    """A sh script that acts as a GoogleTest program: `listing` (the
    --gtest_list_tests lines) when asked for its tests, whatever other
    arguments come before, else `body`; the command that runs it, in a
    new directory."""
    cwd = c.new_dir()
    path = os.path.join(cwd, "fake_gtest.sh")
    driver.write(path, 'case " $* " in *" --gtest_list_tests "*)\n'
                 "  printf '%s'\n  exit 0;;\nesac\n%s\n"
                 % ("".join(line + "\\n" for line in listing), body))
    return ["sh", path], cwd


def progress(*lines):
    """sh commands that print GoogleTest's progress lines."""
    return "\n".join("echo '%s'" % line for line in lines)


# Lines enough to overflow the capture's head and tail (32 KiB each).
FILLER = "yes 'a line of filler the capture cannot keep whole' | head -n 3000"
LISTING = ["A.", "  one", "  two", "  three", "  four"]


@CASES("wrap_gtest_cut_output_blames_no_lost_test")
def wraps_gtest_cut_output(c):
    # A.two starts in the kept head and ends in the lost middle; the crash
    # comes with no test started in the kept tail: no test is blamed, the
    # command keeps its crash, and what the lost middle hid is unknown,
    # not "not run".
    command, cwd = fake_gtest(c, LISTING, "\n".join((
        progress("[ RUN      ] A.one", "[       OK ] A.one (0 ms)",
                 "[ RUN      ] A.two"), FILLER,
        progress("[       OK ] A.two (0 ms)", "[ RUN      ] A.three",
                 "[       OK ] A.three (1 ms)"), FILLER, "kill -SEGV $$")))
    run = c.tattle_run(command, cwd=cwd, tests=5)
    c.expect_eq(states(run), {"A/one": "passed", "A/two": "skipped",
                              "A/three": "skipped", "A/four": "skipped",
                              "run/sh": "failed"}, "states")
    for lost in ("A/two", "A/three", "A/four"):
        reason = run.tests[lost].get("skip_reason", "")
        c.expect(reason.startswith("unknown: ") and "output was cut" in reason,
                 "%s: skip reason %r" % (lost, reason))
    c.expect_eq([f["kind"] for f in run.tests["run/sh"]["failures"]],
                ["crash"], "the command's own failure")
    # A test started in the kept tail and never ended carries the crash;
    # one that ended in the tail, its start lost, has its result.
    command, cwd = fake_gtest(c, LISTING, "\n".join((
        progress("[ RUN      ] A.one", "[       OK ] A.one (0 ms)",
                 "[ RUN      ] A.two"), FILLER,
        progress("[       OK ] A.two (0 ms)", "[ RUN      ] A.three"),
        FILLER, progress("[       OK ] A.three (1 ms)", "[ RUN      ] A.four"),
        "kill -SEGV $$")))
    run = c.tattle_run(command, cwd=cwd, tests=4)
    c.expect_eq(states(run), {"A/one": "passed", "A/two": "skipped",
                              "A/three": "passed", "A/four": "failed"},
                "states")
    c.expect_eq([f["kind"] for f in run.tests["A/four"]["failures"]],
                ["crash"], "the crash of the test running in the tail")
    # A test started in the head and ended in the tail ran in between.
    command, cwd = fake_gtest(c, LISTING, "\n".join((
        progress("[ RUN      ] A.one"), FILLER,
        progress("[  FAILED  ] A.one (5 ms)"), "exit 1")))
    run = c.tattle_run(command, cwd=cwd, tests=4)
    # Its section cut, A.one carries the whole stdout, as captured.
    c.expect_eq(states(run), {"A/one": "failed", "A/two": "skipped",
                              "A/three": "skipped", "A/four": "skipped"},
                "states")
    output = run.tests.get("A/one", {}).get("output", {})
    c.expect(output.get("truncated") and
             output.get("stdout", "").startswith("[ RUN      ] A.one\n") and
             "[  FAILED  ] A.one (5 ms)" in output.get("stdout", ""),
             "A/one's output: %r" % {k: v for k, v in output.items()
                                     if k != "stdout"})


@CASES("wrap_gtest_parameterized_names_end_before_where")
def wraps_gtest_parameterized(c):
    # GoogleTest follows a value- or type-parameterized test's name with
    # ", where GetParam() = ..." or ", where TypeParam = ..." on its
    # FAILED line: the name ends before it.
    command, cwd = fake_gtest(
        c, ["Values/Square.", "  IsEven/0  # GetParam() = 4",
            "Typed/0.  # TypeParam = int", "  Adds", "A.", "  never"],
        "\n".join((progress(
            "[ RUN      ] Values/Square.IsEven/0",
            "[  FAILED  ] Values/Square.IsEven/0, where GetParam() = 4 (3 ms)",
            "[ RUN      ] Typed/0.Adds",
            "[  FAILED  ] Typed/0.Adds, where TypeParam = int (2 ms)",
            "[==========] 2 tests ran.",
            "[  FAILED  ] Values/Square.IsEven/0, where GetParam() = 4",
            "[  FAILED  ] Typed/0.Adds, where TypeParam = int"), "exit 1")))
    run = c.tattle_run(command, cwd=cwd, tests=3)
    # An "Instance/Suite" suite holds ':' for '/', which would end it in
    # the id: the id reads back as the same suite and name.
    c.expect_eq(states(run), {"Values:Square/IsEven/0": "failed",
                              "Typed:0/Adds": "failed",
                              "A/never": "skipped"}, "states")
    c.expect_eq([(t["suite"], t["name"]) for t in run.report["tests"]],
                [("Values:Square", "IsEven/0"), ("Typed:0", "Adds"),
                 ("A", "never")], "suites and names")
    c.expect_eq([run.tests.get(t, {}).get("duration_us") for t in
                 ("Values:Square/IsEven/0", "Typed:0/Adds")], [3000, 2000],
                "the durations after the where clauses")
    c.expect(run.tests.get("Values:Square/IsEven/0", {}).get(
        "rerun", "").endswith(" --gtest_filter=Values/Square.IsEven/0"),
        "the rerun filters by the program's own name")
    shown = subprocess.run([c.options.tattle, "show", "report.json",
                            "Values:Square/IsEven/0"], cwd=run.cwd,
                           capture_output=True, text=True)
    c.expect(shown.returncode == 0 and "IsEven/0" in shown.stdout,
             "tattle show finds the test by its id: %s" % shown.stderr)


@CASES("wrap_gtest_edge_cases_of_names_durations_and_retries")
def wraps_gtest_edge_cases(c):
    crash_in_one = "\n".join((progress("[ RUN      ] A.one"), "kill -SEGV $$"))
    # GoogleTest deals shards over the tests that are not disabled, and an
    # instantiated suite Inst/DISABLED_S is disabled: shard 0 of 2 holds
    # A.one, and A.two is the other shard's.
    command, cwd = fake_gtest(
        c, ["Inst/DISABLED_S.", "  t/0", "A.", "  one", "  two"], crash_in_one)
    saved = c.env
    c.env = dict(saved, GTEST_TOTAL_SHARDS="2", GTEST_SHARD_INDEX="0")
    run = c.tattle_run(command, cwd=cwd, tests=2)
    c.expect_eq(sorted(run.tests), ["A/one", "Inst:DISABLED_S/t/0"],
                "the tests of shard 0 with an instantiated disabled suite")
    # --gtest_also_run_disabled_tests=false is false, as GoogleTest reads
    # a flag: the disabled test is not dealt either.
    command, cwd = fake_gtest(
        c, ["DISABLED_A.", "  x", "A.", "  one", "  two"], crash_in_one)
    run = c.tattle_run(command + ["--gtest_also_run_disabled_tests=false"],
                       cwd=cwd, tests=2)
    c.expect_eq(sorted(run.tests), ["A/one", "DISABLED_A/x"],
                "the tests of shard 0 with =false")
    c.env = saved
    # A duration past what microseconds can hold is no duration, not a
    # wrapped one.
    command, cwd = fake_gtest(c, ["A.", "  one"], "\n".join((progress(
        "[ RUN      ] A.one",
        "[  FAILED  ] A.one (99999999999999999999 ms)"), "exit 1")))
    run = c.tattle_run(command, cwd=cwd)
    c.expect_eq(run.tests["A/one"]["duration_us"], 0, "a huge duration")
    # With --retry, the earlier runs of the whole program stay off the
    # inner test that was running when the last run crashed.
    command, cwd = fake_gtest(c, ["A.", "  one"], crash_in_one)
    run = c.tattle_run(command, ["--retry", "1"], cwd=cwd)
    c.expect_eq((run.tests["A/one"]["state"],
                 run.tests["A/one"].get("earlier_attempts")), ("failed", None),
                "the crashed inner test after a retry")


TAP_PROGRAM = r"""
printf 'TAP version 13\n1..4\n'
printf 'ok 1 - adds\n'
printf 'not ok 2 - subtracts\n  ---\n  message: "2 - 1 was 3"\n'
printf '  file: calc.c\n  line: 12\n  ...\n'
printf 'ok 3 - reaches the network # SKIP offline\n'
printf 'not ok 4 - divides # TODO not written yet\n'
exit 1
"""


@CASES("wrap_tap_one_result_per_test_point")
def wraps_tap(c):
    run = c.tattle_run(["sh", "-c", TAP_PROGRAM], tests=4)
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(states(run), {"sh/adds": "passed", "sh/subtracts": "failed",
                              "sh/reaches the network": "skipped",
                              "sh/divides": "skipped"},
                "states (one result per point, none for the command)")
    failures = run.tests["sh/subtracts"]["failures"]
    c.expect_eq([(f["kind"], f["message"], f.get("file"), f.get("line"))
                 for f in failures],
                [("assertion", "2 - 1 was 3", "calc.c", 12)],
                "the failure from the YAML diagnostics")
    c.expect_eq(run.tests["sh/reaches the network"].get("skip_reason"),
                "offline", "# SKIP reason")
    c.expect_eq(run.tests["sh/divides"].get("skip_reason"),
                "TODO: not written yet", "# TODO reason")


@CASES("wrap_tap_crash_lands_on_the_next_test_point")
def wraps_tap_crash(c):
    run = c.tattle_run(["sh", "-c", "echo 1..3; echo 'ok 1 - first'; "
                        "kill -SEGV $$"], tests=3)
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(states(run), {"sh/first": "passed", "sh/2": "failed",
                              "sh/3": "skipped"}, "states")
    failures = run.tests["sh/2"]["failures"]
    c.expect(len(failures) == 1 and failures[0]["kind"] == "crash" and
             failures[0].get("signal") == "SIGSEGV",
             "the crash on the running point: %r" % failures)
    c.expect_eq(run.tests["sh/3"].get("skip_reason"),
                "not run: the program crashed in sh/2", "skip reason")


@CASES("wrap_tap_reads_a_framework_only_when_identified")
def wraps_tap_unidentified(c):
    # A description shaped like Check's "FILE:TCASE:TEST: MESSAGE" from a
    # program that is not Check keeps its name; a comment after a failed
    # point, from a program that is not cmocka, is not its message.
    script = ("echo 1..3; echo 'not ok 1 - net.c:retry:connects: gave up'; "
              "echo 'not ok 2 - fetches'; echo '# next: parses'; "
              "echo 'ok 3 - parses'; exit 1")
    run = c.tattle_run(["sh", "-c", script], tests=3)
    c.expect_eq(states(run), {"sh/net.c:retry:connects: gave up": "failed",
                              "sh/fetches": "failed", "sh/parses": "passed"},
                "states")
    c.expect_eq([f["message"] for f in
                 run.tests.get("sh/fetches", {}).get("failures", [])],
                ["not ok 2 - fetches"], "the failure of the point")
    # The same lines with Check's summary among them are Check's; with
    # cmocka's group line after them, cmocka's.
    run = c.tattle_run(["sh", "-c", script.replace(
        "exit 1", "echo '33%: Checks: 3, Failures: 2, Errors: 0'; exit 1")],
        tests=3)
    c.expect_eq(sorted(run.tests), ["retry/connects", "sh/fetches",
                                    "sh/parses"], "Check's ids")
    run = c.tattle_run(["sh", "-c", script.replace(
        "exit 1", "echo '# not ok - group'; exit 1")], tests=3)
    c.expect_eq([f["message"] for f in
                 run.tests.get("sh/fetches", {}).get("failures", [])],
                ["next: parses"], "cmocka's diagnostics")


TAP_WITH_DIAGNOSTICS = ("echo 1..2; echo 'ok 1 - first'; "
                        "echo 'not ok 2 - second'; echo '# got: 3'; "
                        "echo '# expected: 4'; exit %d")


@CASES("wrap_tap_and_junit_output_lands_on_the_failed_tests")
def wraps_output_on_failed_tests(c):
    # A TAP stdout is not divided among its points: a failed point with
    # no output of its own carries the whole stdout, with its "#"
    # diagnostics, and the whole stderr, whether the program exited 1 or
    # 0; no result of the command stands beside the points.
    for status in (1, 0):
        run = c.tattle_run(["sh", "-c", "echo oops >&2; " +
                            TAP_WITH_DIAGNOSTICS % status], tests=2)
        c.expect_eq(states(run), {"sh/first": "passed", "sh/second": "failed"},
                    "states (exit %d)" % status)
        output = run.tests.get("sh/second", {}).get("output", {})
        stdout = output.get("stdout")
        c.expect(stdout and "# got: 3" in stdout and
                 "# expected: 4" in stdout,
                 "the diagnostics are not on the failed point (exit %d): %r"
                 % (status, stdout))
        c.expect_eq((output.get("stdout_bytes"), output.get("stderr")),
                    (len(stdout or ""), "oops\n"),
                    "the failed point's output (exit %d)" % status)
        c.expect_eq(run.tests.get("sh/first", {}).get("output", {}).get(
            "stdout"), "", "the passed point's stdout (exit %d)" % status)
    # A JUnit test case with no system-out: the command's stdout is the
    # failed test case's.
    run = c.tattle_run(
        ["sh", "-c", "printf '%s' \"$1\" > inner.xml; echo 'got: 3'; exit 1",
         "sh", '<testsuite name="s"><testcase name="a"/>'
         '<testcase name="b"><failure>no</failure></testcase></testsuite>'],
        ["--junit-in", "inner.xml"], tests=2)
    c.expect_eq(states(run), {"s/a": "passed", "s/b": "failed"},
                "JUnit states")
    c.expect_eq(run.tests.get("s/b", {}).get("output", {}).get("stdout"),
                "got: 3\n", "the JUnit test case's stdout")


@CASES("wrap_undivided_output_is_whole_once_then_its_tail")
def wraps_undivided_output_once(c):
    # Three failed TAP points and 5000 bytes of stderr: the first failed
    # point carries the streams whole, each later one their last 2 KiB,
    # marked truncated, so the report holds one copy, not one per point.
    script = ("head -c 5000 /dev/zero | tr '\\0' x >&2; echo END >&2; "
              "echo 1..3; echo 'not ok 1 - a'; echo 'not ok 2 - b'; "
              "echo 'not ok 3 - c'; exit 1")
    run = c.tattle_run(["sh", "-c", script], tests=3)
    c.expect_eq(states(run), {"sh/a": "failed", "sh/b": "failed",
                              "sh/c": "failed"}, "states")
    first = run.tests.get("sh/a", {}).get("output", {})
    c.expect_eq((len(first.get("stderr") or ""), first.get("stderr_bytes"),
                 first.get("truncated")), (5004, 5004, False),
                "the first failed point's stderr is whole")
    for later in ("sh/b", "sh/c"):
        output = run.tests.get(later, {}).get("output", {})
        stderr = output.get("stderr") or ""
        c.expect_eq((len(stderr), stderr.endswith("xEND\n"),
                     output.get("stderr_bytes"), output.get("truncated")),
                    (2048, True, 5004, True),
                    "%s carries the stderr's last 2 KiB, marked cut" % later)


@CASES("wrap_failure_no_inner_test_explains_is_the_commands")
def wraps_unexplained_failure(c):
    # Every point passed but the program exited 1: the command's own
    # result is the failure, with the output.
    run = c.tattle_run(["sh", "-c", "echo 1..1; echo ok 1 - first; "
                        "echo leaked >&2; exit 1"], tests=2)
    c.expect_eq(states(run), {"sh/first": "passed", "run/sh": "failed"},
                "states")
    command = run.tests.get("run/sh", {})
    c.expect_eq(([(f["kind"], f.get("exit_code"))
                  for f in command.get("failures", [])],
                 command.get("output", {}).get("stderr")),
                ([("exit", 1)], "leaked\n"), "the command's result")
    # A program that exits 0 short of its plan failed: the first point it
    # never printed says so, the rest were not run.
    run = c.tattle_run(["sh", "-c", "echo 1..3; echo ok 1 - first"], tests=3)
    c.expect_eq(run.process.returncode, 1, "exit status short of the plan")
    c.expect_eq(states(run), {"sh/first": "passed", "sh/2": "failed",
                              "sh/3": "skipped"}, "states short of the plan")
    c.expect_eq([(f["kind"], f["message"]) for f in
                 run.tests.get("sh/2", {}).get("failures", [])],
                [("error", "the program exited 0 after 1 of the 3 test "
                  "points its plan 1..3 announced")], "the unfinished plan")
    c.expect_eq(run.tests.get("sh/3", {}).get("skip_reason"),
                "not run: the program ended in sh/2", "the point never run")
    # A GoogleTest program that exits 0 in the middle of a test.
    command, cwd = fake_gtest(c, ["A.", "  one", "  two"], "\n".join((
        progress("[ RUN      ] A.one", "[       OK ] A.one (0 ms)",
                 "[ RUN      ] A.two"), "exit 0")))
    run = c.tattle_run(command, cwd=cwd, tests=2)
    c.expect_eq(states(run), {"A/one": "passed", "A/two": "failed"},
                "states of a GoogleTest program that exited in a test")
    c.expect_eq([(f["kind"], f["message"]) for f in
                 run.tests.get("A/two", {}).get("failures", [])],
                [("error", "the program exited 0 before this test ended")],
                "the test the program exited in")


@CASES("wrap_inner_ids_are_valid_and_unique")
def wraps_inner_ids(c):
    # TAP descriptions repeat, or are missing: a point without one is
    # named by its number, a repeat gets its number appended, and no
    # description can take another point's id.
    run = c.tattle_run(["sh", "-c", "echo 1..6; echo ok 1 - adds; "
                        "echo not ok 2 - adds; echo ok 3; echo ok 4 - 3; "
                        "echo ok 5 - 'adds[2]'; echo ok 6 - adds"], tests=6)
    ids = [t["id"] for t in run.report["tests"]]
    c.expect_eq(ids, ["sh/adds", "sh/adds[2]", "sh/3", "sh/3[4]",
                      "sh/adds[2][5]", "sh/adds[6]"], "ids")
    c.expect_eq(run.tests["sh/adds[2]"]["state"], "failed",
                "the repeated point's state")
    # GoogleTest progress lines with an empty suite or test name.
    command, cwd = fake_gtest(c, [], "\n".join((progress(
        "[ RUN      ] .b", "[       OK ] .b (0 ms)",
        "[ RUN      ] A.", "[  FAILED  ] A. (0 ms)"), "exit 1")))
    run = c.tattle_run(command, cwd=cwd, tests=2)
    c.expect_eq(states(run), {"(empty)/b": "passed", "A/(empty)": "failed"},
                "states")
    c.expect(run.tests["A/(empty)"]["rerun"].endswith(" --gtest_filter=A."),
             "the rerun filters by the program's name: %r"
             % run.tests["A/(empty)"]["rerun"])


@CASES("wrap_gtest_listing_is_bounded_and_killed")
def wraps_gtest_listing_hang(c):
    # The program, asked for its tests, prints them and then waits with
    # SIGALRM ignored, its stdout still open: the runner gives the listing
    # the test's timeout, kills its process group, and goes on.
    cwd = c.new_dir()
    pid_file = os.path.join(cwd, "listing.pid")
    path = os.path.join(cwd, "fake_gtest.sh")
    driver.write(path, 'if [ "$1" = --gtest_list_tests ]; then\n'
                 "  trap '' ALRM\n"
                 "  printf 'A.\\n  one\\n  two\\n  three\\n'\n"
                 '  echo $$ > "%s.tmp" && mv "%s.tmp" "%s"\n'
                 "  exec sleep 1000\nfi\n%s\nkill -SEGV $$\n"
                 % (pid_file, pid_file, pid_file, progress(
                     "[ RUN      ] A.one", "[       OK ] A.one (0 ms)",
                     "[ RUN      ] A.two")))
    timeout_ms = int(1000 * driver.wait_scale())
    try:
        run = c.tattle_run(["sh", path], ["--timeout", str(timeout_ms)],
                           cwd=cwd, tests=3)
        c.expect_eq(states(run), {"A/one": "passed", "A/two": "failed",
                                  "A/three": "skipped"}, "states")
        c.expect_eq(run.tests["A/three"].get("skip_reason"),
                    "not run: the program crashed in A.two",
                    "the test never reached, from the listing")
        c.require(os.path.exists(pid_file), "the listing never ran")
        pid = int(driver.read(pid_file))
        c.expect(process_gone(pid), "the listing's process %d survived" % pid)
    finally:
        if os.path.exists(pid_file):
            try:
                os.kill(int(driver.read(pid_file)), 9)
            except (ProcessLookupError, ValueError):
                pass


@CASES("wrap_gtest_tests_of_other_shards_are_not_reported")
def wraps_gtest_shard(c):
    program = gtest_program(c)
    # Shard 1 of 2 runs the second and fourth of the tests the filter
    # selects (Basics.Fails, Crashes.Segfaults) and crashes in the second:
    # the listing names all five, but the other shard's are no result here.
    c.env = dict(c.env, GTEST_TOTAL_SHARDS="2", GTEST_SHARD_INDEX="1")
    run = c.tattle_run([program, "--gtest_filter=-Hangs.*"], tests=2)
    c.expect_eq(states(run), {"Basics/Fails": "failed",
                              "Crashes/Segfaults": "failed"}, "states")
    c.expect_eq([f["kind"] for f in
                 run.tests["Crashes/Segfaults"]["failures"]], ["crash"],
                "the crash")


@CASES("wrap_gtest_failed_test_carries_its_own_output")
def wraps_gtest_sections(c):
    # Each failed inner test carries its own section of the output, from
    # its RUN line to its FAILED line, not the whole program's.
    program = c.options.gtest_program
    if program:
        # From GoogleTest's report, the sections from its progress lines.
        run = c.tattle_run([program, "--gtest_filter=Basics.*"], tests=3)
        stdout = run.tests["Basics/Fails"]["output"]["stdout"]
        c.expect(stdout.startswith("[ RUN      ] Basics.Fails\n") and
                 "sum" in stdout and
                 stdout.splitlines()[-1].startswith(
                     "[  FAILED  ] Basics.Fails (") and
                 "Basics.Passes" not in stdout,
                 "the output of Basics/Fails: %r" % stdout)
    # From the progress lines alone (no report).
    command, cwd = fake_gtest(c, ["A.", "  one", "  two"], "\n".join((
        progress("[==========] Running 2 tests", "[ RUN      ] A.one",
                 "one.cc:1: Failure", "one went wrong",
                 "[  FAILED  ] A.one (0 ms)", "[ RUN      ] A.two",
                 "two.cc:2: Failure", "two went wrong",
                 "[  FAILED  ] A.two (0 ms)", "[==========] 2 tests ran."),
        "exit 1")))
    run = c.tattle_run(command, cwd=cwd, tests=2)
    for name, n in (("one", 1), ("two", 2)):
        output = run.tests["A/" + name]["output"]
        expected = ("[ RUN      ] A.%s\n%s.cc:%d: Failure\n%s went wrong\n"
                    "[  FAILED  ] A.%s (0 ms)\n" % (name, name, n, name, name))
        c.expect_eq((output["stdout"], output["stdout_bytes"],
                     output["truncated"]),
                    (expected, len(expected), False),
                    "the output of A/%s" % name)


@CASES("wrap_gtest_stderr_lands_on_the_failed_tests")
def wraps_gtest_stderr(c):
    # stderr, which the progress lines do not divide, is carried whole by
    # each failed test, beside its own section of stdout; the command has
    # no result of its own.
    command, cwd = fake_gtest(c, ["A.", "  one", "  two"], "\n".join((
        progress("[ RUN      ] A.one", "[  FAILED  ] A.one (0 ms)",
                 "[ RUN      ] A.two", "[  FAILED  ] A.two (0 ms)"),
        "echo 'a complaint' >&2", "exit 1")))
    run = c.tattle_run(command, cwd=cwd, tests=2)
    c.expect_eq(states(run), {"A/one": "failed", "A/two": "failed"},
                "states")
    c.expect_eq([run.tests.get(i, {}).get("output", {}).get("stderr")
                 for i in ("A/one", "A/two")],
                ["a complaint\n", "a complaint\n"], "where stderr is")
    c.expect_eq(run.tests.get("A/two", {}).get("output", {}).get("stdout"),
                "[ RUN      ] A.two\n[  FAILED  ] A.two (0 ms)\n",
                "the stdout of A/two")


@CASES("wrap_console_says_the_command_then_the_count")
def wraps_console_header(c):
    # Before it runs, a wrapped command's tests are not known: the header
    # names the command, and the end says how many tests it held.
    command, cwd = fake_gtest(c, ["A.", "  one", "  two"], "\n".join((
        progress("[ RUN      ] A.one", "[       OK ] A.one (0 ms)",
                 "[ RUN      ] A.two", "[       OK ] A.two (0 ms)"),
        "exit 0")))
    run = c.tattle_run(command, cwd=cwd, tests=2)
    lines = run.stdout.splitlines()
    c.expect(lines and ": running sh " in lines[0] and
             "fake_gtest.sh, 1 job, seed " in lines[0] and
             " tests," not in lines[0], "the header: %r" % lines[:1])
    c.expect(len(lines) >= 2 and lines[-2].startswith("2 tests ran; 0 "
                                                      "excluded"),
             "the count at the end: %r" % lines[-2:])


@CASES("wrap_console_counts_the_inner_tests")
def wraps_console_counts(c):
    # The command's own result, kept beside a failed inner test for a
    # crash no test carries, is named at the end but not counted among
    # them; when no inner test failed, it is the failure and counts as
    # one; when an inner test explains the failure, there is none.
    script = ("echo 1..2; echo 'ok 1 - first'; echo '%s 2 - second'; "
              "echo 'a complaint' >&2; %s")
    run = c.tattle_run(["sh", "-c", script % ("not ok", "exit 1")], tests=2)
    lines = run.stdout.splitlines()
    c.expect_eq(lines[-2:-1] and lines[-2].split(";")[0], "2 tests ran",
                "the count of tests run when a test explains the failure")
    c.expect_eq(lines[-1:], ["1 passed, 1 failed, 0 skipped"],
                "the last line when a test explains the failure")
    run = c.tattle_run(["sh", "-c", script % ("not ok", "kill -SEGV $$")],
                       tests=3)
    lines = run.stdout.splitlines()
    c.expect_eq(lines[-2:-1] and lines[-2].split(";")[0],
                "2 tests ran, and the command's own result run/sh (failed, "
                "not counted)", "the count of tests run")
    c.expect_eq(lines[-1:], ["1 passed, 1 failed, 0 skipped"],
                "the last line")
    run = c.tattle_run(["sh", "-c", script % ("ok", "exit 1")], tests=3)
    lines = run.stdout.splitlines()
    c.expect_eq(lines[-2:-1] and lines[-2].split(";")[0],
                "2 tests ran, and the command's own result run/sh (failed)",
                "the count of tests run when the command is the failure")
    c.expect_eq(lines[-1:], ["2 passed, 1 failed, 0 skipped"],
                "the last line when the command is the failure")


@CASES("wrap_last_run_is_kept_per_wrapped_command")
def wraps_last_run(c):
    # Two wrapped commands run in one directory each keep their outcomes
    # in .tattle/last-run.json: the second does not overwrite the first's.
    cwd = c.new_dir()
    c.tattle_run(["sh", "-c", "exit 1"], ["--name", "a/fails"], cwd=cwd)
    c.tattle_run(["true"], ["--name", "b/passes"], cwd=cwd)
    with open(os.path.join(cwd, ".tattle", "last-run.json"),
              encoding="utf-8") as f:
        state = json.load(f)["executables"]
    failed = sorted((key, entry.get("failed")) for key, entry in
                    state.items() if entry.get("failed"))
    c.expect(len(state) == 2 and len(failed) == 1 and
             failed[0][1] == ["a/fails"] and "exit 1" in failed[0][0],
             "one entry per wrapped command: %r" % state)


@CASES("wrap_chdir_and_environment_options_reach_the_command")
def wraps_chdir_and_environment(c):
    # --chdir, --env and --unset-env shape what the command finds, and
    # the rerun, run by a shell elsewhere, gives them again.
    cwd = c.new_dir()
    sub = os.path.join(cwd, "sub")
    os.mkdir(sub)
    driver.write(os.path.join(sub, "marker"), "")
    c.env["DROPPED"] = "here"
    script = ('test -e marker && [ "$GIVEN" = "b c" ] && '
              '[ -z "${DROPPED+set}" ]')
    run = c.tattle_run(["sh", "-c", script],
                       ["--chdir", "sub", "--env", "GIVEN=b c",
                        "--unset-env", "DROPPED"], cwd=cwd)
    c.expect_eq(run.test["state"], "passed", "the command's directory and "
                "environment: %r" % run.test.get("failures"))
    again = subprocess.run(run.test["rerun"], shell=True, cwd=c.new_dir(),
                           env=c.env, capture_output=True, text=True,
                           timeout=60 * driver.wait_scale())
    c.expect_eq(again.returncode, 0, "the rerun %r elsewhere (%s)"
                % (run.test["rerun"], again.stdout + again.stderr))
    for options in (["--env", "NOVALUE"], ["--unset-env", "A=1"],
                    ["--env", "=1"], ["--chdir", "missing"],
                    ["--chdir", "sub/marker"]):
        run = c.tattle_run(["true"], options, reports=False, cwd=cwd)
        c.expect(run.process.returncode == 2 and
                 "tattle run: " in run.stderr,
                 "%r is a usage error: %d %s"
                 % (options, run.process.returncode, run.stderr))


@CASES("wrap_last_run_key_is_the_resolved_command")
def wraps_last_run_resolved(c):
    # One program typed three ways (relative, absolute through a symbolic
    # link to its directory, found on PATH) keeps one entry in
    # .tattle/last-run.json, under its absolute path: --failed through one
    # spelling sees the failure recorded through another, and a pass
    # clears it.
    cwd = c.new_dir()
    real = os.path.realpath(cwd)
    os.mkdir(os.path.join(cwd, "bin"))
    script = os.path.join(cwd, "bin", "check.sh")
    driver.write(script, "#!/bin/sh\n[ -e %s/pass ] && exit 0\nexit 1\n"
                 % real)
    os.chmod(script, 0o755)
    os.symlink(os.path.join(cwd, "bin"), os.path.join(cwd, "linked"))
    key = os.path.join(real, "bin", "check.sh")

    def state():
        with open(os.path.join(cwd, ".tattle", "last-run.json"),
                  encoding="utf-8") as f:
            return json.load(f)["executables"]

    run = c.tattle_run(["./bin/check.sh"], cwd=cwd)
    c.expect_eq(run.test["state"], "failed", "the first run")
    c.expect_eq(state(), {key: {"failed": ["run/check.sh"]}},
                "the state after ./bin/check.sh")
    run = c.tattle_run([os.path.join(cwd, "linked", "check.sh")], ["--failed"],
                       cwd=cwd)
    c.expect("no failure of this binary is recorded" not in run.stderr,
             "--failed through another spelling: %s" % run.stderr)
    c.expect_eq(state(), {key: {"failed": ["run/check.sh"]}},
                "the state after the absolute path through a link")
    driver.write(os.path.join(cwd, "pass"), "")
    c.env["PATH"] = os.path.join(cwd, "bin") + os.pathsep + c.env["PATH"]
    run = c.tattle_run(["check.sh"], ["--failed"], cwd=cwd)
    c.expect_eq(run.test["state"], "passed", "the run found on PATH")
    c.expect_eq(state(), {key: {"failed": []}},
                "the state after the run found on PATH")


@CASES("wrap_gtest_crash_no_test_carries_is_kept")
def wraps_gtest_unowned_crash(c):
    # A test failed, then the program crashed with no test running (in a
    # global tear-down, or in a part of its output the capture lost): the
    # failed test does not explain the crash, so the command's own result
    # keeps it.
    for body in (progress("[ RUN      ] A.one", "[  FAILED  ] A.one (0 ms)",
                          "[ RUN      ] A.two", "[       OK ] A.two (0 ms)"),
                 "\n".join((progress("[ RUN      ] A.one",
                                      "[  FAILED  ] A.one (0 ms)",
                                      "[ RUN      ] A.two"), FILLER))):
        command, cwd = fake_gtest(c, ["A.", "  one", "  two"],
                                  body + "\nkill -SEGV $$")
        run = c.tattle_run(command, cwd=cwd, tests=3)
        c.expect_eq(run.tests["A/one"]["state"], "failed", "A/one")
        c.expect_eq([(f["kind"], f.get("signal")) for f in
                     run.tests.get("run/sh", {}).get("failures", [])],
                    [("crash", "SIGSEGV")], "the command's crash")


def framework_program(c, framework):
    """The real suite of `framework` (cmocka, check, criterion), or exit
    77 when its Debian package was not there to build it."""
    program = getattr(c.options, framework + "_program")
    if not program:
        print("skipped: no %s in this build" % framework)
        sys.exit(77)
    return program


def marked_line(source):
    """The line of tests/wrap/SOURCE marked "the failing assertion"."""
    text = driver.read(os.path.join(SOURCE_DIR, "tests", "wrap", source))
    for number, line in enumerate(text.splitlines(), 1):
        if "/* the failing assertion */" in line:
            return number
    raise CheckFailed("%s has no failing assertion" % source)


def failures(run, test_id):
    """(kind, message, file's base name, line) of each failure of a test;
    its file where the message names it is written FILE."""
    return [(f["kind"],
             f["message"].replace(f["file"], "FILE") if f.get("file")
             else f["message"],
             os.path.basename(f.get("file") or ""), f.get("line"))
            for f in run.tests[test_id]["failures"]]


@CASES("wrap_cmocka_tap_and_junit_in")
def wraps_cmocka(c):
    program = framework_program(c, "cmocka")
    line = marked_line("cmocka_program.c")
    where = "FILE:%d: error: Failure!" % line
    segfault = "Test failed with exception: Segmentation fault(11)"
    # TAP: cmocka puts a failure's diagnostics on "# " lines after it.
    saved = c.env
    c.env = dict(saved, CMOCKA_MESSAGE_OUTPUT="TAP")
    run = c.tattle_run([program], tests=4)
    c.expect_eq(run.process.returncode, 1, "exit status with TAP")
    c.expect_eq(states(run), {"cmocka_program/passes": "passed",
                              "cmocka_program/fails": "failed",
                              "cmocka_program/3": "skipped",
                              "cmocka_program/segfaults": "failed"},
                "states from TAP")
    c.expect_eq(failures(run, "cmocka_program/fails"),
                [("assertion", "0x3 != 0x2\n" + where, "cmocka_program.c",
                  line)],
                "the failure from TAP")
    c.expect_eq(failures(run, "cmocka_program/segfaults"),
                [("assertion", segfault, "", None)],
                "the segfault cmocka caught, from TAP")
    c.expect_eq(run.tests["cmocka_program/3"].get("skip_reason"), "skips",
                "the skip reason from TAP")
    # JUnit XML, through --junit-in.
    c.env = dict(saved, CMOCKA_MESSAGE_OUTPUT="XML",
                 CMOCKA_XML_FILE="cmocka.xml")
    run = c.tattle_run([program], ["--junit-in", "cmocka.xml"], tests=4)
    c.expect_eq(run.process.returncode, 1, "exit status with --junit-in")
    c.expect_eq(states(run), {"arith/passes": "passed",
                              "arith/fails": "failed",
                              "arith/skips": "skipped",
                              "arith/segfaults": "failed"},
                "states from the JUnit report")
    c.expect_eq(failures(run, "arith/fails"),
                [("assertion", "0x3 != 0x2\n" + where, "cmocka_program.c",
                  line)], "the failure from the JUnit report")
    c.expect_eq(failures(run, "arith/segfaults"),
                [("assertion", segfault, "", None)],
                "the segfault from the JUnit report")
    junit = driver.read(run.path("report.xml"))
    c.expect("0x3 != 0x2" in junit, "tattle's JUnit lacks the failure")
    # Let die of its assertion (CMOCKA_TEST_ABORT=1), the program writes
    # no report: the command keeps its crash.
    c.env = dict(c.env, CMOCKA_TEST_ABORT="1")
    run = c.tattle_run([program], ["--junit-in", "cmocka.xml"])
    c.expect_eq(run.test["id"], "run/cmocka_program", "the command's result")
    c.expect_eq([(f["kind"], f.get("signal")) for f in run.test["failures"]],
                [("crash", "SIGABRT")], "the crash with no report")
    c.env = saved


@CASES("wrap_check_tap_on_stdout")
def wraps_check(c):
    program = framework_program(c, "check")
    line = marked_line("check_program.c")
    # Check prints its TAP among its usual lines, each point described
    # "FILE:TCASE:TEST: MESSAGE"; its usual lines say where
    # ("FILE:LINE:F:TCASE:TEST:0: MESSAGE").
    c.env = dict(c.env, CK_TAP_LOG_FILE_NAME="-", CK_FORK="yes")
    run = c.tattle_run([program], tests=4)
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(states(run), {"core/passes": "passed", "core/fails": "failed",
                              "core/segfaults": "failed",
                              "core/exits_early": "failed"}, "states")
    c.expect("core:fails" in run.tests.get("core/fails", {}).get(
        "output", {}).get("stdout", ""),
        "the failed point's stdout: %r" % run.tests.get("core/fails"))
    c.expect_eq(failures(run, "core/fails"),
                [("assertion", "Assertion '3 == sum' failed: 3 == 3, sum == 2",
                  "check_program.c", line)], "the failed assertion")
    c.expect_eq(failures(run, "core/segfaults")[0][1],
                "Received signal 11 (Segmentation fault)", "the segfault")
    c.expect_eq(failures(run, "core/exits_early")[0][1],
                "Early exit with return value 3", "the early exit")


@CASES("wrap_criterion_junit_in_and_tap")
def wraps_criterion(c):
    program = framework_program(c, "criterion")
    line = marked_line("criterion_program.c")
    run = c.tattle_run([program, "--xml=criterion.xml"],
                       ["--junit-in", "criterion.xml"], tests=4)
    c.expect_eq(run.process.returncode, 1, "exit status")
    # Criterion's own lines on stderr are not divided among its tests:
    # each failed test carries them.
    c.expect_eq(states(run), {"arith/passes": "passed",
                              "arith/fails": "failed",
                              "arith/skips": "skipped",
                              "arith/segfaults": "failed"}, "states")
    c.expect("[FAIL]" in run.tests.get("arith/fails", {}).get(
        "output", {}).get("stderr", ""), "the failed test's stderr")
    c.expect_eq(failures(run, "arith/fails"),
                [("assertion", "1 assertion(s) failed.\nFILE:%d: three is "
                  "not 2" % line, "criterion_program.c", line)],
                "the failed assertion")
    c.expect_eq(failures(run, "arith/segfaults"),
                [("error", "The test crashed.", "", None)], "the crash")
    # Criterion's TAP, on stdout: "SUITE::TEST  (time)" points, a failure
    # in a YAML list, a crash in the point's description.
    run = c.tattle_run([program, "--tap=/dev/stdout"], tests=4)
    c.expect_eq(states(run), {"arith/passes": "passed",
                              "arith/fails": "failed",
                              "arith/skips": "skipped",
                              "arith/segfaults": "failed"},
                "states from TAP")
    c.expect_eq(failures(run, "arith/fails"),
                [("assertion", "Assertion failed: three is not 2",
                  "criterion_program.c", line)], "the failure from TAP")
    c.expect_eq(run.tests["arith/skips"].get("skip_reason"), "not today",
                "the skip reason from TAP")
    message = failures(run, "arith/segfaults")[0][1]
    c.expect(message.startswith("unexpected signal after "),
             "the crash from TAP: %r" % message)


def writes_report(text, path="inner.xml"):
    """sh -c that writes `text` to `path` (relative to its directory),
    then exits 1."""
    return ["sh", "-c", "printf '%%s' \"$1\" > %s; exit 1" % path, "sh", text]


NESTED_REPORT = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'
    '<testsuite name="outer"><testsuite name="inner">'
    '<testcase name="a" time="0.5"><system-out>hello</system-out>'
    '<system-err>oops</system-err></testcase></testsuite>'
    '<testcase classname="pkg.Klass" name="b" file="b.py" line="7">'
    '<failure message="boom" type="AssertionError">trace</failure>'
    '</testcase>'
    '<testcase name="c"><error message="bad setup"/></testcase>'
    '<testcase name="d"><skipped message="later"/></testcase>'
    '<testcase name="a"/></testsuite></testsuites>')


@CASES("wrap_junit_in_reads_this_runs_report")
def wraps_junit_in(c):
    # Nested suites: a test case's suite is its classname, else the
    # nearest suite around it.
    run = c.tattle_run(writes_report(NESTED_REPORT),
                       ["--junit-in", "inner.xml"], tests=5)
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(states(run), {"inner/a": "passed", "pkg.Klass/b": "failed",
                              "outer/c": "failed", "outer/d": "skipped",
                              "outer/a": "passed"}, "states")
    c.expect_eq(failures(run, "pkg.Klass/b"),
                [("assertion", "boom\ntrace", "b.py", 7)], "b's failure")
    c.expect_eq((run.tests["pkg.Klass/b"].get("file"),
                 run.tests["pkg.Klass/b"].get("line")), ("b.py", 7),
                "b's place")
    c.expect_eq(failures(run, "outer/c"), [("error", "bad setup", "", None)],
                "c's error")
    c.expect_eq(run.tests["outer/d"].get("skip_reason"), "later",
                "d's skip reason")
    inner = run.tests["inner/a"]
    c.expect_eq((inner["duration_us"], inner["output"]["stdout"],
                 inner["output"]["stderr"]), (500000, "hello", "oops"),
                "a's duration and output")
    # A bare <testsuite>, a repeated name made unique.
    run = c.tattle_run(writes_report(
        '<testsuite name="s"><testcase name="x"/><testcase name="x">'
        '<failure>s.c:3: no</failure></testcase></testsuite>'),
        ["--junit-in", "inner.xml"], tests=2)
    c.expect_eq(states(run), {"s/x": "passed", "s/x[2]": "failed"}, "states")
    c.expect_eq(failures(run, "s/x[2]"),
                [("assertion", "FILE:3: no", "s.c", 3)], "the place in the text")
    # A report left from an earlier run is removed before the command
    # runs: a command that writes none has no report, and says so.
    cwd = c.new_dir()
    driver.write(os.path.join(cwd, "inner.xml"), NESTED_REPORT)
    run = c.tattle_run(["true"], ["--junit-in", "inner.xml"], cwd=cwd)
    c.expect_eq(run.process.returncode, 1, "exit status with no report")
    c.expect_eq([(f["kind"], f["message"]) for f in run.test["failures"]],
                [("error", "the command wrote no JUnit report at %s"
                  % os.path.join(os.path.realpath(cwd), "inner.xml"))],
                "the missing report")
    c.expect(not os.path.exists(os.path.join(cwd, "inner.xml")),
             "the earlier report is still there")
    # A command that crashed and wrote none keeps its crash alone.
    run = c.tattle_run(["sh", "-c", "kill -SEGV $$"],
                       ["--junit-in", "inner.xml"])
    c.expect_eq([(f["kind"], f.get("signal")) for f in run.test["failures"]],
                [("crash", "SIGSEGV")], "the crash with no report")
    # An empty --junit-in is a usage error.
    run = c.tattle_run(["true"], ["--junit-in="], reports=False)
    c.expect_eq(run.process.returncode, 2, "exit status of --junit-in=")


BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE testsuites [\n<!ENTITY a "aaaaaaaaaa">\n'
    + "".join('<!ENTITY %s "%s">\n' % (chr(ord("b") + i), ("&%s;" % chr(
        ord("a") + i)) * 10) for i in range(9))
    + ']>\n<testsuites><testsuite name="s"><testcase name="&j;"/>'
    '</testsuite></testsuites>')

EXTERNAL_ENTITY = (
    '<?xml version="1.0"?>\n<!DOCTYPE testsuites [\n'
    '<!ENTITY secret SYSTEM "file:///etc/passwd">\n]>\n'
    '<testsuites><testsuite name="s"><testcase name="&secret;"/>'
    '</testsuite></testsuites>')


# A DOCTYPE after a comment and a processing instruction is still the
# prolog's: refused before the entity it declares is met.
COMMENTED_ENTITY = (
    '<?xml version="1.0"?>\n<!-- c --><?pi x?>\n<!-- d -->'
    + EXTERNAL_ENTITY[len('<?xml version="1.0"?>\n'):])


@CASES("wrap_junit_in_hostile_reports_are_errors")
def wraps_junit_in_hostile(c):
    # Each report the command writes is refused with an error naming the
    # file (and the line:column where the XML broke), in bounded time,
    # with every report of the run valid.
    refused = "a JUnit report has no document type declaration (<!DOCTYPE>)"
    for label, make, said in (
            ("malformed", "printf '<testsuites>\\n<testsuite name=\"s\">"
             "<testcase name=\"a\">\\n</testsuites>' > inner.xml",
             ":3:14: the JUnit report is not well-formed XML: Opening and "
             "ending tag mismatch"),
            ("an entity bomb", "printf '%%s' '%s' > inner.xml"
             % BILLION_LAUGHS, refused),
            ("an external entity", "printf '%%s' '%s' > inner.xml"
             % EXTERNAL_ENTITY, refused),
            ("a DOCTYPE after a comment", "printf '%%s' '%s' > inner.xml"
             % COMMENTED_ENTITY, refused),
            ("invalid UTF-8", "printf '<testsuites><testsuite name=\"s\">\\n"
             "<testcase name=\"\\377\\376\"/></testsuite></testsuites>' "
             "> inner.xml", ":2:"),
            ("a report past 64 MiB",
             "printf '<testsuites>' > inner.xml; truncate -s 65M inner.xml",
             "the JUnit report is not read: it is larger than 64 MiB"),
            ("a FIFO", "mkfifo inner.xml",
             "the JUnit report is not read: it is not a regular file"),
            ("a link to /dev/zero", "ln -s /dev/zero inner.xml",
             "the JUnit report is not read: it is a symbolic link"),
            ("not JUnit", "echo '<html/>' > inner.xml",
             "not a JUnit report: its root element is <html>"),
            ("empty", ": > inner.xml",
             ":1:1: the JUnit report is not well-formed XML")):
        run = c.tattle_run(["sh", "-c", make], ["--junit-in", "inner.xml"])
        c.expect_eq(run.process.returncode, 1, "exit status with %s" % label)
        kinds = [f["kind"] for f in run.test["failures"]]
        c.require(kinds == ["error"], "%s: failures %r" % (label, kinds))
        message = run.test["failures"][0]["message"]
        path = os.path.join(os.path.realpath(run.cwd), "inner.xml")
        c.expect(message.startswith(path + (":" if said.startswith(":")
                                            else ": ")) and said in message,
                 "%s: the error %r does not name %s and say %r"
                 % (label, message, path, said))
        c.expect("root:" not in json.dumps(run.report),
                 "%s: a local file's text is in the report" % label)
    # 100,000 test cases are read in bounded time and memory.
    cwd = c.new_dir()
    driver.write(os.path.join(cwd, "source.xml"),
                 '<testsuites><testsuite name="big">'
                 + "".join('<testcase name="t%d" time="0.001"/>' % i
                           for i in range(100000))
                 + '<testcase name="last"><failure message="m"/></testcase>'
                 '</testsuite></testsuites>')
    run = c.tattle_run(["sh", "-c", "cp source.xml inner.xml; exit 1"],
                       ["--junit-in", "inner.xml", "--json", "report.json"],
                       reports=False, cwd=cwd)
    c.expect_eq(run.process.returncode, 1, "exit status of 100,001 tests")
    with open(run.path("report.json"), encoding="utf-8") as f:
        report = json.load(f)
    tests = report["tests"]
    c.expect_eq((len(tests), tests[0]["id"], tests[-1]["id"],
                 tests[-1]["state"], report["summary"]["passed"]),
                (100001, "big/t0", "big/last", "failed", 100000),
                "the 100,001 tests")


@CASES("wrap_junit_in_removes_only_a_regular_earlier_report")
def wraps_junit_in_removes_regular(c):
    # What is at FILE before the command runs is removed only when it is a
    # regular file: a symbolic link (and what it points to), a directory
    # and a FIFO stay, and the command is not run, with an error naming
    # the path.
    for label, make, said in (
            ("a symbolic link", lambda p: os.symlink("target.xml", p),
             "it is a symbolic link, not a regular file"),
            ("a directory", os.mkdir, "it is a directory, not a regular file"),
            ("a FIFO", os.mkfifo, "it is not a regular file")):
        cwd = c.new_dir()
        driver.write(os.path.join(cwd, "target.xml"), NESTED_REPORT)
        path = os.path.join(os.path.realpath(cwd), "inner.xml")
        make(path)
        run = c.tattle_run(["sh", "-c", "echo ran > ran.txt"],
                           ["--junit-in", "inner.xml"], cwd=cwd)
        c.expect_eq(run.process.returncode, 1, "exit status with %s" % label)
        c.expect_eq([(f["kind"], f["message"]) for f in run.test["failures"]],
                    [("error", "cannot remove the earlier JUnit report at "
                      "%s: %s; the command is not run" % (path, said))],
                    "the error with %s" % label)
        c.expect(os.path.lexists(path), "%s was removed" % label)
        c.expect(os.path.exists(os.path.join(cwd, "target.xml")),
                 "the file %s points to was removed" % label)
        c.expect(not os.path.exists(os.path.join(cwd, "ran.txt")),
                 "the command ran with %s at the path" % label)


# Past libxml2's bound on one text node (10 MB).
BIG_TEXT = 20 * 1024 * 1024
# What a captured stream keeps: its first and last 32 KiB.
KEPT = 64 * 1024


@CASES("wrap_junit_in_bounds_what_a_test_case_keeps")
def wraps_junit_in_bounded(c):
    # A test case with 20 MB of output and 20 MB of failure text (in a
    # CDATA section) is read, each kept as a captured stream is: its head
    # and tail, the omission marked, the byte count exact.
    cwd = c.new_dir()
    printed = "H" * 100 + "o" * (BIG_TEXT - 200) + "T" * 100
    driver.write(os.path.join(cwd, "source.xml"),
                 '<testsuite name="s"><testcase name="loud">'
                 '<failure message="m"><![CDATA[f.c:3: boom\n'
                 + "x" * BIG_TEXT + "END]]></failure>"
                 "<system-out>" + printed + "</system-out>"
                 "<system-err>" + "e&amp;" * 10 + "</system-err>"
                 '</testcase><testcase name="amp"><skipped message="a &amp; b"/>'
                 "</testcase></testsuite>")
    run = c.tattle_run(["sh", "-c", "cp source.xml inner.xml; exit 1"],
                       ["--junit-in", "inner.xml"], cwd=cwd, tests=2)
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq(states(run), {"s/loud": "failed", "s/amp": "skipped"},
                "states")
    c.expect_eq(run.tests["s/amp"].get("skip_reason"), "a & b",
                "an attribute's &amp;")
    loud = run.tests["s/loud"]
    output = loud["output"]
    stdout = output["stdout"]
    marker = "[... tattle: %d bytes omitted ...]" % (BIG_TEXT - KEPT)
    c.expect_eq((output["stdout_bytes"], output["truncated"],
                 output["stderr"], output["stderr_bytes"]),
                (BIG_TEXT, True, "e&" * 10, 20), "the output's counts")
    c.expect(stdout.startswith("H" * 100) and stdout.endswith("T" * 100)
             and marker in stdout and len(stdout) < KEPT + 100,
             "stdout is not its head and tail (%d characters): %r..."
             % (len(stdout), stdout[:200]))
    kinds = [(f["kind"], f.get("file"), f.get("line"))
             for f in loud["failures"]]
    c.expect_eq(kinds, [("assertion", "f.c", 3)], "the failure")
    message = loud["failures"][0]["message"]
    c.expect(message.startswith("m\nf.c:3: boom\nxxx")
             and message.endswith("xxxEND") and "bytes omitted ...]" in message
             and len(message) < KEPT + 100,
             "the failure's text is not its head and tail (%d characters)"
             % len(message))


@CASES("wrap_junit_in_reads_a_flood_of_failures_in_bounded_memory")
def wraps_junit_in_flood(c):
    # 300,000 failures in one test case: read as they stream by, the
    # first 100 kept and the rest counted, the memory of the tattle
    # command bounded (the whole test case expanded took gigabytes).
    cwd = c.new_dir()
    flood = 300000
    driver.write(os.path.join(cwd, "source.xml"),
                 '<testsuite name="s"><testcase name="flood">'
                 + '<failure message="m" file="f.c" line="1">t</failure>'
                 * flood + '</testcase><testcase name="after"/></testsuite>')
    run = c.tattle_run(["sh", "-c", "cp source.xml inner.xml; exit 1"],
                       ["--junit-in", "inner.xml"], cwd=cwd, tests=2)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    c.expect_eq(states(run), {"s/flood": "failed", "s/after": "passed"},
                "states")
    messages = [f["message"] for f in run.tests["s/flood"]["failures"]]
    c.expect_eq((len(messages), messages[0], messages[-1]),
                (100, "m\nt", "m\nt\n[... tattle: %d more failures and "
                 "errors of this test case omitted ...]" % (flood - 100)),
                "the failures kept")
    # The report is 16 MB: reading it whole, and the runner's own
    # memory, are well under this bound.
    c.expect(peak_mib < 200, "a process of the run peaked at %.0f MiB"
             % peak_mib)


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


@CASES("wrap_junit_in_reads_a_report_to_its_end_or_refuses_it")
def wraps_junit_in_to_its_end(c):
    # A report the parser could not read to its end is an error, never
    # the tests read before it stopped: here a byte the encoding its
    # declaration names has no character for, in a failure, with more
    # than a piece (1 MiB) of the report after it. A report whose first
    # bytes say an encoding other than UTF-8 is refused before parsing
    # (no converter the file chooses runs on it).
    cut = (b'<?xml version="1.0" encoding="windows-1252"?>\n'
           b'<testsuite name="s"><testcase name="a">\n'
           b'<failure message="m">lost \x81 here</failure>'
           + b"<system-out>" + b"o" * (2 * 1024 * 1024) + b"</system-out>"
           b'</testcase><testcase name="b"/></testsuite>\n')
    utf16 = ('\ufeff<testsuite name="s"><testcase name="a"/></testsuite>'
             .encode("utf-16-le"))
    # "<?xml" in EBCDIC (code page 037), then a document type declaration
    # the byte scan before parsing cannot see.
    ebcdic = ('<?xml version="1.0"?><!DOCTYPE testsuite ['
              '<!ENTITY x SYSTEM "file:///etc/passwd">]>'
              '<testsuite name="s"><testcase name="&x;"/></testsuite>'
              .encode("cp037"))
    for label, data, said in (
            ("an encoding error", cut, ":3:"),
            ("UTF-16", utf16, ": the JUnit report is not read: it is not "
             "UTF-8"),
            ("EBCDIC", ebcdic, ": the JUnit report is not read: it is not "
             "UTF-8")):
        cwd = c.new_dir()
        write_bytes(os.path.join(cwd, "source.xml"), data)
        run = c.tattle_run(["sh", "-c", "cp source.xml inner.xml"],
                           ["--junit-in", "inner.xml"], cwd=cwd)
        c.expect_eq(run.process.returncode, 1, "exit status with %s" % label)
        kinds = [f["kind"] for f in run.test["failures"]]
        c.require(kinds == ["error"], "%s: test %s, failures %r"
                  % (label, run.test["id"], kinds))
        message = run.test["failures"][0]["message"]
        path = os.path.join(os.path.realpath(cwd), "inner.xml")
        c.expect(message.startswith(path + said), "%s: the error %r does "
                 "not start %r" % (label, message, path + said))
        c.expect("\n" not in message, "%s: the error %r is not one line"
                 % (label, message))
        c.expect("root:" not in json.dumps(run.report),
                 "%s: a local file's text is in the report" % label)


@CASES("wrap_junit_in_bounds_names_and_what_a_report_keeps")
def wraps_junit_in_names_bounded(c):
    # Each test case copies its suite's name: 200,000 short test cases in
    # a suite named with 64 KiB are refused once the report keeps too
    # much, in bounded memory (the names whole took 12 GiB).
    cwd = c.new_dir()
    count = 200000
    driver.write(os.path.join(cwd, "source.xml"),
                 '<testsuite name="' + "s" * (64 * 1024) + '">'
                 + "".join('<testcase name="t%d"/>' % i for i in range(count))
                 + "</testsuite>")
    run = c.tattle_run(["sh", "-c", "cp source.xml inner.xml"],
                       ["--junit-in", "inner.xml"], cwd=cwd)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    c.expect_eq(run.process.returncode, 1, "exit status")
    c.expect_eq([f["kind"] for f in run.test["failures"]], ["error"],
                "the failures")
    message = run.test["failures"][0]["message"]
    path = os.path.join(os.path.realpath(cwd), "inner.xml")
    c.expect(message.startswith(path + ":1:") and message.endswith(
        ": the JUnit report holds more than 256 MiB of names, messages and "
        "output: refused"), "the error %r" % message)
    # Sanitizer builds (a larger wait scale) take more memory per byte.
    bound_mib = 512 * driver.wait_scale()
    c.expect(peak_mib < bound_mib, "a process of the run peaked at %.0f MiB"
             " (bound %.0f MiB)" % (peak_mib, bound_mib))
    # A name, classname and file keep their first 1 KiB, cut where a
    # character starts (a 3-byte euro sign straddles byte 1,024), with no
    # mark and on one line.
    run = c.tattle_run(writes_report(
        '<testsuite name="' + "\u20ac" * 400 + '"><testcase name="'
        + "n" * 70000 + '" file="' + "f" * 5000 + '" line="3">'
        '<failure message="m"/></testcase><testcase classname="'
        + "c" * 2000 + '" name="b"/></testsuite>'), ["--junit-in",
                                                    "inner.xml"], tests=2)
    c.expect_eq(sorted(run.tests), sorted([
        "\u20ac" * 341 + "/" + "n" * 1024, "c" * 1024 + "/b"]), "the ids")
    first = run.tests["\u20ac" * 341 + "/" + "n" * 1024]
    c.expect_eq((first["suite"], first["name"], first.get("file")),
                ("\u20ac" * 341, "n" * 1024, "f" * 1024), "the cut names")
    c.expect_eq([(f["message"], f.get("file")) for f in first["failures"]],
                [("m", "f" * 1024)], "the failure")


@CASES("wrap_junit_in_refuses_a_start_tag_of_many_attributes")
def wraps_junit_in_many_attributes(c):
    # libxml2 checks a start tag's attributes for repeats in quadratic
    # time: a tag with more than 1,000 is refused before parsing, naming
    # its line; an '=' in a value, a comment or a CDATA section is no
    # attribute.
    crowded = ('<testsuite name="s">\n<!-- ' + "a= " * 2000 + '-->\n'
               '<testcase name="a"><failure message="' + "=" * 2000 + '">'
               '<![CDATA[' + "b= " * 2000 + ']]></failure></testcase>\n'
               '<testcase name="b" ' + " ".join(
                   'x%d="1"' % i for i in range(1000)) + '/>\n</testsuite>')
    run = c.tattle_run(["sh", "-c", "printf '%s' \"$1\" > inner.xml", "sh",
                        crowded], ["--junit-in", "inner.xml"])
    c.expect_eq([f["kind"] for f in run.test["failures"]], ["error"],
                "the failures")
    message = run.test["failures"][0]["message"]
    path = os.path.join(os.path.realpath(run.cwd), "inner.xml")
    c.expect_eq(message, path + ":4: the JUnit report has a start tag with "
                "more than 1000 attributes: refused", "the error")
    # 1,000 are read.
    run = c.tattle_run(writes_report(crowded.replace(
        ' x999="1"', "")), ["--junit-in", "inner.xml"], tests=2)
    c.expect_eq(states(run), {"s/a": "failed", "s/b": "passed"}, "states")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--tattle", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--gtest-program")
    for framework in ("cmocka", "check", "criterion"):
        parser.add_argument("--%s-program" % framework)
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
