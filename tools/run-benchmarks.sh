#!/bin/bash
# Builds a Release tree and runs every benchmark, printing one table:
# name, median of N runs (seconds), peak RSS (MB).
#
#   tools/run-benchmarks.sh [BUILD_DIR=build-bench] [RUNS=5]
#
# BENCH_FILTER=REGEX runs only the benchmarks whose name matches (grep -E).
# The 1M-event ETDump (1,000 runs x 440 instructions) is generated once into
# BUILD_DIR/bench-data/ (never into the source tree). Env: JOBS (default 2), BENCH_GUI=ON to
# also build the GUI (needed only by GUI-side benchmarks).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-bench}
runs=${2:-5}
jobs=${JOBS:-2}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
gui=${BENCH_GUI:-OFF}
# Without the GUI the tests CMake leaves out the GUI-side test areas by itself.
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DETSCOPE_BUILD_TESTS=ON -DETSCOPE_BUILD_GUI="$gui" \
      -DETSCOPE_SANITIZE=OFF -DETSCOPE_FUZZ=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" --target bench -j"$jobs" >/dev/null

data=$build/bench-data
mkdir -p "$data"
etdump=$data/etdump_1000x440.etdp
gen=$build/tests/bench/gen_bench_etdump
if [ ! -s "$etdump" ] || [ "$gen" -nt "$etdump" ]; then
    "$gen" "$etdump" 1000 440 >&2
fi

# measure NAME RUNS CMD...: runs CMD RUNS times. Prints "name|median s|median CPU s|peak RSS MB" rows:
# one per BENCH <name> reported by the program (in-process timings), else one for wall time.
# Peak RSS is the largest ru_maxrss of the runs, from wait4() on each child.
measure() {
    python3 - "$@" <<'PY'
import os, statistics, subprocess, sys, tempfile, time
name, runs, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
walls, cpus, reported, rss = [], [], {}, 0
for _ in range(runs):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - t0)
        p.returncode = os.waitstatus_to_exitcode(status)
        rss = max(rss, usage.ru_maxrss)  # KiB on Linux
        cpus.append(usage.ru_utime + usage.ru_stime)
        out.seek(0); err.seek(0)
        if p.returncode != 0:
            sys.stderr.write(f"{name}: {' '.join(cmd)} failed ({p.returncode})\n"
                             + err.read().decode(errors="replace"))
            sys.exit(1)
        for line in out.read().decode(errors="replace").splitlines():
            f = line.split()
            if len(f) == 3 and f[0] == "BENCH":
                reported.setdefault(f[1], []).append(float(f[2]))
rows = [(f"{name}: {k}", statistics.median(v)) for k, v in reported.items()] or [(name, statistics.median(walls))]
for label, med in rows:
    print(f"{label}|{med:.3f}|{statistics.median(cpus):.3f}|{rss / 1024:.0f}")
PY
}

rows=()
add() {
    if [ -n "${BENCH_FILTER:-}" ] && ! grep -qiE -- "$BENCH_FILTER" <<<"$1"; then return; fi
    local out; out=$(measure "$@") || { echo "benchmark $1 failed" >&2; status=1; return; }; while IFS= read -r l; do rows+=("$l"); done <<<"$out"; }
status=0
cli=$build/app/cli/etscope-cli
add "etscope-cli table --etdump (1M events, process)" "$runs" "$cli" table --etdump "$etdump"
add "readETDump+buildEventBlocks (1M events)" "$runs" "$build/tests/bench/bench_etdump" "$etdump" 1
add "etscope-cli trace (1M events, process)" "$runs" "$cli" trace --etdump "$etdump" -o "$data/trace.json"
# Many recordings: 1,000 copies of a real 50-run fixture, made here (never committed).
fixtures=$src/../shared/fixtures
[ -d "$fixtures" ] || fixtures=$src/tests/data/shared/fixtures
farm=$data/farm
if [ ! -s "$farm/device0999/etdump.etdp" ]; then
    for i in $(seq -w 0 999); do
        mkdir -p "$farm/device$i"
        cp "$fixtures/runtime/cnn_mlp_50runs/etdump.etdp" "$farm/device$i/etdump.etdp"
    done
fi
add "etscope-cli tsv over 1,000 ETDumps x 50 runs (process)" "$runs" "$cli" tsv "$farm" -o "$data/farm.tsv"
add "etscope-cli tsv --format jsonl over 1,000 ETDumps (process)" "$runs" "$cli" tsv "$farm" --format jsonl -o "$data/farm.jsonl"
# History (issue 38): change points over the same 1,000 recordings, and over 10,000 (hard links
# to the 1,000, so the page cache holds one file per device: the cost measured is parsing and
# testing, memory must stay flat in the count). Then `determinism` on 100 runs x 1M elements.
add "etscope-cli history over 1,000 ETDumps x 50 runs (process)" "$runs" "$cli" history "$farm" -o /dev/null
farm10k=$data/farm10k
if [ ! -e "$farm10k/d9/device0999.etdp" ]; then
    for k in $(seq 0 9); do
        mkdir -p "$farm10k/d$k"
        for i in $(seq -w 0 999); do ln -f "$farm/device$i/etdump.etdp" "$farm10k/d$k/device$i.etdp"; done
    done
fi
add "etscope-cli history over 10,000 ETDumps x 50 runs (process)" "$runs" "$cli" history "$farm10k" -o /dev/null
if [ ! -s "$data/determinism_bench.bin" ]; then
    /usr/bin/python3 "$src/tests/bench/gen_determinism_bench.py" "$data" 100 1048576 >&2
fi
add "etscope-cli determinism, 100 runs x 1M elements (process)" "$runs" "$cli" determinism \
    --etdump "$data/determinism_bench.etdp" --debug-buffer "$data/determinism_bench.bin" -o /dev/null
# Profiles whose events do not merge: one run of N/2 instructions gives N distinct events (the
# shape of a large unrolled graph). 562k is the size the scale issue was measured on.
distinct=$data/distinct_562k.etdp
[ -s "$distinct" ] && [ "$distinct" -nt "$gen" ] || "$gen" "$distinct" 1 281250 >&2
add "etscope-cli tsv, 562k distinct events (process)" "$runs" "$cli" tsv --etdump "$distinct" -o "$data/distinct.tsv"
add "etscope-cli table, 562k distinct events (process)" "$runs" "$cli" table --etdump "$distinct" -o "$data/distinct.txt"
add "etscope-cli tsv, 881k events merged into 441 rows (process)" "$runs" "$cli" tsv --etdump "$etdump" -o "$data/merged.tsv"
# A scope on an LLM-shaped profile (issue 35): 17,600 runs x 28 instructions in one block; the
# decode scope (--prefill-runs 1: the generator writes no prompt) recomputes every row's statistics
# over 17,599 runs. Target: tsv --phase decode <= 1.2x plain tsv (docs/performance.md).
llm=$data/llm_17600x28.etdp
[ -s "$llm" ] && [ "$llm" -nt "$gen" ] || "$gen" "$llm" 17600 28 >&2
add "etscope-cli tsv, 17,600 runs (process)" "$runs" "$cli" tsv --etdump "$llm" -o "$data/llm.tsv"
add "etscope-cli tsv --phase decode, 17,600 runs (process)" "$runs" "$cli" tsv --etdump "$llm" --prefill-runs 1 \
    --phase decode -o "$data/llm_decode.tsv"
# The Python package on the same two files: Inspector(...) + to_dataframe() in process.
if [ -d "$build/app/python/etscope" ]; then
    py=(env PYTHONPATH="$build/app/python" PYTHONWARNINGS=ignore /usr/bin/python3 "$src/tests/bench/bench_python.py")
    add "python Inspector+to_dataframe, 881k events merged" "$runs" "${py[@]}" "$etdump" 3
    add "python Inspector+to_dataframe, 562k distinct events" "$runs" "${py[@]}" "$distinct" 3
fi
# Sweep: the cost per event and the core model's bytes per event should stay flat with size.
sweep=()
if [ -z "${BENCH_FILTER:-}" ] || grep -qiE -- "$BENCH_FILTER" <<<"sweep"; then
for n in 25000 100000 250000 1000000; do
    f=$data/distinct_$n.etdp
    [ -s "$f" ] && [ "$f" -nt "$gen" ] || "$gen" "$f" 1 $((n / 2)) >/dev/null
    line=$("$build/tests/bench/bench_etdump" "$f" 3 | grep '^per event:')
    sweep+=("$(printf '%8d distinct events: %s' "$n" "${line#per event: }")")
done
fi

# The app's model on the distinct-event file: load, tree, proxy, sort by five columns, filter
# (built with the GUI: BENCH_GUI=ON).
tree_exe=$(find "$build" -type f -name bench_treemodel -perm -u+x -print -quit 2>/dev/null)
if [ -n "$tree_exe" ]; then
    add "bench_treemodel, 562k distinct events (GUI model)" "$runs" "$tree_exe" "$distinct"
elif [ -z "${BENCH_FILTER:-}" ]; then
    rows+=("bench_treemodel|not built (BENCH_GUI=ON)|-|-")
fi

# A scope change in the window on the 17,600-run language-model profile (issue 35: every open
# view re-derived in <= 0.3 s): half the runs, then the whole recording again (GUI build).
scope_exe=$(find "$build" -type f -name bench_scope -perm -u+x -print -quit 2>/dev/null)
if [ -n "$scope_exe" ]; then
    llm=$data/llm_17600.etdp
    [ -s "$llm" ] && [ "$llm" -nt "$gen" ] || "$gen" "$llm" 17600 28 >&2
    add "scope change, 17,600 runs (window, every view)" "$runs" env QT_QPA_PLATFORM=offscreen "$scope_exe" "$llm" 3
elif [ -z "${BENCH_FILTER:-}" ]; then
    rows+=("bench_scope|not built (BENCH_GUI=ON)|-|-")
fi

# The window itself: start, open the 562k distinct events, lay out and paint every dock, grab
# the window to PNG, quit (issue 23's "usable within 0.6 s, under 250 MB").
app_exe=$build/app/etscope
if [ -x "$app_exe" ]; then
    add "etscope window, 562k distinct events: start to painted (process)" "$runs" \
        env QT_QPA_PLATFORM=offscreen "$app_exe" --screenshot "$data/window.png" "$distinct"
elif [ -z "${BENCH_FILTER:-}" ]; then
    rows+=("etscope window|not built (BENCH_GUI=ON)|-|-")
fi

# Benchmarks of other areas, when built. Each runs with its own defaults.
for b in bench_etrecord bench_gap bench_program; do
    exe=$(find "$build" -type f -name "$b" -perm -u+x -print -quit 2>/dev/null)
    if [ -n "$exe" ]; then
        add "$b" "$runs" "$exe"
    elif [ -z "${BENCH_FILTER:-}" ]; then
        rows+=("$b|not built|-|-")
    fi
done

# Delegate payloads: `program` and `size` on a ~3 MB XNNPACK program and on a program whose
# one XNNPACK payload has 100,000 nodes (written by tests/tools/gen_delegate_payloads.py with
# flatc; target: <= 0.2 s whole process, docs/performance.md).
cli_exe=$build/app/cli/etscope-cli
if [ -x "$cli_exe" ]; then
    if [ ! -s "$data/bench_xnnpack_100k_nodes.pte" ]; then
        python3 "$src/tests/tools/gen_delegate_payloads.py" --bench "$data" >&2
    fi
    for f in bench_xnnpack_3mb bench_xnnpack_100k_nodes; do
        add "etscope-cli program $f.pte" "$runs" "$cli_exe" program "$data/$f.pte" --json /dev/null
        add "etscope-cli size $f.pte" "$runs" "$cli_exe" size "$data/$f.pte" --json /dev/null
    done
elif [ -z "${BENCH_FILTER:-}" ]; then
    rows+=("etscope-cli program/size on delegate payloads|etscope-cli not built|-|-")
fi

# Graph view: a ~5,000-node 24-layer transformer ETRecord, generated once with Debian's
# python3-torch (skipped when torch is not installed).
graph_exe=$(find "$build" -type f -name bench_graph -perm -u+x -print -quit 2>/dev/null)
graph_rec=$data/transformer24_etrecord.bin
if [ -n "$graph_exe" ]; then
    if [ ! -s "$graph_rec" ]; then
        /usr/bin/python3 "$src/tests/tools/gen_bench_graph.py" "$graph_rec" >&2 || rm -f "$graph_rec"
    fi
    if [ -s "$graph_rec" ]; then
        add "bench_graph" "$runs" "$graph_exe" "$graph_rec" 1
        view_exe=$(find "$build" -type f -name bench_graphview -perm -u+x -print -quit 2>/dev/null)
        [ -z "$view_exe" ] || add "bench_graphview (GUI)" "$runs" "$view_exe" "$graph_rec"
    elif [ -z "${BENCH_FILTER:-}" ]; then
        rows+=("bench_graph|no torch to generate the ETRecord|-|-")
    fi
fi

size=$(stat -c %s "$etdump")
echo
echo "etscope benchmarks: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -m), Release, $runs runs each"
echo "input: $etdump ($((size / 1000000)) MB)"
echo "median [s]: of the program's BENCH timings, else wall clock; process CPU [s]: median user+sys of the whole process"
printf '%-66s %11s %16s %14s\n' "benchmark" "median [s]" "process CPU [s]" "peak RSS [MB]"
printf '%-66s %11s %16s %14s\n' "$(printf -- '-%.0s' {1..66})" "-----------" "----------------" "--------------"
for r in "${rows[@]}"; do
    IFS='|' read -r n m c p <<<"$r"
    printf '%-66s %11s %16s %14s\n' "$n" "$m" "$c" "$p"
done
if [ ${#sweep[@]} -gt 0 ]; then
    echo
    echo "readETDump + buildEventBlocks per event (in-process, median of 3; the bench re-executes itself with the CLI's heap settings):"
    printf '%s\n' "${sweep[@]}"
fi
exit $status
