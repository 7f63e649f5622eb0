#!/usr/bin/env python3
"""Tests of the foundation: runs the runner_fixture and runner_selection
programs (tattle suites that pass, fail, crash and hang on purpose) and
checks what really happened: exit status, the JSON report (validated
against schemas/ by tests/tools/validate_json.py on every run), console
text, and side effects such as files and leftover processes.

    test_runner.py CASE --fixture PATH --selection PATH ... [--gcc GCC] [--clang CLANG]
    test_runner.py --list

Each CASE is one behaviour, named by its CTest test (`--list` prints them
and CMakeLists.txt registers what it lists). Every run
of a test program happens in its own temporary working directory. Exits 0
when every check of the case held, 1 otherwise, printing each broken check.
"""
import argparse
import json
import os
import pty
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

SOURCE_DIR = os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402
import validate_json  # noqa: E402

HERE = os.path.join(SOURCE_DIR, "tests", "runner")


# Bounds of waits (a run, a file a fixture creates, processes dying).
WAIT_SCALE = driver.wait_scale()

SELECTION_IDS = (["queue/push", "queue/pop", "queue/pop_empty",
                  "net/connect", "net/download", "stack/pop", "stack/peek"] +
                 ["order/t%02d" % i for i in range(12)])


CheckFailed = driver.CheckFailed


class Case(driver.Checks):
    """The state of one case: its options, scratch directory and the
    checks that did not hold."""

    def __init__(self, options):
        super().__init__("tattle-runner-")
        self.options = options
        self.pids_to_reap = []

    # ---- running ----

    def environment(self, extra=None):
        env = driver.clean_env(also=("RUNNER_PID_FILE", "FIXTURE_WAIT_MS"))
        env.setdefault("TERM", "dumb")
        env.update(extra or {})
        return env

    def run(self, program, args=(), report=True, env=None, cwd=None,
            timeout=30, expect_report=None):
        """Runs `program args` in `cwd` (a new directory when None). With
        `report`, adds --json report.json and loads and validates it when
        the run wrote one (expect_report: True/False to require it)."""
        cwd = cwd or self.new_dir()
        argv = [program] + list(args)
        if report:
            argv += ["--json", "report.json"]
        started = time.monotonic()
        process = subprocess.run(argv, cwd=cwd, env=self.environment(env),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 timeout=timeout * WAIT_SCALE)
        result = Result(process.returncode,
                        process.stdout.decode("utf-8", "replace"),
                        process.stderr.decode("utf-8", "replace"),
                        cwd, time.monotonic() - started)
        if report:
            self.load_report(result, expect_report)
        return result

    def load_report(self, result, expect_report=None):
        path = os.path.join(result.cwd, "report.json")
        if expect_report is None:
            expect_report = result.status in (0, 1, 3)
        if not expect_report:
            return
        if not os.path.exists(path):
            self.require(False, "no report.json written (exit %d, stderr %r)"
                         % (result.status, result.stderr[-2000:]))
        with open(path, encoding="utf-8") as f:
            result.report = json.load(f)
        problems = validate_json.check_report(result.report, complete=True)
        for p in problems:
            self.problems.append("report does not validate: %s" % p)
        result.tests = {t["id"]: t for t in result.report["tests"]}
        result.order = [t["id"] for t in result.report["tests"]]

    def test(self, result, test_id):
        self.require(test_id in result.tests,
                     "%s is not in the report (tests: %s)"
                     % (test_id, sorted(result.tests)))
        return result.tests[test_id]

    def only_failure(self, result, test_id, kind):
        t = self.test(result, test_id)
        self.require(len(t["failures"]) == 1,
                     "%s: expected one failure, got %s"
                     % (test_id, json.dumps(t["failures"])[:2000]))
        failure = t["failures"][0]
        self.require(failure["kind"] == kind,
                     "%s: expected a %s failure, got %s"
                     % (test_id, kind, json.dumps(failure)[:2000]))
        return failure

    def cleanup(self):
        for pid in self.pids_to_reap:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        super().cleanup()


class Result:
    def __init__(self, status, stdout, stderr, cwd, seconds):
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.cwd = cwd
        self.seconds = seconds
        self.report = None
        self.tests = {}
        self.order = []

    def file(self, name):
        return os.path.join(self.cwd, name)


def marker_line(source, marker):
    """The line of `source` (in tests/runner) carrying /* @marker */."""
    with open(os.path.join(HERE, source), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if "/* @%s */" % marker in line:
                return number
    raise CheckFailed("no marker @%s in %s" % (marker, source))


def process_alive(pid):
    """True when pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return False
    state = stat[stat.rindex(")") + 2:].split()[0]
    return state not in ("Z", "X")


def read_pids(path):
    pids = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                label, pid = line.split()
                pids.append((label, int(pid)))
    return pids


CASES = driver.Cases()


# ---------------------------------------------------------------- assertions

def assertion_failure(c, test_id, macro):
    r = c.run(c.options.fixture, [test_id])
    c.expect_eq(r.status, 1, "exit status of %s" % test_id)
    t = c.test(r, test_id)
    c.expect_eq(t["state"], "failed", "%s state" % test_id)
    f = c.only_failure(r, test_id, "assertion")
    c.expect_eq(f["assertion"]["macro"], macro, "%s macro" % test_id)
    c.expect(f["file"].endswith("fixture_assertions.c"),
             "%s: failure file %r" % (test_id, f["file"]))
    return r, t, f


@CASES("runner_assert_int_failure_renders_both_values")
def assert_int(c):
    _, _, f = assertion_failure(c, "assert/int_eq", "ASSERT_EQ")
    a = f["assertion"]
    c.expect_eq(a["expr"], "answer, 42", "expr")
    c.expect_eq(a["left"], "41", "left")
    c.expect_eq(a["right"], "42", "right")
    c.expect("41" in f["message"] and "42" in f["message"],
             "default message shows both values: %r" % f["message"])
    c.expect_eq(f["line"], marker_line("fixture_assertions.c", "int_eq"), "line")


@CASES("runner_assert_user_message_is_formatted")
def assert_message(c):
    _, _, f = assertion_failure(c, "assert/int_eq_with_message", "ASSERT_EQ")
    c.expect_eq(f["message"], "answer is 41, the guide wants 42", "message")
    c.expect_eq(f["assertion"]["left"], "41", "left")
    c.expect_eq(f["assertion"]["right"], "42", "right")


@CASES("runner_assert_unsigned_renders_unsigned")
def assert_unsigned(c):
    _, _, f = assertion_failure(c, "assert/unsigned_eq", "ASSERT_EQ")
    c.expect_eq(f["assertion"]["left"], "4294967295", "left (UINT_MAX)")
    c.expect_eq(f["assertion"]["right"], "0", "right")


@CASES("runner_assert_signed_vs_unsigned_compares_values")
def assert_signed_unsigned(c):
    holds = "assert/signed_unsigned_compare_by_value"
    fails = "assert/signed_unsigned_failure_renders_minus_one"
    r = c.run(c.options.fixture, [holds, fails])
    t = c.test(r, holds)
    c.expect_eq(t["state"], "passed",
                "-1 < 1u and friends hold (failures: %s)" % t["failures"])
    c.expect("all signed-vs-unsigned comparisons held" in t["output"]["stdout"],
             "the comparisons ran to the end")
    f = c.only_failure(r, fails, "assertion")
    c.expect_eq(f["assertion"]["left"], "-1", "-1 rendered as signed")
    c.expect_eq(f["assertion"]["right"], "1", "1u rendered")


@CASES("runner_assert_float_eq_shows_both_values")
def assert_float(c):
    _, _, f = assertion_failure(c, "assert/float_sum_eq", "ASSERT_EQ")
    c.expect_eq(f["assertion"]["left"], "0.30000000000000004", "left (0.1 + 0.2)")
    c.expect_eq(f["assertion"]["right"], "0.3", "right")
    c.expect("0.30000000000000004" in f["message"] and "0.3" in f["message"],
             "message shows both values: %r" % f["message"])


@CASES("runner_assert_near_reports_values_and_difference")
def assert_near(c):
    r = c.run(c.options.fixture, ["assert/near_fails", "assert/near_holds"])
    f = c.only_failure(r, "assert/near_fails", "assertion")
    c.expect_eq(f["assertion"]["macro"], "ASSERT_NEAR", "macro")
    c.expect_eq(f["assertion"]["expr"], "measured, 1.0, 0.1", "expr")
    c.expect_eq(f["assertion"]["left"], "1.25", "left")
    c.expect_eq(f["assertion"]["right"], "1", "right")
    c.expect("0.1" in f["message"] and "0.25" in f["message"],
             "message names the tolerance and the difference: %r" % f["message"])
    t = c.test(r, "assert/near_holds")
    c.expect_eq(t["state"], "passed", "near_holds (failures %s)" % t["failures"])


@CASES("runner_assert_pointer_failure_renders_addresses")
def assert_pointer(c):
    r, t, f = assertion_failure(c, "assert/pointer_eq", "ASSERT_EQ")
    printed = t["output"]["stdout"].split()
    c.require(len(printed) == 2, "the test printed two pointers: %r"
              % t["output"]["stdout"])
    c.expect_eq(f["assertion"]["left"], printed[0], "left is &first")
    c.expect_eq(f["assertion"]["right"], printed[1], "right is &second")
    c.expect(printed[0] != printed[1], "two different addresses")


@CASES("runner_assert_string_failures_render_literals")
def assert_strings(c):
    ids = ["assert/str_eq", "assert/str_ne", "assert/str_eq_null",
           "assert/str_eq_hostile"]
    r = c.run(c.options.fixture, ids)
    c.expect_eq(r.status, 1, "exit status")
    f = c.only_failure(r, "assert/str_eq", "assertion")
    c.expect_eq(f["assertion"]["macro"], "ASSERT_STR_EQ", "macro")
    c.expect_eq(f["assertion"]["left"], '"hello"', "left")
    c.expect_eq(f["assertion"]["right"], '"help"', "right")
    c.expect("3" in f["message"], "message names the differing byte 3: %r"
             % f["message"])
    f = c.only_failure(r, "assert/str_ne", "assertion")
    c.expect_eq(f["assertion"]["macro"], "ASSERT_STR_NE", "macro")
    c.expect_eq(f["assertion"]["left"], '"same"', "left")
    c.expect_eq(f["assertion"]["right"], '"same"', "right")
    f = c.only_failure(r, "assert/str_eq_null", "assertion")
    c.expect_eq(f["assertion"]["left"], "NULL", "NULL string")
    c.expect_eq(f["assertion"]["right"], '"x"', "right")
    f = c.only_failure(r, "assert/str_eq_hostile", "assertion")
    c.expect_eq(f["assertion"]["left"], r'"quote\" tab\t nl\n"',
                "quote, tab and newline escaped as in C")


@CASES("runner_assert_mem_eq_names_first_differing_offset")
def assert_memory(c):
    _, _, f = assertion_failure(c, "assert/mem_eq", "ASSERT_MEM_EQ")
    c.expect_eq(f["assertion"]["expr"], "left, right, sizeof left", "expr")
    c.expect(re.search(r"\boffset 5\b", f["message"]) is not None,
             "message names offset 5: %r" % f["message"])
    c.expect(" 05" in f["assertion"]["left"],
             "left shows the byte 05: %r" % f["assertion"]["left"])
    c.expect(" ff" in f["assertion"]["right"].lower(),
             "right shows the byte ff: %r" % f["assertion"]["right"])


@CASES("runner_assert_null_and_not_null_render_pointer")
def assert_null(c):
    r = c.run(c.options.fixture, ["assert/null_fails", "assert/not_null_fails"])
    f = c.only_failure(r, "assert/null_fails", "assertion")
    c.expect_eq(f["assertion"]["macro"], "ASSERT_NULL", "macro")
    c.expect_eq(f["assertion"]["expr"], "pointer", "expr")
    printed = r.tests["assert/null_fails"]["output"]["stdout"].strip()
    c.expect_eq(f["assertion"]["left"], printed, "left is the pointer")
    f = c.only_failure(r, "assert/not_null_fails", "assertion")
    c.expect_eq(f["assertion"]["macro"], "ASSERT_NOT_NULL", "macro")
    c.expect_eq(f["assertion"]["left"], "NULL", "left")


@CASES("runner_assert_truth_records_expression")
def assert_truth(c):
    _, _, f = assertion_failure(c, "assert/truth_fails", "ASSERT")
    c.expect_eq(f["assertion"]["expr"], "a == 2", "expr")
    c.expect("a == 2" in f["message"], "message quotes the condition: %r"
             % f["message"])
    c.expect_eq(f["line"], marker_line("fixture_assertions.c", "truth"), "line")


@CASES("runner_fail_records_formatted_message")
def fail(c):
    r = c.run(c.options.fixture, ["assert/fail_with_format"])
    c.expect_eq(r.status, 1, "exit status")
    f = c.only_failure(r, "assert/fail_with_format", "assertion")
    c.expect_eq(f["message"], "gave up after 3 tries", "message")
    c.expect_eq(f["assertion"]["macro"], "FAIL", "macro")
    c.expect_eq(f["line"], marker_line("fixture_assertions.c", "fail"), "line")


@CASES("runner_skip_reports_reason_and_stops_body")
def skip(c):
    r = c.run(c.options.fixture, ["assert/skip_with_format", "assert/skip_option"])
    c.expect_eq(r.status, 0, "exit status of a run with skips only")
    t = c.test(r, "assert/skip_with_format")
    c.expect_eq(t["state"], "skipped", "SKIP() state")
    c.expect_eq(t.get("skip_reason"), "needs a network", "SKIP() reason")
    c.expect("after SKIP" not in t["output"]["stdout"], "SKIP() left the body")
    t = c.test(r, "assert/skip_option")
    c.expect_eq(t["state"], "skipped", ".skip state")
    c.expect_eq(t.get("skip_reason"), "not on Tuesdays", ".skip reason")
    c.expect("must not run" not in t["output"]["stdout"], ".skip body not run")
    c.expect_eq(r.report["summary"]["skipped"], 2, "summary.skipped")


@CASES("runner_assert_operands_evaluated_once")
def evaluated_once(c):
    r = c.run(c.options.fixture, ["assert/operands_evaluated_once"])
    t = c.test(r, "assert/operands_evaluated_once")
    c.expect("evaluations=22\n" in t["output"]["stdout"],
             "22 operands evaluated 22 times: %r" % t["output"]["stdout"])
    macros = [f.get("assertion", {}).get("macro") for f in t["failures"]]
    c.expect_eq(macros, ["EXPECT_EQ", "EXPECT_NE", "EXPECT_LT", "EXPECT",
                         "EXPECT_STR_EQ", "EXPECT_MEM_EQ", "EXPECT_NULL",
                         "EXPECT_NEAR"], "the failing EXPECTs, in order")
    if t["failures"]:
        a = t["failures"][0]["assertion"]
        c.expect_eq((a["left"], a["right"]), ("1", "2"), "EXPECT_EQ values")


@CASES("runner_expect_continues_after_failure")
def expect_continues(c):
    r = c.run(c.options.fixture, ["assert/expect_continues_after_failure"])
    t = c.test(r, "assert/expect_continues_after_failure")
    c.expect_eq(t["state"], "failed", "state")
    c.expect_eq([f["assertion"]["macro"] for f in t["failures"]],
                ["EXPECT_EQ", "EXPECT_STR_EQ", "EXPECT"], "all three failures")
    if len(t["failures"]) == 3:
        c.expect_eq(t["failures"][2]["message"], "third failure", "message")
    c.expect("reached the end of the body" in t["output"]["stdout"],
             "the body went on after the failed EXPECTs")


@CASES("runner_fatal_assert_runs_teardown_and_on_exit_lifo")
def fatal_teardown_on_exit(c):
    r = c.run(c.options.fixture, ["assert/fatal_stops_body"])
    t = c.test(r, "assert/fatal_stops_body")
    c.expect_eq(t["state"], "failed", "state")
    c.expect_eq(len(t["failures"]), 1, "one failure")
    c.expect_eq(t["output"]["stdout"],
                "body before\nteardown\non_exit third\non_exit second\n"
                "on_exit first\n",
                "body stopped at the ASSERT; teardown, then on-exit LIFO")


@CASES("runner_failing_setup_makes_test_invalid")
def setup_invalid(c):
    r = c.run(c.options.fixture,
              ["assert/setup_fails_invalid", "badsetup/body_never_runs"])
    c.expect_eq(r.status, 1, "exit status")
    for test_id in ("assert/setup_fails_invalid", "badsetup/body_never_runs"):
        t = c.test(r, test_id)
        c.expect_eq(t["state"], "invalid", "%s state" % test_id)
        c.expect("body ran" not in t["output"]["stdout"],
                 "%s: the body did not run" % test_id)
    f = r.tests["assert/setup_fails_invalid"]["failures"]
    c.expect(f and "setup could not open the database" in f[0]["message"],
             "the setup's failure is reported: %s" % f)
    c.expect_eq(r.report["summary"]["invalid"], 2, "summary.invalid")


# ------------------------------------------------------------------ headers

def compile_file(c, compiler, source, extra=()):
    out = os.path.join(c.scratch, os.path.basename(source) + ".o")
    argv = [compiler, "-std=c11", "-Wall", "-Wextra", "-Wpedantic",
            "-Werror", "-I", os.path.join(SOURCE_DIR, "include"), "-c",
            os.path.join(HERE, source), "-o", out] + list(extra)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def compile_clean(c, compiler):
    for source in ("header_all_macros.c", "header_no_short_names.c"):
        for level in ("-O0", "-O2"):
            status, errors = compile_file(c, compiler, source, [level])
            c.expect(status == 0 and "warning" not in errors,
                     "%s %s %s: exit %d\n%s" % (compiler, level, source,
                                                status, errors[-3000:]))


@CASES("runner_headers_compile_cleanly_gcc", needs=("gcc",), labels=("headers",))
def compile_clean_gcc(c):
    compile_clean(c, c.options.gcc)


@CASES("runner_headers_compile_cleanly_clang", needs=("clang",), labels=("headers",))
def compile_clean_clang(c):
    compile_clean(c, c.options.clang)


def compile_malloc(c, compiler):
    for level in ("-O0", "-O2"):
        status, errors = compile_file(c, compiler, "header_uninitialized_pointee.c", [level])
        c.expect(status == 0, "%s %s: ASSERT_NOT_NULL/EXPECT_NULL/ASSERT_EQ on "
                 "a fresh malloc() does not compile cleanly:\n%s"
                 % (compiler, level,
                    "\n".join(l for l in errors.splitlines() if "error" in l)))


@CASES("runner_headers_pointer_checks_on_fresh_malloc_compile_gcc",
       needs=("gcc",), labels=("headers",))
def compile_malloc_gcc(c):
    compile_malloc(c, c.options.gcc)


@CASES("runner_headers_pointer_checks_on_fresh_malloc_compile_clang",
       needs=("clang",), labels=("headers",))
def compile_malloc_clang(c):
    compile_malloc(c, c.options.clang)


def compile_refused_operands(c, compiler):
    """An ASSERT_EQ operand the variadic call could not carry is refused at
    compile time: a struct does not compile, an integer type the header
    does not list (__int128) is taken for an address and warns. The same
    file with int operands compiles, so a refusal is the operand's."""
    for operand, why in (("struct pair { int a, b; } v = {1, 2}",
                          r"incompatible type for argument 1|"
                          r"to parameter of incompatible type"),
                         ("__int128 v = 1", r"makes pointer from integer|"
                          r"integer to pointer conversion")):
        for declared in (operand, "int v = 1"):
            source = os.path.join(c.scratch, "operand.c")
            driver.write(source, "#include <tattle/tattle.h>\n"
                         "TEST(operands, refused) { %s; ASSERT_EQ(v, v); }\n"
                         % declared)
            p = subprocess.run([compiler, "-std=gnu11", "-Wall", "-Wextra",
                                "-Werror", "-I",
                                os.path.join(SOURCE_DIR, "include"), "-c",
                                source, "-o", source + ".o"],
                               capture_output=True, text=True)
            if declared == operand:
                c.expect(p.returncode != 0 and re.search(why, p.stderr),
                         "%s: '%s' compiled (exit %d), or not for its type:"
                         "\n%s" % (compiler, operand, p.returncode,
                                    p.stderr[-1500:]))
            else:
                c.expect_eq((p.returncode, p.stderr), (0, ""),
                            "%s: int operands" % compiler)


@CASES("runner_headers_comparison_operands_refused_gcc", needs=("gcc",),
       labels=("headers",))
def compile_refused_gcc(c):
    compile_refused_operands(c, c.options.gcc)


@CASES("runner_headers_comparison_operands_refused_clang", needs=("clang",),
       labels=("headers",))
def compile_refused_clang(c):
    compile_refused_operands(c, c.options.clang)


@CASES("runner_headers_compile_without_diagnostics_gcc", needs=("gcc",), labels=("headers",))
def compile_silent(c):
    for source in ("header_all_macros.c", "header_no_short_names.c"):
        status, errors = compile_file(c, c.options.gcc, source, ["-O2"])
        c.expect(status == 0 and errors == "",
                 "%s %s prints diagnostics (every user file would): %s"
                 % (c.options.gcc, source,
                    " | ".join(l for l in errors.splitlines() if "note:" in l
                               or "warning:" in l)[:600]))


def elf_section_size(path, section):
    """The size of `section` in the ELF file at `path`, 0 without it."""
    out = subprocess.run(["readelf", "-SW", path], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        words = line.replace("[ ", "[").split()
        if len(words) > 5 and words[1] == section:
            return int(words[5], 16)
    return 0


def relocated_symbols(path):
    """The symbol each relocation of the object file at `path` names."""
    out = subprocess.run(["readelf", "-rW", path], check=True,
                         capture_output=True, text=True).stdout
    return [line.split()[4] for line in out.splitlines()
            if len(line.split()) > 4 and line.split()[0][:1].isdigit()]


@CASES("runner_headers_test_costs_a_body_and_one_call_gcc", needs=("gcc",),
       labels=("headers",))
def test_compile_cost(c):
    """What a TEST costs the compiler (bench/compile): the body is its only
    function (no constructor per test, one per file), and an ASSERT_EQ is
    one call, not a call per operand as well."""
    if not shutil.which("readelf"):
        print("skipped: readelf (binutils) is not installed")
        sys.exit(77)
    count = 20
    source = os.path.join(c.scratch, "many_tests.c")
    with open(source, "w") as f:
        f.write("#include <tattle/tattle.h>\n")
        for i in range(count):
            f.write("TEST(trivial, t%d) { int v = %d; ASSERT_EQ(v, %d); }\n"
                    % (i, i, i))
    out = source + ".o"
    p = subprocess.run([c.options.gcc, "-std=c11", "-O2", "-Wall", "-Wextra",
                        "-Wpedantic", "-Werror", "-I",
                        os.path.join(SOURCE_DIR, "include"), "-c", source,
                        "-o", out], capture_output=True, text=True)
    c.require(p.returncode == 0, "does not compile: %s" % p.stderr[-2000:])
    pointer = 8 if "ELF64" in subprocess.run(
        ["readelf", "-h", out], capture_output=True, text=True).stdout else 4
    constructors = elf_section_size(out, ".init_array") // pointer
    c.expect(constructors <= 1, "%d constructors for %d tests (at most one "
             "per file)" % (constructors, count))
    calls = [s for s in relocated_symbols(out) if s.startswith("tattle_")]
    value_calls = [s for s in calls if s.startswith("tattle__value_")]
    c.expect_eq(len(value_calls), 0, "calls to tattle__value_* (%s)"
                % sorted(set(value_calls)))
    c.expect(len(calls) <= count + 2, "%d relocations to tattle functions "
             "for %d ASSERT_EQs: %s" % (len(calls), count, sorted(set(calls))))


@CASES("runner_headers_macros_run_as_documented")
def all_macros_run(c):
    r = c.run(c.options.all_macros)
    c.expect_eq(r.status, 1, "exit status (two FAIL tests)")
    for test_id, t in r.tests.items():
        name = t["name"]
        wanted = ("failed" if name.startswith("fail_") else
                  "skipped" if name.startswith("skip_") else "passed")
        c.expect_eq(t["state"], wanted, "%s (failures %s)"
                    % (test_id, [f["message"] for f in t["failures"]]))
    c.expect_eq(len(r.tests), 12, "every TEST and TEST_P value registered")
    fails = r.tests.get("header/fail_with_arguments", {}).get("failures", [])
    c.expect(fails and fails[0]["message"] == "formatted 1 two",
             "FAIL formats its arguments: %s" % fails)
    t = r.tests.get("header/every_option", {})
    c.expect_eq(t.get("tags"), {"slowish": True, "area": "headers"},
                "every_option tags")
    t = r.tests.get("header_options/in_suite_with_options", {})
    c.expect_eq(t.get("tags"), {"area": "headers", "compile": True},
                "suite tags")


@CASES("runner_no_short_names_hides_aliases")
def no_short_names_run(c):
    r = c.run(c.options.no_short_names)
    c.expect_eq(r.status, 1, "exit status")
    c.expect_eq(c.test(r, "prefixed/works")["state"], "passed",
                "TATTLE_ names work (failures %s)"
                % c.test(r, "prefixed/works")["failures"])
    f = c.only_failure(r, "prefixed/fails", "assertion")
    c.expect_eq(f["message"], "prefixed FAIL 7", "TATTLE_FAIL message")
    c.expect_eq(c.test(r, "prefixed/skips")["state"], "skipped", "TATTLE_SKIP")
    c.expect_eq(c.test(r, "prefixed/works")["tags"], {"area": "prefix"},
                "TATTLE_SUITE tags")


# ------------------------------------------------------------------ crashes

def crash_failure(c, r, test_id, signal_name):
    f = c.only_failure(r, test_id, "crash")
    c.expect_eq(f.get("signal"), signal_name, "%s signal" % test_id)
    frames = f.get("stacktrace") or []
    c.expect(len(frames) > 0, "%s: a stack trace" % test_id)
    return f, [fr.get("function") or "" for fr in frames]


@CASES("runner_segv_is_crash_with_signal_and_stack")
def crash_segv(c):
    r = c.run(c.options.fixture, ["crash/segv"])
    c.expect_eq(r.status, 1, "exit status")
    f, functions = crash_failure(c, r, "crash/segv", "SIGSEGV")
    c.expect("crash/segv" in functions and
             not any("tattle__body__" in fn for fn in functions),
             "the body's frame is named by the test id: %s" % functions)
    c.expect("SIGSEGV" in f["message"], "message names the signal: %r"
             % f["message"])
    c.expect(f.get("file", "").endswith("fixture_isolation.c"),
             "the failure points into the test's file, not the runner: %r:%r"
             % (f.get("file"), f.get("line")))


@CASES("runner_abort_is_crash_with_sigabrt")
def crash_abort(c):
    r = c.run(c.options.fixture, ["crash/abort"])
    c.expect_eq(r.status, 1, "exit status")
    f, functions = crash_failure(c, r, "crash/abort", "SIGABRT")
    c.expect("crash/abort" in functions and
             not any("tattle__body__" in fn for fn in functions),
             "the body's frame is named by the test id: %s" % functions)


@CASES("runner_stack_overflow_is_crash_with_stack")
def crash_stack_overflow(c):
    r = c.run(c.options.fixture, ["crash/stack_overflow"])
    c.expect_eq(r.status, 1, "exit status")
    f, functions = crash_failure(c, r, "crash/stack_overflow", "SIGSEGV")
    c.expect(any("recurse_forever" in fn for fn in functions),
             "frames name the recursing function: %s" % functions[:5])


@CASES("runner_crash_does_not_stop_run")
def crash_continues(c):
    r = c.run(c.options.fixture, ["crash/*"], timeout=60)
    c.expect_eq(r.status, 1, "exit status")
    c.expect_eq(r.order, ["crash/segv", "crash/survivor_after_segv",
                          "crash/abort", "crash/survivor_after_abort",
                          "crash/stack_overflow",
                          "crash/survivor_after_stack_overflow",
                          "crash/printf_then_segv"], "every test ran, in order")
    for test_id in r.order:
        t = r.tests[test_id]
        if "survivor" in test_id:
            c.expect_eq(t["state"], "passed", test_id)
            c.expect_eq(t["output"]["stdout"], test_id.split("/")[1] + " ran\n",
                        "%s stdout" % test_id)
        else:
            c.expect(t["state"] == "failed" and t["failures"] and
                     t["failures"][0]["kind"] == "crash",
                     "%s: a crash failure" % test_id)
    s = r.report["summary"]
    c.expect_eq((s["total"], s["passed"], s["failed"]), (7, 3, 4), "summary")


@CASES("runner_output_before_crash_is_kept")
def crash_output_kept(c):
    r = c.run(c.options.fixture, ["crash/printf_then_segv"])
    t = c.test(r, "crash/printf_then_segv")
    crash_failure(c, r, "crash/printf_then_segv", "SIGSEGV")
    c.expect_eq(t["output"]["stdout"], "partial line without a newline",
                "output printed right before the crash")


# ----------------------------------------------------------------- timeouts

def timeout_with_leftovers(c, test_id, limit_ms):
    """Runs a test that starts a grandchild and hangs until its limit.
    The pids file is the fixture's handshake: the grandchild writes its
    line before the test hangs. On a loaded machine, under a sanitizer,
    the limit can run out while the test process is still starting, before
    there is a grandchild to kill; such a run proves nothing about
    leftovers. The run is then repeated with TATTLE_TIMEOUT_MULTIPLIER
    doubled (the runner's own knob for slow machines; the limit checked is
    scaled with it), a bounded number of times, until the grandchild was
    there."""
    attempts = 6
    for attempt in range(attempts):
        multiplier = 2 ** attempt
        directory = c.new_dir()
        pid_file = os.path.join(directory, "pids")
        env = {"RUNNER_PID_FILE": pid_file}
        if multiplier > 1:
            env["TATTLE_TIMEOUT_MULTIPLIER"] = str(multiplier)
        r = c.run(c.options.fixture, [test_id], cwd=directory, env=env)
        pids = read_pids(pid_file)
        c.pids_to_reap += [pid for _, pid in pids]
        c.expect_eq(r.status, 1, "exit status")
        limit = limit_ms * multiplier
        f = c.only_failure(r, test_id, "timeout")
        c.expect_eq(f.get("timeout_ms"), limit, "timeout_ms")
        duration = c.test(r, test_id)["duration_us"]
        c.expect(limit * 1000 <= duration < limit * 1000 + 5000000 * WAIT_SCALE,
                 "duration %d us for a %d ms limit" % (duration, limit))
        if "grandchild" in [label for label, _ in pids]:
            break
        print("a %d ms limit ran out before the grandchild started" % limit)
    return pids


@CASES("runner_timeout_kills_grandchild")
def timeout_grandchild(c):
    pids = timeout_with_leftovers(c, "hang/with_grandchild", 300)
    c.expect_eq(sorted(label for label, _ in pids), ["grandchild", "test"],
                "the test and its grandchild recorded their pids")
    for label, pid in pids:
        c.expect(not process_alive(pid), "%s (pid %d) survived the timeout"
                 % (label, pid))


@CASES("runner_timeout_kills_setsid_grandchild")
def timeout_setsid_grandchild(c):
    pids = timeout_with_leftovers(c, "hang/with_setsid_grandchild", 300)
    c.expect_eq(sorted(label for label, _ in pids), ["grandchild", "test"],
                "the test and its grandchild recorded their pids")
    for label, pid in pids:
        c.expect(not process_alive(pid), "%s (pid %d, own session) survived "
                 "the timeout" % (label, pid))


@CASES("runner_timeout_flag_sets_limit")
def timeout_flag(c):
    directory = c.new_dir()
    pid_file = os.path.join(directory, "pids")
    r = c.run(c.options.fixture, ["--timeout", "250", "hang/forever"],
              cwd=directory, env={"RUNNER_PID_FILE": pid_file})
    pids = read_pids(pid_file)
    c.pids_to_reap += [pid for _, pid in pids]
    f = c.only_failure(r, "hang/forever", "timeout")
    c.expect_eq(f.get("timeout_ms"), 250, "--timeout 250")
    c.expect(r.tests["hang/forever"]["duration_us"] >= 250000, "ran 250 ms")
    c.expect(r.seconds < 10 * WAIT_SCALE, "the run ended long before the default 60 s")
    for label, pid in pids:
        c.expect(not process_alive(pid), "%s (pid %d) survived" % (label, pid))


@CASES("runner_timeout_option_sets_limit")
def timeout_option(c):
    timeout_with_leftovers(c, "hang/short_timeout_option", 300)


@CASES("runner_timeout_multiplier_scales_limits")
def timeout_multiplier(c):
    env = {"TATTLE_TIMEOUT_MULTIPLIER": "2"}
    r = c.run(c.options.fixture, ["hang/short_timeout_option"], env=env)
    f = c.only_failure(r, "hang/short_timeout_option", "timeout")
    c.expect_eq(f.get("timeout_ms"), 600, ".timeout_ms = 300 times 2")
    c.expect(r.tests["hang/short_timeout_option"]["duration_us"] >= 600000,
             "ran 600 ms")
    r = c.run(c.options.fixture, ["--timeout", "150", "hang/forever"], env=env)
    f = c.only_failure(r, "hang/forever", "timeout")
    c.expect_eq(f.get("timeout_ms"), 300, "--timeout 150 times 2")
    r = c.run(c.options.fixture, ["--timeout", "200", "hang/forever"],
              env={"TATTLE_TIMEOUT_MULTIPLIER": "0.5"})
    f = c.only_failure(r, "hang/forever", "timeout")
    c.expect_eq(f.get("timeout_ms"), 100, "--timeout 200 times 0.5")


@CASES("runner_test_end_kills_leftover_processes")
def leftovers_killed(c):
    directory = c.new_dir()
    pid_file = os.path.join(directory, "pids")
    r = c.run(c.options.fixture, ["leak/*"], cwd=directory,
              env={"RUNNER_PID_FILE": pid_file})
    pids = read_pids(pid_file)
    c.pids_to_reap += [pid for _, pid in pids]
    c.expect_eq(r.status, 0, "exit status")
    c.expect_eq(sorted(label for label, _ in pids), ["child", "daemon", "test"],
                "pids recorded")
    t = c.test(r, "leak/processes_after_pass")
    c.expect_eq(t["state"], "passed", "a test that leaves processes still passes")
    c.expect_eq(t["output"]["stdout"], "leaving a child and a daemon behind\n",
                "stdout")
    # The leftovers never end: a runner waiting for them never returns.
    c.expect(r.seconds < 10 * WAIT_SCALE, "the runner did not wait for the "
             "leftovers (%.1f s)" % r.seconds)
    c.expect_eq(c.test(r, "leak/next_test_runs")["state"], "passed", "next test")
    for label, pid in pids:
        c.expect(not process_alive(pid), "%s (pid %d) outlived its test"
                 % (label, pid))


# -------------------------------------------------------------------- exits

@CASES("runner_exit_zero_mid_test_is_exit_failure")
def exit_zero(c):
    r = c.run(c.options.fixture, ["exits/exit_zero"])
    c.expect_eq(r.status, 1, "exit status")
    f = c.only_failure(r, "exits/exit_zero", "exit")
    c.expect_eq(f.get("exit_code"), 0, "exit_code")
    c.expect("leaving with exit(0)" in r.tests["exits/exit_zero"]["output"]["stdout"],
             "output before exit kept")


@CASES("runner_underscore_exit_reports_exit_code")
def exit_five(c):
    r = c.run(c.options.fixture, ["exits/underscore_exit_five"])
    c.expect_eq(r.status, 1, "exit status")
    f = c.only_failure(r, "exits/underscore_exit_five", "exit")
    c.expect_eq(f.get("exit_code"), 5, "exit_code")


# ------------------------------------------------------------------- output

@CASES("runner_huge_output_is_bounded_and_counted_exactly")
def huge_output(c):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    r = c.run(c.options.fixture, ["output/fifty_megabytes"])
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    c.expect_eq(r.status, 0, "exit status")
    t = c.test(r, "output/fifty_megabytes")
    out = t["output"]
    c.expect_eq(out["stdout_bytes"], 50 * 1024 * 1024, "stdout_bytes")
    c.expect_eq(out["stderr_bytes"], 1000, "stderr_bytes")
    c.expect_eq(out["truncated"], True, "truncated")
    c.expect(out["stdout"].startswith("HEAD-MARKER\n"), "head kept")
    c.expect(out["stdout"].endswith("TAIL-MARKER\n"), "tail kept")
    c.expect(len(out["stdout"]) < 1024 * 1024,
             "kept stdout is bounded: %d bytes" % len(out["stdout"]))
    c.expect_eq(out["stderr"], ("e" * 99 + "\n") * 10, "stderr kept whole")
    # The runner (and the test) never hold the 50 MB: the largest process
    # of the run stays far below it. Sanitizer builds need more headroom.
    limit_kib = 200 * 1024 if os.environ.get("TATTLE_SANITIZED") else 40 * 1024
    c.expect(peak_kib < limit_kib, "peak RSS %d KiB (limit %d KiB, before %d)"
             % (peak_kib, limit_kib, before))
    c.expect(r.seconds < 20 * WAIT_SCALE, "50 MB took %.1f s" % r.seconds)


@CASES("runner_closed_stdout_still_works")
def closed_stdout(c):
    r = c.run(c.options.fixture, ["output/closed_stdout"])
    c.expect_eq(r.status, 0, "exit status")
    t = c.test(r, "output/closed_stdout")
    c.expect_eq(t["state"], "passed", "state")
    c.expect_eq(t["output"]["stdout"], "before close\n", "stdout")
    c.expect_eq(t["output"]["stderr"], "stderr still works\n", "stderr")


# ---------------------------------------------------------------- selection

def ran(r):
    return {i for i, t in r.tests.items() if t["state"] == "passed"}


def states(r, state):
    return {i for i, t in r.tests.items() if t["state"] == state}


@CASES("runner_select_glob_on_suite")
def glob_suite(c):
    r = c.run(c.options.selection, ["queue/*"])
    c.expect_eq(r.status, 0, "exit status")
    c.expect_eq(set(r.tests), {"queue/push", "queue/pop", "queue/pop_empty"},
                "tests in the report")
    c.expect_eq(ran(r), set(r.tests), "all ran")
    for test_id, t in r.tests.items():
        c.expect_eq(t["output"]["stdout"], test_id + "\n", "%s ran" % test_id)


@CASES("runner_select_glob_on_substring")
def glob_substring(c):
    r = c.run(c.options.selection, ["*pop*"])
    c.expect_eq(set(r.tests), {"queue/pop", "queue/pop_empty", "stack/pop"},
                "tests in the report")
    c.expect_eq(ran(r), set(r.tests), "all ran")
    r = c.run(c.options.selection, ["stack/peek", "net/*"])
    c.expect_eq(set(r.tests), {"stack/peek", "net/connect", "net/download"},
                "several patterns select the union")


@CASES("runner_only_tag_runs_tagged_tests")
def only_tag(c):
    r = c.run(c.options.selection, ["--only", "unit"])
    c.expect_eq(r.status, 0, "exit status")
    c.expect_eq(ran(r), {"stack/pop", "stack/peek"}, "--only unit ran")
    c.expect_eq(states(r, "excluded"), set(SELECTION_IDS) - {"stack/pop", "stack/peek"},
                "the others are reported excluded")
    for test_id in states(r, "excluded"):
        c.expect_eq(r.tests[test_id]["output"]["stdout"], "",
                    "%s did not run" % test_id)


@CASES("runner_only_tag_value_runs_matching_tests")
def only_tag_value(c):
    r = c.run(c.options.selection, ["--only", "area:net"])
    c.expect_eq(ran(r), {"net/connect", "net/download"}, "--only area:net")
    r = c.run(c.options.selection, ["--only", "area:core"])
    c.expect_eq(ran(r), {"queue/push", "queue/pop", "queue/pop_empty"},
                "--only area:core")
    r = c.run(c.options.selection, ["--only", "area:nowhere"])
    c.expect_eq(ran(r), set(), "--only area:nowhere")
    c.expect_eq(r.status, 0, "exit status when all are excluded")


@CASES("runner_exclude_tag_reports_excluded")
def exclude_tag(c):
    r = c.run(c.options.selection, ["--exclude", "slow"])
    c.expect_eq(r.status, 0, "exit status")
    c.expect_eq(states(r, "excluded"), {"net/download", "stack/pop"}, "excluded")
    c.expect_eq(ran(r), set(SELECTION_IDS) - {"net/download", "stack/pop"}, "ran")
    c.expect_eq(r.report["summary"]["excluded"], 2, "summary.excluded")
    c.expect_eq(r.tests["net/download"]["output"]["stdout"], "",
                "an excluded test does not run")


@CASES("runner_suite_tags_are_inherited")
def suite_tags(c):
    r = c.run(c.options.selection)
    c.expect_eq(r.tests["net/download"]["tags"], {"area": "net", "slow": True},
                "suite tag plus own tag")
    c.expect_eq(r.tests["net/connect"]["tags"], {"area": "net"}, "suite tag")
    c.expect_eq(r.tests["queue/push"]["tags"], {"area": "core"}, "suite tag")
    c.expect_eq(r.tests["stack/pop"]["tags"], {"slow": True, "unit": True},
                "own tags, no suite")
    c.expect_eq(r.tests["order/t00"]["tags"], {}, "no tags")


CONFIG = """jobs: 2
exclude: [slow]
tags:
  - match: "queue/*"
    add: [flagged, "owner:alice"]
"""


write = driver.write
read = driver.read


@CASES("runner_config_sets_jobs_exclude_and_tag_rules")
def config_applied(c):
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"), CONFIG)
    r = c.run(c.options.selection, cwd=directory)
    c.expect_eq(r.status, 0, "exit status")
    c.expect_eq(r.report["run"]["jobs"], 2, "jobs from tattle.yml")
    c.expect_eq(states(r, "excluded"), {"net/download", "stack/pop"},
                "exclude from tattle.yml")
    c.expect_eq(r.tests["queue/pop"]["tags"],
                {"area": "core", "flagged": True, "owner": "alice"},
                "tags added by a rule")
    c.expect_eq(r.tests["net/connect"]["tags"], {"area": "net"},
                "a rule leaves other tests alone")
    r = c.run(c.options.selection, ["--only", "owner:alice", "-j", "1"],
              cwd=directory)
    c.expect_eq(ran(r), {"queue/push", "queue/pop", "queue/pop_empty"},
                "--only selects a tag added by the configuration")
    c.expect_eq(r.report["run"]["jobs"], 1, "-j overrides the configuration")
    other = c.new_dir()
    write(os.path.join(other, "elsewhere.yml"), CONFIG)
    r = c.run(c.options.selection, ["--config", "elsewhere.yml"], cwd=other)
    c.expect_eq(r.report["run"]["jobs"], 2, "--config FILE is read")
    r = c.run(c.options.selection, cwd=other,
              env={"TATTLE_CONFIG": os.path.join(other, "elsewhere.yml")})
    c.expect_eq(r.report["run"]["jobs"], 2, "$TATTLE_CONFIG is read")


@CASES("runner_include_overrides_config_exclude")
def include_overrides_config(c):
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"), CONFIG)
    r = c.run(c.options.selection, ["--include", "slow"], cwd=directory)
    c.expect_eq(states(r, "excluded"), set(), "nothing excluded")
    c.expect("net/download" in ran(r) and "stack/pop" in ran(r),
             "--include slow runs the tests tattle.yml excludes")


BROKEN_CONFIGS = [
    ("unknown key", "jobs: 2\nexclude: [slow]\ncolour: always\n",
     r"tattle\.yml:3:1: .*colour"),
    ("bad value", "jobs: lots\n", r"tattle\.yml:1:7: .*lots"),
    # The same longest timeout as --timeout, refused rather than clamped.
    ("timeout above a week", "timeout_ms: 604800001\n",
     r"tattle\.yml:1:13: '604800001' is not a whole number from 1 to 604800000"),
    ("bad tag", "exclude: [slow, 'not a tag']\n", r"tattle\.yml:1:17: "),
    ("not YAML", "jobs: [1, 2\nexclude: slow\n", r"tattle\.yml:\d+:\d+: "),
]


@CASES("runner_broken_config_exits_2_with_location")
def config_broken(c):
    for what, text, pattern in BROKEN_CONFIGS:
        directory = c.new_dir()
        write(os.path.join(directory, "tattle.yml"), text)
        write(os.path.join(directory, "report.json"), "OLD REPORT\n")
        r = c.run(c.options.selection, ["--json", "report.json"], report=False,
                  cwd=directory)
        c.expect_eq(r.status, 2, "%s: exit status" % what)
        c.expect(r.stderr.count("\n") == 1 and r.stderr.endswith("\n"),
                 "%s: one line on stderr: %r" % (what, r.stderr))
        c.expect(re.search(pattern, r.stderr) is not None,
                 "%s: %r does not match %r" % (what, r.stderr, pattern))
        c.expect_eq(r.stdout, "", "%s: nothing ran" % what)
        c.expect_eq(read(os.path.join(directory, "report.json")), "OLD REPORT\n",
                    "%s: the old report is untouched" % what)
    directory = c.new_dir()
    write(os.path.join(directory, "mine.yml"), "jobs: 0\n")
    r = c.run(c.options.selection, ["--config", "mine.yml"], report=False,
              cwd=directory)
    c.expect_eq(r.status, 2, "--config with a bad value: exit status")
    c.expect(re.search(r"mine\.yml:1:7: ", r.stderr) is not None,
             "--config names its file: %r" % r.stderr)


# ----------------------------------------------------------------- ordering

@CASES("runner_seed_shuffle_is_reproducible")
def shuffle(c):
    def order(seed):
        r = c.run(c.options.selection, ["--seed", str(seed), "--shuffle", "order/*"])
        c.expect_eq(r.report["run"]["seed"], seed, "run.seed")
        c.expect_eq(sorted(r.order), ["order/t%02d" % i for i in range(12)],
                    "every test ran once")
        return r.order
    first, again, other = order(12345), order(12345), order(54321)
    c.expect_eq(again, first, "the same seed gives the same order")
    c.expect(other != first, "another seed gives another order: %s" % other)
    c.expect(first != sorted(first), "--shuffle changed the order: %s" % first)
    r = c.run(c.options.selection, ["--seed", "12345", "order/*"])
    c.expect_eq(r.order, sorted(r.order), "without --shuffle: source order")


@CASES("runner_repeat_stops_at_first_failure")
def repeat(c):
    r = c.run(c.options.fixture,
              ["--repeat", "5", "ctl/fails_on_third_run", "ctl/always_passes"])
    c.expect_eq(r.status, 1, "exit status")
    t = c.test(r, "ctl/fails_on_third_run")
    c.expect_eq((t["state"], t["attempts"]), ("failed", 3),
                "stops at the first failure (the third run)")
    c.expect_eq(read(r.file("count.third")).strip(), "3", "ran 3 times")
    t = c.test(r, "ctl/always_passes")
    c.expect_eq((t["state"], t["attempts"]), ("passed", 5), "ran 5 times")
    c.expect_eq(read(r.file("count.always")).strip(), "5", "ran 5 times")
    c.expect_eq(r.report["summary"]["total"], 2, "total counts tests, not runs")


@CASES("runner_max_failures_stops_scheduling")
def max_failures(c):
    r = c.run(c.options.fixture, ["--max-failures", "1", "mixed/*"])
    c.expect_eq(r.status, 1, "exit status")
    c.expect(os.path.exists(r.file("ran.passes")), "mixed/passes ran")
    c.expect(os.path.exists(r.file("ran.fails_a")), "mixed/fails_a ran")
    c.expect(not os.path.exists(r.file("ran.fails_b")),
             "no test starts after the first failure (fails_b ran)")
    c.expect(not os.path.exists(r.file("ran.passes_too")),
             "no test starts after the first failure (passes_too ran)")
    c.expect_eq(r.report["summary"]["failed"], 1, "summary.failed")


@CASES("runner_retry_marks_flaky")
def retry_flaky(c):
    r = c.run(c.options.fixture, ["--retry", "2", "ctl/flaky", "ctl/always_passes"])
    c.expect_eq(r.status, 0, "exit status")
    t = c.test(r, "ctl/flaky")
    c.expect_eq((t["state"], t["flaky"], t["attempts"]), ("passed", True, 2),
                "ctl/flaky state, flaky, attempts")
    c.expect_eq(read(r.file("count.flaky")).strip(), "2", "ran twice")
    t = c.test(r, "ctl/always_passes")
    c.expect_eq((t["flaky"], t["attempts"]), (False, 1), "a passing test runs once")
    s = r.report["summary"]
    c.expect_eq((s["total"], s["passed"], s["failed"], s["flaky"]), (2, 2, 0, 1),
                "summary total, passed, failed, flaky")


@CASES("runner_retry_exhausted_stays_failed")
def retry_exhausted(c):
    r = c.run(c.options.fixture, ["--retry", "2", "ctl/always_fails"])
    c.expect_eq(r.status, 1, "exit status")
    t = c.test(r, "ctl/always_fails")
    c.expect_eq((t["state"], t["flaky"], t["attempts"]), ("failed", False, 3),
                "state, flaky, attempts")
    c.expect_eq(read(r.file("count.fails")).strip(), "3", "ran 1 + 2 times")
    c.expect_eq(r.report["summary"]["total"], 1, "total")


@CASES("runner_retry_keeps_every_failed_attempt")
def retry_keeps_attempts(c):
    # Two failed attempts, then a pass; three failed attempts. Each report
    # keeps every failed attempt: the JSON under earlier_attempts (and
    # again after `tattle merge` reads it back), JUnit as Surefire's
    # flakyFailure and rerunFailure elements.
    r = c.run(c.options.fixture, ["--retry", "2", "--junit", "report.xml",
                                  "ctl/fails_twice", "ctl/always_fails"])
    c.expect_eq(r.status, 1, "exit status")
    flaky = c.test(r, "ctl/fails_twice")
    c.expect_eq((flaky["state"], flaky["flaky"], flaky["attempts"]),
                ("passed", True, 3), "ctl/fails_twice state, flaky, attempts")
    c.expect_eq(flaky["output"]["stdout"], "attempt 2\n",
                "the flaky result shows the last failed attempt")
    earlier = flaky.get("earlier_attempts", [])
    c.expect_eq([(a["state"], a["output"]["stdout"],
                  [f["message"] for f in a["failures"]]) for a in earlier],
                [("failed", "attempt 1\n", ["the first two runs fail"])],
                "ctl/fails_twice's earlier attempts")
    failed = c.test(r, "ctl/always_fails")
    c.expect_eq((failed["state"], failed["attempts"],
                 len(failed.get("earlier_attempts", []))), ("failed", 3, 2),
                "ctl/always_fails state, attempts, earlier attempts")

    cases = {case.get("name"): case for case in
             ElementTree.parse(r.file("report.xml")).getroot().iter("testcase")}
    c.expect_eq([child.tag for child in cases["fails_twice"]
                 if child.tag.startswith("flaky")],
                ["flakyFailure", "flakyFailure"],
                "JUnit: one flakyFailure per failed attempt")
    c.expect_eq([child.tag for child in cases["always_fails"]
                 if child.tag in ("failure", "rerunFailure")],
                ["failure", "rerunFailure", "rerunFailure"],
                "JUnit: the failure, then a rerunFailure per earlier attempt")
    if shutil.which("xmllint"):
        schema = os.path.join(SOURCE_DIR, "schemas", "junit.xsd")
        done = subprocess.run(["xmllint", "--noout", "--schema", schema,
                               r.file("report.xml")], capture_output=True,
                              text=True)
        c.expect(done.returncode == 0, "xmllint: %s" % done.stderr[-2000:])

    tattle = os.path.join(c.options.build_dir, "cli", "tattle")
    merged = r.file("merged.json")
    done = subprocess.run([tattle, "merge", "-o", merged, r.file("report.json")],
                          capture_output=True, text=True)
    c.require(done.returncode == 0, "tattle merge: %s" % done.stderr)
    with open(merged, encoding="utf-8") as f:
        tests = {t["id"]: t for t in json.load(f)["tests"]}
    for test_id in ("ctl/fails_twice", "ctl/always_fails"):
        c.expect_eq(tests[test_id].get("earlier_attempts"),
                    r.tests[test_id].get("earlier_attempts"),
                    "%s's earlier attempts after tattle merge" % test_id)


@CASES("runner_repeat_and_retry_number_each_attempt")
def repeat_retry_numbers(c):
    # With --repeat and --retry together, the failed runs do not start at
    # the first: each report must name the run each failed attempt was.
    # ctl/fails_runs_two_and_three: run 1 passes, 2 and 3 fail, 4 passes
    # (flaky). ctl/fails_after_first_run: run 1 passes, 2 and 3 fail and
    # the retries are spent.
    r = c.run(c.options.fixture, ["--repeat", "3", "--retry", "2",
                                  "--junit", "report.xml", "--ctrf",
                                  "report.ctrf.json",
                                  "ctl/fails_runs_two_and_three"])
    flaky = c.test(r, "ctl/fails_runs_two_and_three")
    c.expect_eq((flaky["state"], flaky["flaky"], flaky["attempts"]),
                ("passed", True, 4), "flaky test: state, flaky, attempts")
    c.expect_eq(flaky["output"]["stdout"], "run 3\n",
                "the flaky result shows its last failed run")
    c.expect_eq([(a["attempt"], a["output"]["stdout"])
                 for a in flaky.get("earlier_attempts", [])],
                [(2, "run 2\n")], "the earlier attempt is run 2")

    r2 = c.run(c.options.fixture, ["--repeat", "3", "--retry", "1",
                                   "--junit", "report.xml", "--ctrf",
                                   "report.ctrf.json",
                                   "ctl/fails_after_first_run"])
    failed = c.test(r2, "ctl/fails_after_first_run")
    c.expect_eq((failed["state"], failed["attempts"],
                 failed["output"]["stdout"]), ("failed", 3, "run 3\n"),
                "failed test: state, attempts, the last run shown")
    c.expect_eq([(a["attempt"], a["output"]["stdout"])
                 for a in failed.get("earlier_attempts", [])],
                [(2, "run 2\n")], "the earlier attempt is run 2")

    def junit_texts(run, name):
        case = next(case for case in ElementTree.parse(
            run.file("report.xml")).getroot().iter("testcase")
            if case.get("name") == name)
        texts = []
        for child in case:
            if child.tag in ("failure", "rerunFailure", "flakyFailure"):
                body = child.text or ""
                for inner in child.iter("stackTrace"):
                    body += inner.text or ""
                texts.append((child.tag, body))
        return texts

    texts = junit_texts(r, "fails_runs_two_and_three")
    c.expect_eq([tag for tag, _ in texts], ["flakyFailure", "flakyFailure"],
                "JUnit: a flakyFailure per failed run")
    c.expect("attempt 2 of 4 failed" in texts[0][1],
             "JUnit names run 2 first: %r" % texts[0][1])
    c.expect("attempt 3 of 4 failed (above); attempt 4 passed" in texts[1][1],
             "JUnit names run 3 last: %r" % texts[1][1])
    texts = junit_texts(r2, "fails_after_first_run")
    c.expect_eq([tag for tag, _ in texts], ["failure", "rerunFailure"],
                "JUnit: the failure, then the earlier failed run")
    c.expect("the last 2 of 3 attempts failed" in texts[0][1],
             "JUnit does not say every attempt failed: %r" % texts[0][1])
    c.expect("attempt 2 of 3 failed" in texts[1][1],
             "the rerunFailure is run 2: %r" % texts[1][1])

    # A report written before earlier attempts carried their number is
    # still read, the number worked out from where the failed runs end.
    with open(r.file("report.json"), encoding="utf-8") as f:
        old = json.load(f)
    for test in old["tests"]:
        for attempt in test.get("earlier_attempts", []):
            del attempt["attempt"]
    with open(r.file("old.json"), "w", encoding="utf-8") as f:
        json.dump(old, f)
    tattle = os.path.join(c.options.build_dir, "cli", "tattle")
    done = subprocess.run([tattle, "convert", r.file("old.json"), "--to",
                           "junit", "-o", r.file("old.xml")],
                          capture_output=True, text=True)
    c.expect_eq(done.returncode, 0, "tattle convert of the old report: %s"
                % done.stderr)
    if done.returncode == 0:
        with open(r.file("old.xml"), encoding="utf-8") as f:
            c.expect("attempt 2 of 4 failed" in f.read(),
                     "the old report's earlier attempt is run 2")

    for run, test_id, expected in (
            (r, "ctl/fails_runs_two_and_three", [2, 3]),
            (r2, "ctl/fails_after_first_run", [2])):
        with open(run.file("report.ctrf.json"), encoding="utf-8") as f:
            test = json.load(f)["results"]["tests"][0]
        c.expect_eq(([a["attempt"] for a in test.get("retryAttempts", [])],
                     test["retries"]), (expected, len(expected)),
                    "%s: CTRF retryAttempts and retries" % test_id)
        if shutil.which("xmllint"):
            schema = os.path.join(SOURCE_DIR, "schemas", "junit.xsd")
            done = subprocess.run(["xmllint", "--noout", "--schema", schema,
                                   run.file("report.xml")],
                                  capture_output=True, text=True)
            c.expect(done.returncode == 0, "xmllint: %s" % done.stderr[-2000:])


@CASES("runner_failed_reruns_previous_failures")
def failed_rerun(c):
    directory = c.new_dir()
    r = c.run(c.options.fixture, ["mixed/*"], cwd=directory)
    c.expect_eq(r.status, 1, "first run: exit status")
    c.require(os.path.exists(os.path.join(directory, ".tattle", "last-run.json")),
              ".tattle/last-run.json written in the working directory")
    for name in os.listdir(directory):
        if name.startswith("ran."):
            os.unlink(os.path.join(directory, name))
    r = c.run(c.options.fixture, ["--failed"], cwd=directory)
    c.expect_eq(r.status, 1, "--failed: exit status")
    c.expect_eq(set(r.tests), {"mixed/fails_a", "mixed/fails_b"},
                "--failed reruns exactly the previous failures")
    c.expect_eq(sorted(n for n in os.listdir(directory) if n.startswith("ran.")),
                ["ran.fails_a", "ran.fails_b"], "only they ran")


@CASES("runner_list_prints_selected_tests")
def list_text(c):
    directory = c.new_dir()
    r = c.run(c.options.selection, ["--list", "queue/*"], report=False, cwd=directory)
    c.expect_eq(r.status, 0, "exit status")
    lines = r.stdout.splitlines()
    c.expect_eq([l.split()[0] for l in lines if l.strip()],
                ["queue/push", "queue/pop", "queue/pop_empty"], "listed ids")
    c.expect(all("area:core" in l for l in lines), "tags listed: %r" % lines)
    r = c.run(c.options.selection, ["--list"], report=False, cwd=directory)
    c.expect_eq([l.split()[0] for l in r.stdout.splitlines() if l.strip()],
                SELECTION_IDS, "every test listed in source order")
    c.expect(not os.path.exists(os.path.join(directory, ".tattle")),
             "--list runs nothing (no .tattle/last-run.json)")


@CASES("runner_list_json_describes_tests")
def list_json(c):
    r = c.run(c.options.selection, ["--list", "--json", "--exclude", "slow"],
              report=False)
    c.expect_eq(r.status, 0, "exit status")
    listing = json.loads(r.stdout)
    c.expect_eq([t["id"] for t in listing], SELECTION_IDS, "ids")
    by_id = {t["id"]: t for t in listing}
    t = by_id["net/download"]
    c.expect_eq(t["tags"], {"area": "net", "slow": True}, "tags")
    c.expect_eq((t["suite"], t["name"]), ("net", "download"), "suite, name")
    c.expect(t["file"].endswith("fixture_selection.c") and t["line"] > 0,
             "file and line: %s:%s" % (t["file"], t["line"]))
    c.expect_eq(t.get("state"), "excluded", "an excluded test is marked")
    c.expect_eq(by_id["net/connect"].get("state"), "selected", "selected")


@CASES("runner_shard_flag_partitions_tests")
def shard_flag(c):
    a = c.run(c.options.selection, ["--shard", "0/2"])
    b = c.run(c.options.selection, ["--shard", "1/2"])
    c.expect_eq(a.report["run"]["shard"], {"index": 0, "total": 2}, "run.shard 0/2")
    c.expect_eq(b.report["run"]["shard"], {"index": 1, "total": 2}, "run.shard 1/2")
    c.expect(not (ran(a) & ran(b)), "shards overlap: %s" % (ran(a) & ran(b)))
    c.expect_eq(ran(a) | ran(b), set(SELECTION_IDS), "shards cover every test")
    c.expect(abs(len(ran(a)) - len(ran(b))) <= 1, "shards are balanced")
    whole = c.run(c.options.selection)
    c.expect_eq(whole.report["run"]["shard"], None, "no shard: run.shard null")


@CASES("runner_gtest_shard_env_is_honoured")
def shard_gtest(c):
    b = c.run(c.options.selection, ["--shard", "1/2"])
    g = c.run(c.options.selection,
              env={"GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "1"})
    c.expect_eq(g.report["run"]["shard"], {"index": 1, "total": 2}, "run.shard")
    c.expect_eq(ran(g), ran(b), "GTEST_* selects the same tests as --shard 1/2")
    c.expect(0 < len(ran(g)) < len(SELECTION_IDS), "a real part: %s" % ran(g))


@CASES("runner_jobs_run_tests_concurrently")
def jobs_concurrent(c):
    # Each test waits (up to FIXTURE_WAIT_MS) for the other to appear.
    r = c.run(c.options.fixture, ["-j", "2", "pair/*"],
              env={"FIXTURE_WAIT_MS": str(int(10000 * WAIT_SCALE))})
    c.expect_eq(r.status, 0, "-j 2: exit status")
    c.expect_eq(ran(r), {"pair/left", "pair/right"}, "-j 2: both met")
    c.expect_eq(r.report["run"]["jobs"], 2, "run.jobs")
    # The control: one at a time, the first test waits in vain (the other
    # cannot start before it ends, however long it waits).
    r = c.run(c.options.fixture, ["-j", "1", "pair/*"],
              env={"FIXTURE_WAIT_MS": "300"})
    c.expect_eq(r.status, 1, "-j 1: the pair cannot meet")
    f = r.tests.get("pair/left", {}).get("failures", [])
    c.expect(f and "never appeared" in f[0]["message"],
             "-j 1: pair/left waited in vain: %s" % f)


# ------------------------------------------------------------- exit status

@CASES("runner_exit_0_when_all_pass_or_skip")
def exit_status_0(c):
    r = c.run(c.options.selection)
    c.expect_eq(r.status, 0, "all passed")
    c.expect_eq(r.report["summary"]["result"], "passed", "summary.result")
    r = c.run(c.options.fixture, ["mixed/passes", "assert/skip_with_format"])
    c.expect_eq(r.status, 0, "passed and skipped")
    r = c.run(c.options.selection, ["--exclude", "area:core"])
    c.expect_eq(r.status, 0, "passed and excluded")


@CASES("runner_exit_1_on_failure")
def exit_status_1(c):
    r = c.run(c.options.fixture, ["mixed/passes", "mixed/fails_a"])
    c.expect_eq(r.status, 1, "a failed test")
    c.expect_eq(r.report["summary"]["result"], "failed", "summary.result")
    r = c.run(c.options.fixture, ["assert/setup_fails_invalid"])
    c.expect_eq(r.status, 1, "an invalid test")
    r = c.run(c.options.fixture, ["crash/segv"])
    c.expect_eq(r.status, 1, "a crashed test")


USAGE_ERRORS = [
    (["--jobs", "0"], {}, "--jobs"),
    (["--jobs", "x"], {}, "--jobs"),
    (["-j", "0"], {}, "-j"),
    (["--bogus"], {}, "--bogus"),
    (["--shard", "3/2"], {}, "--shard"),
    (["--color", "purple"], {}, "--color"),
    (["--timeout"], {}, "--timeout"),
    (["--repeat", "-1"], {}, "--repeat"),
    ([], {"GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "5"}, "GTEST_SHARD_INDEX"),
    ([], {"TATTLE_TIMEOUT_MULTIPLIER": "fast"}, "TATTLE_TIMEOUT_MULTIPLIER"),
    (["--reporter", "console=stdout", "--jsonl", "-"], {}, "console"),
    (["--reporter", "console=-", "--reporter", "tap"], {}, "console"),
]


@CASES("runner_usage_errors_exit_2_without_side_effects")
def exit_status_2(c):
    for index, (args, env, named) in enumerate(USAGE_ERRORS):
        directory = c.new_dir()
        old_report = index % 2 == 0  # half with an old report, half without
        if old_report:
            write(os.path.join(directory, "report.json"), "OLD REPORT\n")
        argv = ["--json", "report.json", "ctl/marker"] + args
        r = c.run(c.options.fixture, argv, report=False, cwd=directory, env=env)
        what = " ".join(args) or str(env)
        c.expect_eq(r.status, 2, "%s: exit status" % what)
        c.expect(r.stderr.count("\n") == 1 and named in r.stderr,
                 "%s: one stderr line naming %s: %r" % (what, named, r.stderr))
        c.expect_eq(r.stdout, "", "%s: stdout" % what)
        c.expect(not os.path.exists(r.file("ran.marker")), "%s: a test ran" % what)
        if old_report:
            c.expect_eq(read(r.file("report.json")), "OLD REPORT\n",
                        "%s: the old report.json is untouched" % what)
        else:
            c.expect(not os.path.exists(r.file("report.json")),
                     "%s: a report.json was written" % what)
        c.expect_eq(sorted(os.listdir(directory)),
                    ["report.json"] if old_report else [],
                    "%s: nothing else written (.tattle, temporaries)" % what)


@CASES("runner_interrupt_exits_3_with_partial_report")
def exit_status_3(c):
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        interrupted_run(c, signal_number)


def interrupted_run(c, signal_number):
    directory = c.new_dir()
    pid_file = os.path.join(directory, "pids")
    env = c.environment({"RUNNER_PID_FILE": pid_file})
    runner = subprocess.Popen(
        [c.options.fixture, "-j", "1", "--json", "report.json", "slowpoke/*"],
        cwd=directory, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 15 * WAIT_SCALE
    while (not os.path.exists(os.path.join(directory, "sleeper.started"))
           and time.monotonic() < deadline and runner.poll() is None):
        time.sleep(0.02)
    started = os.path.exists(os.path.join(directory, "sleeper.started"))
    runner.send_signal(signal_number)
    name = signal.Signals(signal_number).name
    try:
        runner.communicate(timeout=15 * WAIT_SCALE)
    except subprocess.TimeoutExpired:
        runner.kill()
        runner.communicate()
        c.require(False, "the runner did not stop within %d s of %s"
                  % (15 * WAIT_SCALE, name))
    c.require(started, "slowpoke/sleeps never started")
    pids = read_pids(pid_file)
    c.pids_to_reap += [pid for _, pid in pids]
    c.expect_eq(runner.returncode, 3, "exit status after %s" % name)
    r = Result(runner.returncode, "", "", directory, 0)
    c.load_report(r, expect_report=True)
    c.expect_eq(r.report["run"]["interrupted"], True, "%s: run.interrupted" % name)
    c.expect_eq(r.tests.get("slowpoke/quick", {}).get("state"), "passed",
                "%s: the finished test is in the report" % name)
    c.expect_eq(r.report["summary"]["result"], "failed", "summary.result")
    running = r.tests.get("slowpoke/sleeps", {})
    c.expect_eq(running.get("state"), "failed",
                "%s: the test that was running is reported as failed" % name)
    messages = [f["message"] for f in running.get("failures", []) if f["kind"] == "error"]
    c.expect(any("interrupted (%s)" % name in m for m in messages),
             "%s: the running test says the run was interrupted: %s" % (name, messages))
    listed = subprocess.run([c.options.fixture, "--list", "--json", "slowpoke/*"],
                            cwd=directory, env=c.environment(), capture_output=True)
    selected = len(json.loads(listed.stdout))
    c.expect_eq(r.report["summary"]["total"], selected,
                "%s: summary.total counts every selected test" % name)
    for label, pid in pids:
        c.expect(not process_alive(pid), "%s: the running test (pid %d) was "
                 "not killed" % (name, pid))


@CASES("runner_no_fork_runs_in_process")
def no_fork(c):
    directory = c.new_dir()
    runner = subprocess.Popen(
        [c.options.fixture, "--no-fork", "--json", "report.json", "nofork/*"],
        cwd=directory, env=c.environment(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    runner.communicate(timeout=30 * WAIT_SCALE)
    c.expect_eq(runner.returncode, 1, "exit status")
    r = Result(runner.returncode, "", "", directory, 0)
    c.load_report(r, expect_report=True)
    c.expect_eq(read(r.file("nofork.pid")).strip(), str(runner.pid),
                "the test ran in the runner's process")
    f = c.only_failure(r, "nofork/fails", "assertion")
    c.expect_eq(f["message"], "arithmetic in-process", "in-process failure")
    c.expect_eq(r.tests["nofork/writes_pid"]["state"], "passed", "state")
    # The control: forked, the test's pid is not the runner's.
    runner = subprocess.Popen([c.options.fixture, "nofork/writes_pid"],
                              cwd=directory, env=c.environment(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    runner.communicate(timeout=30 * WAIT_SCALE)
    c.expect(read(r.file("nofork.pid")).strip() != str(runner.pid),
             "forked: the test has its own process")


@CASES("runner_output_left_buffered_is_flushed")
def output_left_buffered(c):
    r = c.run(c.options.fixture, ["output/unflushed_*"])
    c.expect_eq(r.status, 0, "both tests pass")
    stdout = c.test(r, "output/unflushed_stdout")["output"]["stdout"]
    c.expect_eq(stdout, "fully buffered, never flushed",
                "what a fully buffered stdout held at the end was kept")
    c.expect_eq(read(r.file("unflushed.txt")), "left open, never flushed",
                "a file the test left open was flushed")


# ---------------------------------------------------------- CTest, console

@CASES("runner_ctest_labels_from_tags", needs=("queue_tests",))
def ctest_labels(c):
    listing = json.loads(subprocess.run(
        [c.options.queue_tests, "--list", "--json"], stdout=subprocess.PIPE,
        check=True, env=c.environment()).stdout)
    expected = {}
    for t in listing:
        labels = sorted(k if v is True else "%s:%s" % (k, v)
                        for k, v in t["tags"].items())
        expected["example:" + t["id"]] = labels
    shown = subprocess.run(
        [c.options.ctest, "--show-only=json-v1"], cwd=c.options.build_dir,
        stdout=subprocess.PIPE, check=True).stdout
    # The examples' other binaries register their tests too: keep the
    # queue binary's, by the command CTest runs.
    queue_binary = os.path.realpath(c.options.queue_tests)
    tests = {t["name"]: t for t in json.loads(shown)["tests"]
             if t["name"].startswith("example:") and t.get("command") and
             os.path.realpath(t["command"][0]) == queue_binary}
    c.expect_eq(sorted(tests), sorted(expected), "one CTest test per TEST")
    for name, t in tests.items():
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        c.expect_eq(sorted(props.get("LABELS", [])), expected.get(name),
                    "%s LABELS" % name)
        c.expect_eq(props.get("SKIP_RETURN_CODE"), 77, "%s SKIP_RETURN_CODE" % name)
        c.expect(any(str(v).startswith("TATTLE_SKIP_RETURN_CODE=")
                     for v in props.get("ENVIRONMENT", [])),
                 "%s sets TATTLE_SKIP_RETURN_CODE" % name)
    listed = subprocess.run(
        [c.options.ctest, "-N", "-L", "area:core"], cwd=c.options.build_dir,
        stdout=subprocess.PIPE, check=True).stdout.decode()
    names = set(re.findall(r"Test\s+#\d+: (example:\S+)", listed))
    c.expect_eq(names, {n for n, l in expected.items() if "area:core" in l},
                "ctest -N -L area:core")
    listed = subprocess.run(
        [c.options.ctest, "-N", "-L", "^threads$"], cwd=c.options.build_dir,
        stdout=subprocess.PIPE, check=True).stdout.decode()
    names = set(re.findall(r"Test\s+#\d+: (example:\S+)", listed))
    c.expect_eq(names, {n for n, l in expected.items() if "threads" in l},
                "ctest -N -L ^threads$")
    c.expect(len(names) >= 1, "some test carries the threads tag")


@CASES("runner_skip_return_code_under_ctest")
def skip_return_code(c):
    env = {"TATTLE_SKIP_RETURN_CODE": "77"}
    r = c.run(c.options.fixture, ["assert/skip_with_format"], env=env)
    c.expect_eq(r.status, 77, "all skipped under TATTLE_SKIP_RETURN_CODE=77")
    r = c.run(c.options.fixture, ["assert/skip_with_format"])
    c.expect_eq(r.status, 0, "all skipped without it")
    r = c.run(c.options.fixture, ["assert/skip_with_format", "mixed/passes"], env=env)
    c.expect_eq(r.status, 0, "a pass and a skip")
    r = c.run(c.options.fixture, ["assert/skip_with_format", "mixed/fails_a"], env=env)
    c.expect_eq(r.status, 1, "a failure and a skip")


def run_on_terminal(c, argv, env):
    """Runs argv with stdout and stderr on a pseudo-terminal; returns the
    exit status and what it printed."""
    master, slave = pty.openpty()
    process = subprocess.Popen(argv, cwd=c.new_dir(), env=c.environment(env),
                               stdin=subprocess.DEVNULL, stdout=slave,
                               stderr=slave)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 30 * WAIT_SCALE
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    os.close(master)
    process.wait(timeout=10)
    return process.returncode, b"".join(chunks).decode("utf-8", "replace")


@CASES("runner_color_only_when_asked")
def color(c):
    tests = ["mixed/passes", "mixed/fails_a"]
    escape = "\x1b["
    r = c.run(c.options.fixture, tests, report=False)
    c.expect(escape not in r.stdout + r.stderr, "a pipe gets no colour")
    r = c.run(c.options.fixture, ["--color=always"] + tests, report=False)
    c.expect(escape in r.stdout, "--color=always colours a pipe")
    r = c.run(c.options.fixture, ["--color", "always"] + tests, report=False,
              env={"NO_COLOR": "1"})
    c.expect(escape in r.stdout, "--color always wins over NO_COLOR")
    _, text = run_on_terminal(c, [c.options.fixture] + tests, {"TERM": "xterm"})
    c.expect(escape in text, "a terminal gets colour: %r" % text[:200])
    _, text = run_on_terminal(c, [c.options.fixture] + tests,
                              {"TERM": "xterm", "NO_COLOR": "1"})
    c.expect(escape not in text, "NO_COLOR=1 on a terminal: no colour")
    _, text = run_on_terminal(c, [c.options.fixture, "--color=never"] + tests,
                              {"TERM": "xterm"})
    c.expect(escape not in text, "--color=never on a terminal: no colour")


@CASES("runner_console_last_line_is_counts")
def console_last_line(c):
    tests = ["mixed/*", "assert/skip_with_format", "assert/setup_fails_invalid"]
    r = c.run(c.options.fixture, tests, report=False)
    c.expect_eq(r.status, 1, "exit status")
    c.expect(r.stdout.endswith("\n"), "the console ends with a newline")
    c.expect_eq(r.stdout.splitlines()[-1] if r.stdout else "",
                "2 passed, 3 failed, 1 skipped", "last line (invalid is failed)")
    r = c.run(c.options.selection, ["--exclude", "slow"], report=False)
    c.expect_eq(r.stdout.splitlines()[-1] if r.stdout else "",
                "17 passed, 0 failed, 0 skipped", "last line, all passed")
    # A report on stdout moves the console to stderr.
    r = c.run(c.options.fixture, tests + ["--json", "-"], report=False)
    c.expect_eq(r.stderr.splitlines()[-1] if r.stderr else "",
                "2 passed, 3 failed, 1 skipped", "last line on stderr")
    try:
        report = json.loads(r.stdout)
        for p in validate_json.check_report(report, complete=True):
            c.problems.append("--json - report: %s" % p)
    except ValueError as e:
        c.expect(False, "--json -: stdout is not only JSON: %s" % e)
    # Only '-' is stdout to a report: "stdout" and "stderr" are file names
    # (the console alone takes them as its streams), so the console stays.
    r = c.run(c.options.fixture,
              tests + ["--jsonl", "stdout", "--junit", "stderr"], report=False)
    c.expect_eq(r.stdout.splitlines()[-1] if r.stdout else "",
                "2 passed, 3 failed, 1 skipped",
                "--jsonl stdout: the console's last line is still on stdout")
    with open(r.file("stdout"), encoding="utf-8") as f:
        events = [json.loads(line) for line in f]
    c.expect_eq(sum(e["event"] == "test_finished" for e in events), 6,
                "--jsonl stdout: the stream is in the file 'stdout'")
    c.expect(ElementTree.parse(r.file("stderr")).getroot().tag == "testsuites",
             "--junit stderr: the report is in the file 'stderr'")
    # ... checked as files are: a directory of that name is refused.
    directory = c.new_dir()
    os.mkdir(os.path.join(directory, "stderr"))
    r = c.run(c.options.fixture, tests + ["--junit", "stderr"], report=False,
              cwd=directory)
    c.expect_eq(r.status, 2, "--junit stderr, a directory: exit status")
    c.expect(r.stderr.count("\n") == 1 and "is a directory" in r.stderr,
             "--junit stderr, a directory: one line saying so: %r" % r.stderr)
    # A console asked for without a place leaves stdout to the report.
    r = c.run(c.options.fixture, tests + ["--reporter", "console", "--json", "-"],
              report=False)
    c.expect_eq(r.stderr.splitlines()[-1] if r.stderr else "",
                "2 passed, 3 failed, 1 skipped",
                "--reporter console --json -: the console's last line on stderr")
    try:
        json.loads(r.stdout)
    except ValueError as e:
        c.expect(False, "--reporter console --json -: stdout is not only JSON: %s" % e)


# ---------------------------------------------------------------- contract edges

@CASES("runner_worker_fatal_assert_ends_only_the_worker")
def worker_fatal_assert(c):
    test_id = "contract/worker_fatal_assert_ends_only_the_worker"
    r = c.run(c.options.contract, [test_id])
    f = c.only_failure(r, test_id, "assertion")
    c.expect_eq(f["message"], "the worker's own check", "the worker's failure is recorded")
    stderr = c.test(r, test_id)["output"]["stderr"]
    c.expect_eq(stderr.count("teardown in"), 1, "teardown ran once: %r" % stderr)
    c.expect_eq(stderr.count("on_exit in"), 1, "on_exit ran once: %r" % stderr)
    c.expect("worker status 1" in stderr, "the worker exited with status 1: %r" % stderr)


@CASES("runner_many_children_are_all_killed")
def many_children(c):
    directory = c.new_dir()
    pid_file = os.path.join(directory, "pids")
    r = c.run(c.options.contract, ["contract/leaves_many_children"], cwd=directory,
              env={"CONTRACT_PID_FILE": pid_file})
    c.expect_eq(r.status, 0, "the test passes")
    pids = [pid for _, pid in read_pids(pid_file)]
    c.pids_to_reap += pids
    c.expect_eq(len(pids), 600, "600 children were started")
    deadline = time.monotonic() + 5 * WAIT_SCALE
    while time.monotonic() < deadline and any(process_alive(p) for p in pids):
        time.sleep(0.05)
    alive = [p for p in pids if process_alive(p)]
    c.expect(not alive, "%d of 600 children survived the test" % len(alive))


@CASES("runner_many_jobs_spare_running_tests_from_a_crash")
def many_jobs(c):
    r = c.run(c.options.contract, ["-j", "80", "--jsonl", "stream.jsonl", "crowd/*"],
              timeout=60, env={"FIXTURE_WAIT_MS": str(int(20000 * WAIT_SCALE))})
    sleepers = [t for t in r.report["tests"] if t["id"].startswith("crowd/sleeper_")]
    c.expect_eq(len(sleepers), 69, "69 sleepers ran")
    killed = [t["id"] for t in sleepers if t["state"] != "passed"]
    c.expect(not killed, "sleepers killed when another test crashed: %s" % killed[:5])
    c.expect_eq(c.test(r, "crowd/crasher")["state"], "failed", "the crasher failed")


@CASES("runner_usage_error_truncates_no_existing_report")
def usage_error_keeps_files(c):
    directory = c.new_dir()
    for name in ("old.jsonl", "old.json"):
        with open(os.path.join(directory, name), "w") as f:
            f.write("OLD\n")
    r = c.run(c.options.contract, ["--jsonl", "old.jsonl", "--json", "missing/dir/r.json",
                                   "contract/prints_to_stdout"], cwd=directory, report=False)
    c.expect_eq(r.status, 2, "an unwritable report is a usage error")
    c.expect("missing/dir/r.json" in r.stderr, "the message names the path: %r" % r.stderr)
    c.expect_eq(len(r.stderr.strip().splitlines()), 1, "one line: %r" % r.stderr)
    with open(os.path.join(directory, "old.jsonl")) as f:
        c.expect_eq(f.read(), "OLD\n", "the existing stream file is untouched")
    os.mkdir(os.path.join(directory, "adir"))
    r = c.run(c.options.contract, ["--json", "adir", "contract/prints_to_stdout"],
              cwd=directory, report=False)
    c.expect_eq(r.status, 2, "a directory as report path is a usage error")
    c.expect("adir" in r.stderr and "directory" in r.stderr, "named: %r" % r.stderr)
    c.expect("PASS" not in r.stdout, "nothing ran: %r" % r.stdout)


def known_reporters(c, stderr, prefix, name, what):
    """Checks that `stderr` is the one line PREFIX"no reporter named 'NAME'
    (known reporters: ...)" and that the list holds the fixture's
    reporters, its plugin included, and not NAME."""
    c.expect(stderr.count("\n") == 1 and stderr.endswith("\n"),
             "%s: one line on stderr: %r" % (what, stderr))
    match = re.fullmatch(r".*: %s no reporter named '%s' \(known reporters: "
                         r"([^)]*)\)" % (re.escape(prefix), re.escape(name)),
                         stderr.rstrip("\n"))
    if c.expect(match is not None, "%s: %r names no known reporters"
                % (what, stderr)):
        names = match.group(1).split(", ")
        for expected in ("console", "json", "jsonl", "contract-plugin"):
            c.expect(expected in names, "%s: %s is not listed in %s"
                     % (what, expected, names))
        c.expect(name not in names, "%s: %s is listed" % (what, name))


@CASES("runner_unknown_reporter_lists_known_reporters")
def unknown_reporter(c):
    # An unknown --reporter NAME, or report key in tattle.yml, is a usage
    # error whose one line lists the reporters there are, plugins too.
    for args in (["--reporter", "nope"], ["--reporter=nope=out.txt"]):
        what = " ".join(args)
        directory = c.new_dir()
        write(os.path.join(directory, "report.json"), "OLD REPORT\n")
        r = c.run(c.options.contract,
                  ["--json", "report.json"] + args + ["contract/prints_to_stdout"],
                  report=False, cwd=directory)
        c.expect_eq(r.status, 2, "%s: exit status" % what)
        known_reporters(c, r.stderr, "--reporter:", "nope", what)
        c.expect_eq(r.stdout, "", "%s: nothing ran" % what)
        c.expect_eq(sorted(os.listdir(directory)), ["report.json"],
                    "%s: nothing written" % what)
        c.expect_eq(read(os.path.join(directory, "report.json")), "OLD REPORT\n",
                    "%s: the old report is untouched" % what)
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"), "reports: {nope: out.txt}\n")
    r = c.run(c.options.contract, ["contract/prints_to_stdout"], report=False,
              cwd=directory)
    c.expect_eq(r.status, 2, "tattle.yml: exit status")
    known_reporters(c, r.stderr, "tattle.yml:1:11:", "nope", "tattle.yml")
    c.expect_eq(r.stdout, "", "tattle.yml: nothing ran")
    # A plugin is a reporter like the others, for the flag and the file.
    r = c.run(c.options.contract, ["--reporter", "contract-plugin",
                                   "contract/prints_to_stdout"])
    c.expect_eq(r.status, 0, "--reporter contract-plugin: exit status")
    directory = c.new_dir()
    write(os.path.join(directory, "tattle.yml"),
          "reports: {contract-plugin: out.txt}\n")
    r = c.run(c.options.contract, ["contract/prints_to_stdout"], cwd=directory)
    c.expect_eq(r.status, 0, "reports: {contract-plugin: ...}: exit status")


@CASES("runner_error_codes_have_names_and_messages")
def error_codes(c):
    # tattle_error_name/_message and tattle_reporter_register's codes, as
    # the public headers document them.
    r = c.run(c.options.contract, ["errors/*"])
    for test_id in ("errors/codes_have_names_and_messages",
                    "errors/reporter_register_returns_named_codes"):
        t = c.test(r, test_id)
        c.expect_eq(t["state"], "passed", "%s: %s" % (test_id, t["failures"]))


@CASES("runner_no_fork_keeps_stdout_report_pure")
def no_fork_stdout_pure(c):
    for flag in ("--json", "--jsonl"):
        directory = c.new_dir()
        p = subprocess.run([c.options.contract, "--no-fork", flag, "-",
                            "contract/prints_to_stdout"], cwd=directory,
                           env=c.environment(), capture_output=True, timeout=60)
        c.expect_eq(p.returncode, 0, "%s -: exit status" % flag)
        text = p.stdout.decode("utf-8", "replace")
        try:
            documents = [json.loads(text)] if flag == "--json" else \
                [json.loads(line) for line in text.splitlines()]
            c.expect(all(isinstance(d, dict) and "not" not in d for d in documents),
                     "%s -: only report objects on stdout" % flag)
        except ValueError as e:
            c.expect(False, "%s - with --no-fork: stdout is not only JSON (%s): %r"
                     % (flag, e, text[:200]))
        c.expect("not" in p.stderr.decode("utf-8", "replace"),
                 "%s -: the test's output went to stderr" % flag)


@CASES("runner_failed_state_is_per_binary_and_merged")
def failed_per_binary(c):
    directory = c.new_dir()
    # A failing run of one binary, then another binary with --failed: it has
    # nothing recorded, so it runs its selection and the first binary's
    # failures stay recorded.
    first = c.run(c.options.fixture, ["assert/int_eq"], cwd=directory)
    c.expect_eq(first.status, 1, "the first binary's test fails")
    second = c.run(c.options.contract, ["--failed", "contract/prints_to_stdout"], cwd=directory)
    c.expect_eq(second.status, 0, "the other binary runs its own selection")
    c.expect("contract/prints_to_stdout" in second.tests, "and reports it")
    c.expect("no failure of this binary" in second.stderr, "with a note: %r" % second.stderr)
    again = c.run(c.options.fixture, ["--failed"], cwd=directory)
    c.expect_eq(sorted(t for t in again.tests if again.tests[t]["state"] != "excluded"),
                ["assert/int_eq"], "the first binary's failure was kept")
    # A subset run that passes other tests does not forget the failure.
    c.run(c.options.fixture, ["assert/near_holds"], cwd=directory)
    again = c.run(c.options.fixture, ["--failed"], cwd=directory)
    c.expect("assert/int_eq" in again.tests, "a subset run keeps other failures")
    with open(os.path.join(directory, ".tattle", "last-run.json"), encoding="utf-8") as f:
        state = json.load(f)
    problems = validate_json.check_against(state, "last-run.schema.json")
    c.expect(not problems, "last-run.json validates: %s" % problems)


@CASES("runner_list_json_flag_order_and_utf8")
def list_json_forms(c):
    for argv in (["--list", "--json"], ["--json", "--list"], ["--list", "--json", "-"],
                 ["--json", "-", "--list"]):
        p = subprocess.run([c.options.contract] + argv + ["contract/*"], cwd=c.new_dir(),
                           env=c.environment(), capture_output=True, timeout=60)
        c.expect_eq(p.returncode, 0, "%s: exit status" % argv)
        try:
            text = p.stdout.decode("utf-8")
            listing = json.loads(text)
            c.expect(len(listing) >= 5, "%s: the tests are listed" % argv)
            problems = validate_json.check_against(listing, "list.schema.json")
            c.expect(not problems, "%s: the listing validates: %s" % (argv, problems))
        except ValueError as e:
            c.expect(False, "%s: stdout is not a UTF-8 JSON listing (%s): %r"
                     % (argv, e, p.stdout[:200]))
    r = c.run(c.options.contract, ["--jsonl", "--list"], report=False)
    c.expect_eq(r.status, 2, "a flag is never taken as a file name")


@CASES("runner_out_of_range_trace_sizes_make_test_invalid")
def trace_sizes_invalid(c):
    r = c.run(c.options.contract, ["contract/*_out_of_range"])
    for test_id, words in (("contract/tag_cap_out_of_range", "trace_messages:4294967297"),
                           ("contract/field_cap_out_of_range", ".trace_cap")):
        t = c.test(r, test_id)
        c.expect_eq(t["state"], "invalid", "%s is invalid" % test_id)
        messages = [f["message"] for f in t["failures"]]
        c.expect(any(words in m for m in messages), "%s says why: %s" % (test_id, messages))


@CASES("runner_huge_timeout_multiplier_is_clamped")
def multiplier_clamped(c):
    r = c.run(c.options.contract, ["contract/prints_to_stdout"],
              env={"TATTLE_TIMEOUT_MULTIPLIER": "1e300"})
    c.expect_eq(r.status, 0, "a huge multiplier does not turn into a tiny timeout")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    for name in ("fixture", "selection", "contract", "all-macros", "no-short-names",
                 "build-dir", "ctest", "queue-tests", "gcc", "clang"):
        parser.add_argument("--" + name)
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
