#include "program/delegates/nodelink.h"

#include "events/backendevents.h"
#include "events/event.h"
#include "program/program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace etscope {
namespace {

// Lower-case letters and digits only: "Fully Connected" and "FullyConnected" compare equal.
std::string squash(std::string_view s)
{
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)) != 0)
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// XNNPACK operator names (xnn_operator_type_to_string) whose kind differs from the node's
// name beyond spacing and case (XNNPACK's operator-type names; only the fixture's FC, Add, GELU,
// TanH and Softmax were seen logged, docs/formats.md §7.5).
struct Alias {
    const char *op; // squashed operator-name prefix
    const char *node; // decoded node op
};
constexpr Alias kAliases[] = {
    { "convolution", "Conv2d" },
    { "deconvolution", "ConvTranspose2d" },
    { "maxpooling", "MaxPooling2d" },
    { "averagepooling", "AvgPooling2d" },
    { "globalaveragepooling", "GlobalAvgPooling2d" },
    { "sigmoid", "Sigmoid" },
    { "squareroot", "SquareRoot" },
    { "reciprocalsquareroot", "ReciprocalSquareRoot" },
    { "batchmatrixmultiply", "BatchMatrixMultiply" },
    { "constantpad", "StaticConstantPad" },
    { "resizebilinear", "StaticResizeBilinear2D" },
    { "transpose", "StaticTranspose" },
    { "slice", "StaticSlice" },
    { "concatenate", "Concatenate2" },
    { "leakyrelu", "LeakyReLU" },
    { "elu", "ELU" },
};

bool nodeOfKind(std::string_view nodeOp, const std::string &kind)
{
    if (kind.empty())
        return false;
    const std::string n = squash(nodeOp), k = squash(kind);
    if (n == k)
        return true;
    // Concatenate2..5 are one operator kind; a depthwise convolution is a convolution operator.
    return (k == "concatenate2" && n.starts_with("concatenate")) || (k == "conv2d" && n == "depthwiseconv2d");
}

} // namespace

std::string xnnpackOperatorKind(std::string_view operatorName)
{
    // Drop " #n" and the parenthesised layout/type: "Fully Connected (NC, F32) GEMM #1".
    std::string_view name = operatorName;
    if (const auto hash = name.rfind(" #"); hash != std::string_view::npos)
        name = name.substr(0, hash);
    if (const auto paren = name.find(" ("); paren != std::string_view::npos)
        name = name.substr(0, paren);
    const std::string s = squash(name);
    for (const Alias &a : kAliases)
        if (s == a.op)
            return a.node;
    // Most names are the node's name spaced out: "Fully Connected", "Add", "GELU", "TanH".
    return s;
}

DelegateEventLinks linkXnnpackEvents(const DelegatePayload &payload, const std::vector<std::string> &eventNames)
{
    DelegateEventLinks out;
    out.events.resize(eventNames.size());
    std::size_t next = 0; // nodes before `next` are linked or passed over
    std::vector<bool> used(payload.nodes.size(), false);
    std::size_t unlinked = 0;
    for (std::size_t e = 0; e < eventNames.size(); ++e) {
        const std::string kind = xnnpackOperatorKind(eventNames[e]);
        std::size_t n = next;
        while (n < payload.nodes.size() && !nodeOfKind(payload.nodes[n].op, kind))
            ++n;
        if (n == payload.nodes.size()) {
            ++unlinked; // no later node of this kind: an operator XNNPACK added, or a kind we do not know
            continue;
        }
        out.events[e] = { std::int64_t(n), true };
        used[n] = true;
        next = n + 1;
    }
    out.fusedNodes = std::size_t(std::count(used.begin(), used.end(), false));
    out.complete = unlinked == 0 && payload.decoded;
    if (!payload.decoded)
        out.note = "the payload is opaque";
    else if (unlinked > 0)
        out.note = fmt::format(
            "{} of {} events name no remaining node of their kind: left unlinked", unlinked, eventNames.size());
    return out;
}

const char *payloadLinkBasisName(PayloadLinkBasis basis)
{
    return basis == PayloadLinkBasis::NodeId ? "node id" : "runtime order and kind";
}

const PayloadEventLink *PayloadEventLinks::find(std::size_t block, std::size_t event) const
{
    auto it = std::lower_bound(linked.begin(), linked.end(), std::pair(block, event),
        [](const PayloadEventLink &a, const std::pair<std::size_t, std::size_t> &k) {
            return std::pair(a.block, a.event) < k;
        });
    return it != linked.end() && it->block == block && it->event == event ? &*it : nullptr;
}

const DelegatePayload *PayloadEventLinks::payload(const PayloadEventLink &link) const
{
    auto it = payloads.find({ link.method, link.delegate });
    return it != payloads.end() ? it->second.get() : nullptr;
}

std::string PayloadEventLinks::nodeLabel(const PayloadEventLink &link) const
{
    const DelegatePayload *p = payload(link);
    if (!p || link.node < 0 || std::size_t(link.node) >= p->nodes.size())
        return {};
    const DelegateNode &n = p->nodes[std::size_t(link.node)];
    auto shape = [p](const std::vector<std::int64_t> &ids) {
        for (std::int64_t id : ids) // the first tensor that is not a constant (weights say little here)
            if (const DelegateValue *v = p->value(id); v && v->constant == 0 && v->text.empty())
                return fmt::format("{}[{}]", v->dtype, fmt::join(v->shape, ", "));
        return std::string();
    };
    std::string out = fmt::format("{} {}", link.node, n.op);
    const std::string in = shape(n.inputs), res = shape(n.outputs);
    if (!in.empty() || !res.empty())
        out += fmt::format(" {} -> {}", in.empty() ? "?" : in, res.empty() ? "?" : res);
    return out;
}

std::vector<std::string> PayloadEventLinks::describe(const PayloadEventLink &link) const
{
    const DelegatePayload *p = payload(link);
    if (!p || link.node < 0)
        return {};
    std::size_t args = 0;
    if (link.method && link.instruction >= 0 && std::size_t(link.instruction) < link.method->instructionCount())
        args = link.method->instruction(std::size_t(link.instruction)).args.size();
    std::vector<std::string> lines = payloadNodeLines(*p, std::size_t(link.node), args);
    lines.push_back(link.basis == PayloadLinkBasis::NodeId
            ? std::string("placed by the node id the event names")
            : std::string("placed by the runtime's operator order and kind (the backend logs no node id)"));
    return lines;
}

std::vector<std::string> payloadNodeLines(const DelegatePayload &p, std::size_t node, std::size_t callArgs)
{
    if (node >= p.nodes.size())
        return {};
    const DelegateNode &dn = p.nodes[node];
    // Nodes are numbered from 0 everywhere (`etscope-cli program`, the JSON, the timeline).
    std::vector<std::string> lines { fmt::format("{} {} node {} (of {})", p.backend, dn.op, node, p.nodes.size()) };
    if (!dn.params.empty())
        lines.push_back(dn.params);
    if (dn.debugHandle >= 0)
        lines.push_back(fmt::format("debug handle {}", dn.debugHandle));
    const auto arguments = p.callArguments(callArgs);
    auto valueLine = [&](const char *dir, std::int64_t id) {
        const DelegateValue *v = p.value(id);
        std::string line = fmt::format("{} v{}: {}", dir, id, v ? v->describe() : "(no such value)");
        if (v && v->constant > 0)
            line += " (constant)";
        if (v && (v->input || v->output)) {
            line += v->input ? " (graph input" : " (graph output";
            if (auto a = arguments.find(id); a != arguments.end())
                line += fmt::format(", argument {} of the call", a->second);
            line += ")";
        }
        return line;
    };
    for (std::int64_t id : dn.inputs)
        lines.push_back(valueLine(dn.outputs.empty() ? "arg" : "in ", id));
    for (std::int64_t id : dn.outputs)
        lines.push_back(valueLine("out", id));
    return lines;
}

PayloadEventLinks linkPayloadEvents(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const std::function<const ProgramMethod *(std::size_t block)> &methodOf, std::optional<std::size_t> onlyBlock)
{
    PayloadEventLinks out;
    std::map<std::pair<const ProgramMethod *, std::size_t>, std::size_t> unplacedOf; // per delegate, for the notes
    std::map<std::pair<const ProgramMethod *, std::size_t>, std::string> whyOf;
    for (const DelegateCallEvents &call : groupDelegateCalls(blocks, table, onlyBlock)) {
        const ProgramMethod *m = methodOf ? methodOf(call.block) : nullptr;
        if (!m || call.instructionId < 0 || std::size_t(call.instructionId) >= m->instructionCount())
            continue;
        const ProgramInstruction ins = m->instruction(std::size_t(call.instructionId));
        if (ins.kind != InstructionKind::DelegateCall || ins.delegateIndex < 0
            || std::size_t(ins.delegateIndex) >= m->delegates().size())
            continue;
        const auto key = std::pair(m, std::size_t(ins.delegateIndex));
        auto [pit, fresh] = out.payloads.try_emplace(key);
        if (fresh) {
            const ProgramDelegate &d = m->delegates()[key.second];
            pit->second = std::make_shared<const DelegatePayload>(decodeDelegatePayload(d.backendId, d.blob));
        }
        const DelegatePayload &p = *pit->second;
        if (!p.decoded || p.nodes.empty())
            continue; // nothing to place them on (the call's own line says what the payload is)
        const Event *const blockEvents = blocks[call.block].events.data();
        auto link = [&](std::size_t event, std::int64_t node, PayloadLinkBasis basis) {
            out.linked.push_back(
                { call.block, event, call.instructionId, call.delegateCall, m, key.second, node, basis });
            ++(basis == PayloadLinkBasis::NodeId ? out.byNodeId : out.byOrder);
        };
        std::vector<std::size_t> ordered; // XNNPACK operators: no id, placed by order
        std::vector<std::string> names;
        for (std::size_t w : call.work) {
            const BackendEvent *b = table.find(call.block, w);
            if (!b || b->stagingCopy)
                continue; // a staging copy belongs to no operator
            if (const std::optional<std::int64_t> id = backendEventIdentifier(*b)) {
                std::int64_t found = -1;
                std::size_t count = 0;
                for (std::size_t k = 0; k < p.nodes.size(); ++k)
                    if (p.nodes[k].nodeId == *id) {
                        found = std::int64_t(k);
                        ++count;
                    }
                if (count == 1) {
                    link(w, found, PayloadLinkBasis::NodeId);
                } else {
                    ++unplacedOf[key];
                    whyOf[key] = count == 0 ? fmt::format("no node has id {}", *id)
                                            : fmt::format("{} nodes share id {}", count, *id);
                }
            } else if (b->backend == BackendKind::Xnnpack && b->kind == BackendEventKind::Operator) {
                ordered.push_back(w);
                names.emplace_back(blockEvents[w].name);
            }
        }
        if (ordered.empty())
            continue;
        const DelegateEventLinks l = linkXnnpackEvents(p, names);
        if (!l.complete) {
            unplacedOf[key] += ordered.size();
            whyOf[key] = l.note;
            continue;
        }
        for (std::size_t i = 0; i < ordered.size(); ++i)
            link(ordered[i], l.events[i].node, PayloadLinkBasis::OrderAndKind);
    }
    std::sort(out.linked.begin(), out.linked.end(), [](const PayloadEventLink &a, const PayloadEventLink &b) {
        return std::pair(a.block, a.event) < std::pair(b.block, b.event);
    });
    for (const auto &[key, n] : unplacedOf) {
        out.unplaced += n;
        const auto &p = *out.payloads.at(key);
        out.notes.push_back(fmt::format("{} delegate {} of {}: {} event{} not placed on a node ({})", p.backend,
            key.second, key.first->name(), n, n == 1 ? "" : "s", whyOf[key]));
    }
    return out;
}

} // namespace etscope
