#!/usr/bin/env python3
"""The CI reports of one run read by their real consumers, who must
accept them and count what the JSON report counts.

    report_consumers.py --json REPORT [--junit F] [--tap F] [--ctrf F]

JUnit: xmllint --schema schemas/junit.xsd and npm's junit2json; TAP:
TAP::Parser (prove's) and npm's tap-parser in strict mode, with no parse
error; CTRF: npm's ctrf validator. Each counts the tests, the failed
(failed and invalid) and the skipped (skipped and excluded) of the
JSON report. Prints each problem and exits 1 when there is one, 0 when
every consumer agreed. The npm consumers are left out, saying so, only
when npm is not installed (scripts/install-npm-deps.sh installs them
with it); with npm there and a package missing, that is a problem. Used
by check_after_examples.sh, check_ctest_merge.sh and test_cli.py.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
JUNIT_SCHEMA = os.path.join(HERE, "..", "..", "schemas", "junit.xsd")
NPM_PACKAGES = ("ctrf", "tap-parser", "junit2json")


def npm_consumers_missing():
    """Why the npm consumers cannot run here, or None when they can."""
    if not shutil.which("node"):
        return "node is not installed"
    for package in NPM_PACKAGES:
        if not os.path.exists(os.path.join(HERE, "node_modules", package, "package.json")):
            return "the npm package %s is not installed in tests/consumers" % package
    return None


def expected_counts(summary):
    """(tests, failed, skipped) as a CI format counts them."""
    return (summary["total"], summary["failed"] + summary["invalid"],
            summary["skipped"] + summary["excluded"])


def run_json(command, what, problems):
    """A consumer printing one line of JSON: its parse, or None with the
    problem recorded."""
    done = subprocess.run(command, capture_output=True, timeout=300)
    if done.returncode != 0:
        problems.append("%s: status %d: %s" % (what, done.returncode,
                                               done.stderr.decode(errors="replace")[-2000:]))
        return None
    return json.loads(done.stdout)


def check(summary, junit=None, tap=None, ctrf=None, use_npm=True):
    """The problems the consumers found in the files given, for a run of
    SUMMARY (the JSON report's)."""
    problems = []
    total, failed, skipped = expected_counts(summary)
    if junit:
        lint = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_SCHEMA, junit],
                              capture_output=True, timeout=300)
        if lint.returncode != 0:
            problems.append("xmllint: %s fails schemas/junit.xsd: %s"
                            % (junit, lint.stderr.decode(errors="replace")[-2000:]))
        parsed = use_npm and run_json(["node", os.path.join(HERE, "junit2json_parse.mjs"),
                                       junit], "junit2json on " + junit, problems)
        if parsed:
            got = (parsed.get("tests"), parsed.get("failures", 0) + parsed.get("errors", 0),
                   parsed.get("skipped", 0))
            if got != (total, failed, skipped):
                problems.append("junit2json counts %s as %r, the report %r"
                                % (junit, got, (total, failed, skipped)))
    if tap:
        parsed = run_json(["perl", os.path.join(HERE, "tap_parser.pl"), tap],
                          "TAP::Parser on " + tap, problems)
        if parsed:
            got = (parsed["tests_planned"], parsed["tests_run"], len(parsed["failed"]),
                   len(parsed["skipped"]))
            if parsed["parse_errors"] or got != (total, total, failed, skipped):
                problems.append("TAP::Parser on %s: parse errors %r, (planned, run, failed, "
                                "skipped) %r, the report %r" % (
                                    tap, parsed["parse_errors"], got,
                                    (total, total, failed, skipped)))
        parsed = use_npm and run_json(["node", os.path.join(HERE, "check_tap.mjs"), tap],
                                      "tap-parser on " + tap, problems)
        if parsed:
            got = (parsed["count"], parsed["fail"], parsed["skip"])
            if parsed["parse_errors"] or parsed["bailout"] or got != (total, failed, skipped):
                problems.append("tap-parser (strict) on %s: parse errors %r, bail-out %r, "
                                "(count, fail, skip) %r, the report %r" % (
                                    tap, parsed["parse_errors"], parsed["bailout"], got,
                                    (total, failed, skipped)))
    if ctrf:
        parsed = use_npm and run_json(["node", os.path.join(HERE, "check_ctrf.mjs"), ctrf],
                                      "ctrf on " + ctrf, problems)
        if parsed:
            counts = parsed["summary"] or {}
            got = (counts.get("tests"), counts.get("failed"), counts.get("skipped"))
            if not parsed["valid"] or parsed["errors"] or got != (total, failed, skipped):
                problems.append("ctrf on %s: valid %r, errors %r, (tests, failed, skipped) "
                                "%r, the report %r" % (ctrf, parsed["valid"], parsed["errors"][:3],
                                                       got, (total, failed, skipped)))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", required=True, help="the JSON report of the run")
    parser.add_argument("--junit")
    parser.add_argument("--tap")
    parser.add_argument("--ctrf")
    options = parser.parse_args()
    with open(options.json, encoding="utf-8") as f:
        summary = json.load(f)["summary"]
    missing = npm_consumers_missing()
    use_npm = True
    if missing:
        if shutil.which("npm"):
            print("report_consumers: %s (npm is there: scripts/install-npm-deps.sh "
                  "installs it)" % missing)
            return 1
        print("report_consumers: npm consumers left out: %s and npm is not either" % missing)
        use_npm = False
    problems = check(summary, options.junit, options.tap, options.ctrf, use_npm)
    for problem in problems:
        print("report_consumers: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
