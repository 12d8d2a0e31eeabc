#pragma once

#include "etdump/scalartype.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etscope {

// A tensor logged by the runtime: its data lives in the debug buffer at `offset`.
struct TensorRef {
    ScalarType dtype = ScalarType::Float;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides; // element strides; empty means contiguous row-major
    std::int64_t offset = 0; // byte offset into the debug buffer (-1: zero-size tensor)

    // Product of sizes; nullopt-like -1 when a size is negative or the product overflows.
    std::int64_t numel() const;
    bool operator==(const TensorRef &) const = default;
};

// The value of one DebugEvent (ETDump `Value`), tensors by reference.
struct RuntimeValue {
    enum class Kind : std::uint8_t { None, Int, Bool, Float, Double, Tensor, TensorList, String };
    Kind kind = Kind::None;
    std::int64_t intValue = 0;
    bool boolValue = false;
    double doubleValue = 0; // Float and Double
    std::string stringValue;
    std::vector<TensorRef> tensors; // one for Tensor, n for TensorList
    bool isOutput = false; // Value.output present and true: a program output

    bool isTensorLike() const { return kind == Kind::Tensor || kind == Kind::TensorList; }
    bool operator==(const RuntimeValue &) const = default;
};

} // namespace etscope
