#pragma once

#include "common/error.h"
#include "etdump/debugbuffer.h"
#include "etdump/runtimevalue.h"
#include "etdump/scalartype.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace etscope::analysis {

// A dense, logically row-major tensor for numeric comparison. Float32 data stays float32 (the
// bulk path: a debug buffer tensor is mapped without copying); everything else is held as
// double. `owner` keeps the storage alive (a vector we filled, or the mapped debug buffer).
struct NumTensor {
    ScalarType dtype = ScalarType::Float; // dtype the value had at its source (for display)
    std::vector<std::int64_t> sizes; // empty = 0-d (scalars)
    const float *f32 = nullptr; // exactly one of f32/f64 is set when numel > 0
    const double *f64 = nullptr;
    std::int64_t numel = 0;
    std::shared_ptr<const void> owner;

    double at(std::int64_t i) const { return f32 ? double(f32[i]) : f64[i]; }

    static NumTensor fromDoubles(ScalarType dtype, std::vector<std::int64_t> sizes, std::vector<double> values);
    static NumTensor fromFloats(std::vector<std::int64_t> sizes, std::vector<float> values);
    static NumTensor scalar(ScalarType dtype, double v) { return fromDoubles(dtype, {}, { v }); }
};

// A value as the Inspector's comparators see it: one tensor, or a list of tensors. Scalars
// (Int/Bool/Double) become 0-d tensors. `None` for values that cannot be compared (strings).
struct NumValue {
    enum class Kind : std::uint8_t { None, Tensor, List };
    Kind kind = Kind::None;
    std::vector<NumTensor> items; // one item for Tensor

    static NumValue tensor(NumTensor t) { return NumValue { Kind::Tensor, { std::move(t) } }; }
    static NumValue list(std::vector<NumTensor> ts) { return NumValue { Kind::List, std::move(ts) }; }
    bool isNone() const { return kind == Kind::None; }
};

// Dense row-major (no strides, or the strides of row-major order; size-1 dimensions may carry any).
bool isContiguous(const TensorRef &ref);

// Loads a debug-buffer tensor. Contiguous, aligned float32 tensors are mapped in place (no
// copy, the buffer stays alive through `owner`); anything else is converted to double. Without
// a buffer the Inspector substitutes zeros, so do we.
Result<NumTensor> loadTensor(const TensorRef &ref, const std::shared_ptr<const DebugBuffer> &buffer);
// One ETDump Value: Tensor → Tensor, TensorList → List, Int/Bool/Float/Double → 0-d Tensor,
// String/None → None.
Result<NumValue> loadRuntimeValue(const RuntimeValue &v, const std::shared_ptr<const DebugBuffer> &buffer);
// A list of ETDump Values (an Event's debug_data or a block's run outputs) as one flat list of
// tensors: a TensorList contributes each of its tensors, a None/String contributes nothing.
Result<NumValue> loadRuntimeList(const std::vector<RuntimeValue> &vs, const std::shared_ptr<const DebugBuffer> &buffer);

// "float32[1, 10] min=… max=… mean=…" — the summary column of the gap table.
std::string summarizeTensor(const NumTensor &t);
std::string summarizeValue(const NumValue &v);

} // namespace etscope::analysis
