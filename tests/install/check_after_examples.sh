#!/usr/bin/env bash
# check_after_examples.sh SOURCE_DIR — the README's first command, then
# `cmake --install build --prefix DIR`, as a newcomer types them: runs
# scripts/run-examples.sh in a fresh copy of the source tree (its files
# as git knows them, or the whole tree less build directories), checks
# that it wrote a valid build/examples/report.json and JUnit, TAP and
# CTRF reports that their real consumers accept, then runs
# check_install.sh on the copy's build directory.
set -euo pipefail
source="$(cd "$1" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

copy="$scratch/tattle"
mkdir "$copy"
if git -C "$source" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$source" && git ls-files -z --cached --others --exclude-standard |
     xargs -0 cp --parents -t "$copy")
else
  tar -C "$source" --exclude='./build*' -cf - . | tar -C "$copy" -xf -
fi
[ ! -e "$copy/build" ] || fail "the copy already has a build directory"

"$copy/scripts/run-examples.sh" >"$scratch/examples.log" 2>&1 ||
  { tail -n 40 "$scratch/examples.log"; fail "scripts/run-examples.sh failed"; }
[ -s "$copy/build/examples/report.json" ] || fail "no build/examples/report.json"
python3 "$source/tests/tools/validate_json.py" --kind report --complete \
  "$copy/build/examples/report.json" || fail "build/examples/report.json is not valid"
[ "$(head -n 1 "$copy/build/examples/report.tap")" = "TAP version 14" ] ||
  fail "build/examples/report.tap is not TAP version 14"
# The CI formats as their real readers take them, counting what the JSON
# report counts (xmllint --schema, junit2json, TAP::Parser, tap-parser
# strict, the ctrf validator).
python3 "$source/tests/consumers/report_consumers.py" \
  --json "$copy/build/examples/report.json" --junit "$copy/build/examples/report.xml" \
  --tap "$copy/build/examples/report.tap" --ctrf "$copy/build/examples/report.ctrf.json" ||
  fail "a consumer rejects build/examples/report.{xml,tap,ctrf.json}"
head -c 15 "$copy/build/examples/report.html" | grep -q '^<!DOCTYPE html>' ||
  fail "build/examples/report.html is not the HTML report"

"$here/check_install.sh" "$copy/build" "$source"
