#!/usr/bin/env bash
# The fresh-machine guard: fails when the build uses a file from a Debian package that setup.sh does
# not install — directly or through its hard dependencies (Depends, Pre-Depends) — and that the base
# image (packaging/debian-base-packages.txt) does not have. It works on a machine where the package
# happens to be installed, which is the case it exists for: CI runs where earlier work left packages.
#
#   bash packaging/check-deps.sh [--preset NAME] [BUILD_DIR]     (default: preset ci, build-ci/)
#
# What counts as used:
#   - every file a fresh configure opens or executes (strace of `cmake --preset NAME` into a scratch
#     directory, without a compiler launcher: CMake package files, compiler checks) — except pkg-config
#     files: pkgconf opens every .pc file on its search path to answer one query, so an unrelated
#     developer tool's .pc (poppler-data's, say) would count. Only the .pc files of the modules the
#     configure asked pkg-config about, and of the modules those require, count,
#   - every header the build compiled against (`ninja -t deps` of BUILD_DIR),
#   - every shared library the built programs load (`ldd`) or are linked against by path (build.ninja),
#   - the programs the tests, setup.sh and CI run (readelf, xvfb-run, Xvfb, xauth, node, npm, nginx,
#     squid, openssl, prometheus, cppcheck, clang-tidy; /usr/sbin searched too, which a user's PATH may lack).
# Each file is mapped to its package through dpkg's file lists; files no package owns (the build
# tree, generated files) are ignored. TB_CHECK_DEPS_EXTRA_DPKG_LISTS (tests only: tests/checkdeps.sh)
# names a directory of extra NAME.list files, read as if dpkg had installed package NAME.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=ci
build=""
while [ $# -gt 0 ]; do
    case "$1" in
        --preset) preset=${2:?--preset needs a name}; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) build=$1 ;;
    esac
    shift
done
case "$preset" in default) default_build=build ;; *) default_build=build-$preset ;; esac
build=${build:-$here/$default_build}
[ -f "$build/build.ninja" ] || { echo "check-deps: $build is not a configured build tree (run setup.sh first)" >&2; exit 2; }
for tool in strace dpkg-query apt-cache ldd; do
    command -v "$tool" >/dev/null || { echo "check-deps: needs $tool" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What may be used: the base image, and setup.sh's list with everything it hard-depends on.
mapfile -t wanted < <(bash "$here/packaging/setup.sh" --preset "$preset" --list-packages)
if ! apt-cache show "${wanted[0]}" >/dev/null 2>&1; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
fi
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances "${wanted[@]}" 2>/dev/null | grep -v '^ ' | tr -d '<>' | sed 's/:.*//' >"$work/allowed"
grep -v '^#' "$here/packaging/debian-base-packages.txt" >>"$work/allowed"
sort -u -o "$work/allowed" "$work/allowed"

# What is used.
env -u CMAKE_CXX_COMPILER_LAUNCHER -u CMAKE_C_COMPILER_LAUNCHER \
    strace -f -qq -s 4096 -e trace=open,openat,execve -o "$work/strace" \
    cmake -S "$here" -B "$work/configure" --preset "$preset" >/dev/null
sed -nE 's/^[0-9]+ +(open|openat|execve)\((AT_FDCWD, )?"([^"]+)".* = [0-9]+$/\3/p' "$work/strace" |
    grep -v '\.pc$' >"$work/files" || true
# The modules named on pkg-config's command lines (the arguments that are not options), then the
# modules they require, each resolved to the .pc file pkg-config itself would read.
sed -nE 's/^[0-9]+ +execve\("[^"]*\/(pkg-config|pkgconf)", \[(.*)\], .* = 0$/\2/p' "$work/strace" |
    grep -oE '"[^"]*"' | tr -d '"' | grep -vE '^(-|/)' | sort -u >"$work/modules" || true
mapfile -t todo <"$work/modules"
declare -A seen=()
while [ ${#todo[@]} -gt 0 ]; do
    module=${todo[0]}
    todo=("${todo[@]:1}")
    [ -n "$module" ] && [ -z "${seen[$module]:-}" ] || continue
    seen[$module]=1
    pkg-config --path "$module" 2>/dev/null >>"$work/files" || true
    mapfile -t -O ${#todo[@]} todo < <(pkg-config --print-requires --print-requires-private "$module" 2>/dev/null |
        awk '{ print $1 }')
done
ninja -C "$build" -t deps | sed -nE 's/^ +(\/.*)$/\1/p' >>"$work/files"
grep -ohE '(^| )/(usr/)?lib/[^ ]+\.(so|a)(\.[0-9.]+)?( |$)' "$build/build.ninja" |
    tr -d ' ' >>"$work/files" || true
find "$build" -type f -perm -u+x -not -path '*/CMakeFiles/*' -not -path '*/node_modules/*' |
    while read -r program; do ldd "$program" 2>/dev/null || true; done |
    sed -nE 's/.*=> (\/[^ ]+) .*/\1/p' >>"$work/files"
for program in readelf xvfb-run Xvfb xauth node npm nginx squid openssl prometheus cppcheck clang-tidy; do
    PATH="$PATH:/usr/sbin" command -v "$program" >>"$work/files" || true
done
# dpkg records /lib/... or /usr/lib/... depending on the package (merged /usr): try both, and the
# target of each symbolic link.
# Directories are shared by many packages and say nothing: only files count.
sort -u "$work/files" | grep -vE "^($here|$work|/tmp|/proc|/sys|/dev)" | while read -r f; do
    [ -d "$f" ] && continue
    echo "$f"
    r=$(readlink -f "$f" 2>/dev/null || true)
    [ -n "$r" ] && [ "$r" != "$f" ] && echo "$r"
    case "$f" in /usr/*) echo "${f#/usr}" ;; /*) echo "/usr$f" ;; esac
done | sort -u >"$work/candidates"

# file -> package, from dpkg's own lists (one pass; dpkg -S per file is far slower).
lists=(/var/lib/dpkg/info/*.list)
[ -z "${TB_CHECK_DEPS_EXTRA_DPKG_LISTS:-}" ] || lists+=("$TB_CHECK_DEPS_EXTRA_DPKG_LISTS"/*.list)
awk 'FNR == 1 { pkg = FILENAME; sub(/.*\//, "", pkg); sub(/\.list$/, "", pkg); sub(/:.*/, "", pkg) }
     { print $0 "\t" pkg }' "${lists[@]}" | sort -t "$(printf '\t')" -k1,1 -u >"$work/owners"
join -t "$(printf '\t')" "$work/candidates" "$work/owners" >"$work/used"

missing=$(cut -f2 "$work/used" | sort -u | comm -23 - "$work/allowed")
if [ -n "$missing" ]; then
    echo "check-deps: the build uses packages that packaging/setup.sh does not install (nor the base image has):" >&2
    for p in $missing; do
        example=$(awk -F '\t' -v p="$p" '$2 == p { print $1; exit }' "$work/used")
        echo "  $p   (e.g. $example)" >&2
    done
    echo "check-deps: add them to setup.sh's package list, with the reason, and to README's dependency table" >&2
    exit 1
fi
echo "check-deps: all $(cut -f2 "$work/used" | sort -u | wc -l) packages the build uses come from setup.sh's list (preset $preset) or the base image"
