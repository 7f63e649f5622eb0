#!/usr/bin/env bash
# run-tests.sh — builds and runs tattle's own tests with CTest.
#
# Three builds of the test suite: one under address and undefined-behaviour
# sanitizers, one under the thread sanitizer, and the normal one
# (TATTLE_SKIP_SANITIZERS=1 runs only the normal one); then Release builds
# (-O3) with gcc and clang, compiled only (benchmarks included), since the
# optimiser finds warnings the other builds do not; then the check that
# the sources are formatted as .clang-format says. Every pass runs,
# whatever the ones before it did. Exits non-zero when any pass failed, and
# ends with one line that reflects every pass, e.g.
#   all passes: asan 147/147, tsan 147/147, normal 148/148, release-gcc ok,
#     release-clang ok, format ok tests passed
#   FAILED: tsan 2 of 147 tests failed; asan 147/147, normal 148/148,
#     release-gcc ok, release-clang ok, format ok passed
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
scripts/install-deps.sh || exit 2
jobs="$(nproc)"

results=()   # one "name passed total" or "name FAILED what" per pass
failed=()    # the names of the passes that failed

run_pass() {  # name, build dir, extra ctest args (one word), cmake args...
  local name="$1" dir="$2" ctest_extra="$3"; shift 3
  echo "==== $name pass ($dir)"
  if ! cmake -S . -B "$dir" -DTATTLE_BUILD_BENCH=OFF "$@" >/dev/null ||
     ! cmake --build "$dir" -j"$jobs"; then
    results+=("$name build failed")
    failed+=("$name")
    return
  fi
  local status=0
  mkdir -p "$dir"
  # shellcheck disable=SC2086  # ctest_extra is empty or several words
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 300 $ctest_extra) \
    2>&1 | tee "$dir/ctest.log" || status=$?
  # CTest's own count: "100% tests passed, 0 tests failed out of 147".
  local summary
  summary="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' \
             "$dir/ctest.log" | tail -n 1)"
  if [ -z "$summary" ]; then
    results+=("$name ctest printed no summary (exit $status)")
    failed+=("$name")
    return
  fi
  local failures total
  failures="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary")"
  total="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$summary")"
  if [ "$status" -ne 0 ] || [ "$failures" -ne 0 ]; then
    results+=("$name $failures of $total tests failed")
    failed+=("$name")
  else
    results+=("$name $total/$total")
  fi
}

if [ "${TATTLE_SKIP_SANITIZERS:-0}" != 1 ]; then
  run_pass asan build-asan "" -DTATTLE_SANITIZE=address
  # Every test process is a fork, and a process forked under ThreadSanitizer
  # can deadlock on the sanitizer's own locks (google/sanitizers#453, #1400;
  # fixed upstream in llvm-project#96600, after Debian 12's GCC). A test
  # that fails is run once more; one that fails twice fails the pass
  # (CTest counts it failed).
  run_pass tsan build-tsan "--repeat until-pass:2" -DTATTLE_SANITIZE=thread
fi
run_pass normal build-tests "" -DCMAKE_BUILD_TYPE=RelWithDebInfo

compile_pass() {  # name, build dir, C compiler: a Release build, no tests run
  local name="$1" dir="$2" compiler="$3"
  echo "==== $name pass ($dir)"
  if ! command -v "$compiler" >/dev/null; then
    results+=("$name build failed ($compiler is not installed)")
    failed+=("$name")
  elif cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_C_COMPILER="$compiler" -DTATTLE_BUILD_BENCH=ON >/dev/null &&
     cmake --build "$dir" -j"$jobs"; then
    results+=("$name ok")
  else
    results+=("$name build failed")
    failed+=("$name")
  fi
}
compile_pass release-gcc build-release-gcc gcc
compile_pass release-clang build-release-clang clang

# The sources as .clang-format says: a pass of its own.
echo "==== format pass"
if scripts/check-format.sh; then
  results+=("format ok")
else
  results+=("format failed")
  failed+=("format")
fi

# The last line: every pass, the failed ones first.
if [ ${#failed[@]} -eq 0 ]; then
  line="all passes:"
  for result in "${results[@]}"; do line="$line ${result},"; done
  echo "${line%,} tests passed"
  exit 0
fi
bad="" good=""
for result in "${results[@]}"; do
  case "$result" in
    *" failed"*|*" no summary"*) bad="$bad${bad:+; }$result" ;;
    *) good="$good${good:+, }$result" ;;
  esac
done
echo "FAILED: $bad${good:+; $good passed}"
exit 1
