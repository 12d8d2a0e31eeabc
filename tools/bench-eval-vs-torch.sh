#!/bin/bash
# The evaluator's performance target, measured side by side: torchvision ResNet-18 (random
# weights, one 1x3x224x224 input, every intermediate kept by etscope) evaluated by etscope's
# built-in evaluator and by PyTorch eager (Debian python3-torch), same machine, same thread
# count, runs interleaved so that both see the same load. Prints median wall and CPU seconds
# and peak RSS of each side, and the largest logit difference.
#
#   tools/bench-eval-vs-torch.sh [BUILD_DIR=build-bench] [RUNS=5] [THREADS=nproc]
#
# Needs /usr/bin/python3 with torch and torchvision (the benchmark, not the tests). The ResNet
# ETRecord (~47 MB) is generated into BUILD_DIR/bench-data/ once, never into the source tree.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-bench}
runs=${2:-5}
threads=${3:-$(nproc)}
jobs=${JOBS:-2}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DETSCOPE_BUILD_TESTS=ON -DETSCOPE_BUILD_GUI=OFF \
      -DETSCOPE_SANITIZE=OFF -DETSCOPE_FUZZ=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" --target bench_eval -j"$jobs" >/dev/null

data=$build/bench-data
mkdir -p "$data"
# First call generates the ETRecord (and warms caches); its timings are discarded.
/usr/bin/python3 "$src/tests/bench/gen_bench_resnet.py" "$data" "$threads" 1 >/dev/null 2>&1

log=$(mktemp)
trap 'rm -f "$log"' EXIT
for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "CPU torch %U %S" /usr/bin/python3 "$src/tests/bench/gen_bench_resnet.py" "$data" "$threads" 1 \
        2>>"$log" | grep -E '^(BENCH|PEAK)' >>"$log"
    /usr/bin/time -f "CPU eval %U %S" "$build/tests/bench/bench_eval" "$data/resnet18_etrecord.bin" "$threads" 1 \
        "$data/resnet18_logits.pt" 2>>"$log" >>"$log"
done
python3 - "$log" "$threads" <<'PY'
import statistics, sys
lines = open(sys.argv[1]).read().splitlines()
def vals(prefix, idx=2, cast=float):
    return [cast(l.split()[idx]) for l in lines if l.startswith(prefix)]
t_eval = statistics.median(vals("BENCH eval_resnet18"))
t_torch = statistics.median(vals("BENCH torch_eager_resnet18"))
rss_eval = max(vals("PEAK_RSS_MB eval"))
rss_torch = max(vals("PEAK_RSS_MB torch"))
w = vals("WEIGHTS_MB", 1)[-1]
k = vals("KEPT_ACTIVATIONS_MB", 1)[-1]
diff = max(vals("MAX_ABS_DIFF_VS_TORCH", 1))
print(f"threads {sys.argv[2]}, {len(vals('BENCH eval_resnet18'))} interleaved runs each")
print(f"{'':28}{'median wall s':>14}{'peak RSS MB':>13}")
print(f"{'etscope evaluator':28}{t_eval:14.3f}{rss_eval:13.1f}")
print(f"{'PyTorch eager (no_grad)':28}{t_torch:14.3f}{rss_torch:13.1f}")
print(f"time ratio etscope/torch: {t_eval / t_torch:.2f}")
print(f"weights {w:.1f} MB + kept activations {k:.1f} MB = {w + k:.1f} MB; etscope peak RSS / that = {rss_eval / (w + k):.2f}")
print(f"largest |logit difference| vs PyTorch: {diff:g}")
PY
