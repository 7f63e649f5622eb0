#!/usr/bin/env bash
# stress-tests.sh — runs the README's test command under CPU load.
#
#   scripts/stress-tests.sh [RUNS]
#
# Runs scripts/run-tests.sh RUNS times in a row (default 3) while
# `stress-ng --cpu 4` loads the machine, to show the suite does not depend
# on timing. Installs stress-ng (a Debian package) when it is missing,
# with sudo when not root. The load is stopped at the end whatever
# happens. Exits non-zero when any run failed, and ends with one line
# that summarises all runs, e.g.
#   stress: 3 of 3 runs passed under stress-ng --cpu 4
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

runs="${1:-3}"
case "$runs" in
  ''|*[!0-9]*|0) echo "stress-tests: RUNS must be a positive number, not '$runs'" >&2; exit 2 ;;
esac

if ! command -v stress-ng >/dev/null; then
  echo "stress-tests: installing stress-ng" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "stress-tests: need root or sudo to install stress-ng" >&2; exit 2; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get update -qq ||
     ! $sudo apt-get install -y -qq --no-install-recommends stress-ng; then
    echo "stress-tests: could not install stress-ng" >&2
    exit 2
  fi
fi

stress-ng --cpu 4 --quiet &
load_pid=$!
# stress-ng stops its workers when it gets SIGTERM.
# shellcheck disable=SC2317  # run by the EXIT trap
stop_load() {
  kill "$load_pid" 2>/dev/null
  wait "$load_pid" 2>/dev/null
}
trap stop_load EXIT
trap 'exit 130' INT TERM

passed=0
lines=()
for run in $(seq 1 "$runs"); do
  echo "==== stress run $run of $runs (stress-ng --cpu 4, pid $load_pid)"
  log="$(mktemp)"
  scripts/run-tests.sh 2>&1 | tee "$log"
  status="${PIPESTATUS[0]}"
  last="$(tail -n 1 "$log")"
  rm -f "$log"
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
  fi
  lines+=("run $run: $last")
done

echo "==== stress runs"
printf '%s\n' "${lines[@]}"
if [ "$passed" -eq "$runs" ]; then
  echo "stress: $passed of $runs runs passed under stress-ng --cpu 4"
  exit 0
fi
echo "stress: FAILED: $((runs - passed)) of $runs runs failed under stress-ng --cpu 4"
exit 1
