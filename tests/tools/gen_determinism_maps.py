#!/usr/bin/python3
"""Truth of the Determinism panel's heatmap and per-run strip (analysis/determinism.h:
varyingMap, determinismMap, TensorDeterminism::runMaxAbs), computed with NumPy, independently of
etscope: each recording is decoded by flatc --json (core/etdump/etdump.fbs, through
runtime_fixture_lib), every Execute run's logged tensors are read from the debug buffer at their
offsets, and per tensor position:

  reference_run   first run holding the most common result (bytes)
  run_max_abs     per run, max |run - reference| in float64 (0 for runs equal to the reference)
  maps            for each asked max_side: the grid over the tensor's last two dimensions
                  (leading dimensions folded), pooled into cells of ceil(rows / max_side) x
                  ceil(cols / max_side) elements; a cell's count is the number of runs in which
                  some element of the cell differs from the reference. Rows are written as
                  strings of digits (every count here is below 10).

Recordings: tests/data/runtime/determinism_corrupt (the real runtime, aten::mm.out perturbed on
rows 0..31 x cols 32..63 on Execute runs 3, 7, 19) and determinism_repeat (bit-exact), and the
written tests/data/determinism/tile (permute_copy [256, 64] perturbed on runs 1 and 4).

Run: /usr/bin/python3 tests/tools/gen_determinism_maps.py   (needs flatc and numpy)
Writes tests/data/determinism/determinism_maps_expected.json.
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtime_fixture_lib as lib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "determinism", "determinism_maps_expected.json")

# (case, etdump, debug buffer, {position: [max_side, ...]})
CASES = [
    ("determinism_corrupt", "tests/data/runtime/determinism_corrupt/etdump.etdp",
     "tests/data/runtime/determinism_corrupt/debug_output.bin", {2: [512, 16], 4: [512], 6: [512]}),
    ("determinism_repeat", "tests/data/runtime/determinism_repeat/etdump.etdp",
     "tests/data/runtime/determinism_repeat/debug_output.bin", {2: [512]}),
    ("tile", "tests/data/determinism/tile.etdp", "tests/data/determinism/tile.bin", {13: [512, 16], 22: [512]}),
]


def grid(values, ref_run, max_side):
    ref = values[ref_run]
    shape = ref.shape
    cols = shape[-1] if len(shape) >= 1 else 1
    rows = shape[-2] if len(shape) >= 2 else 1
    cell_r, cell_c = max(1, math.ceil(rows / max_side)), max(1, math.ceil(cols / max_side))
    g_r, g_c = math.ceil(rows / cell_r), math.ceil(cols / cell_c)
    counts = np.zeros((g_r, g_c), dtype=np.int64)
    ref_bytes = ref.reshape(-1, rows, cols).view(np.uint8).reshape(-1, rows, cols, ref.itemsize)
    for r, v in enumerate(values):
        vb = v.reshape(-1, rows, cols).view(np.uint8).reshape(-1, rows, cols, v.itemsize)
        differs = (vb != ref_bytes).any(axis=3).any(axis=0)  # rows x cols, leading dims folded
        padded = np.zeros((g_r * cell_r, g_c * cell_c), dtype=bool)
        padded[:rows, :cols] = differs
        cells = padded.reshape(g_r, cell_r, g_c, cell_c).any(axis=(1, 3))
        counts += cells
    return {"max_side": max_side, "rows": rows, "cols": cols, "cell_rows": cell_r, "cell_cols": cell_c,
            "grid_rows": g_r, "grid_cols": g_c, "max_count": int(counts.max()),
            "counts": ["".join(str(int(c)) for c in row) for row in counts]}


def case(etdump, buffer, positions):
    doc = lib.decode_etdump(lib.etdump_schema(None), os.path.join(ROOT, etdump))
    with open(os.path.join(ROOT, buffer), "rb") as f:
        buf = f.read()
    per_run = [lib.debug_tensors(b, buf) for b in lib.execute_blocks(doc)]
    out = {"runs": len(per_run), "tensors": {}}
    for k in range(len(per_run[0])):
        values = [run[k][1] for run in per_run]
        keys = [v.tobytes() for v in values]
        distinct = list(dict.fromkeys(keys))
        modal = max(distinct, key=lambda b: (keys.count(b), -keys.index(b)))
        ref_run = keys.index(modal)
        ref = values[ref_run].astype(np.float64)
        t = {"reference_run": ref_run,
             "run_max_abs": [float(np.max(np.abs(v.astype(np.float64) - ref))) if v.size else 0.0 for v in values]}
        if k in positions:
            t["maps"] = [grid(values, ref_run, s) for s in positions[k]]
        out["tensors"][str(k)] = t
    return out


def main():
    doc = {"derived_by": "tests/tools/gen_determinism_maps.py (flatc --json + NumPy over the debug buffers)"}
    for name, etdump, buffer, positions in CASES:
        doc[name] = case(etdump, buffer, positions)
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{OUT}: {', '.join(n for n, *_ in CASES)}")


if __name__ == "__main__":
    main()
