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
import shutil
import subprocess
import sys

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402

JUNIT_SCHEMA = os.path.join(SOURCE_DIR, "schemas", "junit.xsd")
RUNNER_VARIABLES = ("TATTLE_TIMEOUT_MULTIPLIER", "TATTLE_CONFIG", "NO_COLOR",
                    "TATTLE_REPORT_DIR")
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

    def path(self, name):
        return os.path.join(self.cwd, name)


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-wrap-")
        self.options = options
        self.env = {k: v for k, v in os.environ.items()
                    if k not in RUNNER_VARIABLES}

    def tattle_run(self, command, options=(), reports=True, cwd=None,
                   pass_fds=()):
        """tattle run [options, every report flag] -- command, in a new
        directory; the JSON report read, validated, and its one test
        kept."""
        cwd = cwd or self.new_dir()
        argv = [self.options.tattle, "run", "--color=never"] + list(options)
        if reports:
            argv += REPORT_FLAGS
        argv += ["--"] + list(command)
        process = subprocess.run(argv, cwd=cwd, env=self.env,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, pass_fds=pass_fds,
                                 timeout=60 * driver.wait_scale())
        run = Run(process, cwd)
        if reports:
            self.check_reports(run)
        return run

    def check_reports(self, run):
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
        self.require(len(run.report["tests"]) == 1,
                     "one test expected: %r" % run.report["tests"])
        run.test = run.report["tests"][0]
        if shutil.which("xmllint"):
            done = subprocess.run(["xmllint", "--noout", "--schema",
                                   JUNIT_SCHEMA, run.path("report.xml")],
                                  capture_output=True, text=True)
            self.expect(done.returncode == 0, "xmllint: %s"
                        % done.stderr[-2000:])
        with open(run.path("report.ctrf.json"), encoding="utf-8") as f:
            ctrf = json.load(f)
        ctrf_tests = ctrf["results"]["tests"]
        self.expect(ctrf["reportFormat"] == "CTRF" and len(ctrf_tests) == 1
                    and ctrf_tests[0]["status"] == run.test["state"],
                    "CTRF does not say %s: %r" % (run.test["state"], ctrf))
        tap = driver.read(run.path("report.tap"))
        ok = "ok 1 - " if run.test["state"] == "passed" else "not ok 1 - "
        self.expect("1..1" in tap and ok + run.test["id"] in tap,
                    "TAP does not say %r:\n%s" % (ok + run.test["id"], tap))
        html = driver.read(run.path("report.html"))
        self.expect(run.test["id"] in html, "the HTML report lacks the id")

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
    c.expect(rerun.endswith(" run --name=run/true -- true"),
             "rerun: %r" % rerun)
    # The rerun command runs the command again, alone.
    again = subprocess.run(rerun, shell=True, cwd=run.cwd, env=c.env,
                           capture_output=True, text=True, timeout=60)
    c.expect_eq(again.returncode, 0, "exit status of the rerun")
    c.expect("run/true" in again.stdout + again.stderr,
             "the rerun does not name run/true: %r" % again.stdout)


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
    timeout_ms = int(1000 * driver.wait_scale())
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
             and "--timeout" in done.stdout, "tattle run --help: %r"
             % done.stdout[:500])
    done = subprocess.run([c.options.tattle, "run", "--version"],
                          capture_output=True, text=True, timeout=60)
    c.expect(done.returncode == 0 and done.stdout.startswith("tattle "),
             "tattle run --version: %r" % done.stdout)
    done = subprocess.run([c.options.tattle, "--help"],
                          capture_output=True, text=True, timeout=60)
    c.expect("run [OPTIONS] -- COMMAND" in done.stdout,
             "tattle --help does not list run")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--tattle", required=True)
    parser.add_argument("--program", required=True)
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
