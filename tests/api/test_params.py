#!/usr/bin/env python3
"""Tests of parameterized tests (TEST_P): one test per value with ids
suite/name[i], the value rendered in "param" (JSON report, --list --json,
JUnit), each case selectable by glob, tag and --id and rerun alone by its
rerun command, and registered one by one by tattle_discover_tests. Runs
params_fixture (fixture_params.c) through the real runner.

    test_params.py --list
    test_params.py CASE --fixture PATH --cmake CMAKE --ctest CTEST

Each CASE is one behaviour (one CTest test). Exits 0 when every check of
the case held, 1 otherwise, printing each broken check.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402

CASES = driver.Cases()


PARAMS = {
    "math/is_even[0]": "2", "math/is_even[1]": "4", "math/is_even[2]": "7",
    "math/fits_a_byte[0]": "0", "math/fits_a_byte[1]": "200",
    "math/fits_a_byte[2]": "255",
    "math/halves_exactly[0]": "0.5", "math/halves_exactly[1]": "1e+03",
    "math/halves_exactly[2]": "-2.25",
    "math/truth[0]": "true", "math/truth[1]": "false",
    "words/not_empty[0]": "alpha", "words/not_empty[1]": "beta, with a comma",
    "points/on_the_diagonal[0]": "{.x = 1, .y = 1}",
    "points/on_the_diagonal[1]": "{.x = 2, .y = 3}",
    "points/on_the_diagonal[2]": "{.x = -4, .y = -4}",
}
FAILING = {"math/is_even[2]", "points/on_the_diagonal[1]"}


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-params-")
        self.options = options
        self.fixture = options.fixture
        self.env = driver.clean_env()
        self.env["NO_COLOR"] = "1"

    def run(self, *args, program=None, shell=None):
        """Runs the fixture (or a shell command) with a JSON report;
        returns (exit status, {id: result}, working directory)."""
        cwd = self.new_dir()
        report = os.path.join(cwd, "report.json")
        if shell is not None:
            argv = ["sh", "-c", shell + " --json " + report]
        else:
            argv = [program or self.fixture, "--json", report] + list(args)
        done = subprocess.run(argv, cwd=cwd, env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=120 * driver.wait_scale())
        self.require(os.path.exists(report),
                     "no report; stderr: %r" % done.stderr[-2000:])
        with open(report, encoding="utf-8") as f:
            document = json.load(f)
        problems = validate_json.check_report(document, complete=True)
        self.expect(not problems, "the report fails the schema: %s" % problems)
        return done.returncode, {t["id"]: t for t in document["tests"]}, cwd


@CASES("api_params_one_test_per_value_with_its_param")
def one_test_per_value(c):
    """Each value is a test of its own, suite/name[i], its value rendered
    in "param" (integers, floating point, booleans and strings by value,
    structs by their source text); its suite's tags apply; a plain test
    has no "param"."""
    status, tests, _ = c.run()
    c.expect_eq(status, 1, "exit status (two values fail)")
    c.expect_eq(sorted(tests), sorted(list(PARAMS) + ["math/plain_test"]),
                "one test per value")
    for test_id, param in PARAMS.items():
        test = tests.get(test_id)
        if test is None:
            continue
        c.expect_eq(test.get("param"), param, test_id + " param")
        c.expect_eq(test["suite"] + "/" + test["name"], test_id,
                    test_id + " suite/name")
        c.expect_eq(test["state"], "failed" if test_id in FAILING else "passed",
                    "%s state (%r)" % (test_id, test["failures"]))
    c.expect_eq(tests["math/is_even[2]"]["failures"][0]["message"], "7 is odd",
                "the body read its own value")
    c.expect_eq(tests["math/is_even[0]"]["tags"], {"area": "math"},
                "suite tags apply to each case")
    c.expect("param" not in tests["math/plain_test"],
             "a plain test has no param: %r" % tests["math/plain_test"])
    c.expect_eq(tests["math/plain_test"]["state"], "passed",
                "tattle_param() is NULL in a plain test")


@CASES("api_params_each_case_selectable_and_rerun_alone")
def each_case_selectable(c):
    """--id selects exactly one case; a glob selects a TEST_P's cases; a
    tag selects by suite tag; a case's rerun command runs it alone."""
    status, tests, _ = c.run("--id", "math/is_even[1]")
    c.expect_eq((status, sorted(tests)), (0, ["math/is_even[1]"]),
                "--id selects exactly one case")
    status, tests, _ = c.run("math/is_even*")
    c.expect_eq(sorted(tests), ["math/is_even[%d]" % i for i in range(3)],
                "a glob selects every case")
    status, tests, _ = c.run("--only", "area:math")
    selected = sorted(i for i, t in tests.items() if t["state"] != "excluded")
    c.expect_eq(len(selected), 12, "the suite tag selects its cases (the "
                "others excluded): %s" % selected)
    status, tests, _ = c.run()
    rerun = tests["points/on_the_diagonal[1]"]["rerun"]
    c.require(rerun, "a rerun command")
    status, tests, _ = c.run(shell=rerun)
    c.expect_eq((status, sorted(tests)), (1, ["points/on_the_diagonal[1]"]),
                "the rerun command %r runs exactly that case" % rerun)
    c.expect_eq(tests.get("points/on_the_diagonal[1]", {}).get("param"),
                "{.x = 2, .y = 3}", "rerun param")


@CASES("api_params_junit_names_carry_the_index")
def junit_names(c):
    """The JUnit testcase of a case is named name[i] and carries its value
    as the property "param"; the file passes schemas/junit.xsd."""
    cwd = c.new_dir()
    path = os.path.join(cwd, "report.xml")
    subprocess.run([c.fixture, "--junit", path], cwd=cwd, env=c.env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=120 * driver.wait_scale())
    c.require(os.path.exists(path), "no JUnit report")
    root = ElementTree.parse(path).getroot()
    cases = {}
    for testcase in root.iter("testcase"):
        properties = {p.get("name"): p.get("value")
                      for p in testcase.iter("property")}
        cases[testcase.get("classname") + "/" + testcase.get("name")] = \
            (properties, testcase.find("failure") is not None)
    for test_id, param in PARAMS.items():
        c.require(test_id in cases, "%s is not a testcase: %s"
                  % (test_id, sorted(cases)))
        properties, failed = cases[test_id]
        c.expect_eq(properties.get("param"), param, test_id + " param property")
        c.expect_eq(failed, test_id in FAILING, test_id + " failure element")
    c.expect("param" not in cases["math/plain_test"][0],
             "a plain test has no param property")
    if shutil.which("xmllint"):
        schema = os.path.join(SOURCE_DIR, "schemas", "junit.xsd")
        done = subprocess.run(["xmllint", "--noout", "--schema", schema, path],
                              capture_output=True, text=True)
        c.expect(done.returncode == 0, "xmllint: %s" % done.stderr[-2000:])


@CASES("api_params_listed_and_registered_for_ctest")
def listed_for_ctest(c):
    """--list --json lists each case with its param (valid against
    schemas/list.schema.json), and tattle_discover_tests' script
    registers each as a CTest test that runs exactly it."""
    done = subprocess.run([c.fixture, "--list", "--json"], env=c.env,
                          stdout=subprocess.PIPE, timeout=60)
    listing = json.loads(done.stdout)
    problems = validate_json.check_against(listing, "list.schema.json")
    c.expect(not problems, "the listing fails its schema: %s" % problems)
    listed = {t["id"]: t.get("param") for t in listing}
    for test_id, param in PARAMS.items():
        c.expect_eq(listed.get(test_id), param, test_id + " listed param")

    cwd = c.new_dir()
    generated = os.path.join(cwd, "tests.cmake")
    done = subprocess.run(
        [c.options.cmake, "-DTEST_EXECUTABLE=" + c.fixture,
         "-DTEST_WORKING_DIRECTORY=" + cwd, "-DCTEST_FILE=" + generated,
         "-P", os.path.join(SOURCE_DIR, "cmake", "tattle_discover_tests_run.cmake")],
        cwd=cwd, capture_output=True, text=True, timeout=120)
    c.require(done.returncode == 0, "discovery failed: %s" % done.stderr[-2000:])
    driver.write(os.path.join(cwd, "CTestTestfile.cmake"),
                 "include(\"%s\")\n" % generated)
    done = subprocess.run([c.options.ctest, "-N"], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    for test_id in PARAMS:
        c.expect(" " + test_id + "\n" in done.stdout,
                 "CTest lists %s: %s" % (test_id, done.stdout[-2000:]))
    done = subprocess.run([c.options.ctest, "-R", r"^math/is_even\[2\]$",
                           "--output-on-failure"], cwd=cwd, env=c.env,
                          capture_output=True, text=True,
                          timeout=120 * driver.wait_scale())
    c.expect(done.returncode != 0 and "1 tests failed out of 1" in done.stdout
             and "7 is odd" in done.stdout,
             "the CTest test of math/is_even[2] runs exactly it: %s"
             % done.stdout[-2000:])


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--ctest", default="ctest")
    args = parser.parse_args()
    args.fixture = os.path.abspath(args.fixture)
    return driver.run_case(CASES[args.case], Case(args), args.case)


if __name__ == "__main__":
    sys.exit(main())
