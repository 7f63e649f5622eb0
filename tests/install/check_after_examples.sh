#!/usr/bin/env bash
# check_after_examples.sh SOURCE_DIR — the README's first command, then
# `cmake --install build --prefix DIR`, as a newcomer types them: runs
# scripts/run-examples.sh in a fresh copy of the source tree (its files
# as git knows them, or the whole tree less build directories), checks
# that it wrote a valid build/examples/report.json, then runs
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
xmllint --noout --schema "$source/schemas/junit.xsd" "$copy/build/examples/report.xml" \
  2>"$scratch/xmllint.log" ||
  { cat "$scratch/xmllint.log"; fail "build/examples/report.xml fails schemas/junit.xsd"; }
[ "$(head -n 1 "$copy/build/examples/report.tap")" = "TAP version 14" ] ||
  fail "build/examples/report.tap is not TAP version 14"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["reportFormat"] == "CTRF"' \
  "$copy/build/examples/report.ctrf.json" || fail "build/examples/report.ctrf.json is not CTRF"
head -c 15 "$copy/build/examples/report.html" | grep -q '^<!DOCTYPE html>' ||
  fail "build/examples/report.html is not the HTML report"

"$here/check_install.sh" "$copy/build" "$source"
