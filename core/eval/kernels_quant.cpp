// Quantization operators: quantized_decomposed (PT2E and ExecuTorch's LLM export) and torchao's
// affine ops, computed as their reference Python definitions do, to the bit.
//
// Definitions read (facts only, no code copied):
// - pytorch/pytorch torch/ao/quantization/fx/_decomposed.py at 6661d4b60b4101b1a9901cabbcd54bdafe2e12ac
//   (quantize/dequantize per tensor, per channel, per token, per channel group,
//   choose_qparams.tensor, choose_qparams_symmetric.tensor, choose_qparams_per_token_asymmetric)
//   and determine_qparams of torch/ao/quantization/utils.py (the per-tensor affine / symmetric rules).
// - pytorch/ao torchao/quantization/quant_primitives.py at 212d912dcbfb43b13cc4bee533d3d1844d76b7c1
//   (torchao::quantize_affine / dequantize_affine / choose_qparams_affine with a zero_point_domain
//   argument INT / FLOAT / NONE and preserve_zero) and at 36027d82d1ad9949597ea16002ff4940374b1b94
//   (the same ops without zero_point_domain, choose_qparams_affine with keepdim; eps defaults to
//   the smallest normal instead of the machine epsilon). Arguments are looked up by schema name,
//   so both schemas run.
//
// Arithmetic follows torch's type promotion: each step is computed exactly (in double) and then
// rounded to the dtype torch computes that step in (float32 for a float32 input times a float32
// scale tensor, float64 when the scales are float64 tensors, which is what
// choose_qparams_per_token_asymmetric returns). Rounding a correctly rounded double result of
// +, -, *, / to float32 gives float32's own correctly rounded result, so this is bit-exact.
// Rounding is half to even (torch.round = nearbyint); NaN cast to an integer dtype gives what
// torch gives on x86: 0 for 8/16-bit types, the minimum for int32 / int64.

#include "eval/kernels.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace etscope::eval {

namespace {

#define TRY ETSCOPE_EVAL_TRY
#define CHECK(expr)                                                                                                    \
    if (auto status_ = (expr); !status_)                                                                               \
    return status_.error()

// ---------------------------------------------------------------- arithmetic helpers

// v rounded to floating dtype t (the result of a torch op computed in t).
double rnd(ScalarType t, double v)
{
    switch (t) {
    case ScalarType::Float:
        return double(float(v));
    case ScalarType::Half:
        return double(halfBitsToFloat(floatToHalfBits(float(v))));
    case ScalarType::BFloat16:
        return double(bf16BitsToFloat(floatToBf16Bits(float(v))));
    default:
        return v;
    }
}

// Result dtype of a binary op between two non-0-d tensors (or a tensor and a same-category value).
ScalarType floatOf(ScalarType a, ScalarType b)
{
    return promote(a, b);
}

// A clamped, rounded value cast to an integer dtype (NaN as torch casts it on x86).
std::int64_t toQuant(double v, ScalarType dt)
{
    if (std::isnan(v)) {
        if (dt == ScalarType::Int)
            return std::numeric_limits<std::int32_t>::min();
        if (dt == ScalarType::Long)
            return std::numeric_limits<std::int64_t>::min();
        return 0;
    }
    return std::int64_t(v);
}

// torch.clamp(v, lo, hi): NaN stays NaN.
double clampq(double v, double lo, double hi)
{
    if (std::isnan(v))
        return v;
    return std::min(std::max(v, lo), hi);
}

Result<std::pair<std::int64_t, std::int64_t>> dtypeBounds(ScalarType dt)
{
    switch (dt) {
    case ScalarType::Byte:
        return std::pair<std::int64_t, std::int64_t> { 0, 255 };
    case ScalarType::Char:
        return std::pair<std::int64_t, std::int64_t> { -128, 127 };
    case ScalarType::Short:
        return std::pair<std::int64_t, std::int64_t> { -32768, 32767 };
    case ScalarType::UInt16:
        return std::pair<std::int64_t, std::int64_t> { 0, 65535 };
    case ScalarType::Int:
        return std::pair<std::int64_t, std::int64_t> { std::numeric_limits<std::int32_t>::min(),
            std::numeric_limits<std::int32_t>::max() };
    default:
        return kernelError(fmt::format("unsupported quantized dtype {}", scalarTypeName(dt)));
    }
}

struct QRange {
    std::int64_t qmin = 0, qmax = 0;
    ScalarType dtype = ScalarType::Char;
};

// quant_min / quant_max / dtype arguments; missing bounds default to the dtype's (torchao).
Result<QRange> qrange(const KernelArgs &a, int first, const char *minName, const char *maxName, const char *dtName,
    int dtIndex, const char *op)
{
    QRange q;
    TRY(dt, a.dtype(dtIndex, dtName));
    if (!*dt)
        return kernelError(fmt::format("{}: missing dtype", op));
    q.dtype = **dt;
    TRY(bounds, dtypeBounds(q.dtype));
    // quant_min / quant_max as ints or (tensor2 overloads) 1-element tensors.
    auto bound = [&](int index, const char *name, std::int64_t def) -> Result<std::int64_t> {
        const Value *v = a.find(index, name);
        if (!v || v->isNone())
            return def;
        if (v->kind == Value::Kind::Tensor) {
            if (v->tensor.numel() != 1)
                return kernelError(fmt::format("{}: '{}' must hold one value", op, name));
            return v->tensor.getInt(0);
        }
        return a.integer(index, name);
    };
    TRY(lo, bound(first, minName, bounds->first));
    TRY(hi, bound(first + 1, maxName, bounds->second));
    q.qmin = *lo;
    q.qmax = *hi;
    if (q.qmin > q.qmax || q.qmin < bounds->first || q.qmax > bounds->second)
        return kernelError(
            fmt::format("{}: quant range [{}, {}] does not fit {}", op, q.qmin, q.qmax, scalarTypeName(q.dtype)));
    return q;
}

Status needFloat(const Tensor &x, const char *op)
{
    if (category(x.dtype) != Category::Float)
        return kernelError(fmt::format("{}: input must be floating point, got {}", op, scalarTypeName(x.dtype)));
    return Ok {};
}

Status needInt(const Tensor &x, const char *op)
{
    if (category(x.dtype) != Category::Int)
        return kernelError(fmt::format("{}: input must be an integer tensor, got {}", op, scalarTypeName(x.dtype)));
    return Ok {};
}

// Scale / zero point given as a number or a 1-element tensor (.tensor overloads).
Result<double> scalarArg(const KernelArgs &a, int index, const char *name, const char *op)
{
    const Value *v = a.find(index, name);
    if (v && v->kind == Value::Kind::Tensor) {
        if (v->tensor.numel() != 1)
            return kernelError(fmt::format("{}: '{}' must hold one value, has {}", op, name, v->tensor.numel()));
        return v->tensor.getDouble(0);
    }
    return a.number(index, name);
}

// Float inputs below float32 are computed in float32 (the decompositions convert them first).
ScalarType atLeastFloat(ScalarType t)
{
    return t == ScalarType::Double ? t : ScalarType::Float;
}

// ---------------------------------------------------------------- per tensor

// clamp(round(x * (1/scale)) + zp): 1/scale is a Python float, cast to the input's dtype.
Result<Tensor> quantizePerTensor(const Tensor &x, double scale, double zp, const QRange &q)
{
    const ScalarType ct = atLeastFloat(x.dtype);
    const double inv = rnd(ct, 1.0 / scale);
    std::vector<std::int64_t> out(static_cast<std::size_t>(x.numel()));
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        const double p = rnd(ct, rnd(ct, x.getDouble(i)) * inv);
        const double v = rnd(ct, std::nearbyint(p) + rnd(ct, zp));
        out[std::size_t(i)] = toQuant(clampq(v, double(q.qmin), double(q.qmax)), q.dtype);
    }
    return fromIntValues(q.dtype, x.sizes, out);
}

// (x.to(out) - zp) * scale, each step in the output dtype; the Python scalars enter in the op's
// compute type (float32 for float32 / float16 / bfloat16 outputs).
Result<Tensor> dequantizePerTensor(const Tensor &x, double scale, double zp, ScalarType out)
{
    const ScalarType ct = atLeastFloat(out);
    const double s = rnd(ct, scale), z = rnd(ct, zp);
    std::vector<double> v(static_cast<std::size_t>(x.numel()));
    for (std::int64_t i = 0; i < x.numel(); ++i)
        v[std::size_t(i)] = rnd(out, rnd(out, rnd(out, x.getDouble(i)) - z) * s);
    return fromDoubleValues(out, x.sizes, v);
}

Result<std::vector<Tensor>> quantizePerTensorKernel(const KernelArgs &a)
{
    const char *op = "quantize_per_tensor";
    TRY(x, a.tensor(0, "input"));
    CHECK(needFloat(*x, op));
    TRY(s, scalarArg(a, 1, "scale", op));
    TRY(z, scalarArg(a, 2, "zero_point", op));
    TRY(q, qrange(a, 3, "quant_min", "quant_max", "dtype", 5, op));
    return one(quantizePerTensor(*x, *s, *z, *q));
}

Result<std::vector<Tensor>> dequantizePerTensorKernel(const KernelArgs &a)
{
    const char *op = "dequantize_per_tensor";
    TRY(x, a.tensor(0, "input"));
    CHECK(needInt(*x, op));
    TRY(s, scalarArg(a, 1, "scale", op));
    TRY(z, scalarArg(a, 2, "zero_point", op));
    TRY(od, a.dtype(-1, "out_dtype"));
    const ScalarType out = od->value_or(ScalarType::Float);
    if (category(out) != Category::Float)
        return kernelError("dequantize_per_tensor: out_dtype must be floating point");
    return one(dequantizePerTensor(*x, *s, *z, out));
}

// ---------------------------------------------------------------- per channel

// Channel of element i along `axis`.
std::int64_t channelOf(std::int64_t i, std::int64_t inner, std::int64_t channels)
{
    return (i / inner) % channels;
}

std::int64_t innerSize(const std::vector<std::int64_t> &sizes, int axis)
{
    std::int64_t inner = 1;
    for (std::size_t d = std::size_t(axis) + 1; d < sizes.size(); ++d)
        inner *= sizes[d];
    return inner;
}

struct PerChannel {
    Tensor x, scales;
    std::optional<Tensor> zps;
    int axis = 0;
    std::int64_t channels = 1, inner = 1;
};

Result<PerChannel> perChannelArgs(const KernelArgs &a, const char *op)
{
    PerChannel p;
    TRY(x, a.tensor(0, "input"));
    TRY(st, a.tensor(1, "scales"));
    TRY(zt, a.optTensor(2, "zero_points"));
    TRY(axis, a.integer(3, "axis"));
    if (x->dim() == 0)
        return kernelError(fmt::format("{}: input must have at least 1 dimension", op));
    if (*axis < -x->dim() || *axis >= x->dim())
        return kernelError(fmt::format("{}: axis {} out of range for a {}-d input", op, *axis, x->dim()));
    p.x = *x;
    p.scales = *st;
    p.zps = *zt;
    p.axis = int(*axis < 0 ? *axis + x->dim() : *axis);
    p.channels = x->sizes[std::size_t(p.axis)];
    p.inner = innerSize(x->sizes, p.axis);
    if (st->numel() != p.channels || (*zt && (*zt)->numel() != p.channels))
        return kernelError(fmt::format("{}: {} channels along axis {}, but {} scales and {} zero points", op,
            p.channels, p.axis, st->numel(), *zt ? (*zt)->numel() : p.channels));
    if (category(st->dtype) != Category::Float)
        return kernelError(fmt::format("{}: scales must be floating point", op));
    return p;
}

// clamp(round(x * (1.0 / scales)) + zero_points): 1/scales in the scales' dtype, the product in
// the promotion of the input and scale dtypes.
Result<std::vector<Tensor>> quantizePerChannelKernel(const KernelArgs &a)
{
    const char *op = "quantize_per_channel";
    TRY(p, perChannelArgs(a, op));
    CHECK(needFloat(p->x, op));
    TRY(q, qrange(a, 4, "quant_min", "quant_max", "dtype", 6, op));
    const ScalarType xt = atLeastFloat(p->x.dtype);
    const ScalarType mt = floatOf(xt, p->scales.dtype);
    const ScalarType zt = p->zps ? floatOf(mt, p->zps->dtype) : mt;
    std::vector<std::int64_t> out(static_cast<std::size_t>(p->x.numel()));
    for (std::int64_t i = 0; i < p->x.numel(); ++i) {
        const std::int64_t c = channelOf(i, p->inner, p->channels);
        const double inv = rnd(p->scales.dtype, 1.0 / p->scales.getDouble(c));
        const double r = std::nearbyint(rnd(mt, rnd(xt, p->x.getDouble(i)) * inv));
        const double v = p->zps ? rnd(zt, r + p->zps->getDouble(c)) : r;
        out[std::size_t(i)] = toQuant(clampq(v, double(q->qmin), double(q->qmax)), q->dtype);
    }
    return one(fromIntValues(q->dtype, p->x.sizes, out));
}

// (input - zero_points) * scales, then .to(out_dtype): the difference is integer for integer
// zero points, the product in the scales' dtype.
Result<std::vector<Tensor>> dequantizePerChannelKernel(const KernelArgs &a)
{
    const char *op = "dequantize_per_channel";
    TRY(p, perChannelArgs(a, op));
    CHECK(needInt(p->x, op));
    TRY(od, a.dtype(-1, "out_dtype"));
    const ScalarType out = od->value_or(ScalarType::Float);
    if (category(out) != Category::Float)
        return kernelError("dequantize_per_channel: out_dtype must be floating point");
    const ScalarType dt = p->zps ? promote(p->x.dtype, p->zps->dtype) : p->x.dtype;
    const ScalarType mt = promote(dt, p->scales.dtype);
    std::vector<double> v(static_cast<std::size_t>(p->x.numel()));
    for (std::int64_t i = 0; i < p->x.numel(); ++i) {
        const std::int64_t c = channelOf(i, p->inner, p->channels);
        const double d = p->zps ? rnd(dt, p->x.getDouble(i) - p->zps->getDouble(c)) : p->x.getDouble(i);
        v[std::size_t(i)] = rnd(out, rnd(mt, d * p->scales.getDouble(c)));
    }
    return one(fromDoubleValues(out, p->x.sizes, v));
}

// ---------------------------------------------------------------- per token

// One scale / zero point per token: every dim but the last.
Result<std::int64_t> tokensOf(const Tensor &x, const Tensor &scales, const Tensor &zps, const char *op)
{
    if (x.dim() == 0)
        return kernelError(fmt::format("{}: input must have at least 1 dimension", op));
    std::int64_t tokens = 1;
    for (std::size_t d = 0; d + 1 < x.sizes.size(); ++d)
        tokens *= x.sizes[d];
    if (scales.numel() != tokens || zps.numel() != tokens)
        return kernelError(
            fmt::format("{}: {} tokens, {} scales and {} zero points", op, tokens, scales.numel(), zps.numel()));
    return tokens;
}

// input.mul(1.0 / scales).add(zero_points).round().clamp(quant_min, quant_max).to(dtype)
Result<std::vector<Tensor>> quantizePerTokenKernel(const KernelArgs &a)
{
    const char *op = "quantize_per_token";
    TRY(x, a.tensor(0, "input"));
    TRY(scales, a.tensor(1, "scales"));
    TRY(zps, a.tensor(2, "zero_points"));
    CHECK(needFloat(*x, op));
    TRY(q, qrange(a, 3, "quant_min", "quant_max", "dtype", 5, op));
    TRY(tokens, tokensOf(*x, *scales, *zps, op));
    if (category(scales->dtype) != Category::Float)
        return kernelError(fmt::format("{}: scales must be floating point", op));
    const ScalarType mt = promote(x->dtype, scales->dtype);
    const ScalarType at = promote(mt, zps->dtype);
    const std::int64_t inner = x->sizes.back();
    std::vector<std::int64_t> out(static_cast<std::size_t>(x->numel()));
    for (std::int64_t i = 0; i < x->numel(); ++i) {
        const std::int64_t t = inner ? i / inner : 0;
        const double inv = rnd(scales->dtype, 1.0 / scales->getDouble(t));
        const double v = std::nearbyint(rnd(at, rnd(mt, x->getDouble(i) * inv) + zps->getDouble(t)));
        out[std::size_t(i)] = toQuant(clampq(v, double(q->qmin), double(q->qmax)), q->dtype);
    }
    return one(fromIntValues(q->dtype, x->sizes, out));
}

// ((input - zero_points) * scales).to(output_dtype)
Result<std::vector<Tensor>> dequantizePerTokenKernel(const KernelArgs &a)
{
    const char *op = "dequantize_per_token";
    TRY(x, a.tensor(0, "input"));
    TRY(scales, a.tensor(1, "scales"));
    TRY(zps, a.tensor(2, "zero_points"));
    CHECK(needInt(*x, op));
    TRY(odt, a.dtype(6, "output_dtype"));
    TRY(tokens, tokensOf(*x, *scales, *zps, op));
    const ScalarType out = odt->value_or(ScalarType::Float);
    if (category(out) != Category::Float)
        return kernelError(fmt::format("{}: output_dtype must be floating point", op));
    const ScalarType dt = promote(x->dtype, zps->dtype);
    const ScalarType mt = promote(dt, scales->dtype);
    const std::int64_t inner = x->sizes.back();
    std::vector<double> v(static_cast<std::size_t>(x->numel()));
    for (std::int64_t i = 0; i < x->numel(); ++i) {
        const std::int64_t t = inner ? i / inner : 0;
        const double d = rnd(dt, x->getDouble(i) - zps->getDouble(t));
        v[std::size_t(i)] = rnd(out, rnd(mt, d * scales->getDouble(t)));
    }
    return one(fromDoubleValues(out, x->sizes, v));
}

// XNNPACK-style asymmetric int8 parameters per token, computed in the input's dtype; returns
// float64 scales and int64 zero points of shape [..., 1].
Result<std::vector<Tensor>> chooseQparamsPerTokenAsymmetricKernel(const KernelArgs &a)
{
    const char *op = "choose_qparams_per_token_asymmetric";
    TRY(x, a.tensor(0, "input"));
    CHECK(needFloat(*x, op));
    if (x->dim() == 0 || x->sizes.back() == 0)
        return kernelError(fmt::format("{}: input must have a non-empty last dimension", op));
    const ScalarType ct = x->dtype;
    const double qmin = -128, qmax = 127;
    const double eps = double(std::numeric_limits<float>::epsilon());
    const std::int64_t inner = x->sizes.back();
    const std::int64_t tokens = x->numel() / inner;
    std::vector<std::int64_t> shape = x->sizes;
    shape.back() = 1;
    std::vector<double> scales(static_cast<std::size_t>(tokens));
    std::vector<std::int64_t> zps(static_cast<std::size_t>(tokens));
    for (std::int64_t t = 0; t < tokens; ++t) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        bool nan = false;
        for (std::int64_t k = 0; k < inner; ++k) {
            const double v = x->getDouble(t * inner + k);
            nan = nan || std::isnan(v);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        if (nan)
            lo = hi = std::numeric_limits<double>::quiet_NaN();
        // torch.min / torch.max with zeros propagate NaN.
        const double minNeg = std::isnan(lo) ? lo : std::min(lo, 0.0);
        const double maxPos = std::isnan(hi) ? hi : std::max(hi, 0.0);
        double scale = rnd(ct, rnd(ct, maxPos - minNeg) / (qmax - qmin));
        scale = std::isnan(scale) ? scale : std::max(scale, rnd(ct, eps));
        const double dmin = rnd(ct, minNeg / scale), dmax = rnd(ct, maxPos / scale);
        const double fromMin = rnd(ct, qmin + dmin), fromMax = rnd(ct, qmax + dmax);
        double zp = rnd(ct, fromMin + fromMax) > 0 ? rnd(ct, qmin - dmin) : rnd(ct, qmax - dmax);
        zp = std::nearbyint(clampq(zp, qmin, qmax));
        scales[std::size_t(t)] = scale;
        zps[std::size_t(t)] = toQuant(zp, ScalarType::Long);
    }
    TRY(s, fromDoubleValues(ScalarType::Double, shape, scales));
    TRY(z, fromIntValues(ScalarType::Long, shape, zps));
    return std::vector<Tensor> { *s, *z };
}

// ---------------------------------------------------------------- choose_qparams (per tensor)

// determine_qparams for per_tensor_affine (symmetric = false) or per_tensor_symmetric:
// float64 scale [1] and int64 zero point [1]. NaN or empty input fails as upstream's asserts do.
Result<std::vector<Tensor>> chooseQparamsTensor(const KernelArgs &a, bool symmetric)
{
    const char *op = symmetric ? "choose_qparams_symmetric" : "choose_qparams";
    TRY(x, a.tensor(0, "input"));
    CHECK(needFloat(*x, op));
    TRY(lo, a.integer(1, "quant_min"));
    TRY(hi, a.integer(2, "quant_max"));
    TRY(eps, a.number(3, "eps"));
    TRY(dt, a.dtype(4, "dtype"));
    if (!*dt)
        return kernelError(fmt::format("{}: missing dtype", op));
    TRY(bounds, dtypeBounds(**dt));
    // validate_qmin_qmax: the range must contain 0 and be non-empty.
    if (!(*lo <= 0 && 0 <= *hi) || *lo >= *hi)
        return kernelError(fmt::format("{}: quant range [{}, {}] must contain 0 and be non-empty", op, *lo, *hi));
    if (x->numel() == 0)
        return kernelError(fmt::format("{}: input is empty", op));
    const ScalarType ct = x->dtype == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
    double mn = std::numeric_limits<double>::infinity(), mx = -mn;
    for (std::int64_t i = 0; i < x->numel(); ++i) {
        const double v = x->getDouble(i);
        if (std::isnan(v))
            return kernelError(fmt::format("{}: input holds NaN (min <= max fails)", op));
        mn = std::min(mn, v);
        mx = std::max(mx, v);
    }
    const double minNeg = std::min(mn, 0.0), maxPos = std::max(mx, 0.0);
    const double epsF = double(float(*eps)); // torch.Tensor([eps]) is float32
    double scale = 0;
    std::int64_t zp = 0;
    if (symmetric) {
        const double m = std::max(-minNeg, maxPos);
        scale = std::max(rnd(ct, m / (double(*hi - *lo) / 2)), epsF);
        if (**dt == ScalarType::Byte)
            zp = 128;
    } else {
        scale = std::max(rnd(ct, rnd(ct, maxPos - minNeg) / double(*hi - *lo)), epsF);
        // quant_min - round(min_neg / scale).to(int32), clamped.
        const double r = std::nearbyint(rnd(ct, minNeg / scale));
        zp = std::min(std::max(*lo - std::int64_t(r), *lo), *hi);
    }
    (void)bounds;
    TRY(s, fromDoubleValues(ScalarType::Double, { 1 }, { scale }));
    TRY(z, fromIntValues(ScalarType::Long, { 1 }, { zp }));
    return std::vector<Tensor> { *s, *z };
}

// ---------------------------------------------------------------- per channel group

struct Grouped {
    Tensor x, scales;
    std::optional<Tensor> zps;
    std::int64_t group = 0, groups = 0;
};

// 2-d input whose rows split into groups of `group_size` columns; one scale per group.
Result<Grouped> groupedArgs(const KernelArgs &a, const char *op)
{
    Grouped g;
    TRY(x, a.tensor(0, "input"));
    TRY(st, a.tensor(1, "scales"));
    TRY(zt, a.optTensor(2, "zero_points"));
    TRY(gs, a.integer(6, "group_size"));
    if (x->dim() != 2)
        return kernelError(fmt::format("{}: input must be 2-d, got {}-d", op, x->dim()));
    std::int64_t group = *gs;
    if (group <= 1)
        return kernelError(fmt::format("{}: group_size must be > 1, got {}", op, group));
    const std::int64_t cols = x->sizes[1];
    // One scale per row with a group larger than the row (GPTQ's single column case).
    if (group > cols && st->dim() > 0 && st->sizes.back() == 1)
        group = cols;
    if (cols % group != 0)
        return kernelError(fmt::format("{}: {} columns do not split into groups of {}", op, cols, group));
    g.x = *x;
    g.scales = *st;
    g.zps = *zt;
    g.group = group;
    g.groups = x->numel() / group;
    if (st->numel() != g.groups || (*zt && (*zt)->numel() != g.groups))
        return kernelError(fmt::format("{}: {} groups, but {} scales and {} zero points", op, g.groups, st->numel(),
            *zt ? (*zt)->numel() : g.groups));
    if (category(st->dtype) != Category::Float)
        return kernelError(fmt::format("{}: scales must be floating point", op));
    return g;
}

// to_quant.mul(1.0 / scales).add(zero_points).round().clamp_(quant_min, quant_max).to(dtype)
Result<std::vector<Tensor>> quantizePerChannelGroupKernel(const KernelArgs &a)
{
    const char *op = "quantize_per_channel_group";
    TRY(g, groupedArgs(a, op));
    CHECK(needFloat(g->x, op));
    if (!g->zps)
        return kernelError(fmt::format("{}: zero_points are required", op));
    TRY(q, qrange(a, 3, "quant_min", "quant_max", "dtype", 5, op));
    const ScalarType mt = promote(g->x.dtype, g->scales.dtype);
    const ScalarType at = promote(mt, g->zps->dtype);
    std::vector<std::int64_t> out(static_cast<std::size_t>(g->x.numel()));
    for (std::int64_t i = 0; i < g->x.numel(); ++i) {
        const double xv = g->x.getDouble(i);
        if (std::isnan(xv))
            return kernelError(fmt::format("{}: input holds NaN", op));
        const std::int64_t k = i / g->group;
        const double inv = rnd(g->scales.dtype, 1.0 / g->scales.getDouble(k));
        const double v = std::nearbyint(rnd(at, rnd(mt, xv * inv) + g->zps->getDouble(k)));
        out[std::size_t(i)] = toQuant(clampq(v, double(q->qmin), double(q->qmax)), q->dtype);
    }
    return one(fromIntValues(q->dtype, g->x.sizes, out));
}

// w.reshape(-1, group).sub(zero_points).mul(scales).to(output_dtype)
Result<std::vector<Tensor>> dequantizePerChannelGroupKernel(const KernelArgs &a)
{
    const char *op = "dequantize_per_channel_group";
    TRY(g, groupedArgs(a, op));
    CHECK(needInt(g->x, op));
    TRY(odt, a.dtype(7, "output_dtype"));
    const ScalarType out = odt->value_or(ScalarType::Float);
    if (category(out) != Category::Float)
        return kernelError(fmt::format("{}: output_dtype must be floating point", op));
    const ScalarType dt = g->zps ? promote(g->x.dtype, g->zps->dtype) : g->x.dtype;
    const ScalarType mt = promote(dt, g->scales.dtype);
    std::vector<double> v(static_cast<std::size_t>(g->x.numel()));
    for (std::int64_t i = 0; i < g->x.numel(); ++i) {
        const std::int64_t k = i / g->group;
        const double d = g->zps ? rnd(dt, g->x.getDouble(i) - g->zps->getDouble(k)) : g->x.getDouble(i);
        v[std::size_t(i)] = rnd(out, rnd(mt, d * g->scales.getDouble(k)));
    }
    return one(fromDoubleValues(out, g->x.sizes, v));
}

// ---------------------------------------------------------------- torchao affine

// _get_reduction_params: the index of each element's parameter in the reduced (block) tensor.
struct Blocks {
    std::vector<std::int64_t> paramShape; // block counts of the kept dims (keepdim=False layout)
    std::vector<std::int64_t> keepShape; // size / block per dim (keepdim=True layout)
    std::vector<std::int64_t> blockOf; // per input dim: block size used for the index (1 = own index)
    std::vector<bool> reduced; // dim fully reduced (no index)
    std::int64_t count = 1; // number of blocks
};

Result<Blocks> blocksOf(const std::vector<std::int64_t> &sizes, const std::vector<std::int64_t> &block, const char *op)
{
    if (block.size() != sizes.size())
        return kernelError(
            fmt::format("{}: block_size has {} entries for a {}-d input", op, block.size(), sizes.size()));
    Blocks b;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const std::int64_t n = sizes[i], k = block[i];
        if (k <= 0)
            return kernelError(fmt::format("{}: block_size[{}] = {} must be positive", op, i, k));
        if (k != n && k > 1) {
            if (n % k != 0)
                return kernelError(fmt::format("{}: dim {} of size {} does not split into blocks of {}", op, i, n, k));
            b.paramShape.push_back(n / k);
            b.blockOf.push_back(k);
            b.reduced.push_back(false);
            b.count *= n / k;
        } else if (k == 1) {
            b.paramShape.push_back(n);
            b.blockOf.push_back(1);
            b.reduced.push_back(false);
            b.count *= n;
        } else { // k == n > 1: the whole dim is one block
            b.blockOf.push_back(n);
            b.reduced.push_back(true);
        }
        b.keepShape.push_back(n / k);
    }
    return b;
}

// Block index of every element, row-major.
std::vector<std::int64_t> blockIndex(const std::vector<std::int64_t> &sizes, const Blocks &b)
{
    std::int64_t n = 1;
    for (auto s : sizes)
        n *= s;
    std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
    std::vector<std::int64_t> coord(sizes.size(), 0);
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t k = 0;
        for (std::size_t d = 0; d < sizes.size(); ++d) {
            if (b.reduced[d])
                continue;
            const std::int64_t count = sizes[d] / b.blockOf[d];
            k = k * count + coord[d] / b.blockOf[d];
        }
        idx[std::size_t(i)] = k;
        for (std::size_t d = sizes.size(); d-- > 0;) {
            if (++coord[d] < sizes[d])
                break;
            coord[d] = 0;
        }
    }
    return idx;
}

enum class ZpDomain { Int, Float, None };

Result<ZpDomain> zpDomain(const KernelArgs &a)
{
    const Value *v = a.find(-1, "zero_point_domain");
    if (!v || v->isNone())
        return ZpDomain::Int;
    if (v->kind != Value::Kind::String)
        return kernelError("zero_point_domain must be a string");
    if (v->str == "INT")
        return ZpDomain::Int;
    if (v->str == "FLOAT")
        return ZpDomain::Float;
    if (v->str == "NONE")
        return ZpDomain::None;
    return kernelError(fmt::format("zero_point_domain '{}' is not INT, FLOAT or NONE", v->str));
}

struct Affine {
    Tensor x, scale;
    std::optional<Tensor> zp;
    Blocks blocks;
    std::vector<std::int64_t> index;
};

Result<Affine> affineArgs(const KernelArgs &a, const char *op)
{
    Affine f;
    TRY(x, a.tensor(0, "input"));
    TRY(block, a.ints(1, "block_size"));
    TRY(scale, a.tensor(2, "scale"));
    TRY(zp, a.optTensor(3, "zero_point"));
    TRY(b, blocksOf(x->sizes, *block, op));
    f.x = *x;
    f.scale = *scale;
    if (*zp && (*zp)->numel() > 0)
        f.zp = *zp; // an empty zero point tensor stands for None
    if (scale->numel() != b->count || (f.zp && f.zp->numel() != b->count))
        return kernelError(fmt::format("{}: {} blocks, but {} scales and {} zero points", op, b->count, scale->numel(),
            f.zp ? f.zp->numel() : b->count));
    if (category(scale->dtype) != Category::Float)
        return kernelError(fmt::format("{}: scale must be floating point", op));
    f.blocks = std::move(*b);
    f.index = blockIndex(x->sizes, f.blocks);
    return f;
}

Result<std::vector<Tensor>> quantizeAffineKernel(const KernelArgs &a)
{
    const char *op = "quantize_affine";
    TRY(f, affineArgs(a, op));
    CHECK(needFloat(f->x, op));
    TRY(q, qrange(a, 5, "quant_min", "quant_max", "output_dtype", 4, op));
    TRY(domain, zpDomain(a));
    const ScalarType st = f->scale.dtype;
    const ScalarType mt = promote(f->x.dtype, st);
    std::vector<std::int64_t> out(static_cast<std::size_t>(f->x.numel()));
    for (std::int64_t i = 0; i < f->x.numel(); ++i) {
        const std::int64_t k = f->index[std::size_t(i)];
        const double xv = f->x.getDouble(i), s = f->scale.getDouble(k);
        double v = 0;
        if (*domain == ZpDomain::Float) {
            // min_val = zero_point - scale * mid_point; round((input - min_val) / scale)
            if (!f->zp)
                return kernelError(fmt::format("{}: the FLOAT zero point domain needs a zero point", op));
            const double mid = double(q->qmax + q->qmin + 1) / 2;
            const ScalarType zt = promote(f->zp->dtype, st);
            const double minVal = rnd(zt, f->zp->getDouble(k) - rnd(st, s * mid));
            const ScalarType dt = promote(f->x.dtype, zt);
            v = std::nearbyint(rnd(dt, rnd(dt, xv - minVal) / s));
        } else {
            const double inv = rnd(st, 1.0 / s);
            v = std::nearbyint(rnd(mt, xv * inv));
            if (*domain == ZpDomain::Int && f->zp)
                v = rnd(promote(mt, f->zp->dtype), v + f->zp->getDouble(k));
        }
        out[std::size_t(i)] = toQuant(clampq(v, double(q->qmin), double(q->qmax)), q->dtype);
    }
    return one(fromIntValues(q->dtype, f->x.sizes, out));
}

Result<std::vector<Tensor>> dequantizeAffineKernel(const KernelArgs &a)
{
    const char *op = "dequantize_affine";
    TRY(f, affineArgs(a, op));
    CHECK(needInt(f->x, op));
    TRY(q, qrange(a, 5, "quant_min", "quant_max", "input_dtype", 4, op));
    TRY(domain, zpDomain(a));
    TRY(odt, a.dtype(-1, "output_dtype"));
    const ScalarType out = odt->value_or(ScalarType::Float);
    if (out != ScalarType::Float && out != ScalarType::Half && out != ScalarType::BFloat16)
        return kernelError(fmt::format("{}: output_dtype must be float32, float16 or bfloat16", op));
    if (f->x.dtype != q->dtype)
        return kernelError(fmt::format(
            "{}: input is {}, input_dtype says {}", op, scalarTypeName(f->x.dtype), scalarTypeName(q->dtype)));
    const ScalarType st = f->scale.dtype;
    const ScalarType mt = promote(out, st);
    std::vector<double> v(static_cast<std::size_t>(f->x.numel()));
    for (std::int64_t i = 0; i < f->x.numel(); ++i) {
        const std::int64_t k = f->index[std::size_t(i)];
        const double qv = f->x.getDouble(i), s = f->scale.getDouble(k);
        double r = 0;
        if (*domain == ZpDomain::Float) {
            // (input - mid_point).to(out) * scale + zero_point, in place in the output dtype.
            const double mid = double(q->qmax + q->qmin + 1) / 2;
            r = rnd(out, rnd(mt, rnd(out, rnd(ScalarType::Float, qv - mid)) * s));
            if (f->zp)
                r = rnd(out, rnd(promote(out, f->zp->dtype), r + f->zp->getDouble(k)));
        } else {
            // (input.to(int32) - zero_point.to(int32)).to(out) * scale
            double d = qv;
            if (*domain == ZpDomain::Int && f->zp)
                d = double(std::int32_t(qv) - std::int32_t(f->zp->getInt(k)));
            r = rnd(out, rnd(mt, rnd(out, d) * s));
        }
        v[std::size_t(i)] = r;
    }
    return one(fromDoubleValues(out, f->x.sizes, v));
}

Result<std::vector<Tensor>> chooseQparamsAffineKernel(const KernelArgs &a)
{
    const char *op = "choose_qparams_affine";
    TRY(x, a.tensor(0, "input"));
    CHECK(needFloat(*x, op));
    const Value *mv = a.find(1, "mapping_type");
    if (!mv || mv->kind != Value::Kind::String)
        return kernelError(fmt::format("{}: mapping_type must be a string", op));
    const std::string mapping = mv->str;
    if (mapping != "SYMMETRIC" && mapping != "ASYMMETRIC" && mapping != "SYMMETRIC_NO_CLIPPING_ERR")
        return kernelError(fmt::format("{}: unsupported mapping type '{}'", op, mapping));
    TRY(block, a.ints(2, "block_size"));
    TRY(q, qrange(a, 4, "quant_min", "quant_max", "target_dtype", 3, op));
    TRY(b, blocksOf(x->sizes, *block, op));
    TRY(epsArg, a.number(6, "eps", std::numeric_limits<double>::quiet_NaN()));
    TRY(sdt, a.dtype(7, "scale_dtype"));
    TRY(zdt, a.dtype(8, "zero_point_dtype"));
    TRY(preserve, a.boolean(-1, "preserve_zero", true));
    TRY(keepdim, a.boolean(-1, "keepdim", false));
    TRY(domain, zpDomain(a));
    const bool newSchema = a.find(-1, "keepdim") != nullptr;
    const ScalarType ct = x->dtype;
    double eps = *epsArg;
    if (std::isnan(eps)) // finfo(input.dtype): eps before the keepdim schema, smallest normal after
        eps = ct == ScalarType::Double
            ? (newSchema ? std::numeric_limits<double>::min() : std::numeric_limits<double>::epsilon())
            : ct == ScalarType::Half ? (newSchema ? 6.103515625e-05 : 0.0009765625)
            : ct == ScalarType::BFloat16
            ? (newSchema ? 1.1754943508222875e-38 : 0.0078125)
            : (newSchema ? double(std::numeric_limits<float>::min()) : double(std::numeric_limits<float>::epsilon()));
    eps = rnd(ct, eps); // clamp(min=eps) compares in the tensor's dtype
    const bool symmetric = mapping != "ASYMMETRIC";
    if (symmetric && !*preserve)
        return kernelError(fmt::format("{}: preserve_zero = False is not supported for symmetric quantization", op));
    if (symmetric && *domain == ZpDomain::Float)
        return kernelError(fmt::format("{}: the FLOAT zero point domain is not supported for symmetric mapping", op));
    const auto index = blockIndex(x->sizes, *b);
    const auto n = std::size_t(b->count);
    std::vector<double> mn(n, std::numeric_limits<double>::infinity()), mx(n, -std::numeric_limits<double>::infinity());
    std::vector<bool> nan(n, false);
    for (std::int64_t i = 0; i < x->numel(); ++i) {
        const auto k = std::size_t(index[std::size_t(i)]);
        const double v = x->getDouble(i);
        if (std::isnan(v))
            nan[k] = true;
        mn[k] = std::min(mn[k], v);
        mx[k] = std::max(mx[k], v);
    }
    const double qmin = double(q->qmin), qmax = double(q->qmax), mid = (qmax + qmin + 1) / 2;
    std::vector<double> scales(n), zps(n);
    for (std::size_t k = 0; k < n; ++k) {
        const double nanv = std::numeric_limits<double>::quiet_NaN();
        double lo = nan[k] ? nanv : mn[k], hi = nan[k] ? nanv : mx[k];
        if (*preserve && !nan[k]) {
            lo = std::min(lo, 0.0);
            hi = std::max(hi, 0.0);
        }
        double scale = 0, zp = 0;
        if (mapping == "SYMMETRIC") {
            const double m = nan[k] ? nanv : std::max(-lo, hi);
            scale = rnd(ct, m / ((qmax - qmin) / 2));
            zp = double(std::int64_t((qmax + qmin + 1) / 2));
        } else if (mapping == "SYMMETRIC_NO_CLIPPING_ERR") {
            const double smin = rnd(ct, lo / qmin), smax = rnd(ct, hi / qmax);
            scale = smin > smax ? smin : smax;
            zp = double(std::int64_t((qmax + qmin + 1) / 2));
        } else {
            scale = rnd(ct, rnd(ct, hi - lo) / (qmax - qmin));
        }
        scale = std::isnan(scale) ? scale : std::max(scale, eps);
        if (!symmetric) {
            if (*domain == ZpDomain::Float)
                zp = rnd(ct, lo + rnd(ct, scale * mid));
            else
                zp = clampq(rnd(ct, qmin - std::nearbyint(rnd(ct, lo / scale))), qmin, qmax);
        }
        scales[k] = scale;
        zps[k] = zp;
    }
    const ScalarType scaleType = sdt->value_or(ct);
    // Asymmetric INT defaults to int32 zero points; otherwise they keep the input's dtype.
    const ScalarType zpType = zdt->value_or(!symmetric && *domain == ZpDomain::Int ? ScalarType::Int : ct);
    const std::vector<std::int64_t> shape = *keepdim ? b->keepShape : b->paramShape;
    TRY(s, fromDoubleValues(scaleType, shape, scales));
    if (*domain == ZpDomain::None) {
        TRY(z, makeTensor(zpType, { 0 }));
        return std::vector<Tensor> { *s, *z };
    }
    if (category(zpType) == Category::Float) {
        TRY(z, fromDoubleValues(zpType, shape, zps));
        return std::vector<Tensor> { *s, *z };
    }
    std::vector<std::int64_t> zi(n);
    for (std::size_t k = 0; k < n; ++k)
        zi[k] = toQuant(zps[k], zpType);
    TRY(z, fromIntValues(zpType, shape, zi));
    return std::vector<Tensor> { *s, *z };
}

// ---------------------------------------------------------------- repeat_interleave

// repeat_interleave.Tensor(repeats, *, output_size): index i repeated repeats[i] times (what a
// traced x.repeat_interleave(n, dim) feeds to index_select).
Result<std::vector<Tensor>> repeatInterleaveKernel(const KernelArgs &a)
{
    const char *op = "repeat_interleave";
    TRY(r, a.tensor(0, "repeats"));
    if (r->dim() > 1 || category(r->dtype) != Category::Int)
        return kernelError(fmt::format("{}: repeats must be a 0-d or 1-d integer tensor", op));
    const Value *osv = a.find(-1, "output_size");
    std::int64_t total = 0;
    for (std::int64_t i = 0; i < r->numel(); ++i) {
        const std::int64_t k = r->getInt(i);
        if (k < 0)
            return kernelError(fmt::format("{}: repeats must be non-negative, got {}", op, k));
        if (k > elementLimit() || total > elementLimit() - k)
            return kernelError(fmt::format("{}: output larger than {} elements", op, elementLimit()));
        total += k;
    }
    if (osv && !osv->isNone()) {
        TRY(os, a.integer(-1, "output_size"));
        if (*os != total)
            return kernelError(fmt::format("{}: output_size {} differs from the repeats' sum {}", op, *os, total));
    }
    std::vector<std::int64_t> out;
    out.reserve(std::size_t(total));
    for (std::int64_t i = 0; i < r->numel(); ++i)
        out.insert(out.end(), std::size_t(r->getInt(i)), i);
    return one(fromIntValues(ScalarType::Long, { total }, out));
}

// repeat_interleave.self_int / .self_Tensor (graphs that keep the composite op): index_select
// of `self` along `dim` (flattened when dim is None) with each index i repeated repeats[i] times.
Result<std::vector<Tensor>> repeatInterleaveSelfKernel(const KernelArgs &a)
{
    const char *op = "repeat_interleave";
    TRY(x, a.tensor(0, "self"));
    Tensor self = *x;
    std::int64_t dim = 0;
    if (a.has(2, "dim")) {
        TRY(d, a.integer(2, "dim"));
        TRY(w, wrapDim(*d, self.dim()));
        dim = *w;
    } else {
        self = reshaped(self, { self.numel() });
    }
    const std::int64_t n = self.dim() ? self.sizes[std::size_t(dim)] : 1;
    std::vector<std::int64_t> counts;
    const Value *rv = a.find(1, "repeats");
    if (rv && rv->kind == Value::Kind::Tensor) {
        if (rv->tensor.dim() > 1 || category(rv->tensor.dtype) != Category::Int
            || (rv->tensor.numel() != n && rv->tensor.numel() != 1))
            return kernelError(
                fmt::format("{}: repeats must be an integer tensor of 1 or {} values, got {}", op, n, rv->describe()));
        for (std::int64_t i = 0; i < n; ++i)
            counts.push_back(rv->tensor.getInt(rv->tensor.numel() == 1 ? 0 : i));
    } else {
        TRY(r, a.integer(1, "repeats"));
        counts.assign(std::size_t(std::max<std::int64_t>(n, 0)), *r);
    }
    KernelArgs ra;
    TRY(counted, fromIntValues(ScalarType::Long, { std::int64_t(counts.size()) }, counts));
    ra.names = { "repeats" };
    ra.values = { Value::ofTensor(*counted) };
    if (a.has(-1, "output_size")) {
        ra.names.push_back("output_size");
        ra.values.push_back(*a.find(-1, "output_size"));
    }
    TRY(index, repeatInterleaveKernel(ra));
    const KernelFn *select = findKernel("aten.index_select.default");
    if (!select)
        return kernelError("repeat_interleave needs aten.index_select.default");
    KernelArgs sa;
    sa.threads = a.threads;
    sa.names = { "self", "dim", "index" };
    sa.values = { Value::ofTensor(self), Value::ofInt(dim), Value::ofTensor((*index)[0]) };
    return (*select)(sa);
}

} // namespace

void registerQuantKernels()
{
    registerKernel(
        { "quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.quantize_per_tensor.tensor",
            "quantized_decomposed.quantize_per_tensor.tensor2" },
        quantizePerTensorKernel);
    registerKernel(
        { "quantized_decomposed.dequantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.tensor",
            "quantized_decomposed.dequantize_per_tensor.tensor2" },
        dequantizePerTensorKernel);
    registerKernel({ "quantized_decomposed.quantize_per_channel.default" }, quantizePerChannelKernel);
    registerKernel({ "quantized_decomposed.dequantize_per_channel.default" }, dequantizePerChannelKernel);
    registerKernel({ "quantized_decomposed.quantize_per_token.default" }, quantizePerTokenKernel);
    registerKernel({ "quantized_decomposed.dequantize_per_token.default" }, dequantizePerTokenKernel);
    registerKernel(
        { "quantized_decomposed.choose_qparams_per_token_asymmetric.default" }, chooseQparamsPerTokenAsymmetricKernel);
    registerKernel({ "quantized_decomposed.choose_qparams.tensor" },
        [](const KernelArgs &a) { return chooseQparamsTensor(a, false); });
    registerKernel({ "quantized_decomposed.choose_qparams_symmetric.tensor" },
        [](const KernelArgs &a) { return chooseQparamsTensor(a, true); });
    registerKernel({ "quantized_decomposed.quantize_per_channel_group.default" }, quantizePerChannelGroupKernel);
    registerKernel({ "quantized_decomposed.dequantize_per_channel_group.default" }, dequantizePerChannelGroupKernel);
    registerKernel({ "torchao.quantize_affine.default" }, quantizeAffineKernel);
    registerKernel({ "torchao.dequantize_affine.default" }, dequantizeAffineKernel);
    registerKernel({ "torchao.choose_qparams_affine.default" }, chooseQparamsAffineKernel);
    registerKernel({ "aten.repeat_interleave.Tensor" }, repeatInterleaveKernel);
    registerKernel(
        { "aten.repeat_interleave.self_int", "aten.repeat_interleave.self_Tensor" }, repeatInterleaveSelfKernel);
}

} // namespace etscope::eval
