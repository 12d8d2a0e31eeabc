#!/usr/bin/python3
"""Writes the quantized-graph fixtures under tests/data/eval/ with real PyTorch (Debian
python3-torch 1.13): three models traced with make_fx into Edge-dialect ETRecords the way
gen_eval_fixtures.py does (its serializer is reused):

- qcnn: a PT2E-style CNN: int8 per-channel weights (stored quantized, dequantize_per_channel of
  a constant) and per-tensor activations (quantize/dequantize_per_tensor pairs around every conv
  and linear), activation parameters calibrated on the representative input.
- qlinear: a linear stack with dynamic activations: choose_qparams_per_token_asymmetric ->
  quantize_per_token -> dequantize_per_token before each int8 per-channel linear, and one layer
  with dynamic per-tensor parameters (choose_qparams.tensor, quantize/dequantize_per_tensor.tensor).
- qdecoder: a decoder block with 4-bit groupwise weights held in int8 ([-8, 7],
  dequantize_per_channel_group), 8-bit dynamic per-token activations, grouped-query attention
  through repeat_interleave (aten.repeat_interleave.Tensor + index_select in the traced graph) and
  an MLP quantized with torchao's choose_qparams_affine / quantize_affine / dequantize_affine.

torch 1.13 has none of these operators: they are defined here with torch.library under their
upstream names (quantized_decomposed::..., torchao::...) and implemented with torch operations
transcribing upstream's definitions (pytorch/pytorch torch/ao/quantization/fx/_decomposed.py at
6661d4b60b4101b1a9901cabbcd54bdafe2e12ac; pytorch/ao torchao/quantization/quant_primitives.py at
212d912dcbfb43b13cc4bee533d3d1844d76b7c1). Weights are quantized with PyTorch's own
torch.quantize_per_channel where it exists (per channel); the float model dequantizes them with
PyTorch's quantized-tensor dequantize().

Written per model <stem>:
  <stem>_etrecord.bin, <stem>_inputs.pt, <stem>_expected.pt  every node's output (fx Interpreter)
  <stem>_twin_expected.pt   every node's output of the float twin: the same graph run with each
                            dequantize fed by a quantize returning the quantize's float input
  <stem>_float_outputs.pt   the float model's outputs, computed eagerly by a separate float
                            module (no activation quantization, weights dequantized by PyTorch)

Run: /usr/bin/python3 tests/tools/gen_quant_fixtures.py
"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_eval_fixtures as G  # noqa: E402  (serializer, quantized_decomposed library)

OUT = G.OUT
qlib, qimpl = G.qlib, G.qimpl

# ---- operators, as upstream defines them -----------------------------------------------------------
qlib.define("quantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, "
            "int quant_max, ScalarType dtype) -> Tensor")
qlib.define("dequantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, "
            "int quant_max, ScalarType dtype) -> Tensor")
qlib.define("choose_qparams.tensor(Tensor input, int quant_min, int quant_max, float eps, "
            "ScalarType dtype) -> (Tensor, Tensor)")
qlib.define("choose_qparams_per_token_asymmetric(Tensor input, ScalarType dtype) -> (Tensor, Tensor)")
qlib.define("quantize_per_channel_group(Tensor input, Tensor scales, Tensor zero_points, int quant_min, "
            "int quant_max, ScalarType dtype, int group_size) -> Tensor")
qlib.define("dequantize_per_channel_group(Tensor input, Tensor scales, Tensor? zero_points, int quant_min, "
            "int quant_max, ScalarType dtype, int group_size, ScalarType output_dtype) -> Tensor")


def _q_tensor(x, scale, zp, lo, hi, dt):
    return G._q(x, scale.item(), zp.item(), lo, hi, dt)


def _dq_tensor(x, scale, zp, lo, hi, dt):
    return G._dq(x, scale.item(), zp.item(), lo, hi, dt)


def _choose_qparams(x, qmin, qmax, eps, dtype):
    # aminmax, then determine_qparams (per_tensor_affine): float64 scale [1], int64 zero point [1]
    mn, mx = torch.aminmax(x)
    mn_neg, mx_pos = torch.min(mn, torch.zeros_like(mn)), torch.max(mx, torch.zeros_like(mx))
    scale = (mx_pos - mn_neg) / float(qmax - qmin)
    scale = torch.max(scale, torch.Tensor([eps]))
    zp = qmin - torch.round(mn_neg / scale).to(torch.int)
    zp = torch.clamp(zp, qmin, qmax)
    return scale.to(torch.double), zp.to(torch.int64)


def _choose_per_token_asym(x, dtype):
    qmin, qmax = -128, 127
    mn = torch.amin(x, dim=-1, keepdim=True)
    mx = torch.amax(x, dim=-1, keepdim=True)
    mn_neg, mx_pos = torch.min(mn, torch.zeros_like(mn)), torch.max(mx, torch.zeros_like(mx))
    scale = ((mx_pos - mn_neg) / float(qmax - qmin)).clamp(min=torch.finfo(torch.float32).eps)
    dmin, dmax = mn_neg / scale, mx_pos / scale
    zp = torch.where((qmin + dmin) + (qmax + dmax) > 0, qmin - dmin, qmax - dmax)
    zp = torch.clamp(zp, qmin, qmax).round()
    return scale.to(torch.float64), zp.to(torch.int64)


def _q_group(x, scales, zps, lo, hi, dt, g):
    t = x.reshape(-1, g)
    return t.mul(1.0 / scales.reshape(-1, 1)).add(zps.reshape(-1, 1)).round().clamp_(lo, hi).to(dt).reshape_as(x)


def _dq_group(w, scales, zps, lo, hi, dt, g, odt):
    wg = w.reshape(-1, g)
    zp = zps.reshape(-1, 1) if zps is not None else torch.zeros([], dtype=torch.int32)
    return wg.sub(zp).mul(scales.reshape(-1, 1)).reshape_as(w).to(odt)


qimpl.impl("quantize_per_tensor.tensor", _q_tensor)
qimpl.impl("dequantize_per_tensor.tensor", _dq_tensor)
qimpl.impl("choose_qparams.tensor", _choose_qparams)
qimpl.impl("choose_qparams_per_token_asymmetric", _choose_per_token_asym)
qimpl.impl("quantize_per_channel_group", _q_group)
qimpl.impl("dequantize_per_channel_group", _dq_group)

alib = torch.library.Library("torchao", "DEF")
alib.define("quantize_affine(Tensor input, int[] block_size, Tensor scale, Tensor? zero_point, "
            "ScalarType output_dtype, int? quant_min=None, int? quant_max=None, "
            "str zero_point_domain=\"INT\") -> Tensor")
alib.define("dequantize_affine(Tensor input, int[] block_size, Tensor scale, Tensor? zero_point, "
            "ScalarType input_dtype, int? quant_min, int? quant_max, str zero_point_domain, "
            "ScalarType output_dtype) -> Tensor")
alib.define("choose_qparams_affine(Tensor input, str mapping_type, int[] block_size, ScalarType target_dtype, "
            "int? quant_min=None, int? quant_max=None, float? eps=None, ScalarType? scale_dtype=None, "
            "ScalarType? zero_point_dtype=None, bool preserve_zero=True, "
            "str? zero_point_domain=\"INT\") -> (Tensor, Tensor)")
aimpl = torch.library.Library("torchao", "IMPL", "CPU")


def _reduction(block, size):
    shape, dims, cur = [], [], 0
    for b, n in zip(block, size):
        if b != n and b > 1:
            assert n % b == 0
            shape += [n // b, b]
            dims.append(cur + 1)
            cur += 2
        else:
            shape.append(n)
            if b != 1:
                dims.append(cur)
            cur += 1
    return shape, dims


def _after(shape, dims):
    s = list(shape)
    for d in dims:
        s[d] = 1
    return s


def _quantize_affine(x, block, scale, zp, dt, lo, hi, domain="INT"):
    assert domain == "INT"
    shape, dims = _reduction(block, x.shape)
    sa = _after(shape, dims)
    q = torch.clamp(torch.round(x.view(shape) * (1.0 / scale.view(sa))) + zp.view(sa), lo, hi)
    return q.view(x.shape).to(dt)


def _dequantize_affine(q, block, scale, zp, dt, lo, hi, domain, odt):
    assert domain == "INT"
    shape, dims = _reduction(block, q.shape)
    sa = _after(shape, dims)
    d = q.view(shape).to(torch.int32) - zp.view(sa).to(torch.int32)
    return (d.to(odt) * scale.view(sa)).view(q.shape).to(odt)


def _choose_affine(x, mapping, block, dt, lo=None, hi=None, eps=None,
                   sdt=None, zdt=None, preserve_zero=True, domain="INT"):
    assert mapping == "ASYMMETRIC" and preserve_zero and domain == "INT"
    shape, dims = _reduction(block, x.shape)
    xs = x.view(shape)
    mn, mx = torch.amin(xs, dim=dims), torch.amax(xs, dim=dims)
    mn_neg, mx_pos = torch.min(mn, torch.zeros_like(mn)), torch.max(mx, torch.zeros_like(mx))
    scale = torch.clamp((mx_pos - mn_neg) / float(hi - lo), min=eps)
    zp = torch.clamp(lo - torch.round(mn_neg / scale), lo, hi)
    return scale.to(sdt or x.dtype), zp.to(zdt or torch.int32)


aimpl.impl("quantize_affine", _quantize_affine)
aimpl.impl("dequantize_affine", _dequantize_affine)
aimpl.impl("choose_qparams_affine", _choose_affine)

QD = torch.ops.quantized_decomposed
AO = torch.ops.torchao
QUANT_OPS = ("quantize_per_tensor", "quantize_per_channel", "quantize_per_token", "quantize_per_channel_group",
             "quantize_affine")
DEQUANT_OPS = tuple("de" + n for n in QUANT_OPS)


def act_qparams(t):
    """Static int8 activation parameters from a calibration tensor (determine_qparams rules)."""
    s, z = _choose_qparams(t.detach(), -128, 127, torch.finfo(torch.float32).eps, torch.int8)
    return float(s.item()), int(z.item())


def fq(x, p):
    s, z = p
    return QD.dequantize_per_tensor(QD.quantize_per_tensor(x, s, z, -128, 127, torch.int8), s, z, -128, 127, torch.int8)


def per_channel_int8(w, bits=8):
    """Symmetric per-output-channel weights quantized by torch.quantize_per_channel."""
    qmax = 2 ** (bits - 1) - 1
    scales = (w.abs().reshape(w.shape[0], -1).amax(1) / qmax).clamp(min=1e-8).float()
    zps = torch.zeros(w.shape[0], dtype=torch.int64)
    qt = torch.quantize_per_channel(w, scales.double(), zps, 0, torch.qint8)
    return qt.int_repr(), scales, zps, qt.dequantize()


# ---- models ------------------------------------------------------------------------------------------
class QCnn(torch.nn.Module):
    """conv(3->8) relu conv(8->16, stride 2) relu avgpool linear(64->10); q/dq per tensor around
    each; weights int8 per channel."""

    def __init__(self, x):
        super().__init__()
        c1, c2, fc = torch.nn.Conv2d(
            3, 8, 3, padding=1), torch.nn.Conv2d(
            8, 16, 3, stride=2, padding=1), torch.nn.Linear(
            64, 10)
        self.deq = {}
        for name, m in (("c1", c1), ("c2", c2), ("fc", fc)):
            q, s, z, d = per_channel_int8(m.weight.detach())
            self.register_buffer(name + "_wq", q)
            self.register_buffer(name + "_ws", s)
            self.register_buffer(name + "_wz", z)
            self.register_buffer(name + "_b", m.bias.detach().clone())
            self.deq[name] = d
        self.act = {}
        self.quant = False
        with torch.no_grad():
            self.forward(x, calibrate=True)
        self.quant = True

    def w(self, name):
        if not self.quant:
            return self.deq[name]
        return QD.dequantize_per_channel(getattr(self, name + "_wq"), getattr(self, name + "_ws"),
                                         getattr(self, name + "_wz"), 0, -127, 127, torch.int8)

    def a(self, key, t, calibrate):
        if calibrate:
            self.act[key] = act_qparams(t)
        return fq(t, self.act[key]) if self.quant else t

    def forward(self, x, calibrate=False):
        x = self.a("in", x, calibrate)
        y = self.a("c1", F.relu(F.conv2d(x, self.w("c1"), self.c1_b, padding=1)), calibrate)
        y = self.a("c2", F.relu(F.conv2d(y, self.w("c2"), self.c2_b, stride=2, padding=1)), calibrate)
        y = self.a("pool", F.adaptive_avg_pool2d(y, 2).flatten(1), calibrate)
        return self.a("fc", F.linear(y, self.w("fc"), self.fc_b), calibrate)


class QLinear(torch.nn.Module):
    """Three linears 16->32->32->8 with int8 per-channel weights; dynamic per-token activations
    for the first and last, dynamic per-tensor (choose_qparams.tensor) for the middle one."""

    def __init__(self):
        super().__init__()
        self.deq = {}
        for i, (n_in, n_out) in enumerate(((16, 32), (32, 32), (32, 8))):
            m = torch.nn.Linear(n_in, n_out)
            q, s, z, d = per_channel_int8(m.weight.detach())
            self.register_buffer(f"l{i}_wq", q)
            self.register_buffer(f"l{i}_ws", s)
            self.register_buffer(f"l{i}_wz", z)
            self.register_buffer(f"l{i}_b", m.bias.detach().clone())
            self.deq[i] = d
        self.quant = True

    def lin(self, i, h):
        if not self.quant:
            return F.linear(h, self.deq[i], getattr(self, f"l{i}_b"))
        if i == 1:
            s, z = QD.choose_qparams.tensor(h, -128, 127, torch.finfo(torch.float32).eps, torch.int8)
            h = QD.dequantize_per_tensor.tensor(QD.quantize_per_tensor.tensor(h, s, z, -128, 127, torch.int8),
                                                s, z, -128, 127, torch.int8)
        else:
            s, z = QD.choose_qparams_per_token_asymmetric(h, torch.int8)
            h = QD.dequantize_per_token(QD.quantize_per_token(h, s, z, -128, 127, torch.int8), s, z, -128, 127,
                                        torch.int8, torch.float32)
        w = QD.dequantize_per_channel(getattr(self, f"l{i}_wq"), getattr(self, f"l{i}_ws"), getattr(self, f"l{i}_wz"),
                                      0, -127, 127, torch.int8)
        return F.linear(h, w, getattr(self, f"l{i}_b"))

    def forward(self, x):
        h = F.relu(self.lin(0, x))
        h = F.gelu(self.lin(1, h))
        return self.lin(2, h)


def group_int4(w, g):
    """Symmetric 4-bit groupwise weights in int8 ([-8, 7]), zero points 0, as ExecuTorch's 8da4w."""
    wg = w.reshape(-1, g)
    scales = (wg.abs().amax(1) / 7.5).clamp(min=1e-6).float()  # torchao SYMMETRIC: max / ((7 - -8) / 2)
    zps = torch.zeros_like(scales, dtype=torch.int64)
    q = _q_group(w, scales, zps, -8, 7, torch.int8, g)
    return q, scales, zps, _dq_group(q, scales, zps, -8, 7, torch.int8, g, torch.float32)


class QDecoder(torch.nn.Module):
    """RMSNorm, grouped-query attention (4 query heads, 2 kv heads, repeat_interleave), causal
    softmax attention, SiLU-gated MLP; 4-bit groupwise weights (group 8) with 8-bit dynamic
    per-token activations on the attention projections (quantized_decomposed) and 4-bit
    asymmetric block [1, 16] weights with per-token affine activations on the MLP (torchao)."""

    def __init__(self, dim=32, heads=4, kv_heads=2, hidden=48):
        super().__init__()
        self.heads, self.kv, self.hd = heads, kv_heads, dim // heads
        self.deq = {}
        self.n1 = torch.nn.Parameter(torch.rand(dim) + 0.5)
        self.n2 = torch.nn.Parameter(torch.rand(dim) + 0.5)
        for name, (o, i) in {"wq": (dim, dim), "wk": (kv_heads * self.hd, dim), "wv": (kv_heads * self.hd, dim),
                             "wo": (dim, dim)}.items():
            w = torch.randn(o, i) / math.sqrt(i)
            q, s, z, d = group_int4(w, 8)
            self.register_buffer(name + "_q", q)
            self.register_buffer(name + "_s", s)
            self.register_buffer(name + "_z", z)
            self.deq[name] = d
        for name, (o, i) in {"w1": (hidden, dim), "w3": (hidden, dim), "w2": (dim, hidden)}.items():
            w = torch.randn(o, i) / math.sqrt(i)
            s, z = _choose_affine(w, "ASYMMETRIC", [1, 16], torch.int8, -8, 7, torch.finfo(torch.float32).eps,
                                  torch.float32, torch.int32, True, "INT")
            q = _quantize_affine(w, [1, 16], s, z, torch.int8, -8, 7)
            self.register_buffer(name + "_q", q)
            self.register_buffer(name + "_s", s)
            self.register_buffer(name + "_z", z)
            self.deq[name] = _dequantize_affine(q, [1, 16], s, z, torch.int8, -8, 7, "INT", torch.float32)
        self.quant = True

    def lin4(self, name, h):
        if not self.quant:
            return F.linear(h, self.deq[name])
        s, z = QD.choose_qparams_per_token_asymmetric(h, torch.int8)
        h = QD.dequantize_per_token(QD.quantize_per_token(h, s, z, -128, 127, torch.int8), s, z, -128, 127,
                                    torch.int8, torch.float32)
        w = QD.dequantize_per_channel_group(getattr(self, name + "_q"), getattr(self, name + "_s"),
                                            getattr(self, name + "_z"), -8, 7, torch.int8, 8, torch.float32)
        return F.linear(h, w)

    def linao(self, name, h):
        if not self.quant:
            return F.linear(h, self.deq[name])
        block = [1] * (h.dim() - 1) + [h.shape[-1]]
        s, z = AO.choose_qparams_affine(h, "ASYMMETRIC", block, torch.int8, -128, 127,
                                        torch.finfo(torch.float32).eps, torch.float32, torch.int32, True, "INT")
        h = AO.dequantize_affine(AO.quantize_affine(h, block, s, z, torch.int8, -128, 127, "INT"), block, s, z,
                                 torch.int8, -128, 127, "INT", torch.float32)
        w = AO.dequantize_affine(getattr(self, name + "_q"), [1, 16], getattr(self, name + "_s"),
                                 getattr(self, name + "_z"), torch.int8, -8, 7, "INT", torch.float32)
        return F.linear(h, w)

    @staticmethod
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w

    def forward(self, x):
        B, S, D = x.shape
        h = self.rms(x, self.n1)
        q = self.lin4("wq", h).view(B, S, self.heads, self.hd).transpose(1, 2)
        k = self.lin4("wk", h).view(B, S, self.kv, self.hd).transpose(1, 2)
        v = self.lin4("wv", h).view(B, S, self.kv, self.hd).transpose(1, 2)
        rep = self.heads // self.kv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.hd))
        causal = torch.ones(S, S, dtype=torch.bool).tril()
        att = torch.softmax(att.masked_fill(~causal, float("-inf")), dim=-1)
        a = (att @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.lin4("wo", a)
        h = self.rms(x, self.n2)
        return x + self.linao("w2", F.silu(self.linao("w1", h)) * self.linao("w3", h))


# ---- the float twin as PyTorch computes it ----------------------------------------------------------
def op_name(target):
    return getattr(target, "_schema", None) and target._schema.name.split("::")[-1]


def twin_capture(gm, inputs):
    """Every call_function node's value with dequantize(quantize(x)) -> x."""
    values = {}

    class Twin(torch.fx.Interpreter):
        def run_node(self, n):
            if n.op == "call_function" and op_name(n.target) in DEQUANT_OPS and isinstance(n.args[0], torch.fx.Node) \
                    and op_name(n.args[0].target) in QUANT_OPS:
                r = values[n.args[0].args[0]].to(torch.float32)
            else:
                r = super().run_node(n)
            values[n] = G.snapshot(r)
            return r

    with torch.no_grad():
        Twin(gm).run(*inputs)
    return values


def twin_expected(gm, inputs):
    values = twin_capture(gm, inputs)
    out = {}
    for n in gm.graph.nodes:
        if n.op != "call_function" or getattr(n.target, "__name__", "") == "getitem":
            continue
        v = values[n]
        out[n.name] = [t.clone() for t in v if t is not None] if isinstance(v, (tuple, list)) else [v.clone()]
    return out


def write(stem, model, inputs):
    model.eval()
    info = G.write_case(stem, model, inputs, "edge")
    with torch.enable_grad():
        gm = make_fx(model)(*inputs)
    torch.save(twin_expected(gm, inputs), os.path.join(OUT, f"{stem}_twin_expected.pt"))
    model.quant = False
    with torch.no_grad():
        flt = model(*inputs)
    model.quant = True
    flt = list(flt) if isinstance(flt, (tuple, list)) else [flt]
    torch.save(flt, os.path.join(OUT, f"{stem}_float_outputs.pt"))
    return info


def main():
    os.makedirs(OUT, exist_ok=True)
    summary = {"generator": "tests/tools/gen_quant_fixtures.py", "torch": torch.__version__, "cases": {}}
    torch.manual_seed(30)
    x = torch.randn(1, 3, 8, 8)
    summary["cases"]["qcnn"] = write("qcnn", QCnn(x), [x])
    torch.manual_seed(31)
    summary["cases"]["qlinear"] = write("qlinear", QLinear(), [torch.randn(2, 4, 16) * 1.5])
    torch.manual_seed(32)
    summary["cases"]["qdecoder"] = write("qdecoder", QDecoder(), [torch.randn(1, 6, 32)])
    with open(os.path.join(OUT, "quant_expected.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    for k, v in summary["cases"].items():
        print(k, v["nodes"], "nodes", v["ops"])


if __name__ == "__main__":
    main()
