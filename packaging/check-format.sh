#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format makes of it under .clang-format,
# and names the files. It changes nothing; `clang-format -i FILE` (or `git clang-format` on staged
# lines) fixes one.
#
#   bash packaging/check-format.sh [CLANG_FORMAT]     (default: clang-format on PATH)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
clang_format=${1:-clang-format}
command -v "$clang_format" >/dev/null || { echo "check-format: $clang_format not found" >&2; exit 2; }

cd "$here"
# Generated or third-party sources are not ours to format (tests/sdk holds JavaScript only).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.hpp' ':!:tests/sdk/**')
else # a source tarball: every C++ file but the build trees'
    mapfile -t files < <(find . \( -name 'build*' -o -name sdk \) -prune -o \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print | sed 's|^\./||' | sort)
fi
bad=()
for file in "${files[@]}"; do
    if ! "$clang_format" --dry-run -Werror --style=file "$file" >/dev/null 2>&1; then
        bad+=("$file")
    fi
done
if ((${#bad[@]})); then
    printf 'check-format: %d of %d files differ from .clang-format:\n' "${#bad[@]}" "${#files[@]}" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format"
