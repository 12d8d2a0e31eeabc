#pragma once

// A reference interpreter for serialized ExportedPrograms (formats.md §3.4): it runs an
// ETRecord's graph on chosen inputs with PyTorch CPU semantics and keeps every node's output,
// which is what the Inspector's calculate_numeric_gap gets from PyTorch (§8). Plain C++.

#include "analysis/numtensor.h"
#include "common/error.h"
#include "etdump/scalartype.h"
#include "etrecord/etrecord.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace etscope::eval {

// Bytes of a tensor. Not zeroed when sized (kernels overwrite them; makeTensor zeroes).
template <typename T> struct DefaultInitAllocator : std::allocator<T> {
    template <typename U> struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <typename U> DefaultInitAllocator(const DefaultInitAllocator<U> &) noexcept { }
    template <typename U> void construct(U *p) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void *>(p)) U;
    }
    template <typename U, typename... Args> void construct(U *p, Args &&...args)
    {
        ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
    }
};
using Storage = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

// A dense tensor, contiguous and row-major, elements in their native representation (Half and
// BFloat16 as their 16-bit patterns, Bool as one byte). Immutable once built: copies share the
// storage, so views that do not reorder elements (view_copy, squeeze, clone) cost nothing.
struct Tensor {
    ScalarType dtype = ScalarType::Float;
    std::vector<std::int64_t> sizes; // empty = 0-d
    std::shared_ptr<Storage> storage;
    std::size_t offset = 0; // bytes into storage

    std::int64_t numel() const;
    int dim() const { return int(sizes.size()); }
    std::size_t itemSize() const;
    const std::uint8_t *bytes() const { return storage ? storage->data() + offset : nullptr; }
    std::uint8_t *mutableBytes() { return storage ? storage->data() + offset : nullptr; }
    template <typename T> const T *data() const { return reinterpret_cast<const T *>(bytes()); }
    template <typename T> T *mutableData() { return reinterpret_cast<T *>(mutableBytes()); }

    // Element i (row-major) as double / int64, whatever the dtype.
    double getDouble(std::int64_t i) const;
    std::int64_t getInt(std::int64_t i) const;

    // Zero-filled tensor; fails (LimitExceeded) beyond kMaxElements or on negative sizes.
    static Result<Tensor> zeros(ScalarType dtype, std::vector<std::int64_t> sizes);
    static Tensor scalarDouble(ScalarType dtype, double v);
    static Tensor fromFloats(std::vector<std::int64_t> sizes, const std::vector<float> &values);
    static Tensor fromDoubles(ScalarType dtype, std::vector<std::int64_t> sizes, const std::vector<double> &values);
};

// Largest tensor the evaluator allocates (elements): 2^31 (8 GiB of float32).
inline constexpr std::int64_t kMaxElements = std::int64_t(1) << 31;

// Bridges to the comparison type of core/analysis.
analysis::NumTensor toNumTensor(const Tensor &t);
// `dtype` = the dtype to hold (the values are rounded to it); nullopt keeps t.dtype.
Result<Tensor> fromNumTensor(const analysis::NumTensor &t, std::optional<ScalarType> dtype = std::nullopt);
// A torch.save tensor (state dict entry, input file) as an evaluator tensor.
Result<Tensor> fromPyTensor(const PyTensor &t);

// A decoded node argument or program input.
struct Value {
    enum class Kind : std::uint8_t {
        None,
        Tensor,
        TensorList,
        Int,
        Double,
        Bool,
        IntList,
        DoubleList,
        BoolList,
        String,
        Dtype,
        Other
    };
    Kind kind = Kind::None;
    Tensor tensor;
    std::vector<std::optional<Tensor>> tensors; // TensorList (optional items: Tensor?[])
    std::int64_t i = 0;
    double d = 0;
    bool b = false;
    std::vector<std::int64_t> ints;
    std::vector<double> doubles;
    std::vector<bool> bools;
    std::string str; // String; Other keeps the argument's text (layouts, memory formats, devices)
    ScalarType dtype = ScalarType::Float;

    static Value none() { return {}; }
    static Value ofTensor(Tensor t);
    static Value ofInt(std::int64_t v);
    static Value ofDouble(double v);
    static Value ofBool(bool v);
    bool isNone() const { return kind == Kind::None; }
    std::string describe() const; // "tensor(float32, [1, 3])", "5", ...
};

// Where the user inputs come from. All empty = the ETRecord's representative_inputs.
struct InputChoice {
    std::string inputsFile; // torch.save of a tuple/list of tensors/scalars
    std::string bundledProgram; // BundledProgram whose test case supplies the inputs
    int testCase = 0; // < 0 counts from the end
    std::string method = "forward";
};
// Order: --inputs file, bundled program test case, representative_inputs (explicit choices win).
// None available -> one error that lists the three ways.
Result<std::vector<Value>> chooseInputs(const ETRecord &record, const InputChoice &choice);
// A torch.save file / a decoded pickle value (tuple/list of tensors/scalars; a single tensor is one input).
Result<std::vector<Value>> inputsFromTorchSave(const std::string &path);
Result<std::vector<Value>> inputsFromPyValue(const PyValue &v, const std::string &label);

struct NodeOutput {
    std::string node; // node name
    std::string target; // normalized operator, "aten.convolution.default"
    std::vector<Tensor> outputs; // empty when error is set
    std::string error; // "no reference (needs aten.foo.default)" or a kernel error with node, op and source line
    bool kept = true; // false: computed, but not kept (EvalOptions::keep)
    std::optional<std::int64_t> debugHandle;
    int nodeIndex = -1; // index into ExportedProgram::nodes
};

struct EvalOptions {
    int threads = 0; // 0 = all cores
    // Which node outputs EvalResult keeps: all, or only those of nodes with a debug handle (what
    // the numeric gap and aot-intermediates read); the others are freed after their last reader.
    enum class Keep : std::uint8_t { All, DebugHandles };
    Keep keep = Keep::All;
    // Refuse up front when weights + kept outputs + the largest transient output (from the graph's
    // tensor metadata) exceed this many bytes. 0 = half the physical memory; < 0 (as int64) = no limit.
    std::int64_t maxMemory = 0;
    // Largest tensor (elements) a kernel may allocate; fuzzing and untrusted graphs lower it.
    std::int64_t maxElements = kMaxElements;
    // Called with 0..1000 as nodes complete; returning false cancels (evaluate fails with "cancelled").
    std::function<bool(int permille)> progress;
    // Isolated mode: when a node reads output `index` of node `producer`, a returned tensor
    // replaces the computed one (runtime values from a debug buffer).
    std::function<std::optional<Tensor>(const std::string &producer, int index)> inputOverride;
    // Float twin of a quantized graph: every dequantize node fed by a quantize node passes the
    // quantize node's float input through (cast to the dequantize's output dtype), so the graph
    // runs as the float model it fake-quantizes. A dequantize of a stored integer constant
    // (quantized weights) still runs: the twin uses the dequantized weight. choose_qparams and
    // the quantize nodes themselves run unchanged (their integer outputs feed nothing but the
    // bypassed dequantize). See docs/inspector-semantics.md.
    bool floatTwin = false;
};

// True for the quantize / dequantize operators floatTwin pairs (quantized_decomposed per
// tensor / channel / token / channel group, torchao affine).
bool isQuantizeOp(const std::string &opKey);
bool isDequantizeOp(const std::string &opKey);

struct EvalResult {
    std::vector<NodeOutput> nodes; // call_function nodes in execution order (getitem excluded)
    std::vector<Tensor> programOutputs; // graph outputs (empty tensor where not computable)
    std::vector<std::string> warnings;
    int floatTwinPairs = 0; // quantize -> dequantize pairs passed through (EvalOptions::floatTwin)
};

// Program entry to evaluate: "" picks the Edge program of "forward" (else the ATen program);
// otherwise a base name ("edge_dialect_exported_program", "exported_program") or an entry name.
const ETRecordProgram *findProgram(const ETRecord &record, const std::string &graphName);

Result<EvalResult> evaluate(const ETRecord &record, const std::string &graphName, const std::vector<Value> &inputs,
    const EvalOptions &options = {});
// The weights evaluate() binds: every tensor of the program's state dict and constants, by name
// (entries that cannot be converted are skipped with a line in `warnings`).
Result<std::map<std::string, Tensor>> loadWeights(
    const ETRecord &record, const ETRecordProgram &program, std::vector<std::string> *warnings = nullptr);
// The same on a program and its weights given directly (tests, fuzzing): `weights` maps
// parameter/buffer/constant names to tensors. Each is released after its last reader (pass
// the map by std::move for that to free memory).
Result<EvalResult> evaluateProgram(const ExportedProgram &program, std::map<std::string, Tensor> weights,
    const std::vector<Value> &inputs, const EvalOptions &options = {});

// The figures behind EvalOptions::maxMemory, from the graph's tensor metadata.
struct MemoryEstimate {
    std::uint64_t weights = 0, kept = 0, transient = 0;
    std::uint64_t total() const { return weights + kept + transient; }
};
MemoryEstimate estimateMemory(
    const ExportedProgram &program, const std::map<std::string, Tensor> &weights, EvalOptions::Keep keep);
std::uint64_t physicalMemory(); // bytes, 0 when unknown

// Normalized operator key of a node target: "aten.add.Tensor", "quantized_decomposed.quantize_per_tensor.default".
std::string operatorKey(const std::string &target);
// The functional operator an in-place one ("aten.relu_.default") runs as, if it has a kernel.
std::string functionalKey(const std::string &opKey);
// True when a kernel exists for the key (in-place ops through their functional kernel).
bool hasKernel(const std::string &opKey);
std::vector<std::string> kernelNames();

} // namespace etscope::eval
