#!/usr/bin/python3
"""Writes tests/data/eval/quant_kernels.json: cases for the quantization kernels of
core/eval/kernels_quant.cpp with expected values from an independent numpy transcription of the
upstream definitions (float32 steps as numpy float32 operations, which round like torch's):

- pytorch/pytorch torch/ao/quantization/fx/_decomposed.py at 6661d4b60b4101b1a9901cabbcd54bdafe2e12ac
  and determine_qparams (torch/ao/quantization/utils.py);
- pytorch/ao torchao/quantization/quant_primitives.py at 212d912dcbfb43b13cc4bee533d3d1844d76b7c1
  (zero_point_domain INT / FLOAT / NONE, preserve_zero) and 36027d82d1ad9949597ea16002ff4940374b1b94
  (keepdim schema, eps = smallest normal).

Where torch 1.13 has the operation (torch.quantize_per_tensor, torch.quantize_per_channel,
torch.fake_quantize_per_channel_affine, torch.repeat_interleave) the script also checks the
transcription against it and stops if they differ. Cases with "error" expect a one-line kernel
error containing that text.

Run: /usr/bin/python3 tests/tools/gen_quant_kernels.py
"""
import json
import math
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "eval", "quant_kernels.json")
F32, F64 = np.float32, np.float64
NAMES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64", np.dtype(np.int8): "int8",
         np.dtype(np.uint8): "uint8", np.dtype(np.int16): "int16", np.dtype(np.int32): "int32",
         np.dtype(np.int64): "int64"}
rng = np.random.default_rng(30)


def enc_num(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def T(a):
    a = np.asarray(a)
    data = [enc_num(v) for v in a.reshape(-1)] if a.dtype.kind == "f" else [int(v) for v in a.reshape(-1)]
    return {"t": {"dtype": NAMES[a.dtype], "sizes": list(a.shape), "data": data}}


def Int(v):
    return {"i": int(v)}


def Fl(v):
    return {"f": float(v)}


def DT(name):
    return {"dt": name}


def S(v):
    return {"s": v}


def L(v):
    return {"ints": [int(x) for x in v]}


def B(v):
    return {"b": bool(v)}


NONE = {"none": True}


def to_int(v, dt):
    """clamp(...).to(dt) after clamping: NaN casts as torch does on x86 (checked below)."""
    v = np.asarray(v, dtype=np.float64)
    out = np.where(np.isnan(v), 0, v)
    out = np.trunc(out).astype(np.int64)
    if dt == np.int32:
        out = np.where(np.isnan(v), np.iinfo(np.int32).min, out)
    if dt == np.int64:
        out = np.where(np.isnan(v), np.iinfo(np.int64).min, out)
    return out.astype(dt)


def clamp(v, lo, hi):
    return np.where(np.isnan(v), v, np.minimum(np.maximum(v, lo), hi))


# ---- transcriptions (each line mirrors one upstream tensor operation and its dtype) ---------------
def q_per_tensor(x, scale, zp, lo, hi, dt):
    inv = F32(1.0 / scale)                       # Python float scalar -> float32
    r = np.round(x.astype(F32) * inv)            # np.round is half to even like torch.round
    return to_int(clamp(r + F32(zp), lo, hi), dt)


def dq_per_tensor(q, scale, zp):
    return ((q.astype(F32) - F32(zp)) * F32(scale)).astype(F32)


def q_per_channel(x, scales, zps, axis, lo, hi, dt):
    shape = [1] * x.ndim
    shape[axis] = -1
    s = scales.reshape(shape)
    inv = (s.dtype.type(1.0) / s)                # in the scales' dtype
    r = np.round(x * inv)                        # promotes to float64 for float64 scales
    return to_int(clamp(r + zps.reshape(shape).astype(r.dtype), lo, hi), dt)


def dq_per_channel(q, scales, zps, axis):
    shape = [1] * q.ndim
    shape[axis] = -1
    d = q.astype(np.int64) - zps.reshape(shape).astype(np.int64) if zps is not None else q
    return (d * scales.reshape(shape)).astype(F32)


def q_per_token(x, scales, zps, lo, hi, dt):
    inv = scales.dtype.type(1.0) / scales
    v = (x * inv)
    v = v + zps.astype(v.dtype) if zps.dtype.kind != "f" else v + zps
    return to_int(clamp(np.round(v), lo, hi), dt)


def dq_per_token(q, scales, zps):
    d = q.astype(np.int64) - zps.astype(np.int64)
    return (d * scales).astype(F32)


def choose_per_token_asym(x):
    qmin, qmax = -128, 127
    mn = np.min(x, axis=-1, keepdims=True)
    mx = np.max(x, axis=-1, keepdims=True)
    mn_neg = np.minimum(mn, F32(0))
    mx_pos = np.maximum(mx, F32(0))
    eps = np.finfo(np.float32).eps
    scale = (mx_pos - mn_neg) / F32(qmax - qmin)
    scale = np.where(np.isnan(scale), scale, np.maximum(scale, F32(eps))).astype(F32)
    dmin, dmax = mn_neg / scale, mx_pos / scale
    zp = np.where((F32(qmin) + dmin) + (F32(qmax) + dmax) > 0, F32(qmin) - dmin, F32(qmax) - dmax)
    zp = np.round(clamp(zp, qmin, qmax))
    return scale.astype(F64), to_int(zp, np.int64)


def choose_qparams_tensor(x, lo, hi, eps, symmetric=False, dt=np.int8):
    mn, mx = np.min(x), np.max(x)
    mn_neg, mx_pos = np.minimum(mn, F32(0)), np.maximum(mx, F32(0))
    if symmetric:
        m = np.maximum(-mn_neg, mx_pos)
        scale = np.maximum(F32(m / F32((hi - lo) / 2)), F32(eps))
        zp = 128 if dt == np.uint8 else 0
    else:
        scale = np.maximum(F32((mx_pos - mn_neg) / F32(hi - lo)), F32(eps))
        zp = lo - np.round(F32(mn_neg / scale)).astype(np.int32)
        zp = int(min(max(zp, lo), hi))
    return np.array([scale], F64), np.array([zp], np.int64)


def q_group(x, scales, zps, lo, hi, dt, g):
    if g > x.shape[-1] and scales.shape[-1] == 1:
        g = x.shape[-1]
    tq = x.reshape(-1, g)
    s = scales.reshape(-1, 1)
    v = tq * (s.dtype.type(1.0) / s)
    v = v + zps.reshape(-1, 1).astype(v.dtype)   # the add happens before rounding, in v's dtype
    return to_int(clamp(np.round(v), lo, hi), dt).reshape(x.shape)


def dq_group(q, scales, zps, g):
    w = q.reshape(-1, g)
    d = w.astype(np.int64) - zps.reshape(-1, 1).astype(np.int64) if zps is not None else w
    return (d * scales.reshape(-1, 1)).reshape(q.shape).astype(F32)


def reduction_params(block, size):
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


def after_reduction(shape, dims):
    s = list(shape)
    for d in dims:
        s[d] = 1
    return s


def quantize_affine(x, block, scale, zp, dt, lo, hi, domain="INT"):
    shape, dims = reduction_params(block, x.shape)
    xs = x.reshape(shape)
    sa = after_reduction(shape, dims)
    s = scale.reshape(sa)
    z = zp.reshape(sa) if zp is not None else None
    if domain == "INT":
        v = np.round(xs * (s.dtype.type(1.0) / s))
        if z is not None:
            v = v + z.astype(v.dtype) if z.dtype.kind != "f" else v + z
    elif domain == "NONE":
        v = np.round(xs * (s.dtype.type(1.0) / s))
    else:
        mid = (hi + lo + 1) / 2
        min_val = z - s * s.dtype.type(mid)
        v = np.round((xs - min_val) / s)
    return to_int(clamp(v, lo, hi), dt).reshape(x.shape)


def dequantize_affine(q, block, scale, zp, lo, hi, domain="INT"):
    shape, dims = reduction_params(block, q.shape)
    qs = q.reshape(shape)
    sa = after_reduction(shape, dims)
    s = scale.reshape(sa)
    z = zp.reshape(sa) if zp is not None else None
    if domain == "INT":
        d = qs.astype(np.int32)
        if z is not None:
            d = d - z.astype(np.int32)
        out = d.astype(F32) * s
    elif domain == "NONE":
        out = qs.astype(F32) * s
    else:
        mid = (hi + lo + 1) / 2
        out = (qs.astype(F32) - F32(mid)) * s
        out = out.astype(F32)
        if z is not None:
            out = out + z
    return out.astype(F32).reshape(q.shape)


def choose_qparams_affine(x, mapping, block, lo, hi, eps, preserve_zero=True, domain="INT", keepdim=None):
    shape, dims = reduction_params(block, x.shape)
    xs = x.reshape(shape)
    mn = np.min(xs, axis=tuple(dims))
    mx = np.max(xs, axis=tuple(dims))
    if preserve_zero:
        mn_neg, mx_pos = np.minimum(mn, F32(0)), np.maximum(mx, F32(0))
    else:
        mn_neg, mx_pos = mn, mx
    if mapping == "SYMMETRIC":
        m = np.maximum(-mn_neg, mx_pos)
        scale = (m / F32((hi - lo) / 2)).astype(F32)
        zp = np.full_like(scale, int((hi + lo + 1) / 2))
        scale = np.maximum(scale, F32(eps))
        zpd = F32
    else:
        scale = ((mx_pos - mn_neg) / F32(hi - lo)).astype(F32)
        scale = np.maximum(scale, F32(eps))
        if domain == "INT":
            zp = clamp(F32(lo) - np.round(mn_neg / scale), lo, hi).astype(np.int32)
            zpd = np.int32
        elif domain == "FLOAT":
            zp = (mn_neg + scale * F32((hi + lo + 1) / 2)).astype(F32)
            zpd = F32
        else:
            zp, zpd = None, F32
    if keepdim:
        out_shape = [n // b for n, b in zip(x.shape, block)]
        scale = scale.reshape(out_shape)
        zp = zp.reshape(out_shape)
    return scale.astype(F32), (zp.astype(zpd) if zp is not None else np.zeros(0, F32))


def repeat_interleave(r):
    return np.repeat(np.arange(len(r), dtype=np.int64), r)


# ---- torch 1.13 cross-checks of the transcription ----------------------------------------------------
def check_against_torch():
    x = (rng.standard_normal((3, 5, 7)) * 3).astype(F32)
    x.flat[4] = 2.5 * 0.1  # a tie after scaling below
    for scale, zp, dt, td in [(0.1, 3, np.int8, torch.qint8), (0.07, 128, np.uint8, torch.quint8),
                              (0.05, -9, np.int8, torch.qint8)]:
        lo, hi = (-128, 127) if dt == np.int8 else (0, 255)
        ours = q_per_tensor(x, scale, zp, lo, hi, dt)
        ref = torch.quantize_per_tensor(torch.from_numpy(x), scale, zp, td).int_repr().numpy()
        assert np.array_equal(ours, ref), ("per tensor", scale, zp)
        deq = torch.quantize_per_tensor(torch.from_numpy(x), scale, zp, td).dequantize().numpy()
        assert np.array_equal(dq_per_tensor(ours, scale, zp), deq)
    sc = (rng.random(5) * 0.1 + 0.01).astype(F32)
    zp = rng.integers(-10, 10, 5).astype(np.int64)
    ours = q_per_channel(x, sc, zp, 1, -128, 127, np.int8)
    ref = torch.quantize_per_channel(torch.from_numpy(x), torch.from_numpy(sc.astype(F64)), torch.from_numpy(zp), 1,
                                     torch.qint8).int_repr().numpy()
    # torch's quantized tensors hold float64 scales but quantize with float32 arithmetic
    assert np.array_equal(ours, ref), "per channel"
    fq = torch.fake_quantize_per_channel_affine(torch.from_numpy(x), torch.from_numpy(sc), torch.from_numpy(zp).int(),
                                                1, -128, 127).numpy()
    assert np.allclose(dq_per_channel(ours, sc, zp, 1), fq, rtol=0, atol=1e-6), "fake quant per channel"
    r = np.array([2, 0, 3, 1])
    assert np.array_equal(repeat_interleave(r), torch.repeat_interleave(torch.from_numpy(r)).numpy())
    # NaN casts (x86): 0 for int8/uint8, minimum for int32/int64
    n = torch.tensor([float("nan")])
    assert n.to(torch.int8).item() == 0 and n.to(torch.uint8).item() == 0
    assert n.to(torch.int32).item() == np.iinfo(np.int32).min and n.to(torch.int64).item() == np.iinfo(np.int64).min
    # half-to-even rounding
    assert torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5])
                       ).tolist() == list(np.round([0.5, 1.5, 2.5, -0.5, -2.5]))


# ---- cases ---------------------------------------------------------------------------------------
def cases():
    out = []

    def add(name, op, args, expect=None, error=None):
        c = {"name": name, "op": op, "args": [[k, v] for k, v in args]}
        if error is not None:
            c["error"] = error
        else:
            c["expect"] = [T(e) for e in expect]
        out.append(c)

    QD = "quantized_decomposed."
    # per tensor: odd shape, ties, NaN, negative zero point, uint8, int4 range in int8
    x = (rng.standard_normal((3, 5, 7)) * 2).astype(F32)
    x.flat[:6] = [0.25, -0.25, 0.75, np.nan, 1e6, -1e6]
    for nm, s, z, lo, hi, dt, dn in [("int8", 0.5, -3, -128, 127, np.int8, "int8"),
                                     ("uint8", 0.031, 131, 0, 255, np.uint8, "uint8"),
                                     ("int4", 0.4, -2, -8, 7, np.int8, "int8"),
                                     ("uint4", 0.3, 8, 0, 15, np.uint8, "uint8")]:
        q = q_per_tensor(x, s, z, lo, hi, dt)
        add(f"q_per_tensor_{nm}", QD + "quantize_per_tensor.default",
            [("input", T(x)), ("scale", Fl(s)), ("zero_point", Int(z)), ("quant_min", Int(lo)), ("quant_max", Int(hi)),
             ("dtype", DT(dn))], [q])
        add(f"dq_per_tensor_{nm}", QD + "dequantize_per_tensor.default",
            [("input", T(q)), ("scale", Fl(s)), ("zero_point", Int(z)), ("quant_min", Int(lo)), ("quant_max", Int(hi)),
             ("dtype", DT(dn))], [dq_per_tensor(q, s, z)])
    q = q_per_tensor(x, 0.5, -3, -128, 127, np.int8)
    add("q_per_tensor_tensor_overload", QD + "quantize_per_tensor.tensor",
        [("input", T(x)), ("scale", T(np.array([0.5], F64))), ("zero_point", T(np.array([-3], np.int64))),
         ("quant_min", Int(-128)), ("quant_max", Int(127)), ("dtype", DT("int8"))], [q])
    add("q_per_tensor_bad_range", QD + "quantize_per_tensor.default",
        [("input", T(x)), ("scale", Fl(0.5)), ("zero_point", Int(0)), ("quant_min", Int(-129)), ("quant_max", Int(127)),
         ("dtype", DT("int8"))], error="does not fit int8")
    add("q_per_tensor_scale_tensor_len", QD + "quantize_per_tensor.tensor",
        [("input", T(x)), ("scale", T(np.array([0.5, 0.2], F64))), ("zero_point", T(np.array([0], np.int64))),
         ("quant_min", Int(-128)), ("quant_max", Int(127)), ("dtype", DT("int8"))], error="must hold one value")

    # per channel, float32 and float64 scales, axis 1 and -1, zero points negative
    w = (rng.standard_normal((4, 3, 5)) * 0.7).astype(F32)
    w.flat[7] = np.nan
    for nm, sdt, axis in [("f32_axis1", F32, 1), ("f64_axis_last", F64, -1)]:
        C = w.shape[axis]
        sc = (rng.random(C) * 0.02 + 0.005).astype(sdt)
        zp = rng.integers(-6, 6, C).astype(np.int64)
        q = q_per_channel(w, sc, zp, axis if axis >= 0 else w.ndim + axis, -127, 127, np.int8)
        add(f"q_per_channel_{nm}", QD + "quantize_per_channel.default",
            [("input", T(w)), ("scales", T(sc)), ("zero_points", T(zp)), ("axis", Int(axis)), ("quant_min", Int(-127)),
             ("quant_max", Int(127)), ("dtype", DT("int8"))], [q])
        add(f"dq_per_channel_{nm}", QD + "dequantize_per_channel.default",
            [("input", T(q)), ("scales", T(sc)), ("zero_points", T(zp)), ("axis", Int(axis)), ("quant_min", Int(-127)),
             ("quant_max", Int(127)), ("dtype", DT("int8"))], [dq_per_channel(q, sc, zp, axis)])
    add("q_per_channel_bad_axis", QD + "quantize_per_channel.default",
        [("input", T(w)), ("scales", T(np.ones(3, F32))), ("zero_points", T(np.zeros(3, np.int64))), ("axis", Int(3)),
         ("quant_min", Int(-127)), ("quant_max", Int(127)), ("dtype", DT("int8"))], error="axis 3 out of range")
    add("q_per_channel_scale_count", QD + "quantize_per_channel.default",
        [("input", T(w)), ("scales", T(np.ones(4, F32))), ("zero_points", T(np.zeros(3, np.int64))), ("axis", Int(1)),
         ("quant_min", Int(-127)), ("quant_max", Int(127)), ("dtype", DT("int8"))], error="3 channels along axis 1")

    # per token with choose_qparams_per_token_asymmetric (float64 scales, int64 zero points)
    a = (rng.standard_normal((2, 3, 9)) * 1.5).astype(F32)
    a[0, 1, :] = np.abs(a[0, 1, :]) + 0.5   # all positive row
    a[1, 0, :] = -np.abs(a[1, 0, :]) - 0.1  # all negative row
    a[1, 2, :] = 0                          # all zero row (eps)
    s, z = choose_per_token_asym(a)
    add("choose_qparams_per_token_asymmetric", QD + "choose_qparams_per_token_asymmetric.default",
        [("input", T(a)), ("dtype", DT("int8"))], [s, z])
    q = q_per_token(a, s, z, -128, 127, np.int8)
    add("q_per_token", QD + "quantize_per_token.default",
        [("input", T(a)), ("scales", T(s)), ("zero_points", T(z)), ("quant_min", Int(-128)), ("quant_max", Int(127)),
         ("dtype", DT("int8"))], [q])
    add("dq_per_token", QD + "dequantize_per_token.default",
        [("input", T(q)), ("scales", T(s)), ("zero_points", T(z)), ("quant_min", Int(-128)), ("quant_max", Int(127)),
         ("dtype", DT("int8")), ("output_dtype", DT("float32"))], [dq_per_token(q, s, z)])
    an = a.copy()
    an[0, 2, 3] = np.nan
    sn, zn = choose_per_token_asym(an)
    add("choose_qparams_per_token_asymmetric_nan", QD + "choose_qparams_per_token_asymmetric.default",
        [("input", T(an)), ("dtype", DT("int8"))], [sn, zn])
    add("q_per_token_count", QD + "quantize_per_token.default",
        [("input", T(a)), ("scales", T(s[:1])), ("zero_points", T(z)), ("quant_min", Int(-128)),
         ("quant_max", Int(127)), ("dtype", DT("int8"))], error="6 tokens, 3 scales")

    # choose_qparams.tensor (affine) and choose_qparams_symmetric.tensor
    c = (rng.standard_normal((5, 3)) * 2 + 0.7).astype(F32)
    for nm, lo, hi, dn, dt, sym in [("int8", -128, 127, "int8", np.int8, False),
                                    ("uint8", 0, 255, "uint8", np.uint8, False),
                                    ("sym_uint8", 0, 255, "uint8", np.uint8, True),
                                    ("sym_int8", -128, 127, "int8", np.int8, True)]:
        sc, zp = choose_qparams_tensor(c, lo, hi, 1.1920928955078125e-07, sym, dt)
        add(f"choose_qparams_{nm}", QD + ("choose_qparams_symmetric.tensor" if sym else "choose_qparams.tensor"),
            [("input", T(c)), ("quant_min", Int(lo)), ("quant_max", Int(hi)), ("eps", Fl(1.1920928955078125e-07)),
             ("dtype", DT(dn))], [sc, zp])
    sc, zp = choose_qparams_tensor(np.zeros((2, 2), F32), -128, 127, 1e-5)
    add("choose_qparams_zeros_eps", QD + "choose_qparams.tensor",
        [("input", T(np.zeros((2, 2), F32))), ("quant_min", Int(-128)), ("quant_max", Int(127)), ("eps", Fl(1e-5)),
         ("dtype", DT("int8"))], [sc, zp])
    cn = c.copy()
    cn[1, 1] = np.nan
    add("choose_qparams_nan", QD + "choose_qparams.tensor",
        [("input", T(cn)), ("quant_min", Int(-128)), ("quant_max", Int(127)), ("eps", Fl(1e-5)), ("dtype", DT("int8"))],
        error="NaN")

    # per channel group: 4-bit values in int8, [-8, 7] and [0, 15], float32 scales, int zero points
    wg = (rng.standard_normal((3, 16)) * 0.5).astype(F32)
    for nm, lo, hi, g in [("int4", -8, 7, 4), ("uint4", 0, 15, 8)]:
        ng = wg.size // g
        sc = (rng.random(ng) * 0.1 + 0.02).astype(F32)
        zp = (rng.integers(-3, 3, ng) if lo < 0 else rng.integers(6, 10, ng)).astype(np.int64)
        q = q_group(wg, sc, zp, lo, hi, np.int8, g)
        add(f"q_group_{nm}", QD + "quantize_per_channel_group.default",
            [("input", T(wg)), ("scales", T(sc)), ("zero_points", T(zp)), ("quant_min", Int(lo)),
             ("quant_max", Int(hi)), ("dtype", DT("int8")), ("group_size", Int(g))], [q])
        add(f"dq_group_{nm}", QD + "dequantize_per_channel_group.default",
            [("input", T(q)), ("scales", T(sc)), ("zero_points", T(zp)), ("quant_min", Int(lo)), ("quant_max", Int(hi)),
             ("dtype", DT("int8")), ("group_size", Int(g)), ("output_dtype", DT("float32"))], [dq_group(q, sc, zp, g)])
    sc1 = (rng.random(3) * 0.1 + 0.02).astype(F32).reshape(3, 1)
    zp1 = np.zeros((3, 1), np.int64)
    add("q_group_wider_than_row", QD + "quantize_per_channel_group.default",
        [("input", T(wg)), ("scales", T(sc1)), ("zero_points", T(zp1)), ("quant_min", Int(-8)), ("quant_max", Int(7)),
         ("dtype", DT("int8")), ("group_size", Int(32))], [q_group(wg, sc1, zp1, -8, 7, np.int8, 32)])
    add("dq_group_no_zero_points", QD + "dequantize_per_channel_group.default",
        [("input", T(q)), ("scales", T(np.full(6, 0.125, F32))), ("zero_points", NONE), ("quant_min", Int(0)),
         ("quant_max", Int(15)), ("dtype", DT("int8")), ("group_size", Int(8)), ("output_dtype", DT("float32"))],
        [dq_group(q, np.full(6, 0.125, F32), None, 8)])
    bad = [("group_uneven", 6, "16 columns do not split into groups of 6"), ("group_zero", 0, "group_size must be > 1")]
    for nm, g, msg in bad:
        add(nm, QD + "quantize_per_channel_group.default",
            [("input", T(wg)), ("scales", T(np.ones(8, F32))), ("zero_points", T(np.zeros(8, np.int64))),
             ("quant_min", Int(-8)), ("quant_max", Int(7)), ("dtype", DT("int8")), ("group_size", Int(g))], error=msg)
    wn = wg.copy()
    wn[2, 5] = np.nan
    add("group_nan", QD + "quantize_per_channel_group.default",
        [("input", T(wn)), ("scales", T(np.ones(12, F32))), ("zero_points", T(np.zeros(12, np.int64))),
         ("quant_min", Int(-8)), ("quant_max", Int(7)), ("dtype", DT("int8")), ("group_size", Int(4))], error="NaN")

    # torchao affine: per group (block [1, 8]), per axis, per tensor, 4-bit in int8 / uint8,
    # zero point domains INT / FLOAT / NONE, symmetric and asymmetric choose_qparams
    TA = "torchao."
    xa = (rng.standard_normal((4, 3, 16)) * 0.8).astype(F32)
    xa[1, 2, 3] = np.nan
    xc = xa.copy()
    xc[1, 2, 3] = 0.3
    eps = float(np.finfo(np.float32).eps)
    for nm, mapping, block, lo, hi, dn, dt, domain in [
            ("asym_group_int4", "ASYMMETRIC", [1, 1, 8], -8, 7, "int8", np.int8, "INT"),
            ("sym_group_int4", "SYMMETRIC", [1, 1, 4], -8, 7, "int8", np.int8, "INT"),
            ("asym_axis_uint8", "ASYMMETRIC", [1, 3, 16], 0, 255, "uint8", np.uint8, "INT"),
            ("asym_tensor_int8", "ASYMMETRIC", [4, 3, 16], -128, 127, "int8", np.int8, "INT"),
            ("float_domain_uint4", "ASYMMETRIC", [1, 1, 16], 0, 15, "uint8", np.uint8, "FLOAT"),
            ("none_domain_int8", "ASYMMETRIC", [1, 3, 2], -128, 127, "int8", np.int8, "NONE")]:
        sc, zp = choose_qparams_affine(xc, mapping, block, lo, hi, eps, True, domain)
        args = [("input", T(xc)), ("mapping_type", S(mapping)), ("block_size", L(block)), ("target_dtype", DT(dn)),
                ("quant_min", Int(lo)), ("quant_max", Int(hi)), ("eps", Fl(eps)), ("scale_dtype", NONE),
                ("zero_point_dtype", NONE), ("preserve_zero", B(True)), ("zero_point_domain", S(domain))]
        add(f"choose_affine_{nm}", TA + "choose_qparams_affine.default", args, [sc, zp])
        zpa = zp if domain != "NONE" else None
        q = quantize_affine(xa, block, sc, zpa, dt, lo, hi, domain)
        add(f"q_affine_{nm}", TA + "quantize_affine.default",
            [("input", T(xa)), ("block_size", L(block)), ("scale", T(sc)),
             ("zero_point", T(zpa) if zpa is not None else NONE), ("output_dtype", DT(dn)), ("quant_min", Int(lo)),
             ("quant_max", Int(hi)), ("zero_point_domain", S(domain))], [q])
        add(f"dq_affine_{nm}", TA + "dequantize_affine.default",
            [("input", T(q)), ("block_size", L(block)), ("scale", T(sc)),
             ("zero_point", T(zpa) if zpa is not None else NONE),
             ("input_dtype", DT(dn)), ("quant_min", Int(lo)), ("quant_max", Int(hi)), ("zero_point_domain", S(domain)),
             ("output_dtype", DT("float32"))], [dequantize_affine(q, block, sc, zpa, lo, hi, domain)])
    # the newer schema: no zero_point_domain, keepdim, default eps (smallest normal)
    sc, zp = choose_qparams_affine(xc, "ASYMMETRIC", [1, 1, 8], -8, 7, float(np.finfo(np.float32).tiny), keepdim=True)
    add("choose_affine_keepdim_schema", TA + "choose_qparams_affine.default",
        [("input", T(xc)), ("mapping_type", S("ASYMMETRIC")), ("block_size", L([1, 1, 8])),
         ("target_dtype", DT("int8")), ("quant_min", Int(-8)), ("quant_max", Int(7)), ("eps", NONE),
         ("scale_dtype", NONE), ("zero_point_dtype", NONE),
         ("keepdim", B(True))], [sc, zp])
    q = quantize_affine(xa, [1, 1, 8], sc, zp, np.int8, -8, 7)
    add("q_affine_keepdim_schema", TA + "quantize_affine.default",
        [("input", T(xa)), ("block_size", L([1, 1, 8])), ("scale", T(sc)), ("zero_point", T(zp)),
         ("output_dtype", DT("int8")), ("quant_min", Int(-8)), ("quant_max", Int(7))], [q])
    add("q_affine_default_bounds", TA + "quantize_affine.default",
        [("input", T(xa)), ("block_size", L([1, 1, 8])), ("scale", T(sc)), ("zero_point", T(zp)),
         ("output_dtype", DT("int8")), ("quant_min", NONE), ("quant_max", NONE)],
        [quantize_affine(xa, [1, 1, 8], sc, zp, np.int8, -128, 127)])
    add("affine_block_uneven", TA + "quantize_affine.default",
        [("input", T(xa)), ("block_size", L([1, 1, 5])), ("scale", T(sc)), ("zero_point", T(zp)),
         ("output_dtype", DT("int8")), ("quant_min", Int(-8)), ("quant_max", Int(7))],
        error="dim 2 of size 16 does not split into blocks of 5")
    add("affine_block_rank", TA + "quantize_affine.default",
        [("input", T(xa)), ("block_size", L([1, 8])), ("scale", T(sc)), ("zero_point", T(zp)),
         ("output_dtype", DT("int8")), ("quant_min", Int(-8)), ("quant_max", Int(7))], error="block_size has 2 entries")
    add("affine_scale_count", TA + "quantize_affine.default",
        [("input", T(xa)), ("block_size", L([1, 1, 4])), ("scale", T(sc)), ("zero_point", T(zp)),
         ("output_dtype", DT("int8")), ("quant_min", Int(-8)), ("quant_max", Int(7))], error="48 blocks, but 24 scales")

    # repeat_interleave.Tensor
    r = np.array([2, 0, 3, 1], np.int64)
    add("repeat_interleave", "aten.repeat_interleave.Tensor", [("repeats", T(r))], [repeat_interleave(r)])
    add("repeat_interleave_output_size", "aten.repeat_interleave.Tensor",
        [("repeats", T(np.full(4, 2, np.int64))), ("output_size", Int(8))], [repeat_interleave(np.full(4, 2))])
    add("repeat_interleave_bad_output_size", "aten.repeat_interleave.Tensor",
        [("repeats", T(r)), ("output_size", Int(5))], error="output_size 5 differs")
    add("repeat_interleave_negative", "aten.repeat_interleave.Tensor",
        [("repeats", T(np.array([1, -1], np.int64)))], error="non-negative")
    # repeat_interleave.self_int / self_Tensor (np.repeat; checked against torch below)
    xr = (rng.standard_normal((2, 3, 4))).astype(F32)
    add("repeat_interleave_self_int_dim1", "aten.repeat_interleave.self_int",
        [("self", T(xr)), ("repeats", Int(2)), ("dim", Int(1))], [np.repeat(xr, 2, axis=1)])
    add("repeat_interleave_self_int_flat", "aten.repeat_interleave.self_int",
        [("self", T(xr)), ("repeats", Int(3)), ("dim", NONE)], [np.repeat(xr.reshape(-1), 3)])
    rr = np.array([1, 0, 2], np.int64)
    add("repeat_interleave_self_tensor", "aten.repeat_interleave.self_Tensor",
        [("self", T(xr)), ("repeats", T(rr)), ("dim", Int(-2)), ("output_size", Int(3))], [np.repeat(xr, rr, axis=1)])
    add("repeat_interleave_self_tensor_bad_len", "aten.repeat_interleave.self_Tensor",
        [("self", T(xr)), ("repeats", T(np.array([1, 2], np.int64))), ("dim", Int(1))],
        error="integer tensor of 1 or 3")
    assert np.array_equal(
        np.repeat(
            xr, rr, axis=1), torch.from_numpy(xr).repeat_interleave(
            torch.from_numpy(rr), 1).numpy())
    assert np.array_equal(np.repeat(xr, 2, axis=1), torch.from_numpy(xr).repeat_interleave(2, 1).numpy())
    return out


def main():
    check_against_torch()
    doc = {"generator": "tests/tools/gen_quant_kernels.py", "numpy": np.__version__, "torch": torch.__version__,
           "cases": cases()}
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(len(doc["cases"]), "cases ->", os.path.relpath(OUT))


if __name__ == "__main__":
    main()
