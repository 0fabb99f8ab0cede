#!/usr/bin/env bash
# Builds the "fuzz" preset and runs every libFuzzer harness (or the ones named) for SECONDS each
# (default 30) over a copy of its seed corpus in fuzz/corpus/<target>/. Fails when any harness
# crashes, leaks, times out or runs out of memory, and prints the input that did it.
#
#   fuzz/run.sh                      every harness, 30 s each
#   fuzz/run.sh 600 sseparser        one harness for 10 minutes
# Runs land in build-fuzz/fuzz-runs/<target>/: corpus/ (the seeds plus what the run found),
# log.txt, and crash-*/leak-*/timeout-*/oom-* for a failing input.
set -euo pipefail

seconds=${1:-30}
shift || true
case "$seconds" in ''|*[!0-9]*) echo "usage: fuzz/run.sh [SECONDS] [TARGET...]" >&2; exit 2 ;; esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for dir in fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --parallel "$(nproc)"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for target in "${targets[@]}"; do
    binary=build-fuzz/fuzz/fuzz_$target
    if [ ! -x "$binary" ] || [ ! -d "fuzz/corpus/$target" ]; then
        echo "fuzz/run.sh: no harness '$target' (expected $binary and fuzz/corpus/$target/)" >&2
        exit 2
    fi
    run=build-fuzz/fuzz-runs/$target
    rm -rf "$run"
    mkdir -p "$run"
    cp -r "fuzz/corpus/$target" "$run/corpus"
    echo "== fuzz_$target: ${seconds} s over $(ls "$run/corpus" | wc -l) seeds"
    set +e
    "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$run/" "$run/corpus" >"$run/log.txt" 2>&1
    status=$?
    set -e
    if [ "$status" -eq 0 ]; then
        grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$run/log.txt" | tr '\n' ' '
        echo "corpus: $(ls "$run/corpus" | wc -l) inputs"
        continue
    fi
    failed+=("$target")
    echo "fuzz_$target FAILED (exit $status); from $run/log.txt:"
    grep -E 'ERROR: |runtime error|SUMMARY|fuzz invariant|terminate called|what\(\)|#[0-9]+ 0x[0-9a-f]+ in (tb::|\(anonymous)' \
        "$run/log.txt" | head -n 16 | cut -c 1-240
    for artifact in "$run"/crash-* "$run"/leak-* "$run"/timeout-* "$run"/oom-* "$run"/slow-unit-*; do
        [ -e "$artifact" ] && echo "failing input: $artifact (reproduce: $binary $artifact)"
    done
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz/run.sh: ${#failed[@]} harness(es) failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz/run.sh: ${#targets[@]} harness(es) ran ${seconds} s each without a failure"
