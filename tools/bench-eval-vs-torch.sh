#!/bin/bash
# The evaluator's performance target, measured side by side on ResNet-18, MobileNetV2 (torchvision,
# random weights, one 1x3x224x224 input) and a 4-layer Llama-style decoder: etscope's built-in
# evaluator against PyTorch 1.13 (Debian python3-torch), same machine, same thread count, runs
# interleaved so that both see the same load. Two parts, both keeping every node's output:
#   (a) graph run: etscope's evaluateProgram on weights already in memory vs PyTorch running the
#       same traced graph with torch.fx.Interpreter, keeping every node's output;
#   (b) whole job from the ETRecord: read + unpickle weights + run, vs torch.load of the ETRecord's
#       state dict + load into the model + trace + run keeping every output.
# Plain eager PyTorch (nothing kept) is printed for reference. Medians of wall and process CPU
# seconds (CPU is the fairer figure on a loaded machine), peak RSS, and the largest difference of
# the first graph output from PyTorch's.
#
#   tools/bench-eval-vs-torch.sh [BUILD_DIR=build-bench] [RUNS=5] [THREADS=nproc] [MODELS="resnet18 mobilenet_v2 llama4"]
#
# Needs /usr/bin/python3 with torch and torchvision (the benchmark, not the tests). The ETRecords
# (~50-85 MB each) are generated into BUILD_DIR/bench-data/ once, never into the source tree.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-bench}
runs=${2:-5}
threads=${3:-$(nproc)}
models=${4:-resnet18 mobilenet_v2 llama4}
jobs=${JOBS:-2}
# Both sides thread through libgomp (oneDNN here, PyTorch there). Its default busy-wait between
# parallel regions bills spinning as CPU time and, on a shared machine, steals cores from the
# other side; passive waiting measures the work. Override with OMP_WAIT_POLICY=ACTIVE.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}

if [ -z "${SKIP_BUILD:-}" ]; then
    launcher=()
    command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DETSCOPE_BUILD_TESTS=ON -DETSCOPE_BUILD_GUI=OFF \
          -DETSCOPE_SANITIZE=OFF -DETSCOPE_FUZZ=OFF "${launcher[@]}" >/dev/null
    cmake --build "$build" --target bench_eval -j"$jobs" >/dev/null
fi

data=$build/bench-data
mkdir -p "$data"
log=$(mktemp)
trap 'cp "$log" "$data/last-run.log"; rm -f "$log"' EXIT
for m in $models; do
    # First call generates the ETRecord (and warms caches); its timings are discarded.
    /usr/bin/python3 "$src/tests/bench/gen_bench_models.py" "$m" "$data" "$threads" 1 >/dev/null 2>&1
    for ((i = 0; i < runs; i++)); do
        /usr/bin/python3 "$src/tests/bench/gen_bench_models.py" "$m" "$data" "$threads" 1 2>&1 \
            | grep -E '^(BENCH|PEAK|CPU)' | sed "s/^\(PEAK_RSS_MB\|CPU_S\) torch /\1 torch_$m /" >>"$log"
        "$build/tests/bench/bench_eval" "$data/${m}_etrecord.bin" "$threads" 1 "$data/${m}_output.pt" "$m" \
            | sed "s/^\(PEAK_RSS_MB\|CPU_S\) eval /\1 eval_$m /; s/^\(WEIGHTS_MB\|KEPT_ACTIVATIONS_MB\|MAX_[A-Z_]*\) /\1_$m /" >>"$log"
    done
done
/usr/bin/python3 - "$log" "$threads" "$models" <<'PY'
import statistics, sys
lines = open(sys.argv[1]).read().splitlines()
def vals(key, idx=2):
    return [float(l.split()[idx]) for l in lines if l.split()[:2] == key.split()[:2] or l.split()[0] == key]
def med(key, idx):
    v = [float(l.split()[idx]) for l in lines if l.startswith("BENCH " + key + " ")]
    return statistics.median(v), len(v)
print(f"threads {sys.argv[2]}, runs interleaved; medians, wall s / process CPU s")
for m in sys.argv[3].split():
    g, n = med(f"eval_graph_{m}", 2); gc, _ = med(f"eval_graph_{m}", 3)
    j, _ = med(f"eval_job_{m}", 2); jc, _ = med(f"eval_job_{m}", 3)
    k, _ = med(f"torch_keep_{m}", 2); kc, _ = med(f"torch_keep_{m}", 3)
    tj, _ = med(f"torch_job_{m}", 2); tjc, _ = med(f"torch_job_{m}", 3)
    e, _ = med(f"torch_eager_{m}", 2); ec, _ = med(f"torch_eager_{m}", 3)
    rss_e = max(float(l.split()[2]) for l in lines if l.startswith(f"PEAK_RSS_MB eval_{m}"))
    rss_t = max(float(l.split()[2]) for l in lines if l.startswith(f"PEAK_RSS_MB torch_{m}"))
    w = [float(l.split()[1]) for l in lines if l.startswith(f"WEIGHTS_MB_{m} ")][-1]
    kept = [float(l.split()[1]) for l in lines if l.startswith(f"KEPT_ACTIVATIONS_MB_{m} ")][-1]
    rel = max(float(l.split()[1]) for l in lines if l.startswith(f"MAX_REL_DIFF_VS_TORCH_{m} "))
    print(f"\n{m} ({n} runs): weights {w:.1f} MB, kept activations {kept:.1f} MB, output rel. diff vs torch {rel:.2g}")
    print(f"  (a) graph run, all kept   etscope {g:8.4f} / {gc:8.4f}   torch fx {k:8.4f} / {kc:8.4f}   ratio {g / k:5.2f} / {gc / kc:5.2f}")
    print(f"  (b) whole job from file   etscope {j:8.4f} / {jc:8.4f}   torch    {tj:8.4f} / {tjc:8.4f}   ratio {j / tj:5.2f} / {jc / tjc:5.2f}")
    print(f"  torch eager, nothing kept {e:8.4f} / {ec:8.4f}")
    print(f"  peak RSS                  etscope {rss_e:.1f} MB   torch {rss_t:.1f} MB   ratio {rss_e / rss_t:.2f}")
PY
