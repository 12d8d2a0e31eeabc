// oneDNN backend of the float32 convolution and matrix products: the library (and version) Debian's
// PyTorch runs its CPU convolutions and GEMMs on, with runtime dispatch to the machine's vector
// units (SSE4.1 to AVX-512), so the build stays portable. Compiled only with ETSCOPE_HAVE_DNNL;
// otherwise every entry point reports "not available" and the Eigen kernels run.

#include "eval/kernels.h"

#include <fmt/format.h>

#ifdef ETSCOPE_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
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
    static const bool off = [] {
        const char *v = std::getenv("ETSCOPE_NO_DNNL");
        return v && *v && std::string_view(v) != "0";
    }();
    return !off;
}

namespace {

// One convolution shape, planned once per thread: the primitive and the reorders between torch's
// plain layout and the blocked layout oneDNN picks. Creating these costs more than running the
// smaller convolutions of a network, and a graph repeats its shapes.
struct ConvPlan {
    dnnl::convolution_forward conv;
    memory::desc srcUser, weiUser, dstUser, src, wei, dst;
    std::optional<dnnl::reorder> srcReorder, weiReorder, dstReorder;
};

// Grow-only float buffers for the blocked copies (per thread), so that each convolution does not
// map and fault in fresh pages for them.
struct Scratch {
    std::vector<std::unique_ptr<float[]>> bufs;
    std::vector<std::size_t> sizes;
    void *get(int slot, std::size_t bytes)
    {
        if (bufs.size() <= std::size_t(slot)) {
            bufs.resize(std::size_t(slot) + 1);
            sizes.resize(std::size_t(slot) + 1, 0);
        }
        const std::size_t n = (bytes + sizeof(float) - 1) / sizeof(float);
        if (sizes[std::size_t(slot)] < n) {
            bufs[std::size_t(slot)].reset(); // before the new one: keeps the peak low
            bufs[std::size_t(slot)] = std::make_unique_for_overwrite<float[]>(n);
            sizes[std::size_t(slot)] = n;
        }
        return bufs[std::size_t(slot)].get();
    }
};

struct ThreadState {
    dnnl::stream stream { cpuEngine() };
    std::unordered_map<std::string, std::shared_ptr<const ConvPlan>> convPlans;
    Scratch scratch;
};

ThreadState &threadState()
{
    thread_local ThreadState state;
    return state;
}

std::shared_ptr<const ConvPlan> convPlan(const std::vector<std::int64_t> &inSizes, const std::vector<std::int64_t> &wsz,
    const std::vector<std::int64_t> &outSizes, const memory::dims &st, const memory::dims &dl, const memory::dims &pl,
    bool bias, bool grouped)
{
    std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}", fmt::join(inSizes, ","), fmt::join(wsz, ","),
        fmt::join(st, ","), fmt::join(dl, ","), fmt::join(pl, ","), bias, grouped);
    auto &plans = threadState().convPlans;
    if (auto it = plans.find(key); it != plans.end())
        return it->second;
    dnnl::engine &eng = cpuEngine();
    const int rank = int(inSizes.size());
    auto plan = std::make_shared<ConvPlan>();
    plan->srcUser = memory::desc(dims(inSizes), memory::data_type::f32, plainTag(rank));
    plan->weiUser = memory::desc(dims(wsz), memory::data_type::f32, weightTag(rank, grouped));
    plan->dstUser = memory::desc(dims(outSizes), memory::data_type::f32, plainTag(rank));
    const memory::desc srcAny(dims(inSizes), memory::data_type::f32, memory::format_tag::any);
    const memory::desc weiAny(dims(wsz), memory::data_type::f32, memory::format_tag::any);
    const memory::desc dstAny(dims(outSizes), memory::data_type::f32, memory::format_tag::any);
    const memory::desc biasMd({ outSizes[1] }, memory::data_type::f32, memory::format_tag::x);
    // forward_training, as PyTorch asks for: oneDNN then picks the direct kernels on channel-
    // blocked layouts (nChw16c on AVX-512), whose reorders from and to torch's plain layout are
    // cheap; forward_inference prefers channels-last kernels whose reorders cost about as much
    // as the convolution. The output is the same.
    const auto prop = dnnl::prop_kind::forward_training;
#if DNNL_VERSION_MAJOR >= 3
    // oneDNN 3 (Debian 13) builds the primitive descriptor directly from the shapes.
    const auto pd = bias ? dnnl::convolution_forward::primitive_desc(
                        eng, prop, dnnl::algorithm::convolution_direct, srcAny, weiAny, biasMd, dstAny, st, dl, pl, pl)
                         : dnnl::convolution_forward::primitive_desc(
                             eng, prop, dnnl::algorithm::convolution_direct, srcAny, weiAny, dstAny, st, dl, pl, pl);
#else
    // oneDNN 2 (Debian 12): an operation descriptor first (removed in oneDNN 3), the same shapes.
    auto desc = bias ? dnnl::convolution_forward::desc(
                    prop, dnnl::algorithm::convolution_direct, srcAny, weiAny, biasMd, dstAny, st, dl, pl, pl)
                     : dnnl::convolution_forward::desc(
                         prop, dnnl::algorithm::convolution_direct, srcAny, weiAny, dstAny, st, dl, pl, pl);
    const dnnl::convolution_forward::primitive_desc pd(desc, eng);
#endif
    plan->conv = dnnl::convolution_forward(pd);
    plan->src = pd.src_desc();
    plan->wei = pd.weights_desc();
    plan->dst = pd.dst_desc();
    if (plan->src != plan->srcUser)
        plan->srcReorder = dnnl::reorder(dnnl::reorder::primitive_desc(eng, plan->srcUser, eng, plan->src));
    if (plan->wei != plan->weiUser)
        plan->weiReorder = dnnl::reorder(dnnl::reorder::primitive_desc(eng, plan->weiUser, eng, plan->wei));
    if (plan->dst != plan->dstUser)
        plan->dstReorder = dnnl::reorder(dnnl::reorder::primitive_desc(eng, plan->dst, eng, plan->dstUser));
    if (plans.size() >= 256) // a bound for long sessions over many models
        plans.clear();
    plans.emplace(std::move(key), plan);
    return plan;
}

} // namespace

void dnnlTrimScratch()
{
    Scratch &sc = threadState().scratch;
    std::size_t total = 0;
    for (std::size_t n : sc.sizes)
        total += n * sizeof(float);
    if (total > (std::size_t(64) << 20)) { // kept between runs only when small
        sc.bufs.clear();
        sc.sizes.clear();
    }
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
    memory::dims st, dl, pl;
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
        pl.push_back(p); // the same on the right: oneDNN floors the output size as torch does
    }
    ETSCOPE_EVAL_TRY(out, uninitTensor(ScalarType::Float, outSizes));
    std::vector<float> hi, hw, hb;
    const float *x = floatsOf(input, hi), *w = floatsOf(weight, hw);
    const float *b = bias ? floatsOf(*bias, hb) : nullptr;
    try {
        setThreads(threads);
        dnnl::engine &eng = cpuEngine();
        const bool grouped = groups > 1;
        std::vector<std::int64_t> wsz = weight.sizes;
        if (grouped) {
            wsz[0] = Cout / groups;
            wsz.insert(wsz.begin(), groups);
        }
        const auto plan = convPlan(input.sizes, wsz, outSizes, st, dl, pl, b != nullptr, grouped);
        ThreadState &ts = threadState();
        dnnl::stream &strm = ts.stream;

        // oneDNN only reads its inputs; the const_casts never write.
        memory srcMem(plan->srcUser, eng, const_cast<float *>(x));
        memory weiMem(plan->weiUser, eng, const_cast<float *>(w));
        memory dstMem(plan->dstUser, eng, out->mutableData<float>());
        memory src = srcMem, wei = weiMem, dst = dstMem;
        if (plan->srcReorder) {
            src = memory(plan->src, eng, ts.scratch.get(0, plan->src.get_size()));
            plan->srcReorder->execute(strm, srcMem, src);
        }
        if (plan->weiReorder) {
            wei = memory(plan->wei, eng, ts.scratch.get(1, plan->wei.get_size()));
            plan->weiReorder->execute(strm, weiMem, wei);
        }
        if (plan->dstReorder)
            dst = memory(plan->dst, eng, ts.scratch.get(2, plan->dst.get_size()));
        std::unordered_map<int, memory> args { { DNNL_ARG_SRC, src }, { DNNL_ARG_WEIGHTS, wei },
            { DNNL_ARG_DST, dst } };
        if (b)
            args.emplace(DNNL_ARG_BIAS,
                memory(memory::desc({ Cout }, memory::data_type::f32, memory::format_tag::x), eng,
                    const_cast<float *>(b)));
        plan->conv.execute(strm, args);
        if (plan->dstReorder)
            plan->dstReorder->execute(strm, dst, dstMem);
        strm.wait();
    } catch (const dnnl::error &e) {
        return kernelError(fmt::format("convolution (oneDNN): {}", e.what()));
    }
    return out;
}

bool dnnlGemm(const float *A, const float *B, float *C, std::int64_t m, std::int64_t k, std::int64_t n, int threads,
    bool accumulate, std::int64_t lda, std::int64_t ldb, bool transB)
{
    if (!dnnlAvailable())
        return false;
    setThreads(threads);
    return dnnl_sgemm('N', transB ? 'T' : 'N', m, n, k, 1.0f, A, lda, B, ldb, accumulate ? 1.0f : 0.0f, C, n)
        == dnnl_success;
}

bool dnnlCopyStrided(const void *src, void *dst, const std::vector<std::int64_t> &sizes,
    const std::vector<std::int64_t> &strides, int threads)
{
    if (!dnnlAvailable() || sizes.empty() || sizes.size() > 6 || sizes.size() != strides.size())
        return false;
    try {
        setThreads(threads);
        dnnl::engine &eng = cpuEngine();
        // Moved as 32-bit integers: the bits are copied whatever they mean.
        const memory::desc from(dims(sizes), memory::data_type::s32, dims(strides));
        const memory::desc to(dims(sizes), memory::data_type::s32, dims(contiguousStrides(sizes)));
        memory a(from, eng, const_cast<void *>(src)); // read only
        memory b(to, eng, dst);
        dnnl::reorder(a, b).execute(threadState().stream, a, b);
        threadState().stream.wait();
    } catch (const dnnl::error &) {
        return false;
    }
    return true;
}

#else

void dnnlTrimScratch() { }

bool dnnlCopyStrided(const void *, void *, const std::vector<std::int64_t> &, const std::vector<std::int64_t> &, int)
{
    return false;
}

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
