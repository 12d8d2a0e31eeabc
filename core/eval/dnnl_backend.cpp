// oneDNN backend of the float32 convolution and matrix products: the library (and version) Debian's
// PyTorch runs its CPU convolutions and GEMMs on, with runtime dispatch to the machine's vector
// units (SSE4.1 to AVX-512), so the build stays portable. Compiled only with ETSCOPE_HAVE_DNNL;
// otherwise every entry point reports "not available" and the Eigen kernels run.

#include "eval/kernels.h"

#include <fmt/format.h>

#ifdef ETSCOPE_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>

#include <dlfcn.h>
#endif

namespace etscope::eval {

#ifdef ETSCOPE_HAVE_DNNL

namespace {

dnnl::engine &cpuEngine()
{
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

void setThreads(int threads)
{
    // Thread-local in OpenMP: a GUI worker and the CLI each keep their own count.
    // oneDNN's threads are OpenMP threads of the runtime libdnnl loads (looked up, not linked,
    // so that the build needs no OpenMP flags).
    using SetThreads = void (*)(int);
    static const auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    thread_local int current = -1;
    if (set && threads > 0 && threads != current) {
        set(threads);
        current = threads;
    }
}

using dnnl::memory;

memory::dims dims(const std::vector<std::int64_t> &v)
{
    return memory::dims(v.begin(), v.end());
}

memory::format_tag plainTag(int rank)
{
    switch (rank) {
    case 3:
        return memory::format_tag::ncw;
    case 4:
        return memory::format_tag::nchw;
    default:
        return memory::format_tag::ncdhw;
    }
}

memory::format_tag weightTag(int rank, bool grouped)
{
    switch (rank) {
    case 3:
        return grouped ? memory::format_tag::goiw : memory::format_tag::oiw;
    case 4:
        return grouped ? memory::format_tag::goihw : memory::format_tag::oihw;
    default:
        return grouped ? memory::format_tag::goidhw : memory::format_tag::oidhw;
    }
}

} // namespace

bool dnnlAvailable()
{
    return true;
}

Result<Tensor> dnnlConvolution(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
    const std::vector<std::int64_t> &stride, const std::vector<std::int64_t> &padding,
    const std::vector<std::int64_t> &dilation, std::int64_t groups, int threads)
{
    const int rank = input.dim();
    const int sd = rank - 2;
    const std::int64_t N = input.sizes[0], C = input.sizes[1], Cout = weight.sizes[0];
    if (groups <= 0 || C % groups || Cout % groups || weight.sizes[1] != C / groups)
        return kernelError(fmt::format("convolution: input has {} channels, weight [{}] with groups={}", C,
            fmt::join(weight.sizes, ", "), groups));
    if (bias && bias->numel() != Cout)
        return kernelError("convolution: bias size differs from output channels");
    std::vector<std::int64_t> outSizes { N, Cout };
    memory::dims st, dl, pl, pr;
    for (int d = 0; d < sd; ++d) {
        const std::int64_t in = input.sizes[std::size_t(d + 2)], k = weight.sizes[std::size_t(d + 2)];
        const std::int64_t s = stride[std::size_t(d)], p = padding[std::size_t(d)], di = dilation[std::size_t(d)];
        if (s <= 0 || di <= 0 || p < 0)
            return kernelError("convolution: stride and dilation must be positive, padding non-negative");
        const std::int64_t o = (in + 2 * p - di * (k - 1) - 1) / s + 1;
        if (in + 2 * p - di * (k - 1) - 1 < 0 || o <= 0)
            return kernelError("convolution: kernel larger than the padded input");
        outSizes.push_back(o);
        st.push_back(s);
        dl.push_back(di - 1); // oneDNN counts the gaps
        pl.push_back(p);
        pr.push_back(p); // oneDNN floors the output size as torch does
    }
    ETSCOPE_EVAL_TRY(out, makeTensor(ScalarType::Float, outSizes));
    std::vector<float> hi, hw, hb;
    const float *x = floatsOf(input, hi), *w = floatsOf(weight, hw);
    const float *b = bias ? floatsOf(*bias, hb) : nullptr;
    try {
        setThreads(threads);
        dnnl::engine &eng = cpuEngine();
        dnnl::stream strm(eng);
        const bool grouped = groups > 1;
        std::vector<std::int64_t> wsz = weight.sizes;
        if (grouped) {
            wsz[0] = Cout / groups;
            wsz.insert(wsz.begin(), groups);
        }
        const memory::desc srcUser(dims(input.sizes), memory::data_type::f32, plainTag(rank));
        const memory::desc weiUser(dims(wsz), memory::data_type::f32, weightTag(rank, grouped));
        const memory::desc dstUser(dims(outSizes), memory::data_type::f32, plainTag(rank));
        const memory::desc srcAny(dims(input.sizes), memory::data_type::f32, memory::format_tag::any);
        const memory::desc weiAny(dims(wsz), memory::data_type::f32, memory::format_tag::any);
        const memory::desc dstAny(dims(outSizes), memory::data_type::f32, memory::format_tag::any);
        const memory::desc biasMd({ Cout }, memory::data_type::f32, memory::format_tag::x);
        auto desc = b ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                        dnnl::algorithm::convolution_direct, srcAny, weiAny, biasMd, dstAny, st, dl, pl, pr)
                      : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                          dnnl::algorithm::convolution_direct, srcAny, weiAny, dstAny, st, dl, pl, pr);
        dnnl::convolution_forward::primitive_desc pd(desc, eng);

        // oneDNN only reads its inputs; the const_casts never write.
        memory srcMem(srcUser, eng, const_cast<float *>(x));
        memory weiMem(weiUser, eng, const_cast<float *>(w));
        memory dstMem(dstUser, eng, out->mutableData<float>());
        memory src = srcMem, wei = weiMem, dst = dstMem;
        if (pd.src_desc() != srcUser) {
            src = memory(pd.src_desc(), eng);
            dnnl::reorder(srcMem, src).execute(strm, srcMem, src);
        }
        if (pd.weights_desc() != weiUser) {
            wei = memory(pd.weights_desc(), eng);
            dnnl::reorder(weiMem, wei).execute(strm, weiMem, wei);
        }
        if (pd.dst_desc() != dstUser)
            dst = memory(pd.dst_desc(), eng);
        std::unordered_map<int, memory> args { { DNNL_ARG_SRC, src }, { DNNL_ARG_WEIGHTS, wei },
            { DNNL_ARG_DST, dst } };
        if (b)
            args.emplace(DNNL_ARG_BIAS, memory(biasMd, eng, const_cast<float *>(b)));
        dnnl::convolution_forward(pd).execute(strm, args);
        if (pd.dst_desc() != dstUser)
            dnnl::reorder(dst, dstMem).execute(strm, dst, dstMem);
        strm.wait();
    } catch (const dnnl::error &e) {
        return kernelError(fmt::format("convolution (oneDNN): {}", e.what()));
    }
    return out;
}

bool dnnlGemm(const float *A, const float *B, float *C, std::int64_t m, std::int64_t k, std::int64_t n, int threads,
    bool accumulate, std::int64_t lda, std::int64_t ldb, bool transB)
{
    setThreads(threads);
    return dnnl_sgemm('N', transB ? 'T' : 'N', m, n, k, 1.0f, A, lda, B, ldb, accumulate ? 1.0f : 0.0f, C, n)
        == dnnl_success;
}

#else

bool dnnlAvailable()
{
    return false;
}

Result<Tensor> dnnlConvolution(const Tensor &, const Tensor &, const std::optional<Tensor> &,
    const std::vector<std::int64_t> &, const std::vector<std::int64_t> &, const std::vector<std::int64_t> &,
    std::int64_t, int)
{
    return kernelError("convolution: this build has no oneDNN");
}

bool dnnlGemm(const float *, const float *, float *, std::int64_t, std::int64_t, std::int64_t, int, bool, std::int64_t,
    std::int64_t, bool)
{
    return false;
}

#endif

} // namespace etscope::eval
