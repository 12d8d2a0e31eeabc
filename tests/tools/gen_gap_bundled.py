#!/usr/bin/python3
"""Builds tests/data/analysis/synthetic.bpte (a BundledProgram with a channels-last float
tensor, a transposed int64 tensor, Int/Bool/Double values, two suites and a tiny fake
embedded program) with flatc from JSON, and writes the logical (row-major) values numpy
derives for each tensor to synthetic_bpte_expected.json. tst_bundledprogram compares the
reader's output with that file.

Run: /usr/bin/python3 tests/tools/gen_gap_bundled.py   (needs flatc on PATH)
"""
import json
import os
import subprocess
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
schema = os.path.join(root, "core", "bundled", "bundled_program.fbs")
outdir = os.path.join(root, "tests", "data", "analysis")


def tensor_json(logical, scalar_type, np_dtype, dim_order):
    """Stores `logical` in the memory order given by dim_order (outermost first)."""
    stored = np.ascontiguousarray(np.transpose(np.asarray(logical, dtype=np_dtype), dim_order))
    return {"val_type": "Tensor", "val": {"scalar_type": scalar_type, "sizes": list(np.shape(logical)),
                                          "data": list(stored.tobytes()), "dim_order": dim_order}}


nchw = np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3) * 0.5 - 2.0
longs = np.array([[1, -2, 3], [40, 50, -60]], dtype=np.int64)
case0 = {
    "inputs": [tensor_json(nchw, "FLOAT", np.float32, [0, 2, 3, 1]),
               {"val_type": "Int", "val": {"int_val": -7}},
               {"val_type": "Bool", "val": {"bool_val": True}},
               {"val_type": "Double", "val": {"double_val": 0.125}}],
    "expected_outputs": [tensor_json(longs, "LONG", np.int64, [1, 0]),
                         tensor_json(np.array([1.5, -2.25], dtype=np.float64), "DOUBLE", np.float64, [0])],
}
case1 = {"inputs": [], "expected_outputs": [tensor_json(np.array([[9, 8]], dtype=np.int32), "INT", np.int32, [0, 1])]}
fake_program = list(b"\x10\x00\x00\x00ET12" + bytes(24))
doc = {"version": 2,
       "method_test_suites": [{"method_name": "forward", "test_cases": [case0, case1]},
                              {"method_name": "other", "test_cases": []}],
       "program": fake_program}

with tempfile.TemporaryDirectory() as tmp:
    jpath = os.path.join(tmp, "synthetic.json")
    with open(jpath, "w") as f:
        json.dump(doc, f)
    subprocess.run(["flatc", "-b", "-o", tmp, schema, jpath], check=True)
    with open(os.path.join(tmp, "synthetic.bin"), "rb") as f:
        data = f.read()
with open(os.path.join(outdir, "synthetic.bpte"), "wb") as f:
    f.write(data)

expected = {
    "generator": "tests/tools/gen_gap_bundled.py",
    "version": 2,
    "suites": ["forward", "other"],
    "forward_cases": 2,
    "program_identifier": "ET12",
    "program_size": len(fake_program),
    "case0_input0": {"sizes": [1, 2, 2, 3], "strides": [12, 1, 6, 2],
                     "values": nchw.reshape(-1).astype(float).tolist()},
    "case0_output0": {"sizes": [2, 3], "strides": [1, 2], "values": longs.reshape(-1).astype(float).tolist()},
    "case0_output1": [1.5, -2.25],
    "case1_output0": [9.0, 8.0],
}
with open(os.path.join(outdir, "synthetic_bpte_expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
print("wrote synthetic.bpte", len(data), "bytes")
