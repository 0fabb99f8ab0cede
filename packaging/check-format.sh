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
# One clang-format for all files (one process per file takes half a minute); it names each
# offending file in its "FILE:LINE:COL: error:" lines.
status=0
out=$("$clang_format" --dry-run -Werror --style=file "${files[@]}" 2>&1) || status=$?
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$out" | cut -d: -f1 | sort -u)
if ((status != 0 && ${#bad[@]} == 0)); then
    printf 'check-format: %s failed:\n%s\n' "$clang_format" "$out" >&2
    exit 2
fi
if ((${#bad[@]})); then
    printf 'check-format: %d of %d files differ from .clang-format:\n' "${#bad[@]}" "${#files[@]}" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format"
