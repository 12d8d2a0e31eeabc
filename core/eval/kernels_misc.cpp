// quantized_decomposed quantize/dequantize (per tensor and per channel), computed as the
// reference decompositions do: clamp(round(x * (1/scale)) + zero_point) and (q - zp) * scale.

#include "eval/kernels.h"

#include <fmt/format.h>

#include <cmath>

namespace etscope::eval {

namespace {

#define TRY ETSCOPE_EVAL_TRY

// Scale / zero point given as a number or a 1-element tensor (.tensor overloads).
Result<double> number(const KernelArgs &a, int index, const char *name)
{
    const Value *v = a.find(index, name);
    if (v && v->kind == Value::Kind::Tensor) {
        if (v->tensor.numel() != 1)
            return kernelError(fmt::format("'{}' must hold one value", name));
        return v->tensor.getDouble(0);
    }
    return a.number(index, name);
}

struct QParams {
    std::int64_t qmin, qmax;
    ScalarType dtype;
};

Result<QParams> qparams(const KernelArgs &a, int first)
{
    QParams q;
    TRY(lo, a.integer(first, "quant_min"));
    TRY(hi, a.integer(first + 1, "quant_max"));
    TRY(dt, a.dtype(first + 2, "dtype"));
    q.qmin = *lo;
    q.qmax = *hi;
    q.dtype = dt->value_or(ScalarType::Char);
    if (category(q.dtype) != Category::Int || q.qmin > q.qmax)
        return kernelError("quantize: bad quant_min/quant_max/dtype");
    return q;
}

// Per-element scale / zero point index: the element's coordinate along `axis` (or 0).
std::int64_t channelOf(std::int64_t i, const std::vector<std::int64_t> &sizes, int axis)
{
    if (axis < 0)
        return 0;
    std::int64_t inner = 1;
    for (std::size_t d = std::size_t(axis) + 1; d < sizes.size(); ++d)
        inner *= sizes[d];
    return (i / inner) % sizes[std::size_t(axis)];
}

Result<Tensor> quantize(
    const Tensor &x, const std::vector<double> &scales, const std::vector<double> &zps, int axis, const QParams &q)
{
    if (category(x.dtype) != Category::Float)
        return kernelError("quantize needs a floating point input");
    std::vector<std::int64_t> out(static_cast<std::size_t>(x.numel()));
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        const std::int64_t c = channelOf(i, x.sizes, axis);
        // Like the decomposition: the multiply happens in float32 for float32 inputs.
        const float inv = float(1.0 / scales[std::size_t(c)]);
        const double prod = x.dtype == ScalarType::Double ? x.getDouble(i) * (1.0 / scales[std::size_t(c)])
                                                          : double(float(x.getDouble(i)) * inv);
        double v = std::nearbyint(prod) + zps[std::size_t(c)];
        v = std::min(std::max(v, double(q.qmin)), double(q.qmax));
        out[std::size_t(i)] = v != v ? 0 : std::int64_t(v);
    }
    return fromIntValues(q.dtype, x.sizes, out);
}

Result<Tensor> dequantize(
    const Tensor &x, const std::vector<double> &scales, const std::vector<double> &zps, int axis, ScalarType outType)
{
    std::vector<double> out(static_cast<std::size_t>(x.numel()));
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        const std::int64_t c = channelOf(i, x.sizes, axis);
        // (float(q) - zp) * scale, in float32 like the decomposition.
        const float d = (float(x.getInt(i)) - float(zps[std::size_t(c)])) * float(scales[std::size_t(c)]);
        out[std::size_t(i)] = outType == ScalarType::Double
            ? (double(x.getInt(i)) - zps[std::size_t(c)]) * scales[std::size_t(c)]
            : double(d);
    }
    return fromDoubleValues(outType, x.sizes, out);
}

} // namespace

void registerMiscKernels()
{
    registerKernel(
        { "quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.quantize_per_tensor.tensor",
            "quantized_decomposed.quantize_per_tensor.tensor2" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "input"));
            TRY(s, number(a, 1, "scale"));
            TRY(z, number(a, 2, "zero_point"));
            TRY(q, qparams(a, 3));
            return one(quantize(*x, { *s }, { *z }, -1, *q));
        });
    registerKernel(
        { "quantized_decomposed.dequantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.tensor",
            "quantized_decomposed.dequantize_per_tensor.tensor2" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "input"));
            TRY(s, number(a, 1, "scale"));
            TRY(z, number(a, 2, "zero_point"));
            TRY(od, a.dtype(-1, "out_dtype"));
            return one(dequantize(*x, { *s }, { *z }, -1, od->value_or(ScalarType::Float)));
        });
    auto perChannel = [](const KernelArgs &a, bool quant) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "input"));
        TRY(st, a.tensor(1, "scales"));
        TRY(zt, a.optTensor(2, "zero_points"));
        TRY(axis, a.integer(3, "axis"));
        TRY(w, wrapDim(*axis, x->dim()));
        const std::int64_t C = x->dim() ? x->sizes[std::size_t(*w)] : 1;
        if (st->numel() != C || (*zt && (*zt)->numel() != C))
            return kernelError(fmt::format("per-channel scales/zero_points need {} values", C));
        std::vector<double> scales = toDoubles(*st);
        std::vector<double> zps = *zt ? toDoubles(**zt) : std::vector<double>(std::size_t(C), 0.0);
        if (quant) {
            TRY(q, qparams(a, 4));
            return one(quantize(*x, scales, zps, *w, *q));
        }
        TRY(od, a.dtype(-1, "out_dtype"));
        return one(dequantize(*x, scales, zps, *w, od->value_or(ScalarType::Float)));
    };
    registerKernel({ "quantized_decomposed.quantize_per_channel.default" },
        [perChannel](const KernelArgs &a) { return perChannel(a, true); });
    registerKernel({ "quantized_decomposed.dequantize_per_channel.default" },
        [perChannel](const KernelArgs &a) { return perChannel(a, false); });
}

} // namespace etscope::eval
