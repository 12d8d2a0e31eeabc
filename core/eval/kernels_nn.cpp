// Neural-network kernels: convolution (im2col + Eigen GEMM, split over cores), matrix
// products, normalizations, pooling, upsampling and scaled dot-product attention.

#include "eval/kernels.h"

#include <Eigen/Core>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace etscope::eval {

namespace {

#define TRY ETSCOPE_EVAL_TRY

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapC = Eigen::Map<const RowMat>;
using Map = Eigen::Map<RowMat>;

bool floating(ScalarType t)
{
    return category(t) == Category::Float;
}

// C[m x n] = A[m x k] * B[k x n] (+ C when accumulate), row-major floats, columns of C split
// over threads. Double inputs use a double GEMM for fidelity.
void gemm(const float *A, const float *B, float *C, std::int64_t m, std::int64_t k, std::int64_t n, int threads,
    bool accumulate = false)
{
    if (m == 0 || n == 0)
        return;
    if (k == 0) {
        if (!accumulate)
            std::fill(C, C + m * n, 0.0f);
        return;
    }
    const std::int64_t work = m * n * k;
    const int t = work < (1 << 18) ? 1 : threads;
    if (dnnlAvailable() && dnnlGemm(A, B, C, m, k, n, t, accumulate, k, n, false))
        return;
    // Split along the larger of m and n.
    if (n >= m) {
        parallelFor(n, t, 16, [&](std::int64_t s, std::int64_t e) {
            Eigen::Map<const RowMat, 0, Eigen::OuterStride<>> b(B + s, k, e - s, Eigen::OuterStride<>(n));
            Eigen::Map<RowMat, 0, Eigen::OuterStride<>> c(C + s, m, e - s, Eigen::OuterStride<>(n));
            MapC a(A, m, k);
            if (accumulate)
                c.noalias() += a * b;
            else
                c.noalias() = a * b;
        });
    } else {
        parallelFor(m, t, 16, [&](std::int64_t s, std::int64_t e) {
            MapC a(A + s * k, e - s, k);
            MapC b(B, k, n);
            Map c(C + s * n, e - s, n);
            if (accumulate)
                c.noalias() += a * b;
            else
                c.noalias() = a * b;
        });
    }
}

// out = beta * bias + alpha * (a @ b) for 2-d a [m,k], b [k,n]; bias broadcast to [m,n].
Result<Tensor> matmul2d(
    const Tensor &a, const Tensor &b, const std::optional<Tensor> &bias, double beta, double alpha, int threads)
{
    if (a.dim() != 2 || b.dim() != 2)
        return kernelError("matrix product needs 2-d tensors");
    if (a.sizes[1] != b.sizes[0])
        return kernelError(fmt::format("mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", a.sizes[0],
            a.sizes[1], b.sizes[0], b.sizes[1]));
    const std::int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
    ScalarType rt = promote(a.dtype, b.dtype);
    if (bias)
        rt = promote(rt, bias->dtype);
    if (!floating(rt) || rt == ScalarType::Double) {
        // Integer / double path: exact accumulation in double / int64.
        auto av = toDoubles(a), bv = toDoubles(b);
        std::vector<double> out(static_cast<std::size_t>(m * n), 0.0);
        for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t p = 0; p < k; ++p) {
                const double x = av[std::size_t(i * k + p)];
                for (std::int64_t j = 0; j < n; ++j)
                    out[std::size_t(i * n + j)] += x * bv[std::size_t(p * n + j)];
            }
        if (bias) {
            TRY(sh, broadcastShapes(bias->sizes, { m, n }));
            if (*sh != std::vector<std::int64_t> { m, n })
                return kernelError("bias does not broadcast to the product");
            const auto bs = broadcastStrides(bias->sizes, { m, n });
            for (std::int64_t i = 0; i < m; ++i)
                for (std::int64_t j = 0; j < n; ++j)
                    out[std::size_t(i * n + j)]
                        = beta * bias->getDouble(i * bs[0] + j * bs[1]) + alpha * out[std::size_t(i * n + j)];
        }
        return fromDoubleValues(rt, { m, n }, out);
    }
    std::vector<float> ha, hb;
    const float *pa = floatsOf(a, ha), *pb = floatsOf(b, hb);
    TRY(out, makeTensor(ScalarType::Float, { m, n }));
    float *c = out->mutableData<float>();
    gemm(pa, pb, c, m, k, n, threads);
    if (alpha != 1)
        for (std::int64_t i = 0; i < m * n; ++i)
            c[i] *= float(alpha);
    if (bias) {
        TRY(sh, broadcastShapes(bias->sizes, { m, n }));
        if (*sh != std::vector<std::int64_t> { m, n })
            return kernelError("bias does not broadcast to the product");
        std::vector<float> hbias;
        const float *pbias = floatsOf(*bias, hbias);
        const auto bs = broadcastStrides(bias->sizes, { m, n });
        for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j)
                c[i * n + j] = (beta == 1 ? pbias[i * bs[0] + j * bs[1]] : float(beta) * pbias[i * bs[0] + j * bs[1]])
                    + c[i * n + j];
    }
    return rt == ScalarType::Float ? Result<Tensor>(*out) : cast(*out, rt);
}

// Batched matmul with broadcasting of batch dims (torch.matmul rules for >= 1-d).
Result<Tensor> matmulNd(const Tensor &a0, const Tensor &b0, int threads)
{
    Tensor a = a0, b = b0;
    const bool aVec = a.dim() == 1, bVec = b.dim() == 1;
    if (a.dim() == 0 || b.dim() == 0)
        return kernelError("matmul of a 0-d tensor");
    if (aVec)
        a = reshaped(a, { 1, a.sizes[0] });
    if (bVec)
        b = reshaped(b, { b.sizes[0], 1 });
    const std::int64_t m = a.sizes[std::size_t(a.dim() - 2)], k = a.sizes.back();
    const std::int64_t k2 = b.sizes[std::size_t(b.dim() - 2)], n = b.sizes.back();
    if (k != k2)
        return kernelError(fmt::format("matmul: inner sizes differ ({} and {})", k, k2));
    std::vector<std::int64_t> ba(a.sizes.begin(), a.sizes.end() - 2), bb(b.sizes.begin(), b.sizes.end() - 2);
    TRY(batch, broadcastShapes(ba, bb));
    TRY(nb, checkedNumel(*batch));
    const auto sa = broadcastStrides(ba, *batch), sb = broadcastStrides(bb, *batch);
    const auto cs = contiguousStrides(*batch);
    const ScalarType rt = promote(a.dtype, b.dtype);
    std::vector<float> ha, hb;
    const float *pa = floatsOf(a, ha), *pb = floatsOf(b, hb);
    auto shape = *batch;
    shape.push_back(m);
    shape.push_back(n);
    TRY(out, makeTensor(ScalarType::Float, shape));
    float *c = out->mutableData<float>();
    for (std::int64_t i = 0; i < *nb; ++i) {
        std::int64_t ia = 0, ib = 0;
        for (std::size_t d = 0; d < batch->size(); ++d) {
            const std::int64_t idx = (i / cs[d]) % (*batch)[d];
            ia += idx * sa[d];
            ib += idx * sb[d];
        }
        gemm(pa + ia * m * k, pb + ib * k * n, c + i * m * n, m, k, n, threads);
    }
    Tensor r = *out;
    std::vector<std::int64_t> finalShape = *batch;
    if (!aVec)
        finalShape.push_back(m);
    if (!bVec)
        finalShape.push_back(n);
    r = reshaped(r, finalShape);
    if (!floating(rt)) {
        // Integer matmul: recompute exactly in int64 would be better; round the float result.
        auto v = toDoubles(r);
        std::vector<std::int64_t> iv(v.size());
        for (std::size_t q = 0; q < v.size(); ++q)
            iv[q] = std::int64_t(std::llround(v[q]));
        return fromIntValues(rt, r.sizes, iv);
    }
    return rt == ScalarType::Float ? Result<Tensor>(r) : cast(r, rt);
}

// ---------------------------------------------------------------- convolution

struct ConvParams {
    std::vector<std::int64_t> stride, padding, dilation, outputPadding;
    bool transposed = false;
    std::int64_t groups = 1;
};

// Convolution over three spatial dimensions (1-d and 2-d arrive with leading extents of 1, which
// leave the loops and the GEMM's summation order as they are for their own rank).
Result<Tensor> conv3d(
    const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias, const ConvParams &p, int threads)
{
    // Input [N, C, D, H, W], weight [Cout, C/groups, kd, kh, kw].
    const std::int64_t N = input.sizes[0], C = input.sizes[1], D = input.sizes[2], H = input.sizes[3],
                       W = input.sizes[4];
    const std::int64_t Cout = weight.sizes[0], Cg = weight.sizes[1], kd = weight.sizes[2], kh = weight.sizes[3],
                       kw = weight.sizes[4];
    const std::int64_t G = p.groups;
    if (G <= 0 || C % G || Cout % G || Cg != C / G)
        return kernelError(fmt::format(
            "convolution: input has {} channels, weight [{}] with groups={}", C, fmt::join(weight.sizes, ", "), G));
    const std::int64_t sd = p.stride[0], sh = p.stride[1], sw = p.stride[2];
    const std::int64_t pd = p.padding[0], ph = p.padding[1], pw = p.padding[2];
    const std::int64_t dd = p.dilation[0], dh = p.dilation[1], dw = p.dilation[2];
    if (sd <= 0 || sh <= 0 || sw <= 0 || dd <= 0 || dh <= 0 || dw <= 0 || pd < 0 || ph < 0 || pw < 0)
        return kernelError("convolution: stride and dilation must be positive, padding non-negative");
    const std::int64_t Do = (D + 2 * pd - dd * (kd - 1) - 1) / sd + 1;
    const std::int64_t Ho = (H + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
    const std::int64_t Wo = (W + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    if (Do <= 0 || Ho <= 0 || Wo <= 0)
        return kernelError("convolution: kernel larger than the padded input");
    TRY(out, makeTensor(ScalarType::Float, { N, Cout, Do, Ho, Wo }));
    std::vector<float> hi, hw, hb;
    const float *in = floatsOf(input, hi), *w = floatsOf(weight, hw);
    const float *b = bias ? floatsOf(*bias, hb) : nullptr;
    if (bias && bias->numel() != Cout)
        return kernelError("convolution: bias size differs from output channels");
    float *o = out->mutableData<float>();
    const std::int64_t HW = H * W, DHW = D * HW, HWo = Ho * Wo;
    const std::int64_t Coutg = Cout / G, kHW = kh * kw, K = Cg * kd * kHW, P = Do * HWo;
    const bool pointwise
        = kd == 1 && kh == 1 && kw == 1 && sd == 1 && sh == 1 && sw == 1 && pd == 0 && ph == 0 && pw == 0;
    for (std::int64_t n = 0; n < N; ++n) {
        for (std::int64_t g = 0; g < G; ++g) {
            const float *src = in + (n * C + g * Cg) * DHW;
            const float *wg = w + g * Coutg * K;
            float *dst = o + (n * Cout + g * Coutg) * P;
            if (pointwise) {
                gemm(wg, src, dst, Coutg, K, P, threads);
            } else if (Cg == 1 && Coutg == 1) {
                // Depthwise: direct loop (im2col would be all overhead).
                for (std::int64_t z = 0; z < Do; ++z)
                    for (std::int64_t y = 0; y < Ho; ++y)
                        for (std::int64_t x = 0; x < Wo; ++x) {
                            float acc = 0;
                            for (std::int64_t l = 0; l < kd; ++l) {
                                const std::int64_t iz = z * sd - pd + l * dd;
                                if (iz < 0 || iz >= D)
                                    continue;
                                for (std::int64_t i = 0; i < kh; ++i) {
                                    const std::int64_t iy = y * sh - ph + i * dh;
                                    if (iy < 0 || iy >= H)
                                        continue;
                                    for (std::int64_t j = 0; j < kw; ++j) {
                                        const std::int64_t ix = x * sw - pw + j * dw;
                                        if (ix >= 0 && ix < W)
                                            acc += wg[(l * kh + i) * kw + j] * src[iz * HW + iy * W + ix];
                                    }
                                }
                            }
                            dst[(z * Ho + y) * Wo + x] = acc;
                        }
            } else {
                // im2col by column blocks over threads: each block builds its columns and runs
                // its own GEMM, so memory stays at K x block per thread.
                const std::int64_t block
                    = std::max<std::int64_t>(64, std::min<std::int64_t>(P, (1 << 20) / std::max<std::int64_t>(K, 1)));
                const std::int64_t nBlocks = (P + block - 1) / block;
                parallelFor(nBlocks, threads, 1, [&](std::int64_t bs, std::int64_t be) {
                    std::vector<float> col;
                    std::vector<float> res;
                    for (std::int64_t bi = bs; bi < be; ++bi) {
                        const std::int64_t c0 = bi * block, c1 = std::min(P, c0 + block), nc = c1 - c0;
                        col.assign(std::size_t(K * nc), 0.0f);
                        for (std::int64_t c = 0; c < Cg; ++c)
                            for (std::int64_t l = 0; l < kd; ++l)
                                for (std::int64_t i = 0; i < kh; ++i)
                                    for (std::int64_t j = 0; j < kw; ++j) {
                                        float *row = col.data() + (((c * kd + l) * kh + i) * kw + j) * nc;
                                        const float *volume = src + c * DHW;
                                        for (std::int64_t q = c0; q < c1; ++q) {
                                            const std::int64_t z = q / HWo, y = (q % HWo) / Wo, x = q % Wo;
                                            const std::int64_t iz = z * sd - pd + l * dd, iy = y * sh - ph + i * dh,
                                                               ix = x * sw - pw + j * dw;
                                            if (iz >= 0 && iz < D && iy >= 0 && iy < H && ix >= 0 && ix < W)
                                                row[q - c0] = volume[iz * HW + iy * W + ix];
                                        }
                                    }
                        res.resize(std::size_t(Coutg * nc));
                        gemm(wg, col.data(), res.data(), Coutg, K, nc, 1);
                        for (std::int64_t r = 0; r < Coutg; ++r)
                            std::copy(res.begin() + r * nc, res.begin() + (r + 1) * nc, dst + r * P + c0);
                    }
                });
            }
        }
        if (b)
            for (std::int64_t c = 0; c < Cout; ++c) {
                float *plane = o + (n * Cout + c) * P;
                for (std::int64_t q = 0; q < P; ++q)
                    plane[q] += b[c];
            }
    }
    return out;
}

// Transposed convolution as a scatter: each input pixel adds weight * value to the output.
Result<Tensor> convTranspose2d(
    const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias, const ConvParams &p)
{
    // weight [Cin, Cout/groups, kh, kw]
    const std::int64_t N = input.sizes[0], C = input.sizes[1], H = input.sizes[2], W = input.sizes[3];
    const std::int64_t G = p.groups;
    if (G <= 0 || weight.sizes[0] != C || C % G)
        return kernelError("transposed convolution: weight does not match the input channels");
    const std::int64_t Coutg = weight.sizes[1], Cout = Coutg * G, kh = weight.sizes[2], kw = weight.sizes[3];
    const std::int64_t sh = p.stride[0], sw = p.stride[1], ph = p.padding[0], pw = p.padding[1], dh = p.dilation[0],
                       dw = p.dilation[1], oph = p.outputPadding[0], opw = p.outputPadding[1];
    if (sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0)
        return kernelError("transposed convolution: stride and dilation must be positive");
    const std::int64_t Ho = (H - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1;
    const std::int64_t Wo = (W - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1;
    if (Ho <= 0 || Wo <= 0)
        return kernelError("transposed convolution: empty output");
    if (auto n = checkedNumel({ N, Cout, Ho, Wo }); !n)
        return n.error();
    std::vector<double> out(static_cast<std::size_t>(N * Cout * Ho * Wo), 0.0);
    const auto in = toDoubles(input), w = toDoubles(weight);
    const std::int64_t Cg = C / G;
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t c = 0; c < C; ++c) {
            const std::int64_t g = c / Cg;
            for (std::int64_t y = 0; y < H; ++y)
                for (std::int64_t x = 0; x < W; ++x) {
                    const double v = in[std::size_t(((n * C + c) * H + y) * W + x)];
                    for (std::int64_t oc = 0; oc < Coutg; ++oc)
                        for (std::int64_t i = 0; i < kh; ++i) {
                            const std::int64_t oy = y * sh - ph + i * dh;
                            if (oy < 0 || oy >= Ho)
                                continue;
                            for (std::int64_t j = 0; j < kw; ++j) {
                                const std::int64_t ox = x * sw - pw + j * dw;
                                if (ox < 0 || ox >= Wo)
                                    continue;
                                out[std::size_t(((n * Cout + g * Coutg + oc) * Ho + oy) * Wo + ox)]
                                    += v * w[std::size_t(((c * Coutg + oc) * kh + i) * kw + j)];
                            }
                        }
                }
        }
    if (bias)
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t c = 0; c < Cout; ++c)
                for (std::int64_t q = 0; q < Ho * Wo; ++q)
                    out[std::size_t((n * Cout + c) * Ho * Wo + q)] += bias->getDouble(c);
    return fromDoubleValues(input.dtype, { N, Cout, Ho, Wo }, out);
}

Result<std::vector<std::int64_t>> spatial(
    const KernelArgs &a, int index, const char *name, int dims, std::vector<std::int64_t> def)
{
    TRY(v, a.ints(index, name, def, dims));
    if (v->size() == 1 && dims > 1)
        return std::vector<std::int64_t>(std::size_t(dims), (*v)[0]);
    if (int(v->size()) != dims)
        return kernelError(fmt::format("'{}' needs {} values, got {}", name, dims, v->size()));
    return *v;
}

Result<std::vector<Tensor>> convolution(const KernelArgs &a)
{
    TRY(x, a.tensor(0, "input"));
    TRY(w, a.tensor(1, "weight"));
    TRY(b, a.optTensor(2, "bias"));
    const int sd = w->dim() - 2;
    if (sd < 1 || sd > 3 || x->dim() != sd + 2)
        return kernelError(fmt::format("convolution: only 1-d to 3-d are supported (input [{}], weight [{}])",
            fmt::join(x->sizes, ", "), fmt::join(w->sizes, ", ")));
    ConvParams p;
    TRY(st, spatial(a, 3, "stride", sd, { 1 }));
    TRY(pd, spatial(a, 4, "padding", sd, { 0 }));
    TRY(dl, spatial(a, 5, "dilation", sd, { 1 }));
    TRY(tr, a.boolean(6, "transposed", false));
    TRY(op, spatial(a, 7, "output_padding", sd, { 0 }));
    TRY(gr, a.integer(8, "groups", 1));
    p.stride = *st;
    p.padding = *pd;
    p.dilation = *dl;
    p.transposed = *tr;
    p.outputPadding = *op;
    p.groups = *gr;
    for (const auto *v : { &p.stride, &p.padding, &p.dilation, &p.outputPadding })
        for (auto e : *v)
            if (auto c = checkParams({ e }, "convolution"); !c)
                return c.error();
    if (auto c = checkParams({ p.groups }, "convolution"); !c)
        return c.error();
    if (!floating(x->dtype))
        return kernelError("convolution needs floating point input");
    if (!p.transposed && dnnlAvailable()) {
        TRY(r, dnnlConvolution(*x, *w, *b, p.stride, p.padding, p.dilation, p.groups, a.threads));
        if (r->dtype == x->dtype)
            return std::vector<Tensor> { *r };
        return one(cast(*r, x->dtype));
    }
    if (p.transposed && sd == 3)
        return kernelError("3-d transposed convolution is not supported");
    // Lifted to the rank of the kernel with leading spatial extents of 1: 1-d and 2-d to 3-d for
    // the convolution, 1-d to 2-d for the transposed one.
    const int rank = p.transposed ? 2 : 3;
    Tensor in = *x, wt = *w;
    if (sd < rank) {
        const auto lift = [&](const Tensor &t) {
            std::vector<std::int64_t> sizes = t.sizes;
            sizes.insert(sizes.begin() + 2, std::size_t(rank - sd), 1);
            return reshaped(t, std::move(sizes));
        };
        in = lift(in);
        wt = lift(wt);
        for (auto *v : { &p.stride, &p.dilation })
            v->insert(v->begin(), std::size_t(rank - sd), 1);
        for (auto *v : { &p.padding, &p.outputPadding })
            v->insert(v->begin(), std::size_t(rank - sd), 0);
    }
    Result<Tensor> r = p.transposed ? convTranspose2d(in, wt, *b, p) : conv3d(in, wt, *b, p, a.threads);
    if (!r)
        return r.error();
    Tensor t = *r;
    if (sd < rank) {
        std::vector<std::int64_t> sizes = t.sizes;
        sizes.erase(sizes.begin() + 2, sizes.begin() + 2 + (rank - sd));
        t = reshaped(t, std::move(sizes));
    }
    if (t.dtype != x->dtype) {
        TRY(c, cast(t, x->dtype));
        t = *c;
    }
    return std::vector<Tensor> { t };
}

// ---------------------------------------------------------------- normalization

// Normalizes groups of `inner` consecutive elements; returns out, mean and rstd per group.
struct NormStats {
    std::vector<double> out, mean, rstd;
};
NormStats normalizeGroups(const std::vector<double> &x, std::int64_t groups, std::int64_t inner, double eps)
{
    NormStats s;
    s.out.resize(x.size());
    s.mean.resize(std::size_t(groups));
    s.rstd.resize(std::size_t(groups));
    for (std::int64_t g = 0; g < groups; ++g) {
        const double *p = x.data() + g * inner;
        double m = 0;
        for (std::int64_t i = 0; i < inner; ++i)
            m += p[i];
        m /= double(std::max<std::int64_t>(inner, 1));
        double v = 0;
        for (std::int64_t i = 0; i < inner; ++i)
            v += (p[i] - m) * (p[i] - m);
        v /= double(std::max<std::int64_t>(inner, 1));
        const double r = 1.0 / std::sqrt(v + eps);
        s.mean[std::size_t(g)] = m;
        s.rstd[std::size_t(g)] = r;
        for (std::int64_t i = 0; i < inner; ++i)
            s.out[std::size_t(g * inner + i)] = (p[i] - m) * r;
    }
    return s;
}

Result<std::vector<Tensor>> layerNorm(const KernelArgs &a, bool native)
{
    TRY(x, a.tensor(0, "input"));
    TRY(shape, a.ints(1, "normalized_shape"));
    TRY(w, a.optTensor(2, "weight"));
    TRY(b, a.optTensor(3, "bias"));
    TRY(eps, a.number(4, "eps", 1e-5));
    const int nd = int(shape->size());
    if (nd > x->dim())
        return kernelError("layer_norm: normalized_shape longer than the input");
    for (int k = 0; k < nd; ++k)
        if (x->sizes[std::size_t(x->dim() - nd + k)] != (*shape)[std::size_t(k)])
            return kernelError(fmt::format("layer_norm: normalized_shape [{}] does not match input [{}]",
                fmt::join(*shape, ", "), fmt::join(x->sizes, ", ")));
    std::int64_t inner = 1;
    for (auto s : *shape)
        inner *= s;
    const std::int64_t groups = inner ? x->numel() / inner : 0;
    if ((*w && (*w)->numel() != inner) || (*b && (*b)->numel() != inner))
        return kernelError("layer_norm: weight/bias size differs from normalized_shape");
    auto st = normalizeGroups(toDoubles(*x), groups, inner, *eps);
    if (*w || *b) {
        const auto wv = *w ? toDoubles(**w) : std::vector<double>();
        const auto bv = *b ? toDoubles(**b) : std::vector<double>();
        for (std::int64_t g = 0; g < groups; ++g)
            for (std::int64_t i = 0; i < inner; ++i) {
                double &v = st.out[std::size_t(g * inner + i)];
                if (*w)
                    v *= wv[std::size_t(i)];
                if (*b)
                    v += bv[std::size_t(i)];
            }
    }
    TRY(out, fromDoubleValues(x->dtype, x->sizes, st.out));
    if (!native)
        return std::vector<Tensor> { *out };
    std::vector<std::int64_t> statShape(x->sizes.begin(), x->sizes.end() - nd);
    statShape.insert(statShape.end(), std::size_t(nd), 1);
    const ScalarType statType = x->dtype == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
    TRY(mean, fromDoubleValues(statType, statShape, st.mean));
    TRY(rstd, fromDoubleValues(statType, statShape, st.rstd));
    return std::vector<Tensor> { *out, *mean, *rstd };
}

// Batch norm with running statistics (inference). Extra outputs are empty, as torch returns.
Result<std::vector<Tensor>> batchNormEval(const Tensor &x, const std::optional<Tensor> &w,
    const std::optional<Tensor> &b, const Tensor &mean, const Tensor &var, double eps, int nOut, int threads)
{
    if (x.dim() < 2)
        return kernelError("batch_norm needs at least 2-d input");
    const std::int64_t C = x.sizes[1];
    if (mean.numel() != C || var.numel() != C || (w && w->numel() != C) || (b && b->numel() != C))
        return kernelError(fmt::format("batch_norm: statistics do not have {} channels", C));
    std::int64_t inner = 1;
    for (int k = 2; k < x.dim(); ++k)
        inner *= x.sizes[std::size_t(k)];
    const std::int64_t N = x.sizes[0];
    // Per-channel scale and shift computed like torch's CPU kernel (in the input's compute type).
    std::vector<float> scale(static_cast<std::size_t>(C)), shift(static_cast<std::size_t>(C));
    for (std::int64_t c = 0; c < C; ++c) {
        const double inv = 1.0 / std::sqrt(var.getDouble(c) + eps);
        const double wc = w ? w->getDouble(c) : 1.0, bc = b ? b->getDouble(c) : 0.0;
        scale[std::size_t(c)] = float(wc * inv);
        shift[std::size_t(c)] = float(bc - mean.getDouble(c) * wc * inv);
    }
    Tensor out;
    if (x.dtype == ScalarType::Float) {
        TRY(o, uninitTensor(ScalarType::Float, x.sizes));
        const float *p = x.data<float>();
        float *q = o->mutableData<float>();
        parallelFor(N * C, threads, std::max<std::int64_t>(1, (1 << 16) / std::max<std::int64_t>(inner, 1)),
            [&](std::int64_t s0, std::int64_t e0) {
                for (std::int64_t nc = s0; nc < e0; ++nc) {
                    const std::int64_t c = nc % C;
                    const float s = scale[std::size_t(c)], t = shift[std::size_t(c)];
                    const std::int64_t base = nc * inner;
                    for (std::int64_t i = 0; i < inner; ++i)
                        q[base + i] = p[base + i] * s + t;
                }
            });
        out = *o;
    } else {
        auto v = toDoubles(x);
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t c = 0; c < C; ++c)
                for (std::int64_t i = 0; i < inner; ++i) {
                    double &e = v[std::size_t((n * C + c) * inner + i)];
                    e = e * scale[std::size_t(c)] + shift[std::size_t(c)];
                }
        TRY(o, fromDoubleValues(x.dtype, x.sizes, v));
        out = *o;
    }
    std::vector<Tensor> r { out };
    for (int k = 1; k < nOut; ++k)
        r.push_back(*makeTensor(x.dtype == ScalarType::Double ? ScalarType::Double : ScalarType::Float, { 0 }));
    return r;
}

// ---------------------------------------------------------------- pooling

struct Pool2d {
    std::int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
    bool ceil = false;
};

std::int64_t poolOut(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t d, bool ceil)
{
    std::int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    std::int64_t o = num / s + 1;
    if (ceil && (o - 1) * s >= in + p)
        --o;
    return o;
}

Result<Pool2d> poolParams(const KernelArgs &a, bool hasDilation)
{
    Pool2d p;
    TRY(k, spatial(a, 1, "kernel_size", 2, std::vector<std::int64_t> {}));
    TRY(s, a.ints(2, "stride", std::vector<std::int64_t> {}, 2));
    std::vector<std::int64_t> st = s->empty() ? *k : *s;
    if (st.size() == 1)
        st.push_back(st[0]);
    TRY(pd, spatial(a, 3, "padding", 2, { 0 }));
    p.kh = (*k)[0];
    p.kw = (*k)[1];
    p.sh = st[0];
    p.sw = st[1];
    p.ph = (*pd)[0];
    p.pw = (*pd)[1];
    if (hasDilation) {
        TRY(d, spatial(a, 4, "dilation", 2, { 1 }));
        p.dh = (*d)[0];
        p.dw = (*d)[1];
        TRY(c, a.boolean(5, "ceil_mode", false));
        p.ceil = *c;
    } else {
        TRY(c, a.boolean(4, "ceil_mode", false));
        p.ceil = *c;
    }
    if (auto c = checkParams({ p.kh, p.kw, p.sh, p.sw, p.ph, p.pw, p.dh, p.dw }, "pooling"); !c)
        return c.error();
    if (p.kh <= 0 || p.kw <= 0 || p.sh <= 0 || p.sw <= 0 || p.dh <= 0 || p.dw <= 0 || p.ph < 0 || p.pw < 0
        || p.ph * 2 > p.kh || p.pw * 2 > p.kw)
        return kernelError("pooling: invalid kernel, stride, padding or dilation");
    return p;
}

Result<std::vector<Tensor>> maxPool(const KernelArgs &a, bool withIndices)
{
    TRY(x, a.tensor(0, "self"));
    TRY(p, poolParams(a, true));
    if (x->dim() != 4 && x->dim() != 3)
        return kernelError("max_pool2d needs 3-d or 4-d input");
    const Tensor in = x->dim() == 3 ? reshaped(*x, { 1, x->sizes[0], x->sizes[1], x->sizes[2] }) : *x;
    const std::int64_t N = in.sizes[0], C = in.sizes[1], H = in.sizes[2], W = in.sizes[3];
    const std::int64_t Ho = poolOut(H, p->kh, p->sh, p->ph, p->dh, p->ceil),
                       Wo = poolOut(W, p->kw, p->sw, p->pw, p->dw, p->ceil);
    if (Ho <= 0 || Wo <= 0)
        return kernelError("max_pool2d: output would be empty");
    std::vector<float> hold;
    const float *src = floatsOf(in, hold);
    std::vector<std::int64_t> shape
        = x->dim() == 3 ? std::vector<std::int64_t> { C, Ho, Wo } : std::vector<std::int64_t> { N, C, Ho, Wo };
    TRY(vt, uninitTensor(ScalarType::Float, shape));
    Result<Tensor> it = withIndices ? uninitTensor(ScalarType::Long, shape) : Result<Tensor>(Tensor {});
    if (!it)
        return it.error();
    float *out = vt->mutableData<float>();
    std::int64_t *idx = withIndices ? it->mutableData<std::int64_t>() : nullptr;
    // Window bounds per output row and column: the valid taps, so that the inner loop has no tests.
    struct Span {
        std::int64_t first, count;
    };
    auto spans
        = [](std::int64_t outN, std::int64_t inN, std::int64_t k, std::int64_t s, std::int64_t pad, std::int64_t d) {
              std::vector<Span> v(static_cast<std::size_t>(outN));
              for (std::int64_t o = 0; o < outN; ++o) {
                  std::int64_t i = 0;
                  const std::int64_t start = o * s - pad;
                  while (i < k && start + i * d < 0)
                      ++i;
                  std::int64_t e = i;
                  while (e < k && start + e * d < inN)
                      ++e;
                  v[std::size_t(o)] = Span { start + i * d, e - i };
              }
              return v;
          };
    const std::vector<Span> ys = spans(Ho, H, p->kh, p->sh, p->ph, p->dh),
                            xs = spans(Wo, W, p->kw, p->sw, p->pw, p->dw);
    const std::int64_t dh = p->dh, dw = p->dw;
    parallelFor(N * C, a.threads, 4, [&](std::int64_t s, std::int64_t e) {
        for (std::int64_t nc = s; nc < e; ++nc) {
            const float *plane = src + nc * H * W;
            float *o = out + nc * Ho * Wo;
            std::int64_t *oi = idx ? idx + nc * Ho * Wo : nullptr;
            for (std::int64_t y = 0; y < Ho; ++y) {
                const Span sy = ys[std::size_t(y)];
                for (std::int64_t xx = 0; xx < Wo; ++xx) {
                    const Span sx = xs[std::size_t(xx)];
                    // The first valid tap, then any larger one; the first NaN wins. Without NaNs
                    // (the usual case) branch-free: random data mispredicts a branch on `>`.
                    float best = -std::numeric_limits<float>::infinity();
                    std::int64_t bi = -1;
                    if (sy.count > 0 && sx.count > 0) {
                        bi = sy.first * W + sx.first;
                        best = plane[bi];
                        bool nan = best != best;
                        for (std::int64_t i = 0; i < sy.count; ++i) {
                            const std::int64_t row = (sy.first + i * dh) * W + sx.first;
                            for (std::int64_t j = 0; j < sx.count; ++j) {
                                const std::int64_t at = row + j * dw;
                                const float v = plane[at];
                                const bool gt = v > best;
                                best = gt ? v : best;
                                bi = gt ? at : bi;
                                nan |= v != v;
                            }
                        }
                        if (nan) {
                            for (std::int64_t i = 0; i < sy.count; ++i) {
                                const std::int64_t row = (sy.first + i * dh) * W + sx.first;
                                for (std::int64_t j = 0; j < sx.count; ++j)
                                    if (plane[row + j * dw] != plane[row + j * dw]) {
                                        bi = row + j * dw;
                                        best = plane[bi];
                                        goto done;
                                    }
                            }
                        }
                    }
                done:
                    o[y * Wo + xx] = best;
                    if (oi)
                        oi[y * Wo + xx] = bi;
                }
            }
        }
    });
    if (x->dtype != ScalarType::Float) {
        TRY(c, cast(*vt, x->dtype));
        *vt = *c;
    }
    if (!withIndices)
        return std::vector<Tensor> { *vt };
    return std::vector<Tensor> { *vt, *it };
}

Result<std::vector<Tensor>> avgPool(const KernelArgs &a)
{
    TRY(x, a.tensor(0, "self"));
    TRY(p, poolParams(a, false));
    TRY(cip, a.boolean(5, "count_include_pad", true));
    std::optional<std::int64_t> divisor;
    if (a.has(6, "divisor_override")) {
        TRY(d, a.integer(6, "divisor_override"));
        if (*d == 0)
            return kernelError("divisor_override must be nonzero");
        divisor = *d;
    }
    if (x->dim() != 4 && x->dim() != 3)
        return kernelError("avg_pool2d needs 3-d or 4-d input");
    const Tensor in = x->dim() == 3 ? reshaped(*x, { 1, x->sizes[0], x->sizes[1], x->sizes[2] }) : *x;
    const std::int64_t N = in.sizes[0], C = in.sizes[1], H = in.sizes[2], W = in.sizes[3];
    const std::int64_t Ho = poolOut(H, p->kh, p->sh, p->ph, 1, p->ceil),
                       Wo = poolOut(W, p->kw, p->sw, p->pw, 1, p->ceil);
    if (Ho <= 0 || Wo <= 0)
        return kernelError("avg_pool2d: output would be empty");
    std::vector<float> hold;
    const float *src = floatsOf(in, hold);
    std::vector<float> out(static_cast<std::size_t>(N * C * Ho * Wo));
    for (std::int64_t nc = 0; nc < N * C; ++nc) {
        const float *plane = src + nc * H * W;
        for (std::int64_t y = 0; y < Ho; ++y)
            for (std::int64_t xx = 0; xx < Wo; ++xx) {
                std::int64_t y0 = y * p->sh - p->ph, x0 = xx * p->sw - p->pw;
                std::int64_t y1 = std::min(y0 + p->kh, H + p->ph), x1 = std::min(x0 + p->kw, W + p->pw);
                const std::int64_t poolSize = (y1 - y0) * (x1 - x0);
                y0 = std::max<std::int64_t>(y0, 0);
                x0 = std::max<std::int64_t>(x0, 0);
                y1 = std::min(y1, H);
                x1 = std::min(x1, W);
                float sum = 0;
                for (std::int64_t i = y0; i < y1; ++i)
                    for (std::int64_t j = x0; j < x1; ++j)
                        sum += plane[i * W + j];
                const std::int64_t div = divisor ? *divisor : (*cip ? poolSize : (y1 - y0) * (x1 - x0));
                out[std::size_t((nc * Ho + y) * Wo + xx)] = div ? sum / float(div) : 0.0f;
            }
    }
    std::vector<std::int64_t> shape
        = x->dim() == 3 ? std::vector<std::int64_t> { C, Ho, Wo } : std::vector<std::int64_t> { N, C, Ho, Wo };
    Tensor vt = Tensor::fromFloats(shape, out);
    if (x->dtype != ScalarType::Float)
        return one(cast(vt, x->dtype));
    return std::vector<Tensor> { vt };
}

Result<std::vector<Tensor>> adaptiveAvgPool(const KernelArgs &a)
{
    TRY(x, a.tensor(0, "self"));
    TRY(os, spatial(a, 1, "output_size", 2, std::vector<std::int64_t> {}));
    if (x->dim() != 4 && x->dim() != 3)
        return kernelError("adaptive_avg_pool2d needs 3-d or 4-d input");
    const Tensor in = x->dim() == 3 ? reshaped(*x, { 1, x->sizes[0], x->sizes[1], x->sizes[2] }) : *x;
    const std::int64_t N = in.sizes[0], C = in.sizes[1], H = in.sizes[2], W = in.sizes[3];
    const std::int64_t Ho = (*os)[0], Wo = (*os)[1];
    if (Ho <= 0 || Wo <= 0)
        return kernelError("adaptive_avg_pool2d: output size must be positive");
    if (auto n = checkedNumel({ N, C, Ho, Wo }); !n)
        return n.error();
    std::vector<float> hold;
    const float *src = floatsOf(in, hold);
    std::vector<float> out(static_cast<std::size_t>(N * C * Ho * Wo));
    for (std::int64_t nc = 0; nc < N * C; ++nc)
        for (std::int64_t y = 0; y < Ho; ++y) {
            const std::int64_t y0 = (y * H) / Ho, y1 = ((y + 1) * H + Ho - 1) / Ho;
            for (std::int64_t xx = 0; xx < Wo; ++xx) {
                const std::int64_t x0 = (xx * W) / Wo, x1 = ((xx + 1) * W + Wo - 1) / Wo;
                float sum = 0;
                for (std::int64_t i = y0; i < y1; ++i)
                    for (std::int64_t j = x0; j < x1; ++j)
                        sum += src[nc * H * W + i * W + j];
                out[std::size_t((nc * Ho + y) * Wo + xx)] = sum / float((y1 - y0) * (x1 - x0));
            }
        }
    std::vector<std::int64_t> shape
        = x->dim() == 3 ? std::vector<std::int64_t> { C, Ho, Wo } : std::vector<std::int64_t> { N, C, Ho, Wo };
    Tensor vt = Tensor::fromFloats(shape, out);
    if (x->dtype != ScalarType::Float)
        return one(cast(vt, x->dtype));
    return std::vector<Tensor> { vt };
}

// ---------------------------------------------------------------- upsampling

// Output size from output_size or scale factors; returns also the scales torch uses for the
// source-index computation (1/scale when a scale was given, else in/out).
struct UpsampleSize {
    std::int64_t Ho, Wo;
    std::optional<double> sh, sw;
};

Result<UpsampleSize> upsampleSize(const KernelArgs &a, const Tensor &x, bool vec)
{
    UpsampleSize u;
    const std::int64_t H = x.sizes[2], W = x.sizes[3];
    const Value *os = a.find(1, vec ? "output_size" : "output_size");
    if (os && os->kind == Value::Kind::IntList && os->ints.size() == 2) {
        u.Ho = os->ints[0];
        u.Wo = os->ints[1];
    }
    if (vec) {
        const Value *sf = a.find(-1, "scale_factors");
        if (sf && sf->kind == Value::Kind::DoubleList && sf->doubles.size() == 2) {
            u.sh = sf->doubles[0];
            u.sw = sf->doubles[1];
            if (!(*u.sh > 0 && *u.sh < 1e6 && *u.sw > 0 && *u.sw < 1e6))
                return kernelError("upsample: scale factors must be positive and finite");
            if (!(os && os->kind == Value::Kind::IntList)) {
                u.Ho = std::int64_t(std::floor(double(H) * *u.sh));
                u.Wo = std::int64_t(std::floor(double(W) * *u.sw));
            }
        } else if (!(os && os->kind == Value::Kind::IntList)) {
            return kernelError("upsample: needs output_size or scale_factors");
        }
    } else {
        if (!(os && os->kind == Value::Kind::IntList))
            return kernelError("upsample: needs output_size");
        if (const Value *s = a.find(-1, "scales_h"); s && s->kind == Value::Kind::Double)
            u.sh = s->d;
        if (const Value *s = a.find(-1, "scales_w"); s && s->kind == Value::Kind::Double)
            u.sw = s->d;
    }
    if (u.Ho <= 0 || u.Wo <= 0 || u.Ho > elementLimit() || u.Wo > elementLimit() || u.Ho * u.Wo > elementLimit())
        return kernelError("upsample: invalid output size");
    return u;
}

double areaScale(std::int64_t in, std::int64_t out, bool alignCorners, std::optional<double> scale)
{
    if (alignCorners)
        return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
    if (scale && *scale > 0)
        return 1.0 / *scale;
    return double(in) / double(out);
}

Result<std::vector<Tensor>> upsampleNearest(const KernelArgs &a, bool vec)
{
    TRY(x, a.tensor(0, vec ? "input" : "self"));
    if (x->dim() != 4)
        return kernelError("upsample_nearest2d needs 4-d input");
    TRY(u, upsampleSize(a, *x, vec));
    const std::int64_t N = x->sizes[0], C = x->sizes[1], H = x->sizes[2], W = x->sizes[3];
    const float sh = float(areaScale(H, u->Ho, false, u->sh)), sw = float(areaScale(W, u->Wo, false, u->sw));
    std::vector<std::int64_t> shape { N, C, u->Ho, u->Wo };
    TRY(out, makeTensor(x->dtype, shape));
    const std::size_t es = x->itemSize();
    for (std::int64_t nc = 0; nc < N * C; ++nc)
        for (std::int64_t y = 0; y < u->Ho; ++y) {
            const std::int64_t iy = std::min(std::int64_t(std::floor(float(y) * sh)), H - 1);
            for (std::int64_t xx = 0; xx < u->Wo; ++xx) {
                const std::int64_t ix = std::min(std::int64_t(std::floor(float(xx) * sw)), W - 1);
                std::memcpy(out->mutableBytes() + std::size_t((nc * u->Ho + y) * u->Wo + xx) * es,
                    x->bytes() + std::size_t(nc * H * W + iy * W + ix) * es, es);
            }
        }
    return std::vector<Tensor> { *out };
}

Result<std::vector<Tensor>> upsampleBilinear(const KernelArgs &a, bool vec)
{
    TRY(x, a.tensor(0, vec ? "input" : "self"));
    if (x->dim() != 4)
        return kernelError("upsample_bilinear2d needs 4-d input");
    TRY(ac, a.boolean(2, "align_corners", false));
    TRY(u, upsampleSize(a, *x, vec));
    const std::int64_t N = x->sizes[0], C = x->sizes[1], H = x->sizes[2], W = x->sizes[3];
    if (auto n = checkedNumel({ N, C, u->Ho, u->Wo }); !n)
        return n.error();
    const float rh = float(areaScale(H, u->Ho, *ac, u->sh)), rw = float(areaScale(W, u->Wo, *ac, u->sw));
    auto src = [&](std::int64_t o, float r, std::int64_t in, std::int64_t &i0, std::int64_t &i1, float &l1) {
        float s = *ac ? r * float(o) : std::max(r * (float(o) + 0.5f) - 0.5f, 0.0f);
        i0 = std::min(std::int64_t(s), in - 1);
        i1 = i0 + (i0 < in - 1 ? 1 : 0);
        l1 = std::min(std::max(s - float(i0), 0.0f), 1.0f);
    };
    std::vector<float> hold;
    const float *p = floatsOf(*x, hold);
    std::vector<float> out(static_cast<std::size_t>(N * C * u->Ho * u->Wo));
    for (std::int64_t nc = 0; nc < N * C; ++nc)
        for (std::int64_t y = 0; y < u->Ho; ++y) {
            std::int64_t y0, y1;
            float ly;
            src(y, rh, H, y0, y1, ly);
            for (std::int64_t xx = 0; xx < u->Wo; ++xx) {
                std::int64_t x0, x1;
                float lx;
                src(xx, rw, W, x0, x1, lx);
                const float *pl = p + nc * H * W;
                const float v = (1 - ly) * ((1 - lx) * pl[y0 * W + x0] + lx * pl[y0 * W + x1])
                    + ly * ((1 - lx) * pl[y1 * W + x0] + lx * pl[y1 * W + x1]);
                out[std::size_t((nc * u->Ho + y) * u->Wo + xx)] = v;
            }
        }
    Tensor vt = Tensor::fromFloats({ N, C, u->Ho, u->Wo }, out);
    if (x->dtype != ScalarType::Float)
        return one(cast(vt, x->dtype));
    return std::vector<Tensor> { vt };
}

} // namespace

void registerNnKernels()
{
    registerKernel({ "aten.convolution.default", "aten.conv2d.default", "aten.conv1d.default", "aten.conv3d.default",
                       "aten._convolution.default" },
        [](const KernelArgs &a) { return convolution(a); });
    registerKernel({ "aten.mm.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "self"));
        TRY(y, a.tensor(1, "mat2"));
        return one(matmul2d(*x, *y, std::nullopt, 1, 1, a.threads));
    });
    registerKernel({ "aten.addmm.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(bias, a.tensor(0, "self"));
        TRY(x, a.tensor(1, "mat1"));
        TRY(y, a.tensor(2, "mat2"));
        TRY(beta, a.number(3, "beta", 1.0));
        TRY(alpha, a.number(4, "alpha", 1.0));
        return one(matmul2d(*x, *y, *bias, *beta, *alpha, a.threads));
    });
    registerKernel(
        { "aten.bmm.default", "aten.matmul.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "self"));
            const Value *m2 = a.find(1, "mat2");
            TRY(y, m2 ? a.tensor(1, "mat2") : a.tensor(1, "other"));
            return one(matmulNd(*x, *y, a.threads));
        });
    registerKernel({ "aten.linear.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "input"));
        TRY(w, a.tensor(1, "weight"));
        TRY(b, a.optTensor(2, "bias"));
        if (w->dim() != 2 || x->dim() < 1)
            return kernelError("linear: weight must be 2-d");
        std::vector<std::int64_t> wt { 1, 0 };
        TRY(wT, gatherStrided(*w, { w->sizes[1], w->sizes[0] }, { 1, w->sizes[1] }, 0));
        const std::int64_t k = x->sizes.back();
        const std::int64_t rows = k ? x->numel() / k : 0;
        TRY(r, matmul2d(reshaped(*x, { rows, k }), *wT, *b, 1, 1, a.threads));
        auto shape = x->sizes;
        shape.back() = w->sizes[0];
        return std::vector<Tensor> { reshaped(*r, shape) };
    });
    registerKernel({ "aten.native_layer_norm.default" }, [](const KernelArgs &a) { return layerNorm(a, true); });
    registerKernel({ "aten.layer_norm.default" }, [](const KernelArgs &a) { return layerNorm(a, false); });
    registerKernel({ "aten._native_batch_norm_legit_no_training.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "input"));
            TRY(w, a.optTensor(1, "weight"));
            TRY(b, a.optTensor(2, "bias"));
            TRY(m, a.tensor(3, "running_mean"));
            TRY(v, a.tensor(4, "running_var"));
            TRY(eps, a.number(6, "eps", 1e-5));
            return batchNormEval(*x, *w, *b, *m, *v, *eps, 3, a.threads);
        });
    registerKernel(
        { "aten.native_batch_norm.default", "aten._native_batch_norm_legit.default", "aten.batch_norm.default" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(x, a.tensor(0, "input"));
            TRY(w, a.optTensor(1, "weight"));
            TRY(b, a.optTensor(2, "bias"));
            TRY(m, a.optTensor(3, "running_mean"));
            TRY(v, a.optTensor(4, "running_var"));
            TRY(training, a.boolean(5, "training", false));
            TRY(eps, a.number(7, "eps", 1e-5));
            if (*training || !*m || !*v)
                return kernelError("batch norm in training mode (batch statistics) is not supported");
            const bool single = !a.find(-1, "cudnn_enabled") ? false : true;
            return batchNormEval(*x, *w, *b, **m, **v, *eps, single ? 1 : 3, a.threads);
        });
    registerKernel({ "aten.native_group_norm.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        TRY(x, a.tensor(0, "input"));
        TRY(w, a.optTensor(1, "weight"));
        TRY(b, a.optTensor(2, "bias"));
        TRY(N, a.integer(3, "N"));
        TRY(C, a.integer(4, "C"));
        TRY(HxW, a.integer(5, "HxW"));
        TRY(G, a.integer(6, "group"));
        TRY(eps, a.number(7, "eps", 1e-5));
        // Checked before multiplying: the sizes come from the graph and may be anything.
        const std::int64_t numel = x->numel();
        if (*G <= 0 || *N < 0 || *C < 0 || *HxW < 0 || *C % *G || (*N && *C > numel / *N)
            || (*N != 0 && *C != 0 && *HxW > numel / (*N * *C)) || *N * *C * *HxW != numel)
            return kernelError("native_group_norm: N, C, HxW and group do not match the input");
        if ((*w && (*w)->numel() != *C) || (*b && (*b)->numel() != *C))
            return kernelError(fmt::format("native_group_norm: weight/bias do not have {} channels", *C));
        const std::int64_t inner = (*C / *G) * *HxW;
        auto st = normalizeGroups(toDoubles(*x), *N * *G, inner, *eps);
        for (std::int64_t n = 0; n < *N; ++n)
            for (std::int64_t c = 0; c < *C; ++c)
                for (std::int64_t i = 0; i < *HxW; ++i) {
                    double &v = st.out[std::size_t((n * *C + c) * *HxW + i)];
                    if (*w)
                        v *= (*w)->getDouble(c);
                    if (*b)
                        v += (*b)->getDouble(c);
                }
        TRY(out, fromDoubleValues(x->dtype, x->sizes, st.out));
        TRY(mean, fromDoubleValues(ScalarType::Float, { *N, *G }, st.mean));
        TRY(rstd, fromDoubleValues(ScalarType::Float, { *N, *G }, st.rstd));
        return std::vector<Tensor> { *out, *mean, *rstd };
    });
    registerKernel({ "aten.max_pool2d_with_indices.default" }, [](const KernelArgs &a) { return maxPool(a, true); });
    registerKernel({ "aten.max_pool2d.default" }, [](const KernelArgs &a) { return maxPool(a, false); });
    registerKernel({ "aten.avg_pool2d.default" }, [](const KernelArgs &a) { return avgPool(a); });
    registerKernel({ "aten.adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d.default" },
        [](const KernelArgs &a) { return adaptiveAvgPool(a); });
    registerKernel({ "aten.upsample_nearest2d.vec" }, [](const KernelArgs &a) { return upsampleNearest(a, true); });
    registerKernel(
        { "aten.upsample_nearest2d.default" }, [](const KernelArgs &a) { return upsampleNearest(a, false); });
    registerKernel({ "aten.upsample_bilinear2d.vec" }, [](const KernelArgs &a) { return upsampleBilinear(a, true); });
    registerKernel(
        { "aten.upsample_bilinear2d.default" }, [](const KernelArgs &a) { return upsampleBilinear(a, false); });

    // softmax(q k^T * scale + mask) v, with an optional causal mask; dropout is ignored (eval).
    registerKernel(
        { "aten.scaled_dot_product_attention.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            TRY(q, a.tensor(0, "query"));
            TRY(k, a.tensor(1, "key"));
            TRY(v, a.tensor(2, "value"));
            TRY(mask, a.optTensor(3, "attn_mask"));
            TRY(causal, a.boolean(5, "is_causal", false));
            if (q->dim() < 2 || k->dim() != q->dim() || v->dim() != q->dim())
                return kernelError("scaled_dot_product_attention: query, key and value need the same rank >= 2");
            const std::int64_t L = q->sizes[std::size_t(q->dim() - 2)], E = q->sizes.back();
            const std::int64_t S = k->sizes[std::size_t(k->dim() - 2)];
            double scale = 1.0 / std::sqrt(double(E));
            if (a.has(-1, "scale")) {
                TRY(s, a.number(-1, "scale"));
                scale = *s;
            }
            std::vector<std::int64_t> perm(std::size_t(k->dim()));
            for (std::size_t i = 0; i < perm.size(); ++i)
                perm[i] = std::int64_t(i);
            std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
            const auto cs = contiguousStrides(k->sizes);
            std::vector<std::int64_t> ksz, kst;
            for (auto d : perm) {
                ksz.push_back(k->sizes[std::size_t(d)]);
                kst.push_back(cs[std::size_t(d)]);
            }
            TRY(kT, gatherStrided(*k, ksz, kst, 0));
            TRY(scores, matmulNd(*q, *kT, a.threads));
            auto sv = toDoubles(*scores);
            const std::int64_t rows = L ? std::int64_t(sv.size()) / (L * S) : 0;
            std::vector<double> maskv;
            std::vector<std::int64_t> mstr;
            bool boolMask = false;
            if (*mask) {
                TRY(sh, broadcastShapes((*mask)->sizes, scores->sizes));
                if (*sh != scores->sizes)
                    return kernelError("attn_mask does not broadcast to the attention scores");
                mstr = broadcastStrides((*mask)->sizes, scores->sizes);
                boolMask = (*mask)->dtype == ScalarType::Bool;
            }
            const auto scs = contiguousStrides(scores->sizes);
            for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t i = 0; i < L; ++i) {
                    double *row = sv.data() + (r * L + i) * S;
                    double m = -std::numeric_limits<double>::infinity();
                    for (std::int64_t j = 0; j < S; ++j) {
                        double s = row[j] * scale;
                        if (*causal && j > i)
                            s = -std::numeric_limits<double>::infinity();
                        if (*mask) {
                            const std::int64_t flat = (r * L + i) * S + j;
                            std::int64_t mi = 0;
                            for (std::size_t d = 0; d < scs.size(); ++d)
                                mi += ((flat / scs[d]) % scores->sizes[d]) * mstr[d];
                            if (boolMask) {
                                if (!(*mask)->getInt(mi))
                                    s = -std::numeric_limits<double>::infinity();
                            } else {
                                s += (*mask)->getDouble(mi);
                            }
                        }
                        row[j] = s;
                        m = std::max(m, s);
                    }
                    double sum = 0;
                    for (std::int64_t j = 0; j < S; ++j) {
                        row[j] = std::exp(row[j] - m);
                        sum += row[j];
                    }
                    for (std::int64_t j = 0; j < S; ++j)
                        row[j] /= sum;
                }
            TRY(attn, fromDoubleValues(q->dtype, scores->sizes, sv));
            return one(matmulNd(*attn, *v, a.threads));
        });
}

} // namespace etscope::eval
