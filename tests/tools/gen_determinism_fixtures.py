#!/usr/bin/python3
"""Writes tests/data/determinism/: recordings whose debug buffer holds the same tensors over
several runs, and the truth of `etscope-cli determinism` on them, computed with numpy.

These recordings are WRITTEN, not recorded (the recorded ones are tests/data/runtime/
determinism_repeat and determinism_corrupt, 20 real runs with a stand-in kernel; these add a
tensor off by one ULP and one recording split in two): each is the real recording shared/fixtures/runtime/
cnn_mlp_intermediates (one Execute run, 33 logged tensors, portable kernels), decoded with
`flatc --json --raw-binary --size-prefixed core/etdump/etdump.fbs`, its Execute run repeated
with every tensor copied to its own place in a new debug buffer (64-byte aligned, as
ETDumpGen's buffer data sink lays them out):

- repeat.etdp/.bin: 3 runs, every tensor bit-identical (what portable kernels do);
- tile.etdp/.bin: 6 runs; a stand-in for a GPU kernel that corrupts a tile: on runs 1 and 4,
  the permute_copy output [256, 64] (tensor 13, instruction 12) gets +0.25 added in rows 32-63,
  all 64 columns (a 32x64 tile); on run 4 the tanh output [1, 32] (tensor 22, instruction 19)
  has its elements 4 and 5 moved by one unit in the last place (float32);
- tile_a / tile_b: the same 6 runs split in two recordings (runs 0-2, runs 3-5).

determinism_expected.json: per case, per logged tensor in program order, with numpy: the
number of distinct results (bytes), the majority result's first run, the runs that differ, the
largest and mean absolute difference, the largest relative difference, the largest distance in
float32 ULPs (ordered-int view of the bits), and the bounding tile over the last two
dimensions of the elements that differ.

Run: /usr/bin/python3 tests/tools/gen_determinism_fixtures.py   (needs flatc and numpy)
"""
import copy
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etdump_json import decode, encode, fixture  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
OUT = os.path.join(root, "tests", "data", "determinism")
DTYPES = {"FLOAT": np.float32, "LONG": np.int64}


def tensors_of(run):
    return [e["debug_event"]["debug_entry"]["tensor"] for e in run["events"] if "debug_event" in e]


def read_tensor(buf, t):
    dt = DTYPES[t["scalar_type"]]
    n = int(np.prod(t["sizes"]))
    return np.frombuffer(buf, dtype=dt, count=n, offset=int(t["offset"])).reshape(t["sizes"]).copy()


def corrupt(values, run):
    """values: list of arrays of one run (modified copies)."""
    out = [v.copy() for v in values]
    if run in (1, 4):
        out[13][32:64, :] += np.float32(0.25)
    if run == 4:
        flat = out[22].reshape(-1)
        bits = flat.view(np.int32)
        bits[4] += 1
        bits[5] -= 1
    return out


def write(name, doc, run_values):
    """doc: decoded fixture; run_values: per run, the list of tensor arrays."""
    default, execute = doc["run_data"][0], doc["run_data"][1]
    buf = bytearray()
    runs = [default]
    for values in run_values:
        run = copy.deepcopy(execute)
        k = 0
        for e in run["events"]:
            if "debug_event" not in e:
                continue
            t = e["debug_event"]["debug_entry"]["tensor"]
            pad = (-len(buf)) % 64
            buf += b"\0" * pad
            t["offset"] = len(buf)
            buf += values[k].tobytes()
            k += 1
        runs.append(run)
    encode({"run_data": runs}, OUT, name)
    with open(os.path.join(OUT, name + ".bin"), "wb") as f:
        f.write(bytes(buf))


def ordered(bits):
    bits = bits.astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def truth(run_values):
    out = []
    for pos in range(len(run_values[0])):
        arrs = [rv[pos] for rv in run_values]
        keys = [a.tobytes() for a in arrs]
        distinct = list(dict.fromkeys(keys))
        counts = [keys.count(k) for k in distinct]
        major = distinct[int(np.argmax(counts))]
        ref_run = keys.index(major)
        differ = [r for r, k in enumerate(keys) if k != major]
        ref = arrs[ref_run]
        t = {"position": pos, "distinct": len(distinct), "reference_run": ref_run, "runs_differ": differ,
             "max_abs": 0.0, "mean_abs": 0.0, "max_rel": 0.0, "max_ulp": 0, "region": None}
        if differ:
            d = np.stack([np.abs(arrs[r].astype(np.float64) - ref.astype(np.float64)) for r in differ])
            t["max_abs"] = float(d.max())
            t["mean_abs"] = float(d.mean())
            nz = ref != 0
            t["max_rel"] = float((d[:, nz] / np.abs(ref[nz].astype(np.float64))).max())
            if ref.dtype == np.float32:
                t["max_ulp"] = int(max(np.abs(ordered(arrs[r].view(np.int32)) - ordered(ref.view(np.int32))).max()
                                       for r in differ))
                t["bits"] = int(math.ceil(math.log2(t["max_ulp"] + 1)))
            ints = {4: np.uint32, 8: np.uint64}[ref.itemsize]
            mask = np.zeros(ref.shape, bool)
            for r in differ:
                mask |= arrs[r].view(ints) != ref.view(ints)  # bitwise
            m2 = mask.reshape((-1,) + tuple(ref.shape[-2:])) if ref.ndim >= 2 else mask.reshape(1, 1, -1)
            plane = m2.any(axis=0)
            rows, cols = np.nonzero(plane)
            t["region"] = {"row_begin": int(rows.min()), "row_end": int(rows.max()) + 1,
                           "col_begin": int(cols.min()), "col_end": int(cols.max()) + 1,
                           "elements": int(mask.sum())}
        out.append(t)
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    fx = fixture("runtime/cnn_mlp_intermediates")
    doc = decode(os.path.join(fx, "etdump.etdp"))
    with open(os.path.join(fx, "debug_output.bin"), "rb") as f:
        buf = f.read()
    values = [read_tensor(buf, t) for t in tensors_of(doc["run_data"][1])]
    repeat = [values for _ in range(3)]
    tile = [corrupt(values, r) for r in range(6)]
    write("repeat", doc, repeat)
    write("tile", doc, tile)
    write("tile_a", doc, tile[:3])
    write("tile_b", doc, tile[3:])
    expected = {"source": "shared/fixtures/runtime/cnn_mlp_intermediates, runs repeated; "
                          "see gen_determinism_fixtures.py",
                "repeat": truth(repeat), "tile": truth(tile)}
    with open(os.path.join(OUT, "determinism_expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    for t in expected["tile"]:
        if t["runs_differ"]:
            print(t)


if __name__ == "__main__":
    main()
