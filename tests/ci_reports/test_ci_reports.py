#!/usr/bin/env python3
"""Tests of the formats CI reads, on real runs of ci_reports_fixture: the
JUnit XML report (--junit, XML_OUTPUT_FILE) is checked with xmllint
against schemas/junit.xsd and read back by npm's junit2json, a real
consumer, and what it understood is compared with the JSON report of the
same run; the GitHub Actions workflow commands (--reporter github) are
read line by line as the Actions runner reads a step's output, and the
job summary (GITHUB_STEP_SUMMARY) as Markdown table rows.

    test_ci_reports.py CASE --fixture PATH

Each CASE is one behaviour (one CTest test, see CMakeLists.txt). Exits 0
when every check held, 1 otherwise, and 77 (skipped) when node, or npm
to install junit2json with, is not installed (the JUnit cases need
junit2json; CI has both, and scripts/install-deps.sh runs npm ci). With
npm there but junit2json not installed, the JUnit cases fail and say so.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

SOURCE_DIR = os.path.abspath(os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402

CASES = driver.Cases()
import validate_json  # noqa: E402

SCHEMA = os.path.join(SOURCE_DIR, "schemas", "junit.xsd")
CONSUMER = os.path.join(SOURCE_DIR, "tests", "consumers", "junit2json_parse.mjs")
SKIPPED = 77


# The hostile bytes of fixture_ci_reports.c, byte for byte.
HOSTILE_MESSAGE = (
    b"hostile \x01\x02\x03\x04\x05\x06\x07\x08|\t|\x0b\x0c|\r|\x0e\x0f"
    b"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
    b"\x7f \xc2\x85 \xef\xbf\xbe\xef\xbf\xbf \xff \xe2\x9c \xed\xa0\x80 "
    b"\xc0\xaf ]]> ]]]> \"double\" 'single' <tag attr=\"v\"> &amp; & % %25 "
    b"a:b,c\n::error::injected from a message\n"
    b"\r::warning file=x,line=1::injected after a carriage return\r\n"
    b"%0A::error::escaped newline\n##[error]legacy command")
HOSTILE_OUTPUT = (
    b"out \x00\x01\x02\x03\x04\x05\x06\x07\x08|\t|\x0b\x0c|\r|\x0e\x0f"
    b"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
    b"\x7f \xc2\x85 \xef\xbf\xbe\xef\xbf\xbf \xff \xe2\x9c \xed\xa0\x80 "
    b"\xc0\xaf ]]> \"double\" 'single' <tag> & % \n"
    b"::error::injected from stdout\n"
    b"::endgroup::\n"
    b"::stop-commands::guessed\n"
    b"  ::error file=a,line=2::indented\n"
    b"\r::error::after a carriage return\n"
    b"##[error]legacy command\n")
HOSTILE_NAMES = [
    b"quotes \"double\" 'single' ]]> <tag> & %25 a:b,c",
    b"::error::not a command",
    b"pipe | cell ``` fence",
    b"line\nbreak ::error::x",
    b"carriage\rreturn",
    b"control \x01\x1b[31m \x7f",
    b"invalid \xff utf-8 \xed\xa0\x80",
]
# The characters XML 1.0 forbids that a C string can hold, and NUL.
XML_FORBIDDEN = [c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)]


# ---------------------------------------------------------------- models

def xml_visible(raw):
    """What the JUnit report shows of `raw` bytes (reporter/xml_writer.h):
    each maximal ill-formed UTF-8 subsequence as U+FFFD, the characters XML
    forbids as the visible text \\u001b."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return "".join("\\u%04x" % ord(ch)
                   if (ord(ch) < 0x20 and ch not in "\t\n\r")
                   or ord(ch) in (0xFFFE, 0xFFFF) else ch
                   for ch in text)


def log_visible(raw):
    """What a workflow command's value holds of `raw` once unescaped
    (reporter/github.h): U+FFFD for invalid UTF-8, the C0 controls but
    tab, CR and LF, DEL and the C1 controls as \\u001b."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return "".join("\\u%04x" % ord(ch)
                   if (ord(ch) < 0x20 and ch not in "\t\r\n")
                   or 0x7F <= ord(ch) <= 0x9F else ch
                   for ch in text)


def unescape_command(value):
    """The Actions runner's unescaping of data and properties."""
    table = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}
    return re.sub(r"%25|%0D|%0A|%3A|%2C", lambda m: table[m.group(0)], value)


def runner_lines(text):
    """The lines of a step's output as the Actions runner reads them (.NET
    ReadLine: CR, LF and CR LF each end a line)."""
    return re.split(r"\r\n|\r|\n", text)


def read_commands(text):
    """Reads `text` as the Actions runner does: a line that starts (after
    blanks) with `::` is a command `::NAME PROPERTIES::DATA`; after
    `::stop-commands::TOKEN` no command counts until a line `::TOKEN::`.
    Returns (commands, suppressed lines, plain lines), each command a
    dict with name, properties (unescaped), data (unescaped), raw line."""
    commands, suppressed, plain = [], [], []
    stop_token = None
    for line in runner_lines(text):
        stripped = line.lstrip()
        command = None
        if stripped.startswith("::"):
            end = stripped.find("::", 2)
            if end > 0:
                info, data = stripped[2:end], stripped[end + 2:]
                name, _, props = info.partition(" ")
                properties = {}
                for prop in props.split(",") if props else []:
                    key, _, value = prop.partition("=")
                    properties[key] = unescape_command(value)
                command = {"name": name, "properties": properties,
                           "data": unescape_command(data), "raw": line}
        if stop_token is not None:
            if command and command["name"] == stop_token:
                stop_token = None
            else:
                suppressed.append(line)
            continue
        if command is None:
            plain.append(line)
        elif command["name"] == "stop-commands":
            stop_token = command["data"]
            commands.append(command)
        else:
            commands.append(command)
    return commands, suppressed, plain


# ------------------------------------------------------------------ runs

class Run:
    pass


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-ci-reports-")
        self.fixture = os.path.abspath(options.fixture)

    def run(self, args, env=None, directory=None):
        """Runs the fixture with `args` in a new directory, with the JSON
        report; the report is validated against its schema."""
        run = Run()
        run.dir = directory or self.new_dir()
        environment = driver.clean_env(
            also=("GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"))
        environment.update(env or {})
        report = os.path.join(run.dir, "report.json")
        done = subprocess.run([self.fixture, "--json", report] + args,
                              cwd=run.dir, env=environment,
                              capture_output=True,
                              timeout=60 * driver.wait_scale())
        run.status, run.stdout, run.stderr = (done.returncode, done.stdout,
                                              done.stderr)
        self.require(os.path.exists(report), "no JSON report; stderr: %r"
                     % done.stderr[-2000:])
        with open(report, encoding="utf-8") as f:
            run.report = json.load(f)
        for problem in validate_json.check_report(run.report, complete=True):
            self.problems.append("report does not validate: %s" % problem)
        run.tests = {t["id"]: t for t in run.report["tests"]}
        return run

    def xmllint(self, path):
        """xmllint --noout --schema schemas/junit.xsd PATH must accept it."""
        done = subprocess.run(["xmllint", "--noout", "--schema", SCHEMA, path],
                              capture_output=True, text=True, errors="replace")
        self.expect(done.returncode == 0, "xmllint rejects %s: %s"
                    % (path, done.stderr[-3000:]))

    def junit2json(self, path):
        """What npm's junit2json understood of the file."""
        done = subprocess.run(["node", CONSUMER, path], capture_output=True,
                              text=True, errors="replace")
        self.require(done.returncode == 0, "junit2json: %s (status %d)"
                     % (done.stderr.strip()[-3000:], done.returncode))
        return json.loads(done.stdout)

    def junit(self, path):
        """Checks the JUnit file with both consumers; returns the parse."""
        self.require(os.path.exists(path), "no JUnit report at %s" % path)
        self.xmllint(path)
        return self.junit2json(path)


def testcases(parsed):
    """(suite element, testcase) of every test case junit2json read."""
    for suite in parsed.get("testsuite", []):
        for testcase in suite.get("testcase", []):
            yield suite, testcase


def find_testcase(c, parsed, test):
    wanted = (xml_visible(test["suite"]), xml_visible(test["name"]))
    found = [t for _, t in testcases(parsed)
             if (str(t.get("classname")), str(t.get("name"))) == wanted]
    c.require(len(found) == 1, "one testcase for %r: found %d" % (test["id"],
                                                                 len(found)))
    return found[0]


def expected_element(test):
    """The element that says what happened to `test`, and its type."""
    if test["state"] in ("skipped", "excluded"):
        return "skipped", None
    if test["state"] == "passed":
        if not test["flaky"]:
            return None, None
        kinds = [f["kind"] for f in test["failures"]]
        return ("flakyError" if any(k != "assertion" for k in kinds)
                else "flakyFailure"), None
    errors = [f for f in test["failures"] if f["kind"] != "assertion"]
    if errors or not test["failures"]:
        first = errors[0] if errors else None
        kind = first["kind"] if first else "error"
        return "error", (first.get("signal") if kind == "crash" else kind)
    return "failure", test["failures"][0]["assertion"]["macro"]


def check_against_json(c, parsed, run, raw_outputs=None):
    """Counts, and every test of the JSON report as a testcase with the
    element, type, texts and properties its result calls for."""
    summary = run.report["summary"]
    tests = run.report["tests"]
    c.expect_eq(parsed.get("tests"), summary["total"], "testsuites tests")
    c.expect_eq(parsed.get("failures", 0) + parsed.get("errors", 0),
                summary["failed"] + summary["invalid"],
                "testsuites failures + errors")
    c.expect_eq(parsed.get("skipped"), summary["skipped"] + summary["excluded"],
                "testsuites skipped")
    all_cases = list(testcases(parsed))
    c.expect_eq(len(all_cases), summary["total"], "testcase elements")
    for suite in parsed.get("testsuite", []):
        cases = suite.get("testcase", [])
        c.expect_eq(suite.get("tests"), len(cases),
                    "suite %r tests" % suite.get("name"))
        for attribute in ("failures", "errors", "skipped"):
            element = {"failures": "failure", "errors": "error",
                       "skipped": "skipped"}[attribute]
            c.expect_eq(suite.get(attribute),
                        sum(1 for t in cases if element in t),
                        "suite %r %s" % (suite.get("name"), attribute))
        c.expect(suite.get("hostname"), "suite %r has a hostname"
                 % suite.get("name"))
        names = {p["name"] for p in suite.get("properties", [])}
        c.expect({"seed", "tattle.version"} <= names,
                 "suite %r properties %r" % (suite.get("name"), names))
    for test in tests:
        testcase = find_testcase(c, parsed, test)
        what = test["id"]
        c.expect_eq(testcase.get("file"), test["file"], "%s file" % what)
        c.expect_eq(testcase.get("line"), test["line"], "%s line" % what)
        element, kind = expected_element(test)
        present = [e for e in ("failure", "error", "skipped", "flakyFailure",
                               "flakyError") if e in testcase]
        c.expect_eq(present, [element] if element else [],
                    "%s (%s) elements" % (what, test["state"]))
        if element in ("failure", "error") and element in testcase:
            details = testcase[element][0]
            if kind:
                c.expect_eq(details.get("type"), kind, "%s type" % what)
            inner = details.get("inner", "")
            if test["failures"]:
                c.expect_eq(str(details.get("message")), xml_visible(
                    test["failures"][0]["message"].split("\n")[0]),
                    "%s message attribute" % what)
            c.expect(xml_visible("rerun: " + test["rerun"]) in inner,
                     "%s: the %s text lacks the rerun command" % (what, element))
            for failure in test["failures"]:
                texts = [failure["message"]]
                if failure.get("assertion"):
                    texts += [failure["assertion"].get(k) for k in ("left", "right")]
                if failure.get("signal"):
                    texts.append("signal: " + failure["signal"])
                if failure.get("line"):
                    texts.append("%s:%d" % (failure["file"], failure["line"]))
                for text in texts:
                    if text:
                        c.expect(xml_visible(text) in inner,
                                 "%s: the %s text lacks %r" % (what, element, text))
        if element in ("flakyFailure", "flakyError") and element in testcase:
            stack = testcase[element][0].get("stackTrace", [""])[0]
            if isinstance(stack, dict):
                stack = stack.get("inner", "")
            attempts = "attempt %d of %d failed (above); attempt %d passed" % (
                test["attempts"] - 1, test["attempts"], test["attempts"])
            c.expect(attempts in stack, "%s: the flaky attempt lacks %r"
                     % (what, attempts))
            for failure in test["failures"]:
                c.expect(xml_visible(failure["message"]) in stack,
                         "%s: the flaky attempt lacks %r" % (what, failure["message"]))
        if element == "skipped" and "skipped" in testcase:
            c.expect_eq(str(testcase["skipped"][0].get("message")),
                        xml_visible((test["skip_reason"] or "").split("\n")[0]),
                        "%s skip reason" % what)
        tags = {p["name"]: str(p["value"]) for p in testcase.get("properties", [])}
        expected_tags = {k: "true" if v is True else str(v)
                         for k, v in (test["tags"] or {}).items()}
        c.expect_eq(tags, expected_tags, "%s tags as properties" % what)
        for stream in ("stdout", "stderr"):
            raw = (raw_outputs or {}).get((test["id"], stream))
            expected = (xml_visible(raw) if raw is not None else
                        xml_visible(test["output"][stream] or ""))
            holder = testcase
            if element in ("flakyFailure", "flakyError") and element in testcase:
                holder = testcase[element][0]
            got = holder.get("system-" + stream[3:], [""])[0]
            c.expect_eq(got, expected, "%s system-%s" % (what, stream[3:]))


@CASES("junit_report_is_valid_and_agrees_with_json")
def junit_outcomes(c):
    """Every outcome, typed as Jenkins reads it, agreeing with the JSON
    report of the same run."""
    run = c.run(["--junit", "junit.xml", "--retry", "1", "outcomes/*"])
    c.expect_eq(run.status, 1, "exit status")
    states = {i: t["state"] for i, t in run.tests.items()}
    c.expect_eq(states, {
        "outcomes/passes": "passed", "outcomes/assertion_fails": "failed",
        "outcomes/crashes": "failed", "outcomes/times_out": "failed",
        "outcomes/exits": "failed", "outcomes/skipped": "skipped",
        "outcomes/flaky": "passed"}, "states in the JSON report")
    c.expect(run.tests["outcomes/flaky"]["flaky"], "outcomes/flaky is flaky")
    parsed = c.junit(os.path.join(run.dir, "junit.xml"))
    check_against_json(c, parsed, run)
    by_name = {t["name"]: t for _, t in testcases(parsed)}
    types = {n: (t.get("error") or t.get("failure") or [{}])[0].get("type")
             for n, t in by_name.items()}
    c.expect_eq(types, {"passes": None, "assertion_fails": "ASSERT_EQ",
                        "crashes": "SIGSEGV", "times_out": "timeout",
                        "exits": "exit", "skipped": None, "flaky": None},
                "failure and error types")
    inner = by_name["assertion_fails"]["failure"][0]["inner"]
    for line in ("the queue lost an element", "left:  3", "right: 4"):
        c.expect(line in inner, "the assertion's text lacks %r: %r" % (line, inner))


@CASES("junit_report_keeps_hostile_bytes_visible")
def junit_hostile(c):
    """Hostile bytes in messages, values, output and names: valid XML for
    both consumers, every forbidden character visible, nothing lost."""
    run = c.run(["--junit", "junit.xml", "hostile/*", "names/*"])
    c.expect_eq(run.status, 1, "exit status")
    path = os.path.join(run.dir, "junit.xml")
    parsed = c.junit(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        data.decode("utf-8", "strict")
    except UnicodeDecodeError as error:
        c.expect(False, "the JUnit file is not UTF-8: %s" % error)
    raw = sorted({b for b in data if b < 0x20 and b not in (0x09, 0x0A)})
    c.expect(not raw, "raw control bytes in the file: %r" % raw)
    c.expect(b"]]>" not in data, "the file holds ]]>")
    outputs = {("hostile/everything", s): HOSTILE_OUTPUT
               for s in ("stdout", "stderr")}
    check_against_json(c, parsed, run, raw_outputs=outputs)
    testcase = find_testcase(c, parsed, run.tests["hostile/everything"])
    inner = testcase.get("failure", [{}])[0].get("inner", "")
    c.expect(xml_visible(HOSTILE_MESSAGE) in inner,
             "the failure text holds the message exactly")
    for code in XML_FORBIDDEN[1:]:
        c.expect("\\u%04x" % code in inner,
                 "\\u%04x is not visible in the failure text" % code)
    out = testcase.get("system-out", [""])[0]
    for code in XML_FORBIDDEN:
        c.expect("\\u%04x" % code in out, "\\u%04x is not visible in system-out"
                 % code)
    # The ids that are not valid reach the reports as the runner shows
    # them (\x0a); check_against_json found each test under its name.
    names = [t for _, t in testcases(parsed) if t.get("classname") == "names"]
    c.expect_eq(len(names), len(HOSTILE_NAMES), "testcases of hostile names")


@CASES("junit_xml_output_file_is_honoured")
def junit_xml_output_file(c):
    """Bazel's XML_OUTPUT_FILE gets the JUnit report; --junit wins over it."""
    directory = c.new_dir()
    bazel = os.path.join(directory, "bazel", "test.xml")
    os.mkdir(os.path.dirname(bazel))
    run = c.run(["outcomes/passes", "outcomes/skipped"],
                env={"XML_OUTPUT_FILE": bazel}, directory=directory)
    c.expect_eq(run.status, 0, "exit status")
    parsed = c.junit(bazel)
    check_against_json(c, parsed, run)

    directory = c.new_dir()
    bazel = os.path.join(directory, "bazel.xml")
    run = c.run(["--junit", "asked.xml", "outcomes/passes"],
                env={"XML_OUTPUT_FILE": bazel}, directory=directory)
    c.expect_eq(run.status, 0, "exit status with --junit")
    c.expect(os.path.exists(os.path.join(directory, "asked.xml")),
             "--junit asked.xml is written when XML_OUTPUT_FILE is set")
    c.expect(not os.path.exists(bazel),
             "XML_OUTPUT_FILE is not written when --junit names a file")


# ---------------------------------------------------------------- github

def github_run(c, args, env=None):
    environment = {"GITHUB_WORKSPACE": SOURCE_DIR + "/"}
    environment.update(env or {})
    run = c.run(["--reporter", "github", "--retry", "1"] + args,
                env=environment)
    c.expect_eq(run.status, 1, "exit status")
    run.text = run.stdout.decode("utf-8", "strict")
    run.commands, run.suppressed, run.plain = read_commands(run.text)
    return run


def repository_path(path):
    prefix = SOURCE_DIR + "/"
    return path[len(prefix):] if path.startswith(prefix) else path


@CASES("github_annotations_carry_each_failure")
def github_annotations(c):
    """One ::error per failure, with the place, the values and the rerun
    command; a ::warning for a flaky pass; nothing for the others."""
    run = github_run(c, ["outcomes/*", "names/*", "places/*"])
    annotations = [x for x in run.commands if x["name"] in ("error", "warning")]
    for test in run.report["tests"]:
        mine = [x for x in annotations
                if x["properties"].get("title", "").split(" (flaky)")[0]
                == log_visible(test["id"])]
        failed = test["state"] in ("failed", "invalid")
        if not failed and not test["flaky"]:
            c.expect_eq(mine, [], "%s: annotations" % test["id"])
            continue
        c.expect_eq([x["name"] for x in mine],
                    ["error" if failed else "warning"]
                    * max(1, len(test["failures"])),
                    "%s: annotation commands" % test["id"])
        for command, failure in zip(mine, test["failures"]):
            what = "%s: %s" % (test["id"], command["raw"][:80])
            file = failure["file"]
            line = failure["line"]
            if not file:
                file, line = test["file"], test["line"]
            c.expect_eq(command["properties"].get("file"),
                        repository_path(file), what + " file")
            c.expect_eq(command["properties"].get("line"), str(line),
                        what + " line")
            texts = [failure["message"], "rerun: " + test["rerun"]]
            if failure.get("assertion"):
                texts += [failure["assertion"].get(k) for k in ("left", "right")]
            if failure.get("signal"):
                texts.append("signal: " + failure["signal"])
            for text in texts:
                if text:
                    c.expect(log_visible(text) in command["data"],
                             "%s: the message lacks %r" % (what, text))
    groups = [x["data"] for x in run.commands if x["name"] == "group"]
    expected_groups = [log_visible(t["id"]) + " output"
                       for t in run.report["tests"]
                       if t["state"] in ("failed", "invalid")
                       and (t["output"]["stdout"] or t["output"]["stderr"])]
    c.expect_eq(sorted(groups), sorted(expected_groups), "output groups")
    c.expect_eq(sum(1 for x in run.commands if x["name"] == "endgroup"),
                len(groups), "each group ends")
    c.expect_eq([line for line in run.plain if line], [],
                "stdout holds workflow commands only (the console is on stderr)")
    quoted = [x for x in run.commands
              if x["properties"].get("title", "").startswith("names/quotes")]
    c.require(quoted, "an annotation of names/quotes...")
    c.expect("title=names/quotes \"double\" 'single' ]]> <tag> & %2525 a%3Ab%2Cc"
             in quoted[0]["raw"],
             "the title escapes %%, : and ,: %r" % quoted[0]["raw"])
    odd = [x for x in run.commands
           if x["properties"].get("title") == "places/in_an_odd_file"]
    c.require(odd, "an annotation of places/in_an_odd_file")
    c.expect(odd[0]["raw"].startswith(
        "::error file=odd%2Cdir/a%3Ab %2525 c.c,line=3,title="),
        "the file property escapes , : and %%: %r" % odd[0]["raw"])


@CASES("github_test_output_cannot_issue_commands")
def github_no_injection(c):
    """Whatever a test prints or names itself, the only workflow commands
    are the reporter's own: annotations of real failures, groups, and the
    stop-commands pairs around the output."""
    run = github_run(c, ["hostile/*", "names/*", "outcomes/assertion_fails"])
    raw = sorted({b for b in run.stdout if b < 0x20 and b not in (0x09, 0x0A)})
    c.expect(not raw, "raw control bytes on stdout: %r" % raw)
    ids = {log_visible(t["id"]) for t in run.report["tests"]}
    tokens = set()
    for command in run.commands:
        name = command["name"]
        if name == "stop-commands":
            tokens.add(command["data"])
            c.expect(re.fullmatch(r"[0-9a-f]{32}", command["data"]),
                     "the stop token is 32 random hex digits: %r" % command["data"])
            continue
        c.expect(name in ("error", "warning", "group", "endgroup"),
                 "a command the reporter does not write: %r" % command["raw"])
        if name in ("error", "warning"):
            c.expect(command["properties"].get("title") in ids,
                     "an annotation of no test: %r" % command["raw"])
            c.expect(set(command["properties"]) <= {"file", "line", "title"},
                     "properties of %r" % command["raw"])
    failures = sum(max(1, len(t["failures"])) for t in run.report["tests"]
                   if t["state"] in ("failed", "invalid"))
    c.expect_eq(sum(1 for x in run.commands if x["name"] == "error"), failures,
                "one ::error per failure")
    c.expect_eq(len(tokens), sum(1 for x in run.commands if x["name"] == "group"),
                "one stop token per group")
    # The output arrived, shown, inside the stopped region.
    shown = "\n".join(run.suppressed)
    for line in ("::error::injected from stdout", "::endgroup::",
                 "::stop-commands::guessed", "::error file=a,line=2::indented",
                 "##[error]legacy command"):
        c.expect(line in shown, "the output line %r is not shown" % line)
    hostile = [x for x in run.commands if x["name"] == "error" and
               x["properties"].get("title") == "hostile/everything"]
    c.require(len(hostile) == 2, "two annotations of hostile/everything")
    c.expect(log_visible(HOSTILE_MESSAGE) in hostile[1]["data"],
             "the hostile message arrives whole, once unescaped")
    for code in list(range(1, 0x20)) + [0x7F, 0x85]:
        if code in (0x09, 0x0A, 0x0D):
            continue
        c.expect("\\u%04x" % code in hostile[1]["data"],
                 "\\u%04x is not visible in the annotation" % code)


@CASES("github_console_output_cannot_issue_commands")
def github_console_no_injection(c):
    """With --reporter github the console goes to stderr, which the Actions
    runner reads for workflow commands as well: what the console copies
    from tests (output, messages, values, traces) is shown between a
    stop-commands pair with a fresh unguessable token, so a test's
    `::error::` or `##[error]` line is shown and never executed."""
    run = github_run(c, ["hostile/*", "names/*", "outcomes/*"])
    text = run.stderr.decode("utf-8", "strict")
    commands, suppressed, plain = read_commands(text)
    tokens = []
    for command in commands:
        c.expect(command["name"] == "stop-commands",
                 "the console issues a command: %r" % command["raw"])
        if command["name"] == "stop-commands":
            tokens.append(command["data"])
            c.expect(re.fullmatch(r"[0-9a-f]{32}", command["data"]),
                     "the stop token is 32 random hex digits: %r"
                     % command["data"])
    c.expect(tokens and len(set(tokens)) == len(tokens),
             "a fresh token for each test shown in full: %r" % tokens)
    c.expect(not [l for l in plain if l.lstrip().startswith("##[")],
             "a legacy ##[command] outside a stopped region")
    shown = "\n".join(suppressed)
    for line in ("::error::injected from stdout", "::endgroup::",
                 "::stop-commands::guessed", "::error file=a,line=2::indented",
                 "##[error]legacy command", "::error::injected from a message"):
        c.expect(line in shown, "the line %r is not shown stopped" % line)
    c.expect(re.search(r"^\d+ passed, \d+ failed", plain[-1] if plain[-1] else
                       plain[-2], re.M),
             "the console's last line is outside any stopped region")


def table_cells(row):
    """The cells of a Markdown table row, split on unescaped `|`."""
    cells, cell, escaped = [], "", False
    for ch in row.strip()[1:-1]:
        if escaped:
            cell += ch
            escaped = False
        elif ch == "\\":
            cell += ch
            escaped = True
        elif ch == "|":
            cells.append(cell.strip())
            cell = ""
        else:
            cell += ch
    cells.append(cell.strip())
    return cells


def markdown_text(cell):
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", cell)


@CASES("github_step_summary_lists_failures")
def github_step_summary(c):
    """GITHUB_STEP_SUMMARY gets the counts, a row per failed test and the
    rerun commands, appended after what earlier steps wrote."""
    directory = c.new_dir()
    summary_path = os.path.join(directory, "summary.md")
    driver.write(summary_path, "earlier step\n")
    run = github_run(c, ["outcomes/*", "names/*", "hostile/*", "places/*"],
                     env={"GITHUB_STEP_SUMMARY": summary_path})
    text = driver.read(summary_path)
    c.expect(text.startswith("earlier step\n"), "the summary is appended")
    lines = text.split("\n")
    rows = [table_cells(l) for l in lines if l.startswith("|")]
    c.require(len(rows) >= 3, "the summary has tables: %r" % text)
    s = run.report["summary"]
    c.expect_eq(rows[2], [str(s[k]) for k in ("total", "passed", "failed",
                                              "invalid", "skipped", "excluded",
                                              "flaky")]
                + ["%.3f" % (s["duration_us"] / 1e6)], "the counts row")
    failed = [t for t in run.report["tests"] if t["state"] in ("failed", "invalid")]
    failure_rows = rows[5:]
    c.expect_eq(len(failure_rows), len(failed), "one row per failed test")
    for row in failure_rows:
        c.expect_eq(len(row), 3, "three cells in %r" % row)
    where = {markdown_text(r[0]): markdown_text(r[1]) for r in failure_rows}
    c.expect_eq(where.get("places/in_an_odd_file"),
                "odd,dir/a:b %25 c.c:3",
                "the place of a failure in a file with an odd name")
    ids = sorted(markdown_text(r[0]) for r in failure_rows)
    c.expect_eq(ids, sorted(log_visible(t["id"]).replace("\r", "\\u000d")
                            .replace("\n", "\\u000a") for t in failed),
                "the failed tests' ids")
    fence = re.search(r"\n(`{3,})sh\n(.*?)\n\1\n", text, re.S)
    c.require(fence, "a code fence of rerun commands: %r" % text)
    markdown = text[:fence.start()] + text[fence.end():]
    c.expect("<" not in re.sub(r"\\<", "", markdown),
             "raw < in the summary outside the code fence")
    commands = fence.group(2).split("\n")
    runs = [len(r) for r in re.findall(r"`+", fence.group(2))]
    c.expect(len(fence.group(1)) > max(runs + [2]),
             "the fence is longer than every run of backticks it holds")
    c.expect_eq(len([x for x in commands if "--id=" in x]), len(failed),
                "a rerun command per failed test")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fixture", required=True)
    options = parser.parse_args()
    installed = os.path.isdir(os.path.join(SOURCE_DIR, "tests", "consumers",
                                           "node_modules", "junit2json"))
    if options.case.startswith("junit") and (
            not shutil.which("node") or
            (not installed and not shutil.which("npm"))):
        print("skipped: node or npm is not installed; the JUnit checks read "
              "the report with npm's junit2json (scripts/install-deps.sh "
              "runs npm ci)")
        return SKIPPED
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())
