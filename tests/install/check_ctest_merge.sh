#!/usr/bin/env bash
# check_ctest_merge.sh BUILD_DIR SOURCE_DIR — one report from a CTest run,
# as the README shows it. Installs the built tattle into a scratch prefix,
# builds tests/install/ctest_merge (find_package(tattle),
# tattle_discover_tests() with its default report directory), runs
# `ctest -j2` (every test in its own run, two at a time), then
# `tattle merge DIR -o report.json` and `tattle convert --to junit`, and
# checks that the report is valid, complete and holds every CTest test
# exactly once with the state CTest saw, and that the JUnit report passes
# xmllint --schema and junit2json with the same counts.
set -euo pipefail
build="$1"; source="$(cd "$2" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
project="$scratch/project"
fail() { echo "FAILED: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$scratch/install.log" 2>&1 ||
  { cat "$scratch/install.log"; fail "cmake --install $build failed"; }
[ -x "$prefix/bin/tattle" ] || fail "the tattle command is not installed"
cmake -S "$source/tests/install/ctest_merge" -B "$project" \
      -DCMAKE_PREFIX_PATH="$prefix" >"$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; fail "the project does not configure"; }
cmake --build "$project" >"$scratch/build.log" 2>&1 ||
  { cat "$scratch/build.log"; fail "the project does not build"; }

# One test fails on purpose: ctest exits non-zero.
(cd "$project" && env -u TATTLE_REPORT_DIR ctest -j2 >"$scratch/ctest.log" 2>&1) &&
  fail "ctest passed, but strings/differ_on_purpose fails on purpose"
grep -q 'out of 7' "$scratch/ctest.log" || { cat "$scratch/ctest.log"; fail "ctest did not run 7 tests"; }
streams="$project/tattle-reports"
[ "$(find "$streams" -name 'merge_tests-*.jsonl' | wc -l)" = 7 ] ||
  fail "not one stream per CTest test in $streams: $(ls "$streams")"

"$prefix/bin/tattle" merge "$streams" -o "$scratch/report.json" ||
  fail "tattle merge of $streams failed"
"$prefix/bin/tattle" convert "$scratch/report.json" --to junit -o "$scratch/report.xml" ||
  fail "tattle convert --to junit failed"
python3 "$source/tests/consumers/report_consumers.py" --json "$scratch/report.json" \
  --junit "$scratch/report.xml" || fail "a JUnit consumer rejects the converted report.xml"
TATTLE_SOURCE_DIR="$source" python3 "$source/tests/tools/validate_json.py" \
  --kind report --complete "$scratch/report.json" || fail "the merged report is not valid"

python3 - "$scratch/report.json" "$scratch/ctest.log" <<'PY' || fail "the merged report does not match the CTest run"
import collections, json, re, sys
report = json.load(open(sys.argv[1]))
ids = collections.Counter(t["id"] for t in report["tests"])
ctest = {}
for line in open(sys.argv[2]):
    m = re.search(r"Test +#\d+: (\S+) \.+\**\s*(Passed|Failed|Skipped)", line)
    if m:
        ctest[m.group(1)] = m.group(2)
problems = []
if sorted(ids) != sorted(ctest) or any(n != 1 for n in ids.values()):
    problems.append("tests %r, CTest ran %r" % (dict(ids), sorted(ctest)))
state = {t["id"]: t["state"] for t in report["tests"]}
want = {"Passed": ("passed", "skipped"), "Failed": ("failed",), "Skipped": ("skipped",)}
for test, outcome in ctest.items():
    if state.get(test) not in want[outcome]:
        problems.append("%s: CTest says %s, the report %s" % (test, outcome, state.get(test)))
summary = report["summary"]
if (summary["total"], summary["failed"], summary["skipped"]) != (7, 1, 1):
    problems.append("summary %r" % summary)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
echo "ctest -j2 + tattle merge check passed"
