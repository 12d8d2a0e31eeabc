#!/bin/bash
# Checks that the built-in evaluator runs big torchvision models end to end and that the graph
# output matches PyTorch 1.13 within 1e-4 relative (to the output's largest magnitude). Not part
# of the default test run: each model is traced and serialized (tens of MB) into BUILD_DIR/bench-data.
#
#   tools/check-eval-models.sh [BUILD_DIR=build] [MODEL...]
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(convnext_tiny swin_t vit_b_16 r3d_18 deeplabv3_mobilenet_v3_large lraspp_mobilenet_v3_large fcn_resnet50 efficientnet_b0 regnet_y_400mf)
data=$build/bench-data
mkdir -p "$data"
status=0
for m in "${models[@]}"; do
    if ! out=$(/usr/bin/python3 "$src/tests/bench/gen_bench_models.py" "$m" "$data" 1 0 2>&1); then
        echo "$m: generator failed: $(echo "$out" | tail -1)"
        status=1
        continue
    fi
    res=$("$build/tests/bench/bench_eval" "$data/${m}_etrecord.bin" 2 1 "$data/${m}_output.pt" "$m" 2>&1)
    rel=$(echo "$res" | awk '/^MAX_REL_DIFF_VS_TORCH/ {print $2}')
    if [ -z "$rel" ]; then
        echo "$m: FAILED: $(echo "$res" | tail -1)"
        status=1
    elif /usr/bin/python3 -c "import sys; sys.exit(0 if 0 <= float('$rel') <= 1e-4 else 1)"; then
        echo "$m: ok, output rel. diff $rel"
    else
        echo "$m: MISMATCH, output rel. diff $rel"
        status=1
    fi
done
exit $status
