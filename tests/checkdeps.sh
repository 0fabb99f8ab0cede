#!/usr/bin/env bash
# The fresh-machine guard (packaging/check-deps.sh) against planted pkg-config files. It installs
# nothing: a planted .pc file is "owned" by a made-up package through the guard's test-only
# TB_CHECK_DEPS_EXTRA_DPKG_LISTS, which no setup.sh list names.
#
#   tests/checkdeps.sh unrelated|asked BUILD_DIR
#
#   unrelated  an unrelated .pc on pkg-config's search path (as a developer tool's would be): the
#              guard passes (it failed before: pkgconf opens every .pc on the path for one query);
#   asked      a .pc for libnghttp2, a module the build asks for, found first on the search path:
#              the guard fails and names the made-up package.
set -uo pipefail
case=${1:?case}
build=${2:?build dir}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Not under /tmp or the source tree: the guard ignores files there (scratch and build output).
plant=$(mktemp -d /var/tmp/tb-checkdeps.XXXXXX)
trap 'rm -rf "$plant"' EXIT
mkdir -p "$plant/pc" "$plant/lists"

case "$case" in
unrelated)
    printf 'Name: tb-unrelated\nDescription: planted by tests/checkdeps.sh\nVersion: 1.0\n' >"$plant/pc/tb-unrelated.pc"
    echo "$plant/pc/tb-unrelated.pc" >"$plant/lists/tb-planted-tool.list"
    ;;
asked)
    real=$(pkg-config --path libnghttp2) || { echo "checkdeps: libnghttp2.pc not found" >&2; exit 1; }
    cp "$real" "$plant/pc/libnghttp2.pc"
    echo "$plant/pc/libnghttp2.pc" >"$plant/lists/tb-planted-nghttp2.list"
    ;;
*) echo "checkdeps: unknown case $case" >&2; exit 2 ;;
esac

output=$(PKG_CONFIG_PATH="$plant/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
    TB_CHECK_DEPS_EXTRA_DPKG_LISTS="$plant/lists" \
    bash "$here/packaging/check-deps.sh" --preset ci "$build" 2>&1)
status=$?
echo "$output"
case "$case" in
unrelated)
    [ "$status" -eq 0 ] || { echo "FAIL: the guard failed on an unrelated .pc file (status $status)"; exit 1; }
    ;;
asked)
    [ "$status" -eq 1 ] || { echo "FAIL: the guard did not fail (status $status)"; exit 1; }
    grep -q 'tb-planted-nghttp2' <<<"$output" || { echo "FAIL: the guard did not name the planted package"; exit 1; }
    ;;
esac
echo "PASS: $case"
