// The CoreML delegate's payload (ExecuTorch commit cff6f4dd32e630945b7188512c1f2b4f102b05ad).
//
// Container. CoreMLBackend.preprocess (backends/apple/coreml/compiler/coreml_preprocess.py) saves
// the converted model as a directory holding model.mlpackage (or, with the compiled_model compile
// spec, model.mlmodelc), metadata.json (identifier "executorch_<uuid>", inputNames, outputNames;
// "methods" for a multifunction model) and optionally debug_info.json, and flattens it with
// executorchcoreml.flatten_directory_contents (runtime/inmemoryfs/inmemory_filesystem_py.cpp,
// inmemory_filesystem.cpp, inmemory_filesystem_utils.cpp): the files' bytes at aligned offsets
// (alignment 1, or the page size for models over 1 GB), then the file table, a JSON object
// {"nodes": [{"name", "kind" (0 file, 1 directory), "dataRegion": {"offset", "size"},
// "children": {name: node index}}, …]} written with its characters reversed, so that read
// backwards from the end (after any zero padding) it is the JSON text; the last node is the root
// directory and a directory's children come before it. Netron's source/executorch.js
// (lutzroeder/netron) reads it the same way. With the multimethod weight-sharing strategy the
// payload is instead "CMJR" and a JSON reference {"version", "key", "functionName"} to a model
// stored in the program's named data (coreml_preprocess.py; coreml_backend_delegate.mm reads it).
//
// Model. An .mlpackage keeps its Core ML model spec at Data/com.apple.CoreML/model.mlmodel
// (Manifest.json names it) and the ML Program's weights in Data/com.apple.CoreML/weights/
// weight.bin. The spec is protobuf (apple/coremltools mlmodel/format/Model.proto, MIL.proto,
// NeuralNetwork.proto, FeatureTypes.proto); the subset read here is transcribed as field numbers
// below and read with a small bounds-checked, depth-limited wire-format reader. weight.bin is a
// MIL blob file (coremltools mlmodel/src/MILBlob/Blob/StorageFormat.hpp): a 64-byte header (u32
// count, u32 version 2), then per blob a 64-byte metadata record (u32 sentinel 0xDEADBEEF, u32
// dtype, u64 size in bytes, u64 offset of the data in the file) before its data; a const op's
// BlobFileValue names the file ("@model_path/weights/weight.bin") and the metadata's offset.
// A compiled model (.mlmodelc) holds Core ML's compiled form: an ML Program's model.mil (the
// program as text, delegates/miltext.h) is decoded like the protobuf, a compiled NeuralNetwork's
// model.espresso.net (JSON layers) layer by layer.
#include "program/delegates/miltext.h"
#include "program/delegates/payloaddecoders.h"

#include "common/littleendian.h"
#include "common/printable.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace etscope::delegates {
namespace {

using Bytes = std::span<const std::uint8_t>;

constexpr std::string_view kReferenceMagic = "CMJR";
constexpr int kMaxDepth = 16; // nested MIL blocks, pipelines, value types
constexpr std::size_t kMaxJsonDepth = 64;
constexpr std::size_t kMaxFileTable = std::size_t(64) << 20; // a file table is kilobytes
constexpr std::uint32_t kBlobSentinel = 0xDEADBEEF;
constexpr std::uint64_t kBlobRecord = 64;

std::string_view text(Bytes b)
{
    return { reinterpret_cast<const char *>(b.data()), b.size() };
}

// ---- Protobuf wire format ---------------------------------------------------------------------

struct PbField {
    std::uint32_t number = 0;
    std::uint8_t wire = 0; // 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32
    std::uint64_t varint = 0; // wire 0, 1, 5
    Bytes bytes; // wire 2
};

// Reads the fields of one message in order; stops (failed()) at anything malformed.
class PbReader
{
public:
    explicit PbReader(Bytes data)
        : m_data(data)
    { }
    bool next(PbField &f)
    {
        if (m_failed || m_pos >= m_data.size())
            return false;
        std::uint64_t key = 0;
        if (!varint(key) || (key >> 3) == 0 || (key >> 3) > 0x1FFFFFFF)
            return fail();
        f.number = static_cast<std::uint32_t>(key >> 3);
        f.wire = static_cast<std::uint8_t>(key & 7);
        f.bytes = {};
        switch (f.wire) {
        case 0:
            return varint(f.varint) || fail();
        case 1:
        case 5: {
            const std::size_t n = f.wire == 1 ? 8 : 4;
            if (m_data.size() - m_pos < n)
                return fail();
            f.varint = n == 8 ? readLe64(m_data.data() + m_pos) : readLe32(m_data.data() + m_pos);
            m_pos += n;
            return true;
        }
        case 2: {
            std::uint64_t len = 0;
            if (!varint(len) || len > m_data.size() - m_pos)
                return fail();
            f.bytes = m_data.subspan(m_pos, len);
            m_pos += len;
            return true;
        }
        default: // groups (3, 4) are not in the Core ML spec
            return fail();
        }
    }
    bool failed() const { return m_failed; }

private:
    bool fail()
    {
        m_failed = true;
        return false;
    }
    bool varint(std::uint64_t &v)
    {
        v = 0;
        for (int shift = 0; shift < 64 && m_pos < m_data.size(); shift += 7) {
            const std::uint8_t b = m_data[m_pos++];
            v |= std::uint64_t(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
                return true;
        }
        return false;
    }

    Bytes m_data;
    std::size_t m_pos = 0;
    bool m_failed = false;
};

// The varints of a repeated integer field, packed (wire 2) or not (wire 0).
void appendInts(const PbField &f, std::vector<std::int64_t> &out)
{
    if (f.wire == 0) {
        out.push_back(static_cast<std::int64_t>(f.varint));
        return;
    }
    if (f.wire != 2)
        return;
    std::size_t pos = 0;
    while (pos < f.bytes.size()) {
        std::uint64_t v = 0;
        int shift = 0;
        bool done = false;
        while (pos < f.bytes.size() && shift < 64) {
            const std::uint8_t b = f.bytes[pos++];
            v |= std::uint64_t(b & 0x7F) << shift;
            shift += 7;
            if ((b & 0x80) == 0) {
                done = true;
                break;
            }
        }
        if (!done)
            return;
        out.push_back(static_cast<std::int64_t>(v));
    }
}

// A message's string field 1 and its message field `typeField`: a map<string, M> entry (key 1,
// value 2), a NamedValueType (name 1, type 2), a FeatureDescription (name 1, type 3).
std::pair<std::string_view, Bytes> nameAndType(Bytes message, std::uint32_t typeField)
{
    std::pair<std::string_view, Bytes> out;
    PbReader r(message);
    for (PbField f; r.next(f);)
        if (f.number == 1 && f.wire == 2)
            out.first = text(f.bytes);
        else if (f.number == typeField && f.wire == 2)
            out.second = f.bytes;
    return out;
}

// ---- The Core ML spec (field numbers of Model.proto, MIL.proto, NeuralNetwork.proto) ---------

// MIL.proto DataType.
std::string milDataType(std::uint64_t t)
{
    static const std::map<std::uint64_t, const char *> names
        = { { 1, "bool" }, { 2, "string" }, { 10, "fp16" }, { 11, "fp32" }, { 12, "fp64" }, { 13, "bf16" },
              { 21, "int8" }, { 22, "int16" }, { 23, "int32" }, { 24, "int64" }, { 25, "int4" }, { 31, "uint8" },
              { 32, "uint16" }, { 33, "uint32" }, { 34, "uint64" }, { 35, "uint4" }, { 36, "uint2" }, { 37, "uint1" },
              { 38, "uint6" }, { 39, "uint3" }, { 40, "fp8e4m3fn" }, { 41, "fp8e5m2" } };
    const auto it = names.find(t);
    return it != names.end() ? it->second : fmt::format("dtype{}", t);
}

// FeatureTypes.proto ArrayFeatureType.ArrayDataType.
std::string arrayDataType(std::uint64_t t)
{
    switch (t) {
    case 65568:
        return "fp32";
    case 65600:
        return "fp64";
    case 65552:
        return "fp16";
    case 131104:
        return "int32";
    case 131080:
        return "int8";
    default:
        return fmt::format("dtype{}", t);
    }
}

// NeuralNetwork.proto NeuralNetworkLayer's `layer` oneof: field number -> layer type.
struct LayerKind {
    std::uint32_t field;
    const char *name;
};
constexpr std::array<LayerKind, 158> kLayerKinds { { { 100, "convolution" }, { 120, "pooling" }, { 130, "activation" },
    { 140, "innerProduct" }, { 150, "embedding" }, { 160, "batchnorm" }, { 165, "mvn" }, { 170, "l2normalize" },
    { 175, "softmax" }, { 180, "lrn" }, { 190, "crop" }, { 200, "padding" }, { 210, "upsample" },
    { 211, "resizeBilinear" }, { 212, "cropResize" }, { 220, "unary" }, { 230, "add" }, { 231, "multiply" },
    { 240, "average" }, { 245, "scale" }, { 250, "bias" }, { 260, "max" }, { 261, "min" }, { 270, "dot" },
    { 280, "reduce" }, { 290, "loadConstant" }, { 300, "reshape" }, { 301, "flatten" }, { 310, "permute" },
    { 320, "concat" }, { 330, "split" }, { 340, "sequenceRepeat" }, { 345, "reorganizeData" }, { 350, "slice" },
    { 400, "simpleRecurrent" }, { 410, "gru" }, { 420, "uniDirectionalLSTM" }, { 430, "biDirectionalLSTM" },
    { 500, "custom" }, { 600, "copy" }, { 605, "branch" }, { 615, "loop" }, { 620, "loopBreak" },
    { 625, "loopContinue" }, { 635, "rangeStatic" }, { 640, "rangeDynamic" }, { 660, "clip" }, { 665, "ceil" },
    { 670, "floor" }, { 680, "sign" }, { 685, "round" }, { 700, "exp2" }, { 710, "sin" }, { 715, "cos" },
    { 720, "tan" }, { 730, "asin" }, { 735, "acos" }, { 740, "atan" }, { 750, "sinh" }, { 755, "cosh" },
    { 760, "tanh" }, { 770, "asinh" }, { 775, "acosh" }, { 780, "atanh" }, { 790, "erf" }, { 795, "gelu" },
    { 815, "equal" }, { 820, "notEqual" }, { 825, "lessThan" }, { 827, "lessEqual" }, { 830, "greaterThan" },
    { 832, "greaterEqual" }, { 840, "logicalOr" }, { 845, "logicalXor" }, { 850, "logicalNot" }, { 855, "logicalAnd" },
    { 865, "modBroadcastable" }, { 870, "minBroadcastable" }, { 875, "maxBroadcastable" }, { 880, "addBroadcastable" },
    { 885, "powBroadcastable" }, { 890, "divideBroadcastable" }, { 895, "floorDivBroadcastable" },
    { 900, "multiplyBroadcastable" }, { 905, "subtractBroadcastable" }, { 920, "tile" }, { 925, "stack" },
    { 930, "gather" }, { 935, "scatter" }, { 940, "gatherND" }, { 945, "scatterND" }, { 950, "softmaxND" },
    { 952, "gatherAlongAxis" }, { 954, "scatterAlongAxis" }, { 960, "reverse" }, { 965, "reverseSeq" },
    { 975, "splitND" }, { 980, "concatND" }, { 985, "transpose" }, { 995, "sliceStatic" }, { 1000, "sliceDynamic" },
    { 1005, "slidingWindows" }, { 1015, "topK" }, { 1020, "argMin" }, { 1025, "argMax" }, { 1040, "embeddingND" },
    { 1045, "batchedMatmul" }, { 1065, "getShape" }, { 1070, "loadConstantND" }, { 1080, "fillLike" },
    { 1085, "fillStatic" }, { 1090, "fillDynamic" }, { 1100, "broadcastToLike" }, { 1105, "broadcastToStatic" },
    { 1110, "broadcastToDynamic" }, { 1120, "squeeze" }, { 1125, "expandDims" }, { 1130, "flattenTo2D" },
    { 1135, "reshapeLike" }, { 1140, "reshapeStatic" }, { 1145, "reshapeDynamic" }, { 1150, "rankPreservingReshape" },
    { 1155, "constantPad" }, { 1170, "randomNormalLike" }, { 1175, "randomNormalStatic" },
    { 1180, "randomNormalDynamic" }, { 1190, "randomUniformLike" }, { 1195, "randomUniformStatic" },
    { 1200, "randomUniformDynamic" }, { 1210, "randomBernoulliLike" }, { 1215, "randomBernoulliStatic" },
    { 1220, "randomBernoulliDynamic" }, { 1230, "categoricalDistribution" }, { 1250, "reduceL1" }, { 1255, "reduceL2" },
    { 1260, "reduceMax" }, { 1265, "reduceMin" }, { 1270, "reduceSum" }, { 1275, "reduceProd" }, { 1280, "reduceMean" },
    { 1285, "reduceLogSum" }, { 1290, "reduceSumSquare" }, { 1295, "reduceLogSumExp" }, { 1313, "whereNonZero" },
    { 1315, "matrixBandPart" }, { 1320, "lowerTriangular" }, { 1325, "upperTriangular" },
    { 1330, "whereBroadcastable" }, { 1350, "layerNormalization" }, { 1400, "NonMaximumSuppression" },
    { 1450, "oneHot" }, { 1455, "cumSum" }, { 1460, "clampedReLU" }, { 1461, "argSort" }, { 1465, "pooling3d" },
    { 1466, "globalPooling3d" }, { 1470, "sliceBySize" }, { 1471, "convolution3d" } } };

// The WeightParams fields of the layers that carry weights (NeuralNetwork.proto).
struct LayerWeights {
    std::uint32_t layer;
    std::array<std::uint32_t, 4> fields; // 0 = none
};
constexpr std::array<LayerWeights, 12> kLayerWeights { {
    { 100, { 90, 91, 0, 0 } }, // convolution: weights, bias
    { 140, { 20, 21, 0, 0 } }, // innerProduct
    { 150, { 20, 21, 0, 0 } }, // embedding
    { 160, { 15, 16, 17, 18 } }, // batchnorm: gamma, beta, mean, variance
    { 245, { 2, 5, 0, 0 } }, // scale: scale, bias
    { 250, { 2, 0, 0, 0 } }, // bias
    { 290, { 2, 0, 0, 0 } }, // loadConstant: data
    { 1040, { 20, 21, 0, 0 } }, // embeddingND
    { 1045, { 8, 9, 0, 0 } }, // batchedMatmul
    { 1070, { 2, 0, 0, 0 } }, // loadConstantND
    { 1350, { 3, 4, 0, 0 } }, // layerNormalization: gamma, beta
    { 1471, { 60, 61, 0, 0 } }, // convolution3d
} };

// ActivationParams' oneof (NeuralNetwork.proto).
const char *activationName(std::uint32_t field)
{
    switch (field) {
    case 5:
        return "linear";
    case 10:
        return "ReLU";
    case 15:
        return "leakyReLU";
    case 20:
        return "thresholdedReLU";
    case 25:
        return "PReLU";
    case 30:
        return "tanh";
    case 31:
        return "scaledTanh";
    case 40:
        return "sigmoid";
    case 41:
        return "sigmoidHard";
    case 50:
        return "ELU";
    case 60:
        return "softsign";
    case 70:
        return "softplus";
    case 71:
        return "parametricSoftplus";
    default:
        return nullptr;
    }
}

// Bytes of data in a WeightParams: floatValue (1, packed or not), float16Value (2), rawValue
// (30), int8RawValue (31).
std::uint64_t weightBytes(Bytes weightParams)
{
    std::uint64_t n = 0;
    PbReader r(weightParams);
    for (PbField f; r.next(f);) {
        if (f.number == 1)
            n += f.wire == 2 ? f.bytes.size() : 4;
        else if ((f.number == 2 || f.number == 30 || f.number == 31) && f.wire == 2)
            n += f.bytes.size();
    }
    return n;
}

// ---- The in-memory file system -----------------------------------------------------------------

struct ArchiveFile {
    std::string path;
    std::uint64_t offset = 0, size = 0;
};

// Deepest bracket nesting of a JSON text (outside strings): nlohmann's parser and destructor
// must not meet a hostile depth.
std::size_t jsonDepth(std::string_view s)
{
    std::size_t depth = 0, deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

nlohmann::json parseJson(std::string_view s)
{
    if (jsonDepth(s) > kMaxJsonDepth)
        return nlohmann::json(nlohmann::json::value_t::discarded);
    return nlohmann::json::parse(s, nullptr, false);
}

std::string jsonString(const nlohmann::json &j, const char *key)
{
    if (!j.is_object())
        return {};
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct FileTable {
    std::vector<ArchiveFile> files;
    std::uint64_t start = 0, bytes = 0; // where the reversed JSON lies
    std::string error;
};

// The reversed JSON at the end, after skipping zero padding, as the runtime reads it
// (util/json_util.cpp: braces counted outside strings).
FileTable readFileTable(Bytes blob)
{
    FileTable t;
    std::size_t end = blob.size();
    while (end > 0 && blob[end - 1] == 0)
        --end;
    if (end == 0 || blob[end - 1] != '{') {
        t.error = "no inmemoryfs file table at the end (its last byte is not '{')";
        return t;
    }
    std::string json;
    int depth = 0;
    bool inString = false;
    std::size_t i = end;
    while (i > 0 && json.size() < kMaxFileTable) {
        const char c = static_cast<char>(blob[--i]);
        json.push_back(c);
        if (inString) {
            if (c == '"' && !(json.size() >= 2 && json[json.size() - 2] == '\\'))
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}' && --depth == 0) {
            break;
        }
    }
    if (depth != 0) {
        t.error = "the inmemoryfs file table at the end is cut short";
        return t;
    }
    t.start = i;
    t.bytes = end - i;
    const nlohmann::json j = parseJson(json);
    if (j.is_discarded() || !j.is_object() || !j.contains("nodes") || !j["nodes"].is_array() || j["nodes"].empty()) {
        t.error = "the inmemoryfs file table is not JSON with a list of nodes";
        return t;
    }
    const nlohmann::json &nodes = j["nodes"];
    std::vector<bool> seen(nodes.size(), false);
    // Depth-first from the root (the last node); a child's index is below its parent's, and each
    // node is visited once, so a damaged table cannot loop or blow up.
    struct Item {
        std::size_t index;
        std::string path;
        int depth;
    };
    std::vector<Item> stack { { nodes.size() - 1, {}, 0 } };
    while (!stack.empty() && t.error.empty()) {
        Item item = std::move(stack.back());
        stack.pop_back();
        const nlohmann::json &n = nodes[item.index];
        if (seen[item.index] || !n.is_object() || item.depth > kMaxDepth) {
            t.error = fmt::format("inmemoryfs node {} is malformed or reached twice", item.index);
            break;
        }
        seen[item.index] = true;
        const auto kind = n.find("kind");
        if (kind == n.end() || !kind->is_number_unsigned() || kind->get<std::uint64_t>() > 1) {
            t.error = fmt::format("inmemoryfs node {} has no kind 0 (file) or 1 (directory)", item.index);
            break;
        }
        if (kind->get<std::uint64_t>() == 0) {
            // find(), never operator[] on a const object: a missing key there is undefined (fuzz).
            const auto region = n.find("dataRegion");
            const auto field = [&region](const char *key) -> std::optional<std::uint64_t> {
                const auto it = region->find(key);
                if (it == region->end() || !it->is_number_unsigned())
                    return std::nullopt;
                return it->get<std::uint64_t>();
            };
            const std::optional<std::uint64_t> offset
                = region != n.end() && region->is_object() ? field("offset") : std::nullopt;
            const std::optional<std::uint64_t> size = offset ? field("size") : std::nullopt;
            if (!offset || !size) {
                t.error = fmt::format("inmemoryfs file '{}' has no data region", printable(item.path, 80));
                break;
            }
            ArchiveFile f { item.path, *offset, *size };
            if (f.offset > t.start || f.size > t.start - f.offset) {
                t.error = fmt::format("inmemoryfs file '{}' ({} bytes at {}) lies past its data ({} bytes)",
                    printable(f.path, 80), f.size, f.offset, t.start);
                break;
            }
            t.files.push_back(std::move(f));
            continue;
        }
        const auto children = n.find("children");
        if (children == n.end() || !children->is_object())
            continue;
        std::vector<Item> items;
        for (const auto &[name, index] : children->items()) {
            if (!index.is_number_unsigned() || index.get<std::uint64_t>() >= item.index) {
                t.error = fmt::format("inmemoryfs directory node {} names a child out of order", item.index);
                break;
            }
            items.push_back({ static_cast<std::size_t>(index.get<std::uint64_t>()),
                item.path.empty() ? name : item.path + "/" + name, item.depth + 1 });
        }
        stack.insert(stack.end(), std::make_move_iterator(items.rbegin()), std::make_move_iterator(items.rend()));
    }
    return t;
}

// ---- The decoder ---------------------------------------------------------------------------

class CoreMLDecoder
{
public:
    CoreMLDecoder(DelegatePayload &p, Bytes blob, std::vector<ArchiveFile> files)
        : m_p(p)
        , m_blob(blob)
        , m_files(std::move(files))
    { }

    const ArchiveFile *file(std::string_view path) const
    {
        for (const ArchiveFile &f : m_files)
            if (f.path == path)
                return &f;
        return nullptr;
    }
    Bytes bytesOf(const ArchiveFile &f) const { return m_blob.subspan(f.offset, f.size); }

    // The model spec: the .mlpackage's Manifest.json names it; else any *.mlmodel.
    const ArchiveFile *modelSpec() const
    {
        for (const ArchiveFile &f : m_files) {
            const std::size_t slash = f.path.rfind('/');
            if (f.path.compare(slash == std::string::npos ? 0 : slash + 1, std::string::npos, "Manifest.json") != 0)
                continue;
            const std::string dir = slash == std::string::npos ? std::string() : f.path.substr(0, slash + 1);
            const nlohmann::json m = parseJson(text(bytesOf(f)));
            const std::string root = jsonString(m, "rootModelIdentifier");
            if (!m.is_object() || !m.contains("itemInfoEntries") || !m["itemInfoEntries"].is_object())
                continue;
            const nlohmann::json &entries = m["itemInfoEntries"];
            const auto it = entries.find(root);
            const std::string path = it != entries.end() ? jsonString(*it, "path") : std::string();
            if (const ArchiveFile *spec = file(dir + "Data/" + path); spec && !path.empty())
                return spec;
        }
        for (const ArchiveFile &f : m_files)
            if (f.path.size() > 8 && f.path.ends_with(".mlmodel"))
                return &f;
        return nullptr;
    }

    void decodeModel(const ArchiveFile &spec)
    {
        const std::size_t slash = spec.path.rfind('/');
        m_modelDir = slash == std::string::npos ? std::string() : spec.path.substr(0, slash);
        decodeModel(bytesOf(spec), 0);
    }

    void note(std::string s)
    {
        if (m_p.note.empty())
            m_p.note = std::move(s);
    }
    std::string modelType;
    std::int64_t specificationVersion = -1;
    std::vector<std::string> modelFacts; // model version, coremltools version, source framework

private:
    std::uint32_t valueId(std::string_view name)
    {
        const auto it = m_ids.find(std::string(name));
        if (it != m_ids.end())
            return it->second;
        DelegateValue v;
        v.id = static_cast<std::uint32_t>(m_p.values.size());
        v.name = name;
        m_ids.emplace(v.name, v.id);
        m_p.values.push_back(std::move(v));
        return m_p.values.back().id;
    }

    void decodeModel(Bytes model, int depth)
    {
        PbReader r(model);
        Bytes description;
        for (PbField f; r.next(f);) {
            if (f.number == 1 && f.wire == 0 && depth == 0) {
                specificationVersion = static_cast<std::int64_t>(f.varint);
            } else if (f.number == 2 && f.wire == 2) {
                description = f.bytes;
                if (depth == 0)
                    readMetadata(description);
            } else if (f.wire == 2 && f.number >= 200) {
                decodeModelType(f.number, f.bytes, description, depth);
            }
        }
        if (r.failed())
            note("the model spec's protobuf is damaged; decoded up to the damage");
    }

    // ModelDescription.metadata (100): versionString (2), userDefined (100, map<string,
    // string>) where coremltools records its version and the source framework
    // (coremltools/models/model.py: com.github.apple.coremltools.version, ….source).
    void readMetadata(Bytes description)
    {
        PbReader r(description);
        for (PbField f; r.next(f);) {
            if (f.number != 100 || f.wire != 2)
                continue;
            PbReader m(f.bytes);
            for (PbField g; m.next(g);) {
                if (g.number == 2 && g.wire == 2 && !g.bytes.empty())
                    modelFacts.push_back(fmt::format("model version {}", printable(text(g.bytes), 40)));
                if (g.number != 100 || g.wire != 2)
                    continue;
                const auto [key, value] = nameAndType(g.bytes, 2);
                if (key == "com.github.apple.coremltools.version")
                    modelFacts.push_back(fmt::format("coremltools {}", printable(text(value), 40)));
                else if (key == "com.github.apple.coremltools.source")
                    modelFacts.push_back(fmt::format("from {}", printable(text(value), 40)));
            }
        }
    }

    void decodeModelType(std::uint32_t field, Bytes body, Bytes description, int depth)
    {
        if (field == 502) {
            setType("ML Program");
            decodeProgram(body);
        } else if (field == 500 || field == 403 || field == 303) {
            setType(field == 500   ? "NeuralNetwork"
                    : field == 403 ? "NeuralNetworkClassifier"
                                   : "NeuralNetworkRegressor");
            decodeNeuralNetwork(body, description);
        } else if ((field == 200 || field == 201 || field == 202) && depth < kMaxDepth) {
            setType("Pipeline");
            decodePipeline(body, field == 202, depth);
        } else {
            setType(fmt::format("model type field {}", field));
            note(fmt::format("model type (Model.proto field {}) has no layers to decode", field));
        }
    }

    void setType(std::string type)
    {
        if (modelType.empty())
            modelType = std::move(type);
    }

    void decodePipeline(Bytes pipeline, bool plain, int depth)
    {
        // PipelineClassifier/Regressor hold a Pipeline (1); a Pipeline holds models (1).
        PbReader r(pipeline);
        for (PbField f; r.next(f);) {
            if (f.number != 1 || f.wire != 2)
                continue;
            if (plain)
                decodeModel(f.bytes, depth + 1);
            else
                decodePipeline(f.bytes, true, depth + 1);
        }
    }

    // ---- ML Program (MIL.proto)

    void decodeProgram(Bytes program)
    {
        std::vector<std::pair<std::string_view, Bytes>> functions;
        PbReader r(program);
        for (PbField f; r.next(f);)
            if (f.number == 2 && f.wire == 2)
                functions.push_back(nameAndType(f.bytes, 2));
        for (const auto &[name, function] : functions) {
            m_p.graphNames.emplace_back(name);
            m_prefix = functions.size() > 1 ? fmt::format("[{}] ", name) : std::string();
            decodeFunction(function);
        }
        if (r.failed())
            note("the ML Program's protobuf is damaged; decoded up to the damage");
    }

    void decodeFunction(Bytes function)
    {
        std::string_view opset;
        std::vector<std::pair<std::string_view, Bytes>> blocks;
        PbReader r(function);
        for (PbField f; r.next(f);) {
            if (f.number == 1 && f.wire == 2)
                m_p.inputs.push_back(namedValue(f.bytes));
            else if (f.number == 2 && f.wire == 2)
                opset = text(f.bytes);
            else if (f.number == 3 && f.wire == 2)
                blocks.push_back(nameAndType(f.bytes, 2));
        }
        if (blocks.empty())
            return;
        auto chosen = std::find_if(blocks.begin(), blocks.end(), [&](const auto &b) { return b.first == opset; });
        if (chosen == blocks.end())
            chosen = blocks.begin();
        if (!chosen->first.empty() && m_opsets.insert(std::string(chosen->first)).second)
            m_p.version += (m_p.version.empty() ? "" : ", ") + std::string(chosen->first);
        decodeBlock(chosen->second, 0, true);
    }

    // A NamedValueType: its value id, with the type it states.
    std::uint32_t namedValue(Bytes nvt)
    {
        const auto [name, type] = nameAndType(nvt, 2);
        const std::uint32_t id = valueId(name);
        if (!type.empty())
            setValueType(m_p.values[id], type, 0);
        return id;
    }

    void setValueType(DelegateValue &v, Bytes valueType, int depth)
    {
        PbReader r(valueType);
        for (PbField f; r.next(f);) {
            if (f.wire != 2)
                continue;
            switch (f.number) {
            case 1: { // TensorType: dataType (1), rank (2), dimensions (3)
                bool unknown = false;
                std::vector<std::string> dims;
                PbReader t(f.bytes);
                for (PbField g; t.next(g);) {
                    if (g.number == 1 && g.wire == 0)
                        v.dtype = milDataType(g.varint);
                    else if (g.number == 3 && g.wire == 2)
                        dims.push_back(dimension(g.bytes, v, unknown));
                }
                if (unknown) // a shape with a symbolic dimension is shown as text
                    v.text = fmt::format("{}[{}]", v.dtype, fmt::join(dims, ", "));
                return;
            }
            case 2:
                v.dtype = "list";
                return;
            case 3:
                v.dtype = "tuple";
                return;
            case 4:
                v.dtype = "dict";
                return;
            case 5: { // StateType: wrappedType (1)
                PbReader s(f.bytes);
                for (PbField g; s.next(g);)
                    if (g.number == 1 && g.wire == 2 && depth < kMaxDepth)
                        setValueType(v, g.bytes, depth + 1);
                v.dtype = "state " + v.dtype;
                if (!v.text.empty())
                    v.text = "state " + v.text;
                return;
            }
            default:
                break;
            }
        }
    }

    // Dimension: constant (1) {size (1)} or unknown (2).
    static std::string dimension(Bytes d, DelegateValue &v, bool &unknown)
    {
        PbReader r(d);
        for (PbField f; r.next(f);) {
            if (f.number == 1 && f.wire == 2) {
                std::uint64_t size = 0;
                PbReader c(f.bytes);
                for (PbField g; c.next(g);)
                    if (g.number == 1 && g.wire == 0)
                        size = g.varint;
                v.shape.push_back(size);
                return fmt::format("{}", size);
            }
            if (f.number == 2) {
                unknown = true;
                v.shape.push_back(0);
                return "?";
            }
        }
        v.shape.push_back(0);
        unknown = true;
        return "?";
    }

    void decodeBlock(Bytes block, int depth, bool top)
    {
        PbReader r(block);
        for (PbField f; r.next(f);) {
            if (f.number == 2 && f.wire == 2 && top)
                m_p.outputs.push_back(valueId(text(f.bytes)));
            else if (f.number == 3 && f.wire == 2)
                decodeOperation(f.bytes, depth);
        }
    }

    void decodeOperation(Bytes op, int depth)
    {
        DelegateNode node;
        std::vector<std::string> args;
        std::vector<Bytes> blocks;
        std::vector<std::pair<std::string_view, Bytes>> attributes;
        PbReader r(op);
        for (PbField f; r.next(f);) {
            if (f.wire != 2)
                continue;
            if (f.number == 1) {
                node.op = text(f.bytes);
            } else if (f.number == 2) { // inputs: map<string, Argument>
                const auto [name, argument] = nameAndType(f.bytes, 2);
                bool bound = false, immediate = false;
                PbReader a(argument);
                for (PbField g; a.next(g);) { // Argument.arguments (1): Binding {name (1) | value (2)}
                    if (g.number != 1 || g.wire != 2)
                        continue;
                    PbReader b(g.bytes);
                    for (PbField h; b.next(h);)
                        if (h.number == 1 && h.wire == 2)
                            node.inputs.push_back(valueId(text(h.bytes))), bound = true;
                        else if (h.number == 2 && h.wire == 2)
                            immediate = true;
                }
                args.push_back(std::string(name) + (immediate && !bound ? " (inline)" : ""));
            } else if (f.number == 3) {
                node.outputs.push_back(namedValue(f.bytes));
            } else if (f.number == 4) {
                blocks.push_back(f.bytes);
            } else if (f.number == 5) { // attributes: map<string, Value>
                attributes.push_back(nameAndType(f.bytes, 2));
            }
        }
        // Weights: a const's "val" (inline or in a blob file), and any attribute in a blob file
        // (the constexpr_* ops of compressed weights).
        std::vector<std::string> held;
        for (const auto &[name, value] : attributes)
            if (std::string c = constant(value, node.outputs, node.op == "const" && name == "val"); !c.empty())
                held.push_back(node.op == "const" ? c : fmt::format("{}: {}", name, c));
        if (!held.empty())
            node.params = fmt::format("{}", fmt::join(held, "; "));
        if (!args.empty())
            node.params += fmt::format("{}args: {}", node.params.empty() ? "" : "; ", fmt::join(args, ", "));
        if (!blocks.empty())
            node.params += fmt::format(
                "{}{} nested block{}", node.params.empty() ? "" : "; ", blocks.size(), blocks.size() == 1 ? "" : "s");
        if (depth > 0)
            node.params = fmt::format("(in a block, depth {}) {}", depth, node.params);
        if (!m_prefix.empty())
            node.params = m_prefix + node.params;
        m_p.nodes.push_back(std::move(node));
        for (Bytes b : blocks) {
            if (depth >= kMaxDepth) {
                note("MIL blocks nested too deep; the deepest are not listed");
                break;
            }
            decodeBlock(b, depth + 1, false);
        }
    }

    // A const's Value: immediateValue (3) inline in the spec, or blobFileValue (5) {fileName (1),
    // offset (2)} into a blob file. Registers the constant and returns the node's params.
    std::string constant(Bytes value, const std::vector<std::int64_t> &outputs, bool inlineToo)
    {
        PbReader r(value);
        for (PbField f; r.next(f);) {
            if (f.number == 3 && f.wire == 2 && inlineToo) {
                m_p.constants.push_back({ f.bytes.size(), DelegateConstant::Place::Inline, 0, {} });
                linkConstant(outputs);
                return fmt::format("inline {} bytes", f.bytes.size());
            }
            if (f.number != 5 || f.wire != 2)
                continue;
            std::string_view fileName;
            std::uint64_t offset = 0;
            PbReader b(f.bytes);
            for (PbField g; b.next(g);)
                if (g.number == 1 && g.wire == 2)
                    fileName = text(g.bytes);
                else if (g.number == 2 && g.wire == 0)
                    offset = g.varint;
            return blobConstant(fileName, offset, outputs);
        }
        return {};
    }

    std::string blobConstant(std::string_view fileName, std::uint64_t offset, const std::vector<std::int64_t> &outputs)
    {
        constexpr std::string_view modelPath = "@model_path/";
        std::string path(fileName);
        if (path.starts_with(modelPath))
            path = (m_modelDir.empty() ? "" : m_modelDir + "/") + path.substr(modelPath.size());
        const std::string shown = printable(fileName, 80);
        const ArchiveFile *blobFile = file(path);
        if (!blobFile) {
            note(fmt::format("blob file '{}' is not in the payload", shown));
            return fmt::format("blob {} offset {}: file not in the payload", shown, offset);
        }
        if (offset > blobFile->size || blobFile->size - offset < kBlobRecord) {
            note(fmt::format("a blob at offset {} lies past '{}'", offset, shown));
            return fmt::format("blob {} offset {}: past the file", shown, offset);
        }
        const std::uint8_t *rec = m_blob.data() + blobFile->offset + offset;
        const std::uint64_t size = readLe64(rec + 8), dataOffset = readLe64(rec + 16);
        if (readLe32(rec) != kBlobSentinel || dataOffset > blobFile->size || size > blobFile->size - dataOffset) {
            note(fmt::format("the blob record at offset {} of '{}' is damaged", offset, shown));
            return fmt::format("blob {} offset {}: damaged record", shown, offset);
        }
        m_p.constants.push_back({ size, DelegateConstant::Place::ConstantData, blobFile->offset + dataOffset, {} });
        linkConstant(outputs);
        return fmt::format("{} bytes in {} at {}", size, shown, dataOffset);
    }

public:
    // A compiled ML Program (model.mlmodelc/model.mil): the program as text (delegates/miltext.h),
    // each operation a node as from the .mlpackage's protobuf, BLOBFILE constants read from the
    // compiled weights (same MIL blob records), written-out values counted as inline text.
    void decodeMilText(const ArchiveFile &mil)
    {
        const std::size_t slash = mil.path.rfind('/');
        m_modelDir = slash == std::string::npos ? std::string() : mil.path.substr(0, slash);
        const MilTextProgram program = parseMilText(text(bytesOf(mil)));
        m_p.version = "MIL text " + printable(program.version.empty() ? "?" : program.version, 20);
        for (const MilTextFunction &f : program.functions) {
            m_p.graphNames.push_back(printable(f.name, 80));
            m_prefix = program.functions.size() > 1 ? fmt::format("[{}] ", printable(f.name, 80)) : std::string();
            if (!f.opset.empty() && m_opsets.insert(f.opset).second)
                m_p.version += ", " + printable(f.opset, 40);
            for (const MilTextValue &v : f.inputs)
                m_p.inputs.push_back(textValue(v));
            for (const MilTextOp &op : f.ops)
                addTextOperation(op);
            for (const std::string &name : f.outputs)
                m_p.outputs.push_back(valueId(name));
        }
        if (!program.error.empty())
            note(fmt::format("{}: {}; decoded up to there", printable(mil.path, 80), program.error));
    }

    // A compiled NeuralNetwork (model.mlmodelc/model.espresso.net, JSON): "layers", each with its
    // "type", "name", "bottom" and "top" (value names joined by commas) and blob_* keys naming
    // blobs of model.espresso.weights (u64 count, then count × {u64 key, u64 size}, then the
    // blobs' data in that order); model.espresso.shape gives each value's n/k/w/h. Facts from
    // lutzroeder/netron source/espresso.js (read, not copied).
    void decodeEspresso(const ArchiveFile &net)
    {
        const std::size_t slash = net.path.rfind('/');
        const std::string dir = slash == std::string::npos ? std::string() : net.path.substr(0, slash + 1);
        const nlohmann::json j = parseJson(text(bytesOf(net)));
        if (!j.is_object() || !j.contains("layers") || !j["layers"].is_array()) {
            note(fmt::format("{} is not an espresso network (JSON with \"layers\")", printable(net.path, 80)));
            return;
        }
        if (const auto v = j.find("format_version"); v != j.end() && v->is_number_unsigned())
            m_p.version = fmt::format("espresso format {}", v->get<std::uint64_t>());
        const std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> blobs
            = espressoBlobs(file(dir + "model.espresso.weights"));
        std::map<std::string, std::string> shapes; // value name -> "n 1, k 64, w 8, h 8"
        if (const ArchiveFile *shape = file(dir + "model.espresso.shape")) {
            const nlohmann::json sj = parseJson(text(bytesOf(*shape)));
            if (sj.is_object() && sj.contains("layer_shapes") && sj["layer_shapes"].is_object())
                for (const auto &[name, dims] : sj["layer_shapes"].items()) {
                    std::vector<std::string> each;
                    for (const char *k : { "n", "k", "w", "h" })
                        if (dims.is_object() && dims.contains(k) && dims[k].is_number_integer())
                            each.push_back(fmt::format("{} {}", k, dims[k].get<std::int64_t>()));
                    shapes[name] = fmt::format("{}", fmt::join(each, ", "));
                }
        }
        auto names = [&](const nlohmann::json &layer, const char *key) {
            std::vector<std::int64_t> ids;
            const std::string joined = jsonString(layer, key);
            for (std::size_t start = 0; start <= joined.size() && !joined.empty();) {
                const std::size_t comma = std::min(joined.find(',', start), joined.size());
                if (comma > start) {
                    const std::uint32_t id = valueId(std::string_view(joined).substr(start, comma - start));
                    if (const auto s = shapes.find(m_p.values[id].name); s != shapes.end())
                        m_p.values[id].text = s->second;
                    ids.push_back(id);
                }
                start = comma + 1;
            }
            return ids;
        };
        for (const nlohmann::json &layer : j["layers"]) {
            DelegateNode node;
            node.op = printable(jsonString(layer, "type"), 80);
            if (node.op.empty())
                node.op = "layer";
            node.inputs = names(layer, "bottom");
            node.outputs = names(layer, "top");
            std::vector<std::string> held;
            if (layer.is_object())
                for (const auto &[key, value] : layer.items()) {
                    if (!key.starts_with("blob_") || !value.is_number_unsigned())
                        continue;
                    const auto b = blobs.find(value.get<std::uint64_t>());
                    if (b == blobs.end()) {
                        held.push_back(fmt::format("{}: blob {} not in the weights", printable(key, 40), value.dump()));
                        continue;
                    }
                    m_p.constants.push_back(
                        { b->second.first, DelegateConstant::Place::ConstantData, b->second.second, {} });
                    held.push_back(fmt::format("{}: {} bytes", printable(key, 40), b->second.first));
                }
            if (const std::string name = jsonString(layer, "name"); !name.empty())
                held.insert(held.begin(), printable(name, 80));
            node.params = fmt::format("{}", fmt::join(held, "; "));
            m_p.nodes.push_back(std::move(node));
        }
    }

private:
    // model.espresso.weights: blob key -> (size, offset of its data in the payload).
    std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> espressoBlobs(const ArchiveFile *weights)
    {
        std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> out;
        if (!weights)
            return out;
        const Bytes w = bytesOf(*weights);
        if (w.size() < 8)
            return out;
        const std::uint64_t count = readLe64(w.data());
        if (count > (w.size() - 8) / 16) {
            note("model.espresso.weights: its blob table is longer than the file");
            return out;
        }
        std::uint64_t data = 8 + count * 16;
        for (std::uint64_t i = 0; i < count; ++i) {
            const std::uint64_t key = readLe64(w.data() + 8 + i * 16), size = readLe64(w.data() + 16 + i * 16);
            if (size > w.size() - data) {
                note("model.espresso.weights: a blob lies past the file");
                break;
            }
            out.emplace(key, std::make_pair(size, weights->offset + data));
            data += size;
        }
        return out;
    }

    std::uint32_t textValue(const MilTextValue &v)
    {
        const std::uint32_t id = valueId(v.name);
        DelegateValue &value = m_p.values[id];
        value.dtype = printable(v.dtype, 60);
        if (v.shape)
            value.shape = *v.shape;
        return id;
    }

    void addTextOperation(const MilTextOp &op)
    {
        DelegateNode node;
        node.op = printable(op.op, 80);
        std::vector<std::string> args;
        for (const auto &[param, names] : op.args) {
            for (const std::string &n : names)
                node.inputs.push_back(valueId(n));
            args.push_back(printable(param, 40) + (names.empty() ? " (inline)" : ""));
        }
        for (const MilTextValue &v : op.outputs)
            node.outputs.push_back(textValue(v));
        if (op.blobOffset) {
            node.params = blobConstant(op.blobPath, *op.blobOffset, node.outputs);
        } else if (op.inlineValue) {
            m_p.constants.push_back({ op.inlineChars, DelegateConstant::Place::Inline, 0, {} });
            linkConstant(node.outputs);
            node.params = fmt::format("inline, {} characters of text", op.inlineChars);
        }
        if (!args.empty())
            node.params += fmt::format("{}args: {}", node.params.empty() ? "" : "; ", fmt::join(args, ", "));
        if (!m_prefix.empty())
            node.params = m_prefix + node.params;
        m_p.nodes.push_back(std::move(node));
    }

    void linkConstant(const std::vector<std::int64_t> &outputs)
    {
        for (std::int64_t id : outputs)
            m_p.values[static_cast<std::size_t>(id)].constant = static_cast<std::uint32_t>(m_p.constants.size());
    }

    // ---- NeuralNetwork (NeuralNetwork.proto)

    void decodeNeuralNetwork(Bytes nn, Bytes description)
    {
        // The model's inputs and outputs with their multi-array types (Model.proto
        // ModelDescription: input (1), output (10); FeatureDescription: name (1), type (3)).
        PbReader d(description);
        for (PbField f; d.next(f);)
            if ((f.number == 1 || f.number == 10) && f.wire == 2)
                (f.number == 1 ? m_p.inputs : m_p.outputs).push_back(feature(f.bytes));
        PbReader r(nn);
        for (PbField f; r.next(f);)
            if (f.number == 1 && f.wire == 2)
                decodeLayer(f.bytes);
        if (r.failed())
            note("the neural network's protobuf is damaged; decoded up to the damage");
    }

    std::uint32_t feature(Bytes fd)
    {
        const auto [name, type] = nameAndType(fd, 3);
        const std::uint32_t id = valueId(name);
        DelegateValue &v = m_p.values[id];
        PbReader t(type); // FeatureType: multiArrayType (5) {shape (1), dataType (2)}
        for (PbField f; t.next(f);) {
            if (f.number != 5 || f.wire != 2)
                continue;
            std::vector<std::int64_t> shape;
            PbReader a(f.bytes);
            for (PbField g; a.next(g);)
                if (g.number == 1)
                    appendInts(g, shape);
                else if (g.number == 2 && g.wire == 0)
                    v.dtype = arrayDataType(g.varint);
            v.shape.assign(shape.begin(), shape.end());
        }
        return id;
    }

    void decodeLayer(Bytes layer)
    {
        DelegateNode node;
        std::string_view name;
        std::vector<Bytes> outputTensors;
        std::vector<std::string> weights;
        PbReader r(layer);
        for (PbField f; r.next(f);) {
            if (f.wire != 2)
                continue;
            if (f.number == 1) {
                name = text(f.bytes);
            } else if (f.number == 2) {
                node.inputs.push_back(valueId(text(f.bytes)));
            } else if (f.number == 3) {
                node.outputs.push_back(valueId(text(f.bytes)));
            } else if (f.number == 5) {
                outputTensors.push_back(f.bytes);
            } else if (f.number >= 100) {
                const auto kind = std::find_if(
                    kLayerKinds.begin(), kLayerKinds.end(), [&](const LayerKind &k) { return k.field == f.number; });
                node.op = kind != kLayerKinds.end() ? kind->name : fmt::format("layer field {}", f.number);
                layerWeights(f.number, f.bytes, weights);
                if (f.number == 130) { // activation: which one
                    PbReader a(f.bytes);
                    PbField g;
                    if (a.next(g) && activationName(g.number))
                        weights.insert(weights.begin(), activationName(g.number));
                }
            }
        }
        // Output shapes when the layer states them: Tensor {rank (1), dimValue (2)}.
        for (std::size_t i = 0; i < outputTensors.size() && i < node.outputs.size(); ++i) {
            std::vector<std::int64_t> dims;
            PbReader t(outputTensors[i]);
            for (PbField g; t.next(g);)
                if (g.number == 2)
                    appendInts(g, dims);
            m_p.values[static_cast<std::size_t>(node.outputs[i])].shape.assign(dims.begin(), dims.end());
        }
        if (node.op.empty())
            node.op = "layer";
        node.params = fmt::format("'{}'", printable(name, 120));
        if (!weights.empty())
            node.params += fmt::format(", {}", fmt::join(weights, ", "));
        m_p.nodes.push_back(std::move(node));
    }

    void layerWeights(std::uint32_t layerField, Bytes params, std::vector<std::string> &out)
    {
        const auto lw = std::find_if(
            kLayerWeights.begin(), kLayerWeights.end(), [&](const LayerWeights &w) { return w.layer == layerField; });
        if (lw == kLayerWeights.end())
            return;
        PbReader r(params);
        for (PbField f; r.next(f);) {
            if (f.wire != 2 || std::find(lw->fields.begin(), lw->fields.end(), f.number) == lw->fields.end()
                || f.number == 0)
                continue;
            const std::uint64_t n = weightBytes(f.bytes);
            m_p.constants.push_back({ n, DelegateConstant::Place::Inline, 0, {} });
            out.push_back(fmt::format("weights #{} {} bytes", m_p.constants.size(), n));
        }
    }

    DelegatePayload &m_p;
    Bytes m_blob;
    std::vector<ArchiveFile> m_files;
    std::unordered_map<std::string, std::uint32_t> m_ids;
    std::unordered_set<std::string> m_opsets;
    std::string m_modelDir, m_prefix;
};

DelegatePayload decodeReference(Bytes blob)
{
    const std::string_view json = text(blob.subspan(kReferenceMagic.size()));
    const nlohmann::json j = parseJson(json);
    const std::string key = jsonString(j, "key");
    if (j.is_discarded() || key.empty())
        return opaquePayload(blob, "CoreML reference (CMJR) whose JSON has no key");
    DelegatePayload p;
    p.backend = "CoreML";
    p.decoded = true;
    p.identifier = "CMJR";
    p.bytes = blob.size();
    if (j.contains("version") && j["version"].is_number_integer())
        p.version = fmt::format("reference version {}", j["version"].get<std::int64_t>());
    if (const std::string fn = jsonString(j, "functionName"); !fn.empty())
        p.graphNames.push_back(fn);
    p.constants.push_back({ 0, DelegateConstant::Place::Named, 0, key });
    p.note = fmt::format("the model is stored in the program's named data under '{}'", printable(key, 120));
    p.parts = { { "magic", kReferenceMagic.size() }, { "JSON reference", blob.size() - kReferenceMagic.size() } };
    p.finish();
    return p;
}

} // namespace

bool looksLikeCoreMLReference(std::span<const std::uint8_t> blob)
{
    return blob.size() >= kReferenceMagic.size()
        && std::memcmp(blob.data(), kReferenceMagic.data(), kReferenceMagic.size()) == 0;
}

DelegatePayload decodeCoreML(std::span<const std::uint8_t> blob)
{
    if (looksLikeCoreMLReference(blob))
        return decodeReference(blob);
    FileTable table = readFileTable(blob);
    if (!table.error.empty())
        return opaquePayload(blob, table.error);
    // The parts: the files in offset order, the gaps between them, the table, trailing zeros.
    std::vector<ArchiveFile> byOffset = table.files;
    std::sort(byOffset.begin(), byOffset.end(), [](const ArchiveFile &a, const ArchiveFile &b) {
        return std::tie(a.offset, a.path) < std::tie(b.offset, b.path);
    });
    DelegatePayload p;
    std::uint64_t pos = 0;
    for (const ArchiveFile &f : byOffset) {
        if (f.offset < pos && f.size > 0)
            return opaquePayload(blob, fmt::format("inmemoryfs file '{}' overlaps another", printable(f.path, 80)));
        if (f.offset > pos)
            p.parts.push_back({ "padding", f.offset - pos });
        p.parts.push_back({ f.path, f.size });
        pos = std::max(pos, f.offset + f.size);
    }
    if (table.start > pos)
        p.parts.push_back({ "padding", table.start - pos });
    p.parts.push_back({ "inmemoryfs file table", table.bytes });
    if (blob.size() > table.start + table.bytes)
        p.parts.push_back({ "padding", blob.size() - table.start - table.bytes });

    p.backend = "CoreML";
    p.decoded = true;
    p.bytes = blob.size();
    p.identifier = "inmemoryfs";
    CoreMLDecoder d(p, blob, std::move(table.files));
    if (const ArchiveFile *meta = d.file("metadata.json")) {
        const nlohmann::json m = parseJson(text(d.bytesOf(*meta)));
        if (const std::string id = jsonString(m, "identifier"); !id.empty())
            p.identifier = printable(id, 80);
    }
    if (const ArchiveFile *spec = d.modelSpec()) {
        d.decodeModel(*spec);
        std::string version = d.specificationVersion >= 0 ? fmt::format("specification {}", d.specificationVersion)
                                                          : std::string("specification ?");
        if (!p.version.empty())
            version += ", " + p.version;
        for (const std::string &fact : d.modelFacts)
            version += ", " + fact;
        p.version = std::move(version);
        if (!d.modelType.empty())
            p.identifier += " " + d.modelType;
    } else if (const ArchiveFile *mil = d.file("model.mlmodelc/model.mil")) {
        p.identifier += " compiled model";
        d.decodeMilText(*mil);
    } else if (const ArchiveFile *net = d.file("model.mlmodelc/model.espresso.net")) {
        p.identifier += " compiled model";
        d.decodeEspresso(*net);
    } else if (std::any_of(p.parts.begin(), p.parts.end(),
                   [](const PayloadPart &part) { return part.name.starts_with("model.mlmodelc/"); })) {
        p.identifier += " compiled model";
        d.note("a compiled model (model.mlmodelc) with neither model.mil nor model.espresso.net: its files are listed");
    } else {
        d.note("no Core ML model spec (*.mlmodel) in the payload");
    }
    p.finish();
    return p;
}

} // namespace etscope::delegates
