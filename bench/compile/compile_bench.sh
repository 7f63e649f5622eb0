#!/usr/bin/env bash
# compile_bench.sh — what a TEST costs the compiler.
#
# Generates COUNT trivial tattle tests in one file and the same suite
# written for Check (START_TEST ... END_TEST, one tcase_add_test each),
# compiles each to an object file with the same compiler and flags, twice,
# alternately, and prints the least CPU seconds (the compiler's user plus
# system time) and peak memory (GNU time's maximum resident set) of each,
# and tattle's ratio to Check: the target is at
# most Check's cost per test. Check is skipped, with the reason, when its
# header is not installed (Debian package check). Slow at 10,000 tests:
# pass a smaller COUNT (e.g. 2000) to iterate.
# Usage: bench/compile/compile_bench.sh [COUNT] [CC]
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 2
count="${1:-10000}"
cc="${2:-${CC:-cc}}"
case "$count" in
  '' | *[!0-9]*) echo "compile_bench: COUNT must be a number, not '$count'" >&2; exit 2 ;;
esac
if [ ! -x /usr/bin/time ]; then
  echo "compile_bench: /usr/bin/time (Debian package time) is needed" >&2
  exit 2
fi
flags=(-std=gnu11 -O2 -c)
work="$(mktemp -d /tmp/tattle-compile-bench-XXXXXX)"
trap 'rm -rf "$work"' EXIT

{
  echo '#include <tattle/tattle.h>'
  for ((i = 0; i < count; i++)); do
    echo "TEST(trivial, t$i) { ASSERT_EQ($i, $i); }"
  done
} >"$work/tattle_tests.c"

{
  echo '#include <check.h>'
  for ((i = 0; i < count; i++)); do
    echo "START_TEST(t$i) { ck_assert_int_eq($i, $i); }"
    echo "END_TEST"
  done
  echo 'TCase *trivial_case(void);'
  echo 'TCase *trivial_case(void) {'
  echo '  TCase *tc = tcase_create("trivial");'
  for ((i = 0; i < count; i++)); do
    echo "  tcase_add_test(tc, t$i);"
  done
  echo '  return tc;'
  echo '}'
} >"$work/check_tests.c"

# Prints "cpu_seconds peak_kib" for one compile of $1 (extra flags after
# it): the compiler's own user+system time, which a loaded machine inflates
# far less than the wall time, and its maximum resident set.
measure() {
  local source="$1"; shift
  /usr/bin/time -f '%U %S %M' -o "$work/time" \
    "$cc" "${flags[@]}" "$@" "$source" -o "$work/out.o"
  awk '{printf "%.2f %d\n", $1 + $2, $3}' "$work/time"
}

# The smaller of two "seconds kib" lines, field by field.
least() {
  awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ");
    printf "%s %s\n", (x[1] < y[1] ? x[1] : y[1]), (x[2] < y[2] ? x[2] : y[2]) }'
}

echo "compile benchmark: $count trivial tests, $cc ${flags[*]}"
have_check=1
[ -f /usr/include/check.h ] || have_check=0
# Each suite is compiled twice, alternately with the other, and its least
# CPU time and memory kept: a noisy neighbour inflates one compile, not both.
tattle_first="$(measure "$work/tattle_tests.c" -Iinclude)"
tattle_text="$(size "$work/out.o" | awk 'NR == 2 {print $1 " B text, " $2 + $3 " B data"}')"
tattle_per_test="$(size "$work/out.o" | awk -v n="$count" 'NR == 2 {print $1 / n}')"
if [ "$have_check" = 1 ]; then
  check_first="$(measure "$work/check_tests.c")"
fi
read -r tattle_seconds tattle_kib < <(least "$tattle_first" "$(measure "$work/tattle_tests.c" -Iinclude)")
printf '  tattle  %8.1f s CPU  %6.0f MiB peak   %s (%.0f B text per test)\n' \
  "$tattle_seconds" "$((tattle_kib / 1024))" "$tattle_text" "$tattle_per_test"
if [ "$have_check" = 0 ]; then
  echo "  check   skipped: /usr/include/check.h is not installed (Debian package check)"
  echo "  target: tattle's cost per test <= Check's (not compared this run)"
  exit 0
fi
read -r check_seconds check_kib < <(least "$check_first" "$(measure "$work/check_tests.c")")
printf '  check   %8.1f s CPU  %6.0f MiB peak   (baseline)\n' \
  "$check_seconds" "$((check_kib / 1024))"
awk -v ts="$tattle_seconds" -v cs="$check_seconds" -v tk="$tattle_kib" -v ck="$check_kib" \
  'BEGIN { printf "  tattle/check: %.2fx the CPU time, %.2fx the memory (target <= 1x)\n", ts / cs, tk / ck }'
