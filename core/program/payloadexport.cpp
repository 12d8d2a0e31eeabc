#include "program/payloadexport.h"

#include "common/jsontext.h"
#include "common/printable.h"

#include <fmt/ranges.h>

#include <iterator>

namespace etscope {
namespace {

void put(fmt::memory_buffer &b, std::string_view s)
{
    b.append(s.data(), s.data() + s.size());
}

std::string valueText(const DelegatePayload &p, std::int64_t id)
{
    const DelegateValue *v = p.value(id);
    if (!v)
        return fmt::format("%{} (not in the graph)", id);
    std::string s = fmt::format("%{} {}", id, printable(v->describe(), 200));
    if (v->constant > 0)
        s += " const";
    return s;
}

void appendIds(fmt::memory_buffer &b, const std::vector<std::uint32_t> &ids)
{
    fmt::format_to(std::back_inserter(b), "[{}]", fmt::join(ids, ","));
}

void appendValues(fmt::memory_buffer &b, const DelegatePayload &p, const std::vector<std::int64_t> &ids)
{
    b.push_back('[');
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i)
            b.push_back(',');
        appendDelegateValueJson(b, p, ids[i]);
    }
    b.push_back(']');
}

void appendQuantJson(fmt::memory_buffer &b, const DelegateQuant &q)
{
    put(b, ",\"quant\":{\"kind\":");
    appendJsonString(b, delegateQuantKindName(q.kind));
    switch (q.kind) {
    case DelegateQuant::Kind::PerTensor:
        fmt::format_to(std::back_inserter(b), ",\"scale\":{},\"zero_point\":{}", float(q.scale), q.zeroPoint);
        break;
    case DelegateQuant::Kind::PerChannel:
    case DelegateQuant::Kind::Blockwise:
        fmt::format_to(std::back_inserter(b), ",\"channel_dim\":{},\"scale_count\":{}", q.channelDim, q.scaleCount);
        if (q.kind == DelegateQuant::Kind::Blockwise)
            fmt::format_to(std::back_inserter(b), ",\"group_size\":{}", q.groupSize);
        if (q.scaleConstant > 0)
            fmt::format_to(std::back_inserter(b), ",\"scale_constant\":{}", q.scaleConstant);
        else if (q.scaleCount > 0)
            fmt::format_to(
                std::back_inserter(b), ",\"min_scale\":{},\"max_scale\":{}", float(q.minScale), float(q.maxScale));
        break;
    case DelegateQuant::Kind::PerTokenDynamic:
        fmt::format_to(std::back_inserter(b), ",\"non_batch_dims\":{}", q.nonBatchDims);
        break;
    case DelegateQuant::Kind::None:
        break;
    }
    b.push_back('}');
}

} // namespace

void appendDelegateValueJson(fmt::memory_buffer &b, const DelegatePayload &p, std::int64_t id)
{
    // Hot for payloads of 100k nodes: plain appends instead of format strings.
    put(b, "{\"id\":");
    put(b, fmt::format_int(id).c_str());
    if (const DelegateValue *v = p.value(id)) {
        if (!v->name.empty()) {
            put(b, ",\"name\":");
            appendJsonString(b, v->name);
        }
        put(b, ",\"dtype\":");
        appendJsonString(b, v->dtype);
        put(b, ",\"shape\":[");
        for (std::size_t i = 0; i < v->shape.size(); ++i) {
            if (i)
                b.push_back(',');
            put(b, fmt::format_int(v->shape[i]).c_str());
        }
        b.push_back(']');
        if (v->quant.kind != DelegateQuant::Kind::None)
            appendQuantJson(b, v->quant);
        if (v->constant > 0) {
            put(b, ",\"constant\":");
            put(b, fmt::format_int(v->constant).c_str());
        }
        if (!v->storage.empty()) {
            put(b, ",\"storage\":");
            appendJsonString(b, v->storage);
        }
        if (!v->text.empty()) {
            put(b, ",\"text\":");
            appendJsonString(b, v->text);
        }
    }
    b.push_back('}');
}

std::string payloadText(const DelegatePayload &p, std::string_view indent)
{
    std::string out = fmt::format("{}{}\n", indent, printable(p.summary(), 400));
    for (const PayloadPart &part : p.parts)
        out += fmt::format("{}  part {}: {} bytes\n", indent, printable(part.name), part.bytes);
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
        const DelegateNode &n = p.nodes[i];
        std::vector<std::string> ins, outs;
        for (std::int64_t id : n.inputs)
            ins.push_back(valueText(p, id));
        for (std::int64_t id : n.outputs)
            outs.push_back(valueText(p, id));
        out += fmt::format("{}  node {:>3}  {}  {}", indent, i, printable(n.op), fmt::join(ins, ", "));
        if (!outs.empty())
            out += fmt::format(" -> {}", fmt::join(outs, ", "));
        if (!n.params.empty())
            out += "  " + printable(n.params, 200);
        if (n.flags != 0)
            out += fmt::format("  flags {:#x}", n.flags);
        if (n.debugHandle >= 0)
            out += fmt::format("  handle {}", n.debugHandle);
        out += "\n";
    }
    if (!p.nodes.empty() || p.values.empty())
        return out;
    // A payload without nodes (Ethos-U): its inputs and outputs.
    for (std::uint32_t id : p.inputs)
        out += fmt::format("{}  input  {}\n", indent, valueText(p, id));
    for (std::uint32_t id : p.outputs)
        out += fmt::format("{}  output {}\n", indent, valueText(p, id));
    return out;
}

void appendPayloadJson(fmt::memory_buffer &b, const DelegatePayload &p)
{
    put(b, "\"payload\":{\"backend\":");
    appendJsonString(b, p.backend);
    fmt::format_to(std::back_inserter(b), ",\"decoded\":{},\"identifier\":", p.decoded);
    appendJsonString(b, p.identifier);
    put(b, ",\"version\":");
    appendJsonString(b, p.version);
    fmt::format_to(std::back_inserter(b), ",\"bytes\":{},\"note\":", p.bytes);
    appendJsonString(b, p.note);
    put(b, ",\"summary\":");
    appendJsonString(b, p.summary());
    put(b, ",\"inputs\":");
    appendIds(b, p.inputs);
    put(b, ",\"outputs\":");
    appendIds(b, p.outputs);
    put(b, ",\"parts\":[");
    for (std::size_t i = 0; i < p.parts.size(); ++i) {
        put(b, i ? ",{\"name\":" : "{\"name\":");
        appendJsonString(b, p.parts[i].name);
        fmt::format_to(std::back_inserter(b), ",\"bytes\":{}}}", p.parts[i].bytes);
    }
    put(b, "],\"constants\":[");
    for (std::size_t i = 0; i < p.constants.size(); ++i) {
        const DelegateConstant &c = p.constants[i];
        fmt::format_to(std::back_inserter(b), "{}{{\"index\":{},\"bytes\":{},\"place\":", i ? "," : "", i + 1, c.bytes);
        appendJsonString(b, delegateConstantPlaceName(c.place));
        if (c.place == DelegateConstant::Place::Named) {
            put(b, ",\"named_key\":");
            appendJsonString(b, c.namedKey);
        } else if (c.place == DelegateConstant::Place::ConstantData) {
            fmt::format_to(std::back_inserter(b), ",\"offset\":{}", c.offset);
        }
        b.push_back('}');
    }
    put(b, "],\"shaders\":[");
    for (std::size_t i = 0; i < p.shaders.size(); ++i) {
        if (i)
            b.push_back(',');
        appendJsonString(b, p.shaders[i]);
    }
    put(b, "],\"graph_names\":[");
    for (std::size_t i = 0; i < p.graphNames.size(); ++i) {
        if (i)
            b.push_back(',');
        appendJsonString(b, p.graphNames[i]);
    }
    put(b, "]},\"nodes\":[");
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
        const DelegateNode &n = p.nodes[i];
        put(b, i ? ",{\"index\":" : "{\"index\":");
        put(b, fmt::format_int(i).c_str());
        put(b, ",\"op\":");
        appendJsonString(b, n.op);
        put(b, ",\"inputs\":");
        appendValues(b, p, n.inputs);
        put(b, ",\"outputs\":");
        appendValues(b, p, n.outputs);
        put(b, ",\"params\":");
        appendJsonString(b, n.params);
        put(b, ",\"flags\":");
        put(b, fmt::format_int(n.flags).c_str());
        if (n.debugHandle >= 0) {
            put(b, ",\"debug_handle\":");
            put(b, fmt::format_int(n.debugHandle).c_str());
        }
        b.push_back('}');
    }
    b.push_back(']');
    if (p.scratchBytes)
        fmt::format_to(std::back_inserter(b), ",\"scratch_bytes\":{}", *p.scratchBytes);
    if (p.commandStreamBytes)
        fmt::format_to(std::back_inserter(b), ",\"command_stream_bytes\":{}", *p.commandStreamBytes);
    if (p.weightBytes)
        fmt::format_to(std::back_inserter(b), ",\"weight_bytes\":{}", *p.weightBytes);
}

} // namespace etscope
