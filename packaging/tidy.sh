#!/usr/bin/env bash
# clang-tidy with .clang-tidy's checks (findings are errors) on the project's C++ sources, in parallel.
#
#   bash packaging/tidy.sh [--all | --since REF] [BUILD_DIR]      (default: --since .ci/tidy-base, build-ci/)
#
#   --all        every .cpp file of core/, ui/ and app/ (about 15 min of CPU on this 2-core
#                machine); when it passes, write its commit into .ci/tidy-base;
#   --since REF  the .cpp files changed since REF, and those whose header of the same name changed
#                (CI: REF is .ci/tidy-base, the last commit the whole tree passed).
# BUILD_DIR must be configured and built (compile_commands.json, Qt's generated moc files).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
mode=since
ref=""
build=""
while [ $# -gt 0 ]; do
    case "$1" in
        --all) mode=all ;;
        --since) mode=since; ref=${2:?--since needs a commit}; shift ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) build=$1 ;;
    esac
    shift
done
build=${build:-$here/build-ci}
[ -f "$build/compile_commands.json" ] || { echo "tidy: $build has no compile_commands.json (configure and build it first)" >&2; exit 2; }
tidy=$(command -v clang-tidy || command -v clang-tidy-14) || { echo "tidy: clang-tidy not found (Debian: clang-tidy)" >&2; exit 2; }

dirs=(core ui app)
if [ "$mode" = all ]; then
    mapfile -t files < <(git ls-files -- "${dirs[@]/%//*.cpp}")
else
    ref=${ref:-$(cat .ci/tidy-base)}
    mapfile -t changed < <(git diff --name-only --diff-filter=AMR "$ref" -- "${dirs[@]}")
    files=()
    for f in "${changed[@]}"; do
        case "$f" in
            *.cpp) files+=("$f") ;;
            *.h) [ -f "${f%.h}.cpp" ] && files+=("${f%.h}.cpp") ;;
        esac
    done
    mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u | grep -v '^$' || true)
fi
# Only files the build compiles (a bench program off in this preset has no compile command).
mapfile -t files < <(for f in "${files[@]}"; do grep -qF "\"$here/$f\"" "$build/compile_commands.json" && echo "$f"; done)
what="every one"
[ "$mode" = all ] || what="changed since ${ref:0:12}"
echo "tidy: ${#files[@]} files ($what), $(nproc) at a time"
[ ${#files[@]} -gt 0 ] || exit 0
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 1 "$tidy" -p "$build" --quiet 2>/dev/null
echo "tidy: no findings"
