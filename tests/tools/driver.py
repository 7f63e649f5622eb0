"""What the Python test drivers share: the table of a driver's cases, each
named once by its CTest test name (`DRIVER --list` prints them and CMake
registers one test per line, see tests/driver_cases.cmake), the checks a
case makes (a failed `expect` is recorded and the case goes on; a failed
`require` ends it), a scratch directory per case with one new directory
per run, the scale of bounded waits, and the run of one case into an exit
status for CTest (0 when every check held, 1 otherwise, each failed check
printed).
"""
import argparse
import os
import shutil
import sys
import tempfile
import traceback


def wait_scale():
    """How much longer than on an idle machine a bounded wait may last:
    TATTLE_TIMEOUT_MULTIPLIER of the driver's own environment (the
    sanitizer builds set it for the tests), at least 1. Drivers take the
    variable out of the runner's environment: the timeouts they check are
    exact."""
    try:
        return max(1.0, float(os.environ.get("TATTLE_TIMEOUT_MULTIPLIER", "1")))
    except ValueError:
        return 1.0


# What the runner reads from its environment that would change what a case
# checks: timeouts, configuration, colours, report places, and the CI and
# sharding variables of CTest, GoogleTest and Bazel.
RUNNER_VARIABLES = (
    "TATTLE_TIMEOUT_MULTIPLIER", "TATTLE_CONFIG", "TATTLE_SKIP_RETURN_CODE",
    "TATTLE_REPORT_DIR", "NO_COLOR", "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX",
    "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX", "TEST_SHARD_STATUS_FILE",
    "TESTBRIDGE_TEST_ONLY", "XML_OUTPUT_FILE", "TEST_PREMATURE_EXIT_FILE",
    "TATTLE_NO_CGROUP", "TATTLE_TEST_DELAY_BEFORE_KILL_MS")


def clean_env(keep=(), also=()):
    """The driver's environment for a run of the runner, without
    RUNNER_VARIABLES (but those named in `keep`) and without the driver's
    own variables named in `also`: nothing the caller or CTest set leaks
    into what a case checks."""
    dropped = (set(RUNNER_VARIABLES) - set(keep)) | set(also)
    return {k: v for k, v in os.environ.items() if k not in dropped}


class Cases:
    """A driver's cases by CTest test name. `cases = Cases()` then
    `@cases("area_behaviour_named", needs=("examples",), labels=("headers",))`
    above the function that checks it. `needs` names what the build must
    have for the case to be registered (CMake says what it has); `labels`
    are added to the directory's CTest labels."""

    def __init__(self):
        self.functions = {}
        self.lines = []

    def __call__(self, name, needs=(), labels=()):
        def register(function):
            if name in self.functions:
                raise ValueError("case %s registered twice" % name)
            self.functions[name] = function
            self.lines.append(" ".join(
                [name] + ["needs:" + n for n in needs]
                + ["label:" + label for label in labels]))
            return function
        return register

    def __getitem__(self, name):
        return self.functions[name]

    def __iter__(self):
        return iter(self.functions)

    def list_if_asked(self, argv=None):
        """`DRIVER --list` prints one case a line (its CTest name, then
        `needs:WHAT` and `label:LABEL` words) and exits 0."""
        argv = sys.argv if argv is None else argv
        if len(argv) == 2 and argv[1] == "--list":
            for line in self.lines:
                print(line)
            sys.exit(0)


class CheckFailed(Exception):
    """Raised by `require`: the case cannot go on."""


class Checks:
    def __init__(self, scratch_prefix):
        self.problems = []
        self.scratch = tempfile.mkdtemp(prefix=scratch_prefix)
        self.runs = 0

    def expect(self, condition, message):
        if not condition:
            self.problems.append(message)
        return condition

    def expect_eq(self, actual, expected, what):
        return self.expect(actual == expected,
                           "%s: expected %r, got %r" % (what, expected, actual))

    def require(self, condition, message):
        """Like expect, but the case cannot go on without it."""
        if not condition:
            self.problems.append(message)
            raise CheckFailed(message)

    def new_dir(self):
        self.runs += 1
        path = os.path.join(self.scratch, "run%d" % self.runs)
        os.mkdir(path)
        return path

    def run_for_report(self, argv, timeout=60, env=None):
        """Runs `argv` (a test binary and its arguments, to which
        `--json report.json` is added) in a new directory with a clean
        environment that keeps TATTLE_TIMEOUT_MULTIPLIER, plus the
        variables in the dict `env`; requires the report and records each
        way it fails the schema. Returns (process, report, cwd)."""
        import json
        import subprocess
        import validate_json
        cwd = self.new_dir()
        variables = clean_env(keep=("TATTLE_TIMEOUT_MULTIPLIER",))
        variables.update(env or {})
        process = subprocess.run(list(argv) + ["--json", "report.json"],
                                 cwd=cwd, env=variables, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE,
                                 timeout=timeout * wait_scale())
        path = os.path.join(cwd, "report.json")
        self.require(os.path.exists(path), "no report.json (exit %d): %r"
                     % (process.returncode, process.stderr[-2000:]))
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        for p in validate_json.check_report(report, complete=True):
            self.problems.append("report does not validate: %s" % p)
        return process, report, cwd

    def cleanup(self):
        """Removes the scratch directory, or keeps it to look at when a
        check failed."""
        if not self.problems:
            shutil.rmtree(self.scratch, ignore_errors=True)
        else:
            print("scratch directory kept: %s" % self.scratch)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def run_in_scratch(cases, argv, prefix, failed):
    """The end of the report drivers: `argv` is CASE BINARY; the case runs
    with the binary and a scratch directory, removed afterwards; `failed`
    is the driver's list of checks that did not hold."""
    case, binary = argv[1], os.path.abspath(argv[2])
    out = tempfile.mkdtemp(prefix=prefix)
    try:
        cases[case](binary, out)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    if failed:
        print("%d check(s) failed" % len(failed))
        return 1
    print("ok")
    return 0


def run_case(function, case, name):
    try:
        function(case)
    except CheckFailed:
        pass
    except Exception:
        case.problems.append("the driver failed:\n" + traceback.format_exc())
    finally:
        case.cleanup()
    for p in case.problems:
        print("FAILED: %s" % p)
    if case.problems:
        return 1
    print("ok: %s" % name)
    return 0


def fixture_main(cases, make_case):
    """main() of a driver whose cases each run one fixture program:
    `DRIVER --list`, or `DRIVER CASE --fixture PATH`, which runs the case
    with `make_case(absolute path)` and returns its exit status."""
    cases.list_if_asked()
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(cases))
    parser.add_argument("--fixture", required=True)
    args = parser.parse_args()
    return run_case(cases[args.case], make_case(os.path.abspath(args.fixture)),
                    args.case)
