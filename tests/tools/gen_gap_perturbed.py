#!/usr/bin/python3
"""Perturbed copy of the cnn_mlp_intermediates debug buffer and the numeric gaps numpy expects
between it (runtime) and the original (reference), for tst_numericgap.

The ETDump is decoded with `flatc --json` on core/etdump/etdump.fbs to find each debug event's
tensor (instruction id, dtype, shape, byte offset); the C++ reader is not involved. Known
perturbations are added to the float32 outputs of three instructions in the copy; every other
byte stays identical, so exactly those rows must show a gap. Expected gaps per instruction and
output: MSE, L1, SNR, MAXABS in float64 following inspector-semantics.md §9.

Writes tests/data/analysis/cnn_mlp_perturbed.bin (first 131072 bytes, which hold every tensor)
and tests/data/analysis/cnn_mlp_perturbed_expected.json.
Run: /usr/bin/python3 tests/tools/gen_gap_perturbed.py   (needs flatc; reads ../shared)
"""
import json
import os
import subprocess
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
fixture = os.path.normpath(os.path.join(root, "..", "shared", "fixtures", "runtime", "cnn_mlp_intermediates"))
outdir = os.path.join(root, "tests", "data", "analysis")
KEEP = 131072

with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(["flatc", "--json", "--raw-binary", "--size-prefixed", "--strict-json", "-o", tmp,
                    os.path.join(root, "core", "etdump", "etdump.fbs"), "--",
                    os.path.join(fixture, "etdump.etdp")], check=True)
    dump = json.load(open(os.path.join(tmp, "etdump.json")))

DT = {"FLOAT": np.float32, "LONG": np.int64, "INT": np.int32}
events = {}  # instruction id -> list of (dtype, sizes, offset)
for e in dump["run_data"][1]["events"]:
    d = e.get("debug_event")
    # Program outputs are logged with output=true and chain_index -1 (as uint64): not intermediates.
    if not d or d.get("instruction_id", -1) < 0 or "output" in d["debug_entry"] or d.get("chain_index", 0) != 0:
        continue
    t = d["debug_entry"]["tensor"]
    events.setdefault(d["instruction_id"], []).append((t["scalar_type"], t["sizes"], t.get("offset", 0)))

buf = bytearray(open(os.path.join(fixture, "debug_output.bin"), "rb").read())
orig = bytes(buf)


def tensor(data, entry):
    st, sizes, off = entry
    n = int(np.prod(sizes))
    return np.frombuffer(data, dtype=DT[st], count=n, offset=off).astype(np.float64).reshape(sizes)


# instruction -> (output index, perturbation): a constant shift, one large spike, and a
# multiplicative error on part of a LayerNorm output (the op has 3 outputs; only the first changes).
perturb = {3: (0, "shift"), 14: (0, "scale_half"), 25: (0, "spike")}
rng = np.random.default_rng(5)
for instr, (idx, kind) in perturb.items():
    st, sizes, off = events[instr][idx]
    assert st == "FLOAT"
    n = int(np.prod(sizes))
    a = np.frombuffer(buf, dtype=np.float32, count=n, offset=off).copy()
    if kind == "shift":
        a = a + np.float32(0.01)
    elif kind == "scale_half":
        a[: n // 2] = a[: n // 2] * np.float32(1.05)
    else:
        a[7] = a[7] + np.float32(0.5)
    buf[off:off + 4 * n] = a.astype(np.float32).tobytes()
assert max(off + np.dtype(DT[st]).itemsize * int(np.prod(s)) for lst in events.values() for (st, s, off) in lst) <= KEEP

with open(os.path.join(outdir, "cnn_mlp_perturbed.bin"), "wb") as f:
    f.write(bytes(buf[:KEEP]))


def metrics(a, b):
    d = a - b
    with np.errstate(divide="ignore", invalid="ignore"):
        mse = float(np.mean(d ** 2))
        snr = float(10 * np.log10(np.mean(a ** 2) / mse)) if mse != 0 else float("inf")
    return {"MSE": mse, "L1": float(np.sum(np.abs(d))), "SNR": snr, "MAXABS": float(np.max(np.abs(d)))}


rows = []
for instr in sorted(events):
    gaps = []
    for entry in events[instr]:
        ref, run = tensor(orig, entry), tensor(bytes(buf), entry)
        m = metrics(ref, run)
        gaps.append({k: (v if np.isfinite(v) else "inf") for k, v in m.items()})
    rows.append({"instruction": instr, "outputs": len(events[instr]), "perturbed": instr in perturb, "gaps": gaps})

json.dump({"generator": "tests/tools/gen_gap_perturbed.py", "perturbed_instructions": sorted(perturb),
           "rows": rows}, open(os.path.join(outdir, "cnn_mlp_perturbed_expected.json"), "w"), indent=1)
print("rows", len(rows), "perturbed", sorted(perturb))
for r in rows:
    if r["perturbed"]:
        print(r["instruction"], r["gaps"])
