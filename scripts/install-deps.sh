#!/usr/bin/env bash
# install-deps.sh — installs the Debian packages tattle needs, if missing.
#
# Build: cmake, a C compiler, pkg-config, libcjson-dev, libyaml-dev,
# libdw-dev. Tests: python3 with python3-jsonschema (the schema
# validator), jq (AGENTS.md recipes), clang and g++ (the header warning
# checks, C and C++),
# libxml2-utils and perl's prove (consumers of other formats), and the
# npm packages of package-lock.json (npm ci; real consumers of the
# reports). Uses sudo when not root; does nothing when everything is there.
set -euo pipefail

packages=(cmake gcc g++ clang make pkg-config libcjson-dev libyaml-dev libdw-dev
          python3 python3-jsonschema jq libxml2-utils perl)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The npm packages the tests read reports with (junit2json), pinned in
# package-lock.json, into node_modules at the repository root; skipped
# where npm is not installed (those tests then say they are skipped).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if command -v npm >/dev/null; then
  # npm ci writes node_modules/.package-lock.json: newer than the lock
  # file means the pinned packages are there.
  if ! [ "$root/node_modules/.package-lock.json" -nt "$root/package-lock.json" ]; then
    (cd "$root" && npm ci --no-audit --no-fund --loglevel=error)
  fi
else
  echo "install-deps: npm is not installed: the tests that read reports with npm packages will be skipped" >&2
fi
