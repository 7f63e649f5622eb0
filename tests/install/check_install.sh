#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR — installs the built tattle into a
# scratch prefix with `cmake --install BUILD_DIR --prefix DIR` and checks
# what a user gets: headers, libraries, the schemas, then a consumer
# project built against it with find_package(tattle) + CTest labels (its
# report validated against the installed schemas), and plain compiles with
# pkg-config, through tattle-main and through tattle alone.
set -euo pipefail
build="$1"; source="$(cd "$2" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
fail() { echo "FAILED: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$scratch/install.log" 2>&1 ||
  { cat "$scratch/install.log"; fail "cmake --install $build failed"; }
libdir="$(cd "$prefix" && dirname "$(find . -name tattle.pc)")"
[ -n "$libdir" ] || fail "no tattle.pc installed"
libdir="$prefix/${libdir%/pkgconfig}"
for file in include/tattle/tattle.h include/tattle/trace.h include/tattle/reporter.h; do
  [ -f "$prefix/$file" ] || fail "$file is not installed"
done
for file in libtattle.so libtattle_preload.so libtattle.a libtattle_main.a pkgconfig/tattle.pc \
            pkgconfig/tattle-main.pc cmake/tattle/tattleConfig.cmake; do
  [ -e "$libdir/$file" ] || fail "$file is not installed in $libdir"
done
schemas="$prefix/share/tattle/schemas"
for schema in "$source"/schemas/*.schema.json; do
  cmp -s "$schema" "$schemas/$(basename "$schema")" ||
    fail "schema $(basename "$schema") is not installed in share/tattle/schemas"
done

# find_package(tattle): the targets, tattle_discover_tests() and labels.
cmake -S "$source/tests/install/consumer" -B "$scratch/consumer" \
      -DCMAKE_PREFIX_PATH="$prefix" >"$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; fail "find_package(tattle) consumer does not configure"; }
cmake --build "$scratch/consumer" >"$scratch/build.log" 2>&1 ||
  { cat "$scratch/build.log"; fail "find_package(tattle) consumer does not build"; }
[ "$(cat "$scratch/consumer/schemas_dir.txt")" -ef "$schemas" ] ||
  fail "TATTLE_SCHEMAS_DIR is '$(cat "$scratch/consumer/schemas_dir.txt")', not $schemas"
listed="$(cd "$scratch/consumer" && ctest -N -L area:install | grep -c 'consumer/links_and_runs' || true)"
[ "$listed" = 1 ] || fail "the consumer's test is not registered with label area:install"
(cd "$scratch/consumer" && ctest --output-on-failure >/dev/null) || fail "the consumer's CTest run failed"
(cd "$scratch/consumer" && ./consumer_tests --json report.json >/dev/null 2>&1) ||
  fail "the consumer's run failed"
# The validator reads schemas from $TATTLE_SOURCE_DIR/schemas: the installed ones.
TATTLE_SOURCE_DIR="$prefix/share/tattle" python3 "$source/tests/tools/validate_json.py" \
  --kind report --complete "$scratch/consumer/report.json" ||
  fail "the consumer's report does not validate against the installed schemas"

# pkg-config: tattle-main brings main() and tattle; tattle alone needs a main.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --variable=schemasdir tattle)" -ef "$schemas" ] ||
  fail "pkg-config --variable=schemasdir tattle is '$(pkg-config --variable=schemasdir tattle)'"
cc -std=c11 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags tattle-main) \
   "$source/tests/install/consumer/consumer.c" -o "$scratch/pc_main_consumer" \
   $(pkg-config --libs tattle-main) -Wl,-rpath,"$libdir" ||
  fail "a consumer does not build with pkg-config tattle-main"
out="$("$scratch/pc_main_consumer" --color=never)"
[ "$(printf '%s\n' "$out" | tail -n 1)" = "1 passed, 0 failed, 0 skipped" ] ||
  { printf '%s\n' "$out"; fail "the pkg-config tattle-main build did not run its test"; }
cat >"$scratch/own_main.c" <<'CODE'
#include <tattle/tattle.h>

TEST(own, main)
{
    ASSERT_EQ(2 * 21, 42);
}

int main(int argc, char **argv)
{
    return tattle_main(argc, argv);
}
CODE
cc -std=c11 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags tattle) \
   "$scratch/own_main.c" -o "$scratch/pc_consumer" $(pkg-config --libs tattle) \
   -Wl,-rpath,"$libdir" || fail "a consumer does not build with pkg-config tattle"
out="$("$scratch/pc_consumer" --color=never)"
[ "$(printf '%s\n' "$out" | tail -n 1)" = "1 passed, 0 failed, 0 skipped" ] ||
  { printf '%s\n' "$out"; fail "the pkg-config tattle build did not run its test"; }
echo "install check passed"
