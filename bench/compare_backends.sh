#!/bin/sh
# compare_backends.sh: the accuracy benchmark (bench_engine) on both I/O backends, side by side.
#
# Runs the Linux build's and the portable build's bench_engine, native transport over HTTP/1.1, against
# ONE simulator: the Linux build's tokenbench-cli, so that only the client differs (its poller, its
# stamps, its timers). The levels alternate between the backends (200 linux, 200 portable, 1000 linux,
# …) so that a change in the machine's load falls on both; the load average before each run is in
# the table. Prints one table; bench_engine's full output is kept in the log.
#
#   bench/compare_backends.sh [--linux DIR] [--portable DIR] [--concurrency 200,1000] [--seconds 10]
#                             [--log FILE]
#
# DIRs are build trees (default build-ci and build-portable: `cmake --preset ci`, and
# `cmake --preset ci -B build-portable -DTB_IO_BACKEND=portable`), each built with
# `cmake --build DIR --target bench_engine tokenbench-cli`.
set -eu

linux=build-ci
portable=build-portable
levels=200,1000
seconds=10
log=compare_backends.log
while [ $# -gt 1 ]; do
    case "$1" in
    --linux) linux=$2 ;;
    --portable) portable=$2 ;;
    --concurrency) levels=$2 ;;
    --seconds) seconds=$2 ;;
    --log) log=$2 ;;
    *)
        echo "compare_backends.sh: unknown option $1" >&2
        exit 2
        ;;
    esac
    shift 2
done
if [ $# -ne 0 ]; then
    echo "compare_backends.sh: $1 needs a value" >&2
    exit 2
fi
sim="$linux/app/tokenbench-cli"
for program in "$linux/bench/bench_engine" "$portable/bench/bench_engine" "$sim"; do
    [ -x "$program" ] || {
        echo "compare_backends.sh: $program is missing (build it first)" >&2
        exit 1
    }
done

csv=$(mktemp)
loads=$(mktemp)
trap 'rm -f "$csv" "$loads"' EXIT
: >"$log"

# The load average over the last minute, as uptime prints it.
load1() { uptime | sed 's/.*load average[s]*: *//; s/,.*//'; }

echo "compare_backends: $(uname -sr), $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo 2>/dev/null | head -1))"
echo "client: bench_engine of each build, native transport, HTTP/1.1, $seconds s per level; simulator: $sim (one for both)"
echo "load average before: $(uptime | sed 's/.*load average[s]*: *//')"
for level in $(echo "$levels" | tr ',' ' '); do
    for dir in "$linux" "$portable"; do
        load1 >>"$loads"
        "$dir/bench/bench_engine" --cli "$sim" --transport native --http 1.1 --concurrency "$level" \
            --seconds "$seconds" --csv "$csv" >>"$log" 2>&1
    done
done
echo "load average after: $(uptime | sed 's/.*load average[s]*: *//')"
echo

# One row per run, in the order run; the loads file has a line per run in the same order.
tail -n +2 "$csv" | paste -d, - "$loads" | awk -F, '
BEGIN {
    printf "| backend | streams | CPU µs/event (user + sys) | TTFT error p50 / p99 ms | client stamping lag p50 / p99 ms | wire peak | ok / failed | load before |\n"
    printf "| --- | --- | --- | --- | --- | --- | --- | --- |\n"
}
{
    printf "| %s | %s | %.2f (%s + %s) | %s / %s | %s / %s | %s | %s / %s | %s |\n",
        $1, $4, $8 + $9, $8, $9, $10, $11, $12, $13, $6, $16, $17, $18
}'
echo
echo "(bench_engine's full output: $log)"
