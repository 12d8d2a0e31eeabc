#!/bin/bash
# Runs every libFuzzer target for SECONDS each (default 300) and prints executions per target.
#
#   tools/run-fuzz.sh [SECONDS] [BUILD_DIR=build-fuzz] [TARGET...]
#
# Configures BUILD_DIR with clang and ETSCOPE_FUZZ=ON if it is not configured yet, builds the
# targets, then fuzzes each with the options and corpora its ctest uses (from
# BUILD_DIR/tests/fuzz/<target>.args). New inputs go to BUILD_DIR/tests/fuzz/corpus/<target>,
# crashes to BUILD_DIR/tests/fuzz/artifacts/<target>/. Exits non-zero if any target crashed;
# then add the crashing input under tests/fuzz/regressions/<target>/.
# Env: JOBS (build parallelism, default 2), FUZZ_JOBS (parallel fuzzing workers per target, default 1),
# ETSCOPE_FUZZ_SKIP_KNOWN=1 (relax the checks for open, recorded findings; see tests/fuzz/fuzzinput.h).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
build=${2:-$src/build-fuzz}
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")

if [ ! -f "$build/CMakeCache.txt" ]; then
    launcher=()
    command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    CC=clang CXX=clang++ cmake -S "$src" -B "$build" -DETSCOPE_FUZZ=ON -DETSCOPE_BUILD_GUI=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}"
fi
grep -q '^ETSCOPE_FUZZ:BOOL=ON' "$build/CMakeCache.txt" || { echo "$build: not configured with ETSCOPE_FUZZ=ON" >&2; exit 2; }
cmake --build "$build" --target fuzz_all -j"${JOBS:-2}"

if [ ${#targets[@]} -eq 0 ]; then
    for a in "$build"/tests/fuzz/fuzz_*.args; do targets+=("$(basename "$a" .args)"); done
fi

logdir=$build/tests/fuzz/logs
mkdir -p "$logdir"
status=0
results=()
for t in "${targets[@]}"; do
    exe=$build/tests/fuzz/$t
    argsfile=$build/tests/fuzz/$t.args
    [ -x "$exe" ] && [ -f "$argsfile" ] || { echo "no fuzz target $t in $build" >&2; status=1; continue; }
    IFS=";" read -r -a args < "$argsfile" || true  # the file has no trailing newline
    log=$logdir/$t.log
    echo "== $t: ${seconds}s (log: $log)"
    rc=0
    if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
        (cd "$logdir" && "$exe" -max_total_time="$seconds" -jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS" "${args[@]}") >"$log" 2>&1 || rc=$?
        cat "$logdir"/fuzz-*.log >>"$log" 2>/dev/null || true
        rm -f "$logdir"/fuzz-*.log
    else
        "$exe" -max_total_time="$seconds" "${args[@]}" >"$log" 2>&1 || rc=$?
    fi
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | awk '{print $2}')
    if [ $rc -ne 0 ] || grep -q -E '^==[0-9]+==ERROR|runtime error:|deadly signal|SUMMARY: libFuzzer' "$log"; then
        status=1
        results+=("$t|$execs|${cov:-?}|CRASH (see $log)")
    else
        results+=("$t|$execs|${cov:-?}|ok")
    fi
done

echo
printf '%-32s %14s %8s  %s\n' target executions cov result
for r in "${results[@]}"; do
    IFS='|' read -r t e c s <<<"$r"
    printf '%-32s %14s %8s  %s\n' "$t" "$e" "$c" "$s"
done
exit $status
