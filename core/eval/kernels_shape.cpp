// Shape and data-movement kernels: views (as copies, Edge's *_copy ops), cat/stack/split,
// indexing, padding, dtype conversion and tensor factories.

#include "eval/kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace etscope::eval {

namespace {

#define TRY ETSCOPE_EVAL_TRY

Result<std::vector<std::int64_t>> inferShape(std::vector<std::int64_t> shape, std::int64_t numel)
{
    int infer = -1;
    std::int64_t known = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            if (infer >= 0)
                return kernelError("only one dimension can be inferred");
            infer = int(i);
        } else if (shape[i] < 0) {
            return kernelError(fmt::format("invalid shape dimension {}", shape[i]));
        } else {
            TRY(n, checkedNumel({ known, shape[i] }));
            known = *n;
        }
    }
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            return kernelError(
                fmt::format("shape [{}] is invalid for input of size {}", fmt::join(shape, ", "), numel));
        shape[std::size_t(infer)] = numel / known;
    } else if (known != numel) {
        return kernelError(fmt::format("shape [{}] is invalid for input of size {}", fmt::join(shape, ", "), numel));
    }
    return shape;
}

Result<Tensor> permute(const Tensor &t, const std::vector<std::int64_t> &dims)
{
    if (int(dims.size()) != t.dim())
        return kernelError(fmt::format("permute needs {} dims, got {}", t.dim(), dims.size()));
    const auto cs = contiguousStrides(t.sizes);
    std::vector<std::int64_t> sizes, strides;
    std::vector<bool> seen(dims.size(), false);
    for (auto d : dims) {
        TRY(w, wrapDim(d, t.dim()));
        if (seen[std::size_t(*w)])
            return kernelError("repeated dim in permute");
        seen[std::size_t(*w)] = true;
        sizes.push_back(t.sizes[std::size_t(*w)]);
        strides.push_back(cs[std::size_t(*w)]);
    }
    return gatherStrided(t, sizes, strides, 0);
}

Result<Tensor> sliceTensor(const Tensor &t, std::int64_t dim, std::optional<std::int64_t> start,
    std::optional<std::int64_t> end, std::int64_t step)
{
    TRY(d, wrapDim(dim, t.dim()));
    if (t.dim() == 0)
        return kernelError("slice of a 0-d tensor");
    if (step <= 0)
        return kernelError("slice step must be positive");
    const std::int64_t n = t.sizes[std::size_t(*d)];
    std::int64_t s = start.value_or(0), e = end.value_or(n);
    if (s < 0)
        s += n;
    if (e < 0)
        e += n;
    s = std::clamp<std::int64_t>(s, 0, n);
    e = std::clamp<std::int64_t>(e, s, n);
    auto sizes = t.sizes;
    sizes[std::size_t(*d)] = e == s ? 0 : 1 + (e - s - 1) / step;
    auto strides = contiguousStrides(t.sizes);
    const std::int64_t offset = s * strides[std::size_t(*d)];
    strides[std::size_t(*d)] *= step;
    return gatherStrided(t, sizes, strides, offset);
}

Result<std::vector<Tensor>> splitSizes(const Tensor &t, const std::vector<std::int64_t> &sizes, std::int64_t dim)
{
    TRY(d, wrapDim(dim, t.dim()));
    std::int64_t total = 0;
    for (auto s : sizes) {
        if (s < 0)
            return kernelError("negative split size");
        total += s;
    }
    if (total != t.sizes[std::size_t(*d)])
        return kernelError(fmt::format("split sizes sum to {}, dimension has {}", total, t.sizes[std::size_t(*d)]));
    std::vector<Tensor> out;
    std::int64_t at = 0;
    for (auto s : sizes) {
        TRY(p, sliceTensor(t, *d, at, at + s, 1));
        out.push_back(*p);
        at += s;
    }
    return out;
}

Result<Tensor> catTensors(const std::vector<Tensor> &ts, std::int64_t dim)
{
    std::vector<const Tensor *> parts;
    for (const Tensor &t : ts)
        if (!(t.dim() == 1 && t.sizes[0] == 0)) // legacy: 1-d empty tensors are skipped
            parts.push_back(&t);
    if (parts.empty())
        return ts.empty() ? kernelError("cat of no tensors") : Result<Tensor>(ts[0]);
    const Tensor &first = *parts[0];
    TRY(d, wrapDim(dim, first.dim()));
    ScalarType rt = first.dtype;
    for (auto *p : parts)
        rt = promote(rt, p->dtype);
    auto sizes = first.sizes;
    sizes[std::size_t(*d)] = 0;
    for (auto *p : parts) {
        if (p->dim() != first.dim())
            return kernelError("cat: tensors differ in rank");
        for (int k = 0; k < first.dim(); ++k)
            if (k != *d && p->sizes[std::size_t(k)] != first.sizes[std::size_t(k)])
                return kernelError(fmt::format("cat: sizes [{}] and [{}] differ outside dim {}",
                    fmt::join(first.sizes, ", "), fmt::join(p->sizes, ", "), *d));
        sizes[std::size_t(*d)] += p->sizes[std::size_t(*d)];
    }
    TRY(out, makeTensor(rt, sizes));
    std::int64_t outer = 1, inner = 1;
    for (int k = 0; k < *d; ++k)
        outer *= sizes[std::size_t(k)];
    for (int k = *d + 1; k < int(sizes.size()); ++k)
        inner *= sizes[std::size_t(k)];
    const std::size_t es = out->itemSize();
    std::size_t col = 0;
    const std::size_t rowBytes = std::size_t(sizes[std::size_t(*d)] * inner) * es;
    for (auto *p : parts) {
        TRY(c, cast(*p, rt));
        const std::size_t chunk = std::size_t(p->sizes[std::size_t(*d)] * inner) * es;
        for (std::int64_t o = 0; o < outer; ++o)
            std::memcpy(
                out->mutableBytes() + std::size_t(o) * rowBytes + col, c->bytes() + std::size_t(o) * chunk, chunk);
        col += chunk;
    }
    return out;
}

std::vector<Tensor> present(const std::vector<std::optional<Tensor>> &ts)
{
    std::vector<Tensor> out;
    for (const auto &t : ts)
        if (t)
            out.push_back(*t);
    return out;
}

Result<Tensor> filled(ScalarType dtype, const std::vector<std::int64_t> &sizes, double v, std::int64_t iv, bool isFloat)
{
    TRY(t, makeTensor(dtype, sizes));
    const std::size_t es = t->itemSize();
    std::vector<std::uint8_t> pattern(es);
    if (isFloat || category(dtype) == Category::Float)
        storeDouble(dtype, pattern.data(), isFloat ? v : double(iv));
    else
        storeInt(dtype, pattern.data(), iv);
    for (std::int64_t i = 0; i < t->numel(); ++i)
        std::memcpy(t->mutableBytes() + std::size_t(i) * es, pattern.data(), es);
    return t;
}

Result<Tensor> indexSelect(const Tensor &t, std::int64_t dim, const Tensor &index)
{
    TRY(d, wrapDim(dim, t.dim()));
    if (category(index.dtype) != Category::Int)
        return kernelError("index_select: index must be an integer tensor");
    const std::int64_t n = t.dim() == 0 ? 1 : t.sizes[std::size_t(*d)];
    auto sizes = t.sizes;
    if (t.dim() > 0)
        sizes[std::size_t(*d)] = index.numel();
    TRY(out, makeTensor(t.dtype, sizes));
    std::int64_t outer = 1, inner = 1;
    for (int k = 0; k < *d; ++k)
        outer *= t.sizes[std::size_t(k)];
    for (int k = *d + 1; k < t.dim(); ++k)
        inner *= t.sizes[std::size_t(k)];
    const std::size_t es = t.itemSize(), chunk = std::size_t(inner) * es;
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t j = 0; j < index.numel(); ++j) {
            std::int64_t ix = index.getInt(j);
            if (ix < -n || ix >= n)
                return kernelError(fmt::format("index {} is out of bounds for dimension of size {}", ix, n));
            if (ix < 0)
                ix += n;
            std::memcpy(out->mutableBytes() + std::size_t(o * index.numel() + j) * chunk,
                t.bytes() + std::size_t(o * n + ix) * chunk, chunk);
        }
    return out;
}

// aten.index.Tensor: advanced indexing with a list of optional index tensors (bool masks
// become their nonzero positions). Indexed dims adjacent: result dims replace them in place;
// otherwise they go first (NumPy rules).
Result<Tensor> advancedIndex(const Tensor &t, std::vector<std::optional<Tensor>> indices)
{
    // Expand boolean masks into one long index per masked dim.
    std::vector<std::optional<Tensor>> expanded;
    for (auto &ix : indices) {
        if (ix && ix->dtype == ScalarType::Bool) {
            const int md = ix->dim();
            std::vector<std::vector<std::int64_t>> coords(static_cast<std::size_t>(md));
            const auto cs = contiguousStrides(ix->sizes);
            for (std::int64_t i = 0; i < ix->numel(); ++i)
                if (ix->getInt(i)) {
                    std::int64_t r = i;
                    for (int k = 0; k < md; ++k) {
                        coords[std::size_t(k)].push_back(r / cs[std::size_t(k)]);
                        r %= cs[std::size_t(k)];
                    }
                }
            for (int k = 0; k < md; ++k) {
                TRY(c,
                    fromIntValues(
                        ScalarType::Long, { std::int64_t(coords[std::size_t(k)].size()) }, coords[std::size_t(k)]));
                expanded.emplace_back(*c);
            }
        } else {
            expanded.push_back(ix);
        }
    }
    if (int(expanded.size()) > t.dim())
        return kernelError("too many indices for tensor");
    while (int(expanded.size()) < t.dim())
        expanded.emplace_back();
    std::vector<int> idxDims;
    std::vector<std::int64_t> bshape;
    for (int k = 0; k < t.dim(); ++k)
        if (expanded[std::size_t(k)]) {
            if (category(expanded[std::size_t(k)]->dtype) != Category::Int)
                return kernelError("index tensors must be integer or bool");
            idxDims.push_back(k);
            TRY(b, broadcastShapes(bshape, expanded[std::size_t(k)]->sizes));
            bshape = *b;
        }
    if (idxDims.empty())
        return t;
    bool adjacent = true;
    for (std::size_t i = 1; i < idxDims.size(); ++i)
        adjacent = adjacent && idxDims[i] == idxDims[i - 1] + 1;
    std::vector<int> rest;
    for (int k = 0; k < t.dim(); ++k)
        if (!expanded[std::size_t(k)])
            rest.push_back(k);
    // Output shape.
    std::vector<std::int64_t> outShape;
    const int insertAt = adjacent ? idxDims[0] : 0;
    std::vector<int> before, after;
    for (int k : rest)
        (adjacent && k < insertAt ? before : after).push_back(k);
    for (int k : before)
        outShape.push_back(t.sizes[std::size_t(k)]);
    outShape.insert(outShape.end(), bshape.begin(), bshape.end());
    for (int k : after)
        outShape.push_back(t.sizes[std::size_t(k)]);
    TRY(out, makeTensor(t.dtype, outShape));
    TRY(bn, checkedNumel(bshape));
    std::vector<std::vector<std::int64_t>> bstr;
    for (int k : idxDims)
        bstr.push_back(broadcastStrides(expanded[std::size_t(k)]->sizes, bshape));
    const auto ts = contiguousStrides(t.sizes);
    const std::size_t es = t.itemSize();
    std::int64_t nb = 1, na = 1;
    std::vector<std::int64_t> bSizes, aSizes;
    for (int k : before) {
        nb *= t.sizes[std::size_t(k)];
        bSizes.push_back(t.sizes[std::size_t(k)]);
    }
    for (int k : after) {
        na *= t.sizes[std::size_t(k)];
        aSizes.push_back(t.sizes[std::size_t(k)]);
    }
    std::int64_t w = 0;
    const auto bcs = contiguousStrides(bshape), ccs = contiguousStrides(bSizes), acs = contiguousStrides(aSizes);
    for (std::int64_t ib = 0; ib < nb; ++ib) {
        std::int64_t baseB = 0;
        for (std::size_t k = 0; k < before.size(); ++k)
            baseB += ((ib / ccs[k]) % bSizes[k]) * ts[std::size_t(before[k])];
        for (std::int64_t j = 0; j < *bn; ++j) {
            std::int64_t baseI = baseB;
            for (std::size_t m = 0; m < idxDims.size(); ++m) {
                std::int64_t flat = 0;
                for (std::size_t k = 0; k < bshape.size(); ++k)
                    flat += ((j / bcs[k]) % bshape[k]) * bstr[m][k];
                const std::int64_t dimSize = t.sizes[std::size_t(idxDims[m])];
                std::int64_t ix = expanded[std::size_t(idxDims[m])]->getInt(flat);
                if (ix < -dimSize || ix >= dimSize)
                    return kernelError(fmt::format(
                        "index {} is out of bounds for dimension {} with size {}", ix, idxDims[m], dimSize));
                if (ix < 0)
                    ix += dimSize;
                baseI += ix * ts[std::size_t(idxDims[m])];
            }
            for (std::int64_t ia = 0; ia < na; ++ia) {
                std::int64_t src = baseI;
                for (std::size_t k = 0; k < after.size(); ++k)
                    src += ((ia / acs[k]) % aSizes[k]) * ts[std::size_t(after[k])];
                std::memcpy(out->mutableBytes() + std::size_t(w++) * es, t.bytes() + std::size_t(src) * es, es);
            }
        }
    }
    if (!adjacent || before.empty())
        return out;
    return out;
}

} // namespace

Result<Tensor> catOf(const std::vector<Tensor> &ts, std::int64_t dim)
{
    return catTensors(ts, dim);
}

void registerShapeKernels()
{
    registerKernel({ "aten.view_copy.default", "aten.view.default", "aten._unsafe_view.default", "aten.reshape.default",
                       "aten._reshape_alias_copy.default", "aten._reshape_alias.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(size, a.ints(1, "size"));
            TRY(shape, inferShape(*size, x->numel()));
            return std::vector<Tensor> { reshaped(*x, *shape) };
        });
    registerKernel({ "aten.flatten.using_ints" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(s, a.integer(1, "start_dim", 0));
        TRY(e, a.integer(2, "end_dim", -1));
        if (x->dim() == 0)
            return std::vector<Tensor> { reshaped(*x, { 1 }) };
        TRY(ws, wrapDim(*s, x->dim()));
        TRY(we, wrapDim(*e, x->dim()));
        std::vector<std::int64_t> shape;
        std::int64_t m = 1;
        for (int k = 0; k < x->dim(); ++k) {
            if (k < *ws || k > *we)
                shape.push_back(x->sizes[std::size_t(k)]);
            else {
                m *= x->sizes[std::size_t(k)];
                if (k == *we)
                    shape.push_back(m);
            }
        }
        return std::vector<Tensor> { reshaped(*x, shape) };
    });
    registerKernel({ "aten.permute_copy.default", "aten.permute.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(dims, a.ints(1, "dims"));
            return one(permute(*x, *dims));
        });
    registerKernel({ "aten.t.default", "aten.t_copy.default", "aten.numpy_T.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            if (x->dim() < 2)
                return std::vector<Tensor> { *x };
            return one(permute(*x, { 1, 0 }));
        });
    registerKernel(
        { "aten.transpose.int", "aten.transpose_copy.int" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(d0, a.integer(1, "dim0"));
            TRY(d1, a.integer(2, "dim1"));
            if (x->dim() == 0)
                return std::vector<Tensor> { *x };
            TRY(w0, wrapDim(*d0, x->dim()));
            TRY(w1, wrapDim(*d1, x->dim()));
            std::vector<std::int64_t> dims(std::size_t(x->dim()));
            std::iota(dims.begin(), dims.end(), 0);
            std::swap(dims[std::size_t(*w0)], dims[std::size_t(*w1)]);
            return one(permute(*x, dims));
        });
    registerKernel(
        { "aten.expand_copy.default", "aten.expand.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(size, a.ints(1, "size"));
            if (size->size() < x->sizes.size())
                return kernelError("expand: fewer target dims than the tensor has");
            const std::size_t lead = size->size() - x->sizes.size();
            std::vector<std::int64_t> sizes(*size), strides(size->size(), 0);
            const auto cs = contiguousStrides(x->sizes);
            for (std::size_t k = 0; k < size->size(); ++k) {
                if (k < lead) {
                    if (sizes[k] < 0)
                        return kernelError("expand: -1 not allowed for new leading dims");
                    continue;
                }
                const std::int64_t have = x->sizes[k - lead];
                if (sizes[k] == -1)
                    sizes[k] = have;
                if (have == sizes[k])
                    strides[k] = cs[k - lead];
                else if (have != 1)
                    return kernelError(fmt::format("expand: size {} cannot expand to {}", have, sizes[k]));
            }
            return one(gatherStrided(*x, sizes, strides, 0));
        });
    registerKernel({ "aten.squeeze_copy.dim", "aten.squeeze.dim", "aten.squeeze_copy.dims", "aten.squeeze.dims",
                       "aten.squeeze_copy.default", "aten.squeeze.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            std::vector<bool> drop(std::size_t(x->dim()), false);
            if (a.has(1, "dim")) {
                TRY(ds, a.ints(1, "dim", std::nullopt, 1));
                for (auto d : *ds) {
                    TRY(w, wrapDim(d, x->dim()));
                    if (x->dim() > 0 && x->sizes[std::size_t(*w)] == 1)
                        drop[std::size_t(*w)] = true;
                }
            } else {
                for (int k = 0; k < x->dim(); ++k)
                    drop[std::size_t(k)] = x->sizes[std::size_t(k)] == 1;
            }
            std::vector<std::int64_t> s;
            for (int k = 0; k < x->dim(); ++k)
                if (!drop[std::size_t(k)])
                    s.push_back(x->sizes[std::size_t(k)]);
            return std::vector<Tensor> { reshaped(*x, s) };
        });
    registerKernel({ "aten.unsqueeze_copy.default", "aten.unsqueeze.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(d, a.integer(1, "dim"));
            TRY(w, wrapDim(*d, x->dim() + 1));
            auto s = x->sizes;
            s.insert(s.begin() + *w, 1);
            return std::vector<Tensor> { reshaped(*x, s) };
        });
    registerKernel(
        { "aten.slice_copy.Tensor", "aten.slice.Tensor" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(d, a.integer(1, "dim", 0));
            std::optional<std::int64_t> s, e;
            if (a.has(2, "start")) {
                TRY(v, a.integer(2, "start"));
                s = *v;
            }
            if (a.has(3, "end")) {
                TRY(v, a.integer(3, "end"));
                e = *v;
            }
            TRY(step, a.integer(4, "step", 1));
            return one(sliceTensor(*x, *d, s, e, *step));
        });
    registerKernel(
        { "aten.select_copy.int", "aten.select.int" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(d, a.integer(1, "dim"));
            TRY(i, a.integer(2, "index"));
            if (x->dim() == 0)
                return kernelError("select on a 0-d tensor");
            TRY(w, wrapDim(*d, x->dim()));
            const std::int64_t n = x->sizes[std::size_t(*w)];
            std::int64_t ix = *i;
            if (ix < -n || ix >= n)
                return kernelError(fmt::format("select index {} out of range for size {}", ix, n));
            if (ix < 0)
                ix += n;
            TRY(s, sliceTensor(*x, *w, ix, ix + 1, 1));
            auto shape = x->sizes;
            shape.erase(shape.begin() + *w);
            return std::vector<Tensor> { reshaped(*s, shape) };
        });
    registerKernel({ "aten.split_with_sizes_copy.default", "aten.split_with_sizes.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(sizes, a.ints(1, "split_sizes"));
            TRY(d, a.integer(2, "dim", 0));
            return splitSizes(*x, *sizes, *d);
        });
    registerKernel(
        { "aten.split_copy.Tensor", "aten.split.Tensor" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(sz, a.integer(1, "split_size"));
            TRY(d, a.integer(2, "dim", 0));
            TRY(w, wrapDim(*d, x->dim()));
            if (*sz <= 0)
                return kernelError("split_size must be positive");
            std::vector<std::int64_t> sizes;
            for (std::int64_t left = x->sizes[std::size_t(*w)]; left > 0; left -= *sz)
                sizes.push_back(std::min(left, *sz));
            return splitSizes(*x, sizes, *w);
        });
    registerKernel(
        { "aten.unbind_copy.int", "aten.unbind.int" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(d, a.integer(1, "dim", 0));
            TRY(w, wrapDim(*d, x->dim()));
            std::vector<std::int64_t> sizes(std::size_t(x->sizes[std::size_t(*w)]), 1);
            TRY(parts, splitSizes(*x, sizes, *w));
            auto shape = x->sizes;
            shape.erase(shape.begin() + *w);
            for (auto &p : *parts)
                p = reshaped(p, shape);
            return parts;
        });
    registerKernel(
        { "aten.cat.default", "aten.concat.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(ts, a.tensorList(0, "tensors"));
            TRY(d, a.integer(1, "dim", 0));
            return one(catTensors(present(*ts), *d));
        });
    registerKernel({ "aten.stack.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(ts, a.tensorList(0, "tensors"));
        TRY(d, a.integer(1, "dim", 0));
        auto parts = present(*ts);
        if (parts.empty())
            return kernelError("stack of no tensors");
        TRY(w, wrapDim(*d, parts[0].dim() + 1));
        const auto shape0 = parts[0].sizes;
        for (auto &p : parts) {
            if (p.sizes != shape0)
                return kernelError("stack: tensors differ in shape");
            auto s = p.sizes;
            s.insert(s.begin() + *w, 1);
            p = reshaped(p, s);
        }
        return one(catTensors(parts, *w));
    });
    registerKernel({ "aten.clone.default", "aten.alias_copy.default", "aten.alias.default", "aten.detach_copy.default",
                       "aten.detach.default", "aten.lift_fresh_copy.default", "aten.contiguous.default",
                       "aten.dropout.default", "aten.native_dropout.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            return std::vector<Tensor> { *x };
        });
    registerKernel({ "aten.repeat.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(rep, a.ints(1, "repeats"));
        if (rep->size() < x->sizes.size())
            return kernelError("repeat: fewer repeats than dims");
        // Expand to [r0, s0, r1, s1, ...] then reshape.
        const std::size_t lead = rep->size() - x->sizes.size();
        std::vector<std::int64_t> sizes, strides, outShape;
        const auto cs = contiguousStrides(x->sizes);
        for (std::size_t k = 0; k < rep->size(); ++k) {
            const std::int64_t s = k < lead ? 1 : x->sizes[k - lead];
            sizes.push_back((*rep)[k]);
            strides.push_back(0);
            sizes.push_back(s);
            strides.push_back(k < lead ? 0 : cs[k - lead]);
            outShape.push_back((*rep)[k] * s);
        }
        TRY(g, gatherStrided(*x, sizes, strides, 0));
        return std::vector<Tensor> { reshaped(*g, outShape) };
    });
    registerKernel({ "aten._to_copy.default", "aten.to.dtype", "aten._to_dim_order_copy.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(dt, a.dtype(1, "dtype"));
            return one(cast(*x, dt->value_or(x->dtype)));
        });
    registerKernel({ "aten.constant_pad_nd.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(pad, a.ints(1, "pad"));
        TRY(val, a.scalar(2, "value", 0.0));
        if (pad->size() % 2 || int(pad->size() / 2) > x->dim())
            return kernelError("constant_pad_nd: bad padding length");
        for (auto v : *pad)
            if (auto c = checkParams({ v }, "constant_pad_nd"); !c)
                return c.error();
        auto shape = x->sizes;
        std::vector<std::int64_t> before(shape.size(), 0);
        for (std::size_t k = 0; k < pad->size() / 2; ++k) {
            const std::size_t d = shape.size() - 1 - k;
            before[d] = (*pad)[2 * k];
            shape[d] += (*pad)[2 * k] + (*pad)[2 * k + 1];
            if (shape[d] < 0)
                return kernelError("constant_pad_nd: negative output size");
        }
        TRY(out, filled(x->dtype, shape, val->d, val->i, val->isFloat));
        const auto xs = contiguousStrides(x->sizes), os = contiguousStrides(shape);
        const std::size_t es = x->itemSize();
        for (std::int64_t i = 0; i < x->numel(); ++i) {
            std::int64_t o = 0;
            bool inside = true;
            for (std::size_t d = 0; d < shape.size(); ++d) {
                const std::int64_t c = (i / xs[d]) % x->sizes[d] + before[d];
                if (c < 0 || c >= shape[d]) {
                    inside = false;
                    break;
                }
                o += c * os[d];
            }
            if (inside)
                std::memcpy(out->mutableBytes() + std::size_t(o) * es, x->bytes() + std::size_t(i) * es, es);
        }
        return std::vector<Tensor> { *out };
    });

    // Factories. dtype None: float32 for float fills / default, int64 for int fills.
    auto factory = [](const KernelArgs &a, const std::vector<std::int64_t> &shape, std::optional<ScalarType> like,
                       double v, std::int64_t iv, bool isFloat, bool isBool) -> Result<std::vector<Tensor>> {
        TRY(dt, a.dtype(-1, "dtype"));
        ScalarType t = dt->value_or(like.value_or(isFloat ? defaultFloat()
                : isBool                                  ? ScalarType::Bool
                                                          : ScalarType::Long));
        return one(filled(t, shape, v, iv, isFloat));
    };
    registerKernel({ "aten.full.default" }, [factory](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(size, a.ints(0, "size"));
        TRY(v, a.scalar(1, "fill_value"));
        return factory(a, *size, std::nullopt, v->d, v->i, v->isFloat, v->isBool);
    });
    registerKernel({ "aten.full_like.default" }, [factory](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(v, a.scalar(1, "fill_value"));
        return factory(a, x->sizes, x->dtype, v->d, v->i, v->isFloat, v->isBool);
    });
    // val = val below: clang 14 (the fuzz build) cannot capture a structured binding directly.
    for (auto [key, val] :
        { std::pair { "aten.zeros.default", 0 }, { "aten.ones.default", 1 }, { "aten.empty.memory_format", 0 } }) {
        registerKernel({ key }, [val = val](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(size, a.ints(0, "size"));
            TRY(dt, a.dtype(-1, "dtype"));
            return one(filled(dt->value_or(defaultFloat()), *size, val, val, false));
        });
    }
    // val = val below: clang 14 (the fuzz build) cannot capture a structured binding directly.
    for (auto [key, val] : { std::pair { "aten.zeros_like.default", 0 }, { "aten.ones_like.default", 1 },
             { "aten.empty_like.default", 0 } }) {
        registerKernel({ key }, [val = val](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(dt, a.dtype(-1, "dtype"));
            return one(filled(dt->value_or(x->dtype), x->sizes, val, val, false));
        });
    }
    registerKernel({ "aten.scalar_tensor.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(v, a.scalar(0, "s"));
        TRY(dt, a.dtype(-1, "dtype"));
        return one(filled(dt->value_or(defaultFloat()), {}, v->d, v->i, true));
    });
    registerKernel({ "aten.arange.default", "aten.arange.start", "aten.arange.start_step" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            KernelArgs::Scalar start, end, step;
            step.i = 1;
            step.d = 1;
            if (a.find(1, "end") && a.find(0, "start")) {
                TRY(s, a.scalar(0, "start"));
                TRY(e, a.scalar(1, "end"));
                start = *s;
                end = *e;
                if (a.has(2, "step")) {
                    TRY(st, a.scalar(2, "step"));
                    step = *st;
                }
            } else {
                TRY(e, a.scalar(0, "end"));
                end = *e;
            }
            TRY(dt, a.dtype(-1, "dtype"));
            const bool anyFloat = start.isFloat || end.isFloat || step.isFloat;
            const ScalarType t = dt->value_or(anyFloat ? defaultFloat() : ScalarType::Long);
            if (step.d == 0)
                return kernelError("arange: step must be nonzero");
            const double count = std::ceil((end.d - start.d) / step.d);
            if (!(count >= 0) || count > double(elementLimit()))
                return kernelError("arange: invalid range");
            const auto n = std::int64_t(count);
            std::vector<double> v(static_cast<std::size_t>(n));
            for (std::int64_t i = 0; i < n; ++i)
                v[std::size_t(i)] = start.d + double(i) * step.d;
            return one(fromDoubleValues(t, { n }, v));
        });
    registerKernel({ "aten.index_select.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(d, a.integer(1, "dim"));
        TRY(i, a.tensor(2, "index"));
        return one(indexSelect(*x, *d, *i));
    });
    registerKernel({ "aten.embedding.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(w, a.tensor(0, "weight"));
        TRY(i, a.tensor(1, "indices"));
        if (w->dim() != 2)
            return kernelError("embedding: weight must be 2-d");
        TRY(flat, indexSelect(*w, 0, reshaped(*i, { i->numel() })));
        auto shape = i->sizes;
        shape.push_back(w->sizes[1]);
        return std::vector<Tensor> { reshaped(*flat, shape) };
    });
    registerKernel({ "aten.index.Tensor" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(ix, a.tensorList(1, "indices"));
        return one(advancedIndex(*x, *ix));
    });
}

} // namespace etscope::eval
