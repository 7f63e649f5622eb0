#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR — installs the built tattle into a
# scratch prefix, then builds and runs a consumer project against it with
# find_package(tattle) + CTest labels, and a plain compile with pkg-config.
set -euo pipefail
build="$1"; source="$2"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null

cmake -S "$source/tests/install/consumer" -B "$scratch/consumer" \
      -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
listed="$(cd "$scratch/consumer" && ctest -N -L area:install | grep -c 'consumer/links_and_runs' || true)"
[ "$listed" = 1 ] || { echo "FAILED: the consumer's test is not registered with label area:install"; exit 1; }
(cd "$scratch/consumer" && ctest --output-on-failure >/dev/null) || { echo "FAILED: the consumer's CTest run failed"; exit 1; }

export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig"
cc -std=c11 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags tattle) \
   "$source/tests/install/consumer/consumer.c" -o "$scratch/pc_consumer" \
   -L"$scratch/prefix/lib" -ltattle_main $(pkg-config --libs tattle) -Wl,-rpath,"$scratch/prefix/lib"
out="$("$scratch/pc_consumer" --color=never)"
[ "$(printf '%s\n' "$out" | tail -n 1)" = "1 passed, 0 failed, 0 skipped" ] ||
  { echo "FAILED: the pkg-config build did not run its test:"; printf '%s\n' "$out"; exit 1; }
echo "install check passed"
