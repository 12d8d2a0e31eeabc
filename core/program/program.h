#pragma once

// The ExecuTorch program (.pte): memory-mapped, verified once when opened, then read in place.
// Our own transcription of the schema lives in program.fbs; nothing here exposes its
// generated types.

#include "common/error.h"
#include "common/mappedfile.h"
#include "etdump/scalartype.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace etscope {

class BundledProgram;
class FlatTensorFile;
struct SizeReport;

// Where a tensor or arena resides (the schema's DeviceType: 0 CPU, 1 CUDA; other numbers are
// kept as stored). Everything is on the CPU unless the program says otherwise.
struct ProgramDevice {
    std::int8_t type = 0;
    std::int8_t index = 0;
    bool isCpu() const { return type == 0; }
    bool operator==(const ProgramDevice &) const = default;
};
// "cpu", "cuda:0", "device7:0" (an unknown type).
std::string deviceName(ProgramDevice device);

// Union member order of the schema's KernelTypes; None when the union is empty.
enum class ProgramValueKind : std::uint8_t {
    None = 0,
    Null,
    Int,
    Bool,
    Double,
    Tensor,
    String,
    IntList,
    DoubleList,
    BoolList,
    TensorList,
    OptionalTensorList,
};
std::string_view programValueKindName(ProgramValueKind kind);

enum class TensorDynamism : std::uint8_t { Static, DynamicBound, DynamicUnbound };

// A tensor value. Arena 0 means "not planned" (constant or supplied at run time). An external
// tensor (extra_tensor_info.location EXTERNAL) takes its data from a .ptd by its fully qualified
// name: a constant when not planned, a mutable buffer loaded into its arena when planned; its
// dataBufferIndex is then no index into the program's constants.
struct ProgramTensor {
    ScalarType dtype = ScalarType::Float;
    std::span<const std::int32_t> sizes;
    std::span<const std::uint8_t> dimOrder;
    TensorDynamism dynamism = TensorDynamism::Static;
    bool hasAllocation = false; // allocation_info present: memory planned into an arena
    std::uint32_t arena = 0; // allocation_info.memory_id
    std::uint64_t offset = 0; // byte offset inside the arena
    std::uint64_t nbytes = 0; // numel × element size (upper bound for dynamic shapes)
    std::uint32_t dataBufferIndex = 0; // > 0: initial data in the constant segment/buffer
    bool external = false;
    std::string_view externalName; // fully_qualified_name of an external tensor
    ProgramDevice device;

    bool isPlanned() const { return hasAllocation; }
    bool isConstant() const { return (dataBufferIndex > 0 || external) && !hasAllocation; }
};

struct ProgramValue {
    ProgramValueKind kind = ProgramValueKind::None;
    std::int64_t intValue = 0;
    double doubleValue = 0;
    bool boolValue = false;
    std::string_view stringValue;
    ProgramTensor tensor; // kind == Tensor
    // IntList items, TensorList/OptionalTensorList value indices (-1: None), and the list sizes
    // of DoubleList/BoolList (their items are not needed by etscope).
    std::span<const std::int64_t> ints;
    std::span<const std::int32_t> valueIndices;
    std::size_t listSize = 0;
};

enum class InstructionKind : std::uint8_t { None = 0, KernelCall, DelegateCall, Move, JumpFalse, Free };
std::string_view instructionKindName(InstructionKind kind);

struct ProgramInstruction {
    InstructionKind kind = InstructionKind::None;
    std::int32_t operatorIndex = -1; // KernelCall
    std::int32_t delegateIndex = -1; // DelegateCall
    std::span<const std::int32_t> args; // KernelCall/DelegateCall value indices (in and out)
    std::int32_t moveFrom = -1, moveTo = -1; // Move
    std::int32_t condition = -1, destination = -1; // JumpFalse: jump to destination when false
    std::int32_t freedValue = -1; // Free

    // Every value index the instruction touches, in order (args; from, to; condition; freed).
    std::vector<std::int32_t> valuesUsed() const;
};

struct ProgramOperator {
    std::string name; // "aten::convolution"
    std::string overload; // "out"
    // "convolution.out": the name the runtime's kernel wrapper logs after "native_call_".
    std::string kernelName() const;
    std::string displayName() const; // "aten::convolution.out"
};

struct ProgramDelegate {
    std::string backendId;
    bool inlineData = false; // backend_delegate_data[index] rather than segments[index]
    std::uint32_t dataIndex = 0;
    std::uint64_t blobBytes = 0;
    std::uint64_t blobOffset = 0; // absolute file offset of the payload
    std::span<const std::uint8_t> blob; // the payload, inside the program's file
    struct CompileSpec {
        std::string key;
        std::span<const std::uint8_t> value;
    };
    std::vector<CompileSpec> compileSpecs;
};

struct ProgramFrame {
    std::string_view filename, function, context;
    std::int32_t line = 0;
};

// One execution plan (a method). Instruction accessors read chain `chain` (all current programs
// have one chain).
class ProgramMethod
{
public:
    const std::string &name() const { return m_name; }
    std::size_t valueCount() const;
    ProgramValue value(std::size_t index) const;
    std::span<const std::int32_t> inputs() const;
    std::span<const std::int32_t> outputs() const;
    std::size_t chainCount() const;
    std::size_t instructionCount(std::size_t chain = 0) const;
    ProgramInstruction instruction(std::size_t index, std::size_t chain = 0) const;
    // Innermost frame last, as stored; empty when the program has no stack traces.
    std::vector<ProgramFrame> stackTrace(std::size_t index, std::size_t chain = 0) const;
    const std::vector<ProgramOperator> &operators() const { return m_operators; }
    const std::vector<ProgramDelegate> &delegates() const { return m_delegates; }
    // non_const_buffer_sizes: arena sizes by memory id (entry 0 is never planned).
    const std::vector<std::int64_t> &arenaSizes() const { return m_arenaSizes; }
    // Device of each arena by memory id (non_const_buffer_device; CPU when not listed).
    const std::vector<ProgramDevice> &arenaDevices() const { return m_arenaDevices; }
    // External tensors this method uses (distinct names) and their bytes (from the program's
    // sizes × dtype, whether or not the data is attached).
    std::size_t externalCount() const { return m_externalCount; }
    std::uint64_t externalBytes() const { return m_externalBytes; }
    // Operator name of a KernelCall, backend id of a DelegateCall, else the kind's name.
    std::string instructionLabel(std::size_t index, std::size_t chain = 0) const;

private:
    friend class Program;
    const void *m_plan = nullptr;
    std::string m_name;
    std::vector<ProgramOperator> m_operators;
    std::vector<ProgramDelegate> m_delegates;
    std::vector<std::int64_t> m_arenaSizes;
    std::vector<ProgramDevice> m_arenaDevices;
    std::size_t m_externalCount = 0;
    std::uint64_t m_externalBytes = 0;
};

// An external tensor of the program, by name (its first use gives the layout). When the
// program has data attached, file indexes Program::dataFiles() and offset/dataBytes say where
// its bytes are.
struct ProgramExternalTensor {
    std::string name;
    ScalarType dtype = ScalarType::Float;
    std::vector<std::int32_t> sizes;
    std::vector<std::uint8_t> dimOrder;
    std::uint64_t nbytes = 0;
    bool mutableBuffer = false; // planned: loaded into its arena when the method loads
    ProgramDevice device;
    std::string method; // first method that uses it
    std::int32_t value = -1; // its value index there
    std::int32_t file = -1;
    std::uint32_t segment = 0;
    std::uint64_t offset = 0;
    std::uint64_t dataBytes = 0;
};

struct ProgramSegment {
    std::uint64_t offset = 0; // absolute file offset
    std::uint64_t size = 0;
};

class Program
{
public:
    // Refuse programs claiming more than this many values or instructions per method.
    static constexpr std::uint64_t kMaxEntries = 50'000'000;

    static Result<std::shared_ptr<const Program>> open(const std::string &path);
    // Takes the file (mapped or owned bytes) and verifies it; the program keeps it alive.
    static Result<std::shared_ptr<const Program>> fromFile(std::shared_ptr<const MappedFile> file);
    // The program embedded in a BundledProgram (copied bytes, named "<bpte>:program").
    static Result<std::shared_ptr<const Program>> fromBundled(const BundledProgram &bundled);
    // Opens a .pte, or the program inside a .bpte, by content.
    static Result<std::shared_ptr<const Program>> openAny(const std::string &path);

    const std::string &path() const { return m_file->path(); }
    std::uint64_t fileSize() const { return m_file->size(); }
    std::uint32_t version() const { return m_version; }
    const std::vector<ProgramMethod> &methods() const { return m_methods; }
    const ProgramMethod *method(std::string_view name) const;

    // The eh00 extended header, when present.
    bool hasExtendedHeader() const { return m_hasExtendedHeader; }
    std::uint64_t flatbufferSize() const { return m_programSize; }
    std::uint64_t segmentBase() const { return m_segmentBase; }
    const std::vector<ProgramSegment> &segments() const { return m_segments; }

    // Constant tensor data: bytes of the constant segment (or of the legacy inline buffers) and
    // the number of constant entries besides the reserved entry 0.
    std::uint64_t constantBytes() const { return m_constantBytes; }
    std::size_t constantCount() const { return m_constantCount; }
    bool constantsInSegment() const { return m_constantsInSegment; }
    std::uint64_t delegateBlobBytes() const;
    // The bytes of constant entry `index` (a tensor's dataBufferIndex), at most `nbytes` of them
    // (what fits in the segment or buffer); empty for entry 0 or an index out of range.
    std::span<const std::uint8_t> constantData(std::uint32_t index, std::uint64_t nbytes) const;

    // Tensors whose data lives in a .ptd, by name in order of first use, and their bytes.
    const std::vector<ProgramExternalTensor> &externalTensors() const { return m_external; }
    std::uint64_t externalBytes() const { return m_externalBytes; }
    std::size_t externalMutableCount() const;
    // The .ptd files attached by pairProgramData (flattensor.h); empty for a program alone.
    const std::vector<std::shared_ptr<const FlatTensorFile>> &dataFiles() const { return m_dataFiles; }
    // Names in those files without a tensor layout (delegate data: the program's delegates read
    // them through their own blobs) and their bytes (each segment once).
    std::size_t delegateDataCount() const { return m_delegateDataCount; }
    std::uint64_t delegateDataBytes() const { return m_delegateDataBytes; }

private:
    friend SizeReport programSize(const Program &program); // programsize.h: reads the flatbuffer's layout
    friend Result<std::shared_ptr<const Program>> pairProgramData(
        const std::shared_ptr<const Program> &, const std::vector<std::shared_ptr<const FlatTensorFile>> &);
    Status validate();

    std::shared_ptr<const MappedFile> m_file;
    const void *m_root = nullptr;
    std::uint32_t m_version = 0;
    bool m_hasExtendedHeader = false;
    std::uint64_t m_programSize = 0;
    std::uint64_t m_segmentBase = 0;
    std::vector<ProgramSegment> m_segments;
    std::uint64_t m_constantBytes = 0;
    std::size_t m_constantCount = 0;
    bool m_constantsInSegment = false;
    std::vector<ProgramMethod> m_methods;
    std::vector<ProgramExternalTensor> m_external;
    std::uint64_t m_externalBytes = 0;
    std::vector<std::shared_ptr<const FlatTensorFile>> m_dataFiles;
    std::size_t m_delegateDataCount = 0;
    std::uint64_t m_delegateDataBytes = 0;
};

// "float32[1, 3, 16, 16]" for a tensor, "[1, 2]" for an int list, "1" for an int, … .
std::string describeValue(const ProgramValue &value);
// The value and where its bytes live: "float32[1, 8] @1:4096" (planned), "… const" (constant
// data), "… runtime" (memory supplied when the method runs), "… external: linear.weight" (data
// in a .ptd; after "@1:4096" for a mutable buffer), then " cuda:0" when not on the CPU.
std::string describeValueWithPlace(const ProgramValue &value);
// Deterministic colour (0xRRGGBB) for an operator or backend label, shared by the CLI's SVG
// and the app's memory view.
std::uint32_t labelColor(std::string_view label);

// True when the bytes carry the program identifier ET12 at offset 4.
bool looksLikeProgram(const std::uint8_t *data, std::size_t size);

} // namespace etscope
