#!/bin/sh
# Regenerates tests/data/core/expected/* from the real fixtures with the independent Python
# reference (tests/tools/inspector_reference.py). Run from the repository root.
set -eu
SHARED=${ETSCOPE_SHARED_DIR:-../shared}
OUT=tests/data/core/expected
SCHEMA=core/etdump/etdump.fbs
gen() { python3 tests/tools/inspector_reference.py "$SCHEMA" "$SHARED/fixtures/$1" "$OUT/$2" ${3:-} ${4:-}; }
gen upstream/docs_tutorial.etdp docs_tutorial
gen upstream/docs_tutorial.etdp docs_tutorial_us ns us
gen runtime/add_pte_50runs/etdump.etdp add_pte_50runs
gen runtime/add_pte_intermediates/etdump.etdp add_pte_intermediates
gen runtime/bundled_program_50runs/etdump.etdp bundled_program_50runs
gen runtime/bundled_program_intermediates/etdump.etdp bundled_program_intermediates
gen runtime/bundled_program_outputs_only/etdump.etdp bundled_program_outputs_only
gen runtime/cnn_mlp_50runs/etdump.etdp cnn_mlp_50runs
gen runtime/cnn_mlp_50runs/etdump.etdp cnn_mlp_50runs_s ns s
gen runtime/cnn_mlp_intermediates/etdump.etdp cnn_mlp_intermediates
gen runtime/xnnpack_mlp_intermediates/etdump.etdp xnnpack_mlp_intermediates
