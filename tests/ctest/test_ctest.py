#!/usr/bin/env python3
"""Tests of `tattle ctest`: a small CMake project, written into the case's
scratch directory and configured and built with this build's cmake and C
compiler, has a passing test (which checks the ENVIRONMENT and the
WORKING_DIRECTORY it was given), a failing one (a name with a space), a
crashing one (SIGSEGV) and a hanging one (TIMEOUT, scaled by
TATTLE_TIMEOUT_MULTIPLIER), with LABELS. `tattle ctest` must write one
report of them, schema-valid (tests/tools/validate_json.py; the JUnit XML
with xmllint when it is here), with each test's state, the hang's thread
stacks and the labels as tags; -R/-E/-L/-LE select as ctest does; bad
usage and a directory ctest cannot list exit 2 and write nothing. Further
cases check the inner tests qualified by the CTest name (and their
reruns), WILL_FAIL, ENVIRONMENT_MODIFICATION (against ctest's own),
RUN_SERIAL and RESOURCE_LOCK (probes that fail when they meet), DEPENDS
and the fixtures (marker files each test requires), a cycle of DEPENDS,
an interrupted run (SIGINT to its process group once the hanging test
wrote its pid), a tattle that can no longer be executed, and the
launcher's equivalent on CMake before 3.29 (`tattle run` in each
add_test, then ctest -j2 and tattle merge).

    test_ctest.py CASE --tattle PATH --cmake PATH --ctest PATH --cc PATH
                  [--gtest-program PATH] [--check-program PATH]

The hanging program writes a file once its thread waits; the case checks
that file, not a time. Exits 0 when every check held, 1 otherwise, 77 when
the case cannot run here (ptrace refused for the stacks, no GoogleTest).
"""
import argparse
import json
import os
import shlex
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

JUNIT_SCHEMA = os.path.join(SOURCE_DIR, "schemas", "junit.xsd")

PROGRAMS = {
    "pass.c": r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Passes only with the test's ENVIRONMENT, in its WORKING_DIRECTORY. */
int main(void)
{
    const char *greeting = getenv("CTEST_CASE_GREETING");
    if (!greeting || strcmp(greeting, "hello there") != 0) {
        fprintf(stderr, "no ENVIRONMENT\n");
        return 5;
    }
    FILE *marker = fopen("marker", "r");
    if (!marker) {
        fprintf(stderr, "not in the WORKING_DIRECTORY\n");
        return 6;
    }
    fclose(marker);
    return 0;
}
""",
    "fail.c": r"""
#include <stdio.h>
int main(void)
{
    fputs("the answer was wrong\n", stderr);
    return 3;
}
""",
    "skip.c": r"""
int main(void)
{
    return 77;
}
""",
    "crash.c": r"""
#include <signal.h>
int main(void)
{
    raise(SIGSEGV);
    return 0;
}
""",
    "meet.c": r"""
#include <stdio.h>
#include <time.h>
#include <unistd.h>
/* Writes argv[1], then waits until argv[2] is there (the other test of
 * the pair runs at the same time) or its timeout kills it. */
int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    FILE *mine = fopen(argv[1], "w");
    if (!mine)
        return 2;
    fclose(mine);
    struct timespec poll = {0, 10 * 1000 * 1000};
    while (access(argv[2], F_OK) != 0)
        nanosleep(&poll, NULL);
    return 0;
}
""",
    "tool.c": r"""
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
/* tool exit N: exits with N.
 * tool step DIR NAME [REQ...]: each REQ X must be a file in DIR, !X must
 *   not; then DIR/NAME is made. Exits 1 naming a REQ that does not hold.
 * tool probe DIR NAME WAIT_MS [OTHER...]: makes DIR/NAME.running, then
 *   for up to WAIT_MS fails (exit 1) as soon as DIR/OTHER.running is
 *   there for an OTHER; removes its file and passes at the end.
 * tool env OUT NAME...: writes NAME=VALUE or NAME unset, a line each. */
static int exists(const char *dir, const char *name, const char *suffix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    return access(path, F_OK) == 0;
}
static void make(const char *dir, const char *name, const char *suffix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    FILE *file = fopen(path, "w");
    if (file)
        fclose(file);
}
int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "exit") == 0)
        return atoi(argv[2]);
    if (argc >= 4 && strcmp(argv[1], "step") == 0) {
        for (int i = 4; i < argc; i++) {
            int absent = argv[i][0] == '!';
            if (exists(argv[2], argv[i] + absent, "") == absent) {
                fprintf(stderr, "requirement %s does not hold\n", argv[i]);
                return 1;
            }
        }
        make(argv[2], argv[3], "");
        return 0;
    }
    if (argc >= 5 && strcmp(argv[1], "probe") == 0) {
        make(argv[2], argv[3], ".running");
        struct timespec start, now, poll = {0, 5 * 1000 * 1000};
        clock_gettime(CLOCK_MONOTONIC, &start);
        long wait_ms = atol(argv[4]);
        for (;;) {
            for (int i = 5; i < argc; i++)
                if (exists(argv[2], argv[i], ".running")) {
                    fprintf(stderr, "%s ran alongside %s\n", argv[3],
                            argv[i]);
                    return 1;
                }
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((now.tv_sec - start.tv_sec) * 1000 +
                    (now.tv_nsec - start.tv_nsec) / 1000000 >= wait_ms)
                break;
            nanosleep(&poll, NULL);
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.running", argv[2], argv[3]);
        unlink(path);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "env") == 0) {
        FILE *out = fopen(argv[2], "w");
        if (!out)
            return 2;
        for (int i = 3; i < argc; i++) {
            const char *value = getenv(argv[i]);
            if (value)
                fprintf(out, "%s=%s\n", argv[i], value);
            else
                fprintf(out, "%s unset\n", argv[i]);
        }
        fclose(out);
        return 0;
    }
    return 2;
}
""",
    "hang.c": r"""
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
/* Waits forever in a second thread and in main, once it wrote its pid
 * into argv[1]. */
static const char *ready_path;
__attribute__((noinline)) void *ctest_hang_in_thread(void *unused)
{
    (void)unused;
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.new", ready_path);
    FILE *ready = fopen(temporary, "w");
    if (ready) {
        fprintf(ready, "%d\n", (int)getpid());
        fclose(ready);
        rename(temporary, ready_path);
    }
    for (;;)
        pause();
    return NULL;
}
__attribute__((noinline)) void ctest_hang_in_main(pthread_t thread)
{
    pthread_join(thread, NULL);
}
int main(int argc, char **argv)
{
    pthread_t thread;
    ready_path = argc > 1 ? argv[1] : "ready";
    pthread_create(&thread, NULL, ctest_hang_in_thread, NULL);
    ctest_hang_in_main(thread);
    return 0;
}
""",
}

PROJECT = r"""
cmake_minimum_required(VERSION 3.16...3.28)
project(consumer C)
find_package(Threads REQUIRED)
enable_testing()
foreach(program pass fail skip crash hang meet tool)
  add_executable(${program} ${program}.c)
endforeach()
target_link_libraries(hang Threads::Threads)
add_test(NAME passes COMMAND pass WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/work)
set_tests_properties(passes PROPERTIES LABELS "fast;unit"
  ENVIRONMENT "CTEST_CASE_GREETING=hello there")
add_test(NAME "fails loudly" COMMAND fail)
set_tests_properties("fails loudly" PROPERTIES LABELS "fast")
add_test(NAME crashes COMMAND crash)
set_tests_properties(crashes PROPERTIES LABELS "unit")
add_test(NAME hangs COMMAND hang ${CMAKE_BINARY_DIR}/hang-ready)
set_tests_properties(hangs PROPERTIES LABELS "slow;needs network"
  TIMEOUT @TIMEOUT@)
@EXTRA@
"""

CheckFailed = driver.CheckFailed


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-ctest-")
        self.options = options
        # ctest from this build, first on PATH: tattle ctest runs "ctest".
        self.env = driver.clean_env()
        self.env["PATH"] = (os.path.dirname(os.path.abspath(options.ctest)) +
                            os.pathsep + self.env.get("PATH", ""))
        self.timeout_s = 2 * driver.wait_scale()
        # A temporary directory of the case's own, to see it left empty.
        self.env["TMPDIR"] = os.path.join(self.scratch, "tmp")
        os.mkdir(self.env["TMPDIR"])

    def project(self, extra=""):
        """The project written, configured and built; its build tree."""
        source = os.path.join(self.scratch, "project")
        os.makedirs(os.path.join(source, "work"))
        driver.write(os.path.join(source, "work", "marker"), "")
        for name, text in PROGRAMS.items():
            driver.write(os.path.join(source, name), text)
        driver.write(os.path.join(source, "CMakeLists.txt"),
                     PROJECT.replace("@TIMEOUT@", "%g" % self.timeout_s)
                     .replace("@EXTRA@", extra))
        build = os.path.join(self.scratch, "build")
        for argv in ([self.options.cmake, "-S", source, "-B", build,
                      "-DCMAKE_C_COMPILER=" + self.options.cc,
                      "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_C_FLAGS=-O0 -g"],
                     [self.options.cmake, "--build", build]):
            done = subprocess.run(argv, env=self.env, capture_output=True,
                                  text=True, timeout=300 * driver.wait_scale())
            self.require(done.returncode == 0, "%s failed:\n%s%s"
                         % (" ".join(argv), done.stdout[-3000:],
                            done.stderr[-3000:]))
        return build

    def tattle_ctest(self, args, cwd):
        return subprocess.run([self.options.tattle, "ctest"] + list(args),
                              cwd=cwd, env=self.env, capture_output=True,
                              text=True, timeout=120 * driver.wait_scale())

    def report(self, path):
        """The JSON report at `path`, validated."""
        self.require(os.path.exists(path), "no report %s" % path)
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        for p in validate_json.check_report(report, complete=True):
            self.problems.append("%s does not validate: %s" % (path, p))
        return report

    def check_hang_stacks(self, hang, build):
        """The hanging program's timeout `hang` shows both its threads'
        stacks; exits 77 when ptrace was refused."""
        if "ptrace was refused" in hang["message"]:
            print("skipped: ptrace is refused here: %s" % hang["message"])
            sys.exit(77)
        self.require(os.path.exists(os.path.join(build, "hang-ready")),
                     "the hanging program never got its thread waiting")
        functions = [f.get("function") for thread in hang.get("stacks", [])
                     for f in thread["frames"]]
        for function in ("ctest_hang_in_thread", "ctest_hang_in_main"):
            self.expect(function in functions, "%s not in the hang's "
                        "stacks: %r" % (function, functions))

    def check_junit_schema(self, path):
        """The JUnit XML at `path` checked against schemas/junit.xsd, when
        xmllint is here."""
        if not shutil.which("xmllint"):
            return
        lint = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_SCHEMA,
                               path], capture_output=True, text=True)
        self.expect(lint.returncode == 0, "xmllint: %s" % lint.stderr[-2000:])


CASES = driver.Cases()


def wait_until(condition, seconds):
    """Whether `condition` held within `seconds` (polled)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def ids(report):
    return [t["id"] for t in report["tests"]]


@CASES("ctest_runs_each_test_into_one_report")
def runs_each_test(c):
    build = c.project()
    done = c.tattle_ctest(["-j2", "--json", "r.json", "--junit", "r.xml",
                           "--jsonl", "r.jsonl", "--tap", "r.tap"], build)
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    tests = {t["id"]: t for t in report["tests"]}
    c.expect_eq(ids(report), ["ctest/passes", "ctest/fails loudly",
                              "ctest/crashes", "ctest/hangs"],
                "the tests, in CTest's order")
    c.expect_eq({i: t["state"] for i, t in tests.items()},
                {"ctest/passes": "passed", "ctest/fails loudly": "failed",
                 "ctest/crashes": "failed", "ctest/hangs": "failed"},
                "states")
    c.expect_eq(report["summary"]["passed"], 1, "passed count")
    c.expect_eq(report["summary"]["failed"], 3, "failed count")
    c.expect_eq(tests["ctest/passes"].get("tags"),
                {"fast": True, "unit": True}, "labels as tags")
    c.expect_eq(tests["ctest/hangs"].get("tags"),
                {"slow": True, "needs_network": True},
                "labels as tags (a space cannot be in a tag)")

    def kinds(test_id):
        return [(f["kind"], f.get("signal"))
                for f in tests[test_id].get("failures", [])]

    c.expect_eq(kinds("ctest/fails loudly"), [("exit", None)], "fail")
    c.expect("the answer was wrong" in
             tests["ctest/fails loudly"]["output"]["stderr"],
             "the failing test's stderr: %r" % tests["ctest/fails loudly"])
    c.expect_eq(kinds("ctest/crashes"), [("crash", "SIGSEGV")], "crash")
    c.require(kinds("ctest/hangs") == [("timeout", None)],
              "hang: %r" % tests["ctest/hangs"])
    hang = tests["ctest/hangs"]["failures"][0]
    c.expect_eq(hang.get("timeout_ms"), int(c.timeout_s * 1000),
                "the TIMEOUT property as the timeout")
    c.check_hang_stacks(hang, build)

    stream = driver.read(os.path.join(build, "r.jsonl"))
    for p in validate_json.check_stream(stream):
        c.problems.append("r.jsonl does not validate: %s" % p)
    junit = driver.read(os.path.join(build, "r.xml"))
    c.expect_eq(junit.count("<testcase "), 4, "JUnit testcases")
    c.expect('name="fails loudly"' in junit, "JUnit lacks the failing test")
    c.check_junit_schema(os.path.join(build, "r.xml"))
    tap = driver.read(os.path.join(build, "r.tap"))
    c.expect("1..4" in tap and "ok 1 - ctest/passes" in tap and
             "not ok 4 - ctest/hangs" in tap, "TAP:\n%s" % tap)
    # One line per finished test on the console.
    for word, name in (("PASS", "passes"), ("FAIL", "fails loudly"),
                       ("FAIL", "crashes"), ("FAIL", "hangs")):
        c.expect("%-5s ctest/%s\n" % (word, name) in done.stdout,
                 "console lacks %s %s:\n%s" % (word, name, done.stdout))
    c.expect_eq(os.listdir(c.env["TMPDIR"]), [],
                "what tattle ctest left in its temporary directory")


@CASES("ctest_selection_arguments_pick_the_tests")
def selection(c):
    build = c.project()
    # The hanging test is never picked: each run is quick.
    for args, expected, status in (
            (["-R", "^pass"], ["ctest/passes"], 0),
            (["-R", "s$", "-E", "hang"], ["ctest/passes", "ctest/crashes"],
             1),
            (["-L", "fast"], ["ctest/passes", "ctest/fails loudly"], 1),
            (["-L", "unit", "-LE", "fast"], ["ctest/crashes"], 1),
            (["-j", "2", "-LE", "slow|unit"], ["ctest/fails loudly"], 1)):
        report_path = os.path.join(build, "s.json")
        if os.path.exists(report_path):
            os.unlink(report_path)
        done = c.tattle_ctest(args + ["--json", "s.json"], build)
        c.expect_eq(done.returncode, status, "exit status of %r (%s)"
                    % (args, done.stderr))
        if os.path.exists(report_path):
            c.expect_eq(ids(c.report(report_path)), expected, repr(args))
        else:
            c.expect(False, "%r wrote no report: %s" % (args, done.stderr))
    # --test-dir lists another directory's tests.
    elsewhere = c.new_dir()
    done = c.tattle_ctest(["--test-dir", build, "-R", "^pass",
                           "--json", "t.json"], elsewhere)
    c.expect_eq(done.returncode, 0, "--test-dir (%s)" % done.stderr)
    c.expect_eq(ids(c.report(os.path.join(elsewhere, "t.json"))),
                ["ctest/passes"], "--test-dir")


@CASES("ctest_every_listed_test_is_in_the_report")
def every_test_reported(c):
    build = c.project(
        'add_test(NAME skips COMMAND skip)\n'
        'set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)\n'
        'add_test(NAME off COMMAND pass)\n'
        'set_tests_properties(off PROPERTIES DISABLED TRUE LABELS unit)\n'
        'add_test(NAME gone COMMAND /nonexistent/program)\n'
        'add_test(NAME nowhere COMMAND pass WORKING_DIRECTORY /nonexistent)\n')
    done = c.tattle_ctest(["-R", "^(passes|skips|off|gone|nowhere)$",
                           "--json", "r.json", "--junit", "r.xml"], build)
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    tests = {t["id"]: t for t in report["tests"]}
    c.expect_eq(ids(report), ["ctest/passes", "ctest/skips", "ctest/off",
                              "ctest/gone", "ctest/nowhere"],
                "every listed test")
    c.expect_eq((tests.get("ctest/skips", {}).get("state"),
                 tests.get("ctest/skips", {}).get("skip_reason")),
                ("skipped", "the command exited with 77, its skip status"),
                "the test that exited with its SKIP_RETURN_CODE")
    c.expect_eq(tests.get("ctest/off", {}).get("state"), "skipped",
                "the DISABLED test")
    c.expect_eq(tests.get("ctest/off", {}).get("skip_reason"),
                "DISABLED in CTest", "its reason")
    c.expect_eq(tests.get("ctest/off", {}).get("tags"), {"unit": True},
                "its labels")
    for test_id, words in (("ctest/gone", "no command"),
                           ("ctest/nowhere",
                            "cannot enter its WORKING_DIRECTORY /nonexistent")):
        failures = tests.get(test_id, {}).get("failures", [])
        c.expect(tests.get(test_id, {}).get("state") == "failed" and
                 len(failures) == 1 and failures[0]["kind"] == "error" and
                 words in failures[0]["message"],
                 "%s: one error naming %r: %r" % (test_id, words,
                                                 tests.get(test_id)))
    junit = driver.read(os.path.join(build, "r.xml"))
    c.expect_eq(junit.count("<testcase "), 5, "JUnit testcases")


@CASES("ctest_j_runs_that_many_tests_at_once")
def parallel(c):
    build = c.project(
        'add_test(NAME meet_a COMMAND meet ${CMAKE_BINARY_DIR}/a '
        '${CMAKE_BINARY_DIR}/b)\n'
        'add_test(NAME meet_b COMMAND meet ${CMAKE_BINARY_DIR}/b '
        '${CMAKE_BINARY_DIR}/a)\n'
        'set_tests_properties(meet_a meet_b PROPERTIES TIMEOUT %g)\n'
        % c.timeout_s)
    # Each of the pair passes only while the other runs: with -j2 both
    # pass.
    done = c.tattle_ctest(["-j2", "-R", "^meet", "--json", "two.json"], build)
    c.expect_eq(done.returncode, 0, "-j2 exit status (%s%s)"
                % (done.stdout, done.stderr))
    report = c.report(os.path.join(build, "two.json"))
    c.expect_eq([t["state"] for t in report["tests"]], ["passed", "passed"],
                "-j2 states")
    # One at a time, the first waits alone until its timeout; the second
    # then finds the first's file.
    for name in ("a", "b"):
        os.unlink(os.path.join(build, name))
    done = c.tattle_ctest(["-j", "1", "-R", "^meet", "--json", "one.json"],
                          build)
    c.expect_eq(done.returncode, 1, "-j1 exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "one.json"))
    c.expect_eq([(t["state"], [f["kind"] for f in t.get("failures", [])])
                 for t in report["tests"]],
                [("failed", ["timeout"]), ("passed", [])], "-j1 states")


@CASES("ctest_usage_and_listing_errors_exit_2")
def errors(c):
    cwd = c.new_dir()
    report = os.path.join(cwd, "keep.json")
    driver.write(report, "kept")
    for args, words in (
            (["--bogus", "--json", report], "unknown argument '--bogus'"),
            (["-j", "0", "--json", report], "-j needs a number"),
            (["--junit", report, "--json"], "--json needs a FILE"),
            (["--json", report, "-R"], "-R needs a value"),
            (["--json", report, "--test-dir", os.path.join(cwd, "nowhere")],
             "ctest cannot list the tests"),
            (["--json", report], "ctest lists no test")):
        done = c.tattle_ctest(args, cwd)
        c.expect_eq(done.returncode, 2, "exit status of %r" % args)
        lines = done.stderr.splitlines()
        c.expect(len(lines) == 1 and lines[0].startswith("tattle ctest: ") and
                 words in lines[0], "%r: one line naming %r expected: %r"
                 % (args, words, done.stderr))
        c.expect_eq(driver.read(report), "kept", "the report of %r" % args)
    done = subprocess.run([c.options.tattle, "ctest", "--help"],
                          capture_output=True, text=True, timeout=60)
    c.expect(done.returncode == 0 and "usage: tattle ctest" in done.stdout,
             "tattle ctest --help: %r" % done.stdout)


@CASES("ctest_inner_ids_are_qualified_by_the_ctest_name")
def equal_inner_ids(c):
    program = c.options.gtest_program
    if not program:
        print("skipped: no GoogleTest (libgtest-dev) in this build")
        sys.exit(77)
    build = c.project(
        'add_test(NAME first COMMAND "%s" --gtest_filter=Basics.Passes)\n'
        'add_test(NAME second COMMAND "%s" --gtest_filter=Basics.P*)\n'
        % (program, program))
    # Each CTest test's inner tests are NAME.SUITE/TEST, alone or together:
    # two programs with a test of the same name give one report.
    done = c.tattle_ctest(["-R", "^first$", "--json", "one.json"], build)
    c.expect_eq(done.returncode, 0, "exit status alone (%s)" % done.stderr)
    c.expect_eq(ids(c.report(os.path.join(build, "one.json"))),
                ["first.Basics/Passes"], "the inner test alone")
    done = c.tattle_ctest(["-R", "^(first|second)$", "--json", "two.json"],
                          build)
    c.expect_eq(done.returncode, 0, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "two.json"))
    c.expect_eq([(t["id"], t["suite"], t["name"], t["state"])
                 for t in report["tests"]],
                [("first.Basics/Passes", "first.Basics", "Passes", "passed"),
                 ("second.Basics/Passes", "second.Basics", "Passes",
                  "passed")], "both inner tests, qualified")
    # The rerun runs that inner test alone, under the same id.
    rerun = report["tests"][1]["rerun"] if report["tests"] else ""
    c.require("--gtest_filter=Basics.Passes" in rerun,
              "the rerun picks the inner test: %r" % rerun)
    again = subprocess.run(shlex.split(rerun), cwd=build, env=c.env,
                           capture_output=True, text=True,
                           timeout=120 * driver.wait_scale())
    c.expect_eq(again.returncode, 0, "the rerun's exit status (%s)"
                % again.stderr)
    argv = shlex.split(rerun)
    again = subprocess.run(argv[:2] + ["--json", "again.json"] + argv[2:],
                           cwd=build, env=c.env, capture_output=True,
                           text=True, timeout=120 * driver.wait_scale())
    c.expect_eq([(t["id"], t["state"]) for t in
                 c.report(os.path.join(build, "again.json"))["tests"]],
                [("second.Basics/Passes", "passed")], "the rerun's report")


@CASES("ctest_mixed_suites_give_one_result_per_inner_test")
def mixed_suites(c):
    # A project as people have one: a GoogleTest program (a passing, a
    # failing and a segfaulting test), a Check suite printing TAP, a
    # crashing and a hanging executable, run together with -j2.
    gtest, check = c.options.gtest_program, c.options.check_program
    if not gtest or not check:
        print("skipped: no GoogleTest (libgtest-dev) or Check in this build")
        sys.exit(77)
    build = c.project(
        'add_test(NAME unit COMMAND "%s" --gtest_filter=-Hangs.*)\n'
        'add_test(NAME checks COMMAND "%s")\n'
        'set_tests_properties(checks PROPERTIES LABELS c\n'
        '  ENVIRONMENT "CK_TAP_LOG_FILE_NAME=-;CK_FORK=yes")\n'
        % (gtest, check))
    done = c.tattle_ctest(["-j2", "-R", "^(unit|checks|crashes|hangs)$",
                           "--json", "r.json", "--junit", "r.xml"], build)
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    tests = {t["id"]: t for t in report["tests"]}
    # Each inner test is qualified by its CTest test's name, whatever
    # framework named it: Check's TCASE/TEST as GoogleTest's Suite/Name.
    c.expect_eq({i: t["state"] for i, t in tests.items()}, {
        "unit.Basics/Passes": "passed", "unit.Basics/Fails": "failed",
        "unit.Basics/Skips": "skipped", "unit.Crashes/Segfaults": "failed",
        "unit.After/NeverReached": "skipped",
        "checks.core/passes": "passed", "checks.core/fails": "failed",
        "checks.core/segfaults": "failed", "checks.core/exits_early": "failed",
        "ctest/crashes": "failed", "ctest/hangs": "failed"},
        "one result per inner test")
    # The Check suite's output is its failed points', not a result of
    # the CTest test beside them.
    c.expect("core:fails" in tests.get("checks.core/fails", {}).get(
        "output", {}).get("stdout", ""),
        "the Check point's stdout: %r" % tests.get("checks.core/fails"))
    c.expect_eq(tests.get("checks.core/fails", {}).get("tags"), {"c": True},
                "a Check point's tags are its CTest test's labels")
    segfault = tests.get("unit.Crashes/Segfaults", {}).get("failures", [])
    c.expect_eq([(f["kind"], f.get("signal")) for f in segfault],
                [("crash", "SIGSEGV")], "the segfault, on its inner test")
    c.expect_eq(tests.get("unit.After/NeverReached", {}).get("skip_reason"),
                "not run: the program crashed in Crashes.Segfaults",
                "the test the crash kept from running")
    hang = tests.get("ctest/hangs", {}).get("failures", [{}])[0]
    c.require(hang.get("kind") == "timeout", "hang: %r" % hang)
    c.check_hang_stacks(hang, build)
    junit = driver.read(os.path.join(build, "r.xml"))
    c.expect_eq(junit.count("<testcase "), len(tests), "JUnit testcases")
    c.check_junit_schema(os.path.join(build, "r.xml"))


@CASES("ctest_launcher_equivalent_for_older_cmake_then_merge")
def launcher_equivalent(c):
    # What CMake 3.29's TEST_LAUNCHER does, on any CMake: each add_test
    # runs its program by tattle run, named by its CTest name, into one
    # report directory; ctest -j2 runs them and tattle merge joins them.
    reports = os.path.join(c.scratch, "reports")
    build = c.project(
        'set(TATTLE "%s")\n'
        'set(TATTLE_REPORTS "%s")\n'
        'foreach(program pass fail)\n'
        '  add_test(NAME wrapped_${program} COMMAND ${TATTLE} run\n'
        '    --name ctest/wrapped_${program} --report-dir ${TATTLE_REPORTS}\n'
        '    -- $<TARGET_FILE:${program}>)\n'
        'endforeach()\n'
        'set_tests_properties(wrapped_pass PROPERTIES\n'
        '  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/work\n'
        '  ENVIRONMENT "CTEST_CASE_GREETING=hello there")\n'
        % (os.path.abspath(c.options.tattle), reports))
    done = subprocess.run([c.options.ctest, "-j2", "-R", "^wrapped_"],
                          cwd=build, env=c.env, capture_output=True,
                          text=True, timeout=120 * driver.wait_scale())
    c.expect_eq(done.returncode, 8, "ctest's exit status (%s)" % done.stdout)
    merged = os.path.join(build, "r.json")
    done = subprocess.run([c.options.tattle, "merge", "-o", merged, reports],
                          cwd=build, env=c.env, capture_output=True,
                          text=True, timeout=60 * driver.wait_scale())
    c.expect_eq(done.returncode, 0, "tattle merge (%s)" % done.stderr)
    report = c.report(merged)
    c.expect_eq(sorted((t["id"], t["state"]) for t in report["tests"]),
                [("ctest/wrapped_fail", "failed"),
                 ("ctest/wrapped_pass", "passed")], "the merged report")


@CASES("ctest_will_fail_inverts_an_exit_status")
def will_fail(c):
    build = c.project(
        'add_test(NAME expected_failure COMMAND tool exit 3)\n'
        'add_test(NAME unexpected_pass COMMAND tool exit 0)\n'
        'add_test(NAME expected_crash COMMAND crash)\n'
        'set_tests_properties(expected_failure unexpected_pass expected_crash\n'
        '  PROPERTIES WILL_FAIL TRUE)\n')
    done = c.tattle_ctest(["-R", "^expected|^unexpected", "--json", "r.json"],
                          build)
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    got = [(t["id"], t["state"],
            [(f["kind"], f.get("exit_code"), f.get("signal"))
             for f in t.get("failures", [])]) for t in report["tests"]]
    c.expect_eq(got, [
        ("ctest/expected_failure", "passed", []),
        ("ctest/unexpected_pass", "failed", [("exit", 0, None)]),
        ("ctest/expected_crash", "failed", [("crash", None, "SIGSEGV")])],
        "WILL_FAIL: a failing exit passes, 0 fails, a crash still fails")
    failures = report["tests"][1].get("failures") if got[1:] else None
    c.expect(failures and "WILL_FAIL" in failures[0]["message"],
             "the message names WILL_FAIL: %r" % failures)


@CASES("ctest_a_rerun_runs_the_test_as_the_run_did")
def rerun_as_run(c):
    # Each test depends on what CTest gives it: its WORKING_DIRECTORY and
    # ENVIRONMENT (passes), WILL_FAIL, SKIP_RETURN_CODE, an environment
    # that sets and unsets variables, its TIMEOUT (hangs). Each result's
    # rerun, run by a shell in another directory whose environment has
    # none of the test's, gives the result the run gave: the rerun sets
    # and unsets every variable the test's properties name, also those
    # the run's own environment had as the test wanted them (E_SET set to
    # one, E_GONE unset, when tattle ctest ran) and the rerun's shell has
    # otherwise.
    build = c.project(
        'add_test(NAME expected_failure COMMAND tool exit 3)\n'
        'set_tests_properties(expected_failure PROPERTIES WILL_FAIL TRUE)\n'
        'add_test(NAME skips COMMAND skip)\n'
        'set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)\n'
        'add_test(NAME env COMMAND tool env ${CMAKE_BINARY_DIR}/env.txt '
        'E_SET E_UNSET E_GONE)\n'
        'set_tests_properties(env PROPERTIES ENVIRONMENT "E_SET=one"\n'
        '  ENVIRONMENT_MODIFICATION "E_UNSET=unset:;E_GONE=unset:")\n')
    c.env["E_UNSET"] = "present"
    c.env["E_SET"] = "one"
    c.env.pop("E_GONE", None)
    done = c.tattle_ctest(["-R", "^(passes|expected_failure|skips|env|"
                           "hangs)$", "--json", "r.json"], build)
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    tests = {t["id"]: t for t in
             c.report(os.path.join(build, "r.json"))["tests"]}
    c.require(sorted(tests) == ["ctest/env", "ctest/expected_failure",
                                "ctest/hangs", "ctest/passes",
                                "ctest/skips"], "the tests: %r" % tests)
    env_file = os.path.join(build, "env.txt")
    c.expect_eq(driver.read(env_file).splitlines(),
                ["E_SET=one", "E_UNSET unset", "E_GONE unset"],
                "the run's environment")
    shell_env = dict(c.env, E_GONE="present")
    del shell_env["E_SET"]
    os.unlink(env_file)
    elsewhere = c.new_dir()
    for name, state in (("passes", "passed"), ("expected_failure", "passed"),
                        ("skips", "skipped"), ("env", "passed")):
        test = tests["ctest/" + name]
        c.expect_eq(test["state"], state, "the run's %s" % name)
        again = subprocess.run(test["rerun"], shell=True, cwd=elsewhere,
                               env=shell_env, capture_output=True, text=True,
                               timeout=120 * driver.wait_scale())
        c.expect(again.returncode == 0 and
                 "%s  ctest/%s " % ("SKIP" if state == "skipped" else "PASS",
                                    name) in again.stdout,
                 "the rerun of %s, %r, exited %d:\n%s%s"
                 % (name, test["rerun"], again.returncode, again.stdout,
                    again.stderr))
    c.expect(os.path.exists(env_file) and
             driver.read(env_file).splitlines() ==
             ["E_SET=one", "E_UNSET unset", "E_GONE unset"],
             "the rerun's environment: %r" % (os.path.exists(env_file) and
                                              driver.read(env_file)))
    # The hang's rerun times out at its TIMEOUT, not the default minute
    # (bounded here by the run's own timeout, with room).
    hang = tests["ctest/hangs"]
    timeout = hang["failures"][0].get("timeout_ms") if hang.get(
        "failures") else None
    c.require(timeout == int(c.timeout_s * 1000),
              "the run's timeout: %r" % hang)
    argv = shlex.split(hang["rerun"])
    c.require("--timeout=%d" % timeout in argv, "the rerun of the hang "
              "keeps its TIMEOUT: %r" % hang["rerun"])
    again = subprocess.run(argv[:2] + ["--json", "again.json"] + argv[2:],
                           cwd=elsewhere, env=c.env, capture_output=True,
                           text=True, timeout=120 * driver.wait_scale())
    rerun = c.report(os.path.join(elsewhere, "again.json"))["tests"]
    c.expect_eq([(t["id"], [(f["kind"], f.get("timeout_ms"))
                            for f in t.get("failures", [])])
                 for t in rerun],
                [("ctest/hangs", [("timeout", timeout)])],
                "the hang's rerun (exit %d)" % again.returncode)


ENVIRONMENT_NAMES = ["E_SET", "E_UNSET", "E_SA", "E_SP", "E_PA", "E_PP",
                     "E_CA", "E_CP", "E_RESET", "E_NEW", "E_EMPTY"]


@CASES("ctest_environment_modification_as_ctest_does")
def environment_modification(c):
    build = c.project(
        'add_test(NAME env COMMAND tool env ${CMAKE_BINARY_DIR}/env.txt '
        + " ".join(ENVIRONMENT_NAMES) + ')\n'
        'set_tests_properties(env PROPERTIES\n'
        '  ENVIRONMENT "E_RESET=from_environment;E_SET=overridden"\n'
        '  ENVIRONMENT_MODIFICATION "E_SET=set:one;E_UNSET=unset:;'
        'E_SA=string_append:_tail;E_SP=string_prepend:front_;'
        'E_PA=path_list_append:/b;E_PP=path_list_prepend:/z;'
        'E_CA=cmake_list_append:b;E_CP=cmake_list_prepend:z;'
        'E_RESET=set:changed;E_RESET=string_append:x;E_RESET=reset:;'
        'E_NEW=path_list_append:/only;E_EMPTY=cmake_list_prepend:z")\n'
        'add_test(NAME bad_op COMMAND tool exit 0)\n'
        'set_tests_properties(bad_op PROPERTIES\n'
        '  ENVIRONMENT_MODIFICATION "E_SET=frobnicate:1")\n')
    given = {"E_UNSET": "present", "E_SA": "head", "E_SP": "head",
             "E_PA": "/a", "E_PP": "/a", "E_CA": "a", "E_CP": "a",
             "E_EMPTY": ""}
    c.env.update(given)
    expected = ["E_SET=one", "E_UNSET unset", "E_SA=head_tail",
                "E_SP=front_head", "E_PA=/a:/b", "E_PP=/z:/a", "E_CA=a;b",
                "E_CP=z;a", "E_RESET=from_environment", "E_NEW=/only",
                "E_EMPTY=z"]
    env_file = os.path.join(build, "env.txt")
    # CTest itself, when it knows the property (3.22), agrees.
    done = subprocess.run([c.options.ctest, "-R", "^env$"], cwd=build,
                          env=c.env, capture_output=True, text=True,
                          timeout=120 * driver.wait_scale())
    if done.returncode == 0 and os.path.exists(env_file):
        c.expect_eq(driver.read(env_file).splitlines(), expected,
                    "what ctest gives the test")
        os.unlink(env_file)
    done = c.tattle_ctest(["-R", "^(env|bad_op)$", "--json", "r.json"],
                          build)
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    c.require(os.path.exists(env_file), "the test did not run: %s"
              % done.stdout)
    c.expect_eq(driver.read(env_file).splitlines(), expected,
                "what tattle ctest gives the test")
    tests = {t["id"]: t for t in
             c.report(os.path.join(build, "r.json"))["tests"]}
    c.expect_eq(tests.get("ctest/env", {}).get("state"), "passed", "env")
    bad = tests.get("ctest/bad_op", {})
    c.expect(bad.get("state") == "failed" and
             [f["kind"] for f in bad.get("failures", [])] == ["error"] and
             "unknown operation 'frobnicate'" in bad["failures"][0]["message"],
             "an unknown operation fails the test before it runs: %r" % bad)


@CASES("ctest_run_serial_and_resource_lock_keep_tests_apart")
def serial_and_locks(c):
    # Each probe fails when a test it must not meet runs while it does
    # (it looks for WAIT_MS); unconstrained, -j4 starts them together.
    wait_ms = int(1000 * driver.wait_scale())
    probes = c.new_dir()

    def probe(name, *others):
        return ('add_test(NAME %s COMMAND tool probe %s %s %d %s)\n'
                % (name, probes, name, wait_ms, " ".join(others)))

    build = c.project(
        probe("first", "serial") + probe("serial", "first", "last") +
        probe("last", "serial") + probe("lock_a", "lock_b") +
        probe("lock_b", "lock_a") +
        'set_tests_properties(serial PROPERTIES RUN_SERIAL TRUE)\n'
        'set_tests_properties(lock_a lock_b PROPERTIES '
        'RESOURCE_LOCK "db;other")\n')
    for selection in ("^(first|serial|last)$", "^lock_"):
        done = c.tattle_ctest(["-j4", "-R", selection, "--json", "r.json"],
                              build)
        c.expect_eq(done.returncode, 0, "exit status of %s (%s%s)"
                    % (selection, done.stdout, done.stderr))
        report = c.report(os.path.join(build, "r.json"))
        c.expect_eq(sorted(t["state"] for t in report["tests"]),
                    ["passed"] * (3 if "first" in selection else 2),
                    "%s: %r" % (selection, [(t["id"], t["output"])
                                            for t in report["tests"]
                                            if t["state"] != "passed"]))


@CASES("ctest_depends_and_fixtures_order_the_tests")
def depends_and_fixtures(c):
    marks = c.new_dir()

    def step(name, *requirements):
        return ('add_test(NAME %s COMMAND tool step %s %s %s)\n'
                % (name, marks, name, " ".join(requirements)))

    # Listed in the wrong order on purpose: DEPENDS and the fixtures fix it.
    build = c.project(
        step("needs_made", "makes") + step("makes") +
        'set_tests_properties(needs_made PROPERTIES DEPENDS makes)\n' +
        step("db_cleanup", "db_up", "db_user") +
        step("db_user", "db_up", "!db_cleanup") + step("db_up") +
        'add_test(NAME broken_setup COMMAND tool exit 1)\n' +
        step("broken_user") + step("broken_cleanup") +
        'set_tests_properties(db_up PROPERTIES FIXTURES_SETUP db)\n'
        'set_tests_properties(db_user PROPERTIES FIXTURES_REQUIRED db)\n'
        'set_tests_properties(db_cleanup PROPERTIES FIXTURES_CLEANUP db)\n'
        'set_tests_properties(broken_setup PROPERTIES FIXTURES_SETUP broken)\n'
        'set_tests_properties(broken_user PROPERTIES FIXTURES_REQUIRED broken)\n'
        'set_tests_properties(broken_cleanup PROPERTIES '
        'FIXTURES_CLEANUP broken)\n')
    done = c.tattle_ctest(["-j2", "-R", "^(needs_made|makes)$|^db_|^broken_", "--json",
                           "r.json"], build)
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    c.expect_eq([(t["id"], t["state"], t.get("skip_reason"))
                 for t in report["tests"]],
                [("ctest/needs_made", "passed", None),
                 ("ctest/makes", "passed", None),
                 ("ctest/db_cleanup", "passed", None),
                 ("ctest/db_user", "passed", None),
                 ("ctest/db_up", "passed", None),
                 ("ctest/broken_setup", "failed", None),
                 ("ctest/broken_user", "skipped",
                  "not run: the setup test 'broken_setup' of its fixture "
                  "'broken' failed"),
                 ("ctest/broken_cleanup", "passed", None)],
                "in CTest's order, each run after what it waits for")
    # Selecting the fixture's user alone brings its setup and cleanup.
    for name in os.listdir(marks):
        os.unlink(os.path.join(marks, name))
    done = c.tattle_ctest(["-R", "^db_user$", "--json", "s.json"], build)
    c.expect_eq(done.returncode, 0, "exit status (%s)" % done.stderr)
    c.expect_eq(sorted((t["id"], t["state"]) for t in
                       c.report(os.path.join(build, "s.json"))["tests"]),
                [("ctest/db_cleanup", "passed"), ("ctest/db_up", "passed"),
                 ("ctest/db_user", "passed")],
                "the user selected alone, with its setup and cleanup")


@CASES("ctest_a_cycle_of_depends_is_an_error_of_its_tests")
def depends_cycle(c):
    build = c.project(
        'add_test(NAME egg COMMAND tool exit 0)\n'
        'add_test(NAME hen COMMAND tool exit 0)\n'
        'add_test(NAME free COMMAND tool exit 0)\n'
        'set_tests_properties(egg PROPERTIES DEPENDS hen)\n'
        'set_tests_properties(hen PROPERTIES DEPENDS egg)\n')
    done = c.tattle_ctest(["-R", "^(egg|hen|free)$", "--json", "r.json"],
                          build)
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    c.expect_eq([(t["id"], t["state"],
                  [(f["kind"], f["message"]) for f in t.get("failures", [])])
                 for t in report["tests"]],
                [("ctest/egg", "failed",
                  [("error", "not run: its DEPENDS (or fixtures) wait for "
                             "each other in a cycle")]),
                 ("ctest/hen", "failed",
                  [("error", "not run: its DEPENDS (or fixtures) wait for "
                             "each other in a cycle")]),
                 ("ctest/free", "passed", [])],
                "the tests of the cycle, and the one outside it")


@CASES("ctest_interrupted_run_still_reports")
def interrupted(c):
    check_interrupted(c, 1)


@CASES("ctest_a_second_ctrl_c_still_reports_and_stops_the_tests")
def interrupted_twice(c):
    # The second signal comes before the running tattle run reported: it
    # must still report, and the test it runs must not outlive the run.
    check_interrupted(c, 2)


def check_interrupted(c, signals):
    build = c.project(
        'add_test(NAME later COMMAND tool exit 0)\n')
    ready = os.path.join(build, "hang-ready")
    # In a session of its own, as a shell's job: Ctrl-C signals its group.
    process = subprocess.Popen(
        [c.options.tattle, "ctest", "-R", "^(hangs|later)$", "--json",
         "r.json"], cwd=build, env=c.env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        c.require(wait_until(lambda: os.path.exists(ready),
                                  60 * driver.wait_scale()),
                  "the hanging test never started")
        hang_pid = int(driver.read(ready))
        for sent in range(signals):
            if sent:
                # The second once tattle ctest took the first: signals of
                # one kind pending together are one.
                c.require(wait_until(lambda: not sigint_pending(process.pid),
                                     30 * driver.wait_scale()),
                          "tattle ctest never took the first SIGINT")
            os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(
            timeout=60 * driver.wait_scale())
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    c.expect_eq(process.returncode, 3, "exit status (%s)" % stderr)
    report = c.report(os.path.join(build, "r.json"))
    c.expect_eq(report["run"].get("interrupted"), True,
                "the run says interrupted")
    tests = {t["id"]: t for t in report["tests"]}
    hang = tests.get("ctest/hangs", {})
    c.expect(hang.get("state") == "failed" and
             "interrupted" in " ".join(f["message"]
                                       for f in hang.get("failures", [])),
             "the running test was interrupted: %r" % hang)
    c.expect_eq((tests.get("ctest/later", {}).get("state"),
                 tests.get("ctest/later", {}).get("skip_reason")),
                ("skipped", "not run: the run was interrupted"),
                "the test not started")

    def hang_gone():
        try:
            os.kill(hang_pid, 0)
        except ProcessLookupError:
            return True
        return False

    c.expect(wait_until(hang_gone, 30 * driver.wait_scale()),
             "the hanging program %d outlived the run" % hang_pid)
    # A tattle run killed after the second signal's grace leaves its own
    # temporary directory (a slow build); tattle ctest's is gone.
    c.expect_eq([name for name in os.listdir(c.env["TMPDIR"])
                 if signals == 1 or name.startswith("tattle-ctest-")], [],
                "what tattle ctest left in its temporary directory")


def sigint_pending(pid):
    """Whether SIGINT waits in process `pid`'s pending sets."""
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith(("SigPnd:", "ShdPnd:")):
                if int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)):
                    return True
    return False


def children_of(pid):
    found = []
    for task in os.listdir("/proc/%d/task" % pid):
        found += driver.read("/proc/%d/task/%s/children" %
                             (pid, task)).split()
    return [int(child) for child in found]


@CASES("ctest_a_killed_tattle_run_is_an_error_of_its_test")
def killed_runner(c):
    build = c.project()
    ready = os.path.join(build, "hang-ready")
    process = subprocess.Popen(
        [c.options.tattle, "ctest", "-R", "^hangs$", "--json", "r.json"],
        cwd=build, env=c.env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    hang_pid = None
    try:
        c.require(wait_until(lambda: os.path.exists(ready),
                             60 * driver.wait_scale()),
                  "the hanging test never started")
        hang_pid = int(driver.read(ready))
        runners = children_of(process.pid)
        c.require(len(runners) == 1, "tattle run's pid: %r" % runners)
        os.kill(runners[0], signal.SIGKILL)
        stdout, stderr = process.communicate(
            timeout=60 * driver.wait_scale())
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        if hang_pid:
            try:
                os.kill(hang_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    c.expect_eq(process.returncode, 1, "exit status (%s)" % stderr)
    report = c.report(os.path.join(build, "r.json"))
    hang = {t["id"]: t for t in report["tests"]}.get("ctest/hangs", {})
    c.expect_eq((hang.get("state"),
                 [(f["kind"], f["message"])
                  for f in hang.get("failures", [])]),
                ("failed", [("error", "tattle run was killed by signal 9 "
                                      "before it reported")]),
                "the test whose tattle run was killed")
    # (The killed tattle run leaves its own; tattle ctest's is gone.)
    c.expect_eq([name for name in os.listdir(c.env["TMPDIR"])
                 if name.startswith("tattle-ctest-")], [],
                "what tattle ctest left in its temporary directory")


@CASES("ctest_a_closed_stdout_still_reports")
def closed_stdout(c):
    # As `tattle ctest --json r.json | head -1`: every line printed meets
    # a pipe no one reads. The tests must not inherit SIGPIPE ignored.
    build = c.project(
        'add_test(NAME sigpipe_default COMMAND sh -c "! grep -Eq '
        "'^SigIgn:.*[13579bdf][0-9a-f]{3}$' /proc/self/status\")\n")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [c.options.tattle, "ctest", "-R", "^(passes|sigpipe_default)$",
             "--json", "r.json"], cwd=build, env=c.env, stdout=write_end,
            stderr=subprocess.PIPE, text=True,
            timeout=120 * driver.wait_scale())
    finally:
        os.close(write_end)
    c.expect_eq(done.returncode, 0, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    c.expect_eq({t["id"]: t["state"] for t in report["tests"]},
                {"ctest/passes": "passed",
                 "ctest/sigpipe_default": "passed"},
                "the tests, SIGPIPE not ignored in them")
    c.expect_eq(os.listdir(c.env["TMPDIR"]), [],
                "what tattle ctest left in its temporary directory")


@CASES("ctest_started_with_sigchld_ignored_still_ends")
def sigchld_ignored(c):
    # Ignored SIGCHLD is inherited: the kernel would reap the tests unseen.
    build = c.project()
    try:
        done = subprocess.run(
            [c.options.tattle, "ctest", "-R", "^passes$", "--json",
             "r.json"], cwd=build, env=c.env, capture_output=True,
            text=True, timeout=60 * driver.wait_scale(),
            preexec_fn=lambda: signal.signal(signal.SIGCHLD,
                                             signal.SIG_IGN))
    except subprocess.TimeoutExpired:
        c.require(False, "tattle ctest started with SIGCHLD ignored hung")
    c.expect_eq(done.returncode, 0, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    c.expect_eq([(t["id"], t["state"]) for t in report["tests"]],
                [("ctest/passes", "passed")], "the test")


@CASES("ctest_a_test_tattle_run_cannot_start_is_an_error")
def cannot_start(c):
    build = c.project()
    # A copy of tattle that can no longer be executed once ctest listed
    # the tests: a ctest first on PATH takes its execute permission away.
    tools = c.new_dir()
    tattle = os.path.join(tools, "tattle")
    shutil.copy(c.options.tattle, tattle)
    driver.write(os.path.join(tools, "ctest"),
                 "#!%s\nimport os, sys\nos.chmod(%r, 0o644)\n"
                 "os.execv(%r, [%r] + sys.argv[1:])\n"
                 % (sys.executable, tattle, c.options.ctest, c.options.ctest))
    os.chmod(os.path.join(tools, "ctest"), 0o755)
    c.env["PATH"] = tools + os.pathsep + c.env["PATH"]
    done = subprocess.run([tattle, "ctest", "-R", "^(passes|crashes)$",
                           "--json", "r.json"], cwd=build, env=c.env,
                          capture_output=True, text=True,
                          timeout=120 * driver.wait_scale())
    c.expect_eq(done.returncode, 1, "exit status (%s)" % done.stderr)
    report = c.report(os.path.join(build, "r.json"))
    got = [(t["id"], t["state"], [f["kind"] for f in t.get("failures", [])])
           for t in report["tests"]]
    c.expect_eq(got, [("ctest/passes", "failed", ["error"]),
                      ("ctest/crashes", "failed", ["error"])],
                "each test an error")
    for t in report["tests"]:
        message = t["failures"][0]["message"] if t.get("failures") else ""
        c.expect("cannot start tattle run" in message and
                 "Permission denied" in message,
                 "%s: the error says why: %r" % (t["id"], message))
    c.expect_eq(os.listdir(c.env["TMPDIR"]), [],
                "what tattle ctest left in its temporary directory")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--tattle", required=True)
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--ctest", required=True)
    parser.add_argument("--cc", required=True)
    parser.add_argument("--gtest-program")
    parser.add_argument("--check-program")
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
