#!/usr/bin/env bash
# install-deps.sh — installs the Debian packages tattle needs, if missing.
#
# Build: cmake, a C compiler, pkg-config, libcjson-dev, libyaml-dev,
# libdw-dev, libxml2-dev. Tests: python3 with python3-jsonschema (the schema
# validator), jq (AGENTS.md recipes), clang-format (the format pass),
# clang and g++ (the header warning checks, C and C++), libcmocka-dev,
# check and libcriterion-dev (real suites `tattle run` wraps), libxml2-utils and
# perl's prove (consumers of other formats), chromium (the HTML report is
# opened in it). Uses sudo
# when not root; does nothing when everything is there. Then the npm
# packages of the report consumer tests (install-npm-deps.sh).
set -euo pipefail

packages=(cmake gcc g++ clang clang-format make pkg-config libcjson-dev libyaml-dev libdw-dev libxml2-dev
          python3 python3-jsonschema jq libxml2-utils perl chromium
          libcmocka-dev check libcriterion-dev)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exec "$(dirname "$0")/install-npm-deps.sh"

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
"$(dirname "$0")/install-npm-deps.sh"
