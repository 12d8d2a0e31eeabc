#!/usr/bin/python3
"""Benchmark input for `etscope-cli determinism` (never committed): an ETDump of RUNS Execute
runs, each logging one float32 tensor of ELEMENTS elements ([ELEMENTS/1024, 1024]) into one
debug buffer; runs 3, 7 and 19 carry a corrupted 32x64 tile (so the comparison does its
element-wise work on three runs, and a bitwise pass on all).

    gen_determinism_bench.py OUT_DIR [RUNS=100] [ELEMENTS=1048576]   (needs flatc and numpy)
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
schema = os.path.join(here, "..", "..", "core", "etdump", "etdump.fbs")
out = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 100
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 20
cols = 1024
rows = n // cols
os.makedirs(out, exist_ok=True)
base = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float32)
run_data = [{"name": "Default", "events": []}]
with open(os.path.join(out, "determinism_bench.bin"), "wb") as f:
    offset = 0
    for r in range(runs):
        v = base.copy()
        if r in (3, 7, 19):
            v[64:96, 128:192] += np.float32(1e-3)
        f.write(v.tobytes())
        run_data.append({"name": "Execute", "events": [
            {"profile_event": {"name": "Method::execute", "chain_index": -1, "instruction_id": 0,
                               "start_time": 1000 * r, "end_time": 1000 * r + 900}},
            {"debug_event": {"instruction_id": 0, "debug_entry": {"val": "Tensor", "tensor": {
                "scalar_type": "FLOAT", "sizes": [rows, cols], "strides": [cols, 1], "offset": offset}}}}]})
        offset += v.nbytes
with tempfile.TemporaryDirectory() as tmp:
    js = os.path.join(tmp, "determinism_bench.json")
    with open(js, "w") as f:
        json.dump({"run_data": run_data}, f)
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", out, schema, js], check=True)
