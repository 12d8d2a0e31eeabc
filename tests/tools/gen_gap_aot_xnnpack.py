#!/usr/bin/python3
"""AOT outputs file (real torch.save) for the XNNPACK-delegated MLP fixture, so the gap table
and the delegate triage view are tested on real DELEGATE_CALLs. Same file format as
gen_gap_aot.py ({debug handle int or tuple: tensor or list of tensors}).

Handles come from the ETRecord's debug_handle_map (instruction 0 = DELEGATE_CALL with handles
1..5, 1 = native_layer_norm (6), 2 = DELEGATE_CALL (7..10), 3 = argmax (11)). The Inspector
compares a DELEGATE_CALL through the last handle of its tuple, so the AOT dict holds 5, 6, 10
and 11: delegate 0's output x1.02, delegate 2's output with one element +0.05, layer_norm as
the list of its 3 outputs (exact), argmax exact. The runtime value for a delegate (its debug
data is [argument, output], num_outputs 1) is the unique entry with the AOT tensor's shape.
Expected MSE per row by numpy -> tests/data/analysis/xnn_mlp_aot_expected.json.
Run: /usr/bin/python3 tests/tools/gen_gap_aot_xnnpack.py
"""
import json
import os
import subprocess
import tempfile

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
fixture = os.path.normpath(os.path.join(root, "..", "shared", "fixtures", "runtime", "xnnpack_mlp_intermediates"))
outdir = os.path.join(root, "tests", "data", "analysis")

with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(["flatc", "--json", "--raw-binary", "--size-prefixed", "--strict-json", "-o", tmp,
                    os.path.join(root, "core", "etdump", "etdump.fbs"), "--",
                    os.path.join(fixture, "etdump.etdp")], check=True)
    dump = json.load(open(os.path.join(tmp, "etdump.json")))
DT = {"FLOAT": np.float32, "LONG": np.int64}
data = open(os.path.join(fixture, "debug_output.bin"), "rb").read()
values = {}
for e in dump["run_data"][1]["events"]:
    d = e.get("debug_event")
    if not d or "output" in d["debug_entry"] or d.get("chain_index", 0) != 0:
        continue
    t = d["debug_entry"]["tensor"]
    n = int(np.prod(t["sizes"]))
    values.setdefault(d["instruction_id"], []).append(
        np.frombuffer(data, dtype=DT[t["scalar_type"]], count=n, offset=t["offset"]).reshape(t["sizes"]).copy())

d0 = values[0][1] * np.float32(1.02)
d2 = values[2][1].copy()
d2[0, 4] += np.float32(0.05)
aot = {5: torch.from_numpy(d0), (6,): [torch.from_numpy(v) for v in values[1]],
       10: torch.from_numpy(d2), 11: torch.from_numpy(values[3][0])}
torch.save(aot, os.path.join(outdir, "xnn_mlp_aot_outputs.pt"))


def mse(a, b):
    return float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))


rows = [
    {"instruction": 0, "gap_mse": [mse(d0, values[0][1])], "perturbed": True, "backend": "XnnpackBackend"},
    {"instruction": 1, "gap_mse": [mse(a, a) for a in values[1]], "perturbed": False, "backend": ""},
    {"instruction": 2, "gap_mse": [mse(d2, values[2][1])], "perturbed": True, "backend": "XnnpackBackend"},
    {"instruction": 3, "gap_mse": [0.0], "perturbed": False, "backend": ""},
]
json.dump({"generator": "tests/tools/gen_gap_aot_xnnpack.py", "rows": rows},
          open(os.path.join(outdir, "xnn_mlp_aot_expected.json"), "w"), indent=1)
print(rows)
