#!/usr/bin/env bash
# run-tests.sh — builds and runs tattle's own tests with CTest.
#
# Three builds of the test suite: the normal one, one under address and
# undefined-behaviour sanitizers, and one under the thread sanitizer.
# Exits non-zero on any failure. The last line printed is CTest's summary
# of the normal build ("N tests failed out of M" / "100% tests passed").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs="$(nproc)"
status=0

run_suite() {  # name, build dir, cmake args...
  local name="$1" dir="$2"; shift 2
  echo "==== $name build ($dir)"
  cmake -S . -B "$dir" -DTATTLE_BUILD_BENCH=OFF "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 300) || status=1
}

if [ "${TATTLE_SKIP_SANITIZERS:-0}" != 1 ]; then
  run_suite "address+undefined sanitizer" build-asan -DTATTLE_SANITIZE=address
  run_suite "thread sanitizer" build-tsan -DTATTLE_SANITIZE=thread
fi
run_suite "normal" build-tests -DCMAKE_BUILD_TYPE=RelWithDebInfo
exit "$status"
