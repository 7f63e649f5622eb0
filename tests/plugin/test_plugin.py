#!/usr/bin/env python3
"""Tests of reporter plugins (--reporter PATH.so, reports.plugins in
tattle.yml) and of --report-dir / TATTLE_REPORT_DIR: runs plugin_fixture
(tests that leave bytes in stdio's buffer as they end) through the
Markdown plugin of examples/plugin and through plugins that must be
refused, and checks the real outputs, exit statuses and files.

    test_plugin.py CASE --fixture PATH --bad_abi PATH ... [--markdown PATH]
                   [--tattle PATH]

Each CASE is one behaviour (one CTest test). Exits 0 when every check of
the case held, 1 otherwise, printing each broken check.
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

CASES = driver.Cases()

WAIT_SCALE = driver.wait_scale()
HEADING = "## tattle: plugin_fixture"


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-plugin-")
        self.options = options

    def environment(self, **extra):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("TATTLE_") and k not in (
                   "XML_OUTPUT_FILE", "GTEST_TOTAL_SHARDS",
                   "TEST_TOTAL_SHARDS", "TESTBRIDGE_TEST_ONLY")}
        env["NO_COLOR"] = "1"
        env.update(extra)
        return env

    def run(self, args, cwd, **env):
        return subprocess.run([self.options.fixture] + args, cwd=cwd,
                              env=self.environment(**env),
                              capture_output=True, text=True,
                              errors="replace", timeout=60 * WAIT_SCALE)

    def need_markdown(self):
        self.require(bool(self.options.markdown),
                     "the Markdown plugin was not built (examples are off)")


@CASES("plugin_markdown_to_stdout_written_once_never_by_tests")
def case_stdout_once(case):
    """The plugin writes its summary to stdout through stdio, buffered,
    while tests that end with bytes in their own stdio buffer are forked:
    stdout carries the summary exactly once and no test's bytes, each
    test's output is captured exactly once, and no test process maps the
    plugin."""
    case.need_markdown()
    cwd = case.new_dir()
    result = case.run(["--reporter", case.options.markdown + "=-",
                       "--json", "report.json"], cwd)
    out = result.stdout
    case.expect_eq(result.returncode, 1, "exit status (tests fail)")
    case.expect_eq(out.count(HEADING), 1, "summaries on stdout:\n" + out)
    case.expect(out.startswith(HEADING), "stdout starts with the summary:\n" + out)
    case.expect("UNFLUSHED" not in out, "a test's bytes reached stdout:\n" + out)
    case.expect("| stdio/fails_with_unflushed_output | assertion |" in out,
                "the assertion row:\n" + out)
    case.expect("a \\| pipe and a \\`tick\\` in the message" in out,
                "the message escaped for a Markdown table:\n" + out)
    case.expect("| stdio/crashes_with_unflushed_output | crash |" in out,
                "the crash row:\n" + out)
    case.expect("isolation/no_plugin_is_mapped_in_the_test" not in out,
                "the plugin was mapped in a test process:\n" + out)
    report = json.loads(driver.read(os.path.join(cwd, "report.json")))
    outputs = {t["id"]: t["output"]["stdout"] for t in report["tests"]}
    for test_id, marker in (("stdio/returns_with_unflushed_output", "UNFLUSHED-RETURN"),
                            ("stdio/exits_with_unflushed_output", "UNFLUSHED-EXIT"),
                            ("stdio/fails_with_unflushed_output", "UNFLUSHED-FAIL")):
        case.expect_eq(outputs.get(test_id), marker, "captured stdout of " + test_id)
    states = {t["id"]: t["state"] for t in report["tests"]}
    case.expect_eq(states.get("isolation/no_plugin_is_mapped_in_the_test"),
                   "passed", "the test that looks for plugins in its process")


@CASES("plugin_stdio_buffer_never_flushed_by_a_test")
def case_buffer_not_flushed_by_tests(case):
    """A plugin keeps lines in stdout's stdio buffer while tests run, and a
    test flushes every stream of its process: stdout holds each of the
    plugin's lines exactly once, in order, and in a forked run none of the
    test's bytes. With --no-fork (that test alone: the others exit or
    crash) the test flushes the runner's own buffer, and the plugin's
    lines still reach stdout, not the test's captured output."""
    for how in ([], ["--no-fork", "stdio/flushes_every_stream"]):
        cwd = case.new_dir()
        result = case.run(["--reporter", case.options.buffering + "=-",
                           "--json", "report.json"] + how, cwd)
        what = how[0] if how else "forked"
        report = json.loads(driver.read(os.path.join(cwd, "report.json")))
        ids = [t["id"] for t in report["tests"]]
        case.require("stdio/flushes_every_stream" in ids,
                     "%s: the test that flushes every stream ran" % what)
        lines = [l for l in result.stdout.replace("FLUSHED-BY-TEST", "").split("\n")
                 if l]
        expected = (["buffering-plugin: begin"] +
                    ["buffering-plugin: finished " + i for i in ids] +
                    ["buffering-plugin: end"])
        case.expect_eq(lines, expected, what + ": stdout")
        outputs = {t["id"]: t["output"]["stdout"] for t in report["tests"]}
        case.expect("buffering-plugin" not in outputs["stdio/flushes_every_stream"],
                    "%s: the plugin's bytes in the test's output: %r"
                    % (what, outputs["stdio/flushes_every_stream"]))
        if not how:
            case.expect("FLUSHED-BY-TEST" not in result.stdout,
                        "forked: a test's bytes reached stdout:\n" + result.stdout)


@CASES("plugin_markdown_to_file_from_flag_and_config")
def case_file(case):
    """To a file from the flag, and from tattle.yml as {path, file} and as
    a bare path (then its default destination, stdout)."""
    case.need_markdown()
    md = case.options.markdown
    cwd = case.new_dir()
    result = case.run(["--reporter", md + "=summary.md"], cwd)
    case.expect_eq(result.returncode, 1, "exit status")
    text = driver.read(os.path.join(cwd, "summary.md"))
    case.expect(text.startswith(HEADING) and text.count(HEADING) == 1,
                "summary.md:\n" + text)
    case.expect_eq(sorted(os.listdir(cwd)), [".tattle", "summary.md"],
                   "files left (no temporary file)")

    cwd = case.new_dir()
    driver.write(os.path.join(cwd, "tattle.yml"),
                 "reports:\n  plugins:\n    - {path: %s, file: from-config.md}\n" % md)
    result = case.run([], cwd)
    case.expect_eq(result.returncode, 1, "exit status (config)")
    text = driver.read(os.path.join(cwd, "from-config.md"))
    case.expect(text.startswith(HEADING), "from-config.md:\n" + text)

    cwd = case.new_dir()
    driver.write(os.path.join(cwd, "tattle.yml"),
                 "reports:\n  plugins: [%s]\n" % md)
    result = case.run([], cwd)
    case.expect_eq(result.returncode, 1, "exit status (config, bare path)")
    case.expect_eq(result.stdout.count(HEADING), 1,
                   "summary on stdout:\n" + result.stdout)


@CASES("plugin_bad_plugins_exit_2_naming_path_nothing_clobbered")
def case_errors(case):
    """Each plugin that must be refused: exit 2, one line on stderr naming
    its path and why, nothing run, no report written or replaced."""
    missing = os.path.join(case.scratch, "missing", "libnothing.so")
    bad = [(missing, "No such file or directory"),
           (case.options.bad_abi, "built for reporter ABI version 2, this program has version 1"),
           (case.options.no_symbol, "exports no tattle_reporter_plugin_v1()"),
           (case.options.name_clash, "named 'json', and a reporter of that name exists"),
           (case.options.no_type, "returned no reporter")]
    for path, why in bad:
        cwd = case.new_dir()
        driver.write(os.path.join(cwd, "report.json"), "OLD")
        result = case.run(["--json", "report.json",
                           "--reporter", path + "=out.md"], cwd)
        what = os.path.basename(path)
        case.expect_eq(result.returncode, 2, what + ": exit status")
        err = result.stderr
        case.expect(err.count("\n") == 1 and path in err and why in err,
                    "%s: one line naming the path and '%s':\n%s" % (what, why, err))
        case.expect_eq(result.stdout, "", what + ": stdout")
        case.expect_eq(driver.read(os.path.join(cwd, "report.json")), "OLD",
                       what + ": the existing report")
        case.expect_eq(sorted(os.listdir(cwd)), ["report.json"],
                       what + ": files (nothing run, nothing created)")

    cwd = case.new_dir()
    driver.write(os.path.join(cwd, "tattle.yml"),
                 "reports:\n  plugins:\n    - markdown\n")
    result = case.run([], cwd)
    case.expect_eq(result.returncode, 2, "config: a plugin that is no path")
    case.expect(re.fullmatch(r".*tattle\.yml:3:7: 'markdown' is not a path to a "
                             r"shared object.*\n", result.stderr) is not None,
                "config error names file, line and column:\n" + result.stderr)
    # A plugin that tattle.yml names and that cannot be loaded: the error
    # names the entry's place, as every bad value of the file does.
    for entry, place, path, why in (
            ("- {path: ./missing.so, file: out.md}", "3:7", "./missing.so",
             "No such file or directory"),
            ("- " + case.options.bad_abi, "3:7", case.options.bad_abi,
             "reporter ABI version 2"),
            ("- {file: out.md, path: %s}" % case.options.no_symbol, "3:7",
             case.options.no_symbol, "exports no tattle_reporter_plugin_v1()")):
        cwd = case.new_dir()
        driver.write(os.path.join(cwd, "tattle.yml"),
                     "reports:\n  plugins:\n    %s\n" % entry)
        driver.write(os.path.join(cwd, "out.md"), "OLD")
        driver.write(os.path.join(cwd, "report.json"), "OLD")
        result = case.run(["--json", "report.json"], cwd)
        what = "config naming " + os.path.basename(path)
        case.expect_eq(result.returncode, 2, what + ": exit status")
        case.expect(re.fullmatch(r".*: tattle\.yml:%s: cannot load the reporter "
                                 r"plugin '%s': .*%s.*\n"
                                 % (place, re.escape(path), re.escape(why)),
                                 result.stderr) is not None,
                    "%s: one line naming tattle.yml:%s, the path and '%s':\n%s"
                    % (what, place, why, result.stderr))
        case.expect_eq(result.stdout, "", what + ": stdout")
        for name in ("out.md", "report.json"):
            case.expect_eq(driver.read(os.path.join(cwd, name)), "OLD",
                           "%s: %s is left as it was" % (what, name))
        case.expect_eq(sorted(os.listdir(cwd)),
                       ["out.md", "report.json", "tattle.yml"],
                       what + ": files (nothing run, nothing created)")
    # A flag naming the same plugin replaces the entry: the error is the
    # flag's, with no place in tattle.yml.
    cwd = case.new_dir()
    driver.write(os.path.join(cwd, "tattle.yml"),
                 "reports:\n  plugins: [./missing.so]\n")
    result = case.run(["--reporter", "./missing.so=flag.md"], cwd)
    case.expect_eq(result.returncode, 2, "flag over config: exit status")
    case.expect("tattle.yml" not in result.stderr and
                "'./missing.so': No such file" in result.stderr,
                "flag over config: the flag's error:\n" + result.stderr)

    # A destination tattle.yml names that cannot be written (its directory
    # is missing): the error names the entry's place too, for a built-in
    # reporter and for a plugin.
    entries = [("junit", "reports:\n  junit: nodir/r.xml\n", "2:10")]
    if case.options.markdown:
        entries.append(("markdown",
                         "reports:\n  plugins:\n    - {path: %s, file: nodir/r.md}\n"
                         % case.options.markdown, "3:7"))
    for reporter, config, place in entries:
        cwd = case.new_dir()
        driver.write(os.path.join(cwd, "tattle.yml"), config)
        driver.write(os.path.join(cwd, "report.json"), "OLD")
        result = case.run(["--json", "report.json"], cwd)
        what = "unwritable destination of " + os.path.basename(reporter)
        case.expect_eq(result.returncode, 2, what + ": exit status")
        case.expect(re.fullmatch(r".*: tattle\.yml:%s: cannot write the %s "
                                 r"report 'nodir/r\.(xml|md)': nodir: No such "
                                 r"file or directory\n"
                                 % (place, re.escape(reporter)),
                                 result.stderr) is not None,
                    "%s: one line naming tattle.yml:%s:\n%s"
                    % (what, place, result.stderr))
        case.expect_eq(driver.read(os.path.join(cwd, "report.json")), "OLD",
                       what + ": report.json is left as it was")

    cwd = case.new_dir()
    driver.write(os.path.join(cwd, "tattle.yml"),
                 "reports:\n  plugins:\n    - {path: ./x.so, name: y}\n")
    result = case.run([], cwd)
    case.expect_eq(result.returncode, 2, "config: an unknown key of a plugin")
    case.expect("tattle.yml:3:22: unknown key 'name'" in result.stderr,
                "config error:\n" + result.stderr)


STREAM_NAME = re.compile(r"plugin_fixture-(\d+)-[0-9a-f]{12}\.jsonl")


@CASES("report_dir_each_run_writes_its_own_stream")
def case_report_dir(case):
    """Runs started side by side with one TATTLE_REPORT_DIR leave a stream
    each (named after program and pid, created, not overwritten); the
    flag beats the variable; a file already in the directory is left as it
    was; tattle merge of the directory holds every test once."""
    cwd = case.new_dir()
    streams = os.path.join(cwd, "streams")
    os.mkdir(streams)
    driver.write(os.path.join(streams, "notes.txt"), "mine")
    ids = ["stdio/returns_with_unflushed_output",
           "stdio/fails_with_unflushed_output",
           "isolation/no_plugin_is_mapped_in_the_test"]
    env = case.environment(TATTLE_REPORT_DIR=streams)
    runs = [subprocess.Popen([case.options.fixture, "--id", test_id], cwd=cwd,
                             env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for test_id in ids]
    pids = sorted(str(p.pid) for p in runs)
    for p in runs:
        p.wait(timeout=60 * WAIT_SCALE)
    names = sorted(n for n in os.listdir(streams) if n != "notes.txt")
    case.require(len(names) == 3 and all(STREAM_NAME.fullmatch(n) for n in names),
                 "one stream per run named PROGRAM-PID-RANDOM.jsonl: %r" % names)
    case.expect_eq(sorted(STREAM_NAME.fullmatch(n).group(1) for n in names), pids,
                   "the pids in the names")

    other = os.path.join(cwd, "made", "for", "it")  # created, parents too
    result = subprocess.run([case.options.fixture, "--report-dir", other,
                             "--jsonl", "own.jsonl", "--id", ids[0]], cwd=cwd,
                            env=env, capture_output=True, text=True,
                            timeout=60 * WAIT_SCALE)
    case.expect_eq(result.returncode, 0, "exit status with --report-dir")
    case.expect_eq(len(os.listdir(streams)), 4, "the flag beats TATTLE_REPORT_DIR")
    case.expect_eq(driver.read(os.path.join(streams, "notes.txt")), "mine",
                   "a file already in the directory")
    case.expect_eq(len(os.listdir(other)), 1, "a stream in the --report-dir")
    case.expect(os.path.getsize(os.path.join(cwd, "own.jsonl")) > 0,
                "--jsonl is written besides the --report-dir stream")

    if not case.options.tattle:
        print("skipped the merge check: the tattle command is not built")
        return
    merged = os.path.join(cwd, "merged.json")
    result = subprocess.run([case.options.tattle, "merge", streams, "-o", merged],
                            capture_output=True, text=True, timeout=60 * WAIT_SCALE)
    case.require(result.returncode == 0, "tattle merge failed: " + result.stderr)
    report = json.loads(driver.read(merged))
    case.expect_eq(sorted(t["id"] for t in report["tests"]), sorted(ids),
                   "every test of the runs exactly once")
    case.expect_eq(report["summary"]["total"], 3, "merged total")


@CASES("report_dir_unusable_exits_2")
def case_report_dir_errors(case):
    """A report directory that is a file: exit 2 with one line naming it,
    nothing run, no report replaced; the same from TATTLE_REPORT_DIR."""
    for how in ("flag", "variable"):
        cwd = case.new_dir()
        driver.write(os.path.join(cwd, "report.json"), "OLD")
        driver.write(os.path.join(cwd, "afile"), "")
        args = ["--json", "report.json"]
        env = {}
        if how == "flag":
            args += ["--report-dir", "afile"]
        else:
            env["TATTLE_REPORT_DIR"] = "afile/sub"
        result = case.run(args, cwd, **env)
        case.expect_eq(result.returncode, 2, how + ": exit status")
        case.expect(result.stderr.count("\n") == 1 and "--report-dir 'afile" in result.stderr,
                    how + ": one line naming the directory:\n" + result.stderr)
        case.expect_eq(driver.read(os.path.join(cwd, "report.json")), "OLD",
                       how + ": the existing report")
        case.expect_eq(sorted(os.listdir(cwd)), ["afile", "report.json"],
                       how + ": files")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    for kind in ("bad_abi", "no_symbol", "name_clash", "no_type", "buffering"):
        parser.add_argument("--" + kind, required=True)
    parser.add_argument("--markdown", default="")
    parser.add_argument("--tattle", default="")
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
