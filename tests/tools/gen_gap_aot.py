#!/usr/bin/python3
"""Writes an AOT intermediate outputs file with real PyTorch (Debian python3-torch) for the
cnn_mlp fixture, and the gaps the Inspector's rules give against the real runtime run.

AOT outputs file format (what `etscope-cli gap --aot-outputs` reads): torch.save of a dict
    {debug handle: value}
where a key is an int or a tuple of ints (the Inspector's AOT keys are 1-tuples) and a value
is a tensor or a list/tuple of tensors, e.g. {1: conv_out, (2,): relu_out, 3: [pool, indices]}.

Here the AOT values are the runtime's own intermediates (read from debug_output.bin at the
offsets `flatc --json` decodes from the ETDump), keyed by the handles of the ETRecord's
debug_handle_map, with known perturbations: handle 10 (gelu) +0.02 everywhere, handle 14
(layer_norm output 0) x1.01. Handle 3 (max_pool2d_with_indices) is stored as a list
[values, indices]; handle 26 uses a tuple key; handle 25 is left out (no row expected).

Expected rows (MSE, §8 step 6 + §9 by numpy): each handle present on both sides, runtime side =
the event with the largest instruction id among those mapped to the handle; AOT list → the
runtime's whole debug_data list pairwise; AOT tensor with several runtime values (num_outputs 1)
→ the unique same-shape value.
Writes tests/data/analysis/cnn_mlp_aot_outputs.pt and cnn_mlp_aot_expected.json.
Run: /usr/bin/python3 tests/tools/gen_gap_aot.py
"""
import io
import json
import os
import subprocess
import tempfile
import zipfile

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
fixture = os.path.normpath(os.path.join(root, "..", "shared", "fixtures", "runtime", "cnn_mlp_intermediates"))
etrecord = os.path.join(root, "tests", "data", "etrecord", "cnn_mlp_etrecord.bin")
outdir = os.path.join(root, "tests", "data", "analysis")

with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(["flatc", "--json", "--raw-binary", "--size-prefixed", "--strict-json", "-o", tmp,
                    os.path.join(root, "core", "etdump", "etdump.fbs"), "--",
                    os.path.join(fixture, "etdump.etdp")], check=True)
    dump = json.load(open(os.path.join(tmp, "etdump.json")))
DT = {"FLOAT": np.float32, "LONG": np.int64}
data = open(os.path.join(fixture, "debug_output.bin"), "rb").read()
values = {}  # instruction -> [np arrays]
for e in dump["run_data"][1]["events"]:
    d = e.get("debug_event")
    if not d or "output" in d["debug_entry"] or d.get("chain_index", 0) != 0:
        continue
    t = d["debug_entry"]["tensor"]
    n = int(np.prod(t["sizes"]))
    arr = np.frombuffer(data, dtype=DT[t["scalar_type"]], count=n, offset=t.get("offset", 0)).reshape(t["sizes"])
    values.setdefault(d["instruction_id"], []).append(arr.copy())

hmap = {int(k): v for k, v in json.loads(zipfile.ZipFile(etrecord).read("debug_handle_map"))["forward"].items()}
owner = {}
for instr, h in sorted(hmap.items()):
    owner[h] = instr  # later (larger) instruction ids replace earlier ones

aot = {}
expected_aot = {}
for h, instr in sorted(owner.items()):
    if h == 25:
        continue
    rt = values[instr]
    if h == 3:
        val = [torch.from_numpy(v.copy()) for v in rt]
    else:
        v = rt[0].copy()
        if h == 10:
            v = v + np.float32(0.02)
        if h == 14:
            v = v * np.float32(1.01)
        val = torch.from_numpy(v)
    aot[(h,) if h == 26 else h] = val
    expected_aot[h] = val

torch.save(aot, os.path.join(outdir, "cnn_mlp_aot_outputs.pt"))


def mse(a, b):
    return float(np.mean((np.asarray(a, np.float64) - np.asarray(b, np.float64)) ** 2))


rows = []
for h, val in sorted(expected_aot.items()):
    instr = owner[h]
    rt = values[instr]
    if isinstance(val, list):
        gaps = [mse(a.numpy(), r) for a, r in zip(val, rt)]
    else:
        a = val.numpy()
        if len(rt) > 1:
            same = [r for r in rt if r.shape == a.shape]
            r = same[0] if len(same) == 1 else rt[-1]
        else:
            r = rt[-1]
        gaps = [mse(a, r)]
    rows.append({"handle": h, "instruction": instr, "gap_mse": gaps, "perturbed": h in (10, 14)})
# compare_results (§10) of the run outputs against the ETRecord's reference_outputs (the last
# set): both cast to float32, metrics in float64 over those float32 values.
ref_out = torch.load(io.BytesIO(zipfile.ZipFile(etrecord).read("reference_outputs")))["forward"][-1]
run_out = []
for e in dump["run_data"][1]["events"]:
    d = e.get("debug_event")
    if d and "output" in d["debug_entry"]:
        t = d["debug_entry"]["tensor"]
        n = int(np.prod(t["sizes"]))
        run_out.append(np.frombuffer(data, dtype=DT[t["scalar_type"]], count=n, offset=t["offset"]).reshape(t["sizes"]))
cmp = []
for r, o in zip(ref_out, run_out):
    r = r.numpy().astype(np.float32).astype(np.float64)
    o = o.astype(np.float32).astype(np.float64)
    m = np.mean((r - o) ** 2)
    cmp.append({"snr": float(10 * np.log10(np.mean(r ** 2) / m)), "mse": float(m),
                "cosine": float(np.sum(r * o) / (np.sqrt(np.sum(r ** 2)) * np.sqrt(np.sum(o ** 2))))})

json.dump({"generator": "tests/tools/gen_gap_aot.py", "torch": torch.__version__, "rows": rows,
           "compare_results_vs_etrecord": cmp},
          open(os.path.join(outdir, "cnn_mlp_aot_expected.json"), "w"), indent=1)
print(len(rows), "rows;", [r for r in rows if r["perturbed"]])
