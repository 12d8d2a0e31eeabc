#pragma once

// Test-only ETDump writer (flatbuffers builder over our schema) for what real files lack:
// many runs, delegate events with int/string ids and metadata, every scalar type, wrap-around
// times, allocation events. Writes the same size-prefixed ED00 layout as the runtime.

#include "etdump/scalartype.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etscope::test {

struct ProfileSpec {
    std::optional<std::string> name;
    std::int32_t chainIndex = 0;
    std::int32_t instructionId = -1;
    std::int32_t delegateDebugIdInt = -1;
    std::optional<std::string> delegateDebugIdStr;
    std::optional<std::string> delegateDebugMetadata; // raw bytes
    std::uint64_t startTime = 0;
    std::uint64_t endTime = 0;
};

struct TensorSpec {
    ScalarType dtype = ScalarType::Float;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides; // empty: contiguous row-major
    std::int64_t offset = 0;
};

struct DebugSpec {
    std::uint64_t chainIndex = 0;
    std::int32_t instructionId = -1;
    std::int32_t delegateDebugIdInt = -1;
    std::optional<std::string> delegateDebugIdStr;
    std::optional<std::string> name;
    bool output = false;
    // Exactly one kind of value:
    enum class Kind { None, Int, Bool, Float, Double, Tensor, TensorList } kind = Kind::Tensor;
    std::int64_t intValue = 0;
    bool boolValue = false;
    double doubleValue = 0;
    std::vector<TensorSpec> tensors;
};

class ETDumpWriter
{
public:
    ETDumpWriter();
    ~ETDumpWriter();

    // Starts a RunData block. Blocks without any event call get no events vector at all
    // unless `withEventsVector` is true (an empty vector is written then).
    void beginRun(const std::string &name, std::int32_t bundledInputIndex = -1, bool withEventsVector = true);
    void addAllocator(const std::string &name);
    void addProfile(const ProfileSpec &p);
    void addDebug(const DebugSpec &d);
    void addAllocation(std::int32_t allocatorId, std::uint64_t size);

    // Convenience: native_call_<op> nested in OPERATOR_CALL, as the runtime logs a kernel.
    void addKernel(const std::string &op, std::int32_t instructionId, std::uint64_t start, std::uint64_t kernelNs,
        std::uint64_t overheadNs);

    // The complete file (size prefix + flatbuffer with identifier ED00).
    std::string finish(std::uint32_t version = 0);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// Appends tensor payloads like the runtime's buffer data sink: each blob starts where
// (buffer address + offset) is a multiple of `alignment`, zero padding in between.
class DebugBufferWriter
{
public:
    explicit DebugBufferWriter(std::size_t alignment = 64, std::size_t addressBias = 16);
    // Returns the byte offset of the blob.
    std::int64_t append(const void *data, std::size_t size);
    template <typename T> std::int64_t appendValues(const std::vector<T> &v)
    {
        return append(v.data(), v.size() * sizeof(T));
    }
    // Pads the buffer to `size` bytes (like the runner writing its whole allocation).
    std::string finish(std::size_t minSize = 0) const;

private:
    std::size_t m_alignment;
    std::size_t m_bias;
    std::string m_bytes;
};

std::string writeFile(const std::string &path, const std::string &bytes); // returns path

} // namespace etscope::test
