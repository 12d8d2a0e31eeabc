#include "program/programexport.h"

#include "common/jsontext.h"
#include "common/printable.h"
#include "program/flattensor.h"
#include "program/payloadexport.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace etscope {

namespace {

using Buf = fmt::memory_buffer;

void put(Buf &b, std::string_view s)
{
    b.append(s.data(), s.data() + s.size());
}

std::string percent(std::uint64_t part, std::uint64_t whole)
{
    return whole ? fmt::format("{:.1f}%", 100.0 * double(part) / double(whole)) : std::string("-");
}

std::string instructionText(const ProgramMethod &m, std::size_t k)
{
    const ProgramInstruction ins = m.instruction(k);
    auto arg
        = [&m](std::int32_t v) { return fmt::format("%{} {}", v, describeValueWithPlace(m.value(std::size_t(v)))); };
    std::vector<std::string> parts;
    switch (ins.kind) {
    case InstructionKind::KernelCall:
    case InstructionKind::DelegateCall:
        for (std::int32_t v : ins.args)
            parts.push_back(arg(v));
        return fmt::format(
            "{:>6}  {:<12} {} ({})", k, instructionKindName(ins.kind), m.instructionLabel(k), fmt::join(parts, ", "));
    case InstructionKind::Move:
        return fmt::format("{:>6}  {:<12} {} -> {}", k, "Move", arg(ins.moveFrom), arg(ins.moveTo));
    case InstructionKind::JumpFalse:
        return fmt::format("{:>6}  {:<12} if not {} goto {}", k, "JumpFalse", arg(ins.condition), ins.destination);
    case InstructionKind::Free:
        return fmt::format("{:>6}  {:<12} {}", k, "Free", arg(ins.freedValue));
    case InstructionKind::None:
        break;
    }
    return fmt::format("{:>6}  (empty)", k);
}

void appendTensorJson(Buf &b, const ProgramTensor &t)
{
    put(b, ",\"dtype\":");
    appendJsonString(b, scalarTypeName(t.dtype));
    fmt::format_to(std::back_inserter(b), ",\"shape\":[{}],\"nbytes\":{}", fmt::join(t.sizes, ","), t.nbytes);
    if (t.isPlanned())
        fmt::format_to(std::back_inserter(b), ",\"arena\":{},\"offset\":{}", t.arena, t.offset);
    else if (t.isConstant() && !t.external)
        fmt::format_to(std::back_inserter(b), ",\"constant\":{}", t.dataBufferIndex);
    if (t.external) {
        put(b, ",\"external\":");
        appendJsonString(b, t.externalName);
    }
    put(b, ",\"device\":");
    appendJsonString(b, deviceName(t.device));
}

void appendValueJson(Buf &b, const ProgramMethod &m, std::int32_t index)
{
    const ProgramValue v = m.value(std::size_t(index));
    fmt::format_to(std::back_inserter(b), "{{\"value\":{},\"kind\":", index);
    appendJsonString(b, programValueKindName(v.kind));
    switch (v.kind) {
    case ProgramValueKind::Tensor:
        appendTensorJson(b, v.tensor);
        break;
    case ProgramValueKind::Int:
        fmt::format_to(std::back_inserter(b), ",\"int\":{}", v.intValue);
        break;
    case ProgramValueKind::Bool:
        fmt::format_to(std::back_inserter(b), ",\"bool\":{}", v.boolValue);
        break;
    case ProgramValueKind::Double:
        put(b, ",\"double\":");
        appendJsonString(b, fmt::format("{}", v.doubleValue)); // a string keeps inf/nan valid JSON
        break;
    case ProgramValueKind::String:
        put(b, ",\"string\":");
        appendJsonString(b, v.stringValue);
        break;
    case ProgramValueKind::IntList:
        fmt::format_to(std::back_inserter(b), ",\"items\":[{}]", fmt::join(v.ints, ","));
        break;
    case ProgramValueKind::TensorList:
    case ProgramValueKind::OptionalTensorList:
        fmt::format_to(std::back_inserter(b), ",\"items\":[{}]", fmt::join(v.valueIndices, ","));
        break;
    case ProgramValueKind::DoubleList:
    case ProgramValueKind::BoolList:
        fmt::format_to(std::back_inserter(b), ",\"size\":{}", v.listSize);
        break;
    case ProgramValueKind::Null:
    case ProgramValueKind::None:
        break;
    }
    b.push_back('}');
}

void appendValueList(Buf &b, const ProgramMethod &m, std::span<const std::int32_t> values)
{
    b.push_back('[');
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i)
            b.push_back(',');
        appendValueJson(b, m, values[i]);
    }
    b.push_back(']');
}

// With withPayload, each entry also holds its decoded payload and nodes (payloadexport.h).
void appendDelegatesJson(Buf &b, const ProgramMethod &m, bool withPayload)
{
    b.push_back('[');
    for (std::size_t d = 0; d < m.delegates().size(); ++d) {
        const ProgramDelegate &del = m.delegates()[d];
        if (d)
            b.push_back(',');
        fmt::format_to(std::back_inserter(b), "{{\"index\":{},\"backend_id\":", d);
        appendJsonString(b, del.backendId);
        fmt::format_to(std::back_inserter(b),
            ",\"location\":\"{}\",\"data_index\":{},\"blob_bytes\":{},\"compile_specs\":[",
            del.inlineData ? "INLINE" : "SEGMENT", del.dataIndex, del.blobBytes);
        for (std::size_t c = 0; c < del.compileSpecs.size(); ++c) {
            if (c)
                b.push_back(',');
            put(b, "{\"key\":");
            appendJsonString(b, del.compileSpecs[c].key);
            fmt::format_to(
                std::back_inserter(b), ",\"value_hex\":\"{:02x}\"", fmt::join(del.compileSpecs[c].value, ""));
            if (const auto text = asText(del.compileSpecs[c].value)) { // beside the hex, when it is text
                put(b, ",\"value_text\":");
                appendJsonString(b, *text);
            }
            b.push_back('}');
        }
        put(b, "]");
        if (withPayload) {
            b.push_back(',');
            appendPayloadJson(b, decodeDelegatePayload(del.backendId, del.blob));
        }
        b.push_back('}');
    }
    b.push_back(']');
}

std::string plural(std::size_t n, std::string_view one, std::string_view many)
{
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "external data: 3 tensors, 84 bytes (2 constants, 1 mutable buffer) in a.ptd" or "… not attached".
std::string externalSummary(const Program &p)
{
    const std::size_t mut = p.externalMutableCount();
    std::string out
        = fmt::format("external data: {}, {} bytes ({}, {})", plural(p.externalTensors().size(), "tensor", "tensors"),
            p.externalBytes(), plural(p.externalTensors().size() - mut, "constant", "constants"),
            plural(mut, "mutable buffer", "mutable buffers"));
    if (p.dataFiles().empty())
        return out + ", not attached (no .ptd given)";
    std::vector<std::string> names;
    for (const auto &f : p.dataFiles())
        names.push_back(printable(f->path()));
    out += fmt::format(" in {}", fmt::join(names, ", "));
    if (p.delegateDataCount() > 0)
        out += fmt::format("; delegate data there: {}, {} bytes", plural(p.delegateDataCount(), "name", "names"),
            p.delegateDataBytes());
    return out;
}

void appendExternalJson(Buf &b, const Program &p)
{
    fmt::format_to(std::back_inserter(b),
        ",\"external\":{{\"count\":{},\"bytes\":{},\"mutable_buffers\":{},\"delegate_data_names\":{},"
        "\"delegate_data_bytes\":{},\"tensors\":[",
        p.externalTensors().size(), p.externalBytes(), p.externalMutableCount(), p.delegateDataCount(),
        p.delegateDataBytes());
    for (std::size_t i = 0; i < p.externalTensors().size(); ++i) {
        const ProgramExternalTensor &x = p.externalTensors()[i];
        put(b, i ? ",{\"name\":" : "{\"name\":");
        appendJsonString(b, x.name);
        put(b, ",\"dtype\":");
        appendJsonString(b, scalarTypeName(x.dtype));
        fmt::format_to(std::back_inserter(b),
            ",\"shape\":[{}],\"nbytes\":{},\"mutable\":{},\"device\":", fmt::join(x.sizes, ","), x.nbytes,
            x.mutableBuffer);
        appendJsonString(b, deviceName(x.device));
        put(b, ",\"method\":");
        appendJsonString(b, x.method);
        fmt::format_to(std::back_inserter(b), ",\"value\":{}", x.value);
        if (x.file >= 0) {
            put(b, ",\"file\":");
            appendJsonString(b, p.dataFiles()[std::size_t(x.file)]->path());
            fmt::format_to(std::back_inserter(b), ",\"segment\":{},\"offset\":{},\"data_bytes\":{}", x.segment,
                x.offset, x.dataBytes);
        }
        b.push_back('}');
    }
    put(b, "],\"data_files\":[");
    for (std::size_t f = 0; f < p.dataFiles().size(); ++f) {
        const FlatTensorFile &d = *p.dataFiles()[f];
        put(b, f ? ",{\"file\":" : "{\"file\":");
        appendJsonString(b, d.path());
        fmt::format_to(std::back_inserter(b),
            ",\"version\":{},\"file_bytes\":{},\"names\":{},\"segments\":{},\"segment_base\":{},"
            "\"segment_data_bytes\":{},\"segment_alignment\":{}}}",
            d.version(), d.fileSize(), d.entries().size(), d.segments().size(), d.segmentBase(), d.segmentDataSize(),
            d.segmentAlignment());
    }
    put(b, "]}");
}

} // namespace

std::string flatTensorText(const FlatTensorFile &f)
{
    std::string out = fmt::format("{}: FlatTensor data, version {}, {} bytes (flatbuffer {} bytes; {} from offset {}, "
                                  "{} bytes, aligned to {})\n",
        printable(f.path()), f.version(), f.fileSize(), f.flatbufferOffset() + f.flatbufferSize(),
        plural(f.segments().size(), "segment", "segments"), f.segmentBase(), f.segmentDataSize(), f.segmentAlignment());
    for (const FlatTensorEntry &e : f.entries())
        out += fmt::format(
            "  {}  {}  segment {}: {} bytes at {}\n", printable(e.key), e.describe(), e.segment, e.size, e.offset);
    return out;
}

std::string flatTensorJson(const FlatTensorFile &f)
{
    Buf b;
    put(b, "{\"file\":");
    appendJsonString(b, f.path());
    fmt::format_to(std::back_inserter(b),
        ",\"version\":{},\"file_bytes\":{},\"flatbuffer_offset\":{},\"flatbuffer_size\":{},\"segment_base\":{},"
        "\"segment_data_bytes\":{},\"segment_alignment\":{},\"segments\":[",
        f.version(), f.fileSize(), f.flatbufferOffset(), f.flatbufferSize(), f.segmentBase(), f.segmentDataSize(),
        f.segmentAlignment());
    for (std::size_t s = 0; s < f.segments().size(); ++s)
        fmt::format_to(std::back_inserter(b), "{}{{\"offset\":{},\"size\":{}}}", s ? "," : "", f.segments()[s].offset,
            f.segments()[s].size);
    put(b, "],\"named_data\":[");
    for (std::size_t i = 0; i < f.entries().size(); ++i) {
        const FlatTensorEntry &e = f.entries()[i];
        put(b, i ? ",{\"key\":" : "{\"key\":");
        appendJsonString(b, e.key);
        fmt::format_to(std::back_inserter(b), ",\"segment\":{},\"offset\":{},\"size\":{}", e.segment, e.offset, e.size);
        if (e.hasLayout) {
            put(b, ",\"dtype\":");
            const auto dt = e.dtype();
            appendJsonString(b, dt ? std::string(scalarTypeName(*dt)) : fmt::format("dtype{}", e.scalarType));
            fmt::format_to(std::back_inserter(b), ",\"shape\":[{}],\"dim_order\":[{}]", fmt::join(e.sizes, ","),
                fmt::join(e.dimOrder, ","));
            if (e.layoutBytes)
                fmt::format_to(std::back_inserter(b), ",\"nbytes\":{}", *e.layoutBytes);
        }
        b.push_back('}');
    }
    put(b, "]}\n");
    return fmt::to_string(b);
}

std::string producerLabel(const ProgramMethod &method, const PlannedTensor &t)
{
    if (t.first < 0)
        return "unused";
    return method.instructionLabel(std::size_t(t.first));
}

std::string programText(const Program &p)
{
    std::string out
        = fmt::format("{}: ExecuTorch program, version {}, {} bytes", printable(p.path()), p.version(), p.fileSize());
    if (p.hasExtendedHeader())
        out += fmt::format(" (flatbuffer {} bytes, {} segments from offset {})", p.flatbufferSize(),
            p.segments().size(), p.segmentBase());
    out += fmt::format("\nconstants: {} tensors, {} bytes {}\n", p.constantCount(), p.constantBytes(),
        p.constantsInSegment() ? "in the constant segment" : "inline (constant_buffer)");
    if (!p.externalTensors().empty() || !p.dataFiles().empty())
        out += externalSummary(p) + "\n";
    for (const auto &f : p.dataFiles())
        out += flatTensorText(*f);
    for (const ProgramMethod &m : p.methods()) {
        out += fmt::format("\nmethod {}: {} values, {} instructions, {} operators, {} delegates", printable(m.name()),
            m.valueCount(), m.instructionCount(), m.operators().size(), m.delegates().size());
        if (m.externalCount() > 0)
            out += fmt::format(
                ", {} ({} bytes)", plural(m.externalCount(), "external tensor", "external tensors"), m.externalBytes());
        out += "\n";
        for (std::size_t a = 1; a < m.arenaSizes().size(); ++a)
            out += fmt::format("  arena {}: {} bytes, {}\n", a, m.arenaSizes()[a], deviceName(m.arenaDevices()[a]));
        for (std::int32_t v : m.inputs())
            out += fmt::format("  input  %{} {}\n", v, describeValueWithPlace(m.value(std::size_t(v))));
        for (std::int32_t v : m.outputs())
            out += fmt::format("  output %{} {}\n", v, describeValueWithPlace(m.value(std::size_t(v))));
        out += "  instructions:\n";
        for (std::size_t k = 0; k < m.instructionCount(); ++k)
            out += instructionText(m, k) + "\n";
        out += "  operators:\n";
        for (std::size_t o = 0; o < m.operators().size(); ++o)
            out += fmt::format("    {:>3}  {}\n", o, printable(m.operators()[o].displayName()));
        if (!m.delegates().empty())
            out += "  delegates:\n";
        for (std::size_t d = 0; d < m.delegates().size(); ++d) {
            const ProgramDelegate &del = m.delegates()[d];
            out += fmt::format("    {:>3}  {}: {} bytes ({} {}), {} compile specs\n", d, printable(del.backendId),
                del.blobBytes, del.inlineData ? "inline data" : "segment", del.dataIndex, del.compileSpecs.size());
            for (const auto &cs : del.compileSpecs) {
                // Text in quotes (escaped where not printable on one line), binary as hex.
                if (const auto text = asText(cs.value))
                    out += fmt::format("           {} = \"{}\"\n", printable(cs.key), printable(*text, 400));
                else
                    out += fmt::format("           {} = {:02x}\n", printable(cs.key), fmt::join(cs.value, ""));
            }
            out += payloadText(decodeDelegatePayload(del.backendId, del.blob), "           ");
        }
    }
    if (!p.externalTensors().empty())
        out += "\nexternal tensors:\n";
    for (const ProgramExternalTensor &x : p.externalTensors()) {
        out += fmt::format("  {}  {}[{}]  {} bytes  {}{}  (method {} %{})", printable(x.name), scalarTypeName(x.dtype),
            fmt::join(x.sizes, ", "), x.nbytes, x.mutableBuffer ? "mutable buffer" : "constant",
            x.device.isCpu() ? "" : " on " + deviceName(x.device), printable(x.method), x.value);
        if (x.file >= 0)
            out += fmt::format("  {} segment {}: {} bytes at {}", printable(p.dataFiles()[std::size_t(x.file)]->path()),
                x.segment, x.dataBytes, x.offset);
        out += "\n";
    }
    return out;
}

std::string programJson(const Program &p)
{
    Buf b;
    put(b, "{\"file\":");
    appendJsonString(b, p.path());
    fmt::format_to(std::back_inserter(b),
        ",\"version\":{},\"file_bytes\":{},\"extended_header\":{},\"flatbuffer_bytes\":{},\"segment_base\":{},"
        "\"constants\":{{\"count\":{},\"bytes\":{},\"in_segment\":{}}},\"segments\":[",
        p.version(), p.fileSize(), p.hasExtendedHeader(), p.flatbufferSize(), p.segmentBase(), p.constantCount(),
        p.constantBytes(), p.constantsInSegment());
    for (std::size_t s = 0; s < p.segments().size(); ++s)
        fmt::format_to(std::back_inserter(b), "{}{{\"offset\":{},\"size\":{}}}", s ? "," : "", p.segments()[s].offset,
            p.segments()[s].size);
    b.push_back(']');
    appendExternalJson(b, p);
    put(b, ",\"methods\":[");
    for (std::size_t mi = 0; mi < p.methods().size(); ++mi) {
        const ProgramMethod &m = p.methods()[mi];
        if (mi)
            b.push_back(',');
        put(b, "{\"name\":");
        appendJsonString(b, m.name());
        put(b, ",\"inputs\":");
        appendValueList(b, m, m.inputs());
        put(b, ",\"outputs\":");
        appendValueList(b, m, m.outputs());
        fmt::format_to(std::back_inserter(b), ",\"external_tensors\":{},\"external_bytes\":{},\"arenas\":[",
            m.externalCount(), m.externalBytes());
        for (std::size_t a = 1; a < m.arenaSizes().size(); ++a)
            fmt::format_to(std::back_inserter(b), "{}{{\"id\":{},\"size\":{},\"device\":\"{}\"}}", a > 1 ? "," : "", a,
                m.arenaSizes()[a], deviceName(m.arenaDevices()[a]));
        put(b, "],\"instructions\":[");
        for (std::size_t k = 0; k < m.instructionCount(); ++k) {
            const ProgramInstruction ins = m.instruction(k);
            if (k)
                b.push_back(',');
            fmt::format_to(std::back_inserter(b), "{{\"index\":{},\"kind\":\"{}\"", k, instructionKindName(ins.kind));
            if (ins.kind == InstructionKind::KernelCall) {
                put(b, ",\"operator\":");
                appendJsonString(b, m.operators()[std::size_t(ins.operatorIndex)].displayName());
            } else if (ins.kind == InstructionKind::DelegateCall) {
                fmt::format_to(std::back_inserter(b), ",\"delegate\":{},\"backend_id\":", ins.delegateIndex);
                appendJsonString(b, m.delegates()[std::size_t(ins.delegateIndex)].backendId);
            } else if (ins.kind == InstructionKind::JumpFalse) {
                fmt::format_to(std::back_inserter(b), ",\"destination\":{}", ins.destination);
            }
            fmt::format_to(std::back_inserter(b), ",\"args\":[{}]}}", fmt::join(ins.valuesUsed(), ","));
        }
        put(b, "],\"operators\":[");
        for (std::size_t o = 0; o < m.operators().size(); ++o) {
            if (o)
                b.push_back(',');
            put(b, "{\"name\":");
            appendJsonString(b, m.operators()[o].name);
            put(b, ",\"overload\":");
            appendJsonString(b, m.operators()[o].overload);
            b.push_back('}');
        }
        put(b, "],\"delegates\":");
        appendDelegatesJson(b, m, true);
        put(b, ",\"values\":[");
        for (std::size_t v = 0; v < m.valueCount(); ++v) {
            if (v)
                b.push_back(',');
            appendValueJson(b, m, std::int32_t(v));
        }
        put(b, "]}");
    }
    put(b, "]}\n");
    return fmt::to_string(b);
}

std::string memoryText(const MemoryReport &r)
{
    const Program &p = *r.program;
    std::string out;
    for (std::size_t i = 0; i < r.plans.size(); ++i) {
        const ProgramMethod &m = *r.methods[i];
        const MemoryPlan &plan = r.plans[i];
        out += fmt::format("{} method {}: {} instructions, {} planned tensors in {} arenas ({} bytes)\n",
            printable(p.path()), printable(m.name()), plan.instructionCount, plan.tensors.size(), plan.arenas.size(),
            plan.plannedBytes);
        for (const ArenaUsage &a : plan.arenas)
            out += fmt::format(
                "  arena {} ({}): {} bytes, peak live {} bytes ({}) at instruction {}, wasted {} bytes\n", a.id,
                deviceName(a.device), a.size, a.peakLiveBytes, percent(a.peakLiveBytes, a.size), a.peakInstruction,
                a.wastedBytes);
        if (plan.peakInstruction >= 0) {
            out += fmt::format("  peak live bytes: {} at instruction {} ({}), {} tensors live:\n", plan.peakLiveBytes,
                plan.peakInstruction, printable(m.instructionLabel(std::size_t(plan.peakInstruction))),
                plan.liveAtPeak.size());
            for (std::size_t t : plan.liveAtPeak) {
                const PlannedTensor &pt = plan.tensors[t];
                out += fmt::format("    %{} {} {} bytes, instructions {}..{} ({})\n", pt.value,
                    describeValueWithPlace(m.value(std::size_t(pt.value))), pt.nbytes, pt.first, pt.last,
                    printable(producerLabel(m, pt)));
            }
        }
        out += fmt::format("  wasted: {} bytes (planned − peak live, {})\n", plan.wastedBytes,
            percent(plan.wastedBytes, plan.plannedBytes));
        out += fmt::format("  buffer reuse: {} tensors share memory; {} could share but do not\n", plan.sharingTensors,
            plan.couldShareTensors);
        if (!plan.loops.empty())
            for (const ProgramLoop &l : plan.loops)
                out += fmt::format("  loop: instructions {}..{} (lifetimes widened over it)\n", l.begin, l.end);
        out += fmt::format(
            "  constants: {} tensors; unplanned (runtime) tensors: {}\n", plan.constantTensors, plan.unplannedTensors);
        if (plan.externalTensors > 0)
            out += fmt::format(
                "  external: {}, {} bytes\n", plural(plan.externalTensors, "tensor", "tensors"), plan.externalBytes);
        for (const ProgramDelegate &d : m.delegates())
            out += fmt::format("  delegate {}: {} bytes\n", printable(d.backendId), d.blobBytes);
    }
    out += fmt::format("constant data: {} bytes; delegate blobs: {} bytes\n", p.constantBytes(), p.delegateBlobBytes());
    if (!p.externalTensors().empty() || !p.dataFiles().empty())
        out += externalSummary(p) + "\n";
    if (!r.etdumpPath.empty()) {
        if (r.allocations.empty())
            out += fmt::format("{}: no allocation events\n", printable(r.etdumpPath));
        for (const AllocatorUsage &a : r.allocations)
            out += fmt::format("{} run {} ({}): {}: {} allocations, {} bytes, largest {} bytes\n",
                printable(r.etdumpPath), a.run, printable(a.runName), printable(a.allocator), a.count, a.totalBytes,
                a.largestBytes);
    }
    return out;
}

std::string memoryJson(const MemoryReport &r)
{
    const Program &p = *r.program;
    Buf b;
    put(b, "{\"file\":");
    appendJsonString(b, p.path());
    put(b, ",\"methods\":[");
    for (std::size_t i = 0; i < r.plans.size(); ++i) {
        const ProgramMethod &m = *r.methods[i];
        const MemoryPlan &plan = r.plans[i];
        if (i)
            b.push_back(',');
        put(b, "{\"name\":");
        appendJsonString(b, m.name());
        fmt::format_to(std::back_inserter(b), ",\"instructions\":{},\"arenas\":[", plan.instructionCount);
        for (std::size_t a = 0; a < plan.arenas.size(); ++a) {
            const ArenaUsage &u = plan.arenas[a];
            fmt::format_to(std::back_inserter(b),
                "{}{{\"id\":{},\"size\":{},\"peak_live_bytes\":{},\"peak_instruction\":{},\"wasted_bytes\":{},"
                "\"device\":\"{}\"}}",
                a ? "," : "", u.id, u.size, u.peakLiveBytes, u.peakInstruction, u.wastedBytes, deviceName(u.device));
        }
        put(b, "],\"tensors\":[");
        for (std::size_t t = 0; t < plan.tensors.size(); ++t) {
            const PlannedTensor &pt = plan.tensors[t];
            fmt::format_to(std::back_inserter(b),
                "{}{{\"value\":{},\"arena\":{},\"offset\":{},\"nbytes\":{},\"first\":{},\"last\":{},\"input\":{},"
                "\"output\":{},\"shares_memory\":{},\"could_share\":{},\"device\":\"{}\",\"producer\":",
                t ? "," : "", pt.value, pt.arena, pt.offset, pt.nbytes, pt.first, pt.last, pt.isInput, pt.isOutput,
                pt.sharesMemory, pt.couldShare, deviceName(pt.device));
            appendJsonString(b, producerLabel(m, pt));
            if (pt.external) {
                put(b, ",\"external\":");
                appendJsonString(b, m.value(std::size_t(pt.value)).tensor.externalName);
            }
            b.push_back('}');
        }
        put(b, "],\"loops\":[");
        for (std::size_t l = 0; l < plan.loops.size(); ++l)
            fmt::format_to(std::back_inserter(b), "{}[{},{}]", l ? "," : "", plan.loops[l].begin, plan.loops[l].end);
        std::vector<std::int32_t> liveValues;
        for (std::size_t t : plan.liveAtPeak)
            liveValues.push_back(plan.tensors[t].value);
        fmt::format_to(std::back_inserter(b),
            "],\"live_bytes\":[{}],\"planned_bytes\":{},\"peak_live_bytes\":{},\"peak_instruction\":{},"
            "\"live_at_peak\":[{}],\"wasted_bytes\":{},\"sharing_tensors\":{},\"could_share_tensors\":{},"
            "\"constant_tensors\":{},\"unplanned_tensors\":{},\"external_tensors\":{},\"external_bytes\":{},"
            "\"delegates\":",
            fmt::join(plan.liveBytes, ","), plan.plannedBytes, plan.peakLiveBytes, plan.peakInstruction,
            fmt::join(liveValues, ","), plan.wastedBytes, plan.sharingTensors, plan.couldShareTensors,
            plan.constantTensors, plan.unplannedTensors, plan.externalTensors, plan.externalBytes);
        appendDelegatesJson(b, m, false);
        b.push_back('}');
    }
    fmt::format_to(std::back_inserter(b), "],\"constants\":{{\"count\":{},\"bytes\":{}}},\"delegate_blob_bytes\":{}",
        p.constantCount(), p.constantBytes(), p.delegateBlobBytes());
    appendExternalJson(b, p);
    if (!r.etdumpPath.empty()) {
        put(b, ",\"etdump\":");
        appendJsonString(b, r.etdumpPath);
        put(b, ",\"allocations\":[");
        for (std::size_t a = 0; a < r.allocations.size(); ++a) {
            const AllocatorUsage &u = r.allocations[a];
            fmt::format_to(std::back_inserter(b), "{}{{\"run\":{},\"run_name\":", a ? "," : "", u.run);
            appendJsonString(b, u.runName);
            put(b, ",\"allocator\":");
            appendJsonString(b, u.allocator);
            fmt::format_to(std::back_inserter(b), ",\"count\":{},\"total_bytes\":{},\"largest_bytes\":{}}}", u.count,
                u.totalBytes, u.largestBytes);
        }
        b.push_back(']');
    }
    put(b, "}\n");
    return fmt::to_string(b);
}

std::string memoryTsv(const ProgramMethod &m, const MemoryPlan &plan)
{
    std::string out = "value\tarena\toffset\tnbytes\tfirst\tlast\tdtype_shape\tproducer\tinput\toutput\tshares_memory\t"
                      "could_share\n";
    for (const PlannedTensor &t : plan.tensors) {
        std::string label = producerLabel(m, t);
        std::replace(label.begin(), label.end(), '\t', ' ');
        out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", t.value, t.arena, t.offset, t.nbytes,
            t.first, t.last, describeValue(m.value(std::size_t(t.value))), printable(label), int(t.isInput),
            int(t.isOutput), int(t.sharesMemory), int(t.couldShare));
    }
    return out;
}

std::string memorySvg(const ProgramMethod &m, const MemoryPlan &plan)
{
    // One panel per arena, stacked, then the live-bytes line; sizes in SVG user units.
    constexpr double width = 1200, panelHeight = 360, left = 90, right = 20, top = 40, gap = 50, lineHeight = 140;
    const double n = double(std::max<std::size_t>(plan.instructionCount, 1));
    const double plotW = width - left - right;
    const double height = top + double(plan.arenas.size()) * (panelHeight + gap) + lineHeight + gap;
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "<text x=\"{2}\" y=\"22\" font-size=\"15\">method {3}: peak live {4} bytes at instruction {5}, planned {6} "
        "bytes, wasted {7} bytes (x = instruction, y = offset in the arena)</text>\n",
        width, height, left, htmlEscaped(printable(m.name())), plan.peakLiveBytes, plan.peakInstruction,
        plan.plannedBytes, plan.wastedBytes);
    double y0 = top;
    for (const ArenaUsage &a : plan.arenas) {
        const double scale = a.size ? panelHeight / double(a.size) : 0;
        out += fmt::format("<g><text x=\"4\" y=\"{:.1f}\">arena {}</text><text x=\"4\" y=\"{:.1f}\">{} B</text>"
                           "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n",
            y0 + 14, a.id, y0 + 30, a.size, left, y0, plotW, panelHeight);
        for (const PlannedTensor &t : plan.tensors) {
            if (t.arena != a.id || t.first < 0)
                continue;
            const double x = left + plotW * double(t.first) / n;
            const double w = std::max(plotW * double(t.last - t.first + 1) / n, 0.5);
            const double y = y0 + double(t.offset) * scale;
            const double h = std::max(double(t.nbytes) * scale, 0.5);
            const std::string label = producerLabel(m, t);
            out += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"#{:06x}\" "
                               "stroke=\"#333\" stroke-width=\"0.3\"><title>%{} {} {} bytes @{}:{}, instructions "
                               "{}..{}, made by {}</title></rect>\n",
                x, y, w, h, labelColor(label), t.value, htmlEscaped(describeValue(m.value(std::size_t(t.value)))),
                t.nbytes, t.arena, t.offset, t.first, t.last, htmlEscaped(printable(label)));
        }
        out += "</g>\n";
        y0 += panelHeight + gap;
    }
    // Live bytes per instruction.
    const double maxLive = double(std::max<std::uint64_t>(plan.peakLiveBytes, 1));
    out += fmt::format("<text x=\"4\" y=\"{:.1f}\">live bytes</text><text x=\"4\" y=\"{:.1f}\">peak {}</text>"
                       "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n",
        y0 + 14, y0 + 30, plan.peakLiveBytes, left, y0, plotW, lineHeight);
    std::string pts;
    for (std::size_t k = 0; k < plan.liveBytes.size(); ++k) {
        const double yv = y0 + lineHeight * (1 - double(plan.liveBytes[k]) / maxLive);
        pts += fmt::format(
            "{:.2f},{:.2f} {:.2f},{:.2f} ", left + plotW * double(k) / n, yv, left + plotW * double(k + 1) / n, yv);
    }
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"1.5\"/>\n", pts);
    out += "</svg>\n";
    return out;
}

} // namespace etscope
