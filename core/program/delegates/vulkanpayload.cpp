// The Vulkan delegate's payload: the 30-byte "VH00" header (payloaddecoders.h), a VkGraph
// flatbuffer (identifier VK00) and the raw bytes its constants and custom shaders point into
// (backends/vulkan/runtime/VulkanDelegateHeader.cpp, backends/vulkan/runtime/VulkanBackend.cpp,
// backends/vulkan/serialization/vulkan_graph_serialize.py at ExecuTorch commit
// cff6f4dd32e630945b7188512c1f2b4f102b05ad). Our transcription of the graph schema is
// vulkan.fbs. An OperatorCall stores its arguments as one list of value ids with no split into
// inputs and outputs (the operator's schema decides), so a node's `inputs` here are all its
// arguments in order and its `outputs` are empty.
#include "program/delegates/payloaddecoders.h"

#include "common/flatbufferalign.h"

#include "vulkan_generated.h"

#include <fmt/format.h>

#include <cstring>

namespace etscope::delegates {
namespace {

namespace vf = etscope::vkfb;

std::string dtypeName(vf::VkDataType t)
{
    const char *n = vf::EnumNameVkDataType(t);
    std::string s = n && *n ? n : fmt::format("dtype{}", static_cast<int>(t));
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string lower(const char *name, int fallback)
{
    std::string s = name && *name ? name : fmt::format("{}", fallback);
    for (char &c : s)
        c = c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

template <typename T> std::string listText(const flatbuffers::Vector<T> *items)
{
    if (!items)
        return "[]";
    if (!elementsAligned(items))
        return fmt::format("[{} items, misaligned in the payload]", items->size());
    return fmt::format("[{}]", fmt::join(*items, ", "));
}

DelegateValue valueOf(const vf::VkValue &v, std::uint32_t id)
{
    DelegateValue out;
    out.id = id;
    using G = vf::GraphTypes;
    if (v.value() == nullptr) { // the verifier lets a union's type come without its table
        out.dtype = "missing";
        out.text = fmt::format("value type {} without its data", static_cast<int>(v.value_type()));
        return out;
    }
    switch (v.value_type()) {
    case G::VkTensor: {
        const vf::VkTensor *t = v.value_as_VkTensor();
        out.dtype = dtypeName(t->datatype());
        if (t->dims())
            out.shape.assign(t->dims()->begin(), t->dims()->end());
        if (t->constant_id() >= 0)
            out.constant = static_cast<std::uint32_t>(t->constant_id()) + 1;
        std::string storage = t->storage_type() == vf::VkStorageType::DEFAULT_STORAGE
            ? std::string("default storage")
            : lower(vf::EnumNameVkStorageType(t->storage_type()), static_cast<int>(t->storage_type()));
        if (t->memory_layout() != vf::VkMemoryLayout::DEFAULT_LAYOUT)
            storage
                += ", " + lower(vf::EnumNameVkMemoryLayout(t->memory_layout()), static_cast<int>(t->memory_layout()));
        if (t->mem_obj_id() >= 0)
            storage += fmt::format(", memory object {}", t->mem_obj_id());
        out.storage = std::move(storage);
        break;
    }
    case G::Int:
        out.dtype = "int";
        out.text = fmt::format("{}", v.value_as_Int()->int_val());
        break;
    case G::Double:
        out.dtype = "double";
        out.text = fmt::format("{}", v.value_as_Double()->double_val());
        break;
    case G::Bool:
        out.dtype = "bool";
        out.text = v.value_as_Bool()->bool_val() ? "true" : "false";
        break;
    case G::IntList:
        out.dtype = "int_list";
        out.text = listText(v.value_as_IntList()->items());
        break;
    case G::DoubleList:
        out.dtype = "double_list";
        out.text = listText(v.value_as_DoubleList()->items());
        break;
    case G::BoolList:
        out.dtype = "bool_list";
        out.text
            = fmt::format("[{} bools]", v.value_as_BoolList()->items() ? v.value_as_BoolList()->items()->size() : 0);
        break;
    case G::ValueList:
        out.dtype = "value_list";
        out.text = v.value_as_ValueList()->items()
            ? fmt::format("values [{}]", fmt::join(*v.value_as_ValueList()->items(), ", "))
            : "values []";
        break;
    case G::String:
        out.dtype = "string";
        out.text
            = fmt::format("\"{}\"", v.value_as_String()->string_val() ? v.value_as_String()->string_val()->str() : "");
        break;
    case G::SymInt:
        out.dtype = "symint";
        out.text = fmt::format("symint {}", v.value_as_SymInt()->value());
        break;
    case G::Null:
        out.dtype = "none";
        out.text = "None";
        break;
    default:
        out.dtype = "unknown";
        out.text = fmt::format("value type {}", static_cast<int>(v.value_type()));
        break;
    }
    return out;
}

} // namespace

bool looksLikeVulkan(std::span<const std::uint8_t> blob)
{
    return blob.size() >= 8 && std::memcmp(blob.data() + 4, "VH00", 4) == 0;
}

DelegatePayload decodeVulkan(std::span<const std::uint8_t> blob)
{
    const SegmentedHeaderRead hr = readSegmentedHeader(blob, "VH00");
    if (!hr.error.empty())
        return opaquePayload(blob, "Vulkan header: " + hr.error);
    if (!hr.header)
        return opaquePayload(blob, "no Vulkan header (VH00)");
    const std::span<const std::uint8_t> fb = blob.subspan(hr.header->flatbufferOffset, hr.header->flatbufferSize);
    const std::span<const std::uint8_t> bytes = blob.subspan(hr.header->constantOffset, hr.header->constantSize);
    const std::string ident = flatbufferIdentifier(fb);
    if (ident != "VK00")
        return opaquePayload(blob, fmt::format("Vulkan graph identifier '{}' (expected VK00)", ident));
    const VerifiedGraph<vf::VkGraph> graph(fb);
    const vf::VkGraph *g = graph.root();
    if (!g)
        return opaquePayload(blob, "Vulkan graph fails flatbuffer verification");

    DelegatePayload p;
    p.backend = "Vulkan";
    p.decoded = true;
    p.identifier = "VH00 " + ident;
    p.version = g->version() ? g->version()->str() : "";
    p.bytes = blob.size();
    if (g->values()) {
        p.values.reserve(g->values()->size());
        for (flatbuffers::uoffset_t i = 0; i < g->values()->size(); ++i)
            p.values.push_back(valueOf(*g->values()->Get(i), i));
    }
    if (g->input_ids())
        p.inputs.assign(g->input_ids()->begin(), g->input_ids()->end());
    if (g->output_ids())
        p.outputs.assign(g->output_ids()->begin(), g->output_ids()->end());
    if (g->chain()) {
        p.nodes.reserve(g->chain()->size());
        for (const vf::OperatorCall *c : *g->chain()) {
            DelegateNode n;
            n.op = c->name() ? c->name()->str() : "";
            if (c->args())
                n.inputs.assign(c->args()->begin(), c->args()->end());
            n.debugHandle = -1;
            n.nodeId = c->node_id();
            n.params = fmt::format("node {}", c->node_id());
            p.nodes.push_back(std::move(n));
        }
    }
    auto checkBytes = [&p, &bytes](const vf::VkBytes &b, const char *what, std::size_t i) {
        if (b.named_key() && b.offset() == UINT64_MAX)
            return;
        if (b.offset() > bytes.size() || b.length() > bytes.size() - b.offset())
            p.note = fmt::format("{} {} ({} bytes at {}) lies past the payload's bytes ({})", what, i, b.length(),
                b.offset(), bytes.size());
    };
    if (g->constants())
        for (flatbuffers::uoffset_t i = 0; i < g->constants()->size(); ++i) {
            const vf::VkBytes *b = g->constants()->Get(i);
            DelegateConstant k;
            k.bytes = b->length();
            // VulkanBackend.cpp: a named key with offset UINT64_MAX is read from the named data.
            if (b->named_key() && b->offset() == UINT64_MAX) {
                k.place = DelegateConstant::Place::Named;
                k.namedKey = b->named_key()->str();
            } else {
                k.offset = b->offset();
            }
            checkBytes(*b, "constant", i);
            p.constants.push_back(std::move(k));
        }
    if (g->shaders())
        for (flatbuffers::uoffset_t i = 0; i < g->shaders()->size(); ++i) {
            const vf::VkBytes *b = g->shaders()->Get(i);
            p.shaders.push_back(fmt::format("custom shader {}: {} bytes at {}", i, b->length(), b->offset()));
            checkBytes(*b, "shader", i);
        }
    addSegmentedParts(p, *hr.header, "graph", "constant data"); // constants and custom shaders
    p.finish();
    return p;
}

} // namespace etscope::delegates
