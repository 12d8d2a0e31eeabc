#!/usr/bin/python3
"""Authors the Vulkan-delegated program of tests/data/runtime/vulkan_lavapipe and checks the output
the real ExecuTorch runtime (Vulkan delegate, Mesa lavapipe) logged against NumPy.

Program vk_ew.pte: one DELEGATE_CALL of VulkanBackend, inputs x, y float32 [4,64], output
out float32 [4,64]. The VkGraph (backends/vulkan/serialization/schema.fbs, compiled with flatc):
  t1 = aten.add.Tensor(x, w, alpha 1)   (w: constant float32 [4,64], np.random.default_rng(37))
  t2 = aten.mul.Tensor(t1, y)
  t3 = aten.relu.default(t2)
  out = aten.tanh.default(t3)
Payload: VulkanDelegateHeader 'VH00' (30 bytes padded to 32) + VkGraph flatbuffer (padded to 16)
+ constant bytes (padded to 16), as backends/vulkan/serialization/vulkan_graph_serialize.py
serialize_vulkan_graph lays it out; stored as a program segment (location SEGMENT).

--check DIR: decodes DIR/etdump.etdp (flatc --json), reads the debug tensors from
DIR/debug_output.bin and compares them with NumPy (tolerance 1e-5; the GPU's tanh is not
bit-exact).

Usage:
  /usr/bin/python3 tests/tools/gen_vulkan_fixture.py --et /work/rt/executorch
  /usr/bin/python3 tests/tools/gen_vulkan_fixture.py --check tests/data/runtime/vulkan_lavapipe/intermediates
  /usr/bin/python3 tests/tools/gen_vulkan_fixture.py --truth      (after the recordings exist)
"""

import argparse
import json
import os
import re
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtime_fixture_lib as lib  # noqa: E402

OUT = os.path.join(lib.ROOT, "tests", "data", "runtime", "vulkan_lavapipe")
SHAPE = [4, 64]


def weight():
    return (np.random.default_rng(37).standard_normal(SHAPE) * 0.5).astype(np.float32)


def inputs():
    # The runner's rule: input i, flat index j, seed 0 -> sin(0.37 j + 0.91 seed + 1.3 i), float32.
    j = np.arange(SHAPE[0] * SHAPE[1], dtype=np.float32)
    return [np.sin(np.float32(0.37) * j + np.float32(1.3) * i).astype(np.float32).reshape(SHAPE) for i in range(2)]


def reference():
    x, y = (a.astype(np.float64) for a in inputs())
    t1 = x + weight()
    t2 = t1 * y
    t3 = np.maximum(t2, 0)
    return [t1, t2, t3, np.tanh(t3)]


def vk_graph():
    tensor = lambda cid: {"value_type": "VkTensor", "value": {  # noqa: E731
        "datatype": "FLOAT32", "dims": SHAPE, "constant_id": cid, "mem_obj_id": -1}}
    values = [tensor(-1), tensor(-1), tensor(0), {"value_type": "Int", "value": {"int_val": 1}},
              tensor(-1), tensor(-1), tensor(-1), tensor(-1)]
    chain = [{"node_id": 0, "name": "aten.add.Tensor", "args": [0, 2, 3, 4]},
             {"node_id": 1, "name": "aten.mul.Tensor", "args": [4, 1, 5]},
             {"node_id": 2, "name": "aten.relu.default", "args": [5, 6]},
             {"node_id": 3, "name": "aten.tanh.default", "args": [6, 7]}]
    w = weight()
    return {"version": "0", "chain": chain, "values": values, "input_ids": [0, 1], "output_ids": [7],
            "constants": [{"offset": 0, "length": w.nbytes}], "shaders": []}, w.tobytes()


def payload(schema, doc, raw):
    fb = lib.flatc_binary(schema, doc, "vkgraph")
    hl, fl, rl = lib.align(30, 16), lib.align(len(fb), 16), lib.align(len(raw), 16)
    header = b"\0\0\0\0VH00" + struct.pack("<HIIIQ", 30, hl, len(fb), hl + fl, len(raw))
    return header.ljust(hl, b"\0") + fb.ljust(fl, b"\0") + raw.ljust(rl, b"\0")


def build(args):
    if not args.et:
        sys.exit("--et is needed: the VkGraph schema is upstream's backends/vulkan/serialization/schema.fbs")
    doc, raw = vk_graph()
    blob = payload(os.path.join(args.et, "backends", "vulkan", "serialization", "schema.fbs"), doc, raw)
    p = lib.Plan("forward", [])
    x, y, out = p.tensor(SHAPE), p.tensor(SHAPE), p.tensor(SHAPE)
    p.delegate(1, [x, y, out])
    p.delegates[-1]["id"] = "VulkanBackend"
    prog, pte = lib.build_pte(lib.program_schema(args.et), [p.to_json([x, y], [out])], [], [blob])
    os.makedirs(args.out, exist_ok=True)
    lib.write_json(os.path.join(args.out, "vk_ew.program.json"), prog)
    lib.write_json(os.path.join(args.out, "vk_ew.vkgraph.json"), doc)
    with open(os.path.join(args.out, "vk_ew.pte"), "wb") as f:
        f.write(pte)
    print(f"vk_ew.pte: {len(pte)} bytes, payload {len(blob)} bytes")


def check(args):
    doc = lib.decode_etdump(lib.etdump_schema(args.et), os.path.join(args.check, "etdump.etdp"))
    with open(os.path.join(args.check, "debug_output.bin"), "rb") as f:
        buf = f.read()
    x, y = inputs()
    out = reference()[-1]
    worst = 0.0
    for run, block in enumerate(lib.execute_blocks(doc)):
        got = [a for _, a in lib.debug_tensors(block, buf)]
        want = [x, y, out, out]  # delegate args (x, y, out), then the program output
        assert len(got) == len(want), f"run {run}: {len(got)} debug tensors"
        for k, (g, w) in enumerate(zip(got, want)):
            d = float(np.max(np.abs(g.astype(np.float64) - w)))
            worst = max(worst, d)
            if d > 1e-5:
                print(f"run {run} tensor {k}: max |runtime - numpy| = {d:.3g} MISMATCH")
                return 1
    print(f"MATCH (max |runtime - numpy| = {worst:.3g})")
    return 0


def truth(args):
    """vulkan_lavapipe.truth.json: for every Execute run of both recordings, which delegate events
    carry the GPU query-pool clock (the dispatch events, whose delegate_debug_id_str is a JSON
    object with a dispatch_id), their GPU times, the CPU window of ETVK_COMPUTE_GRAPH_EXECUTE, and
    the clock offset bounds. The runner logs CLOCK_MONOTONIC just before and after runtime_init()
    (the PAL's tick origin is steady_clock at et_pal_init, i.e. CLOCK_MONOTONIC); lavapipe writes
    timestamps from CLOCK_MONOTONIC with timestampPeriod 1, so gpu_ns - cpu_ns lies in
    [origin_lo, origin_hi]. The check: every dispatch, shifted by that offset, lies inside its
    run's ETVK_COMPUTE_GRAPH_EXECUTE window."""
    out = {"derived_by": "tests/tools/gen_vulkan_fixture.py --truth (flatc --json of etdump.etdp, runner.log)",
           "gpu_clock": "lavapipe query pool: CLOCK_MONOTONIC nanoseconds (timestampPeriod 1), not the PAL's ticks",
           "cpu_clock": "PAL ticks: nanoseconds of steady_clock since et_pal_init (runtime/platform/default/posix.cpp)",
           "recordings": {}}
    for rec in ("profile", "intermediates"):
        folder = os.path.join(args.out, rec)
        doc = lib.decode_etdump(lib.etdump_schema(args.et), os.path.join(folder, "etdump.etdp"))
        with open(os.path.join(folder, "runner.log")) as f:
            m = re.search(r"PAL tick origin: CLOCK_MONOTONIC between (\d+) and (\d+) ns", f.read())
        lo, hi = int(m.group(1)), int(m.group(2))
        runs = []
        for block in lib.execute_blocks(doc):
            prof = [e["profile_event"] for e in block.get("events") or [] if e.get("profile_event")]
            window = next(p for p in prof if p.get("delegate_debug_id_str") == "ETVK_COMPUTE_GRAPH_EXECUTE")
            ws, we = int(window["start_time"]), int(window["end_time"])
            dispatches = []
            for k, p in enumerate(prof):
                name = p.get("delegate_debug_id_str") or ""
                if not name.startswith("{"):
                    continue
                info = json.loads(name)
                s, e = int(p["start_time"]), int(p["end_time"])
                dispatches.append({"profile_event_index": k, "kernel_name": info["kernel_name"],
                                   "operator": info.get("operator", {}).get("name"),
                                   "operator_id": info["operator_id"], "dispatch_id": info["dispatch_id"],
                                   "gpu_start_ns": s, "gpu_end_ns": e,
                                   "cpu_start_ns_range": [s - hi, s - lo], "cpu_end_ns_range": [e - hi, e - lo],
                                   "inside_compute_graph_execute": ws <= s - hi and e - lo <= we})
            runs.append({"cpu_events": [p.get("name") or p.get("delegate_debug_id_str") for p in prof
                                        if not (p.get("delegate_debug_id_str") or "").startswith("{")],
                         "compute_graph_execute_cpu_ns": [ws, we], "dispatches": dispatches})
        out["recordings"][rec] = {"origin_monotonic_ns": [lo, hi], "execute_runs": len(runs),
                                  "all_dispatches_inside": all(d["inside_compute_graph_execute"]
                                                               for r in runs for d in r["dispatches"]),
                                  "runs": runs}
        print(rec, "origin", lo, hi, "runs", len(runs), "all inside", out["recordings"][rec]["all_dispatches_inside"])
    lib.write_json(os.path.join(args.out, "vulkan_lavapipe.truth.json"), out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--et", help="ExecuTorch checkout (schemas)")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", help="recording folder to compare with NumPy")
    ap.add_argument("--truth", action="store_true",
                    help="write vulkan_lavapipe.truth.json from the recordings in --out")
    args = ap.parse_args()
    if args.truth:
        return truth(args)
    sys.exit(check(args) if args.check else build(args))


if __name__ == "__main__":
    main()
