#!/usr/bin/python3
"""Two synthetic runs of the same 8-instruction program for tst_gapsynthetic: the reference run
and a runtime run with known perturbations at instructions 2 and 5 only. The test writes both
with the test ETDump writer (tests/common/etdumpwriter.h) from the stored values below; numpy
computes the expected gaps (inspector-semantics.md §9, float64) from the logical tensors.

Per tensor: dtype, sizes, element strides (empty = contiguous) and `stored`, the raw storage in
memory order; logical values = as_strided(stored, sizes, strides). Instruction 3 logs a
TensorList (two tensors → two gaps), instruction 4 a transposed (strided) tensor, instruction 6
float64, instruction 7 int64.
Writes tests/data/analysis/synthetic_runs.json.  Run: /usr/bin/python3 tests/tools/gen_gap_synthetic.py
"""
import json
import os

import numpy as np

rng = np.random.default_rng(77)
NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64}


def logical(t):
    arr = np.asarray(t["stored"], dtype=NP[t["dtype"]])
    if not t["strides"]:
        return arr.reshape(t["sizes"])
    item = arr.itemsize
    return np.lib.stride_tricks.as_strided(arr, shape=t["sizes"], strides=[s * item for s in t["strides"]])


def tensor(dtype, sizes, stored, strides=()):
    return {"dtype": dtype, "sizes": list(sizes), "strides": list(strides),
            "stored": [float(x) if dtype != "int64" else int(x) for x in np.asarray(stored).reshape(-1)]}


ref = []
ref.append({"op": "conv.out", "tensors": [tensor("float32", [1, 4, 3, 3], rng.standard_normal(36).astype(np.float32))]})
ref.append({"op": "relu.out", "tensors": [tensor("float32", [1, 36],
           np.maximum(rng.standard_normal(36), 0).astype(np.float32))]})
ref.append({"op": "addmm.out", "tensors": [tensor("float32", [2, 8], rng.standard_normal(16).astype(np.float32))]})
ref.append({"op": "split.out", "list": True,
            "tensors": [tensor("float32", [3], rng.standard_normal(3).astype(np.float32)),
                        tensor("float32", [5], rng.standard_normal(5).astype(np.float32))]})
ref.append({"op": "transpose_copy.out", "tensors": [tensor(
    "float32", [2, 3], rng.standard_normal(6).astype(np.float32), (1, 2))]})
ref.append({"op": "gelu.out", "tensors": [tensor("float32", [4, 4], rng.standard_normal(16).astype(np.float32))]})
ref.append({"op": "mean.out", "tensors": [tensor("float64", [4], rng.standard_normal(4))]})
ref.append({"op": "argmax.out", "tensors": [tensor("int64", [2], [3, 1])]})

run = json.loads(json.dumps(ref))
# instruction 2: small noise on every element; instruction 5: a single large spike.
noise = rng.normal(0, 0.01, 16).astype(np.float32)
run[2]["tensors"][0]["stored"] = [float(np.float32(a) + n) for a, n in zip(ref[2]["tensors"][0]["stored"], noise)]
run[5]["tensors"][0]["stored"][9] = float(np.float32(run[5]["tensors"][0]["stored"][9]) + np.float32(3.0))
PERTURBED = [2, 5]

rows = []
for i, (r, o) in enumerate(zip(ref, run)):
    gaps = {"MSE": [], "L1": [], "SNR": [], "MAXABS": [], "COSINE": []}
    for tr, to in zip(r["tensors"], o["tensors"]):
        a = logical(tr).astype(np.float64)
        b = logical(to).astype(np.float64)
        d = a - b
        mse = float(np.mean(d ** 2))
        gaps["MSE"].append(mse)
        gaps["L1"].append(float(np.sum(np.abs(d))))
        gaps["SNR"].append(float(10 * np.log10(np.mean(a ** 2) / mse)) if mse else "inf")
        gaps["MAXABS"].append(float(np.max(np.abs(d))))
        gaps["COSINE"].append(float(np.sum(a * b) / (np.sqrt(np.sum(a ** 2)) * np.sqrt(np.sum(b ** 2)))))
    rows.append({"instruction": i, "perturbed": i in PERTURBED, "gaps": gaps})

out = {"generator": "tests/tools/gen_gap_synthetic.py", "reference": ref, "runtime": run, "expected": rows}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "analysis", "synthetic_runs.json")
json.dump(out, open(path, "w"), indent=1)
print([(r["instruction"], r["gaps"]["MSE"]) for r in rows if r["perturbed"]])
