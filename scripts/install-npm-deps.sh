#!/usr/bin/env bash
# install-npm-deps.sh — installs the npm packages the tests read tattle's
# reports with: ctrf (the CTRF schema validator), tap-parser (TAP 14,
# strict), junit2json (JUnit XML), playwright-core (drives Debian's
# chromium to open the HTML report), mermaid (parses `tattle show
# --mermaid`) and speedscope (opens the flame graph and the Chrome trace),
# pinned in tests/consumers/package-lock.json.
#
# Runs `npm ci` there unless node_modules was installed from a lock with
# the same content (a copy of it is kept in node_modules): a fresh clone or
# worktree, whose lock is new but the same, with a shared node_modules
# linked in, leaves it alone, where `npm ci` would empty it.
# Never fails the caller: without npm, or when the npm registry cannot be
# reached, it says so and leaves no half-installed node_modules behind, and
# the tests that need these packages skip, naming the reason.
set -uo pipefail
consumers="$(cd "$(dirname "$0")/../tests/consumers" && pwd)"
installed="$consumers/node_modules/.tattle-installed-lock.json"

if ! command -v npm >/dev/null 2>&1; then
  echo "install-npm-deps: npm not found: the tests that read reports with npm packages will skip" >&2
  exit 0
fi
if cmp -s "$installed" "$consumers/package-lock.json"; then
  exit 0
fi
echo "install-npm-deps: npm ci in tests/consumers" >&2
if ! (cd "$consumers" && npm ci --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 --fetch-timeout=60000); then
  echo "install-npm-deps: npm ci failed (is the npm registry reachable?): the tests that read reports with npm packages will skip" >&2
  rm -rf "$consumers/node_modules"
  exit 0
fi
cp "$consumers/package-lock.json" "$installed"
exit 0
