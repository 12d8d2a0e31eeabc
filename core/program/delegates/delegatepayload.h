#pragma once

// What a delegate's payload (the processed blob a backend's preprocess wrote into the .pte)
// holds, decoded without the backend's runtime: the nodes it runs in order, its values with
// shapes, dtypes and quantization, its constants, and what each byte of the payload is. One
// decoder per backend (xnnpackpayload.cpp, vulkanpayload.cpp, ethosupayload.cpp,
// coremlpayload.cpp, otherpayloads.cpp); the layouts and their upstream sources are in
// docs/formats.md §2.5. A payload that no decoder knows, or that is damaged, is reported as
// opaque with its size and identifier; decoding never fails the program.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace etscope {

// Quantization of one value, as the payload states it.
struct DelegateQuant {
    enum class Kind : std::uint8_t { None, PerTensor, PerChannel, PerTokenDynamic, Blockwise };
    Kind kind = Kind::None;
    double scale = 0; // PerTensor
    std::int32_t zeroPoint = 0; // PerTensor
    std::int32_t channelDim = -1; // PerChannel, Blockwise
    std::int32_t groupSize = 0; // Blockwise
    std::uint64_t scaleCount = 0; // PerChannel, Blockwise: scales stored or announced
    std::uint32_t scaleConstant = 0; // > 0: the scales live in this constant (1-based)
    std::int32_t nonBatchDims = 0; // PerTokenDynamic
    double minScale = 0, maxScale = 0; // range of the inline scales (when stored inline)

    // "per-tensor scale 0.0078125 zero point -3", "per-channel dim 0: 128 scales in
    // [0.001, 0.02]", "per-token dynamic, 1 non-batch dim", "blockwise dim 0 group 32: 256
    // scales", "" for none.
    std::string describe() const;
};
std::string_view delegateQuantKindName(DelegateQuant::Kind kind); // "per_tensor", …

// A value (tensor) inside the delegate's graph.
struct DelegateValue {
    std::uint32_t id = 0;
    std::string name; // the payload's own name for it (CoreML: the MIL/layer blob name); often empty
    std::string dtype; // the backend's own name ("fp32", "qcint8", "float16", …)
    std::vector<std::uint64_t> shape;
    DelegateQuant quant;
    std::uint32_t flags = 0;
    bool input = false, output = false; // a graph input/output
    std::uint32_t constant = 0; // > 0: its data is constant number `constant` (1-based)
    std::string storage; // Vulkan: "texture_3d, channels packed"; empty elsewhere
    std::string text; // scalar values (Vulkan arguments): "3", "[1, 1]", "\"relu\""
    // XNNPACK: the value's external id (XNNTensorValue.external_id), -1 when it has none. The
    // runtime binds an external value to the DelegateCall argument of that index (see
    // callArguments).
    std::int64_t externalId = -1;

    // "fp32[1, 64]", "qcint8[128, 64] per-channel dim 0: 128 scales …", "x_1 fp32[1, 8]" (named).
    std::string describe() const;
};

// One node (operator, dispatch, layer) in the order the backend runs it.
struct DelegateNode {
    std::string op; // "FullyConnected", "aten.convolution.default", "conv"
    std::vector<std::int64_t> inputs, outputs; // value ids
    std::string params; // operator attributes in one line ("kernel 3x3, stride 1x1, …")
    std::uint32_t flags = 0;
    std::int64_t debugHandle = -1; // handle back to the exported graph, when stored
    // The backend's own node id that its profiling events name (Vulkan: OperatorCall.node_id,
    // logged as the dispatch's delegate_node_id), -1 when the format has none.
    std::int64_t nodeId = -1;
};

// A block of constant data (weights) the payload refers to.
struct DelegateConstant {
    std::uint64_t bytes = 0;
    enum class Place : std::uint8_t { ConstantData, Inline, Named };
    Place place = Place::ConstantData;
    std::uint64_t offset = 0; // ConstantData: offset inside the payload's constant data
    std::string namedKey; // Named: looked up in the program's named data or a .ptd
};
std::string_view delegateConstantPlaceName(DelegateConstant::Place place); // "constant_data", …

// A contiguous piece of the payload; the parts of a payload add up to its size exactly.
struct PayloadPart {
    std::string name; // "header", "graph", "constant data", "padding", "command stream", …
    std::uint64_t bytes = 0;
};

struct DelegatePayload {
    std::string backend; // the decoder that read it ("XNNPACK", "Vulkan", …), or "opaque"
    bool decoded = false;
    std::string identifier; // magic/identifier seen ("XH00 XN01", "vela_bin_stream", …)
    std::string version; // the payload's own version string, when it has one
    std::uint64_t bytes = 0;
    std::string note; // why it is opaque, or what was not decoded
    std::vector<DelegateValue> values;
    std::vector<std::uint32_t> inputs, outputs; // graph input/output value ids
    std::vector<DelegateNode> nodes;
    std::vector<DelegateConstant> constants;
    std::vector<PayloadPart> parts;
    std::vector<std::string> graphNames; // graphs/functions readable without the vendor SDK
    std::vector<std::string> shaders; // Vulkan: shaders bundled in the payload
    // Ethos-U: what a microcontroller budgets.
    std::optional<std::uint64_t> scratchBytes, commandStreamBytes, weightBytes;

    // Value with this id, or nullptr.
    const DelegateValue *value(std::int64_t id) const;
    std::uint64_t constantBytes() const;
    // "XNNPACK XN01: 4 nodes, 9 values, 5 constants (…)" or "opaque: 1,234 bytes, identifier 'QNN0'".
    std::string summary() const;

    // Graph input/output value id -> the index of the DelegateCall argument the backend's runtime
    // binds it to, for a call with `argCount` arguments; empty where the format does not fix it.
    // At ExecuTorch cff6f4dd32e630945b7188512c1f2b4f102b05ad: XNNPACK binds an external value to
    // args[external_id] (backends/xnnpack/runtime/XNNCompiler.cpp collects external ids,
    // XNNExecutor.cpp prepare_args reads args[ext_id]); Vulkan binds its i-th graph input to args[i]
    // and its i-th output to args[argCount - outputs + i] (backends/vulkan/runtime/VulkanBackend.cpp
    // execute). Other backends: empty (their edges stay on the call).
    std::unordered_map<std::int64_t, std::size_t> callArguments(std::size_t argCount) const;

    // Filled by finish(): value id -> index in values.
    std::unordered_map<std::int64_t, std::size_t> valueIndex;
    // Builds valueIndex and makes the parts add up to `bytes` ("unaccounted" otherwise).
    void finish();
};

// Decodes the payload of a delegate with this backend id (the BackendDelegate.id of the
// program, e.g. "XnnpackBackend"); the content is sniffed too, so a renamed backend whose
// payload carries a known header is still read.
DelegatePayload decodeDelegatePayload(std::string_view backendId, std::span<const std::uint8_t> blob);

// An opaque payload: its size, identifier (the flatbuffer file identifier or leading printable
// bytes) and the reason.
DelegatePayload opaquePayload(std::span<const std::uint8_t> blob, std::string note);

} // namespace etscope
