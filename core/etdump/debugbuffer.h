#pragma once

#include "common/error.h"
#include "common/mappedfile.h"
#include "etdump/runtimevalue.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace etscope {

// A tensor's values converted to double, in logical row-major order (strides applied).
struct TensorData {
    ScalarType dtype = ScalarType::Float;
    std::vector<std::int64_t> sizes;
    std::vector<double> values;
    bool fromBuffer = true; // false: zeros substituted because no debug buffer was given
};

struct TensorSummary {
    std::int64_t numel = 0;
    double min = 0, max = 0, mean = 0, stddev = 0; // NaN/Inf are skipped in min/max/mean
    std::int64_t nanCount = 0, infCount = 0;
};
TensorSummary summarize(const TensorData &t);
// "float32[1, 10]"
std::string describeShape(ScalarType dtype, const std::vector<std::int64_t> &sizes);

// The raw debug buffer that DebugEvent tensors point into. Read-only; shared by reference.
class DebugBuffer
{
public:
    static constexpr std::int64_t kMaxElements = std::int64_t(1) << 32; // 4G elements per tensor

    static Result<std::shared_ptr<const DebugBuffer>> open(const std::string &path);
    static std::shared_ptr<const DebugBuffer> fromFile(std::shared_ptr<const MappedFile> file);

    const std::string &path() const { return m_file->path(); }
    std::size_t size() const { return m_file->size(); }
    const std::uint8_t *data() const { return m_file->data(); }

    // Checks that the tensor lies inside the buffer; returns the byte span it occupies
    // (from its first to its last element, honoring strides).
    Result<std::span<const std::uint8_t>> bytes(const TensorRef &ref) const;
    // Inflates to double. A tensor reaching past the end of the buffer is an error, never read.
    Result<TensorData> read(const TensorRef &ref) const;

private:
    std::shared_ptr<const MappedFile> m_file;
};

// Validates shape and returns the element count, or an error naming `file` (limits included).
Result<std::int64_t> checkedNumel(const TensorRef &ref, const std::string &file);
// Zeros of the tensor's shape: what the Inspector substitutes when no debug buffer is given.
Result<TensorData> zeroTensor(const TensorRef &ref);
// Reads through `buffer` when given, otherwise substitutes zeros.
Result<TensorData> inflate(const TensorRef &ref, const DebugBuffer *buffer);

} // namespace etscope
