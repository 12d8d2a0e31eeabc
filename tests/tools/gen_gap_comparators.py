#!/usr/bin/python3
"""Writes tests/data/analysis/comparator_cases.json: comparator inputs and the values numpy
computes for them, following inspector-semantics.md §9 (MSE, L1, SNR in float64 with
nan_to_num only on a side that has a NaN, numpy broadcasting) plus cosine similarity, max
absolute and max relative error as etscope defines them. tst_comparator reads the file; the
C++ code under test is never involved in producing these numbers.

Run: /usr/bin/python3 tests/tools/gen_gap_comparators.py  (from the repository root)
"""
import json
import math
import os

import numpy as np

rng = np.random.default_rng(20261122)


def enc(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def tensor(arr, dtype):
    arr = np.asarray(arr, dtype=dtype)
    return {"dtype": {np.float32: "float32", np.float64: "float64", np.int32: "int32"}[dtype],
            "shape": list(arr.shape), "values": [enc(v) for v in arr.reshape(-1)]}, arr


def prep(arr):
    a = np.asarray(arr, dtype=np.float64)
    if np.isnan(a).any():  # only then: NaN -> 0, +-inf -> +-max double
        a = np.nan_to_num(a)
    return a


def metrics(a_raw, b_raw):
    a, b = prep(a_raw), prep(b_raw)
    ab, bb = np.broadcast_arrays(a, b)
    d = ab - bb
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mse = np.mean(d ** 2) if d.size else float("nan")
        l1 = np.sum(np.abs(d))
        sig = np.mean(a ** 2) if a.size else float("nan")
        snr = 10 * np.log10(sig / mse) if d.size else float("nan")
        den = math.sqrt(np.sum(ab ** 2)) * math.sqrt(np.sum(bb ** 2))
        cos = np.sum(ab * bb) / den if den != 0 else float("nan")
        maxabs = np.max(np.abs(d)) if d.size else float("nan")
        rel = np.where(d == 0, 0.0, np.abs(d) / np.abs(ab))
        maxrel = np.max(rel) if d.size else float("nan")
    return {"MSE": enc(mse), "L1": enc(l1), "SNR": enc(snr), "COSINE": enc(cos),
            "MAXABS": enc(maxabs), "MAXREL": enc(maxrel)}


cases = []


def add(name, a, adt, b, bdt):
    ta, a = tensor(a, adt)
    tb, b = tensor(b, bdt)
    cases.append({"name": name, "a": ta, "b": tb, "expected": metrics(a, b)})


x = rng.standard_normal((3, 4)).astype(np.float32)
add("f32_same_shape", x, np.float32, x + rng.normal(0, 0.01, (3, 4)).astype(np.float32), np.float32)
add("f64_same_shape", rng.standard_normal(7), np.float64, rng.standard_normal(7), np.float64)
add("f32_vs_f64", x, np.float32, x.astype(np.float64) * 1.001, np.float64)
add("broadcast_row", rng.standard_normal((2, 3)), np.float32, rng.standard_normal(3), np.float32)
add("broadcast_outer", rng.standard_normal((4, 1)), np.float64, rng.standard_normal((1, 5)), np.float64)
add("broadcast_leading_one", rng.standard_normal((1, 6)), np.float32, rng.standard_normal(6), np.float32)
add("scalar_vs_tensor", 2.5, np.float64, rng.standard_normal(4), np.float64)
add("zero_d_pair", 3.0, np.float64, 2.0, np.float64)
add("int32_vs_float", [[1, 2], [3, 4]], np.int32, [[1.5, 2.0], [2.5, 4.0]], np.float32)
add("nan_and_inf_in_reference", [1.0, float("nan"), float("inf"), -2.0], np.float32,
    [1.0, 0.5, 3.0, -2.0], np.float32)
add("inf_without_nan_stays_inf", [1.0, 2.0, 3.0], np.float64, [1.0, float("inf"), 3.0], np.float64)
add("nan_in_runtime", [1.0, 2.0, 3.0], np.float64, [1.0, float("nan"), 3.5], np.float64)
add("identical_nonzero", [1.0, -2.0, 3.0], np.float32, [1.0, -2.0, 3.0], np.float32)
add("zero_reference", [0.0, 0.0, 0.0], np.float32, [0.0, 1.0, 0.0], np.float32)
add("both_zero", [0.0, 0.0], np.float32, [0.0, 0.0], np.float32)
big = rng.standard_normal(2000).astype(np.float32)
add("f32_large", big, np.float32, big + rng.normal(0, 1e-3, 2000).astype(np.float32), np.float32)

errors = [
    {"name": "not_broadcastable", "a": tensor(np.zeros((2, 3)), np.float32)[0],
     "b": tensor(np.zeros((4,)), np.float32)[0]},
]

out = {"generator": "tests/tools/gen_gap_comparators.py", "numpy": np.__version__,
       "cases": cases, "errors": errors}
path = os.path.join(os.path.dirname(__file__), "..", "data", "analysis", "comparator_cases.json")
with open(path, "w") as f:
    json.dump(out, f)
print("wrote", os.path.normpath(path), len(cases), "cases")
