#include "program/programdiff.h"

#include "common/jsontext.h"
#include "common/printable.h"
#include "program/delegates/delegatepayload.h"
#include "program/memoryplan.h"
#include "program/programsize.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

namespace etscope {
namespace {

std::uint64_t fnv1a(std::span<const std::uint8_t> bytes)
{
    std::uint64_t h = 1469598103934665603ULL;
    for (std::uint8_t c : bytes) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

std::vector<std::string> signature(const ProgramMethod &m, std::span<const std::int32_t> ids)
{
    std::vector<std::string> out;
    for (std::int32_t v : ids)
        out.push_back(describeValue(m.value(std::size_t(v))));
    return out;
}

// Shapes only ("[1, 64]"): a quantized build may change dtypes, never the model's shapes.
std::vector<std::string> shapes(const ProgramMethod &m, std::span<const std::int32_t> ids)
{
    std::vector<std::string> out;
    for (std::int32_t v : ids) {
        const ProgramValue val = m.value(std::size_t(v));
        out.push_back(val.kind == ProgramValueKind::Tensor ? fmt::format("[{}]", fmt::join(val.tensor.sizes, ", "))
                                                           : std::string(programValueKindName(val.kind)));
    }
    return out;
}

struct MethodCounts {
    std::map<std::string, std::int64_t> portable, delegated, delegates;
    std::map<std::string, std::int64_t> delegatedNodes; // per backend id: nodes inside its delegates
};

MethodCounts countsOf(const ProgramMethod &m)
{
    MethodCounts c;
    std::vector<DelegatePayload> payloads;
    payloads.reserve(m.delegates().size());
    for (const ProgramDelegate &d : m.delegates())
        payloads.push_back(decodeDelegatePayload(d.backendId, d.blob));
    for (std::size_t k = 0; k < m.instructionCount(); ++k) {
        const ProgramInstruction ins = m.instruction(k);
        if (ins.kind == InstructionKind::KernelCall) {
            ++c.portable[m.instructionLabel(k)];
        } else if (ins.kind == InstructionKind::DelegateCall) {
            const ProgramDelegate &d = m.delegates()[std::size_t(ins.delegateIndex)];
            const DelegatePayload &p = payloads[std::size_t(ins.delegateIndex)];
            ++c.delegates[d.backendId];
            c.delegatedNodes[d.backendId] += std::int64_t(p.nodes.size());
            for (const DelegateNode &n : p.nodes)
                ++c.delegated[fmt::format("{}:{}", p.backend, n.op)];
            if (!p.decoded)
                ++c.delegated[fmt::format("{}:(opaque payload)", d.backendId)];
        }
    }
    return c;
}

std::vector<ProgramDiffCount> differing(
    const std::map<std::string, std::int64_t> &a, const std::map<std::string, std::int64_t> &b)
{
    std::set<std::string> names;
    for (const auto &[k, v] : a)
        names.insert(k);
    for (const auto &[k, v] : b)
        names.insert(k);
    std::vector<ProgramDiffCount> out;
    for (const std::string &n : names) {
        const auto ia = a.find(n), ib = b.find(n);
        const std::int64_t va = ia == a.end() ? 0 : ia->second, vb = ib == b.end() ? 0 : ib->second;
        if (va != vb)
            out.push_back({ n, va, vb });
    }
    return out;
}

std::uint64_t plannedBytes(const ProgramMethod &m)
{
    std::uint64_t sum = 0;
    for (std::size_t a = 1; a < m.arenaSizes().size(); ++a)
        sum += std::uint64_t(m.arenaSizes()[a]);
    return sum;
}

// Constant content hashes of a program -> bytes.
std::map<std::uint64_t, std::uint64_t> constantHashes(const Program &p)
{
    std::map<std::uint64_t, std::uint64_t> out;
    std::set<std::uint32_t> seen;
    for (const ProgramMethod &m : p.methods())
        for (std::size_t v = 0; v < m.valueCount(); ++v) {
            const ProgramValue val = m.value(v);
            if (val.kind != ProgramValueKind::Tensor || !val.tensor.isConstant() || val.tensor.external
                || !seen.insert(val.tensor.dataBufferIndex).second)
                continue;
            const auto bytes = p.constantData(val.tensor.dataBufferIndex, val.tensor.nbytes);
            out[fnv1a(bytes) ^ (std::uint64_t(bytes.size()) << 1)] = bytes.size();
        }
    return out;
}

// Names a top-level size part by category (drops numbers that differ between builds).
std::string sizeCategory(const std::string &name)
{
    for (const char *prefix : { "flatbuffer", "constant segment", "named data", "padding" })
        if (name.starts_with(prefix))
            return prefix;
    if (name.starts_with("delegate ")) {
        const auto open = name.find(" (");
        const auto comma = name.find(',', open);
        if (open != std::string::npos && comma != std::string::npos)
            return "delegate payloads " + name.substr(open + 2, comma - open - 2);
    }
    return "other";
}

std::map<std::string, std::int64_t> sizeByCategory(const Program &p)
{
    std::map<std::string, std::int64_t> out;
    for (const SizePart &part : programSize(p).parts)
        out[sizeCategory(part.name)] += std::int64_t(part.bytes);
    return out;
}

using Json = nlohmann::ordered_json;

Json countsJson(const std::vector<ProgramDiffCount> &v)
{
    Json out = Json::array();
    for (const ProgramDiffCount &c : v)
        out.push_back({ { "name", c.name }, { "a", c.a }, { "b", c.b } });
    return out;
}

} // namespace

ProgramDiff diffPrograms(const Program &a, const Program &b)
{
    ProgramDiff d;
    d.fileA = a.path();
    d.fileB = b.path();
    d.bytesA = a.fileSize();
    d.bytesB = b.fileSize();

    // Same model: some method present in both with inputs of the same shapes.
    bool sameModel = false;
    for (const ProgramMethod &ma : a.methods())
        if (const ProgramMethod *mb = b.method(ma.name()))
            if (!ma.inputs().empty() && shapes(ma, ma.inputs()) == shapes(*mb, mb->inputs()))
                sameModel = true;
    if (!sameModel) {
        d.refusal = "the two programs are not builds of one model: no method is in both with inputs of the same shapes";
        return d;
    }
    d.comparable = true;

    const auto sa = sizeByCategory(a), sb = sizeByCategory(b);
    std::set<std::string> cats;
    for (const auto &[k, v] : sa)
        cats.insert(k);
    for (const auto &[k, v] : sb)
        cats.insert(k);
    for (const std::string &c : cats)
        d.sizeParts.push_back({ c, sa.count(c) ? sa.at(c) : 0, sb.count(c) ? sb.at(c) : 0 });

    const auto ca = constantHashes(a), cb = constantHashes(b);
    for (const auto &[h, n] : ca) {
        if (cb.count(h)) {
            ++d.constantsSame;
        } else {
            ++d.constantsOnlyA;
            d.constantBytesOnlyA += n;
        }
    }
    for (const auto &[h, n] : cb)
        if (!ca.count(h)) {
            ++d.constantsOnlyB;
            d.constantBytesOnlyB += n;
        }

    std::vector<std::string> names;
    for (const ProgramMethod &m : a.methods())
        names.push_back(m.name());
    for (const ProgramMethod &m : b.methods())
        if (!a.method(m.name()))
            names.push_back(m.name());
    for (const std::string &name : names) {
        ProgramMethodDiff md;
        md.name = name;
        const ProgramMethod *ma = a.method(name), *mb = b.method(name);
        md.inA = ma != nullptr;
        md.inB = mb != nullptr;
        MethodCounts ka, kb;
        if (ma) {
            md.inputsA = signature(*ma, ma->inputs());
            md.outputsA = signature(*ma, ma->outputs());
            md.peakA = analyzeMemoryPlan(*ma).peakLiveBytes;
            md.plannedA = plannedBytes(*ma);
            ka = countsOf(*ma);
        }
        if (mb) {
            md.inputsB = signature(*mb, mb->inputs());
            md.outputsB = signature(*mb, mb->outputs());
            md.peakB = analyzeMemoryPlan(*mb).peakLiveBytes;
            md.plannedB = plannedBytes(*mb);
            kb = countsOf(*mb);
        }
        md.portableOps = differing(ka.portable, kb.portable);
        md.delegatedOps = differing(ka.delegated, kb.delegated);
        md.delegates = differing(ka.delegates, kb.delegates);
        // Operators that left the portable kernels while delegated nodes appeared, and back.
        std::int64_t portableDelta = 0, delegatedDelta = 0;
        for (const ProgramDiffCount &c : md.portableOps)
            portableDelta += c.b - c.a;
        for (const ProgramDiffCount &c : md.delegatedOps)
            delegatedDelta += c.b - c.a;
        if (portableDelta < 0 && delegatedDelta > 0)
            md.notes.push_back(
                fmt::format("{} portable operator calls fewer and {} delegated nodes more: moved into a delegate",
                    -portableDelta, delegatedDelta));
        else if (portableDelta > 0 && delegatedDelta < 0)
            md.notes.push_back(
                fmt::format("{} portable operator calls more and {} delegated nodes fewer: moved out of a delegate",
                    portableDelta, -delegatedDelta));
        for (const ProgramDiffCount &c : md.delegates) {
            const std::int64_t na = ka.delegatedNodes[c.name], nb = kb.delegatedNodes[c.name];
            if (c.a > 0 && c.b > c.a && na == nb)
                md.notes.push_back(
                    fmt::format("{} split: {} -> {} delegates ({} nodes in both)", c.name, c.a, c.b, na));
            else if (c.b > 0 && c.a > c.b && na == nb)
                md.notes.push_back(
                    fmt::format("{} merged: {} -> {} delegates ({} nodes in both)", c.name, c.a, c.b, na));
            else if (c.a == 0)
                md.notes.push_back(fmt::format("{} added: {} delegate calls, {} nodes", c.name, c.b, nb));
            else if (c.b == 0)
                md.notes.push_back(fmt::format("{} removed: {} delegate calls, {} nodes", c.name, c.a, na));
            else
                md.notes.push_back(
                    fmt::format("{}: {} -> {} delegate calls, {} -> {} nodes", c.name, c.a, c.b, na, nb));
        }
        if (md.inA && md.inB && (md.inputsA != md.inputsB || md.outputsA != md.outputsB))
            md.notes.push_back("inputs or outputs changed");
        d.methods.push_back(std::move(md));
    }
    return d;
}

std::string programDiffText(const ProgramDiff &d)
{
    std::string out = fmt::format("A: {}\nB: {}\n", printable(d.fileA, 300), printable(d.fileB, 300));
    if (!d.comparable)
        return out + "not comparable: " + d.refusal + "\n";
    out += fmt::format("file bytes: {} -> {} ({:+.2f}%)\n", d.bytesA, d.bytesB, d.growthPercent());
    out += "size by part:\n";
    for (const ProgramDiffCount &c : d.sizeParts)
        out += fmt::format("  {:<40} {:>12} -> {:>12} ({:+})\n", printable(c.name, 40), c.a, c.b, c.b - c.a);
    out += fmt::format("constants by content: {} same, {} only in A ({} bytes), {} only in B ({} bytes)\n",
        d.constantsSame, d.constantsOnlyA, d.constantBytesOnlyA, d.constantsOnlyB, d.constantBytesOnlyB);
    for (const ProgramMethodDiff &m : d.methods) {
        out += fmt::format("method {}{}\n", printable(m.name, 80),
            m.inA && m.inB ? ""
                : m.inA    ? " (only in A)"
                           : " (only in B)");
        if (m.inputsA != m.inputsB)
            out += fmt::format("  inputs: {} -> {}\n", fmt::join(m.inputsA, ", "), fmt::join(m.inputsB, ", "));
        if (m.outputsA != m.outputsB)
            out += fmt::format("  outputs: {} -> {}\n", fmt::join(m.outputsA, ", "), fmt::join(m.outputsB, ", "));
        out += fmt::format("  memory plan: peak live {} -> {} bytes, planned {} -> {} bytes\n", m.peakA, m.peakB,
            m.plannedA, m.plannedB);
        for (const ProgramDiffCount &c : m.portableOps)
            out += fmt::format("  portable {:<40} {} -> {}\n", printable(c.name, 60), c.a, c.b);
        for (const ProgramDiffCount &c : m.delegatedOps)
            out += fmt::format("  delegated {:<39} {} -> {}\n", printable(c.name, 60), c.a, c.b);
        for (const std::string &n : m.notes)
            out += "  " + printable(n, 300) + "\n";
    }
    return out;
}

std::string programDiffJson(const ProgramDiff &d)
{
    Json j;
    j["a"] = d.fileA;
    j["b"] = d.fileB;
    j["comparable"] = d.comparable;
    if (!d.comparable) {
        j["refusal"] = d.refusal;
        return jsonDocument(j);
    }
    j["file_bytes"] = { { "a", d.bytesA }, { "b", d.bytesB }, { "growth_percent", d.growthPercent() } };
    j["size_parts"] = countsJson(d.sizeParts);
    j["constants"] = { { "same", d.constantsSame }, { "only_a", d.constantsOnlyA }, { "only_b", d.constantsOnlyB },
        { "bytes_only_a", d.constantBytesOnlyA }, { "bytes_only_b", d.constantBytesOnlyB } };
    Json methods = Json::array();
    for (const ProgramMethodDiff &m : d.methods)
        methods.push_back({ { "name", m.name }, { "in_a", m.inA }, { "in_b", m.inB },
            { "inputs", { { "a", m.inputsA }, { "b", m.inputsB } } },
            { "outputs", { { "a", m.outputsA }, { "b", m.outputsB } } },
            { "peak_live_bytes", { { "a", m.peakA }, { "b", m.peakB } } },
            { "planned_bytes", { { "a", m.plannedA }, { "b", m.plannedB } } },
            { "portable_ops", countsJson(m.portableOps) }, { "delegated_ops", countsJson(m.delegatedOps) },
            { "delegates", countsJson(m.delegates) }, { "notes", m.notes } });
    j["methods"] = std::move(methods);
    return jsonDocument(j);
}

} // namespace etscope
