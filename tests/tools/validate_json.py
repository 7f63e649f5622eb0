#!/usr/bin/env python3
"""Validates what tattle writes: a JSON report, a JSON Lines stream or a
--compact report, against the schemas in schemas/ (JSON Schema draft
2020-12, with format checking) and then against the rules a schema cannot
say: summary counts equal the tests' states, every failure carries the
fields of its kind, error groups count what they list.

    validate_json.py [--kind report|stream|compact] [--complete] FILE...

Without --kind the kind is guessed from the content. --complete requires a
report to list every test (no agent mode that drops tests). Exits 0 when
every file is valid, 1 otherwise, printing one line per problem. Other test
drivers import it: check_report(), check_stream(), check_compact() return
lists of problems.
"""
import argparse
import json
import os
import sys

from jsonschema import Draft202012Validator, FormatChecker

SCHEMA_DIR = os.path.join(
    os.environ.get("TATTLE_SOURCE_DIR",
                   os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..")),
    "schemas")

STATES = ("passed", "failed", "skipped", "excluded", "invalid")
KIND_FIELDS = {"crash": "signal", "timeout": "timeout_ms",
               "exit": "exit_code", "assertion": "assertion"}

_validators = {}


def _schemas():
    schemas = {}
    for name in sorted(os.listdir(SCHEMA_DIR)):
        if name.endswith(".schema.json"):
            with open(os.path.join(SCHEMA_DIR, name), encoding="utf-8") as f:
                schema = json.load(f)
            Draft202012Validator.check_schema(schema)
            schemas[name] = schema
    return schemas


def validator(name):
    """A Draft 2020-12 validator for schemas/NAME that resolves references
    to the other schemas of the directory (works with jsonschema 4.10,
    Debian's, and with newer ones that use the referencing package)."""
    if name in _validators:
        return _validators[name]
    schemas = _schemas()
    schema = schemas[name]
    try:
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            [(s["$id"], Resource.from_contents(s)) for s in schemas.values()])
        v = Draft202012Validator(schema, registry=registry,
                                 format_checker=FormatChecker())
    except ImportError:
        from jsonschema import RefResolver
        resolver = RefResolver.from_schema(
            schema, store={s["$id"]: s for s in schemas.values()})
        v = Draft202012Validator(schema, resolver=resolver,
                                 format_checker=FormatChecker())
    _validators[name] = v
    return v


def _schema_problems(name, instance, where):
    return ["%s: %s at %s" % (where, e.message,
                              "/".join(str(p) for p in e.absolute_path) or "top")
            for e in validator(name).iter_errors(instance)]


def check_against(instance, name):
    """Problems of `instance` against schemas/NAME (e.g. "list.schema.json")."""
    return _schema_problems(name, instance, name)


def check_summary(summary, where="summary"):
    problems = []
    total = sum(summary[s] for s in STATES)
    if summary["total"] != total:
        problems.append("%s: total %d != sum of states %d"
                        % (where, summary["total"], total))
    if summary["flaky"] > summary["passed"]:
        problems.append("%s: more flaky than passed tests" % where)
    return problems


def check_result(summary, interrupted):
    failed = summary["failed"] + summary["invalid"] > 0 or interrupted
    if summary["result"] != ("failed" if failed else "passed"):
        return ["summary: result %r does not match the counts"
                % summary["result"]]
    return []


def check_test(test, where):
    problems = []
    if test["id"] != "%s/%s" % (test["suite"], test["name"]):
        problems.append("%s: id %r is not suite/name" % (where, test["id"]))
    if test["state"] in ("failed", "invalid") and not test["failures"]:
        problems.append("%s: %s without failures" % (where, test["state"]))
    if test["flaky"] and test["state"] != "passed":
        problems.append("%s: flaky but %s" % (where, test["state"]))
    earlier = test.get("earlier_attempts", [])
    if len(earlier) >= max(test["attempts"], 1):
        problems.append("%s: %d earlier attempts of %d attempts"
                        % (where, len(earlier), test["attempts"]))
    for i, failure in enumerate(test["failures"]):
        field = KIND_FIELDS.get(failure["kind"])
        if field and field not in failure:
            problems.append("%s/failures/%d: %s without %s"
                            % (where, i, failure["kind"], field))
        if failure["kind"] == "assertion":
            for key in ("left", "right", "expr"):
                if key not in failure.get("assertion", {}):
                    problems.append("%s/failures/%d: assertion without %s"
                                    % (where, i, key))
    output = test["output"]
    for stream in ("stdout", "stderr"):
        kept = len(output[stream].encode("utf-8", "surrogatepass"))
        if not output["truncated"] and output[stream + "_bytes"] < kept // 3:
            problems.append("%s: %s keeps more than was written"
                            % (where, stream))
    return problems


def check_tests_against_summary(tests, summary, complete):
    problems = []
    counts = {s: 0 for s in STATES}
    for t in tests:
        counts[t["state"]] += 1
    ids = [t["id"] for t in tests]
    if len(set(ids)) != len(ids):
        problems.append("tests: duplicate ids")
    if complete and len(tests) != summary["total"]:
        problems.append("tests: %d tests, summary says %d"
                        % (len(tests), summary["total"]))
    exact = len(tests) == summary["total"]
    for s in STATES:
        if (exact and counts[s] != summary[s]) or counts[s] > summary[s]:
            problems.append("summary: %s is %d, tests say %d"
                            % (s, summary[s], counts[s]))
    flaky = sum(1 for t in tests if t["flaky"])
    if (exact and flaky != summary["flaky"]) or flaky > summary["flaky"]:
        problems.append("summary: flaky is %d, tests say %d"
                        % (summary["flaky"], flaky))
    return problems


def check_groups(groups, tests):
    problems = []
    by_id = {t["id"]: t for t in tests} if tests is not None else None
    counts = [g["count"] for g in groups]
    if counts != sorted(counts, reverse=True):
        problems.append("error_groups: not largest first")
    seen = set()
    for i, g in enumerate(groups):
        if g["count"] != len(g["tests"]):
            problems.append("error_groups/%d: count %d, %d tests"
                            % (i, g["count"], len(g["tests"])))
        if "\n" in g["pattern"]:
            problems.append("error_groups/%d: pattern has a newline" % i)
        # A group by location holds its messages as patterns; a group as
        # older reports wrote it is its own one pattern.
        patterns = g.get("patterns", [g])
        if patterns[0]["pattern"] != g["pattern"]:
            problems.append("error_groups/%d: pattern is not its first pattern's" % i)
        if sum(p["count"] for p in patterns) != g["count"] or \
                sorted(i for p in patterns for i in p["tests"]) != sorted(g["tests"]):
            problems.append("error_groups/%d: patterns do not add up" % i)
        pattern_of = {test_id: p["pattern"] for p in patterns for test_id in p["tests"]}
        for test_id in g["tests"]:
            if test_id in seen:
                problems.append("error_groups: %s in two groups" % test_id)
            seen.add(test_id)
            if by_id is not None and test_id in by_id:
                t = by_id[test_id]
                first = [f for f in t["failures"] if not f.get("filtered")]
                if not first or first[0]["message"].split("\n")[0].rstrip("\r") \
                        != pattern_of.get(test_id):
                    problems.append("error_groups/%d: %s does not match"
                                    % (i, test_id))
                elif g.get("location") is not None and \
                        "%s:%s" % (first[0]["file"], first[0]["line"]) != g["location"]:
                    problems.append("error_groups/%d: %s failed elsewhere"
                                    % (i, test_id))
    return problems


def check_report(report, complete=False):
    problems = _schema_problems("report.schema.json", report, "report")
    if problems:
        return problems
    if list(report)[:4] != ["version", "tool", "run", "summary"]:
        problems.append("report: version, tool, run, summary must come first")
    summary = report["summary"]
    problems += check_summary(summary)
    problems += check_result(summary, report["run"]["interrupted"])
    if report["run"]["duration_us"] != summary["duration_us"]:
        problems.append("run.duration_us != summary.duration_us")
    tests = report.get("tests")
    if tests is not None:
        for i, t in enumerate(tests):
            problems += check_test(t, "tests/%d" % i)
        problems += check_tests_against_summary(tests, summary, complete)
    elif complete:
        problems.append("report: no tests")
    if "error_groups" in report:
        problems += check_groups(report["error_groups"], tests)
    return problems


def parse_lines(text, where):
    objects, problems = [], []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        problems.append("%s: does not end with a newline" % where)
    for n, line in enumerate(lines, 1):
        try:
            objects.append(json.loads(line))
        except ValueError as e:
            problems.append("%s:%d: not JSON: %s" % (where, n, e))
    return objects, problems


def check_stream(text, finished=True):
    """`finished` False accepts a stream cut short (a killed runner)."""
    events, problems = parse_lines(text, "stream")
    for n, e in enumerate(events, 1):
        problems += _schema_problems("stream.schema.json", e, "stream:%d" % n)
    if problems:
        return problems
    kinds = [e["event"] for e in events]
    if not kinds or kinds[0] != "run_started" or kinds.count("run_started") != 1:
        problems.append("stream: must start with one run_started")
    if finished and (not kinds or kinds[-1] != "run_finished"):
        problems.append("stream: must end with run_finished")
    if kinds.count("run_finished") > 1 or (
            "run_finished" in kinds and kinds[-1] != "run_finished"):
        problems.append("stream: run_finished must be last")
    started, tests = set(), []
    for n, e in enumerate(events, 1):
        if e["event"] == "test_started":
            started.add(e["id"])
        elif e["event"] == "test_finished":
            t = e["test"]
            if t["state"] not in ("excluded", "skipped") and t["id"] not in started:
                problems.append("stream:%d: %s finished, never started"
                                % (n, t["id"]))
            problems += check_test(t, "stream:%d" % n)
            tests.append(t)
    if events and events[-1]["event"] == "run_finished":
        summary = events[-1]["summary"]
        problems += check_summary(summary)
        problems += check_result(summary, events[-1]["interrupted"])
        problems += check_tests_against_summary(tests, summary, False)
    return problems


def check_compact(text):
    lines, problems = parse_lines(text, "compact")
    for n, line in enumerate(lines, 1):
        problems += _schema_problems("compact.schema.json", line,
                                     "compact:%d" % n)
    if problems:
        return problems
    if not lines or "summary" not in lines[-1]:
        return ["compact: must end with a summary line"]
    if any("summary" in line for line in lines[:-1]):
        problems.append("compact: summary line before the end")
    summary = lines[-1]["summary"]
    problems += check_summary(summary)
    tests = lines[:-1]
    counts = {s: sum(1 for t in tests if t["s"] == s) for s in STATES}
    for s in STATES:
        if counts[s] > summary[s]:
            problems.append("compact: %d %s lines, summary says %d"
                            % (counts[s], s, summary[s]))
    return problems


def guess_kind(text):
    first = text.split("\n", 1)[0]
    try:
        obj = json.loads(first)
    except ValueError:
        return "report"
    if isinstance(obj, dict) and "event" in obj:
        return "stream"
    if isinstance(obj, dict) and ("s" in obj or list(obj) == ["summary"] or
                                  "error_groups" in obj and "version" not in obj):
        return "compact"
    return "report"


def check_file(path, kind=None, complete=False, finished=True):
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ["%s: not UTF-8: %s" % (path, e)]
    kind = kind or guess_kind(text)
    if kind == "stream":
        problems = check_stream(text, finished)
    elif kind == "compact":
        problems = check_compact(text)
    else:
        try:
            report = json.loads(text)
        except ValueError as e:
            return ["%s: not JSON: %s" % (path, e)]
        problems = check_report(report, complete)
    return ["%s: %s" % (path, p) for p in problems]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=("report", "stream", "compact"))
    parser.add_argument("--complete", action="store_true")
    parser.add_argument("--unfinished", action="store_true",
                        help="accept a stream without run_finished")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    bad = 0
    for path in args.files:
        problems = check_file(path, args.kind, args.complete, not args.unfinished)
        for p in problems:
            print(p)
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
