// Reductions (sum, mean, amax/amin, max/min.dim, argmax/argmin, var, prod, any/all),
// softmax/log_softmax and cumsum. Float accumulation in double, rounded at the output.

#include "eval/kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace etscope::eval {

namespace {

#define TRY ETSCOPE_EVAL_TRY

// A tensor rearranged so that reduced dims are innermost: outer x inner elements.
struct Reduction {
    std::vector<double> values; // outer * inner, row-major
    std::vector<std::int64_t> ivalues; // same, for integer inputs
    std::int64_t outer = 1, inner = 1;
    std::vector<std::int64_t> outShape; // keepdim=false shape
    std::vector<std::int64_t> keepShape; // keepdim=true shape
};

Result<Reduction> prepare(const Tensor &x, std::vector<std::int64_t> dims, bool asInt)
{
    const int rank = x.dim();
    std::vector<bool> red(std::size_t(std::max(rank, 1)), false);
    if (dims.empty())
        std::fill(red.begin(), red.end(), true);
    for (auto d : dims) {
        TRY(w, wrapDim(d, rank));
        red[std::size_t(*w)] = true;
    }
    Reduction r;
    std::vector<std::int64_t> perm, sizes;
    for (int k = 0; k < rank; ++k)
        if (!red[std::size_t(k)]) {
            perm.push_back(k);
            r.outer *= x.sizes[std::size_t(k)];
            r.outShape.push_back(x.sizes[std::size_t(k)]);
            r.keepShape.push_back(x.sizes[std::size_t(k)]);
        } else {
            r.keepShape.push_back(1);
        }
    for (int k = 0; k < rank; ++k)
        if (red[std::size_t(k)]) {
            perm.push_back(k);
            r.inner *= x.sizes[std::size_t(k)];
        }
    const auto cs = contiguousStrides(x.sizes);
    std::vector<std::int64_t> psz, pst;
    for (auto k : perm) {
        psz.push_back(x.sizes[std::size_t(k)]);
        pst.push_back(cs[std::size_t(k)]);
    }
    Tensor p = x;
    if (rank > 0) {
        TRY(g, gatherStrided(x, psz, pst, 0));
        p = *g;
    }
    if (asInt)
        r.ivalues = toInts(p);
    else
        r.values = toDoubles(p);
    return r;
}

Result<std::vector<std::int64_t>> dimsArg(const KernelArgs &a, int index, const char *name)
{
    if (!a.has(index, name))
        return std::vector<std::int64_t> {};
    return a.ints(index, name, std::nullopt, 1);
}

enum class Red { Sum, Mean, Amax, Amin, Prod, Any, All };

Result<Tensor> reduce(const KernelArgs &a, Red op, int dimIndex, const char *dimName, bool hasKeep)
{
    TRY(x, a.tensor(0, "self"));
    TRY(dims, dimsArg(a, dimIndex, dimName));
    bool keep = false;
    if (hasKeep) {
        TRY(k, a.boolean(dimIndex + 1, "keepdim", false));
        keep = *k;
    }
    TRY(dt, a.dtype(-1, "dtype"));
    ScalarType rt = x->dtype;
    if (op == Red::Sum || op == Red::Prod)
        rt = dt->value_or(category(x->dtype) == Category::Float ? x->dtype : ScalarType::Long);
    else if (op == Red::Mean) {
        rt = dt->value_or(x->dtype);
        if (category(rt) != Category::Float)
            return kernelError("mean needs a floating point dtype (PyTorch refuses integer inputs)");
    } else if (op == Red::Any || op == Red::All)
        rt = x->dtype == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
    if ((op == Red::Amax || op == Red::Amin) && x->numel() == 0)
        return kernelError("amax/amin of an empty tensor");
    const bool intPath = category(rt) != Category::Float && op != Red::Any && op != Red::All;
    TRY(r, prepare(*x, *dims, intPath));
    const auto &shape = keep ? r->keepShape : r->outShape;
    if (intPath) {
        std::vector<std::int64_t> out(static_cast<std::size_t>(r->outer));
        for (std::int64_t o = 0; o < r->outer; ++o) {
            const std::int64_t *p = r->ivalues.data() + o * r->inner;
            std::uint64_t acc = (op == Red::Prod) ? 1 : 0;
            std::int64_t m = r->inner ? p[0] : 0;
            for (std::int64_t i = 0; i < r->inner; ++i) {
                if (op == Red::Sum)
                    acc += std::uint64_t(p[i]);
                else if (op == Red::Prod)
                    acc *= std::uint64_t(p[i]);
                else if (op == Red::Amax)
                    m = std::max(m, p[i]);
                else if (op == Red::Amin)
                    m = std::min(m, p[i]);
            }
            out[std::size_t(o)] = (op == Red::Sum || op == Red::Prod) ? std::int64_t(acc) : m;
        }
        return fromIntValues(rt, shape, out);
    }
    std::vector<double> out(static_cast<std::size_t>(r->outer));
    for (std::int64_t o = 0; o < r->outer; ++o) {
        const double *p = r->values.data() + o * r->inner;
        double acc = 0;
        switch (op) {
        case Red::Sum:
        case Red::Mean:
            for (std::int64_t i = 0; i < r->inner; ++i)
                acc += p[i];
            if (op == Red::Mean)
                acc /= double(r->inner);
            break;
        case Red::Prod:
            acc = 1;
            for (std::int64_t i = 0; i < r->inner; ++i)
                acc *= p[i];
            break;
        case Red::Amax:
        case Red::Amin:
            acc = p[0];
            for (std::int64_t i = 0; i < r->inner; ++i) {
                if (p[i] != p[i]) {
                    acc = p[i];
                    break;
                }
                acc = op == Red::Amax ? std::max(acc, p[i]) : std::min(acc, p[i]);
            }
            break;
        case Red::Any:
            acc = 0;
            for (std::int64_t i = 0; i < r->inner && !acc; ++i)
                acc = p[i] != 0;
            break;
        case Red::All:
            acc = 1;
            for (std::int64_t i = 0; i < r->inner && acc; ++i)
                acc = p[i] != 0;
            break;
        }
        out[std::size_t(o)] = acc;
    }
    return fromDoubleValues(rt, shape, out);
}

// max.dim / min.dim / argmax / argmin: first index of the extreme value; NaN wins.
Result<std::vector<Tensor>> argExtreme(const KernelArgs &a, bool isMax, bool withValues)
{
    TRY(x, a.tensor(0, "self"));
    std::vector<std::int64_t> dims;
    bool hasDim = a.has(1, "dim");
    if (hasDim) {
        TRY(d, a.integer(1, "dim"));
        dims.push_back(*d);
    }
    TRY(keep, a.boolean(2, "keepdim", false));
    if (x->numel() == 0)
        return kernelError("arg reduction of an empty tensor");
    TRY(r, prepare(*x, dims, false));
    std::vector<std::int64_t> idx(static_cast<std::size_t>(r->outer));
    std::vector<double> val(idx.size());
    for (std::int64_t o = 0; o < r->outer; ++o) {
        const double *p = r->values.data() + o * r->inner;
        std::int64_t best = 0;
        for (std::int64_t i = 1; i < r->inner; ++i) {
            if (p[best] != p[best])
                break;
            if (p[i] != p[i] || (isMax ? p[i] > p[best] : p[i] < p[best]))
                best = i;
        }
        idx[std::size_t(o)] = best;
        val[std::size_t(o)] = p[best];
    }
    std::vector<std::int64_t> shape;
    if (!hasDim)
        shape = *keep ? std::vector<std::int64_t>(std::size_t(x->dim()), 1) : std::vector<std::int64_t> {};
    else
        shape = *keep ? r->keepShape : r->outShape;
    TRY(it, fromIntValues(ScalarType::Long, shape, idx));
    if (!withValues)
        return std::vector<Tensor> { *it };
    TRY(vt, fromDoubleValues(x->dtype, shape, val));
    return std::vector<Tensor> { *vt, *it };
}

Result<Tensor> softmax(const Tensor &x, std::int64_t dim, bool log, ScalarType outType, int threads)
{
    TRY(w, wrapDim(dim, x.dim()));
    std::int64_t outer = 1, n = 1, inner = 1;
    for (int k = 0; k < x.dim(); ++k) {
        if (k < *w)
            outer *= x.sizes[std::size_t(k)];
        else if (k == *w)
            n = x.sizes[std::size_t(k)];
        else
            inner *= x.sizes[std::size_t(k)];
    }
    std::vector<float> hold;
    const float *p = floatsOf(x, hold);
    std::vector<double> out(static_cast<std::size_t>(x.numel()));
    parallelFor(outer * inner, threads, 256, [&](std::int64_t s, std::int64_t e) {
        for (std::int64_t oi = s; oi < e; ++oi) {
            const std::int64_t o = oi / inner, i = oi % inner;
            const std::int64_t base = o * n * inner + i;
            double m = -std::numeric_limits<double>::infinity();
            for (std::int64_t k = 0; k < n; ++k)
                m = std::max(m, double(p[base + k * inner]));
            double sum = 0;
            for (std::int64_t k = 0; k < n; ++k)
                sum += std::exp(double(p[base + k * inner]) - m);
            for (std::int64_t k = 0; k < n; ++k) {
                const double v = double(p[base + k * inner]) - m;
                out[std::size_t(base + k * inner)] = log ? v - std::log(sum) : std::exp(v) / sum;
            }
        }
    });
    return fromDoubleValues(outType, x.sizes, out);
}

} // namespace

void registerReductionKernels()
{
    registerKernel({ "aten.sum.dim_IntList", "aten.sum.default" },
        [](const KernelArgs &a) { return one(reduce(a, Red::Sum, 1, "dim", true)); });
    registerKernel({ "aten.mean.dim", "aten.mean.default" },
        [](const KernelArgs &a) { return one(reduce(a, Red::Mean, 1, "dim", true)); });
    registerKernel(
        { "aten.amax.default" }, [](const KernelArgs &a) { return one(reduce(a, Red::Amax, 1, "dim", true)); });
    registerKernel(
        { "aten.amin.default" }, [](const KernelArgs &a) { return one(reduce(a, Red::Amin, 1, "dim", true)); });
    registerKernel({ "aten.prod.dim_int", "aten.prod.default" },
        [](const KernelArgs &a) { return one(reduce(a, Red::Prod, 1, "dim", true)); });
    registerKernel({ "aten.any.dim", "aten.any.default", "aten.any.dims" },
        [](const KernelArgs &a) { return one(reduce(a, Red::Any, 1, "dim", true)); });
    registerKernel({ "aten.all.dim", "aten.all.default", "aten.all.dims" },
        [](const KernelArgs &a) { return one(reduce(a, Red::All, 1, "dim", true)); });
    registerKernel(
        { "aten.max.default" }, [](const KernelArgs &a) { return one(reduce(a, Red::Amax, 99, "__all", false)); });
    registerKernel(
        { "aten.min.default" }, [](const KernelArgs &a) { return one(reduce(a, Red::Amin, 99, "__all", false)); });
    registerKernel({ "aten.argmax.default" }, [](const KernelArgs &a) { return argExtreme(a, true, false); });
    registerKernel({ "aten.argmin.default" }, [](const KernelArgs &a) { return argExtreme(a, false, false); });
    registerKernel({ "aten.max.dim" }, [](const KernelArgs &a) { return argExtreme(a, true, true); });
    registerKernel({ "aten.min.dim" }, [](const KernelArgs &a) { return argExtreme(a, false, true); });

    registerKernel({ "aten.var.correction", "aten.var.dim", "aten.var.default", "aten.std.correction", "aten.std.dim",
                       "aten.std.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(dims, dimsArg(a, 1, "dim"));
            double correction = 1;
            if (const Value *c = a.find(-1, "correction"); c && !c->isNone())
                correction = c->kind == Value::Kind::Double ? c->d : double(c->i);
            if (const Value *u = a.find(-1, "unbiased"); u && u->kind == Value::Kind::Bool)
                correction = u->b ? 1 : 0;
            TRY(keep, a.boolean(-1, "keepdim", false));
            if (category(x->dtype) != Category::Float)
                return kernelError("var needs a floating point tensor");
            TRY(r, prepare(*x, *dims, false));
            std::vector<double> out(static_cast<std::size_t>(r->outer));
            for (std::int64_t o = 0; o < r->outer; ++o) {
                const double *p = r->values.data() + o * r->inner;
                double mean = 0;
                for (std::int64_t i = 0; i < r->inner; ++i)
                    mean += p[i];
                mean /= double(r->inner);
                double ss = 0;
                for (std::int64_t i = 0; i < r->inner; ++i)
                    ss += (p[i] - mean) * (p[i] - mean);
                out[std::size_t(o)] = ss / std::max(0.0, double(r->inner) - correction);
            }
            return one(fromDoubleValues(x->dtype, *keep ? r->keepShape : r->outShape, out));
        });
    // std: the same, square-rooted (registered above under the same lambda for var; redo).
    registerKernel({ "aten.std.correction", "aten.std.dim", "aten.std.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            const KernelFn *var = findKernel("aten.var.correction");
            TRY(v, (*var)(a));
            std::vector<double> d = toDoubles((*v)[0]);
            for (auto &x : d)
                x = std::sqrt(x);
            return one(fromDoubleValues((*v)[0].dtype, (*v)[0].sizes, d));
        });

    auto softmaxKernel = [](const KernelArgs &a, bool log) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(d, a.integer(1, "dim"));
        ScalarType out = x->dtype;
        if (const Value *h = a.find(2, "half_to_float"); h && h->kind == Value::Kind::Bool && h->b)
            out = ScalarType::Float;
        TRY(dt, a.dtype(-1, "dtype"));
        if (*dt)
            out = **dt;
        if (category(out) != Category::Float)
            return kernelError("softmax needs a floating point tensor");
        return one(softmax(*x, *d, log, out, a.threads));
    };
    registerKernel({ "aten._softmax.default", "aten.softmax.int" },
        [softmaxKernel](const KernelArgs &a) { return softmaxKernel(a, false); });
    registerKernel({ "aten._log_softmax.default", "aten.log_softmax.int" },
        [softmaxKernel](const KernelArgs &a) { return softmaxKernel(a, true); });

    registerKernel({ "aten.cumsum.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(d, a.integer(1, "dim"));
        TRY(dt, a.dtype(2, "dtype"));
        const ScalarType rt = dt->value_or(category(x->dtype) == Category::Float ? x->dtype : ScalarType::Long);
        TRY(w, wrapDim(*d, x->dim()));
        std::int64_t n = 1, inner = 1;
        for (int k = 0; k < x->dim(); ++k) {
            if (k == *w)
                n = x->sizes[std::size_t(k)];
            else if (k > *w)
                inner *= x->sizes[std::size_t(k)];
        }
        const std::int64_t total = x->numel();
        if (category(rt) != Category::Float) {
            auto v = toInts(*x);
            for (std::int64_t base = 0; base < total; base += n * inner)
                for (std::int64_t i = 0; i < inner; ++i)
                    for (std::int64_t k = 1; k < n; ++k)
                        v[std::size_t(base + k * inner + i)]
                            = std::int64_t(std::uint64_t(v[std::size_t(base + (k - 1) * inner + i)])
                                + std::uint64_t(v[std::size_t(base + k * inner + i)]));
            return one(fromIntValues(rt, x->sizes, v));
        }
        // Float: accumulate in the output dtype's compute type (float for float32), like torch.
        auto v = toDoubles(*x);
        for (std::int64_t base = 0; base < total; base += n * inner)
            for (std::int64_t i = 0; i < inner; ++i) {
                double acc = 0;
                for (std::int64_t k = 0; k < n; ++k) {
                    acc += v[std::size_t(base + k * inner + i)];
                    if (rt != ScalarType::Double)
                        acc = double(float(acc));
                    v[std::size_t(base + k * inner + i)] = acc;
                }
            }
        return one(fromDoubleValues(rt, x->sizes, v));
    });
}

} // namespace etscope::eval
