// Tensor storage, dtype rules and the helpers every kernel family uses.

#include "eval/kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>

namespace etscope::eval {

namespace {

bool supported(ScalarType t)
{
    switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::Bool:
    case ScalarType::BFloat16:
        return true;
    default:
        return false;
    }
}

} // namespace

// ---------------------------------------------------------------- Tensor

std::int64_t Tensor::numel() const
{
    std::int64_t n = 1;
    for (auto s : sizes)
        n *= s;
    return n;
}

std::size_t Tensor::itemSize() const
{
    return elementSize(dtype).value_or(1);
}

double Tensor::getDouble(std::int64_t i) const
{
    const std::uint8_t *p = bytes();
    switch (dtype) {
    case ScalarType::Float:
        return reinterpret_cast<const float *>(p)[i];
    case ScalarType::Double:
        return reinterpret_cast<const double *>(p)[i];
    case ScalarType::Half:
        return halfBitsToFloat(reinterpret_cast<const std::uint16_t *>(p)[i]);
    case ScalarType::BFloat16:
        return bf16BitsToFloat(reinterpret_cast<const std::uint16_t *>(p)[i]);
    default:
        return double(getInt(i));
    }
}

std::int64_t Tensor::getInt(std::int64_t i) const
{
    const std::uint8_t *p = bytes();
    switch (dtype) {
    case ScalarType::Byte:
        return p[i];
    case ScalarType::Char:
        return reinterpret_cast<const std::int8_t *>(p)[i];
    case ScalarType::Short:
        return reinterpret_cast<const std::int16_t *>(p)[i];
    case ScalarType::Int:
        return reinterpret_cast<const std::int32_t *>(p)[i];
    case ScalarType::Long:
        return reinterpret_cast<const std::int64_t *>(p)[i];
    case ScalarType::Bool:
        return p[i] != 0;
    default: {
        const double d = getDouble(i);
        if (!(d == d) || d >= 9.2e18 || d <= -9.2e18)
            return std::numeric_limits<std::int64_t>::min();
        return std::int64_t(d); // truncation, as torch's float -> int casts
    }
    }
}

Result<Tensor> Tensor::zeros(ScalarType dtype, std::vector<std::int64_t> sizes)
{
    return makeTensor(dtype, std::move(sizes));
}

Tensor Tensor::scalarDouble(ScalarType dtype, double v)
{
    Tensor t = *makeTensor(dtype, {});
    storeDouble(dtype, t.mutableBytes(), v);
    return t;
}

Tensor Tensor::fromFloats(std::vector<std::int64_t> sizes, const std::vector<float> &values)
{
    Tensor t;
    t.dtype = ScalarType::Float;
    t.sizes = std::move(sizes);
    t.storage = std::make_shared<Storage>(values.size() * 4);
    if (!values.empty())
        std::memcpy(t.storage->data(), values.data(), values.size() * 4);
    return t;
}

Tensor Tensor::fromDoubles(ScalarType dtype, std::vector<std::int64_t> sizes, const std::vector<double> &values)
{
    auto r = fromDoubleValues(dtype, std::move(sizes), values);
    return r ? *r : Tensor {};
}

Result<Tensor> makeTensor(ScalarType to, std::vector<std::int64_t> sizes)
{
    auto t = uninitTensor(to, std::move(sizes));
    if (t && t->storage && !t->storage->empty())
        std::memset(t->storage->data(), 0, t->storage->size());
    return t;
}

Result<Tensor> uninitTensor(ScalarType to, std::vector<std::int64_t> sizes)
{
    if (!supported(to))
        return makeError(ErrorCode::Unsupported, {}, fmt::format("dtype {} is not supported", scalarTypeName(to)));
    auto n = checkedNumel(sizes);
    if (!n)
        return n.error();
    Tensor t;
    t.dtype = to;
    t.sizes = std::move(sizes);
    t.storage = std::make_shared<Storage>(std::size_t(*n) * t.itemSize());
    return t;
}

namespace {
thread_local std::int64_t t_limit = kMaxElements;
thread_local int t_threads = 0;
} // namespace

int evalThreads()
{
    return t_threads > 0 ? t_threads : hardwareThreads();
}

EvalThreadsScope::EvalThreadsScope(int threads)
    : previous(t_threads)
{
    t_threads = threads;
}

EvalThreadsScope::~EvalThreadsScope()
{
    t_threads = previous;
}

std::int64_t elementLimit()
{
    return t_limit;
}

ElementLimitScope::ElementLimitScope(std::int64_t limit)
    : previous(t_limit)
{
    t_limit = std::min(std::max<std::int64_t>(limit, 1), kMaxElements);
}

ElementLimitScope::~ElementLimitScope()
{
    t_limit = previous;
}

Status checkParams(std::initializer_list<std::int64_t> values, const char *what)
{
    for (auto v : values)
        if (v > (std::int64_t(1) << 31) || v < -(std::int64_t(1) << 31))
            return makeError(ErrorCode::LimitExceeded, {}, fmt::format("{}: value {} is out of range", what, v));
    return Ok {};
}

Result<std::int64_t> checkedNumel(const std::vector<std::int64_t> &sizes)
{
    const std::int64_t kMaxElements = t_limit;
    std::int64_t n = 1;
    for (auto s : sizes) {
        if (s < 0)
            return makeError(ErrorCode::InvalidArgument, {}, fmt::format("negative size {}", s));
        if (s > 0 && n > kMaxElements / s)
            return makeError(ErrorCode::LimitExceeded, {},
                fmt::format("tensor of shape [{}] exceeds the {} element limit", fmt::join(sizes, ", "), kMaxElements));
        n *= s;
    }
    if (n > kMaxElements)
        return makeError(ErrorCode::LimitExceeded, {}, "tensor exceeds the element limit");
    return n;
}

// ---------------------------------------------------------------- Values

Value Value::ofTensor(Tensor t)
{
    Value v;
    v.kind = Kind::Tensor;
    v.tensor = std::move(t);
    return v;
}
Value Value::ofInt(std::int64_t x)
{
    Value v;
    v.kind = Kind::Int;
    v.i = x;
    return v;
}
Value Value::ofDouble(double x)
{
    Value v;
    v.kind = Kind::Double;
    v.d = x;
    return v;
}
Value Value::ofBool(bool x)
{
    Value v;
    v.kind = Kind::Bool;
    v.b = x;
    return v;
}

std::string Value::describe() const
{
    switch (kind) {
    case Kind::None:
        return "None";
    case Kind::Tensor:
        return fmt::format("tensor({}, [{}])", scalarTypeName(tensor.dtype), fmt::join(tensor.sizes, ", "));
    case Kind::TensorList:
        return fmt::format("list of {} tensors", tensors.size());
    case Kind::Int:
        return std::to_string(i);
    case Kind::Double:
        return fmt::format("{}", d);
    case Kind::Bool:
        return b ? "True" : "False";
    case Kind::IntList:
        return fmt::format("[{}]", fmt::join(ints, ", "));
    case Kind::DoubleList:
        return fmt::format("[{}]", fmt::join(doubles, ", "));
    case Kind::BoolList:
        return fmt::format("{} bools", bools.size());
    case Kind::String:
        return str;
    case Kind::Dtype:
        return std::string(scalarTypeName(dtype));
    case Kind::Other:
        return str;
    }
    return "?";
}

// ---------------------------------------------------------------- dtypes

Category category(ScalarType t)
{
    if (t == ScalarType::Bool)
        return Category::Bool;
    return isFloatingPoint(t) ? Category::Float : Category::Int;
}

bool isIntegral(ScalarType t)
{
    return category(t) == Category::Int;
}

ScalarType defaultFloat()
{
    return ScalarType::Float;
}

namespace {
int intRank(ScalarType t)
{
    switch (t) {
    case ScalarType::Byte:
        return 1;
    case ScalarType::Char:
        return 1;
    case ScalarType::Short:
        return 2;
    case ScalarType::Int:
        return 3;
    default:
        return 4;
    }
}
int floatRank(ScalarType t)
{
    switch (t) {
    case ScalarType::Half:
    case ScalarType::BFloat16:
        return 1;
    case ScalarType::Float:
        return 2;
    default:
        return 3;
    }
}
} // namespace

ScalarType promote(ScalarType a, ScalarType b)
{
    if (a == b)
        return a;
    const Category ca = category(a), cb = category(b);
    if (ca != cb)
        return ca > cb ? a : b;
    if (ca == Category::Int) {
        if ((a == ScalarType::Byte && b == ScalarType::Char) || (a == ScalarType::Char && b == ScalarType::Byte))
            return ScalarType::Short;
        return intRank(a) >= intRank(b) ? a : b;
    }
    if (ca == Category::Float) {
        if (floatRank(a) == 1 && floatRank(b) == 1)
            return ScalarType::Float; // half + bfloat16
        return floatRank(a) >= floatRank(b) ? a : b;
    }
    return a;
}

ScalarType promoteTensors(const Tensor &a, const Tensor &b)
{
    const bool za = a.dim() == 0, zb = b.dim() == 0;
    if (za == zb)
        return promote(a.dtype, b.dtype);
    // A 0-d tensor counts like a scalar: only a higher category changes the result.
    const Tensor &dimmed = za ? b : a;
    const Tensor &zero = za ? a : b;
    if (category(zero.dtype) > category(dimmed.dtype))
        return zero.dtype;
    return dimmed.dtype;
}

ScalarType promoteScalar(ScalarType t, const KernelArgs::Scalar &s)
{
    const Category sc = s.isFloat ? Category::Float : s.isBool ? Category::Bool : Category::Int;
    if (sc <= category(t))
        return t;
    return sc == Category::Float ? defaultFloat() : ScalarType::Long;
}

float halfBitsToFloat(std::uint16_t h)
{
    return float(halfToDouble(h));
}

std::uint16_t floatToHalfBits(float f)
{
    const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    std::uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) // inf or nan
        return std::uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
    if (absx >= 0x477ff000u) // rounds to >= 65520: inf
        return std::uint16_t(sign | 0x7c00u);
    if (absx < 0x38800000u) { // subnormal half (or zero)
        const float a = std::bit_cast<float>(absx);
        // Multiply by 2^24 to get the subnormal mantissa, round half to even.
        const float scaled = a * 16777216.0f;
        const auto m = std::uint32_t(std::nearbyint(scaled));
        return std::uint16_t(sign | m);
    }
    // Normal: rebias exponent, round mantissa to 10 bits (nearest even).
    const std::uint32_t mantOdd = (absx >> 13) & 1u;
    absx += 0xfffu + mantOdd;
    absx -= (112u << 23);
    return std::uint16_t(sign | (absx >> 13));
}

float bf16BitsToFloat(std::uint16_t h)
{
    return std::bit_cast<float>(std::uint32_t(h) << 16);
}

std::uint16_t floatToBf16Bits(float f)
{
    std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return std::uint16_t((x >> 16) | 0x40u); // quiet nan
    x += 0x7fffu + ((x >> 16) & 1u);
    return std::uint16_t(x >> 16);
}

namespace {
// float -> int as torch does on CPU for in-range values (truncation); out of range is UB in
// C++, so it is clamped to a fixed pattern instead of crashing under UBSan.
std::int64_t truncToInt(double v)
{
    if (!(v == v))
        return std::numeric_limits<std::int64_t>::min();
    if (v >= 9.223372036854775807e18)
        return std::numeric_limits<std::int64_t>::min();
    if (v <= -9.223372036854775808e18)
        return std::numeric_limits<std::int64_t>::min();
    return std::int64_t(v);
}
} // namespace

void storeDouble(ScalarType t, std::uint8_t *p, double v)
{
    switch (t) {
    case ScalarType::Float: {
        const float f = float(v);
        std::memcpy(p, &f, 4);
        return;
    }
    case ScalarType::Double:
        std::memcpy(p, &v, 8);
        return;
    case ScalarType::Half: {
        const std::uint16_t h = floatToHalfBits(float(v));
        std::memcpy(p, &h, 2);
        return;
    }
    case ScalarType::BFloat16: {
        const std::uint16_t h = floatToBf16Bits(float(v));
        std::memcpy(p, &h, 2);
        return;
    }
    case ScalarType::Bool:
        *p = v != 0 ? 1 : 0;
        return;
    default:
        storeInt(t, p, truncToInt(v));
        return;
    }
}

void storeInt(ScalarType t, std::uint8_t *p, std::int64_t v)
{
    switch (t) {
    case ScalarType::Byte:
        *p = std::uint8_t(std::uint64_t(v));
        return;
    case ScalarType::Char: {
        const auto x = std::int8_t(std::uint8_t(std::uint64_t(v)));
        std::memcpy(p, &x, 1);
        return;
    }
    case ScalarType::Short: {
        const auto x = std::int16_t(std::uint16_t(std::uint64_t(v)));
        std::memcpy(p, &x, 2);
        return;
    }
    case ScalarType::Int: {
        const auto x = std::int32_t(std::uint32_t(std::uint64_t(v)));
        std::memcpy(p, &x, 4);
        return;
    }
    case ScalarType::Long:
        std::memcpy(p, &v, 8);
        return;
    case ScalarType::Bool:
        *p = v != 0 ? 1 : 0;
        return;
    default:
        storeDouble(t, p, double(v));
        return;
    }
}

std::vector<double> toDoubles(const Tensor &t)
{
    const std::int64_t n = t.numel();
    std::vector<double> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    if (t.dtype == ScalarType::Float) {
        const float *f = t.data<float>();
        for (std::int64_t i = 0; i < n; ++i)
            out[std::size_t(i)] = f[i];
    } else {
        for (std::int64_t i = 0; i < n; ++i)
            out[std::size_t(i)] = t.getDouble(i);
    }
    return out;
}

std::vector<std::int64_t> toInts(const Tensor &t)
{
    const std::int64_t n = t.numel();
    std::vector<std::int64_t> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    for (std::int64_t i = 0; i < n; ++i)
        out[std::size_t(i)] = t.getInt(i);
    return out;
}

const float *floatsOf(const Tensor &t, std::vector<float> &hold)
{
    if (t.dtype == ScalarType::Float)
        return t.data<float>();
    const std::int64_t n = t.numel();
    hold.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i)
        hold[std::size_t(i)] = float(t.getDouble(i));
    return hold.data();
}

Result<Tensor> cast(const Tensor &t, ScalarType to)
{
    if (t.dtype == to)
        return t;
    auto out = uninitTensor(to, t.sizes);
    if (!out)
        return out.error();
    const std::int64_t n = t.numel();
    const std::size_t es = out->itemSize();
    std::uint8_t *p = out->mutableBytes();
    if (category(t.dtype) == Category::Float)
        for (std::int64_t i = 0; i < n; ++i)
            storeDouble(to, p + std::size_t(i) * es, t.getDouble(i));
    else
        for (std::int64_t i = 0; i < n; ++i)
            storeInt(to, p + std::size_t(i) * es, t.getInt(i));
    return out;
}

Result<Tensor> fromDoubleValues(ScalarType to, std::vector<std::int64_t> sizes, const std::vector<double> &v)
{
    auto out = uninitTensor(to, std::move(sizes));
    if (!out)
        return out.error();
    if (std::int64_t(v.size()) != out->numel())
        return kernelError("value count does not match the shape");
    const std::size_t es = out->itemSize();
    std::uint8_t *p = out->mutableBytes();
    if (to == ScalarType::Float) {
        float *f = out->mutableData<float>();
        for (std::size_t i = 0; i < v.size(); ++i)
            f[i] = float(v[i]);
    } else {
        for (std::size_t i = 0; i < v.size(); ++i)
            storeDouble(to, p + i * es, v[i]);
    }
    return out;
}

Result<Tensor> fromIntValues(ScalarType to, std::vector<std::int64_t> sizes, const std::vector<std::int64_t> &v)
{
    auto out = uninitTensor(to, std::move(sizes));
    if (!out)
        return out.error();
    if (std::int64_t(v.size()) != out->numel())
        return kernelError("value count does not match the shape");
    const std::size_t es = out->itemSize();
    std::uint8_t *p = out->mutableBytes();
    for (std::size_t i = 0; i < v.size(); ++i)
        storeInt(to, p + i * es, v[i]);
    return out;
}

// ---------------------------------------------------------------- shapes

Result<int> wrapDim(std::int64_t dim, int rank)
{
    const int r = std::max(rank, 1);
    if (dim < -r || dim >= r)
        return kernelError(fmt::format("dimension {} out of range for a {}-d tensor", dim, rank));
    return int(dim < 0 ? dim + r : dim);
}

Result<std::vector<std::int64_t>> broadcastShapes(
    const std::vector<std::int64_t> &a, const std::vector<std::int64_t> &b)
{
    const std::size_t n = std::max(a.size(), b.size());
    std::vector<std::int64_t> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
        const std::int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
        if (x != y && x != 1 && y != 1)
            return kernelError(
                fmt::format("shapes [{}] and [{}] do not broadcast", fmt::join(a, ", "), fmt::join(b, ", ")));
        out[i] = x == 1 ? y : x;
    }
    return out;
}

std::vector<std::int64_t> contiguousStrides(const std::vector<std::int64_t> &sizes)
{
    std::vector<std::int64_t> s(sizes.size());
    std::int64_t acc = 1;
    for (std::size_t i = sizes.size(); i-- > 0;) {
        s[i] = acc;
        acc *= std::max<std::int64_t>(sizes[i], 1);
    }
    return s;
}

std::vector<std::int64_t> broadcastStrides(const std::vector<std::int64_t> &from, const std::vector<std::int64_t> &to)
{
    std::vector<std::int64_t> out(to.size(), 0);
    const auto cs = contiguousStrides(from);
    const std::size_t lead = to.size() - from.size();
    for (std::size_t i = 0; i < from.size(); ++i)
        out[lead + i] = from[i] == 1 ? 0 : cs[i];
    return out;
}

namespace {

// Positive strides addressing each element once (dims of size 1 aside).
bool nonOverlapping(const std::vector<std::int64_t> &sizes, const std::vector<std::int64_t> &strides)
{
    std::vector<std::pair<std::int64_t, std::int64_t>> dims; // stride, size
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] == 1)
            continue;
        if (strides[d] <= 0)
            return false;
        dims.emplace_back(strides[d], sizes[d]);
    }
    std::sort(dims.begin(), dims.end());
    for (std::size_t k = 1; k < dims.size(); ++k)
        if (dims[k].first < dims[k - 1].first * dims[k - 1].second)
            return false;
    return true;
}

} // namespace

Result<Tensor> gatherStrided(const Tensor &src, const std::vector<std::int64_t> &sizes,
    const std::vector<std::int64_t> &strides, std::int64_t offset)
{
    auto out = uninitTensor(src.dtype, sizes);
    if (!out)
        return out.error();
    const std::int64_t n = out->numel();
    if (n == 0)
        return out;
    // Bounds: the largest reachable element must exist in src.
    std::int64_t lo = offset, hi = offset;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        const std::int64_t span = (sizes[d] - 1) * strides[d];
        (span < 0 ? lo : hi) += span;
    }
    if (lo < 0 || hi >= src.numel())
        return kernelError("view outside its source tensor");
    const std::size_t es = src.itemSize();
    const std::uint8_t *in = src.bytes();
    std::uint8_t *o = out->mutableBytes();
    const int rank = int(sizes.size());
    if (rank == 0) {
        std::memcpy(o, in + std::size_t(offset) * es, es);
        return out;
    }
    if (es == 4 && n >= 4096 && strides.back() != 1 && nonOverlapping(sizes, strides)
        && dnnlCopyStrided(in + std::size_t(offset) * es, o, sizes, strides, evalThreads()))
        return out; // a transpose or permutation: oneDNN's reorder, cache-blocked and threaded
    if (rank == 2 && es == 4 && strides[0] == 1 && strides[1] != 1) {
        // A transpose: in tiles, so that both sides stay in cache.
        const auto *s4 = reinterpret_cast<const std::uint32_t *>(in) + offset;
        auto *d4 = reinterpret_cast<std::uint32_t *>(o);
        const std::int64_t rows = sizes[0], cols = sizes[1], cs = strides[1];
        constexpr std::int64_t kTile = 32;
        for (std::int64_t r0 = 0; r0 < rows; r0 += kTile)
            for (std::int64_t c0 = 0; c0 < cols; c0 += kTile) {
                const std::int64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
                for (std::int64_t c = c0; c < c1; ++c)
                    for (std::int64_t r = r0; r < r1; ++r)
                        d4[r * cols + c] = s4[r + c * cs];
            }
        return out;
    }
    // Copy rows along the last dimension.
    const std::int64_t inner = sizes.back(), innerStride = strides.back();
    const std::int64_t rows = n / inner;
    std::vector<std::int64_t> idx(std::size_t(rank), 0);
    std::size_t w = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        std::int64_t base = offset;
        for (int d = 0; d < rank - 1; ++d)
            base += idx[std::size_t(d)] * strides[std::size_t(d)];
        if (innerStride == 1) {
            std::memcpy(o + w, in + std::size_t(base) * es, std::size_t(inner) * es);
            w += std::size_t(inner) * es;
        } else if (es == 4) {
            const auto *s4 = reinterpret_cast<const std::uint32_t *>(in);
            auto *d4 = reinterpret_cast<std::uint32_t *>(o + w);
            for (std::int64_t k = 0; k < inner; ++k)
                d4[k] = s4[base + k * innerStride];
            w += std::size_t(inner) * 4;
        } else {
            for (std::int64_t k = 0; k < inner; ++k, w += es)
                std::memcpy(o + w, in + std::size_t(base + k * innerStride) * es, es);
        }
        for (int d = rank - 2; d >= 0; --d) {
            if (++idx[std::size_t(d)] < sizes[std::size_t(d)])
                break;
            idx[std::size_t(d)] = 0;
        }
    }
    return out;
}

Tensor reshaped(const Tensor &t, std::vector<std::int64_t> sizes)
{
    Tensor r = t;
    r.sizes = std::move(sizes);
    return r;
}

// ---------------------------------------------------------------- threads

int hardwareThreads()
{
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : int(std::min(n, 64u));
}

namespace {

// One parallelFor call: chunks are taken in turn by the caller and by whichever pool threads get
// to it. The caller waits only for chunks already taken, so a helper that the scheduler has not
// woken yet (a busy machine) costs nothing: the caller runs its share too.
struct ParallelJob {
    const std::function<void(std::int64_t, std::int64_t)> *fn = nullptr;
    std::int64_t n = 0, chunk = 1, chunks = 0;
    std::atomic<std::int64_t> next { 0 }, done { 0 };
    std::mutex m;
    std::condition_variable cv;

    void run()
    {
        for (;;) {
            const std::int64_t c = next.fetch_add(1);
            if (c >= chunks)
                return;
            (*fn)(c * chunk, std::min(n, (c + 1) * chunk));
            if (done.fetch_add(1) + 1 == chunks) {
                std::lock_guard lock(m);
                cv.notify_all();
            }
        }
    }
};

// Worker threads started on first use and kept (never joined: they outlive every caller).
class ThreadPool
{
public:
    static ThreadPool &instance()
    {
        static auto *pool = new ThreadPool; // NOLINT(cppcoreguidelines-owning-memory): lives as long as the process
        return *pool;
    }

    void post(const std::shared_ptr<ParallelJob> &job, int helpers)
    {
        {
            std::lock_guard lock(m_mutex);
            while (int(m_threads) < helpers) {
                std::thread([this] { work(); }).detach();
                ++m_threads;
            }
            for (int k = 0; k < helpers; ++k)
                m_queue.push_back(job);
        }
        if (helpers == 1)
            m_cv.notify_one();
        else
            m_cv.notify_all();
    }

private:
    void work()
    {
        for (;;) {
            std::shared_ptr<ParallelJob> job;
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [this] { return !m_queue.empty(); });
                job = std::move(m_queue.front());
                m_queue.pop_front();
            }
            job->run();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::shared_ptr<ParallelJob>> m_queue;
    std::size_t m_threads = 0;
};

} // namespace

void parallelFor(
    std::int64_t n, int threads, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)> &fn)
{
    if (n <= 0)
        return;
    const std::int64_t maxChunks = std::max<std::int64_t>(1, n / std::max<std::int64_t>(grain, 1));
    const int t = int(std::min<std::int64_t>(std::max(threads, 1), maxChunks));
    if (t <= 1) {
        fn(0, n);
        return;
    }
    auto job = std::make_shared<ParallelJob>();
    job->fn = &fn;
    job->n = n;
    // A few chunks per thread: the balance survives one thread being late.
    job->chunks = std::min<std::int64_t>(maxChunks, std::int64_t(t) * 4);
    job->chunk = (n + job->chunks - 1) / job->chunks;
    job->chunks = (n + job->chunk - 1) / job->chunk;
    ThreadPool::instance().post(job, t - 1);
    job->run();
    std::unique_lock lock(job->m);
    job->cv.wait(lock, [&] { return job->done.load() == job->chunks; });
}

} // namespace etscope::eval
