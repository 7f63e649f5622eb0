#!/usr/bin/env bash
# check-format.sh — checks that every C, C++ and header file git tracks is
# formatted as .clang-format says (clang-format --dry-run -Werror); names
# each file that is not. `clang-format -i FILE` formats one.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp')
unformatted=()
for file in "${files[@]}"; do
  clang-format --dry-run -Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done
if [ ${#unformatted[@]} -gt 0 ]; then
  printf 'check-format: not formatted (clang-format -i FILE): %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
