#!/usr/bin/env python3
"""tattle from C++: runs the C++ test programs through the real runner and
checks their JSON reports (validated against schemas/ on every run), and
compiles the C++ sources with a given compiler as a user would.

    test_cpp.py CASE --suite PATH --options PATH --c-twin PATH [--gxx G++] [--clangxx CLANG++]
    test_cpp.py --list

cpp_suite is shared_suite.c compiled as C++17 plus C++-only tests;
cpp_c_twin is shared_suite.c compiled as C11; cpp_options gives TEST and
SUITE their options as C++20 designated initializers. Each CASE is one
behaviour, named by its CTest test (`--list` prints them). Exits 0 when every check
held, 1 otherwise, printing each broken check.
"""
import argparse
import json
import os
import re
import subprocess
import sys

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402

HERE = os.path.join(SOURCE_DIR, "tests", "cpp")


# What differs between two runs of the same test by nature, not by
# language: how long it took, the program a rerun names, and addresses.
ADDRESS = re.compile(r"0x[0-9a-f]+")


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-cpp-")
        self.options = options

    def run(self, program, args=()):
        """Runs the program with --json report.json in a new directory;
        returns its exit status and its validated report."""
        cwd = self.new_dir()
        env = driver.clean_env()
        p = subprocess.run([program, "--json", "report.json", "--color=never"]
                           + list(args), cwd=cwd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        path = os.path.join(cwd, "report.json")
        self.require(os.path.exists(path), "%s wrote no report (exit %d): %s"
                     % (program, p.returncode, p.stderr.decode()[-2000:]))
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        for problem in validate_json.check_report(report, complete=True):
            self.expect(False, "report does not validate: %s" % problem)
        return p.returncode, report

    def tests(self, report):
        return {t["id"]: t for t in report["tests"]}

    def failures(self, test):
        """(macro, left, right, message) of each failure."""
        return [(f.get("assertion", {}).get("macro"),
                 f.get("assertion", {}).get("left"),
                 f.get("assertion", {}).get("right"), f["message"])
                for f in test["failures"]]


def comparable(test):
    """A test object without what two programs cannot share."""
    test = dict(test)
    test.pop("duration_us")
    test.pop("rerun")
    return json.loads(ADDRESS.sub("0xADDRESS", json.dumps(test)))


CASES = driver.Cases()


@CASES("cpp_report_equals_the_c_report_of_the_same_suite")
def same_report_as_c(c):
    c_status, c_report = c.run(c.options.c_twin)
    cpp_status, cpp_report = c.run(c.options.suite, ["shared/*"])
    c.expect_eq(cpp_status, c_status, "exit status of the C++ build")
    c_tests, cpp_tests = c.tests(c_report), c.tests(cpp_report)
    c.require(len(c_tests) == 10, "the C build runs the shared suite: %s"
              % sorted(c_tests))
    c.expect_eq(sorted(cpp_tests), sorted(c_tests), "the same tests")
    for test_id, c_test in c_tests.items():
        if test_id in cpp_tests:
            c.expect_eq(comparable(cpp_tests[test_id]), comparable(c_test),
                        "%s as reported from C++ and from C" % test_id)
    for key in ("total", "passed", "failed", "skipped"):
        c.expect_eq(cpp_report["summary"][key], c_report["summary"][key],
                    "summary.%s" % key)
    # Equal reports could be equally wrong: pin what the C++ build says.
    for test_id, state in (("shared/every_macro_holds", "passed"),
                           ("shared/operands_are_evaluated_once", "passed"),
                           ("shared/skip_formats_its_reason", "skipped"),
                           ("shared/fail_formats_its_arguments", "failed")):
        c.expect_eq(cpp_tests.get(test_id, {}).get("state"), state, test_id)
    holds = cpp_tests.get("shared/every_macro_holds", {})
    c.expect_eq(holds.get("output", {}).get("stdout"),
                "on exit: second\non exit: first\n",
                "on-exit callbacks ran in LIFO order")
    c.expect_eq(c.failures(cpp_tests.get("shared/fails_integers", {"failures": []})),
                [("EXPECT_EQ", "3", "4", "expected i == 4, got 3 vs 4"),
                 ("EXPECT_NE", "3", "3", "i is 3"),
                 ("EXPECT_GT", "3", "4", "unsigned"),
                 ("EXPECT_LE", "-5", "-6", "expected ll <= -6, got -5 vs -6"),
                 ("EXPECT_GT", "-1", "1", "expected -1 > 1u, got -1 vs 1"),
                 ("ASSERT_LT", "3", "2", "the last one is fatal")],
                "integer failures (the fatal one ends the body)")
    c.expect_eq([f[1:3] for f in c.failures(
        cpp_tests.get("shared/fails_bool_and_char", {"failures": []}))],
        [("false", "true"), ("'x' (120)", "'y' (121)")], "bool and char renderings")
    c.expect_eq([f[1:3] for f in c.failures(
        cpp_tests.get("shared/fails_floating", {"failures": []}))][:3],
        [("2.5", "2.75"), ("1.5", "2"), ("3.5", "3")], "floating renderings")
    memory = cpp_tests.get("shared/fails_strings_and_memory", {"failures": []})
    c.expect(any(m[0] == "EXPECT_MEM_EQ" and "offset 2" in m[3]
                 for m in c.failures(memory)), "the memory failure: %s"
             % c.failures(memory))


@CASES("cpp_only_operands_render_like_c_values")
def cpp_operands(c):
    status, report = c.run(c.options.suite, ["cpp/*"])
    c.expect_eq(status, 1, "exit status")
    tests = c.tests(report)
    holds = tests.get("cpp/cpp_operands_hold", {})
    c.expect_eq(holds.get("state"), "passed", "nullptr, enum class, references, "
                "templates, lambdas, std::string (failures %s)"
                % holds.get("failures"))
    fails = c.failures(tests.get("cpp/fails_cpp_operands", {"failures": []}))
    c.require(len(fails) == 4, "four failures: %s" % fails)
    c.expect_eq(fails[0][:3], ("EXPECT_EQ", "false", "true"), "bool literals")
    c.expect_eq(fails[1][:3], ("EXPECT_EQ", "1", "2"),
                "a scoped enumeration renders its value")
    c.expect_eq(fails[2][1:3], ('"tattle"', '"tattled"'), "std::string's c_str()")
    c.expect(fails[3][0] == "EXPECT_EQ" and ADDRESS.fullmatch(fails[3][1] or "")
             and fails[3][2] == "NULL", "a pointer against nullptr: %s"
             % (fails[3],))
    for index, word in enumerate(("one", "three")):
        case = tests.get("cpp/param_from_cpp[%d]" % index, {})
        c.expect_eq((case.get("state"), case.get("param")), ("passed", word),
                    "TEST_P in C++17: a const char * value by value")


@CASES("cpp_escaping_exception_is_a_sigabrt_crash")
def exception(c):
    status, report = c.run(c.options.suite,
                           ["cpp/exception_escaping_the_body_is_a_crash"])
    c.expect_eq(status, 1, "exit status")
    test = c.tests(report).get("cpp/exception_escaping_the_body_is_a_crash", {})
    failures = test.get("failures", [])
    c.require(len(failures) == 1 and failures[0]["kind"] == "crash",
              "one crash: %s" % failures)
    c.expect_eq(failures[0].get("signal"), "SIGABRT", "std::terminate aborts")
    c.expect("nobody catches this" in test["output"]["stderr"],
             "the exception's what() is in stderr: %r" % test["output"]["stderr"])


@CASES("cpp20_designated_options_reach_the_report")
def options(c):
    status, report = c.run(c.options.options, ["cpp_options/*"])
    c.expect_eq(status, 1, "exit status (the traced test fails)")
    tests = c.tests(report)
    c.require(len(tests) == 6, "every TEST registered: %s" % sorted(tests))
    every = tests["cpp_options/every_option"]
    c.expect_eq(every["state"], "passed", "every_option")
    c.expect_eq(every["tags"], {"area": "cpp", "slowish": True},
                "test tags joined with the suite's")
    c.expect_eq(every["output"]["stdout"],
                "suite setup\ntest setup\nbody\ntest teardown\nsuite teardown\n",
                "fixtures of the suite and the test, in order")
    stateful = tests["cpp_options/fixture_with_state"]
    c.expect_eq(stateful["state"], "passed", "fixture_with_state: %s"
                % stateful["failures"])
    c.expect("test setup" not in stateful["output"]["stdout"] and
             "teardown got 42\n" in stateful["output"]["stdout"],
             "the setup's pointer reached the body and then the teardown: %r"
             % stateful["output"]["stdout"])
    c.expect_eq(tests["cpp_options/no_options"]["tags"], {"area": "cpp"},
                "suite tags without test options")
    skipped = tests["cpp_options/skipped_by_its_option"]
    c.expect_eq((skipped["state"], skipped["skip_reason"]),
                ("skipped", "skipped by its option"), ".skip")
    traced = tests["cpp_options/traced"]
    c.expect(traced["trace"] is not None and
             [e["label"] for e in traced["trace"]["events"]] == ["hello", "note"],
             "trace_messages tag: %s" % json.dumps(traced["trace"])[:1000])
    listing = subprocess.run([c.options.options, "--list", "--json"],
                             stdout=subprocess.PIPE, timeout=60)
    timeouts = {t["id"]: t["timeout_ms"] for t in json.loads(listing.stdout)}
    c.expect_eq((timeouts.get("cpp_options/every_option"),
                 timeouts.get("cpp_options/one_option")), (5000, 4000),
                ".timeout_ms")


@CASES("cpp20_suite_setup_and_deaths_from_cpp")
def deaths_and_suite_setup(c):
    """A C++ suite's before_all state reaches its tests and after_all, a
    declared death passes only when it happens, and the death checks
    report as from C: written in C++, compiled with the options as C++20
    designated initializers."""
    status, report = c.run(c.options.options, ["cpp_deaths/*"])
    c.expect_eq(status, 1, "exit status (two tests fail on purpose)")
    tests = c.tests(report)
    c.require(len(tests) == 5, "every TEST registered: %s" % sorted(tests))
    states = {test_id: test["state"] for test_id, test in tests.items()}
    c.expect_eq(states, {"cpp_deaths/sees_before_all_state": "passed",
                         "cpp_deaths/aborts_as_declared": "passed",
                         "cpp_deaths/exits_as_declared": "passed",
                         "cpp_deaths/does_not_die": "failed",
                         "cpp_deaths/death_checks": "failed"}, "states")
    c.expect_eq([(f["kind"], "finished without dying" in f["message"])
                 for f in tests["cpp_deaths/does_not_die"]["failures"]],
                [("exit", True)], "a declared death that does not happen")
    c.expect_eq(c.failures(tests["cpp_deaths/death_checks"]),
                [("EXPECT_SIGNAL", "returned without dying",
                  "killed by SIGSEGV (Segmentation fault)", "returns instead")],
                "the death checks: three hold, the last fails")
    c.expect(all(f["kind"] != "error" for test in tests.values()
                 for f in test["failures"]),
             "no fixture error (after_all saw before_all's state): %s"
             % [t["failures"] for t in tests.values()])


def compile_file(c, compiler, source, standard, flags):
    out = os.path.join(c.scratch, "%s.%s.%s.o" % (source, standard, "".join(flags)))
    argv = ([compiler, "-std=" + standard, "-Wall", "-Wextra", "-Werror"]
            + flags + ["-I", os.path.join(SOURCE_DIR, "include"), "-c",
                       os.path.join(HERE, source), "-o", out])
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def compile_clean(c, compiler):
    """C++17 without options with -Wpedantic; options as designated
    initializers: C++20 with -Wpedantic, C++17 without it (a GNU extension
    both compilers accept)."""
    for source, standard, flags in (
            ("cpp_suite.cpp", "c++17", ["-Wpedantic", "-O0"]),
            ("cpp_suite.cpp", "c++17", ["-Wpedantic", "-O2"]),
            ("cpp_suite.cpp", "c++20", ["-Wpedantic", "-O2"]),
            ("cpp_options.cpp", "c++20", ["-Wpedantic", "-O2"]),
            ("cpp_options.cpp", "c++17", ["-O2"]),
            ("all_headers.cpp", "c++17", ["-Wpedantic", "-O2"])):
        status, errors = compile_file(c, compiler, source, standard, flags)
        c.expect(status == 0 and errors == "",
                 "%s -std=%s %s %s: exit %d\n%s"
                 % (compiler, standard, " ".join(flags), source,
                    status, errors[-3000:]))


@CASES("cpp_headers_compile_cleanly_gxx", needs=("gxx",), labels=("headers",))
def compile_clean_gxx(c):
    compile_clean(c, c.options.gxx)


@CASES("cpp_headers_compile_cleanly_clangxx", needs=("clangxx",), labels=("headers",))
def compile_clean_clangxx(c):
    compile_clean(c, c.options.clangxx)


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    for name in ("suite", "options", "c-twin", "gxx", "clangxx"):
        parser.add_argument("--" + name)
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
