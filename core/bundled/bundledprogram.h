#pragma once

#include "common/error.h"
#include "etdump/scalartype.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace etscope {

// One input or expected output of a bundled test case (formats.md §5 `Value`).
struct BundledValue {
    enum class Kind : std::uint8_t { None, Tensor, Int, Bool, Double };
    Kind kind = Kind::None;
    // Tensor: dtype, logical sizes, the stored dim_order and the element strides derived from
    // it, and the values converted to double in logical row-major order (strides applied).
    ScalarType dtype = ScalarType::Float;
    std::vector<std::int64_t> sizes;
    std::vector<std::uint8_t> dimOrder;
    std::vector<std::int64_t> strides;
    std::vector<double> values;
    // Int / Bool / Double
    std::int64_t intValue = 0;
    bool boolValue = false;
    double doubleValue = 0;
};

struct BundledTestCase {
    std::vector<BundledValue> inputs;
    std::vector<BundledValue> expectedOutputs;
};

struct BundledTestSuite {
    std::string methodName;
    std::vector<BundledTestCase> testCases;
};

// A BundledProgram (.bpte): identifier BP08, not size-prefixed, verified before use. All
// values are decoded up front (bundled test data is small); the embedded program is copied.
class BundledProgram
{
public:
    static constexpr std::int64_t kMaxElements = std::int64_t(1) << 31;

    static Result<std::shared_ptr<const BundledProgram>> open(const std::string &path);
    static Result<std::shared_ptr<const BundledProgram>> fromBytes(
        std::span<const std::uint8_t> bytes, const std::string &path);

    const std::string &path() const { return m_path; }
    std::uint32_t version() const { return m_version; }
    const std::vector<BundledTestSuite> &suites() const { return m_suites; }
    const BundledTestSuite *suite(const std::string &methodName) const;
    // The embedded .pte and its 4-character identifier ("ET12"), empty when absent.
    const std::vector<std::uint8_t> &program() const { return m_program; }
    std::string programIdentifier() const;

private:
    std::string m_path;
    std::uint32_t m_version = 0;
    std::vector<BundledTestSuite> m_suites;
    std::vector<std::uint8_t> m_program;
};

// Element strides from sizes and a dim_order (outermost to innermost); an empty dim_order
// means row-major. Returns empty when dimOrder is not a permutation of 0..rank-1.
std::vector<std::int64_t> stridesFromDimOrder(
    const std::vector<std::int64_t> &sizes, const std::vector<std::uint8_t> &dimOrder);

} // namespace etscope
