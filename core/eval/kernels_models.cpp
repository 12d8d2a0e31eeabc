// Kernels of the video and language-model families: 3-d pooling (r3d_18, s3d), per-token
// quantization (8da4w-style LLM exports), ExecuTorch's llama custom ops (KV-cache update and
// attention by their documented formula) and the dim_order_ops copies of Edge programs.

#include "eval/kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace etscope::eval {

namespace {

#define TRY ETSCOPE_EVAL_TRY

// ---------------------------------------------------------------- 3-d pooling

struct Pool3d {
    std::int64_t N, C, D, H, W, Do, Ho, Wo;
    std::int64_t k[3], s[3], p[3], d[3];
};

Result<Pool3d> pool3dParams(const KernelArgs &a, bool hasDilation, bool &ceil)
{
    TRY(x, a.tensor(0, "self"));
    if (x->dim() != 4 && x->dim() != 5)
        return kernelError("3-d pooling needs a 4-d or 5-d input");
    TRY(ks, a.ints(1, "kernel_size", std::nullopt, 3));
    TRY(st, a.ints(2, "stride", std::vector<std::int64_t> {}, 3));
    TRY(pd, a.ints(3, "padding", std::vector<std::int64_t> { 0 }, 3));
    std::vector<std::int64_t> dl { 1, 1, 1 };
    if (hasDilation) {
        TRY(v, a.ints(4, "dilation", std::vector<std::int64_t> { 1 }, 3));
        dl = *v;
    }
    TRY(cm, a.boolean(hasDilation ? 5 : 4, "ceil_mode", false));
    ceil = *cm;
    auto three = [](std::vector<std::int64_t> v, const std::vector<std::int64_t> &def) {
        if (v.empty())
            v = def;
        if (v.size() == 1)
            v.assign(3, v[0]);
        return v;
    };
    const auto K = three(*ks, {}), S = three(*st, K), P = three(*pd, { 0 }), Dl = three(dl, { 1 });
    if (K.size() != 3 || S.size() != 3 || P.size() != 3 || Dl.size() != 3)
        return kernelError("3-d pooling needs 3 kernel sizes, strides, paddings and dilations");
    Pool3d q {};
    const int off = x->dim() - 3;
    q.N = off == 2 ? x->sizes[0] : 1;
    q.C = x->sizes[std::size_t(off - 1)];
    q.D = x->sizes[std::size_t(off)];
    q.H = x->sizes[std::size_t(off + 1)];
    q.W = x->sizes[std::size_t(off + 2)];
    const std::int64_t in[3] = { q.D, q.H, q.W };
    std::int64_t outs[3];
    for (int i = 0; i < 3; ++i) {
        if (auto c = checkParams({ K[i], S[i], P[i], Dl[i] }, "pooling"); !c)
            return c.error();
        if (K[i] <= 0 || S[i] <= 0 || Dl[i] <= 0 || P[i] < 0 || P[i] * 2 > K[i])
            return kernelError("pooling: bad kernel size, stride, padding or dilation");
        const std::int64_t span = in[i] + 2 * P[i] - Dl[i] * (K[i] - 1) - 1;
        if (span < 0)
            return kernelError("pooling: kernel larger than the padded input");
        std::int64_t o = (ceil ? (span + S[i] - 1) / S[i] : span / S[i]) + 1;
        if (ceil && (o - 1) * S[i] >= in[i] + P[i])
            --o;
        outs[i] = o;
        q.k[i] = K[i];
        q.s[i] = S[i];
        q.p[i] = P[i];
        q.d[i] = Dl[i];
    }
    q.Do = outs[0];
    q.Ho = outs[1];
    q.Wo = outs[2];
    return q;
}

std::vector<std::int64_t> pooledShape(const Tensor &x, const Pool3d &q)
{
    auto s = x.sizes;
    s[s.size() - 3] = q.Do;
    s[s.size() - 2] = q.Ho;
    s[s.size() - 1] = q.Wo;
    return s;
}

Result<std::vector<Tensor>> maxPool3d(const KernelArgs &a, bool withIndices)
{
    TRY(x, a.tensor(0, "self"));
    bool ceil = false;
    TRY(q, pool3dParams(a, true, ceil));
    const auto shape = pooledShape(*x, *q);
    TRY(n, checkedNumel(shape));
    std::vector<double> out(static_cast<std::size_t>(*n));
    std::vector<std::int64_t> idx(static_cast<std::size_t>(*n));
    const auto v = toDoubles(*x);
    const std::int64_t plane = q->D * q->H * q->W, planes = q->N * q->C;
    std::size_t o = 0;
    for (std::int64_t pl = 0; pl < planes; ++pl)
        for (std::int64_t z = 0; z < q->Do; ++z)
            for (std::int64_t y = 0; y < q->Ho; ++y)
                for (std::int64_t xx = 0; xx < q->Wo; ++xx, ++o) {
                    double best = -std::numeric_limits<double>::infinity();
                    std::int64_t at = -1;
                    for (std::int64_t i = 0; i < q->k[0]; ++i) {
                        const std::int64_t iz = z * q->s[0] - q->p[0] + i * q->d[0];
                        if (iz < 0 || iz >= q->D)
                            continue;
                        for (std::int64_t j = 0; j < q->k[1]; ++j) {
                            const std::int64_t iy = y * q->s[1] - q->p[1] + j * q->d[1];
                            if (iy < 0 || iy >= q->H)
                                continue;
                            for (std::int64_t l = 0; l < q->k[2]; ++l) {
                                const std::int64_t ix = xx * q->s[2] - q->p[2] + l * q->d[2];
                                if (ix < 0 || ix >= q->W)
                                    continue;
                                const std::int64_t flat = (iz * q->H + iy) * q->W + ix;
                                const double e = v[std::size_t(pl * plane + flat)];
                                if (at < 0 || e > best || std::isnan(e)) { // NaN propagates as in torch
                                    best = e;
                                    at = flat;
                                    if (std::isnan(e))
                                        goto done;
                                }
                            }
                        }
                    }
                done:
                    out[o] = best;
                    idx[o] = at;
                }
    TRY(values, fromDoubleValues(x->dtype, shape, out));
    if (!withIndices)
        return std::vector<Tensor> { *values };
    TRY(indices, fromIntValues(ScalarType::Long, shape, idx));
    return std::vector<Tensor> { *values, *indices };
}

Result<std::vector<Tensor>> avgPool3d(const KernelArgs &a)
{
    TRY(x, a.tensor(0, "self"));
    bool ceil = false;
    TRY(q, pool3dParams(a, false, ceil));
    TRY(includePad, a.boolean(5, "count_include_pad", true));
    std::optional<std::int64_t> divisor;
    if (a.has(6, "divisor_override")) {
        TRY(dv, a.integer(6, "divisor_override"));
        if (*dv == 0)
            return kernelError("avg_pool3d: divisor must be non-zero");
        divisor = *dv;
    }
    const auto shape = pooledShape(*x, *q);
    TRY(n, checkedNumel(shape));
    std::vector<double> out(static_cast<std::size_t>(*n));
    const auto v = toDoubles(*x);
    const std::int64_t in[3] = { q->D, q->H, q->W }, plane = q->D * q->H * q->W, planes = q->N * q->C;
    std::size_t o = 0;
    for (std::int64_t pl = 0; pl < planes; ++pl)
        for (std::int64_t z = 0; z < q->Do; ++z)
            for (std::int64_t y = 0; y < q->Ho; ++y)
                for (std::int64_t xx = 0; xx < q->Wo; ++xx, ++o) {
                    const std::int64_t pos[3] = { z, y, xx };
                    std::int64_t lo[3], hi[3], poolSize = 1, count = 1;
                    for (int i = 0; i < 3; ++i) {
                        lo[i] = pos[i] * q->s[i] - q->p[i];
                        hi[i] = std::min(lo[i] + q->k[i], in[i] + q->p[i]);
                        poolSize *= hi[i] - lo[i];
                        lo[i] = std::max<std::int64_t>(lo[i], 0);
                        hi[i] = std::min(hi[i], in[i]);
                        count *= std::max<std::int64_t>(hi[i] - lo[i], 0);
                    }
                    double sum = 0;
                    for (std::int64_t iz = lo[0]; iz < hi[0]; ++iz)
                        for (std::int64_t iy = lo[1]; iy < hi[1]; ++iy)
                            for (std::int64_t ix = lo[2]; ix < hi[2]; ++ix)
                                sum += v[std::size_t(pl * plane + (iz * q->H + iy) * q->W + ix)];
                    const std::int64_t div = divisor ? *divisor : (*includePad ? poolSize : count);
                    out[o] = div ? sum / double(div) : std::nan("");
                }
    return one(fromDoubleValues(x->dtype, shape, out));
}

Result<std::vector<Tensor>> adaptiveAvgPool3d(const KernelArgs &a)
{
    TRY(x, a.tensor(0, "self"));
    TRY(os, a.ints(1, "output_size", std::nullopt, 3));
    if ((x->dim() != 4 && x->dim() != 5) || os->size() != 3)
        return kernelError("adaptive_avg_pool3d needs a 4-d or 5-d input and 3 output sizes");
    const int off = x->dim() - 3;
    const std::int64_t in[3]
        = { x->sizes[std::size_t(off)], x->sizes[std::size_t(off + 1)], x->sizes[std::size_t(off + 2)] };
    for (auto s : *os)
        if (s <= 0 || s > (std::int64_t(1) << 31))
            return kernelError("adaptive_avg_pool3d: output sizes must be positive");
    auto shape = x->sizes;
    for (int i = 0; i < 3; ++i)
        shape[std::size_t(off + i)] = (*os)[std::size_t(i)];
    TRY(n, checkedNumel(shape));
    std::int64_t planes = 1;
    for (int i = 0; i < off; ++i)
        planes *= x->sizes[std::size_t(i)];
    const auto v = toDoubles(*x);
    std::vector<double> out(static_cast<std::size_t>(*n));
    auto start = [](std::int64_t o, std::int64_t O, std::int64_t I) { return (o * I) / O; };
    auto end = [](std::int64_t o, std::int64_t O, std::int64_t I) { return ((o + 1) * I + O - 1) / O; };
    const std::int64_t plane = in[0] * in[1] * in[2];
    std::size_t o = 0;
    for (std::int64_t pl = 0; pl < planes; ++pl)
        for (std::int64_t z = 0; z < (*os)[0]; ++z)
            for (std::int64_t y = 0; y < (*os)[1]; ++y)
                for (std::int64_t xx = 0; xx < (*os)[2]; ++xx, ++o) {
                    const std::int64_t z0 = start(z, (*os)[0], in[0]), z1 = end(z, (*os)[0], in[0]);
                    const std::int64_t y0 = start(y, (*os)[1], in[1]), y1 = end(y, (*os)[1], in[1]);
                    const std::int64_t x0 = start(xx, (*os)[2], in[2]), x1 = end(xx, (*os)[2], in[2]);
                    double sum = 0;
                    for (std::int64_t iz = z0; iz < z1; ++iz)
                        for (std::int64_t iy = y0; iy < y1; ++iy)
                            for (std::int64_t ix = x0; ix < x1; ++ix)
                                sum += v[std::size_t(pl * plane + (iz * in[1] + iy) * in[2] + ix)];
                    const std::int64_t cnt = (z1 - z0) * (y1 - y0) * (x1 - x0);
                    out[o] = cnt ? sum / double(cnt) : 0.0;
                }
    return one(fromDoubleValues(x->dtype, shape, out));
}

// ---------------------------------------------------------------- llama custom ops

// Attention of q [B, S, H, D] over the first n positions of caches [B, max, Hkv, D]; query i
// sits at absolute position start + i. Head h reads kv head h / (H / Hkv).
Result<Tensor> cachedAttention(const Tensor &q, const Tensor &kc, const Tensor &vc, std::int64_t start, bool causal,
    const std::optional<Tensor> &mask, std::optional<double> scale)
{
    if (q.dim() != 4 || kc.dim() != 4 || vc.dim() != 4)
        return kernelError("llama attention: query and caches must be 4-d [batch, seq, heads, head_dim]");
    const std::int64_t B = q.sizes[0], S = q.sizes[1], H = q.sizes[2], D = q.sizes[3];
    const std::int64_t maxLen = kc.sizes[1], Hkv = kc.sizes[2];
    if (kc.sizes != vc.sizes || kc.sizes[0] != B || kc.sizes[3] != D || Hkv <= 0 || H % Hkv)
        return kernelError(fmt::format("llama attention: query [{}] does not fit caches [{}] / [{}]",
            fmt::join(q.sizes, ", "), fmt::join(kc.sizes, ", "), fmt::join(vc.sizes, ", ")));
    const std::int64_t n = start + S;
    if (start < 0 || n > maxLen)
        return kernelError(
            fmt::format("llama attention: positions {}..{} exceed the cache length {}", start, n - 1, maxLen));
    if (mask && (mask->dim() != 2 || mask->sizes[0] != S || mask->sizes[1] < n))
        return kernelError("llama attention: attn_mask must be [seq_len, >= start_pos + seq_len]");
    const double sc = scale.value_or(1.0 / std::sqrt(double(D)));
    std::vector<float> hq, hk, hv;
    const float *pq = floatsOf(q, hq), *pk = floatsOf(kc, hk), *pv = floatsOf(vc, hv);
    std::vector<double> out(static_cast<std::size_t>(B * S * H * D), 0.0), w(static_cast<std::size_t>(n));
    const std::int64_t rep = H / Hkv;
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h) {
            const std::int64_t g = h / rep;
            for (std::int64_t i = 0; i < S; ++i) {
                const float *qi = pq + ((b * S + i) * H + h) * D;
                double m = -std::numeric_limits<double>::infinity();
                for (std::int64_t j = 0; j < n; ++j) {
                    const float *kj = pk + ((b * maxLen + j) * Hkv + g) * D;
                    double dot = 0;
                    for (std::int64_t e = 0; e < D; ++e)
                        dot += double(qi[e]) * double(kj[e]);
                    double s = dot * sc;
                    if (causal && j > start + i)
                        s = -std::numeric_limits<double>::infinity();
                    if (mask)
                        s += mask->getDouble(i * mask->sizes[1] + j);
                    w[std::size_t(j)] = s;
                    m = std::max(m, s);
                }
                double sum = 0;
                for (std::int64_t j = 0; j < n; ++j) {
                    w[std::size_t(j)] = std::exp(w[std::size_t(j)] - m);
                    sum += w[std::size_t(j)];
                }
                double *oi = out.data() + ((b * S + i) * H + h) * D;
                for (std::int64_t j = 0; j < n; ++j) {
                    const float *vj = pv + ((b * maxLen + j) * Hkv + g) * D;
                    const double p = w[std::size_t(j)] / sum;
                    for (std::int64_t e = 0; e < D; ++e)
                        oi[e] += p * double(vj[e]);
                }
            }
        }
    return fromDoubleValues(q.dtype, q.sizes, out);
}

// cache[:, start:start+S] = value, as a new tensor.
Result<Tensor> updatedCache(const Tensor &value, const Tensor &cache, std::int64_t start)
{
    if (value.dim() != 4 || cache.dim() != 4 || value.sizes[0] != cache.sizes[0] || value.sizes[2] != cache.sizes[2]
        || value.sizes[3] != cache.sizes[3])
        return kernelError(fmt::format("update_cache: value [{}] does not fit cache [{}]", fmt::join(value.sizes, ", "),
            fmt::join(cache.sizes, ", ")));
    const std::int64_t S = value.sizes[1], maxLen = cache.sizes[1];
    if (start < 0 || start + S > maxLen)
        return kernelError(
            fmt::format("update_cache: positions {}..{} exceed the cache length {}", start, start + S - 1, maxLen));
    TRY(v, cast(value, cache.dtype));
    TRY(out, makeTensor(cache.dtype, cache.sizes));
    const std::size_t row = std::size_t(cache.sizes[2] * cache.sizes[3]) * cache.itemSize();
    for (std::int64_t b = 0; b < cache.sizes[0]; ++b)
        for (std::int64_t p = 0; p < maxLen; ++p) {
            const bool fresh = p >= start && p < start + S;
            const std::uint8_t *src = fresh ? v->bytes() + std::size_t(b * S + p - start) * row
                                            : cache.bytes() + std::size_t(b * maxLen + p) * row;
            std::memcpy(out->mutableBytes() + std::size_t(b * maxLen + p) * row, src, row);
        }
    return out;
}

Result<std::optional<double>> optScale(const KernelArgs &a, int index)
{
    if (!a.has(index, "scale"))
        return std::optional<double> {};
    TRY(s, a.number(index, "scale"));
    return std::optional<double> { *s };
}

} // namespace

void registerModelKernels()
{
    registerKernel({ "aten.max_pool3d_with_indices.default" }, [](const KernelArgs &a) { return maxPool3d(a, true); });
    registerKernel({ "aten.max_pool3d.default" }, [](const KernelArgs &a) { return maxPool3d(a, false); });
    registerKernel({ "aten.avg_pool3d.default" }, avgPool3d);
    registerKernel({ "aten.adaptive_avg_pool3d.default", "aten._adaptive_avg_pool3d.default" }, adaptiveAvgPool3d);

    registerKernel({ "llama.update_cache.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(v, a.tensor(0, "value"));
        TRY(cache, a.tensor(1, "cache"));
        TRY(start, a.integer(2, "start_pos"));
        // The op returns a dummy; the updated cache follows as the new value of `cache`.
        TRY(updated, updatedCache(*v, *cache, *start));
        TRY(dummy, makeTensor(v->dtype, { 1 }));
        return std::vector<Tensor> { *dummy, *updated };
    });
    registerKernel({ "llama.custom_sdpa.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(q, a.tensor(0, "query"));
        TRY(k, a.tensor(1, "key"));
        TRY(v, a.tensor(2, "value"));
        TRY(start, a.integer(3, "start_pos"));
        TRY(mask, a.optTensor(4, "attn_mask"));
        TRY(causal, a.boolean(6, "is_causal", false));
        TRY(scale, optScale(a, 7));
        return one(cachedAttention(*q, *k, *v, *start, *causal, *mask, *scale));
    });
    registerKernel({ "llama.sdpa_with_kv_cache.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(q, a.tensor(0, "query"));
        TRY(k, a.tensor(1, "key"));
        TRY(v, a.tensor(2, "value"));
        TRY(kc, a.tensor(3, "key_cache"));
        TRY(vc, a.tensor(4, "value_cache"));
        TRY(start, a.integer(5, "start_pos"));
        TRY(len, a.integer(6, "seq_len"));
        TRY(mask, a.optTensor(7, "attn_mask"));
        TRY(causal, a.boolean(9, "is_causal", false));
        TRY(scale, optScale(a, 10));
        if (*len != q->sizes.at(1) || k->dim() != 4 || k->sizes[1] != *len)
            return kernelError("sdpa_with_kv_cache: seq_len differs from the query / key length");
        TRY(k2, updatedCache(*k, *kc, *start));
        TRY(v2, updatedCache(*v, *vc, *start));
        TRY(out, cachedAttention(*q, *k2, *v2, *start, *causal, *mask, *scale));
        return std::vector<Tensor> { *out, *k2, *v2 };
    });

    // Edge dialect: dim order is a memory layout; values are those of a contiguous copy.
    registerKernel({ "dim_order_ops._to_dim_order_copy.default", "dim_order_ops._clone_dim_order.default",
                       "aten._clone_dim_order.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            TRY(dt, a.dtype(-1, "dtype"));
            return one(cast(*x, dt->value_or(x->dtype)));
        });
}

} // namespace etscope::eval
