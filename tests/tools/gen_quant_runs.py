#!/usr/bin/python3
"""Authored runtime recordings for the quantized fixtures (gen_quant_fixtures.py), so that the
error decomposition has runs whose truth is known. The ExecuTorch runtime cannot run these graphs
here: these ETDumps are WRITTEN, not recorded. For each model <stem>:

- the ETRecord gets a debug_handle_map (instruction i = the i-th logged node, its debug handle),
  an empty delegate_map and instruction_id_to_num_outs_map (1 each), as a lowered program has;
- <stem>_healthy.etdp/.bin: one run whose intermediate outputs are exactly the fake-quantized
  values PyTorch computed (<stem>_expected.pt): kernels agree with the fake-quantized model;
- <stem>_kernel.etdp/.bin: the same with a kernel error injected at known ops: Gaussian noise of
  the value's own RMS (numpy, seeded) added to those ops' logged outputs only (later ops keep
  their fake-quantized values, so the error does not propagate);
- quant_runs_expected.json: per run and instruction the dominant error by construction:
  "kernel" where injected; elsewhere "quantization" when the quantization error (MSE of the
  fake-quantized value against the float twin, <stem>_twin_expected.pt) is above the noise
  level of core/analysis/noise.h (MSE <= (sqrt(eps_float32) * rms(float twin))^2), else "noise".
  At injected ops the kernel error is asserted to exceed the quantization error by 100x in
  units of their noise levels, so the truth does not hinge on a close call.

Logged ops: every node with one floating-point tensor output (integer quantize / choose_qparams
outputs are not logged, as a delegate would not log them either).
ETDump layout: the runtime's (flatc --binary over core/etdump/etdump.fbs from JSON), tensors in
the debug buffer at 64-byte aligned offsets.

Run: /usr/bin/python3 tests/tools/gen_quant_runs.py   (after gen_quant_fixtures.py; needs flatc)
"""
import json
import math
import os
import subprocess
import tempfile
import zipfile

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
OUT = os.path.join(root, "tests", "data", "eval")
SCHEMA = os.path.join(root, "core", "etdump", "etdump.fbs")
TAU = math.sqrt(float(np.finfo(np.float32).eps))
# Ops with an injected kernel error, per model (node names of the traced graphs).
INJECT = {"qcnn": ["convolution_1", "addmm"], "qlinear": ["addmm_1", "gelu"], "qdecoder": ["bmm", "mm_5"]}


def graph_nodes(stem):
    with zipfile.ZipFile(os.path.join(OUT, f"{stem}_etrecord.bin")) as z:
        doc = json.loads(z.read("edge_dialect_exported_program/forward"))
    return doc["graph_module"]["graph"]["nodes"]


def add_maps(stem, dhm):
    path = os.path.join(OUT, f"{stem}_etrecord.bin")
    maps = ("debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map")
    with zipfile.ZipFile(path) as z:
        entries = [(i.filename, z.read(i.filename)) for i in z.infolist() if i.filename not in maps]
    entries += [("debug_handle_map", json.dumps({"forward": dhm}).encode()),
                ("delegate_map", json.dumps({"forward": {}}).encode()),
                ("instruction_id_to_num_outs_map", json.dumps({"forward": {k: 1 for k in dhm}}).encode())]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data, compress_type=zipfile.ZIP_DEFLATED)


def write_run(stem, kind, logged):
    """logged: [(instruction, op name, float32 array)] -> <stem>_<kind>.etdp / .bin"""
    buf = bytearray()
    events = []
    t = 1000
    for instr, op, arr in logged:
        pad = (-(len(buf) + 16)) % 64  # aligned like the runtime's buffer sink (address bias 16)
        buf += bytes(pad)
        off = len(buf)
        buf += np.ascontiguousarray(arr, dtype=np.float32).tobytes()
        sizes = list(arr.shape)
        strides = [int(np.prod(sizes[i + 1:])) for i in range(len(sizes))]
        events.append({"debug_event": {"instruction_id": instr, "debug_entry": {"val": "Tensor", "tensor": {
            "scalar_type": "FLOAT", "sizes": sizes, "strides": strides, "offset": off}}}})
        events.append({"profile_event": {"name": f"native_call_{op}.out", "instruction_id": instr,
                                         "start_time": t + 10, "end_time": t + 90}})
        events.append({"profile_event": {"name": "OPERATOR_CALL", "instruction_id": instr,
                                         "start_time": t, "end_time": t + 100}})
        t += 200
    buf += bytes((-len(buf)) % 64)
    doc = {"run_data": [{"name": "Execute", "events": events}]}
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, f"{stem}_{kind}.json")
        with open(js, "w") as f:
            json.dump(doc, f)
        subprocess.run(["flatc", "--binary", "--size-prefixed", "-o", tmp, SCHEMA, js], check=True)
        data = open(os.path.join(tmp, f"{stem}_{kind}.etdp"), "rb").read()  # schema file_extension
    with open(os.path.join(OUT, f"{stem}_{kind}.etdp"), "wb") as f:
        f.write(data)
    with open(os.path.join(OUT, f"{stem}_{kind}.bin"), "wb") as f:
        f.write(bytes(buf))


def mse(a, b):
    return float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))


def noise(ref):
    return (TAU * math.sqrt(float(np.mean(ref.astype(np.float64) ** 2)))) ** 2


def main():
    rng = np.random.default_rng(3030)
    summary = {"generator": "tests/tools/gen_quant_runs.py", "noise_tau": TAU, "models": {}}
    for stem, inject in INJECT.items():
        fake = torch.load(os.path.join(OUT, f"{stem}_expected.pt"))
        twin = torch.load(os.path.join(OUT, f"{stem}_twin_expected.pt"))
        nodes = graph_nodes(stem)
        logged, dhm = [], {}
        for n in nodes:
            vals = fake[n["name"]]
            if len(vals) != 1 or not vals[0].is_floating_point() or vals[0].numel() == 0:
                continue
            instr = len(logged)
            handle = int(n["metadata"]["debug_handle"])
            dhm[str(instr)] = [handle]
            op = n["target"].split(".")[-2]
            logged.append((instr, n["name"], op, vals[0].numpy(), twin[n["name"]][0].numpy()))
        assert all(any(entry[1] == name for entry in logged) for name in inject), (stem, inject)
        add_maps(stem, dhm)
        model = {"logged": len(logged), "runs": {}}
        for kind in ("healthy", "kernel"):
            rows, out = [], []
            for instr, name, op, f, tw in logged:
                value = f.copy()
                q_mse, q_noise = mse(f, tw), noise(tw)
                truth = "quantization" if q_mse > q_noise else "noise"
                if kind == "kernel" and name in inject:
                    rms = math.sqrt(float(np.mean(f.astype(np.float64) ** 2)))
                    value = (f + rng.standard_normal(f.shape) * rms).astype(np.float32)
                    k_mse, k_noise = mse(value, f), noise(f)
                    assert k_mse / k_noise > 100 * max(q_mse / q_noise, 1.0), (stem, name)
                    truth = "kernel"
                out.append((instr, op, value))
                rows.append({"instruction": instr, "node": name, "dominant": truth,
                             "quant_mse": q_mse if math.isfinite(q_mse) else None,  # NaN: inf - inf
                             "quant_noise": q_noise if math.isfinite(q_noise) else None})
            write_run(stem, kind, out)
            model["runs"][kind] = rows
        summary["models"][stem] = model
        print(stem, len(logged), "logged ops;", {k: sum(r["dominant"] == "quantization" for r in v)
                                                 for k, v in model["runs"].items()}, "quantization rows")
    with open(os.path.join(OUT, "quant_runs_expected.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
