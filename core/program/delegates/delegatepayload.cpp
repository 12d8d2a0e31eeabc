// Shared parts of the delegate payload decoders: the dispatcher, the opaque fallback, the
// segmented header XNNPACK and Vulkan share, and the one-line descriptions.
#include "program/delegates/delegatepayload.h"

#include "common/littleendian.h"
#include "common/printable.h"
#include "program/delegates/payloaddecoders.h"

#include <fmt/format.h>

#include <cctype>
#include <cstring>

namespace etscope {

std::string_view delegateQuantKindName(DelegateQuant::Kind kind)
{
    switch (kind) {
    case DelegateQuant::Kind::None:
        return "none";
    case DelegateQuant::Kind::PerTensor:
        return "per_tensor";
    case DelegateQuant::Kind::PerChannel:
        return "per_channel";
    case DelegateQuant::Kind::PerTokenDynamic:
        return "per_token_dynamic";
    case DelegateQuant::Kind::Blockwise:
        return "blockwise";
    }
    return "none";
}

std::string_view delegateConstantPlaceName(DelegateConstant::Place place)
{
    switch (place) {
    case DelegateConstant::Place::ConstantData:
        return "constant_data";
    case DelegateConstant::Place::Inline:
        return "inline";
    case DelegateConstant::Place::Named:
        return "named_data";
    }
    return "constant_data";
}

std::string DelegateQuant::describe() const
{
    auto scales = [this] {
        if (scaleConstant > 0)
            return fmt::format("{} scales in constant {}", scaleCount, scaleConstant);
        if (minScale == maxScale)
            return fmt::format("{} scales = {}", scaleCount, float(minScale));
        return fmt::format("{} scales in [{}, {}]", scaleCount, float(minScale), float(maxScale));
    };
    switch (kind) {
    case Kind::None:
        return {};
    case Kind::PerTensor:
        return fmt::format("per-tensor scale {} zero point {}", float(scale), zeroPoint);
    case Kind::PerChannel:
        return fmt::format("per-channel dim {}: {}", channelDim, scales());
    case Kind::PerTokenDynamic:
        return fmt::format("per-token dynamic, {} non-batch dim{}", nonBatchDims, nonBatchDims == 1 ? "" : "s");
    case Kind::Blockwise:
        return fmt::format("blockwise dim {} group {}: {}", channelDim, groupSize, scales());
    }
    return {};
}

std::string DelegateValue::describe() const
{
    std::string s = text.empty() ? fmt::format("{}[{}]", dtype, fmt::join(shape, ", ")) : text;
    if (!name.empty()) // a named value with no type stated is shown by its name alone
        s = text.empty() && dtype.empty() && shape.empty() ? name : name + " " + s;
    if (const std::string q = quant.describe(); !q.empty())
        s += " " + q;
    if (!storage.empty())
        s += " (" + storage + ")";
    return s;
}

const DelegateValue *DelegatePayload::value(std::int64_t id) const
{
    const auto it = valueIndex.find(id);
    return it == valueIndex.end() ? nullptr : &values[it->second];
}

std::uint64_t DelegatePayload::constantBytes() const
{
    std::uint64_t sum = 0;
    for (const DelegateConstant &c : constants)
        sum += c.bytes;
    return sum;
}

std::string DelegatePayload::summary() const
{
    if (!decoded)
        return fmt::format(
            "opaque: {} bytes, identifier '{}'{}", bytes, identifier, note.empty() ? "" : " (" + note + ")");
    std::string s = fmt::format("{} {}", backend, identifier);
    if (!version.empty())
        s += " version " + version;
    s += fmt::format(": {} node{}", nodes.size(), nodes.size() == 1 ? "" : "s");
    if (!values.empty())
        s += fmt::format(", {} values", values.size());
    if (!constants.empty())
        s += fmt::format(", {} constants ({} bytes)", constants.size(), constantBytes());
    if (commandStreamBytes)
        s += fmt::format(", command stream {} bytes", *commandStreamBytes);
    if (weightBytes)
        s += fmt::format(", weights {} bytes", *weightBytes);
    if (scratchBytes)
        s += fmt::format(", scratch {} bytes", *scratchBytes);
    if (!graphNames.empty())
        s += fmt::format(", graphs: {}", fmt::join(graphNames, ", "));
    if (!note.empty())
        s += " (" + note + ")";
    return s;
}

std::unordered_map<std::int64_t, std::size_t> DelegatePayload::callArguments(std::size_t argCount) const
{
    std::unordered_map<std::int64_t, std::size_t> out;
    if (!decoded)
        return out;
    if (backend == "XNNPACK") {
        for (const DelegateValue &v : values)
            if ((v.input || v.output) && v.externalId >= 0 && std::size_t(v.externalId) < argCount)
                out.emplace(v.id, std::size_t(v.externalId));
    } else if (backend == "Vulkan" && inputs.size() + outputs.size() <= argCount) {
        for (std::size_t i = 0; i < inputs.size(); ++i)
            out.emplace(inputs[i], i);
        for (std::size_t i = 0; i < outputs.size(); ++i)
            out.emplace(outputs[i], argCount - outputs.size() + i);
    }
    return out;
}

void DelegatePayload::finish()
{
    valueIndex.clear();
    valueIndex.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        valueIndex.emplace(values[i].id, i);
    std::uint64_t sum = 0;
    for (const PayloadPart &part : parts)
        sum += part.bytes;
    if (sum < bytes)
        parts.push_back({ "unaccounted", bytes - sum });
}

DelegatePayload opaquePayload(std::span<const std::uint8_t> blob, std::string note)
{
    DelegatePayload p;
    p.backend = "opaque";
    p.bytes = blob.size();
    p.note = std::move(note);
    // A flatbuffer's identifier sits at 4; otherwise the leading printable bytes.
    p.identifier = delegates::flatbufferIdentifier(blob);
    if (p.identifier.empty()) {
        std::string lead;
        for (std::size_t i = 0; i < blob.size() && i < 16 && std::isprint(blob[i]) != 0; ++i)
            lead += static_cast<char>(blob[i]);
        p.identifier = lead;
    }
    p.parts.push_back({ "payload", blob.size() });
    p.finish();
    return p;
}

DelegatePayload decodeDelegatePayload(std::string_view backendId, std::span<const std::uint8_t> blob)
{
    using namespace delegates;
    if (backendId == "XnnpackBackend" || looksLikeXnnpack(blob))
        return decodeXnnpack(blob);
    if (backendId == "VulkanBackend" || looksLikeVulkan(blob))
        return decodeVulkan(blob);
    if (backendId == "EthosUBackend" || looksLikeVela(blob))
        return decodeEthosU(blob);
    if (backendId == "CoreMLBackend" || looksLikeCoreMLReference(blob))
        return decodeCoreML(blob);
    return decodeOther(backendId, blob);
}

namespace delegates {

std::string flatbufferIdentifier(std::span<const std::uint8_t> fb)
{
    if (fb.size() < 8)
        return {};
    std::string id(reinterpret_cast<const char *>(fb.data()) + 4, 4);
    for (char c : id)
        if (std::isalnum(static_cast<unsigned char>(c)) == 0)
            return {};
    return id;
}

SegmentedHeaderRead readSegmentedHeader(std::span<const std::uint8_t> blob, const char (&magic)[5])
{
    SegmentedHeaderRead out;
    if (blob.size() < 8 || std::memcmp(blob.data() + 4, magic, 4) != 0)
        return out;
    if (blob.size() < kSegmentedHeaderSize) {
        out.error = fmt::format("{} bytes, shorter than the {}-byte header", blob.size(), kSegmentedHeaderSize);
        return out;
    }
    SegmentedHeader h;
    h.headerLength = static_cast<std::uint16_t>(blob[8] | (blob[9] << 8));
    h.flatbufferOffset = readLe32(blob.data() + 10);
    h.flatbufferSize = readLe32(blob.data() + 14);
    h.constantOffset = readLe32(blob.data() + 18);
    h.constantSize = readLe64(blob.data() + 22);
    const std::uint64_t size = blob.size();
    if (h.flatbufferOffset > size || h.flatbufferSize > size - h.flatbufferOffset)
        out.error = fmt::format(
            "flatbuffer ({} bytes at {}) lies past the payload ({} bytes)", h.flatbufferSize, h.flatbufferOffset, size);
    else if (h.constantOffset > size || h.constantSize > size - h.constantOffset)
        out.error = fmt::format(
            "constant data ({} bytes at {}) lies past the payload ({} bytes)", h.constantSize, h.constantOffset, size);
    else if (h.constantOffset < std::uint64_t(h.flatbufferOffset) + h.flatbufferSize)
        out.error = "constant data overlaps the flatbuffer";
    else if (h.flatbufferSize < 8)
        out.error = fmt::format("flatbuffer of {} bytes is too small", h.flatbufferSize);
    else
        out.header = h;
    return out;
}

void addSegmentedParts(DelegatePayload &p, const SegmentedHeader &h, const char *graphName, const char *dataName)
{
    const std::uint64_t graphEnd = std::uint64_t(h.flatbufferOffset) + h.flatbufferSize;
    const std::uint64_t dataEnd = h.constantOffset + h.constantSize;
    p.parts.push_back({ "header", h.flatbufferOffset });
    p.parts.push_back({ graphName, h.flatbufferSize });
    if (h.constantOffset > graphEnd)
        p.parts.push_back({ "padding", h.constantOffset - graphEnd });
    p.parts.push_back({ dataName, h.constantSize });
    if (p.bytes > dataEnd)
        p.parts.push_back({ "trailing bytes", p.bytes - dataEnd });
}

} // namespace delegates
} // namespace etscope
