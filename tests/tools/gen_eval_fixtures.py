#!/usr/bin/python3
"""Writes the evaluator fixtures under tests/data/eval/ with real PyTorch (Debian python3-torch 1.13).

Each model below is traced to an ATen graph with make_fx, serialized in the exported-program JSON
layout that core/etrecord reads (formats.md §3.4, the same writer rules as
gen_etrecord_fixtures.py) and packed into an ETRecord with its state dict, constants and
representative_inputs. The graph is then run node by node with torch.fx.Interpreter and EVERY
call_function node's output is stored (torch.save of {node name: [tensors]}) as the oracle that
tests/eval/tst_evaluator.cpp compares against. Some graphs use Edge target spellings, some ATen.

torch 1.13 has neither torch.ops.quantized_decomposed nor scaled_dot_product_attention: both
are defined here through torch.library with the reference decompositions (the formulas of
torch/ao/quantization/fx/_decomposed.py and of F.scaled_dot_product_attention's math path), so
the graph carries the real operator names while the oracle is computed by torch ops.

Run: /usr/bin/python3 tests/tools/gen_eval_fixtures.py [CASE...]
"""
import io
import json
import math
import os
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.fx.experimental.proxy_tensor import make_fx

# The first fixtures (legacy_cases) were made without snapshots; their oracles stay as they are.
SNAPSHOT = True
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "eval")
EDGE = "executorch.exir.dialects.edge.ops."
JSON_DTYPE = {torch.uint8: 1, torch.int8: 2, torch.int16: 3, torch.int32: 4, torch.int64: 5,
              torch.float16: 6, torch.float32: 7, torch.float64: 8, torch.bool: 12, torch.bfloat16: 13}

# ---- operators torch 1.13 lacks, defined with their reference decompositions -------------------
qlib = torch.library.Library("quantized_decomposed", "DEF")
qlib.define("quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
            "ScalarType dtype) -> Tensor")
qlib.define("dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
            "ScalarType dtype) -> Tensor")
qlib.define("quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, "
            "int quant_max, ScalarType dtype) -> Tensor")
qlib.define("dequantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, "
            "int quant_max, ScalarType dtype) -> Tensor")
qimpl = torch.library.Library("quantized_decomposed", "IMPL", "CPU")


def _q(input, scale, zero_point, quant_min, quant_max, dtype):
    inv_scale = 1.0 / scale
    return torch.clamp(torch.round(input * inv_scale) + zero_point, quant_min, quant_max).to(dtype)


def _dq(input, scale, zero_point, quant_min, quant_max, dtype):
    return (input.to(torch.float32) - zero_point) * scale


def _qc(input, scales, zero_points, axis, quant_min, quant_max, dtype):
    input = input.transpose(axis, -1)
    res = torch.clamp(torch.round(input * (1.0 / scales)) + zero_points, quant_min, quant_max)
    return res.transpose(axis, -1).to(dtype)


def _dqc(input, scales, zero_points, axis, quant_min, quant_max, dtype):
    input = input.transpose(axis, -1).to(torch.float32)
    res = (input - zero_points) * scales
    return res.transpose(axis, -1)


qimpl.impl("quantize_per_tensor", _q)
qimpl.impl("dequantize_per_tensor", _dq)
qimpl.impl("quantize_per_channel", _qc)
qimpl.impl("dequantize_per_channel", _dqc)

slib = torch.library.Library("etscope_test", "DEF")
slib.define("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
            "float dropout_p=0.0, bool is_causal=False) -> Tensor")


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False):
    L, S = query.size(-2), key.size(-2)
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if is_causal:
        causal = torch.ones(L, S, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    return torch.softmax(scores, -1) @ value


simpl = torch.library.Library("etscope_test", "IMPL", "CPU")
simpl.impl("scaled_dot_product_attention", _sdpa)
RENAME = {"etscope_test.scaled_dot_product_attention": "aten.scaled_dot_product_attention"}

# Per-token quantization (one scale / zero point per row of the last dim), as in _decomposed.py.
qlib.define("quantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, "
            "ScalarType dtype) -> Tensor")
qlib.define("dequantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, "
            "ScalarType dtype, ScalarType output_dtype) -> Tensor")
# input.mul(1.0 / scales).add(zero_points).round().clamp(...), upstream's order of operations.
qimpl.impl("quantize_per_token", lambda x, s, z, lo, hi, dt: x.mul(1.0 / s).add(z).round().clamp(lo, hi).to(dt))
qimpl.impl("dequantize_per_token", lambda x, s, z, lo, hi, dt, odt: ((x.to(torch.float32) - z) * s).to(odt))

# ExecuTorch's llama custom ops by their documented formula: q/k/v are [B, S, H, D] (sequence
# before heads), caches [B, max_seq, H_kv, D]; k/v are written at start_pos, then query i (absolute
# position start_pos + i) attends cache positions 0..start_pos+i (causal) or 0..start_pos+S-1;
# query head h reads kv head h // (H / H_kv); scale defaults to 1/sqrt(D).
llib = torch.library.Library("llama", "DEF")
llib.define("update_cache(Tensor value, Tensor(a!) cache, int start_pos) -> Tensor")
llib.define("custom_sdpa(Tensor query, Tensor key, Tensor value, int start_pos, Tensor? attn_mask=None, "
            "float drpout_p=0.0, bool is_causal=False, float? scale=None) -> Tensor")
llib.define("sdpa_with_kv_cache(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache, "
            "Tensor(b!) value_cache, int start_pos, int seq_len, Tensor? attn_mask=None, float drpout_p=0.0, "
            "bool is_causal=False, float? scale=None) -> Tensor")
limpl = torch.library.Library("llama", "IMPL", "CPU")


def _update_cache(value, cache, start_pos):
    cache[:, start_pos:start_pos + value.size(1)] = value
    return torch.zeros(1)


def _custom_sdpa(q, k_cache, v_cache, start_pos, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    S, H, D = q.size(1), q.size(2), q.size(3)
    n = start_pos + S
    k = k_cache[:, :n].transpose(1, 2)
    v = v_cache[:, :n].transpose(1, 2)
    rep = H // k.size(1)
    k = k.repeat_interleave(rep, 1)
    v = v.repeat_interleave(rep, 1)
    sc = scale if scale is not None else 1.0 / math.sqrt(D)
    att = (q.transpose(1, 2) @ k.transpose(-2, -1)) * sc
    if is_causal:
        allowed = torch.arange(n).unsqueeze(0) <= (torch.arange(S) + start_pos).unsqueeze(1)
        att = att.masked_fill(~allowed, float("-inf"))
    if attn_mask is not None:
        att = att + attn_mask[:, :n]
    return (torch.softmax(att, -1) @ v).transpose(1, 2).contiguous()


def _sdpa_kv(q, k, v, k_cache, v_cache, start_pos, seq_len, attn_mask=None, dropout_p=0.0, is_causal=False,
             scale=None):
    k_cache[:, start_pos:start_pos + seq_len] = k
    v_cache[:, start_pos:start_pos + seq_len] = v
    return _custom_sdpa(q, k_cache, v_cache, start_pos, attn_mask, dropout_p, is_causal, scale)


limpl.impl("update_cache", _update_cache)
limpl.impl("custom_sdpa", _custom_sdpa)
limpl.impl("sdpa_with_kv_cache", _sdpa_kv)


# ---- models ---------------------------------------------------------------------------------------
class TransformerBlock(nn.Module):
    """Embedding, causal self-attention (explicit and through SDPA), layer norm, RMS norm,
    gelu (tanh) / silu MLP, residuals, log_softmax head."""

    def __init__(self, vocab=50, d=32, heads=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(8, d) * 0.1)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.up = nn.Linear(d, 64)
        self.gate = nn.Linear(d, 64)
        self.down = nn.Linear(64, d)
        self.rms_w = nn.Parameter(torch.rand(d) + 0.5)
        self.head = nn.Linear(d, vocab, bias=False)
        self.heads = heads

    def forward(self, ids):
        B, T = ids.shape
        x = self.emb(ids) + self.pos[:T]
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(32, dim=-1)
        q = q.view(B, T, self.heads, -1).transpose(1, 2)
        k = k.view(B, T, self.heads, -1).transpose(1, 2)
        v = v.view(B, T, self.heads, -1).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
        mask = torch.arange(T).unsqueeze(0) > torch.arange(T).unsqueeze(1)
        scores = scores.masked_fill(mask, float("-inf"))
        att = torch.softmax(scores, dim=-1) @ v
        att2 = torch.ops.etscope_test.scaled_dot_product_attention(q, k, v, None, 0.0, True)
        y = (att + att2).transpose(1, 2).reshape(B, T, -1)
        x = x + self.proj(y)
        h = self.ln2(x)
        h = self.down(F.gelu(self.up(h), approximate="tanh") * F.silu(self.gate(h)) + F.gelu(self.up(h)))
        x = x + h
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.rms_w
        return F.log_softmax(self.head(x), dim=-1), x.var(dim=-1, unbiased=True)


class Llama(nn.Module):
    """A Llama-style decoder as ExecuTorch's example exports it: token embedding, RMSNorm (pow,
    mean, rsqrt), rotary embeddings from real cos/sin tables indexed by input_pos, grouped-query
    attention with a KV cache (buffers) and a SiLU-gated MLP. `attention` picks the SDPA form:
    "aten" (cache updated by index_put_ / index_copy_, kv heads expanded, then
    aten.scaled_dot_product_attention with a sliced causal mask), "kv" (llama.sdpa_with_kv_cache)
    or "custom" (llama.update_cache + llama.custom_sdpa)."""

    def __init__(self, vocab=64, dim=32, layers=1, heads=4, kv_heads=2, hidden=64, max_seq=12, start=3,
                 attention="aten"):
        super().__init__()
        self.heads, self.kv_heads, self.hd, self.start, self.attention = heads, kv_heads, dim // heads, start, attention
        self.emb = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList()
        for _ in range(layers):
            lyr = nn.Module()
            lyr.wq = nn.Linear(dim, heads * self.hd, bias=False)
            lyr.wk = nn.Linear(dim, kv_heads * self.hd, bias=False)
            lyr.wv = nn.Linear(dim, kv_heads * self.hd, bias=False)
            lyr.wo = nn.Linear(heads * self.hd, dim, bias=False)
            lyr.w1 = nn.Linear(dim, hidden, bias=False)
            lyr.w3 = nn.Linear(dim, hidden, bias=False)
            lyr.w2 = nn.Linear(hidden, dim, bias=False)
            lyr.n1 = nn.Parameter(torch.rand(dim) + 0.5)
            lyr.n2 = nn.Parameter(torch.rand(dim) + 0.5)
            shape = (1, kv_heads, max_seq, self.hd) if attention == "aten" else (1, max_seq, kv_heads, self.hd)
            lyr.register_buffer("k_cache", torch.randn(shape) * 0.5)  # earlier tokens' keys
            lyr.register_buffer("v_cache", torch.randn(shape) * 0.5)
            self.layers.append(lyr)
        self.norm = nn.Parameter(torch.rand(dim) + 0.5)
        self.out = nn.Linear(dim, vocab, bias=False)
        freqs = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        ang = torch.outer(torch.arange(max_seq).float(), freqs)
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())
        self.register_buffer("mask", torch.full((max_seq, max_seq), float("-inf")).triu(1))

    @staticmethod
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w

    def rope(self, x, cos, sin):
        B, S, H, D = x.shape
        xr, xi = x.reshape(B, S, H, D // 2, 2).unbind(-1)
        cos, sin = cos.view(1, S, 1, D // 2), sin.view(1, S, 1, D // 2)
        return torch.stack([xr * cos - xi * sin, xr * sin + xi * cos], -1).flatten(3)

    def forward(self, tokens, input_pos):
        B, S = tokens.shape
        x = self.emb(tokens)
        cos, sin = self.cos[input_pos], self.sin[input_pos]
        for lyr in self.layers:
            h = self.rms(x, lyr.n1)
            q = self.rope(lyr.wq(h).view(B, S, self.heads, self.hd), cos, sin)
            k = self.rope(lyr.wk(h).view(B, S, self.kv_heads, self.hd), cos, sin)
            v = lyr.wv(h).view(B, S, self.kv_heads, self.hd)
            if self.attention == "aten":
                lyr.k_cache[:, :, input_pos] = k.transpose(1, 2)
                lyr.v_cache.index_copy_(2, input_pos, v.transpose(1, 2))
                n = self.start + S
                rep = self.heads // self.kv_heads
                kk = lyr.k_cache[:, :, :n].unsqueeze(2).expand(
                    B, self.kv_heads, rep, n, self.hd).reshape(B, self.heads, n, self.hd)
                vv = lyr.v_cache[:, :, :n].unsqueeze(2).expand(
                    B, self.kv_heads, rep, n, self.hd).reshape(B, self.heads, n, self.hd)
                mask = self.mask[input_pos][:, :n]
                a = torch.ops.etscope_test.scaled_dot_product_attention(q.transpose(1, 2), kk, vv, mask)
                a = a.transpose(1, 2).reshape(B, S, -1)
            elif self.attention == "kv":
                a = torch.ops.llama.sdpa_with_kv_cache(q, k, v, lyr.k_cache, lyr.v_cache, self.start, S, None, 0.0,
                                                       True)
                a = a.view(B, S, -1)
            else:
                torch.ops.llama.update_cache(k, lyr.k_cache, self.start)
                torch.ops.llama.update_cache(v, lyr.v_cache, self.start)
                a = torch.ops.llama.custom_sdpa(q, lyr.k_cache, lyr.v_cache, self.start, None, 0.0, True)
                a = a.view(B, S, -1)
            x = x + lyr.wo(a)
            h = self.rms(x, lyr.n2)
            x = x + lyr.w2(F.silu(lyr.w1(h)) * lyr.w3(h))
        return self.out(self.rms(x, self.norm))


class EdgeOps(nn.Module):
    """Ops of Edge programs and of models beyond the classic CNNs: roll, as_strided, new_zeros /
    new_ones / fill_ (in place), gather, topk, sort, index_put, 3-d convolution and pooling,
    nearest / bilinear upsampling by scale, per-token quantization, tril / triu, writes through
    slice / select views."""

    def __init__(self):
        super().__init__()
        self.c3 = nn.Conv3d(2, 4, 3, stride=(1, 2, 2), padding=1)
        self.bn3 = nn.BatchNorm3d(4)

    def forward(self, x, v):
        r = torch.roll(x, shifts=(1, -2), dims=(0, 1)) + torch.roll(x, 3)
        a = torch.as_strided(x, (3, 2), (3, 2), 1)
        z = x.new_zeros((2, 3)) + x.new_ones(3)
        f = x.clone().fill_(0.25) * x
        g = torch.gather(x, 1, torch.tensor([[0, 2, 1, 1], [3, 0, 0, 2], [1, 1, 3, 0]]))
        tv, ti = torch.topk(v, 3, dim=-1)
        tv2, ti2 = torch.topk(v, 2, dim=0, largest=False)
        sv, si = torch.sort(v, dim=-1, descending=True)
        ip = torch.zeros(4, 5).index_put((torch.tensor([0, 2, 2]), torch.tensor(
            [1, 3, 3])), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
        vid = x[:2, :4].reshape(1, 2, 1, 4, 1).expand(1, 2, 4, 4, 6).contiguous() * torch.linspace(0.1, 1.0, 6)
        y = F.relu(self.bn3(self.c3(vid)))
        m = F.max_pool3d(y, (1, 2, 2), stride=(1, 2, 2))
        p = F.avg_pool3d(y, 2, stride=1)
        ad = F.adaptive_avg_pool3d(y, 1)
        up = F.interpolate(x.view(1, 1, 3, 4), scale_factor=2.0, mode="nearest")
        ub = F.interpolate(x.view(1, 1, 3, 4), scale_factor=1.5, mode="bilinear", align_corners=False)
        s = x.abs().amax(-1, keepdim=True) / 127 + 1e-3
        zp = torch.zeros(3, 1, dtype=torch.int64)
        q = torch.ops.quantized_decomposed.quantize_per_token(x, s, zp, -128, 127, torch.int8)
        dq = torch.ops.quantized_decomposed.dequantize_per_token(q, s, zp, -128, 127, torch.int8, torch.float32)
        tr = torch.tril(v) + torch.triu(v, 1) * 2
        mk = x.new_zeros((4, 5))  # writes through views (Swin's attention mask)
        mk[1:3, ::2] = 7.0
        mk[:, 1][2:] = 3.0
        return r, a, z, f, g, tv, ti, tv2, ti2, sv, si, ip, m, p, ad, up, ub, dq, tr, mk * 2


class Cnn(nn.Module):
    """Batch norm, strided / depthwise+dilated / grouped / transposed convolutions, padding,
    pooling, upsampling, group norm and assorted activations."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=8)
        self.grp = nn.Conv2d(8, 12, 3, padding=1, groups=4, bias=False)
        self.gn = nn.GroupNorm(3, 12)
        self.up = nn.ConvTranspose2d(12, 6, 3, stride=2, padding=1, output_padding=1)
        self.c1d = nn.Conv1d(6, 4, 3, padding=1)
        self.fc = nn.Linear(6 * 9 + 4 * 16, 10)
        with torch.no_grad():  # non-trivial running statistics
            self.bn1.running_mean.uniform_(-0.5, 0.5)
            self.bn1.running_var.uniform_(0.5, 2.0)
            self.bn1.weight.uniform_(0.5, 1.5)
            self.bn1.bias.uniform_(-0.2, 0.2)

    def forward(self, x):
        y = F.relu(self.bn1(self.c1(x)))                     # [1, 8, 8, 8]
        y = F.hardswish(self.dw(y)) + y
        y = F.pad(y, (1, 0, 2, 1), value=0.25)               # [1, 8, 11, 9]
        y = F.max_pool2d(y, 3, stride=2, padding=1, ceil_mode=True)
        y = F.interpolate(y, scale_factor=2, mode="nearest")
        y = self.gn(self.grp(y))
        y = F.leaky_relu(y, 0.1)
        a = F.avg_pool2d(y, 2, stride=2, padding=1, count_include_pad=False)
        b = F.interpolate(a, size=(7, 5), mode="bilinear", align_corners=False)
        c = F.interpolate(a, size=(7, 5), mode="bilinear", align_corners=True)
        t = torch.sigmoid(self.up(b + c))
        p = F.adaptive_avg_pool2d(t, (3, 3))
        s = F.hardtanh(t.sum(dim=2), -1.0, 2.5)              # [1, 6, W]
        s = self.c1d(s[:, :, :16] if s.shape[2] >= 16 else F.pad(s, (0, 16 - s.shape[2])))
        z = torch.cat([p.flatten(1), torch.clamp(s, min=-0.5).flatten(1)], 1)
        return F.log_softmax(self.fc(z), 1), torch.amax(t, dim=(2, 3), keepdim=True)


class IntPath(nn.Module):
    """Integer and bool dtypes: argmax, embedding by computed indices, comparisons, where,
    logical/bitwise ops, integer arithmetic incl. floor division and wrap-around, cumsum,
    index_select / index.Tensor, factories."""

    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(10, 4)

    def forward(self, x, ids):
        am = torch.argmax(x, dim=1)                                   # int64 [4]
        e = self.table(am % 10)                                       # [4, 4]
        big = ids.to(torch.int32) * 1000000000                         # wraps in int32
        m = (ids > 3) & (ids != 7)
        w = torch.where(m, e.sum(1), torch.zeros(4))
        nm = torch.logical_not(m)
        c = torch.cumsum(ids, 0)
        fd = torch.floor_divide(ids - 5, 3) + torch.remainder(ids - 5, 3) * 100
        sel = torch.index_select(x, 1, am.clamp(0, 5))
        adv = x[am, torch.tensor([0, 1, 2, 3])]
        r = torch.arange(4) * 2 + torch.full((4,), 3)
        ge = (x >= 0.5).sum(1) + torch.ones(4, dtype=torch.int64)
        amin = torch.argmin(x, dim=-1, keepdim=True)
        mx = torch.max(x, 1)
        ib = torch.bitwise_and(ids, 6)
        return w, nm, c, fd, sel, adv, r, ge, amin, mx[0], mx[1], big, ib, e.mean(), torch.amin(x, 0)


class QuantChain(nn.Module):
    """quantize/dequantize per tensor and per channel around a linear layer."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)
        self.register_buffer("scales", torch.rand(8) * 0.02 + 0.01)
        self.register_buffer("zps", torch.randint(-3, 4, (8,)))

    def forward(self, x):
        q = torch.ops.quantized_decomposed.quantize_per_tensor(x, 0.05, 3, -128, 127, torch.int8)
        d = torch.ops.quantized_decomposed.dequantize_per_tensor(q, 0.05, 3, -128, 127, torch.int8)
        wq = torch.ops.quantized_decomposed.quantize_per_channel(
            self.fc.weight, self.scales, self.zps, 0, -127, 127, torch.int8)
        wd = torch.ops.quantized_decomposed.dequantize_per_channel(wq, self.scales, self.zps, 0, -127, 127, torch.int8)
        y = F.linear(d, wd, self.fc.bias)
        qu = torch.ops.quantized_decomposed.quantize_per_tensor(y, 0.1, 128, 0, 255, torch.uint8)
        return torch.ops.quantized_decomposed.dequantize_per_tensor(qu, 0.1, 128, 0, 255, torch.uint8)


class Small(nn.Module):
    """Reduced-precision and edge cases: float16/bfloat16 round trips, broadcasting with 0-d and
    size-1 dims, negative dims, empty tensors, non-contiguous inputs (permute then elementwise),
    NaN/inf, integer overflow and promotion."""

    def forward(self, x, n):
        h = x.to(torch.float16)
        hb = (h * 3 + 1).to(torch.float32)                  # half arithmetic, rounded
        bf = (x.to(torch.bfloat16) * 1.1).to(torch.float32)
        p = x.permute(2, 0, 1) + torch.tensor(0.5)           # non-contiguous + 0-d
        bc = x[:, :1, :] * x[:1, :, -1:]                     # broadcast both ways
        e = x[:, 0:0, :].sum(dim=1)                          # empty slice reduced
        nan = torch.log(x - 0.3)                             # NaN and -inf for some elements
        mx = torch.maximum(nan, torch.zeros(1))
        sq = x.unsqueeze(-1).squeeze(-1).sum(-2, keepdim=True)
        ex = x[0:1].expand(3, -1, -1) - x
        ii = n * 3 + 2                                      # int64 tensor with python int
        fi = n / 4                                          # int / int -> float
        ui = n.to(torch.uint8) - 250                        # uint8 wraps
        cmp = (n.to(torch.float32) < 2.5)
        st = torch.stack([x[0], x[1]], dim=-1)
        sp = torch.split(x, [1, 2], dim=0)
        return hb, bf, p, bc, e, nan, mx, sq, ex, ii, fi, ui, cmp, st, sp[1]


# ---- serialization ---------------------------------------------------------------------------------
def tensor_meta(t):
    return {"dtype": JSON_DTYPE[t.dtype], "sizes": [{"as_int": int(s)} for s in t.shape],
            "requires_grad": False, "device": {"type": "cpu"},
            "strides": [{"as_int": int(s)} for s in t.stride()], "storage_offset": {"as_int": 0}, "layout": 7}


def torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def capture(gm, inputs):
    """Every node's value, by running the traced graph node by node."""
    values = {}

    class Rec(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            values[n] = snapshot(r) if SNAPSHOT else r
            return r

    with torch.no_grad():
        Rec(gm).run(*inputs)
    return values


def snapshot(values):
    """A copy of each node value as it is now: later in-place ops (fill_, index_put_ on a cache)
    must not change what an earlier node is expected to produce."""
    def copy(v):
        if isinstance(v, torch.Tensor):
            return v.detach().clone()
        if isinstance(v, (list, tuple)):
            return type(v)(copy(x) for x in v)
        return v
    return copy(values)


def serialize(gm, model, inputs, dialect):
    params = {}
    for n_, p in list(model.named_parameters()) + list(model.named_buffers()):
        params[p.data_ptr()] = n_
    # Weights and buffers as they are before the run mutates any (KV caches).
    before = {n: getattr(gm, n.target).detach().clone() for n in gm.graph.nodes if n.op == "get_attr"}
    values = capture(gm, inputs)
    names, metas = {}, {}
    graph_inputs, input_specs, state, consts = [], [], {}, {}
    user_specs = []
    ui = 0
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            pname = params.get(getattr(gm, n.target).data_ptr())
            t = before[n] if SNAPSHOT else getattr(gm, n.target)
            if pname is not None and pname in dict(model.named_buffers()):
                names[n] = "b_" + pname.replace(".", "_")
                input_specs.append({"buffer": {"arg": {"name": names[n]}, "buffer_name": pname, "persistent": True}})
                state[pname] = t.detach().clone()
            elif pname is not None:
                names[n] = "p_" + pname.replace(".", "_")
                input_specs.append({"parameter": {"arg": {"name": names[n]}, "parameter_name": pname}})
                state[pname] = t.detach().clone()
            else:
                cname = "c_" + n.target
                names[n] = cname
                input_specs.append({"tensor_constant": {"arg": {"name": cname}, "tensor_constant_name": n.target}})
                consts[n.target] = t.detach().clone()
            metas[names[n]] = tensor_meta(t)
            graph_inputs.append({"as_tensor": {"name": names[n]}})
        elif n.op == "placeholder":
            names[n] = f"x{ui}"
            ui += 1
            metas[names[n]] = tensor_meta(values[n])
            user_specs.append(names[n])
    for u in user_specs:
        graph_inputs.append({"as_tensor": {"name": u}})
        input_specs.append({"user_input": {"arg": {"as_tensor": {"name": u}}}})

    def arg(a, schema_type=None):
        if isinstance(a, torch.fx.Node):
            return {"as_tensor": {"name": names[a]}}
        if isinstance(a, bool):
            return {"as_bool": a}
        if isinstance(a, int):
            return {"as_int": a}
        if isinstance(a, float):
            if math.isinf(a) or math.isnan(a):
                return {"as_float": "inf" if a > 0 else ("-inf" if a < 0 else "nan")}
            return {"as_float": a}
        if a is None:
            return {"as_none": []}
        if isinstance(a, str):
            return {"as_string": a}
        if isinstance(a, torch.dtype):
            return {"as_scalar_type": JSON_DTYPE[a]}
        if isinstance(a, torch.layout):
            return {"as_layout": 7}
        if isinstance(a, torch.device):
            return {"as_device": {"type": a.type, "index": a.index}}
        if isinstance(a, torch.memory_format):
            return {"as_memory_format": 0}
        if isinstance(a, (list, tuple)):
            if any(x is None for x in a) or "?" in str(schema_type):
                return {"as_optional_tensors": [
                    ({"as_tensor": {"name": names[x]}} if x is not None else {"as_none": []}) for x in a]}
            if all(isinstance(x, torch.fx.Node) for x in a):
                return {"as_tensors": [{"name": names[x]} for x in a]}
            if all(isinstance(x, bool) for x in a):
                return {"as_bools": list(a)}
            if all(isinstance(x, int) for x in a):
                return {"as_ints": list(a)}
            if all(isinstance(x, (int, float)) for x in a):
                return {"as_floats": [float(x) for x in a]}
        raise TypeError(a)

    nodes, expected, handle = [], {}, 0
    used = set()
    for n in gm.graph.nodes:
        if n.op != "call_function" or getattr(n.target, "__name__", "") == "getitem":
            continue
        op = n.target
        ns, opname = op._schema.name.split("::")
        key = f"{ns}.{opname}"
        key = RENAME.get(key, key)
        overload = op._overloadname
        target = (EDGE if dialect == "edge" else "torch.ops.") + f"{key}.{overload}"
        name = n.name
        used.add(name)
        val = values[n]
        if isinstance(val, (tuple, list)):
            outs_t = [t for t in val if t is not None]  # e.g. attention weights not asked for
            users = {u.args[1]: u for u in n.users if getattr(u.target, "__name__", "") == "getitem"}
            onames = []
            for i, t in enumerate(outs_t):
                on = users[i].name if i in users else f"{name}_out{i}"
                if i in users:
                    names[users[i]] = on
                onames.append(on)
                metas[on] = tensor_meta(t)
            if isinstance(val, list):
                outs = [{"as_tensors": [{"name": on} for on in onames]}]
            else:
                outs = [{"as_tensor": {"name": on}} for on in onames]
        else:
            outs_t = [val]
            names[n] = name
            metas[name] = tensor_meta(val)
            outs = [{"as_tensor": {"name": name}}]
        ins = []
        sargs = op._schema.arguments
        for i, a in enumerate(n.args):
            ins.append({"name": sargs[i].name, "arg": arg(a, sargs[i].type), "kind": 1})
        for k, a in n.kwargs.items():
            st = [s.type for s in sargs if s.name == k]
            ins.append({"name": k, "arg": arg(a, st[0] if st else None), "kind": 2})
        handle += 1
        source = f"/home/dev/models/{type(model).__name__.lower()}.py"
        md = {"stack_trace": f'  File "{source}", line {10 + handle}, in forward\n    x\n',
              "debug_handle": str(handle)}
        nodes.append({"name": name, "target": target, "inputs": ins, "outputs": outs, "metadata": md})
        expected[name] = [t.detach().clone() if isinstance(t, torch.Tensor) else torch.tensor(t) for t in outs_t]
    out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
    results = out_node.args[0] if isinstance(out_node.args[0], (list, tuple)) else [out_node.args[0]]
    outputs = [{"as_tensor": {"name": names[a]}} for a in results]
    doc = {
        "graph_module": {
            "graph": {"inputs": graph_inputs, "outputs": outputs, "nodes": nodes, "tensor_values": metas,
                      "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": False,
                      "custom_obj_values": {}},
            "signature": {"input_specs": input_specs,
                          "output_specs": [{"user_output": {"arg": o}} for o in outputs]},
            "module_call_graph": [],
        },
        "opset_version": {"aten": 10},
        "range_constraints": {},
        "schema_version": {"major": 5, "minor": 3},
        "verifiers": ["EXIREdgeDialectVerifier"] if dialect == "edge" else [],
        "dialect": "EDGE" if dialect == "edge" else "ATEN",
    }
    return json.dumps(doc), state, consts, expected


def write_case(stem, model, inputs, dialect):
    model.eval()
    # Traced with autograd on: under no_grad nn.MultiheadAttention takes its fused fast path
    # (aten._native_multi_head_attention, which export decomposes anyway); make_fx records the
    # forward ops either way.
    with torch.enable_grad():
        gm = make_fx(model)(*inputs)
    text, state, consts, expected = serialize(gm, model, inputs, dialect)
    base = "edge_dialect_exported_program/forward" if dialect == "edge" else "exported_program"
    entries = [("ETRECORD_V0", b""), (base, text.encode()),
               (base + "_state_dict", torch_bytes(state)), (base + "_constants", torch_bytes(consts)),
               (base + "_example_inputs", torch_bytes((tuple(inputs), {}))),
               ("representative_inputs", torch_bytes(list(inputs)))]
    with zipfile.ZipFile(os.path.join(OUT, f"{stem}_etrecord.bin"), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data, compress_type=zipfile.ZIP_DEFLATED)
    torch.save(expected, os.path.join(OUT, f"{stem}_expected.pt"))
    torch.save(tuple(inputs), os.path.join(OUT, f"{stem}_inputs.pt"))
    ops = sorted({n["target"] for n in json.loads(text)["graph_module"]["graph"]["nodes"]})
    return {"nodes": len(expected), "ops": ops}


def cases():
    """(stem, builder of (model, inputs, dialect)); seeds fixed per case so that any subset
    regenerates the same files."""
    def transformer():
        torch.manual_seed(10)
        return TransformerBlock(), [torch.tensor([[3, 17, 42, 5, 0, 49]])], "edge"

    def llama(attention, layers):
        def build():
            torch.manual_seed(22)
            return Llama(layers=layers, attention=attention), [
                         torch.tensor([[5, 17, 42, 9]]), torch.arange(3, 7)], "edge"
        return build

    def vit():
        # The tutorial's ViT in miniature: torchvision's VisionTransformer (patch-embedding conv,
        # class token, position embedding, multi-head attention, MLP), 2 layers at width 32.
        torch.manual_seed(24)
        m = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                                 hidden_dim=32, mlp_dim=64, num_classes=10)
        return m, [torch.randn(1, 3, 32, 32)], "edge"

    def edgeops():
        torch.manual_seed(23)
        return EdgeOps(), [torch.randn(3, 4), torch.randn(4, 5)], "edge"

    return [("transformer", transformer), ("llama", llama("aten", 2)), ("llama_kv", llama("kv", 1)),
            ("llama_custom", llama("custom", 1)), ("edgeops", edgeops), ("vit", vit)]


def legacy_cases():
    """The first fixtures, made in one seeded sequence (kept as they were)."""
    torch.manual_seed(10)
    ids = torch.tensor([[3, 17, 42, 5, 0, 49]])
    out = [("transformer", TransformerBlock(), [ids], "edge")]
    img = torch.randn(1, 3, 16, 16)
    out.append(("cnn", Cnn(), [img], "aten"))
    x = torch.rand(4, 6)
    n = torch.tensor([1, 4, 7, 9], dtype=torch.int64)
    out.append(("intpath", IntPath(), [x, n], "edge"))
    out.append(("quant", QuantChain(), [torch.randn(2, 16) * 2], "edge"))
    xs = torch.rand(3, 4, 5) * 2 - 0.2
    out.append(("small", Small(), [xs, n], "aten"))
    return out


def main(only):
    """Writes every case, or only the named ones (eval_expected.json keeps the others' entries)."""
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "eval_expected.json")
    summary = {"generator": "tests/tools/gen_eval_fixtures.py", "torch": torch.__version__, "cases": {}}
    if only and os.path.exists(path):
        with open(path) as f:
            summary["cases"] = json.load(f)["cases"]
    global SNAPSHOT
    if not only or any(o in ("cnn", "intpath", "quant", "small", "transformer") for o in only):
        SNAPSHOT = False
        for stem, model, inputs, dialect in legacy_cases():
            if not only or stem in only:
                summary["cases"][stem] = write_case(stem, model, inputs, dialect)
    SNAPSHOT = True
    for stem, build in cases()[1:]:
        if not only or stem in only:
            summary["cases"][stem] = write_case(stem, *build())
    with open(path, "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    for k, v in summary["cases"].items():
        print(k, v["nodes"], "nodes")


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
