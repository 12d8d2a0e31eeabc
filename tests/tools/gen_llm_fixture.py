#!/usr/bin/python3
"""Authors the two-method decoder LLM program of tests/data/runtime/llm_decoder (issue 29 item 6)
and checks what the real ExecuTorch runtime computed with it against an independent NumPy model.

The model: a Llama-style decoder-only language model, vocabulary 256, dim 64, 2 layers, 4 heads
of 16, SwiGLU MLP of 128, RMSNorm (eps 1e-5), rotary positions (rotate-half form, theta 10000),
context 128. Weights are seeded NumPy draws (np.random.default_rng(29)), float32.

Outputs (written to --out, default tests/data/runtime/llm_decoder):
  llm_decoder.program.json     program.fbs JSON with two execution plans, 'prefill_forward'
                               (tokens [1,32]) and 'decode_forward' (tokens [1,1]); every
                               weight is an EXTERNAL constant (extra_tensor_info.location
                               EXTERNAL + fully_qualified_name, data_buffer_idx = its index in
                               the external constant list, no allocation_info), as
                               exir/emit/_emitter.py at cff6f4dd emits them.
  llm_decoder.pte              that JSON compiled with flatc (schema/program.fbs of the ExecuTorch
                               checkout given by --et, else core/program/program.fbs).
  llm_decoder.flat_tensor.json flat_tensor.fbs JSON: one named segment per constant.
  llm_decoder.ptd              FlatTensor file laid out as FlatTensorSerializer.serialize
                               (extension/flat_tensor/serialize/serialize.py at cff6f4dd):
                               FH01 header inserted after the root offset + "FT01", segments
                               each aligned to 128 after the flatbuffer.

Both methods take (tokens int64 [1,S], input_pos int64 [S], k0, v0, k1, v1 float32 [128,64]) and
return (logits float32 [1,1,256] of the last position, k0', v0', k1', v1'): the KV cache is a pair of method inputs and
outputs per layer; the runner copies each output cache into the next call's input. The cache
write is aten::index_put.out(cache, [input_pos], k) (position-major cache [128, 64]); attention
reads the whole cache and masks positions after input_pos with rows of the causal mask table
(0 / -inf) selected by aten::embedding.out, like the rotary cos/sin tables. prefill_forward keeps
only the last position before the final norm and output projection (a slice_copy, as llama's
h[:, -1, :] when full logits are not asked for); decode_forward (one position) has no slice, so
the two methods differ by one instruction from there on.

--check LOG compares the runner's log with the reference: the reference is a plain NumPy forward
over the whole token sequence (no KV cache, no masking tables; causal softmax over j <= i),
re-run from scratch for every generated token (greedy argmax). The prefill logits printed by the
runner (the first 8 logits of the prompt's last position) and the 64 generated tokens must match.

Usage:
  /usr/bin/python3 tests/tools/gen_llm_fixture.py [--et /work/rt/executorch] [--out DIR]
  /usr/bin/python3 tests/tools/gen_llm_fixture.py --check runner.log [--truth runs.truth.json]
"""

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOCAB, DIM, LAYERS, HEADS, HEAD_DIM, HIDDEN, CTX, PROMPT = 256, 64, 2, 4, 16, 128, 128, 32
EPS = 1e-5
THETA = 10000.0
SEGMENT_ALIGNMENT = 128
FT_HEADER_LENGTH, FT_PADDED_HEADER = 40, 48
PLAN_ALIGNMENT = 16


def prompt_tokens():
    # Same rule as the runner: token i of the prompt is (37 i + 11) mod 256.
    return [(i * 37 + 11) % VOCAB for i in range(PROMPT)]


def make_weights():
    rng = np.random.default_rng(29)

    def normal(shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    w = {"tok_embeddings.weight": normal((VOCAB, DIM), 1.0)}
    for layer in range(LAYERS):
        p = f"layers.{layer}."
        w[p + "attention_norm.weight"] = (1.0 + normal((DIM,), 0.1)).astype(np.float32)
        for n in ("wq", "wk", "wv", "wo"):
            w[p + f"attention.{n}.weight"] = normal((DIM, DIM), DIM**-0.5)
        w[p + "ffn_norm.weight"] = (1.0 + normal((DIM,), 0.1)).astype(np.float32)
        w[p + "feed_forward.w1.weight"] = normal((HIDDEN, DIM), DIM**-0.5)
        w[p + "feed_forward.w3.weight"] = normal((HIDDEN, DIM), DIM**-0.5)
        w[p + "feed_forward.w2.weight"] = normal((DIM, HIDDEN), HIDDEN**-0.5)
    w["norm.weight"] = (1.0 + normal((DIM,), 0.1)).astype(np.float32)
    w["output.weight"] = normal((VOCAB, DIM), DIM**-0.5 * 4.0)
    # Rotary tables (rotate-half form: both halves carry the same frequencies) and causal mask.
    inv = 1.0 / THETA ** (np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM)
    ang = np.outer(np.arange(CTX, dtype=np.float64), inv)
    ang = np.concatenate([ang, ang], axis=1)
    w["freqs_cos"] = np.cos(ang).astype(np.float32)
    w["freqs_sin"] = np.sin(ang).astype(np.float32)
    mask = np.zeros((CTX, CTX), dtype=np.float32)
    mask[np.triu_indices(CTX, 1)] = -np.inf
    w["mask"] = mask
    return w


# --------------------------------------------------------------------------------------------
# Independent reference: full-sequence forward, no cache.
def reference_logits(w, tokens):
    x = w["tok_embeddings.weight"][np.array(tokens)].astype(np.float32)  # [T, D]
    t = len(tokens)
    inv = 1.0 / THETA ** (np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM)
    ang = np.outer(np.arange(t, dtype=np.float64), inv)
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)  # [T, hd/2]

    def rms(v, g):
        return v / np.sqrt(np.mean(v * v, axis=-1, keepdims=True) + EPS) * g

    def rope(v):  # v [T, H, hd]; pairs (i, i + hd/2) rotated by angle pos * inv_i
        a, b = v[..., : HEAD_DIM // 2], v[..., HEAD_DIM // 2:]
        c, s = cos[:, None, :], sin[:, None, :]
        return np.concatenate([a * c - b * s, b * c + a * s], axis=-1)

    for layer in range(LAYERS):
        p = f"layers.{layer}."
        h = rms(x, w[p + "attention_norm.weight"])
        q = (h @ w[p + "attention.wq.weight"].T).reshape(t, HEADS, HEAD_DIM)
        k = (h @ w[p + "attention.wk.weight"].T).reshape(t, HEADS, HEAD_DIM)
        v = (h @ w[p + "attention.wv.weight"].T).reshape(t, HEADS, HEAD_DIM)
        q, k = rope(q), rope(k)
        out = np.zeros_like(q)
        for hd in range(HEADS):
            s = q[:, hd, :] @ k[:, hd, :].T / np.sqrt(HEAD_DIM)
            s = np.where(np.tril(np.ones((t, t), dtype=bool)), s, -np.inf)
            s = np.exp(s - s.max(axis=-1, keepdims=True))
            out[:, hd, :] = (s / s.sum(axis=-1, keepdims=True)) @ v[:, hd, :]
        x = x + out.reshape(t, DIM) @ w[p + "attention.wo.weight"].T
        h = rms(x, w[p + "ffn_norm.weight"])
        g = h @ w[p + "feed_forward.w1.weight"].T
        u = h @ w[p + "feed_forward.w3.weight"].T
        x = x + ((g / (1.0 + np.exp(-g))) * u) @ w[p + "feed_forward.w2.weight"].T
    return rms(x, w["norm.weight"]) @ w["output.weight"].T  # [T, V]


def reference_generation(w, steps):
    tokens = prompt_tokens()
    prefill = reference_logits(w, tokens)
    tokens.append(int(np.argmax(prefill[-1])))
    for _ in range(steps - 1):
        tokens.append(int(np.argmax(reference_logits(w, tokens)[-1])))
    return prefill, tokens[PROMPT:]


# --------------------------------------------------------------------------------------------
# Program authoring.
class Plan:
    def __init__(self, name, seq, externals):
        self.name, self.seq, self.externals = name, seq, externals
        self.values, self.instrs, self.ops, self.offset = [], [], [], 0
        self.const_cache = {}

    def add(self, v):
        self.values.append(v)
        return len(self.values) - 1

    def tensor(self, sizes, dtype="FLOAT"):
        nbytes = int(np.prod(sizes)) * (8 if dtype == "LONG" else 4)
        t = {"scalar_type": dtype, "storage_offset": 0, "sizes": list(sizes),
             "dim_order": list(range(len(sizes))), "requires_grad": False, "layout": 0,
             "shape_dynamism": "STATIC",
             "allocation_info": {"memory_id": 1, "memory_offset_low": self.offset, "memory_offset_high": 0}}
        self.offset += (nbytes + PLAN_ALIGNMENT - 1) // PLAN_ALIGNMENT * PLAN_ALIGNMENT
        idx = self.add({"val_type": "Tensor", "val": t})
        self.sizes = getattr(self, "sizes", {})
        self.sizes[idx] = list(sizes)
        return idx

    def weight(self, fqn):
        if fqn in self.const_cache:
            return self.const_cache[fqn]
        arr = self.externals[fqn]
        t = {"scalar_type": "FLOAT", "storage_offset": 0, "sizes": list(arr.shape),
             "dim_order": list(range(arr.ndim)), "requires_grad": False, "layout": 0,
             "shape_dynamism": "STATIC", "data_buffer_idx": list(self.externals).index(fqn),
             "extra_tensor_info": {"fully_qualified_name": fqn, "location": "EXTERNAL"}}
        idx = self.add({"val_type": "Tensor", "val": t})
        self.sizes = getattr(self, "sizes", {})
        self.sizes[idx] = list(arr.shape)
        self.const_cache[fqn] = idx
        return idx

    def int(self, v):
        return self.add({"val_type": "Int", "val": {"int_val": v}})

    def dbl(self, v):
        return self.add({"val_type": "Double", "val": {"double_val": v}})

    def bool(self, v):
        return self.add({"val_type": "Bool", "val": {"bool_val": v}})

    def null(self):
        return self.add({"val_type": "Null", "val": {}})

    def ints(self, vs):
        return self.add({"val_type": "IntList", "val": {"items": [self.int(v) for v in vs]}})

    def call(self, op, args, out_sizes):
        name, overload = op.split(".")
        key = {"name": "aten::" + name, "overload": overload}
        if key not in self.ops:
            self.ops.append(key)
        out = self.tensor(out_sizes)
        self.instrs.append({"instr_args_type": "KernelCall",
                            "instr_args": {"op_index": self.ops.index(key), "args": args + [out, out]}})
        return out

    # ---- ops (argument order of the portable kernels' out variants) ----
    def embedding(self, weight, idx, out_sizes):
        return self.call("embedding.out", [weight, idx, self.int(-1), self.bool(False), self.bool(False)], out_sizes)

    def view(self, x, sizes):
        return self.call("view_copy.out", [x, self.ints(sizes)], sizes)

    def permute(self, x, dims):
        s = self.sizes[x]
        return self.call("permute_copy.out", [x, self.ints(dims)], [s[d] for d in dims])

    def mul(self, a, b, sizes):
        return self.call("mul.out", [a, b], sizes)

    def add_(self, a, b, sizes):
        return self.call("add.out", [a, b, self.int(1)], sizes)

    def linear(self, x, fqn):
        wt = self.permute(self.weight(fqn), [1, 0])
        return self.call("mm.out", [x, wt], [self.sizes[x][0], self.sizes[wt][1]])

    def rmsnorm(self, x, fqn):
        s = self.sizes[x]
        sq = self.mul(x, x, s)
        ms = self.call("mean.out", [sq, self.ints([-1]), self.bool(True), self.null()], [s[0], 1])
        mse = self.call("add.Scalar_out", [ms, self.dbl(EPS), self.int(1)], [s[0], 1])
        r = self.call("rsqrt.out", [mse], [s[0], 1])
        n = self.mul(x, r, s)
        return self.mul(n, self.weight(fqn), s)

    def rope(self, x, cos3, sin3):
        s = self.sizes[x]
        half = HEAD_DIM // 2
        x1 = self.call("slice_copy.Tensor_out", [x, self.int(2), self.int(0),
                       self.int(half), self.int(1)], s[:2] + [half])
        x2 = self.call("slice_copy.Tensor_out", [x, self.int(2), self.int(
            half), self.int(HEAD_DIM), self.int(1)], s[:2] + [half])
        n2 = self.call("neg.out", [x2], s[:2] + [half])
        lst = self.add({"val_type": "TensorList", "val": {"items": [n2, x1]}})
        rot = self.call("cat.out", [lst, self.int(2)], s)
        a = self.mul(x, cos3, s)
        b = self.mul(rot, sin3, s)
        return self.add_(a, b, s)


def build_plan(name, seq, externals):
    p = Plan(name, seq, externals)
    tokens = p.tensor([1, seq], "LONG")
    pos = p.tensor([seq], "LONG")
    caches = [p.tensor([CTX, DIM]) for _ in range(2 * LAYERS)]
    S, D, H, hd = seq, DIM, HEADS, HEAD_DIM
    x = p.embedding(p.weight("tok_embeddings.weight"), tokens, [1, S, D])
    x = p.view(x, [S, D])
    cos = p.view(p.embedding(p.weight("freqs_cos"), pos, [S, hd]), [S, 1, hd])
    sin = p.view(p.embedding(p.weight("freqs_sin"), pos, [S, hd]), [S, 1, hd])
    mask = p.embedding(p.weight("mask"), pos, [S, CTX])
    new_caches = []
    for layer in range(LAYERS):
        pre = f"layers.{layer}."
        h = p.rmsnorm(x, pre + "attention_norm.weight")
        q = p.view(p.linear(h, pre + "attention.wq.weight"), [S, H, hd])
        k = p.view(p.linear(h, pre + "attention.wk.weight"), [S, H, hd])
        v = p.linear(h, pre + "attention.wv.weight")
        q = p.rope(q, cos, sin)
        k = p.view(p.rope(k, cos, sin), [S, D])
        idx = p.add({"val_type": "OptionalTensorList", "val": {"items": [pos]}})
        kc = p.call("index_put.out", [caches[2 * layer], idx, k, p.bool(False)], [CTX, D])
        vc = p.call("index_put.out", [caches[2 * layer + 1], idx, v, p.bool(False)], [CTX, D])
        new_caches += [kc, vc]
        qh = p.permute(q, [1, 0, 2])  # [H, S, hd]
        kt = p.permute(p.view(kc, [CTX, H, hd]), [1, 2, 0])  # [H, hd, C]
        vh = p.permute(p.view(vc, [CTX, H, hd]), [1, 0, 2])  # [H, C, hd]
        sc = p.call("bmm.out", [qh, kt], [H, S, CTX])
        sc = p.call("mul.Scalar_out", [sc, p.dbl(HEAD_DIM**-0.5)], [H, S, CTX])
        sc = p.add_(sc, mask, [H, S, CTX])
        pr = p.call("_softmax.out", [sc, p.int(-1), p.bool(False)], [H, S, CTX])
        o = p.call("bmm.out", [pr, vh], [H, S, hd])
        o = p.view(p.permute(o, [1, 0, 2]), [S, D])
        x = p.add_(x, p.linear(o, pre + "attention.wo.weight"), [S, D])
        h = p.rmsnorm(x, pre + "ffn_norm.weight")
        g = p.linear(h, pre + "feed_forward.w1.weight")
        u = p.linear(h, pre + "feed_forward.w3.weight")
        sg = p.call("sigmoid.out", [g], [S, HIDDEN])
        m = p.mul(p.mul(g, sg, [S, HIDDEN]), u, [S, HIDDEN])
        x = p.add_(x, p.linear(m, pre + "feed_forward.w2.weight"), [S, D])
    if S > 1:  # prefill: only the last position's logits (llama's h[:, -1, :])
        x = p.call("slice_copy.Tensor_out", [x, p.int(0), p.int(S - 1), p.int(S), p.int(1)], [1, D])
    h = p.rmsnorm(x, "norm.weight")
    logits = p.view(p.linear(h, "output.weight"), [1, 1, VOCAB])
    inputs = [tokens, pos] + caches
    outputs = [logits] + new_caches
    return {"name": name, "values": p.values, "inputs": inputs, "outputs": outputs,
            "chains": [{"inputs": inputs, "outputs": outputs, "instructions": p.instrs}],
            "operators": p.ops, "delegates": [], "non_const_buffer_sizes": [0, p.offset]}


def flatc(schema_dir, schema, doc, stem):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, stem + ".json")
        with open(src, "w") as f:
            json.dump(doc, f)
        subprocess.run(["flatc", "-b", "-o", d, os.path.join(schema_dir, schema), src], check=True)
        out = [n for n in os.listdir(d) if n != stem + ".json"]
        with open(os.path.join(d, out[0]), "rb") as f:
            return f.read()


def build_ptd(schema_dir, weights):
    segments, named, data = [], [], bytearray()
    for i, (fqn, arr) in enumerate(weights.items()):
        off = (len(data) + SEGMENT_ALIGNMENT - 1) // SEGMENT_ALIGNMENT * SEGMENT_ALIGNMENT
        data += b"\0" * (off - len(data)) + arr.astype("<f4").tobytes()
        segments.append({"offset": off, "size": arr.nbytes})
        named.append({"key": fqn, "segment_index": i,
                      "tensor_layout": {"scalar_type": "FLOAT", "sizes": list(arr.shape),
                                        "dim_order": list(range(arr.ndim))}})
    doc = {"version": 0, "segments": segments, "named_data": named}
    fb = flatc(schema_dir, "flat_tensor.fbs", doc, "llm_decoder.flat_tensor")
    base = (len(fb) + FT_PADDED_HEADER + SEGMENT_ALIGNMENT - 1) // SEGMENT_ALIGNMENT * SEGMENT_ALIGNMENT
    header = (b"FH01" + struct.pack("<IQQQQ", FT_HEADER_LENGTH, FT_PADDED_HEADER, len(fb), base, len(data)))
    header = header.ljust(FT_PADDED_HEADER, b"\0")
    root = struct.unpack_from("<I", fb, 0)[0]
    out = struct.pack("<I", root + FT_PADDED_HEADER) + fb[4:8] + header + fb[8:]
    return doc, out.ljust(base, b"\0") + bytes(data)


def write_fixture(args):
    weights = make_weights()
    program = {"version": 0,
               "execution_plan": [build_plan("prefill_forward", PROMPT, weights),
                                  build_plan("decode_forward", 1, weights)],
               # No constant in the program itself: the empty constant segment (offsets [0], the
               # placeholder) of size 0 and no extended header, as exir/_serialize/_program.py
               # serialize_pte_binary writes when every constant is external.
               "constant_buffer": [], "backend_delegate_data": [],
               "segments": [{"offset": 0, "size": 0}],
               "constant_segment": {"segment_index": 0, "offsets": [0]}}
    if args.et:
        prog_schema = os.path.join(args.et, "schema")
        ptd_schema = os.path.join(args.et, "extension", "flat_tensor", "serialize")
    else:
        prog_schema = ptd_schema = os.path.join(ROOT, "core", "program")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "llm_decoder.program.json"), "w") as f:
        json.dump(program, f, indent=1)
        f.write("\n")
    pte = flatc(prog_schema, "program.fbs", program, "llm_decoder.program")
    with open(os.path.join(args.out, "llm_decoder.pte"), "wb") as f:
        f.write(pte)
    doc, ptd = build_ptd(ptd_schema, weights)
    with open(os.path.join(args.out, "llm_decoder.flat_tensor.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out, "llm_decoder.ptd"), "wb") as f:
        f.write(ptd)
    for plan in program["execution_plan"]:
        print(f"{plan['name']}: {len(plan['chains'][0]['instructions'])} instructions, "
              f"{len(plan['values'])} values, {len(plan['operators'])} operators, "
              f"planned {plan['non_const_buffer_sizes'][1]} bytes")
    print(f"llm_decoder.pte: {len(pte)} bytes; llm_decoder.ptd: {len(ptd)} bytes, {len(weights)} tensors")


def check(args):
    weights = make_weights()
    text = open(args.check).read()
    m = re.search(r"prefill logits \(last position, first 8\): (.*)", text)
    got_logits = np.array([float(v) for v in m.group(1).split()])
    gen = re.search(r"Generated (\d+) tokens: ([0-9 ]*)", text)
    got_tokens = [int(t) for t in gen.group(2).split()]
    prefill, ref_tokens = reference_generation(weights, len(got_tokens))
    worst = float(np.max(np.abs(got_logits - prefill[-1, : len(got_logits)])))
    print(f"prefill logits (last position) numpy  : {' '.join(f'{v:.6f}' for v in prefill[-1, :8])}")
    print(f"prefill logits (last position) runtime: {' '.join(f'{v:.6f}' for v in got_logits)}")
    print(f"max |runtime - numpy| = {worst:.3g}")
    print(f"generated tokens runtime: {got_tokens}")
    print(f"generated tokens numpy  : {ref_tokens}")
    ok = len(got_logits) == 8 and worst < 1e-4 and got_tokens == ref_tokens
    print("MATCH" if ok else "MISMATCH")
    if args.truth:
        # The ground truth of run attribution: which method each Method::execute ran, as logged
        # by the runner (one "Execute run N: method M" line per call, in call order).
        truth = []
        for m in re.finditer(r"Execute run (\d+): method (\S+) \(tokens (\d+), positions (\d+)\.\.(\d+)\)", text):
            assert int(m.group(1)) == len(truth)
            truth.append({"method": m.group(2),
                          "why": f"runner log: Execute run {m.group(1)}, {m.group(3)} token(s) at positions "
                                 f"{m.group(4)}..{m.group(5)}"})
        with open(args.truth, "w") as f:
            f.write("[\n" + ",\n".join("  " + json.dumps(t) for t in truth) + "\n]\n")
        print(f"{args.truth}: {len(truth)} runs")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--et", help="ExecuTorch checkout whose schemas flatc compiles against")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "runtime", "llm_decoder"))
    ap.add_argument("--check", help="runner log to compare with the NumPy reference")
    ap.add_argument("--truth", help="with --check: write the runner's method per Execute run as JSON here")
    args = ap.parse_args()
    if args.check:
        sys.exit(check(args))
    if not shutil.which("flatc"):
        sys.exit("flatc not found")
    write_fixture(args)


if __name__ == "__main__":
    main()
