#include "etdump/debugbuffer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>

namespace etscope {

std::string describeShape(ScalarType dtype, const std::vector<std::int64_t> &sizes)
{
    return fmt::format("{}[{}]", scalarTypeName(dtype), fmt::join(sizes, ", "));
}

TensorSummary summarize(const TensorData &t)
{
    TensorSummary s;
    s.numel = static_cast<std::int64_t>(t.values.size());
    double sum = 0, sumSq = 0;
    std::int64_t finite = 0;
    s.min = std::numeric_limits<double>::infinity();
    s.max = -std::numeric_limits<double>::infinity();
    for (const double v : t.values) {
        if (std::isnan(v)) {
            ++s.nanCount;
            continue;
        }
        if (std::isinf(v)) {
            ++s.infCount;
            continue;
        }
        ++finite;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        sum += v;
        sumSq += v * v;
    }
    if (finite == 0) {
        s.min = s.max = s.mean = s.stddev = std::numeric_limits<double>::quiet_NaN();
        return s;
    }
    s.mean = sum / static_cast<double>(finite);
    s.stddev = std::sqrt(std::max(0.0, sumSq / static_cast<double>(finite) - s.mean * s.mean));
    return s;
}

Result<std::shared_ptr<const DebugBuffer>> DebugBuffer::open(const std::string &path)
{
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    return fromFile(std::move(file.value()));
}

std::shared_ptr<const DebugBuffer> DebugBuffer::fromFile(std::shared_ptr<const MappedFile> file)
{
    auto b = std::make_shared<DebugBuffer>();
    b->m_file = std::move(file);
    return b;
}

Result<std::int64_t> checkedNumel(const TensorRef &ref, const std::string &file)
{
    if (!elementSize(ref.dtype))
        return makeError(ErrorCode::Unsupported, file,
            fmt::format("tensor has unknown scalar type {}", static_cast<int>(ref.dtype)));
    if (!ref.strides.empty() && ref.strides.size() != ref.sizes.size())
        return makeError(ErrorCode::Corrupt, file,
            fmt::format("tensor has {} sizes but {} strides", ref.sizes.size(), ref.strides.size()));
    const std::int64_t n = ref.numel();
    if (n < 0)
        return makeError(ErrorCode::Corrupt, file,
            fmt::format("tensor shape [{}] is invalid or overflows", fmt::join(ref.sizes, ", ")));
    if (n > DebugBuffer::kMaxElements)
        return makeError(ErrorCode::LimitExceeded, file,
            fmt::format("tensor shape [{}] claims {} elements, more than the limit of {}", fmt::join(ref.sizes, ", "),
                n, DebugBuffer::kMaxElements));
    return n;
}

Result<std::span<const std::uint8_t>> DebugBuffer::bytes(const TensorRef &ref) const
{
    auto n = checkedNumel(ref, path());
    if (!n)
        return n.error();
    const auto elem = static_cast<std::int64_t>(*elementSize(ref.dtype));
    if (*n == 0)
        return std::span<const std::uint8_t>();
    const auto bufSize = static_cast<std::int64_t>(size());
    // The runtime copies numel * elem_size bytes for every tensor (ExecuTorch tensors are dense),
    // so a tensor whose dense size exceeds the buffer cannot be real: this also stops stride-0
    // shapes from inflating gigabytes out of a few bytes.
    if (*n > bufSize / elem)
        return makeError(ErrorCode::Corrupt, path(),
            fmt::format("tensor {} needs {} bytes but the debug buffer has only {} "
                        "(wrong debug buffer for this ETDump?)",
                describeShape(ref.dtype, ref.sizes), *n * elem, bufSize));
    // Extent in elements from the first to the last addressed element; every size is now at most
    // the buffer size, and strides are bounded, so the checked arithmetic below only guards
    // against hostile combinations.
    std::int64_t extent = 1;
    if (ref.strides.empty()) {
        extent = *n;
    } else {
        for (std::size_t d = 0; d < ref.sizes.size(); ++d) {
            const std::int64_t st = ref.strides[d];
            if (st < 0)
                return makeError(ErrorCode::Corrupt, path(), fmt::format("tensor has negative stride {}", st));
            if (st > kMaxElements)
                return makeError(ErrorCode::LimitExceeded, path(), fmt::format("tensor stride {} is too large", st));
            std::int64_t span = 0;
            if (__builtin_mul_overflow(ref.sizes[d] - 1, st, &span) || __builtin_add_overflow(extent, span, &extent))
                return makeError(ErrorCode::Corrupt, path(), "tensor strides overflow");
        }
    }
    std::int64_t nbytesChecked = 0;
    if (__builtin_mul_overflow(extent, elem, &nbytesChecked))
        return makeError(ErrorCode::Corrupt, path(), "tensor strides overflow");
    const std::int64_t nbytes = nbytesChecked;
    if (ref.offset < 0 || ref.offset > bufSize || nbytes > bufSize - ref.offset)
        return makeError(ErrorCode::Corrupt, path(),
            fmt::format("tensor {} at offset {} needs {} bytes but the debug buffer has {} "
                        "(wrong debug buffer for this ETDump?)",
                describeShape(ref.dtype, ref.sizes), ref.offset, nbytes, bufSize));
    return std::span<const std::uint8_t>(m_file->data() + ref.offset, static_cast<std::size_t>(nbytes));
}

Result<TensorData> DebugBuffer::read(const TensorRef &ref) const
{
    auto span = bytes(ref);
    if (!span)
        return span.error();
    TensorData out;
    out.dtype = ref.dtype;
    out.sizes = ref.sizes;
    const std::int64_t n = ref.numel();
    out.values.resize(static_cast<std::size_t>(n));
    if (n == 0)
        return out;
    const std::size_t elem = *elementSize(ref.dtype);
    const std::uint8_t *base = span->data();
    bool contiguous = ref.strides.empty();
    if (!contiguous) {
        // Row-major strides for these sizes? Then skip the index arithmetic.
        std::int64_t expect = 1;
        contiguous = true;
        for (std::size_t d = ref.sizes.size(); d-- > 0;) {
            if (ref.sizes[d] != 1 && ref.strides[d] != expect)
                contiguous = false;
            expect *= ref.sizes[d];
        }
    }
    if (contiguous) {
        for (std::int64_t i = 0; i < n; ++i)
            out.values[static_cast<std::size_t>(i)]
                = elementToDouble(ref.dtype, base + static_cast<std::size_t>(i) * elem);
        return out;
    }
    // General strided walk with an odometer over the logical index.
    const std::size_t rank = ref.sizes.size();
    std::vector<std::int64_t> idx(rank, 0);
    std::int64_t offsetElems = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        out.values[static_cast<std::size_t>(i)]
            = elementToDouble(ref.dtype, base + static_cast<std::size_t>(offsetElems) * elem);
        for (std::size_t d = rank; d-- > 0;) {
            if (++idx[d] < ref.sizes[d]) {
                offsetElems += ref.strides[d];
                break;
            }
            offsetElems -= (ref.sizes[d] - 1) * ref.strides[d];
            idx[d] = 0;
        }
    }
    return out;
}

Result<TensorData> zeroTensor(const TensorRef &ref)
{
    auto n = checkedNumel(ref, {});
    if (!n)
        return n.error();
    TensorData out;
    out.dtype = ref.dtype;
    out.sizes = ref.sizes;
    out.values.assign(static_cast<std::size_t>(*n), 0.0);
    out.fromBuffer = false;
    return out;
}

Result<TensorData> inflate(const TensorRef &ref, const DebugBuffer *buffer)
{
    return buffer ? buffer->read(ref) : zeroTensor(ref);
}

} // namespace etscope
