#pragma once

// Internal: the kernel registry and the helpers kernels share (argument access, dtype rules,
// element conversion, broadcasting, threading). Kernels follow PyTorch CPU semantics.

#include "eval/evaluator.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace etscope::eval {

// Arguments of one node, by schema name (the serializer names every argument) with a
// positional fallback.
class KernelArgs
{
public:
    std::vector<std::string> names;
    std::vector<Value> values;
    int threads = 1;

    const Value *find(int index, const char *name) const;
    bool has(int index, const char *name) const
    {
        const Value *v = find(index, name);
        return v && !v->isNone();
    }
    Result<Tensor> tensor(int index, const char *name) const;
    Result<std::optional<Tensor>> optTensor(int index, const char *name) const;
    Result<std::vector<std::optional<Tensor>>> tensorList(int index, const char *name) const;
    Result<std::int64_t> integer(int index, const char *name, std::optional<std::int64_t> def = std::nullopt) const;
    Result<double> number(int index, const char *name, std::optional<double> def = std::nullopt) const;
    Result<bool> boolean(int index, const char *name, std::optional<bool> def = std::nullopt) const;
    // Int list; a single int is expanded to `expand` copies when expand > 0.
    Result<std::vector<std::int64_t>> ints(
        int index, const char *name, std::optional<std::vector<std::int64_t>> def = std::nullopt, int expand = 0) const;
    Result<std::optional<ScalarType>> dtype(int index, const char *name) const;
    // A Scalar argument: its value and whether it was a Python float (for type promotion).
    struct Scalar {
        double d = 0;
        std::int64_t i = 0;
        bool isFloat = false;
        bool isBool = false;
    };
    Result<Scalar> scalar(int index, const char *name, std::optional<double> def = std::nullopt) const;
};

using KernelFn = std::function<Result<std::vector<Tensor>>(const KernelArgs &)>;

// Arguments an operator updates in place (its schema's Tensor(a!) inputs other than `self`):
// its kernel returns their new values after the graph outputs, in this order.
const std::vector<std::string> &mutatedArguments(const std::string &key);

// Registers `fn` under every listed key ("aten.add.Tensor", ...).
void registerKernel(std::initializer_list<const char *> keys, KernelFn fn);
const KernelFn *findKernel(const std::string &key);

// Kernel families (each kernels_*.cpp); called once by the registry.
void registerElementwiseKernels();
void registerShapeKernels();
void registerReductionKernels();
void registerNnKernels();
void registerQuantKernels(); // quantized_decomposed, torchao affine ops, repeat_interleave.Tensor
void registerIndexKernels();
void registerModelKernels();

// ---- errors
inline Error kernelError(std::string reason)
{
    return makeError(ErrorCode::InvalidArgument, {}, std::move(reason));
}

// ---- dtypes
enum class Category { Bool, Int, Float };
Category category(ScalarType t);
bool isIntegral(ScalarType t); // ints (not bool)
ScalarType promote(ScalarType a, ScalarType b);
// Result dtype of tensor ⊕ tensor: 0-d tensors take part only if they raise the category.
ScalarType promoteTensors(const Tensor &a, const Tensor &b);
// Result dtype of tensor ⊕ Python scalar.
ScalarType promoteScalar(ScalarType t, const KernelArgs::Scalar &s);
ScalarType defaultFloat();

// Round-trips through a storage dtype (half, bfloat16, ints wrap as torch's casts do).
float halfBitsToFloat(std::uint16_t h);
std::uint16_t floatToHalfBits(float f);
float bf16BitsToFloat(std::uint16_t h);
std::uint16_t floatToBf16Bits(float f);
void storeDouble(ScalarType t, std::uint8_t *p, double v);
void storeInt(ScalarType t, std::uint8_t *p, std::int64_t v);

// Converted copies (contiguous); float32 inputs are not copied by floatsOf when possible.
std::vector<double> toDoubles(const Tensor &t);
std::vector<std::int64_t> toInts(const Tensor &t);
// Float32 view: the data itself for float32, a converted copy otherwise (kept in `hold`).
const float *floatsOf(const Tensor &t, std::vector<float> &hold);
Result<Tensor> cast(const Tensor &t, ScalarType to);
// A tensor of dtype `to` from doubles / ints (rounded / wrapped to the dtype).
Result<Tensor> fromDoubleValues(ScalarType to, std::vector<std::int64_t> sizes, const std::vector<double> &v);
Result<Tensor> fromIntValues(ScalarType to, std::vector<std::int64_t> sizes, const std::vector<std::int64_t> &v);
Result<Tensor> makeTensor(ScalarType to, std::vector<std::int64_t> sizes); // zero-filled
// Elements left unset: for kernels that write every one of them.
Result<Tensor> uninitTensor(ScalarType to, std::vector<std::int64_t> sizes);

// ---- shapes
// Element limit of the evaluation running on this thread (EvalOptions::maxElements).
std::int64_t elementLimit();
struct ElementLimitScope {
    explicit ElementLimitScope(std::int64_t limit);
    ~ElementLimitScope();
    std::int64_t previous;
};
// Rejects spatial parameters (stride, padding, dilation, kernel sizes, pads) whose arithmetic
// could overflow: each must satisfy |v| <= 2^31.
Status checkParams(std::initializer_list<std::int64_t> values, const char *what);
Result<std::int64_t> checkedNumel(const std::vector<std::int64_t> &sizes);
Result<int> wrapDim(std::int64_t dim, int rank); // rank 0 accepts -1/0 like torch
Result<std::vector<std::int64_t>> broadcastShapes(
    const std::vector<std::int64_t> &a, const std::vector<std::int64_t> &b);
// Element strides of `from` broadcast to `to` (0 on broadcast dims).
std::vector<std::int64_t> broadcastStrides(const std::vector<std::int64_t> &from, const std::vector<std::int64_t> &to);
std::vector<std::int64_t> contiguousStrides(const std::vector<std::int64_t> &sizes);
// Copies a strided view of `src` (element strides, offset) into a new contiguous tensor.
Result<Tensor> gatherStrided(const Tensor &src, const std::vector<std::int64_t> &sizes,
    const std::vector<std::int64_t> &strides, std::int64_t offset);
Tensor reshaped(const Tensor &t, std::vector<std::int64_t> sizes); // same numel, shares storage

// ---- threads
int hardwareThreads();
// Thread count of the evaluation running on this thread (EvalOptions::threads), for helpers
// that take no KernelArgs (gatherStrided).
int evalThreads();
struct EvalThreadsScope {
    explicit EvalThreadsScope(int threads);
    ~EvalThreadsScope();
    int previous;
};
// Runs fn(begin, end) over [0, n) in up to `threads` chunks of at least `grain` items.
void parallelFor(
    std::int64_t n, int threads, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)> &fn);

// ---- oneDNN (dnnl_backend.cpp); without it dnnlAvailable() is false and the Eigen kernels run.
// The environment variable ETSCOPE_NO_DNNL=1 (read once) turns oneDNN off in a build that has it,
// so that one build can run and test both paths (the same operators, the same results within
// float rounding).
bool dnnlAvailable();
// Float32 convolution of a [N, C, (D,) (H,) W] input (1-, 2- or 3-d), torch's conventions.
Result<Tensor> dnnlConvolution(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
    const std::vector<std::int64_t> &stride, const std::vector<std::int64_t> &padding,
    const std::vector<std::int64_t> &dilation, std::int64_t groups, int threads);
// Frees this thread's buffers for the blocked copies of convolutions if they are large (after a run).
void dnnlTrimScratch();
// Row-major C[m x n] = A[m x k] * B (+ C when accumulate); B is [k x n] (ldb) or, transposed, [n x k].
bool dnnlGemm(const float *A, const float *B, float *C, std::int64_t m, std::int64_t k, std::int64_t n, int threads,
    bool accumulate, std::int64_t lda, std::int64_t ldb, bool transB);
// Copies a strided view of 4-byte elements (element strides, all positive, not overlapping) into a
// contiguous row-major `dst`: transposes and permutes by oneDNN's reorder. False when not done.
bool dnnlCopyStrided(const void *src, void *dst, const std::vector<std::int64_t> &sizes,
    const std::vector<std::int64_t> &strides, int threads);

// ---- helpers shared by the kernel families
// A kernel with one output.
inline Result<std::vector<Tensor>> one(Result<Tensor> r)
{
    if (!r)
        return r.error();
    return std::vector<Tensor> { std::move(*r) };
}

} // namespace etscope::eval

// Unwraps a Result into `var` or returns its error from the enclosing kernel.
#define ETSCOPE_EVAL_TRY(var, expr)                                                                                    \
    auto var = (expr);                                                                                                 \
    if (!var)                                                                                                          \
        return var.error();
