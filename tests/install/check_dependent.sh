#!/usr/bin/env bash
# check_dependent.sh SOURCE_DIR — tattle as a dependency. Configures the
# project in tests/install/dependent, which takes tattle with
# add_subdirectory() and then with FetchContent, and checks that tattle
# brings only its libraries: no other target of tattle's exists, the
# parent's CTest lists the parent's tests alone, the parent's build type
# is left alone, and (add_subdirectory, built and run) the only program
# built is the parent's, whose tests pass through tattle_discover_tests().
set -euo pipefail
source="$(cd "$1" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() { echo "FAILED ($how): $*"; failed=1; }

# What a parent may see of tattle: its libraries.
allowed_targets="dependent_tests tattle tattle_main tattle_objects tattle_preload tattle_static"
parent_tests="dependent/adds
dependent/compares_strings
parent_own_test"

check_configured() {  # build dir
  local dir="$1" targets extra
  # The targets of the whole tree, less CMake's, CTest's dashboard
  # targets and the parent's object files.
  targets="$(cmake --build "$dir" --target help | sed -n 's/^\.\.\. \([^ ]*\).*/\1/p' |
             grep -Ev '^(all|clean|depend|edit_cache|rebuild_cache|test|install.*|list_install_components)$' |
             grep -Ev '^(Continuous|Experimental|Nightly)' | grep -Ev '\.(o|i|s)$' | sort)"
  extra="$(comm -23 <(printf '%s\n' "$targets") <(printf '%s\n' $allowed_targets | sort))"
  [ -z "$extra" ] || fail "tattle adds targets besides its libraries: $(echo $extra)"
  grep -q '^CMAKE_BUILD_TYPE:STRING=$' "$dir/CMakeCache.txt" ||
    fail "the parent's build type was changed: $(grep '^CMAKE_BUILD_TYPE:' "$dir/CMakeCache.txt")"
}

listed_tests() {  # build dir
  (cd "$1" && ctest -N) | sed -n 's/^ *Test *#[0-9]*: //p' | sort
}

how=add_subdirectory
dir="$scratch/add_subdirectory"
cmake -S "$source/tests/install/dependent" -B "$dir" \
      -DTATTLE_SOURCE_DIR="$source" >"$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; fail "configure failed"; exit 1; }
check_configured "$dir"
cmake --build "$dir" -j2 >"$scratch/build.log" 2>&1 ||
  { tail -n 30 "$scratch/build.log"; fail "build failed"; exit 1; }
listed="$(listed_tests "$dir")"
[ "$listed" = "$parent_tests" ] ||
  fail "ctest -N lists other tests than the parent's: $(echo $listed | head -c 600)"
programs="$(find "$dir" -path '*/CMakeFiles' -prune -o -type f -perm -u+x -print |
            while read -r f; do
              case "$f" in *.so|*.so.*) continue ;; esac
              [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && basename "$f"
            done | sort | tr '\n' ' ')"
[ "$programs" = "dependent_tests " ] || fail "programs built besides the parent's: $programs"
if [ "$listed" = "$parent_tests" ]; then
  (cd "$dir" && ctest --output-on-failure --timeout 60 >"$scratch/ctest.log" 2>&1) ||
    { cat "$scratch/ctest.log"; fail "the parent's tests failed"; }
fi

how=FetchContent
dir="$scratch/fetchcontent"
cmake -S "$source/tests/install/dependent" -B "$dir" -DTATTLE_HOW=FetchContent \
      -DFETCHCONTENT_SOURCE_DIR_TATTLE="$source" >"$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; fail "configure failed"; exit 1; }
check_configured "$dir"
# Not built: the parent's discovered tests stand as one placeholder.
listed="$(listed_tests "$dir")"
[ "$listed" = "$(printf 'dependent_tests_NOT_BUILT\nparent_own_test')" ] ||
  fail "ctest -N lists other tests than the parent's: $(echo $listed | head -c 600)"

[ "$failed" = 0 ] && echo "dependency check passed"
exit "$failed"
