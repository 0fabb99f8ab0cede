#!/usr/bin/env bash
# Builds the harnesses of the "fuzz" preset (or of --preset NAME: asan-portable builds them too,
# CI's step 4 uses its tree) and runs every libFuzzer harness (or the ones named) for SECONDS each
# (default 30), one per core at a time, over a copy of its seed corpus in fuzz/corpus/<target>/.
# Fails when any harness crashes, leaks, times out or runs out of memory, and prints the input that
# did it.
#
#   fuzz/run.sh                              every harness, 30 s each
#   fuzz/run.sh 600 sseparser                one harness for 10 minutes
#   fuzz/run.sh --preset asan-portable 12    the harnesses of build-asan-portable/, 12 s each
# Runs land in build-fuzz/fuzz-runs/<target>/ (build-<preset>/…): corpus/ (the seeds plus what the
# run found), log.txt, and crash-*/leak-*/timeout-*/oom-* for a failing input.
set -euo pipefail

preset=fuzz
case "${1:-}" in
    --preset) preset=${2:?--preset needs a name: fuzz or asan-portable}; shift 2 ;;
    --preset=*) preset=${1#--preset=}; shift ;;
esac
seconds=${1:-30}
shift || true
case "$seconds" in ''|*[!0-9]*) echo "usage: fuzz/run.sh [--preset NAME] [SECONDS] [TARGET...]" >&2; exit 2 ;; esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
build=build-$preset
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for dir in fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" --target fuzzers --parallel "$(nproc)"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for target in "${targets[@]}"; do
    if [ ! -x "$build/fuzz/fuzz_$target" ] || [ ! -d "fuzz/corpus/$target" ]; then
        echo "fuzz/run.sh: no harness '$target' (expected $build/fuzz/fuzz_$target and fuzz/corpus/$target/)" >&2
        exit 2
    fi
done

# run_one TARGET: one harness over a fresh copy of its seeds; its exit status lands in status.txt.
run_one() {
    local target=$1 run=$build/fuzz-runs/$1 status=0
    rm -rf "$run"
    mkdir -p "$run"
    cp -r "fuzz/corpus/$target" "$run/corpus"
    "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$run/" "$run/corpus" >"$run/log.txt" 2>&1 || status=$?
    echo "$status" >"$run/status.txt"
}

# One harness per core at a time (each is single-threaded), so the whole set takes
# ceil(harnesses / cores) x SECONDS; the results are reported in the order asked.
jobs=$(nproc)
running=0
for target in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    echo "== fuzz_$target: ${seconds} s over $(ls "fuzz/corpus/$target" | wc -l) seeds"
    run_one "$target" &
    running=$((running + 1))
done
wait

failed=()
for target in "${targets[@]}"; do
    run=$build/fuzz-runs/$target
    status=$(cat "$run/status.txt" 2>/dev/null || echo 1)
    if [ "$status" -eq 0 ]; then
        echo "fuzz_$target: $(grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$run/log.txt" | tr '\n' ' ')corpus: $(ls "$run/corpus" | wc -l) inputs"
        continue
    fi
    failed+=("$target")
    echo "fuzz_$target FAILED (exit $status); from $run/log.txt:"
    grep -E 'ERROR: |runtime error|SUMMARY|fuzz invariant|terminate called|what\(\)|#[0-9]+ 0x[0-9a-f]+ in (tb::|\(anonymous)' \
        "$run/log.txt" | head -n 16 | cut -c 1-240
    for artifact in "$run"/crash-* "$run"/leak-* "$run"/timeout-* "$run"/oom-* "$run"/slow-unit-*; do
        [ -e "$artifact" ] && echo "failing input: $artifact (reproduce: $build/fuzz/fuzz_$target $artifact)"
    done
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz/run.sh: ${#failed[@]} harness(es) failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz/run.sh: ${#targets[@]} harness(es) ran ${seconds} s each without a failure"
