#!/usr/bin/env bash
# run-examples.sh — builds everything and runs the example suite.
#
# Builds every target of build/ (so `cmake --install build` works right
# after it), prints the console report and writes
# build/examples/report.json, report.xml (JUnit), report.tap (TAP 14),
# report.ctrf.json (CTRF) and report.html (the page a person opens), then
# runs calls_examples, whose test records its calls (tag trace_calls), and
# writes their flame graph build/examples/calls.folded and timeline
# calls.trace.json (open either in speedscope or Perfetto). The suite contains deliberately failing
# examples (tagged demo_failure, in examples/failing/ and examples/trace/)
# so the report shows real failures; this script exits 0 when the run went
# as designed (the example binary exits 1 because of them) and non-zero on
# any other outcome.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
status=0
(cd build/examples && ./tattle_examples --json report.json --junit report.xml --tap report.tap \
                                    --ctrf report.ctrf.json --html report.html "$@") || status=$?
if [ "$status" -eq 1 ] && [ -s build/examples/report.json ]; then
  (cd build/examples && ./calls_examples --quiet --flamegraph calls.folded \
                                         --chrome-trace calls.trace.json) || exit $?
  echo
  echo "The failures above are the deliberate demos (tag demo_failure)."
  echo "Open build/examples/report.html in a browser to see them, with the traces drawn."
  echo "Calls of words/most_frequent: build/examples/calls.folded (flame graph) and calls.trace.json (timeline); open them in speedscope or Perfetto."
  echo "Report: build/examples/report.json   (try: jq '.tests[] | select(.state==\"failed\") | .failures[0].message' build/examples/report.json)"
  exit 0
fi
exit "$status"
