#!/usr/bin/env bash
# run-tests.sh — builds and runs tattle's own tests with CTest.
#
# Three builds of the test suite: the normal one, one under address and
# undefined-behaviour sanitizers, and one under the thread sanitizer.
# Exits non-zero on any failure. The last line printed is CTest's summary
# line of the normal build ("100% tests passed, 0 tests failed out of M").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs="$(nproc)"
status=0

run_suite() {  # name, build dir, extra ctest args (one word), cmake args...
  local name="$1" dir="$2" ctest_extra="$3"; shift 3
  echo "==== $name build ($dir)"
  cmake -S . -B "$dir" -DTATTLE_BUILD_BENCH=OFF "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 300 $ctest_extra) \
    > >(tee "$dir/ctest.log") || status=1
}

if [ "${TATTLE_SKIP_SANITIZERS:-0}" != 1 ]; then
  run_suite "address+undefined sanitizer" build-asan "" -DTATTLE_SANITIZE=address
  # Every test process is a fork, and a process forked under ThreadSanitizer
  # can deadlock on the sanitizer's own locks (google/sanitizers#453, #1400;
  # fixed upstream in llvm-project#96600, after Debian 12's GCC). A test
  # that hangs that way is run once more; a real failure fails twice.
  run_suite "thread sanitizer" build-tsan "--repeat until-pass:2" -DTATTLE_SANITIZE=thread
fi
run_suite "normal" build-tests "" -DCMAKE_BUILD_TYPE=RelWithDebInfo
wait  # for tee
# End on CTest's own summary line of the last pass (after it, CTest lists
# the skipped tests).
grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' build-tests/ctest.log | tail -n 1
exit "$status"
