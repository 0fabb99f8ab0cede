#!/usr/bin/env bash
# Fails when cppcheck finds a function defined in core/, ui/ or app/ that nothing calls — tests,
# bench and fuzz count as callers — and packaging/unused-functions.txt does not list it as a known
# false positive (a virtual that Qt or nlohmann::json calls, an event handler, a harness entry
# point). It changes nothing. cppcheck sees functions defined in .cpp files only: an inline accessor
# in a header that nothing calls is not found (grep for those).
#
#   bash packaging/check-unused.sh [CPPCHECK]     (default: cppcheck on PATH; 35 s of one core)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cppcheck=${1:-cppcheck}
command -v "$cppcheck" >/dev/null || { echo "check-unused: $cppcheck not found" >&2; exit 2; }
cd "$here"

# unusedFunction needs the whole program in one run (it cannot be split across jobs).
found=$("$cppcheck" --enable=unusedFunction --std=c++20 --quiet --library=qt \
    --template='{file} {id} {message}' -I core -I ui -I app -I tests \
    --suppress=missingIncludeSystem --suppress=missingInclude \
    core ui app tests bench fuzz 2>&1 |
    sed -nE "s/^((core|ui|app)\/[^ ]+) unusedFunction The function '([^']+)' is never used.*/\1 \3/p" | sort -u)
known=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' packaging/unused-functions.txt | sort -u)
new=$(comm -23 <(printf '%s\n' "$found") <(printf '%s\n' "$known") | sed '/^$/d')
if [[ -n $new ]]; then
    echo "check-unused: functions nothing calls (remove them, or list a false positive in packaging/unused-functions.txt):" >&2
    sed 's/^/  /' <<<"$new" >&2
    exit 1
fi
echo "check-unused: no function outside packaging/unused-functions.txt is unused"
