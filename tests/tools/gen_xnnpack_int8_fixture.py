#!/usr/bin/python3
"""Authors the three XNNPACK-delegated programs of tests/data/runtime/xnnpack_int8 and checks what
the real ExecuTorch runtime (XNNPACK delegate linked in) computed with them against an
independent NumPy model.

One model, three programs (x float32 [8,64] -> probs float32 [8,10]):
  fc1 64->128 + ReLU, fc2 128->64, fc3 64->10, softmax over the last dim.
  Weights: np.random.default_rng(36) draws, float32, XNNPACK filter layout [out, in].

  xnn_int8.pte        2 DELEGATE_CALLs. Delegate 0: Convert f32->qs8 (per-tensor), Fully Connected
                      qs8 x qc8w (per-channel int8 weights, qcint32 bias) with ReLU, Fully
                      Connected qs8 x qc8w, Convert qs8->f32 -> h2 float32 [8,64]. Delegate 1:
                      Convert f32->qd8 (dynamic, per-row), Fully Connected qd8 x qc8w (fp32 bias),
                      Softmax -> probs.
  xnn_fp32.pte        the fp32 twin: same two partitions, same program-level tensors, float weights.
  xnn_fp32_onedelegate.pte   the same fp32 model in one delegate (no h2 at the program level).

Payloads: XNNHeader 'XH00' + XNNGraph flatbuffer (backends/xnnpack/serialization/schema.fbs,
compiled with flatc) + constant data (16-aligned), as
backends/xnnpack/serialization/xnnpack_graph_serialize.py serialize_xnnpack_binary lays it out;
each payload a program segment (BackendDelegate 'XnnpackBackend', location SEGMENT).

Quantization (static, calibrated on the runner's input with the fp32 model):
  x: scale 1/127, zero point 0; weights: symmetric per output channel, scale max|w|/127;
  bias: int32 round(b / (s_x s_w[c])) with per-channel scale s_x s_w[c];
  h1 (after ReLU): scale max(h1)/255, zero point -128; h2: asymmetric over [min, max] of h2.

--check DIR: decodes DIR/etdump.etdp with flatc --json, reads every debug event's tensor from
DIR/debug_output.bin and compares it with the NumPy model of the program named by --variant:
fp32 exactly as float64 math (tolerance 1e-5), int8 by emulating XNNPACK's arithmetic
(f32->qs8 x * (1/s) rounded half to even; qs8 GEMM int32 accumulation, requantized with the
float32 scale s_in s_w[c] / s_out, rounded half to even; qd8 per-row asymmetric parameters as
src/xnnpack/quantization.h computes them).

Usage:
  /usr/bin/python3 tests/tools/gen_xnnpack_int8_fixture.py [--et /work/rt/executorch]
  /usr/bin/python3 tests/tools/gen_xnnpack_int8_fixture.py --check DIR --variant int8|fp32|fp32_onedelegate
  /usr/bin/python3 tests/tools/gen_xnnpack_int8_fixture.py --truth     (after the recordings exist)
"""

import argparse
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtime_fixture_lib as lib  # noqa: E402

OUT = os.path.join(lib.ROOT, "tests", "data", "runtime", "xnnpack_int8")
ROWS, IN, HID, MID, CLASSES = 8, 64, 128, 64, 10
FLT_MAX = 3.4028234663852886e38
EXT_INPUT, EXT_OUTPUT, INVALID_ID = 1, 2, 0xFFFFFFFF
F32 = np.float32


def weights():
    rng = np.random.default_rng(36)
    f = lambda shape, s: (rng.standard_normal(shape) * s).astype(F32)  # noqa: E731
    return {"W1": f((HID, IN), IN**-0.5), "b1": f((HID,), 0.1), "W2": f((MID, HID), HID**-0.5),
            "b2": f((MID,), 0.1), "W3": f((CLASSES, MID), MID**-0.5 * 2), "b3": f((CLASSES,), 0.1)}


def model_input():
    # The runner's rule: input i, flat index j, seed 0 -> sin(0.37 j + 0.91 seed + 1.3 i), float32.
    j = np.arange(ROWS * IN, dtype=F32)
    return np.sin(F32(0.37) * j).astype(F32).reshape(ROWS, IN)


def softmax(y):
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def fp32_model(w, x):
    x = x.astype(np.float64)
    h1 = np.maximum(x @ w["W1"].T + w["b1"], 0)
    h2 = h1 @ w["W2"].T + w["b2"]
    y = h2 @ w["W3"].T + w["b3"]
    return {"h2": h2, "probs": softmax(y)}


def quant_params(w):
    ref = fp32_model(w, model_input())
    x = model_input().astype(np.float64)
    h1 = np.maximum(x @ w["W1"].T + w["b1"], 0)
    q = {"x": (F32(1.0 / 127), 0)}
    q["h1"] = (F32(h1.max() / 255), -128)
    lo, hi = min(ref["h2"].min(), 0.0), max(ref["h2"].max(), 0.0)
    s = F32((hi - lo) / 255)
    q["h2"] = (s, int(np.clip(np.rint(-128 - lo / float(s)), -128, 127)))
    for k in ("W1", "W2", "W3"):
        sc = (np.abs(w[k]).max(axis=1) / 127).astype(F32)
        q[k] = (sc, np.clip(np.rint(w[k] / sc[:, None]), -127, 127).astype(np.int8))
    for b, wk, inp in (("b1", "W1", "x"), ("b2", "W2", "h1")):
        sc = (q[inp][0] * q[wk][0]).astype(F32)
        q[b] = (sc, np.rint(w[b].astype(np.float64) / sc).astype(np.int32))
    return q


# ---- NumPy emulation of XNNPACK's quantized arithmetic ------------------------------------
def f32_to_qs8(x, scale, zp):
    return np.clip(np.rint(x.astype(F32) * F32(1.0 / scale)) + zp, -128, 127).astype(np.int8)


def qs8_fc(xq, xzp, xs, wq, ws, bq, outs, outzp, relu):
    acc = (xq.astype(np.int64) - xzp) @ wq.T.astype(np.int64) + bq
    scale = (F32(xs) * ws.astype(F32) / F32(outs)).astype(F32)
    y = np.rint(acc.astype(F32) * scale) + outzp
    lo = np.clip(np.rint(0.0 / outs) + outzp, -128, 127) if relu else -128
    return np.clip(y, lo, 127).astype(np.int8)


def qd8_params(row):
    # src/xnnpack/quantization.h xnn_qd8_asymmetric_quantization_params, float32 math
    rmin, rmax = F32(min(0.0, row.min())), F32(max(0.0, row.max()))
    scale = F32(1.0) if rmin == rmax else F32(255.0) / (rmax - rmin)
    dmin, dmax = rmin * scale, rmax * scale
    zp = F32(-128) - dmin if (F32(-128) + dmin) + (F32(127) + dmax) > 0 else F32(127) - dmax
    zp = min(max(zp, F32(-128)), F32(127))
    return scale, int(np.rint(zp))


def qd8_fc(x, wq, ws, b):
    out = np.zeros((x.shape[0], wq.shape[0]), dtype=np.float64)
    for r in range(x.shape[0]):
        inv, zp = qd8_params(x[r].astype(F32))
        q = np.clip(np.rint(x[r].astype(F32) * inv) + zp, -128, 127)
        acc = (q.astype(np.int64) - zp) @ wq.T.astype(np.int64)
        out[r] = acc * (1.0 / float(inv)) * ws.astype(np.float64) + b
    return out


def int8_model(w, q, x):
    xq = f32_to_qs8(x, *q["x"])
    h1q = qs8_fc(xq, q["x"][1], q["x"][0], q["W1"][1], q["W1"][0], q["b1"][1], *q["h1"], relu=True)
    h2q = qs8_fc(h1q, q["h1"][1], q["h1"][0], q["W2"][1], q["W2"][0], q["b2"][1], *q["h2"], relu=False)
    h2 = ((h2q.astype(np.int32) - q["h2"][1]).astype(F32) * q["h2"][0]).astype(F32)
    y = qd8_fc(h2, q["W3"][1], q["W3"][0], w["b3"])
    return {"h2": h2.astype(np.float64), "h2q": h2q, "probs": softmax(y)}


# ---- XNNGraph authoring ---------------------------------------------------------------------
class XGraph:
    def __init__(self):
        self.values, self.nodes, self.data = [], [], bytearray()
        self.constant_data = [{"offset": 0, "size": 0}]
        self.n_ext = 0

    def _const(self, arr):
        off = lib.align(len(self.data), 16)
        self.data += b"\0" * (off - len(self.data)) + arr.tobytes()
        self.constant_data.append({"offset": off, "size": arr.nbytes})
        return len(self.constant_data) - 1

    def tensor(self, dtype, dims, const=None, ext=None, quant=None):
        vid = len(self.values)
        flags, ext_id = 0, INVALID_ID
        if ext is not None:
            flags, ext_id = (EXT_INPUT if ext == "in" else EXT_OUTPUT), self.n_ext
            self.n_ext += 1
        tv = {"datatype": dtype, "num_dims": len(dims), "dims": list(dims),
              "constant_buffer_idx": self._const(const) if const is not None else 0,
              "external_id": ext_id, "flags": flags, "id_out": vid}
        if quant is None:
            self.values.append({"xvalue_union_type": "XNNTensorValue", "xvalue_union": tv})
        else:
            qtype, qp = quant
            self.values.append({"xvalue_union_type": "XNNQuantizedTensorValue",
                                "xvalue_union": {"tensor_value": tv, "quant_params_type": qtype,
                                                 "quant_params": qp}})
        return vid

    def node(self, kind, fields, relu=False):
        n = {"xnode_union_type": kind, "xnode_union": dict(fields, flags=0), "debug_handle": len(self.nodes) + 1}
        if relu:
            n["output_min_max"] = {"output_min": 0.0, "output_max": FLT_MAX}
        self.nodes.append(n)

    def fc(self, x, wt, b, out, relu=False):
        self.node("XNNFullyConnected", {"input1_id": x, "filter_id": wt, "bias_id": b, "output_id": out}, relu)

    def doc(self):
        ins = [i for i, v in enumerate(self.values) if self._tv(v)["flags"] == EXT_INPUT]
        outs = [i for i, v in enumerate(self.values) if self._tv(v)["flags"] == EXT_OUTPUT]
        return {"version": "0", "xnodes": self.nodes, "xvalues": self.values, "num_externs": self.n_ext,
                "input_ids": ins, "output_ids": outs, "constant_data": self.constant_data}

    @staticmethod
    def _tv(v):
        u = v["xvalue_union"]
        return u["tensor_value"] if "tensor_value" in u else u

    def payload(self, schema):
        fb = lib.flatc_binary(schema, self.doc(), "xnngraph")
        header_len = lib.align(30, 16)
        fb_len = lib.align(len(fb), 16)
        header = (b"\0\0\0\0XH00" + struct.pack("<HIIIQ", 30, header_len, len(fb), header_len + fb_len,
                                                len(self.data)))
        return header.ljust(header_len, b"\0") + fb.ljust(fb_len, b"\0") + bytes(self.data)


def per_channel(scales):
    return ("PerChannelQuant", {"scale": [float(s) for s in scales], "channel_dim": 0})


def per_tensor(scale, zp):
    return ("PerTensorQuant", {"scale": float(scale), "zero_point": int(zp)})


def fp32_graph(w, parts):
    """parts: which layers this partition holds ('fc12' = fc1+ReLU, fc2; 'fc3' = fc3, softmax)."""
    g = XGraph()
    f = "xnn_datatype_fp32"
    if "fc12" in parts:
        x = g.tensor(f, [ROWS, IN], ext="in")
        h1 = g.tensor(f, [ROWS, HID])
        g.fc(x, g.tensor(f, [HID, IN], w["W1"]), g.tensor(f, [HID], w["b1"]), h1, relu=True)
        h2 = g.tensor(f, [ROWS, MID], ext=None if "fc3" in parts else "out")
        g.fc(h1, g.tensor(f, [MID, HID], w["W2"]), g.tensor(f, [MID], w["b2"]), h2)
    else:
        h2 = g.tensor(f, [ROWS, MID], ext="in")
    if "fc3" in parts:
        y = g.tensor(f, [ROWS, CLASSES])
        g.fc(h2, g.tensor(f, [CLASSES, MID], w["W3"]), g.tensor(f, [CLASSES], w["b3"]), y)
        p = g.tensor(f, [ROWS, CLASSES], ext="out")
        g.node("XNNSoftmax", {"input_id": y, "output_id": p})
    return g


def int8_graphs(w, q):
    g0 = XGraph()
    x = g0.tensor("xnn_datatype_fp32", [ROWS, IN], ext="in")
    xq = g0.tensor("xnn_datatype_qint8", [ROWS, IN], quant=per_tensor(*q["x"]))
    g0.node("XNNConvert", {"input_id": x, "output_id": xq})
    w1 = g0.tensor("xnn_datatype_qcint8", [HID, IN], q["W1"][1], quant=per_channel(q["W1"][0]))
    b1 = g0.tensor("xnn_datatype_qcint32", [HID], q["b1"][1], quant=per_channel(q["b1"][0]))
    h1q = g0.tensor("xnn_datatype_qint8", [ROWS, HID], quant=per_tensor(*q["h1"]))
    g0.fc(xq, w1, b1, h1q, relu=True)
    w2 = g0.tensor("xnn_datatype_qcint8", [MID, HID], q["W2"][1], quant=per_channel(q["W2"][0]))
    b2 = g0.tensor("xnn_datatype_qcint32", [MID], q["b2"][1], quant=per_channel(q["b2"][0]))
    h2q = g0.tensor("xnn_datatype_qint8", [ROWS, MID], quant=per_tensor(*q["h2"]))
    g0.fc(h1q, w2, b2, h2q)
    h2 = g0.tensor("xnn_datatype_fp32", [ROWS, MID], ext="out")
    g0.node("XNNConvert", {"input_id": h2q, "output_id": h2})

    g1 = XGraph()
    h2in = g1.tensor("xnn_datatype_fp32", [ROWS, MID], ext="in")
    h2d = g1.tensor("xnn_datatype_qdint8", [ROWS, MID], quant=("PerTokenDynamicQuant", {"num_nonbatch_dims": 1}))
    g1.node("XNNConvert", {"input_id": h2in, "output_id": h2d})
    w3 = g1.tensor("xnn_datatype_qcint8", [CLASSES, MID], q["W3"][1], quant=per_channel(q["W3"][0]))
    b3 = g1.tensor("xnn_datatype_fp32", [CLASSES], w["b3"])
    y = g1.tensor("xnn_datatype_fp32", [ROWS, CLASSES])
    g1.fc(h2d, w3, b3, y)
    p = g1.tensor("xnn_datatype_fp32", [ROWS, CLASSES], ext="out")
    g1.node("XNNSoftmax", {"input_id": y, "output_id": p})
    return [g0, g1]


def program(name, graphs, et, two):
    schema = os.path.join(et, "backends", "xnnpack", "serialization", "schema.fbs") if et else None
    if schema is None:
        sys.exit("--et is needed: the XNNGraph schema is upstream's backends/xnnpack/serialization/schema.fbs")
    p = lib.Plan("forward", [])
    x = p.tensor([ROWS, IN])
    probs = p.tensor([ROWS, CLASSES])
    if two:
        h2 = p.tensor([ROWS, MID])
        p.delegate(1, [x, h2])
        p.delegate(2, [h2, probs])
    else:
        p.delegate(1, [x, probs])
    payloads = [g.payload(schema) for g in graphs]
    prog, pte = lib.build_pte(lib.program_schema(et), [p.to_json([x], [probs])], [], payloads)
    return prog, pte, {f"delegate_{i}": g.doc() for i, g in enumerate(graphs)}


def build(args):
    w = weights()
    q = quant_params(w)
    variants = {
        "xnn_int8": (int8_graphs(w, q), True),
        "xnn_fp32": ([fp32_graph(w, ["fc12"]), fp32_graph(w, ["fc3"])], True),
        "xnn_fp32_onedelegate": ([fp32_graph(w, ["fc12", "fc3"])], False),
    }
    os.makedirs(args.out, exist_ok=True)
    for name, (graphs, two) in variants.items():
        prog, pte, gdoc = program(name, graphs, args.et, two)
        lib.write_json(os.path.join(args.out, name + ".program.json"), prog)
        lib.write_json(os.path.join(args.out, name + ".xnnpack_graphs.json"), gdoc)
        with open(os.path.join(args.out, name + ".pte"), "wb") as f:
            f.write(pte)
        print(f"{name}.pte: {len(pte)} bytes, segments {[s['size'] for s in prog['segments']]}")
    print("quantization: x", q["x"], "h1", q["h1"], "h2", q["h2"])


def check(args):
    w = weights()
    x = model_input()
    ref = int8_model(w, quant_params(w), x) if args.variant == "int8" else fp32_model(w, x)
    doc = lib.decode_etdump(lib.etdump_schema(args.et), os.path.join(args.check, "etdump.etdp"))
    with open(os.path.join(args.check, "debug_output.bin"), "rb") as f:
        buf = f.read()
    tol = 1e-5 if args.variant != "int8" else 2e-6
    worst = 0.0
    for run, block in enumerate(lib.execute_blocks(doc)):
        tensors = [a for _, a in lib.debug_tensors(block, buf)]
        if args.variant == "fp32_onedelegate":
            want = [x, ref["probs"], ref["probs"]]  # delegate args (x, probs), program output
        else:
            want = [x, ref["h2"], ref["h2"], ref["probs"], ref["probs"]]
        assert len(tensors) == len(want), f"run {run}: {len(tensors)} debug tensors, expected {len(want)}"
        for k, (got, exp) in enumerate(zip(tensors, want)):
            d = float(np.max(np.abs(got.astype(np.float64) - exp)))
            worst = max(worst, d)
            print(f"run {run} tensor {k} {list(got.shape)}: max |runtime - numpy| = {d:.3g}")
            if d > tol and not (args.variant == "int8" and k >= 3 and d < 1e-4):
                print("MISMATCH")
                return 1
    if args.variant == "int8":
        h2 = [a for _, a in lib.debug_tensors(lib.execute_blocks(doc)[0], buf)][1]
        q = quant_params(w)
        got_q = np.rint(h2 / q["h2"][0]).astype(np.int64) + q["h2"][1]
        print(f"h2 int8 codes equal to the emulation: {int((got_q == ref['h2q']).sum())} of {got_q.size}")
        f = fp32_model(w, x)
        print(f"int8 vs fp32 model: max |h2 diff| {np.abs(h2 - f['h2']).max():.4g}, "
              f"max |probs diff| {np.abs(ref['probs'] - f['probs']).max():.4g}")
    print(f"MATCH (max |runtime - numpy| = {worst:.3g})")
    return 0


def recording(folder, et):
    doc = lib.decode_etdump(lib.etdump_schema(et), os.path.join(folder, "etdump.etdp"))
    buf = None
    if os.path.exists(os.path.join(folder, "debug_output.bin")):
        with open(os.path.join(folder, "debug_output.bin"), "rb") as f:
            buf = f.read()
    return doc, buf


def delegate_events(block):
    """(instruction_id, XNNPACK operator name) of the delegate profile events, in file order."""
    out = []
    for ev in block.get("events") or []:
        pe = ev.get("profile_event")
        if pe and pe.get("delegate_debug_id_str"):
            out.append([pe["instruction_id"], pe["delegate_debug_id_str"]])
    return out


def truth(args):
    """xnnpack_int8.truth.json: what each recording holds (flatc --json + NumPy over the debug
    buffers), the NumPy expected outputs, and the int8-vs-fp32 and one-vs-two-delegate pairs."""
    w = weights()
    q = quant_params(w)
    x = model_input()
    models = {"int8": int8_model(w, q, x), "fp32": fp32_model(w, x), "fp32_onedelegate": fp32_model(w, x)}
    out = {"derived_by": "tests/tools/gen_xnnpack_int8_fixture.py --truth (flatc --json of each etdump.etdp, "
                         "NumPy over debug_output.bin, NumPy models of the three programs)",
           "quantization": {"x": {"scale": float(q["x"][0]), "zero_point": q["x"][1]},
                            "h1": {"scale": float(q["h1"][0]), "zero_point": q["h1"][1]},
                            "h2": {"scale": float(q["h2"][0]), "zero_point": q["h2"][1]},
                            "weights": "qc8w: symmetric per output channel, scale max|w[c,:]|/127"},
           "variants": {}}
    tensors = {}
    for v, ref in models.items():
        base = os.path.join(args.out, v)
        pdoc, _ = recording(os.path.join(base, "profile"), args.et)
        idoc, buf = recording(os.path.join(base, "intermediates"), args.et)
        pblocks = lib.execute_blocks(pdoc)
        logged = lib.debug_tensors(lib.execute_blocks(idoc)[0], buf)
        tensors[v] = [a.astype(np.float64) for _, a in logged]
        out["variants"][v] = {
            "program": f"xnn_{v}.pte",
            "profile_execute_runs": len(pblocks),
            "delegate_events_per_run": delegate_events(pblocks[0]),
            "delegate_events_same_in_every_run": all(
                delegate_events(b) == delegate_events(pblocks[0]) for b in pblocks),
            "intermediates_execute_runs": len(lib.execute_blocks(idoc)),
            "debug_tensors_per_run": [{"instruction_id": de["instruction_id"],
                                       "program_output": bool(
                                           de["debug_entry"].get("output", {}).get("bool_val", False)),
                                       "dtype": de["debug_entry"]["tensor"]["scalar_type"],
                                       "shape": list(a.shape)} for de, a in logged],
            "numpy_probs_row0": [round(float(v_), 7) for v_ in ref["probs"][0]],
            "argmax_per_row": [int(i) for i in np.argmax(ref["probs"], axis=1)],
        }

    def pair(a, b, positions):
        res = []
        for name, i, j in positions:
            d = np.abs(tensors[a][i] - tensors[b][j])
            res.append({"tensor": name, "max_abs_diff": float(d.max()), "mean_abs_diff": float(d.mean()),
                        "bitwise_equal": bool(np.array_equal(tensors[a][i], tensors[b][j]))})
        return res

    two = [("x (delegate 0 input)", 0, 0), ("h2 (delegate 0 output)", 1, 1), ("h2 (delegate 1 input)", 2, 2),
           ("probs (delegate 1 output)", 3, 3), ("probs (program output)", 4, 4)]
    out["pairs"] = {
        "int8_vs_fp32": pair("int8", "fp32", two),
        "fp32_vs_fp32_onedelegate": pair("fp32", "fp32_onedelegate",
                                         [("x (delegate 0 input)", 0, 0), ("probs (last delegate output)", 3, 1),
                                          ("probs (program output)", 4, 2)]),
    }
    path = os.path.join(args.out, "xnnpack_int8.truth.json")
    lib.write_json(path, out)
    print(json.dumps(out["pairs"], indent=1))
    print(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--et", help="ExecuTorch checkout (schemas)")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", help="recording folder to compare with the NumPy model")
    ap.add_argument("--variant", choices=["int8", "fp32", "fp32_onedelegate"], default="int8")
    ap.add_argument("--truth", action="store_true", help="write xnnpack_int8.truth.json from the recordings in --out")
    args = ap.parse_args()
    if args.truth:
        truth(args)
        return
    if args.check:
        sys.exit(check(args))
    build(args)


if __name__ == "__main__":
    main()
