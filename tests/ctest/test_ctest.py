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
usage and a directory ctest cannot list exit 2 and write nothing.

    test_ctest.py CASE --tattle PATH --cmake PATH --ctest PATH --cc PATH
                  [--gtest-program PATH]

The hanging program writes a file once its thread waits; the case checks
that file, not a time. Exits 0 when every check held, 1 otherwise, 77 when
the case cannot run here (ptrace refused for the stacks, no GoogleTest).
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
    "hang.c": r"""
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
/* Waits forever in a second thread and in main, once it wrote argv[1]. */
static const char *ready_path;
__attribute__((noinline)) void *ctest_hang_in_thread(void *unused)
{
    (void)unused;
    FILE *ready = fopen(ready_path, "w");
    if (ready)
        fclose(ready);
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
foreach(program pass fail skip crash hang meet)
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


CASES = driver.Cases()


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
    if "ptrace was refused" in hang["message"]:
        print("skipped: ptrace is refused here: %s" % hang["message"])
        sys.exit(77)
    c.require(os.path.exists(os.path.join(build, "hang-ready")),
              "the hanging program never got its thread waiting")
    functions = [f.get("function") for thread in hang.get("stacks", [])
                 for f in thread["frames"]]
    for function in ("ctest_hang_in_thread", "ctest_hang_in_main"):
        c.expect(function in functions,
                 "%s not in the hang's stacks: %r" % (function, functions))

    stream = driver.read(os.path.join(build, "r.jsonl"))
    for p in validate_json.check_stream(stream):
        c.problems.append("r.jsonl does not validate: %s" % p)
    junit = driver.read(os.path.join(build, "r.xml"))
    c.expect_eq(junit.count("<testcase "), 4, "JUnit testcases")
    c.expect('name="fails loudly"' in junit, "JUnit lacks the failing test")
    if shutil.which("xmllint"):
        lint = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_SCHEMA,
                               os.path.join(build, "r.xml")],
                              capture_output=True, text=True)
        c.expect(lint.returncode == 0, "xmllint: %s" % lint.stderr[-2000:])
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


@CASES("ctest_equal_inner_ids_of_two_tests_are_an_error")
def equal_inner_ids(c):
    program = c.options.gtest_program
    if not program:
        print("skipped: no GoogleTest (libgtest-dev) in this build")
        sys.exit(77)
    build = c.project(
        'add_test(NAME first COMMAND "%s" --gtest_filter=Basics.Passes)\n'
        'add_test(NAME second COMMAND "%s" --gtest_filter=Basics.Passes)\n'
        % (program, program))
    # Each alone gives its inner test.
    done = c.tattle_ctest(["-R", "^first$", "--json", "one.json"], build)
    c.expect_eq(done.returncode, 0, "exit status alone (%s)" % done.stderr)
    c.expect_eq(ids(c.report(os.path.join(build, "one.json"))),
                ["Basics/Passes"], "the inner test")
    done = c.tattle_ctest(["-R", "^(first|second)$", "--json", "two.json"],
                          build)
    c.expect_eq(done.returncode, 2, "exit status (%s)" % done.stderr)
    c.expect("test 'Basics/Passes' is reported by both CTest tests 'first' "
             "and 'second'" in done.stderr, "the error: %r" % done.stderr)
    c.expect(not os.path.exists(os.path.join(build, "two.json")),
             "a report was written")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--tattle", required=True)
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--ctest", required=True)
    parser.add_argument("--cc", required=True)
    parser.add_argument("--gtest-program")
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
