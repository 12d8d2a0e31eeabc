// Indexing, ordering and memory-layout kernels of the newer model families (Swin's roll,
// ConvNeXt's as_strided, detection / LLM top-k and sort, KV-cache writes by index_put /
// index_copy) and Edge-dialect copies. PyTorch CPU semantics; every index is bounds-checked.

#include "eval/kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace etscope::eval {

namespace {

#define TRY ETSCOPE_EVAL_TRY

// Coordinates of flat index i in `sizes` (row-major).
void unravel(std::int64_t i, const std::vector<std::int64_t> &sizes, std::vector<std::int64_t> &coord)
{
    coord.resize(sizes.size());
    for (std::size_t d = sizes.size(); d-- > 0;) {
        coord[d] = sizes[d] ? i % sizes[d] : 0;
        i = sizes[d] ? i / sizes[d] : 0;
    }
}

Result<std::int64_t> wrapIndex(std::int64_t ix, std::int64_t n, const char *op)
{
    if (ix < -n || ix >= n)
        return kernelError(fmt::format("{}: index {} is out of bounds for dimension of size {}", op, ix, n));
    return ix < 0 ? ix + n : ix;
}

// Copies element `from` of src into element `to` of dst (same dtype).
inline void copyElement(const Tensor &src, std::int64_t from, Tensor &dst, std::int64_t to)
{
    const std::size_t es = src.itemSize();
    std::memcpy(dst.mutableBytes() + std::size_t(to) * es, src.bytes() + std::size_t(from) * es, es);
}

// A private, writable copy of t (outputs never share storage with inputs that get updated).
Result<Tensor> copyOf(const Tensor &t)
{
    TRY(out, makeTensor(t.dtype, t.sizes));
    if (t.numel())
        std::memcpy(out->mutableBytes(), t.bytes(), std::size_t(t.numel()) * t.itemSize());
    return out;
}

// `values` broadcast to `shape` and cast to `dtype`, contiguous.
Result<Tensor> broadcastTo(const Tensor &values, const std::vector<std::int64_t> &shape, ScalarType dtype)
{
    TRY(sh, broadcastShapes(values.sizes, shape));
    if (*sh != shape)
        return kernelError(fmt::format("shape mismatch: value tensor of shape [{}] cannot be broadcast to [{}]",
            fmt::join(values.sizes, ", "), fmt::join(shape, ", ")));
    TRY(v, cast(values, dtype));
    return gatherStrided(*v, shape, broadcastStrides(values.sizes, shape), 0);
}

Result<std::vector<Tensor>> roll(const KernelArgs &a)
{
    TRY(x, a.tensor(0, "self"));
    TRY(shifts, a.ints(1, "shifts"));
    TRY(dims, a.ints(2, "dims", std::vector<std::int64_t> {}));
    Tensor src = *x;
    std::vector<std::int64_t> sh = *shifts, dm = *dims;
    if (dm.empty()) { // flattened roll
        if (sh.size() != 1)
            return kernelError("roll: shifts and dims must align");
        src = reshaped(src, { src.numel() });
        dm = { 0 };
    }
    if (sh.size() != dm.size())
        return kernelError("roll: shifts and dims must align");
    TRY(out, makeTensor(src.dtype, src.sizes));
    std::vector<std::int64_t> shift(src.sizes.size(), 0);
    for (std::size_t k = 0; k < dm.size(); ++k) {
        TRY(d, wrapDim(dm[k], src.dim()));
        if (auto c = checkParams({ sh[k] }, "roll"); !c)
            return c.error();
        const std::int64_t n = src.sizes[std::size_t(*d)];
        if (n)
            shift[std::size_t(*d)] = ((shift[std::size_t(*d)] + sh[k]) % n + n) % n;
    }
    const auto cs = contiguousStrides(src.sizes);
    std::vector<std::int64_t> c;
    for (std::int64_t i = 0; i < src.numel(); ++i) {
        unravel(i, src.sizes, c);
        std::int64_t to = 0;
        for (std::size_t d = 0; d < c.size(); ++d)
            to += ((c[d] + shift[d]) % src.sizes[d]) * cs[d];
        copyElement(src, i, *out, to);
    }
    return std::vector<Tensor> { reshaped(*out, x->sizes) };
}

Result<std::vector<Tensor>> asStrided(const KernelArgs &a)
{
    TRY(x, a.tensor(0, "self"));
    TRY(size, a.ints(1, "size"));
    TRY(stride, a.ints(2, "stride"));
    TRY(offset, a.integer(3, "storage_offset", 0));
    if (size->size() != stride->size())
        return kernelError("as_strided: size and stride differ in length");
    // Reads x's elements as its storage: every addressed element must lie inside it.
    std::int64_t hi = *offset;
    if (*offset < 0)
        return kernelError("as_strided: negative storage offset");
    for (std::size_t d = 0; d < size->size(); ++d) {
        if (auto c = checkParams({ (*size)[d], (*stride)[d] }, "as_strided"); !c)
            return c.error();
        if ((*size)[d] < 0 || (*stride)[d] < 0)
            return kernelError("as_strided: negative size or stride");
        if ((*size)[d] > 0)
            hi += ((*size)[d] - 1) * (*stride)[d];
    }
    TRY(n, checkedNumel(*size));
    if (*n > 0 && hi >= x->numel())
        return kernelError(
            fmt::format("as_strided: sizes [{}], strides [{}] and offset {} reach element {} of a tensor of {}",
                fmt::join(*size, ", "), fmt::join(*stride, ", "), *offset, hi, x->numel()));
    return one(gatherStrided(*x, *size, *stride, *n > 0 ? *offset : 0));
}

Result<std::vector<Tensor>> gather(const KernelArgs &a)
{
    TRY(x, a.tensor(0, "self"));
    TRY(dim, a.integer(1, "dim"));
    TRY(index, a.tensor(2, "index"));
    TRY(d, wrapDim(*dim, x->dim()));
    if (category(index->dtype) != Category::Int)
        return kernelError("gather: index must be an integer tensor");
    if (index->dim() != std::max(x->dim(), 1) && !(x->dim() == 0 && index->dim() <= 1))
        return kernelError("gather: index and input must have the same number of dimensions");
    for (int k = 0; k < x->dim(); ++k)
        if (k != *d && index->sizes[std::size_t(k)] > x->sizes[std::size_t(k)])
            return kernelError(fmt::format("gather: index size {} exceeds input size {} in dimension {}",
                index->sizes[std::size_t(k)], x->sizes[std::size_t(k)], k));
    TRY(out, makeTensor(x->dtype, index->sizes));
    const auto xs = contiguousStrides(x->sizes);
    const std::int64_t n = x->dim() ? x->sizes[std::size_t(*d)] : 1;
    std::vector<std::int64_t> c;
    for (std::int64_t i = 0; i < index->numel(); ++i) {
        unravel(i, index->sizes, c);
        TRY(ix, wrapIndex(index->getInt(i), n, "gather"));
        std::int64_t from = 0;
        for (std::size_t k = 0; k < xs.size(); ++k)
            from += (int(k) == *d ? *ix : c[k]) * xs[k];
        copyElement(*x, from, *out, i);
    }
    return std::vector<Tensor> { *out };
}

// Orders each line along `dim`: NaN above everything (as torch), stable among equals.
Result<std::vector<Tensor>> sortLines(const Tensor &x, std::int64_t dim, bool descending, std::int64_t k)
{
    TRY(d, wrapDim(dim, x.dim()));
    const std::int64_t n = x.dim() ? x.sizes[std::size_t(*d)] : 1;
    if (k < 0 || k > n)
        return kernelError(fmt::format("selected index k={} out of range for a dimension of size {}", k, n));
    auto sizes = x.sizes;
    if (x.dim())
        sizes[std::size_t(*d)] = k;
    TRY(values, makeTensor(x.dtype, sizes));
    std::vector<std::int64_t> idx(static_cast<std::size_t>(std::max<std::int64_t>(0, values->numel())));
    std::int64_t outer = 1, inner = 1;
    for (int q = 0; q < *d; ++q)
        outer *= x.sizes[std::size_t(q)];
    for (int q = *d + 1; q < x.dim(); ++q)
        inner *= x.sizes[std::size_t(q)];
    const bool ints = category(x.dtype) != Category::Float;
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::vector<double> keys(static_cast<std::size_t>(n));
    std::vector<std::int64_t> ikeys(static_cast<std::size_t>(n));
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t in = 0; in < inner; ++in) {
            for (std::int64_t j = 0; j < n; ++j) {
                const std::int64_t at = (o * n + j) * inner + in;
                if (ints)
                    ikeys[std::size_t(j)] = x.getInt(at);
                else
                    keys[std::size_t(j)] = x.getDouble(at);
            }
            std::iota(order.begin(), order.end(), 0);
            auto less = [&](std::int64_t l, std::int64_t r) {
                if (ints)
                    return ikeys[std::size_t(l)] < ikeys[std::size_t(r)];
                const double a = keys[std::size_t(l)], b = keys[std::size_t(r)];
                return !std::isnan(a) && (std::isnan(b) || a < b);
            };
            if (descending)
                std::stable_sort(order.begin(), order.end(), [&](auto l, auto r) { return less(r, l); });
            else
                std::stable_sort(order.begin(), order.end(), less);
            for (std::int64_t j = 0; j < k; ++j) {
                const std::int64_t to = (o * k + j) * inner + in;
                copyElement(x, (o * n + order[std::size_t(j)]) * inner + in, *values, to);
                idx[std::size_t(to)] = order[std::size_t(j)];
            }
        }
    TRY(indices, fromIntValues(ScalarType::Long, sizes, idx));
    return std::vector<Tensor> { *values, *indices };
}

// index_put: self[indices] = values (or += with accumulate). Indices are optional tensors (None
// takes the whole dim); bool masks count as their nonzero coordinates. The indexed dims form one
// broadcast block that stays in place when adjacent and goes first otherwise (NumPy rules).
Result<Tensor> indexPut(
    const Tensor &self, const std::vector<std::optional<Tensor>> &indices0, const Tensor &values, bool accumulate)
{
    std::vector<std::optional<Tensor>> indices;
    for (const auto &ix : indices0) {
        if (ix && ix->dtype == ScalarType::Bool) {
            std::vector<std::vector<std::int64_t>> coords(static_cast<std::size_t>(ix->dim()));
            std::vector<std::int64_t> c;
            for (std::int64_t i = 0; i < ix->numel(); ++i)
                if (ix->getInt(i)) {
                    unravel(i, ix->sizes, c);
                    for (std::size_t k = 0; k < c.size(); ++k)
                        coords[k].push_back(c[k]);
                }
            for (auto &cv : coords) {
                TRY(t, fromIntValues(ScalarType::Long, { std::int64_t(cv.size()) }, cv));
                indices.emplace_back(*t);
            }
        } else {
            if (ix && category(ix->dtype) != Category::Int)
                return kernelError("index_put: indices must be integer or bool tensors");
            indices.push_back(ix);
        }
    }
    if (int(indices.size()) > self.dim())
        return kernelError(
            fmt::format("index_put: too many indices ({}) for a {}-d tensor", indices.size(), self.dim()));
    indices.resize(std::size_t(self.dim()));
    std::vector<std::int64_t> block;
    int first = -1, last = -1;
    for (int d = 0; d < self.dim(); ++d)
        if (indices[std::size_t(d)]) {
            TRY(b, broadcastShapes(block, indices[std::size_t(d)]->sizes));
            block = *b;
            if (first < 0)
                first = d;
            last = d;
        }
    if (first < 0) { // no index: the whole tensor
        TRY(v, broadcastTo(values, self.sizes, self.dtype));
        if (!accumulate)
            return *v;
        std::vector<double> s = toDoubles(self), add = toDoubles(*v);
        for (std::size_t i = 0; i < s.size(); ++i)
            s[i] += add[i];
        return fromDoubleValues(self.dtype, self.sizes, s);
    }
    bool adjacent = true;
    for (int d = first; d <= last; ++d)
        adjacent = adjacent && indices[std::size_t(d)].has_value();
    // Shape of self[indices] and, per result dim, where it comes from.
    std::vector<std::int64_t> shape;
    std::vector<int> dimOf; // self dim of a sliced result dim; -1 for block dims
    auto pushSliced = [&](int from, int to) {
        for (int d = from; d < to; ++d)
            if (!indices[std::size_t(d)]) {
                shape.push_back(self.sizes[std::size_t(d)]);
                dimOf.push_back(d);
            }
    };
    const int blockAt = adjacent ? first : 0;
    pushSliced(0, blockAt);
    for (auto s : block) {
        shape.push_back(s);
        dimOf.push_back(-1);
    }
    pushSliced(blockAt, self.dim());
    TRY(v, broadcastTo(values, shape, self.dtype));
    TRY(out, copyOf(self));
    const auto ss = contiguousStrides(self.sizes);
    std::vector<std::vector<std::int64_t>> istr(indices.size());
    for (std::size_t d = 0; d < indices.size(); ++d)
        if (indices[d])
            istr[d] = broadcastStrides(indices[d]->sizes, block);
    const bool isFloat = category(self.dtype) == Category::Float;
    std::vector<std::int64_t> c;
    for (std::int64_t i = 0; i < v->numel(); ++i) {
        unravel(i, shape, c);
        std::int64_t to = 0;
        for (std::size_t r = 0; r < c.size(); ++r)
            if (dimOf[r] >= 0)
                to += c[r] * ss[std::size_t(dimOf[r])];
        for (std::size_t d = 0; d < indices.size(); ++d) {
            if (!indices[d])
                continue;
            std::int64_t at = 0;
            for (std::size_t b = 0; b < block.size(); ++b)
                at += c[std::size_t(blockAt) + b] * istr[d][b];
            TRY(ix, wrapIndex(indices[d]->getInt(at), self.sizes[d], "index_put"));
            to += *ix * ss[d];
        }
        std::uint8_t *p = out->mutableBytes() + std::size_t(to) * out->itemSize();
        if (!accumulate)
            copyElement(*v, i, *out, to);
        else if (isFloat)
            storeDouble(self.dtype, p, out->getDouble(to) + v->getDouble(i));
        else
            storeInt(self.dtype, p, out->getInt(to) + v->getInt(i));
    }
    return out;
}

Result<Tensor> triangle(const KernelArgs &a, bool lower)
{
    TRY(x, a.tensor(0, "self"));
    TRY(diag, a.integer(1, "diagonal", 0));
    if (x->dim() < 2)
        return kernelError("tril/triu: input must have at least 2 dimensions");
    TRY(out, copyOf(*x));
    const std::int64_t rows = x->sizes[std::size_t(x->dim() - 2)], cols = x->sizes.back();
    const std::size_t es = x->itemSize();
    for (std::int64_t i = 0; i < x->numel(); ++i) {
        const std::int64_t col = i % cols, row = (i / cols) % rows;
        const bool keep = lower ? col - row <= *diag : col - row >= *diag;
        if (!keep)
            std::memset(out->mutableBytes() + std::size_t(i) * es, 0, es);
    }
    return out;
}

} // namespace

void registerIndexKernels()
{
    registerKernel({ "aten.roll.default" }, roll);
    registerKernel({ "aten.as_strided.default", "aten.as_strided_copy.default" }, asStrided);
    registerKernel({ "aten.gather.default" }, gather);
    registerKernel({ "aten.sort.default", "aten.sort.stable" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(dim, a.integer(1, "dim", -1));
        TRY(desc, a.boolean(2, "descending", false));
        TRY(d, wrapDim(*dim, x->dim()));
        return sortLines(*x, *dim, *desc, x->dim() ? x->sizes[std::size_t(*d)] : 1);
    });
    registerKernel({ "aten.topk.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(k, a.integer(1, "k"));
        TRY(dim, a.integer(2, "dim", -1));
        TRY(largest, a.boolean(3, "largest", true));
        return sortLines(*x, *dim, *largest, *k);
    });
    registerKernel({ "aten.index_put.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(ix, a.tensorList(1, "indices"));
        TRY(v, a.tensor(2, "values"));
        TRY(acc, a.boolean(3, "accumulate", false));
        return one(indexPut(*x, *ix, *v, *acc));
    });
    registerKernel({ "aten.index_copy.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(dim, a.integer(1, "dim"));
        TRY(index, a.tensor(2, "index"));
        TRY(src, a.tensor(3, "source"));
        TRY(d, wrapDim(*dim, x->dim()));
        if (index->dim() > 1 || category(index->dtype) != Category::Int)
            return kernelError("index_copy: index must be a 1-d integer tensor");
        std::vector<std::optional<Tensor>> indices(std::size_t(*d) + 1);
        indices[std::size_t(*d)] = reshaped(*index, { index->numel() });
        // self.index_copy(d, i, s) == self[..., i, ...] = s with s's dim d the indexed one.
        auto want = x->sizes;
        if (x->dim())
            want[std::size_t(*d)] = index->numel();
        if (src->sizes != want)
            return kernelError(fmt::format(
                "index_copy: source [{}] does not match [{}]", fmt::join(src->sizes, ", "), fmt::join(want, ", ")));
        return one(indexPut(*x, indices, *src, false));
    });
    registerKernel({ "aten.tril.default" }, [](const KernelArgs &a) { return one(triangle(a, true)); });
    registerKernel({ "aten.triu.default" }, [](const KernelArgs &a) { return one(triangle(a, false)); });
    registerKernel({ "aten.fill.Scalar", "aten.fill.Tensor" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        const Value *v = a.find(1, "value");
        double d = 0;
        if (v && v->kind == Value::Kind::Tensor) {
            if (v->tensor.numel() != 1)
                return kernelError("fill: the value tensor must hold one element");
            d = v->tensor.getDouble(0);
        } else {
            TRY(s, a.scalar(1, "value"));
            d = s->isFloat ? s->d : double(s->i);
        }
        std::vector<double> vals(static_cast<std::size_t>(x->numel()), d);
        return one(fromDoubleValues(x->dtype, x->sizes, vals));
    });
    // new_zeros / new_ones / new_full / new_empty: self's dtype unless given.
    for (auto [key, fill] : { std::pair { "aten.new_zeros.default", 0 }, { "aten.new_ones.default", 1 },
             { "aten.new_empty.default", 0 }, { "aten.new_full.default", -1 } }) {
        registerKernel({ key }, [fill = fill](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(size, a.ints(1, "size"));
            TRY(dt, a.dtype(-1, "dtype"));
            double v = fill;
            if (fill < 0) {
                TRY(s, a.scalar(2, "fill_value"));
                v = s->isFloat ? s->d : double(s->i);
            }
            TRY(n, checkedNumel(*size));
            std::vector<double> vals(static_cast<std::size_t>(*n), v);
            return one(fromDoubleValues(dt->value_or(x->dtype), *size, vals));
        });
    }
    registerKernel({ "aten.linspace.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(start, a.scalar(0, "start"));
        TRY(end, a.scalar(1, "end"));
        TRY(steps, a.integer(2, "steps"));
        TRY(dt, a.dtype(-1, "dtype"));
        if (*steps < 0)
            return kernelError("linspace: number of steps must be non-negative");
        TRY(n, checkedNumel({ *steps }));
        const ScalarType t = dt->value_or(defaultFloat());
        const double s0 = start->isFloat ? start->d : double(start->i), s1 = end->isFloat ? end->d : double(end->i);
        std::vector<double> vals(static_cast<std::size_t>(*n));
        // torch fills the two halves from both ends, in the output's precision.
        const std::int64_t half = *n / 2;
        if (t == ScalarType::Float) {
            const float step = *n > 1 ? (float(s1) - float(s0)) / float(*n - 1) : 0.0f;
            for (std::int64_t i = 0; i < *n; ++i)
                vals[std::size_t(i)] = i < half ? float(s0) + step * float(i) : float(s1) - step * float(*n - i - 1);
        } else {
            const double step = *n > 1 ? (s1 - s0) / double(*n - 1) : 0.0;
            for (std::int64_t i = 0; i < *n; ++i)
                vals[std::size_t(i)] = i < half ? s0 + step * double(i) : s1 - step * double(*n - i - 1);
        }
        return one(fromDoubleValues(t, { *n }, vals));
    });
}

} // namespace etscope::eval
