#include "graph/programgraph.h"

#include "analysis/comparator.h"
#include "analysis/numericgap.h"
#include "etrecord/modulerollup.h"
#include "etrecord/modulestack.h"
#include "events/event.h"
#include "program/delegates/delegatepayload.h"
#include "program/delegates/nodelink.h"
#include "program/program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

namespace etscope::graph {

namespace {

// "aten.addmm.default" -> "addmm", "aten._softmax.default" -> "_softmax".
std::string shortOpName(const std::string &op)
{
    std::string s = op;
    if (s.starts_with("aten."))
        s = s.substr(5);
    if (auto dot = s.rfind('.'); dot != std::string::npos && dot > 0)
        s = s.substr(0, dot);
    return s.empty() ? op : s;
}

std::string shapes(const ExportedProgram &p, const std::vector<std::string> &tensors)
{
    std::string out;
    for (const std::string &t : tensors) {
        if (t.find("_unused_") != std::string::npos)
            continue;
        const TensorMetaInfo *m = p.tensor(t);
        if (!m)
            continue;
        if (!out.empty())
            out += " ";
        out += m->shapeText();
    }
    return out;
}

} // namespace

std::size_t ProgramGraph::operatorCount() const
{
    return std::size_t(std::count_if(m_nodes.begin(), m_nodes.end(), [](const OpNode &n) { return !n.placeholder; }));
}

int ProgramGraph::findNode(const std::string &name) const
{
    auto it = m_byName.find(name);
    if (it == m_byName.end() && name.ends_with('_')) // the Inspector's spelling
        it = m_byName.find(name.substr(0, name.size() - 1));
    return it == m_byName.end() ? -1 : it->second;
}

int ProgramGraph::findGroup(const std::string &k) const
{
    for (std::size_t i = 1; i < m_groups.size(); ++i)
        if (m_groups[i].key == k || m_groups[i].label == k)
            return int(i);
    return -1;
}

std::vector<int> ProgramGraph::ancestry(int group) const
{
    std::vector<int> out;
    for (int g = group; g > 0; g = m_groups[std::size_t(g)].parent)
        out.push_back(g);
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<int> ProgramGraph::nodesForHandle(std::int64_t handle) const
{
    std::vector<int> out;
    auto [a, b] = m_byHandle.equal_range(handle);
    for (auto it = a; it != b; ++it)
        out.push_back(it->second);
    std::sort(out.begin(), out.end());
    return out;
}

Result<ProgramGraph> ProgramGraph::build(std::shared_ptr<const ETRecord> record, const BuildOptions &opts)
{
    if (!record)
        return makeError(ErrorCode::InvalidArgument, "", "no ETRecord");
    const ETRecordProgram *prog = opts.entry.empty() ? record->edgeProgram(opts.method) : record->program(opts.entry);
    if (!prog || !prog->program) {
        std::string names;
        for (const ETRecordProgram &q : record->programs())
            names += (names.empty() ? "" : ", ") + q.entryName;
        return makeError(ErrorCode::InvalidArgument, record->path(),
            fmt::format("no program {}; available: {}",
                opts.entry.empty() ? "for method '" + opts.method + "'" : "'" + opts.entry + "'",
                names.empty() ? "none" : names));
    }
    ProgramGraph g;
    g.m_record = record;
    g.m_entry = prog->entryName;
    const ExportedProgram &ep = *prog->program;
    g.m_groups.push_back(Group { Group::Kind::Program, "", prog->entryName, "", -1, 0, {}, {}, 0, false, -1, false });

    // Delegated partitions: delegate instructions and the handles they cover.
    std::map<std::int64_t, int> partitionOfHandle;
    if (const ETRecordMethodMaps *maps = record->methodMaps(prog->method.empty() ? opts.method : prog->method)) {
        for (const auto &[instr, d] : maps->delegates) {
            Partition p;
            p.instructionId = instr;
            p.backend = d.backendName.empty() ? "delegate" : d.backendName;
            if (auto it = maps->debugHandles.find(instr); it != maps->debugHandles.end())
                p.handles = it->second.handles;
            std::sort(p.handles.begin(), p.handles.end());
            p.handles.erase(std::unique(p.handles.begin(), p.handles.end()), p.handles.end());
            for (std::int64_t h : p.handles)
                partitionOfHandle.emplace(h, int(g.m_partitions.size()));
            g.m_partitions.push_back(std::move(p));
        }
    }

    // Placeholders (graph inputs), by tensor name.
    std::unordered_map<std::string, int> placeholderNode;
    std::unordered_set<std::string> placeholderNames;
    for (const GraphArgument &a : ep.inputs)
        for (const std::string &t : a.tensorNames)
            placeholderNames.insert(t);
    auto placeholder = [&](const std::string &t) {
        if (auto it = placeholderNode.find(t); it != placeholderNode.end())
            return it->second;
        OpNode n;
        n.name = t;
        n.placeholder = true;
        n.opName = n.shortOp = "input";
        for (const SignatureSpec &s : ep.inputSpecs)
            if (s.argName == t)
                n.shortOp = n.opName = s.kind;
        n.shape = shapes(ep, { t });
        const int idx = int(g.m_nodes.size());
        g.m_nodes.push_back(std::move(n));
        g.m_groups[0].nodes.push_back(idx);
        placeholderNode.emplace(t, idx);
        return idx;
    };

    std::unordered_map<std::string, int> producer; // tensor -> OpNode
    std::unordered_set<std::string> allocated;
    std::set<std::pair<int, int>> seenEdges;
    std::map<std::pair<int, std::string>, int> childGroup; // (parent, key) -> group
    auto groupFor
        = [&](int parent, Group::Kind kind, const std::string &key, const std::string &label, const std::string &type) {
              auto [it, fresh] = childGroup.emplace(std::make_pair(parent, key), int(g.m_groups.size()));
              if (fresh) {
                  Group grp { kind, key, label, type, parent, g.m_groups[std::size_t(parent)].depth + 1, {}, {}, 0,
                      false, -1, false };
                  g.m_groups.push_back(std::move(grp));
                  g.m_groups[std::size_t(parent)].children.push_back(it->second);
              }
              return it->second;
          };

    for (const GraphNode &gn : ep.nodes) {
        if (gn.isMemoryAlloc()) {
            for (const GraphArgument &o : gn.outputs)
                for (const std::string &t : o.tensorNames)
                    allocated.insert(t);
            continue;
        }
        if (gn.isGetItem()) { // folded into the node whose output it picks
            int src = -1;
            for (const NamedArgument &in : gn.inputs)
                for (const std::string &t : in.arg.tensorNames)
                    if (auto it = producer.find(t); it != producer.end() && src < 0)
                        src = it->second;
            if (src >= 0)
                for (const GraphArgument &o : gn.outputs)
                    for (const std::string &t : o.tensorNames)
                        producer.emplace(t, src);
            continue;
        }
        OpNode n;
        n.name = gn.name;
        n.opName = gn.opName;
        n.shortOp = shortOpName(gn.opName);
        n.debugHandle = gn.debugHandle;
        n.source = &gn;
        std::vector<std::string> outs;
        for (const GraphArgument &o : gn.outputs)
            outs.insert(outs.end(), o.tensorNames.begin(), o.tensorNames.end());
        n.shape = shapes(ep, outs);
        const int idx = int(g.m_nodes.size());
        if (gn.debugHandle)
            if (auto it = partitionOfHandle.find(*gn.debugHandle); it != partitionOfHandle.end())
                n.partition = it->second;

        int grp = 0;
        if (n.partition >= 0) {
            Partition &p = g.m_partitions[std::size_t(n.partition)];
            grp = groupFor(0, Group::Kind::Partition, fmt::format("partition:{}", p.instructionId),
                fmt::format("{} #{}", p.backend, n.partition), p.backend);
            p.group = grp;
            p.nodes.push_back(idx);
        }
        if (gn.moduleStack)
            for (const ModuleFrame &f : *gn.moduleStack) {
                std::string label = moduleDisplayName(f.path);
                grp = groupFor(grp, Group::Kind::Module, f.key, label.empty() ? f.key : label, f.type);
            }
        n.group = grp;
        g.m_groups[std::size_t(grp)].nodes.push_back(idx);

        for (const NamedArgument &in : gn.inputs)
            for (const std::string &t : in.arg.tensorNames) {
                int from = -1;
                if (auto it = producer.find(t); it != producer.end())
                    from = it->second;
                else if (placeholderNames.count(t)) {
                    if (opts.showPlaceholders)
                        from = placeholder(t);
                    else if (std::find(n.collapsedInputs.begin(), n.collapsedInputs.end(), t)
                        == n.collapsedInputs.end())
                        n.collapsedInputs.push_back(t);
                }
                if (from >= 0 && seenEdges.emplace(from, idx).second)
                    g.m_edges.push_back({ from, idx, false });
            }
        for (const std::string &t : outs)
            producer.emplace(t, idx);
        g.m_byName.emplace(n.name, idx);
        if (n.debugHandle)
            g.m_byHandle.emplace(*n.debugHandle, idx);
        g.m_nodes.push_back(std::move(n));
    }
    for (auto &[name, idx] : placeholderNode)
        g.m_byName.emplace(name, idx);

    g.countOperators();
    return g;
}

void ProgramGraph::countOperators()
{
    // Operator counts per subtree (children come after their parents).
    for (std::size_t i = m_groups.size(); i-- > 0;) {
        Group &grp = m_groups[i];
        for (int n : grp.nodes) // a payload group counts its payload's nodes, not its call
            grp.totalOps += m_nodes[std::size_t(n)].placeholder || n == grp.callNode ? 0 : 1;
        if (grp.parent >= 0)
            m_groups[std::size_t(grp.parent)].totalOps += grp.totalOps;
    }
}

namespace {

std::string shapeText(const std::vector<std::uint64_t> &shape)
{
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

// The payload nodes of one DELEGATE_CALL while its instruction graph is built.
struct PayloadNodes {
    int call = -1; // OpNode of the call
    int first = -1; // OpNode of payload node 0
    std::unordered_map<std::int64_t, std::vector<int>> readers; // graph input value -> OpNodes reading it
    std::unordered_map<std::int64_t, int> writer; // value -> OpNode writing it
    std::unordered_map<std::int64_t, std::size_t> arguments; // bound value -> call argument
};

} // namespace

Result<ProgramGraph> ProgramGraph::fromProgram(
    std::shared_ptr<const Program> program, const std::string &method, bool delegateNodes)
{
    if (!program)
        return makeError(ErrorCode::InvalidArgument, "", "no program");
    const ProgramMethod *m = method.empty() ? (program->methods().empty() ? nullptr : &program->methods().front())
                                            : program->method(method);
    if (!m) {
        std::string names;
        for (const ProgramMethod &pm : program->methods())
            names += (names.empty() ? "" : ", ") + pm.name();
        return makeError(ErrorCode::InvalidArgument, program->path(),
            fmt::format("no method '{}'; available: {}", method, names.empty() ? "none" : names));
    }
    ProgramGraph g;
    g.m_program = program;
    g.m_entry = m->name();
    g.m_groups.push_back(Group { Group::Kind::Program, "", m->name(), "", -1, 0, {}, {}, 0, false, -1, false });
    const std::size_t nValues = m->valueCount();
    auto valid = [nValues](std::int32_t v) { return v >= 0 && std::size_t(v) < nValues; };
    std::vector<int> writer(nValues, -1);
    // A tensor a DELEGATE_CALL writes that its payload binds to an output: the payload node that
    // writes it.
    std::vector<int> payloadWriter(nValues, -1);
    std::vector<char> input(nValues, 0);
    for (std::int32_t v : m->inputs())
        if (valid(v))
            input[std::size_t(v)] = 1;
    auto tensorsOf = [&](std::int32_t v, std::vector<std::int32_t> &out) {
        if (!valid(v))
            return;
        const ProgramValue pv = m->value(std::size_t(v));
        if (pv.kind == ProgramValueKind::Tensor)
            out.push_back(v);
        else if (pv.kind == ProgramValueKind::TensorList || pv.kind == ProgramValueKind::OptionalTensorList)
            for (std::int32_t t : pv.valueIndices)
                if (valid(t) && m->value(std::size_t(t)).kind == ProgramValueKind::Tensor)
                    out.push_back(t);
    };
    std::set<std::pair<int, int>> seenEdges, payloadEdges;
    std::vector<Edge> fine; // edges of payload nodes, after the instructions' own
    std::set<std::pair<int, int>> kept; // call edges the payload's edges do not replace
    std::unordered_map<int, PayloadNodes> payloadOf; // call OpNode -> its payload nodes
    auto addFine = [&](int from, int to) {
        if (from != to && payloadEdges.emplace(from, to).second)
            fine.push_back({ from, to, false });
    };
    const std::size_t count = m->instructionCount();
    for (std::size_t i = 0; i < count; ++i) {
        const ProgramInstruction ins = m->instruction(i);
        if (ins.kind == InstructionKind::Move && valid(ins.moveFrom) && valid(ins.moveTo)) {
            writer[std::size_t(ins.moveTo)] = writer[std::size_t(ins.moveFrom)];
            payloadWriter[std::size_t(ins.moveTo)] = payloadWriter[std::size_t(ins.moveFrom)];
            continue;
        }
        if (ins.kind != InstructionKind::KernelCall && ins.kind != InstructionKind::DelegateCall)
            continue;
        OpNode node;
        node.instruction = std::int32_t(i);
        node.name = fmt::format("instruction_{}", i);
        std::string backend;
        const ProgramDelegate *delegate = nullptr;
        if (ins.kind == InstructionKind::KernelCall) {
            if (ins.operatorIndex >= 0 && std::size_t(ins.operatorIndex) < m->operators().size()) {
                const ProgramOperator &op = m->operators()[std::size_t(ins.operatorIndex)];
                node.opName = op.displayName();
                const auto sep = op.name.rfind("::");
                node.shortOp = sep == std::string::npos ? op.name : op.name.substr(sep + 2);
            }
        } else {
            if (ins.delegateIndex >= 0 && std::size_t(ins.delegateIndex) < m->delegates().size()) {
                delegate = &m->delegates()[std::size_t(ins.delegateIndex)];
                backend = delegate->backendId;
            }
            backend = backend.empty() ? "delegate" : backend;
            node.opName = "DELEGATE_CALL " + backend;
            node.shortOp = backend;
        }
        const int idx = int(g.m_nodes.size());
        std::shared_ptr<const DelegatePayload> payload;
        if (delegateNodes && delegate) {
            auto p = std::make_shared<DelegatePayload>(decodeDelegatePayload(delegate->backendId, delegate->blob));
            if (p->decoded && !p->nodes.empty())
                payload = std::move(p);
        }
        PayloadNodes *pn = nullptr;
        if (payload) {
            pn = &payloadOf[idx];
            pn->call = idx;
            pn->first = idx + 1;
            pn->arguments = payload->callArguments(ins.args.size());
            for (std::size_t k = 0; k < payload->nodes.size(); ++k)
                for (std::int64_t v : payload->nodes[k].inputs)
                    pn->readers[v].push_back(pn->first + int(k));
        }
        std::vector<std::int32_t> written;
        for (std::size_t a = 0; a < ins.args.size(); ++a) {
            std::vector<std::int32_t> tensors;
            tensorsOf(ins.args[a], tensors);
            // The payload's graph input bound to this argument, and the nodes reading it.
            const std::vector<int> *inside = nullptr;
            if (pn)
                for (const auto &[value, arg] : pn->arguments)
                    if (arg == a)
                        if (auto r = pn->readers.find(value); r != pn->readers.end())
                            inside = &r->second;
            for (std::int32_t t : tensors) {
                const int from = writer[std::size_t(t)];
                if (from >= 0 && from != idx) {
                    if (seenEdges.emplace(from, idx).second)
                        g.m_edges.push_back({ from, idx, false });
                    const int fromNode = payloadWriter[std::size_t(t)] >= 0 ? payloadWriter[std::size_t(t)] : from;
                    const bool fromKnown = fromNode != from || !payloadOf.count(from);
                    const bool toKnown = inside != nullptr || !pn;
                    if (!fromKnown || !toKnown)
                        kept.emplace(from, idx);
                    if (fromNode != from || inside)
                        for (int to : inside ? *inside : std::vector<int> { idx })
                            addFine(fromNode, to);
                } else if (from < 0 && !input[std::size_t(t)] && m->value(std::size_t(t)).tensor.isPlanned()) {
                    writer[std::size_t(t)] = idx;
                    written.push_back(t);
                }
            }
        }
        std::vector<std::string> shapes;
        for (std::int32_t t : written)
            shapes.push_back(fmt::format("[{}]", fmt::join(m->value(std::size_t(t)).tensor.sizes, ", ")));
        node.shape = fmt::format("{}", fmt::join(shapes, ", "));
        int grp = 0;
        if (ins.kind == InstructionKind::DelegateCall) {
            Partition p;
            p.instructionId = std::int64_t(i);
            p.backend = backend;
            p.nodes = { idx };
            grp = int(g.m_groups.size());
            g.m_groups.push_back(Group { Group::Kind::Partition, fmt::format("partition:{}", i),
                fmt::format("{} #{}", backend, g.m_partitions.size()), backend, 0, 1, {}, {}, 0, false, -1, false });
            g.m_groups[0].children.push_back(grp);
            p.group = grp;
            node.partition = int(g.m_partitions.size());
            g.m_partitions.push_back(std::move(p));
            g.m_payloads.push_back(payload);
        }
        node.group = grp;
        const int partition = node.partition;
        g.m_groups[std::size_t(grp)].nodes.push_back(idx);
        g.m_byName.emplace(node.name, idx);
        g.m_byInstruction.emplace(node.instruction, idx);
        g.m_nodes.push_back(std::move(node));
        if (!payload)
            continue;

        // The payload's nodes, in payload order, right after their call.
        g.m_groups[std::size_t(grp)].payload = true;
        g.m_groups[std::size_t(grp)].callNode = idx;
        for (std::size_t k = 0; k < payload->nodes.size(); ++k) {
            const DelegateNode &dn = payload->nodes[k];
            const int at = pn->first + int(k);
            OpNode op;
            op.name = fmt::format("instruction_{}_node_{}", i, k);
            op.shortOp = dn.op.empty() ? "?" : dn.op;
            op.opName = payload->backend + " " + op.shortOp;
            op.instruction = std::int32_t(i);
            op.payloadNode = std::int32_t(k);
            op.group = grp;
            op.partition = partition;
            std::vector<std::string> outShapes;
            for (std::int64_t v : dn.inputs)
                if (auto w = pn->writer.find(v); w != pn->writer.end())
                    addFine(w->second, at);
                else if (dn.outputs.empty()) {
                    // No outputs listed (Vulkan): the first node touching a tensor value that is
                    // neither a graph input nor a constant writes it.
                    const DelegateValue *val = payload->value(v);
                    if (val && !val->input && val->constant == 0 && val->text.empty()
                        && std::find(payload->inputs.begin(), payload->inputs.end(), std::uint32_t(v))
                            == payload->inputs.end()) {
                        pn->writer.emplace(v, at);
                        outShapes.push_back(shapeText(val->shape));
                    }
                }
            for (std::int64_t v : dn.outputs) {
                pn->writer[v] = at;
                if (const DelegateValue *val = payload->value(v))
                    outShapes.push_back(shapeText(val->shape));
            }
            op.shape = fmt::format("{}", fmt::join(outShapes, ", "));
            g.m_groups[std::size_t(grp)].nodes.push_back(at);
            g.m_partitions[std::size_t(partition)].nodes.push_back(at);
            g.m_byName.emplace(op.name, at);
            g.m_byPayloadNode.emplace(std::pair(std::int32_t(i), std::int64_t(k)), at);
            g.m_nodes.push_back(std::move(op));
        }
        // Outputs bound to call arguments: the tensor's writer inside the payload.
        for (const auto &[value, arg] : pn->arguments) {
            const auto w = pn->writer.find(value);
            if (w == pn->writer.end() || arg >= ins.args.size())
                continue;
            std::vector<std::int32_t> tensors;
            tensorsOf(ins.args[arg], tensors);
            for (std::int32_t t : tensors)
                if (writer[std::size_t(t)] == idx)
                    payloadWriter[std::size_t(t)] = w->second;
        }
    }
    // A call edge is replaced by its payload's edges when both of its ends are known inside.
    for (Edge &e : g.m_edges)
        if ((payloadOf.count(e.from) || payloadOf.count(e.to)) && !kept.count({ e.from, e.to }))
            e.replaced = true;
    for (const auto &[call, pn] : payloadOf) {
        bool drawn = false;
        for (const Edge &e : g.m_edges)
            drawn = drawn || ((e.from == call || e.to == call) && !e.replaced);
        g.m_groups[std::size_t(g.m_nodes[std::size_t(call)].group)].callNodeDrawn = drawn;
    }
    g.m_edges.insert(g.m_edges.end(), fine.begin(), fine.end());
    g.countOperators();
    return g;
}

int ProgramGraph::nodeForPayload(std::int32_t instruction, std::int64_t payloadNode) const
{
    auto it = m_byPayloadNode.find({ instruction, payloadNode });
    return it == m_byPayloadNode.end() ? -1 : it->second;
}

const DelegatePayload *ProgramGraph::payload(int partition) const
{
    return partition >= 0 && std::size_t(partition) < m_payloads.size() ? m_payloads[std::size_t(partition)].get()
                                                                        : nullptr;
}

int ProgramGraph::nodeForInstruction(std::int32_t instruction) const
{
    auto it = m_byInstruction.find(instruction);
    return it == m_byInstruction.end() ? -1 : it->second;
}

// ---------------------------------------------------------------------------------------------

ExpansionState::ExpansionState(const ProgramGraph &g)
{
    for (const Group &grp : g.groups()) {
        m_closedByDefault.push_back(grp.kind == Group::Kind::Module || grp.payload);
        m_open.push_back(m_closedByDefault.back() == 0);
    }
}

void ExpansionState::setExpanded(int group, bool on)
{
    if (group > 0 && group < int(m_open.size()))
        m_open[std::size_t(group)] = on;
}

void ExpansionState::expandAll()
{
    std::fill(m_open.begin(), m_open.end(), 1);
}

void ExpansionState::collapseAll()
{
    for (std::size_t i = 1; i < m_open.size(); ++i)
        m_open[i] = m_closedByDefault[i] == 0;
}

void ExpansionState::reveal(const ProgramGraph &g, int group, bool self)
{
    for (int a : g.ancestry(group))
        if (a != group || self)
            setExpanded(a, true);
}

std::string VisibleGraph::itemName(const ProgramGraph &g, int item) const
{
    const VisibleItem &it = items[std::size_t(item)];
    if (it.kind == VisibleItem::Kind::Op)
        return g.nodes()[std::size_t(it.index)].name;
    const Group &grp = g.groups()[std::size_t(it.index)];
    return (grp.kind == Group::Kind::Partition ? "partition:" : "module:") + grp.label
        + (grp.kind == Group::Kind::Module ? "" : "");
}

VisibleGraph visibleGraph(const ProgramGraph &g, const ExpansionState &state)
{
    const auto &groups = g.groups();
    std::vector<int> collapsedAt(groups.size(), -1); // outermost collapsed group at or above
    for (std::size_t i = 1; i < groups.size(); ++i) {
        const int parent = groups[i].parent;
        collapsedAt[i] = parent > 0 && collapsedAt[std::size_t(parent)] >= 0 ? collapsedAt[std::size_t(parent)]
            : state.expanded(int(i))                                         ? -1
                                                                             : int(i);
    }
    VisibleGraph v;
    v.itemOfNode.assign(g.nodes().size(), -1);
    v.itemOfGroup.assign(groups.size(), -1);
    for (std::size_t n = 0; n < g.nodes().size(); ++n) {
        const int grp = g.nodes()[n].group;
        const int c = collapsedAt[std::size_t(grp)];
        const Group &home = groups[std::size_t(grp)];
        if (c < 0 && home.callNode == int(n) && !home.callNodeDrawn)
            continue; // an expanded payload whose nodes took every edge of its call
        if (c < 0) {
            v.itemOfNode[n] = int(v.items.size());
            v.items.push_back({ VisibleItem::Kind::Op, int(n), grp });
        } else {
            if (v.itemOfGroup[std::size_t(c)] < 0) {
                v.itemOfGroup[std::size_t(c)] = int(v.items.size());
                v.items.push_back({ VisibleItem::Kind::Group, c, groups[std::size_t(c)].parent });
            }
            v.itemOfNode[n] = v.itemOfGroup[std::size_t(c)];
        }
    }
    for (std::size_t i = 1; i < groups.size(); ++i)
        if (collapsedAt[i] < 0 && groups[i].totalOps + groups[i].nodes.size() > 0)
            v.clusters.push_back(int(i));
    std::set<std::pair<int, int>> seen;
    auto openPayloadCall = [&](int node) {
        const int grp = g.nodes()[std::size_t(node)].group;
        return groups[std::size_t(grp)].callNode == node && collapsedAt[std::size_t(grp)] < 0;
    };
    for (const Edge &e : g.edges()) {
        if (e.replaced && (openPayloadCall(e.from) || openPayloadCall(e.to)))
            continue;
        const int a = v.itemOfNode[std::size_t(e.from)], b = v.itemOfNode[std::size_t(e.to)];
        if (a >= 0 && b >= 0 && a != b && seen.emplace(a, b).second)
            v.edges.emplace_back(a, b);
    }
    return v;
}

// ---------------------------------------------------------------------------------------------

namespace {

std::vector<int> nodesOfEvent(const ProgramGraph &g, const Event &ev)
{
    std::vector<int> out;
    if (ev.debugHandles())
        for (std::int64_t h : *ev.debugHandles())
            for (int n : g.nodesForHandle(h))
                out.push_back(n);
    if (out.empty())
        for (const LinkedNode &ln : ev.linkedNodes())
            if (int n = g.findNode(ln.nodeName); n >= 0)
                out.push_back(n);
    // Drawn from a .pte: the event's instruction (events inside a delegate belong to its call).
    if (out.empty() && g.drawnFromProgram() && ev.chainIndex == 0 && !ev.isDelegatedOp)
        if (int n = g.nodeForInstruction(ev.instructionId); n >= 0)
            out.push_back(n);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool countedEvent(const Event &ev)
{
    return !ev.isFramework() && !ev.isOperatorCall();
}

// Innermost group holding both groups.
int commonGroup(const ProgramGraph &g, int a, int b)
{
    const std::vector<int> pa = g.ancestry(a), pb = g.ancestry(b);
    int common = 0;
    for (std::size_t i = 0; i < pa.size() && i < pb.size() && pa[i] == pb[i]; ++i)
        common = pa[i];
    return common;
}

} // namespace

OverlayData overlayFromEvents(
    const ProgramGraph &g, const std::vector<EventBlock> &blocks, const BackendGraphLinks *backend)
{
    OverlayData d;
    const std::size_t n = g.nodes().size();
    d.nodeEvents.assign(n, {});
    d.nodeLatency.assign(n, std::nan(""));
    d.partitionLatency.assign(g.partitions().size(), std::nan(""));
    d.nodeGap.assign(n, std::nan(""));
    d.nodeGapExcess.assign(n, std::nan(""));
    d.nodeGapFlagged.assign(n, 0);
    // The time each event counts for, once (a DELEGATE_CALL less its linked internal events).
    std::map<std::pair<int, int>, double> counted;
    for (const ModuleAttribution &a : attributeToModules(blocks))
        if (a.hasTime)
            counted[{ int(a.block), int(a.event) }] = a.time;
    d.nodeBackendEvents.assign(n, 0);
    // Backend events placed by their exact backend link: their time moves from their
    // DELEGATE_CALL to their nodes (the module roll-up's rule for linked delegate-internal events).
    std::map<std::pair<int, int>, std::vector<int>> backendNodes;
    if (backend) {
        d.backendNotExact = backend->inexact;
        d.backendUnidentified = backend->unidentified;
        d.backendNotes = backend->notes;
        for (const BackendGraphLinks::Linked &l : backend->exact) {
            if (l.block >= blocks.size() || l.event >= blocks[l.block].events.size())
                continue;
            const Event &ev = blocks[l.block].events[l.event];
            std::vector<int> nodes;
            for (std::int64_t h : l.debugHandles)
                for (int node : g.nodesForHandle(h))
                    nodes.push_back(node);
            for (std::int64_t k : l.payloadNodes)
                if (const int node = g.nodeForPayload(l.instruction, k); node >= 0)
                    nodes.push_back(node);
            std::sort(nodes.begin(), nodes.end());
            nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
            if (nodes.empty())
                continue; // the graph shown lacks them
            ++d.backendAttributed;
            d.backendByOrder += l.byOrder ? 1 : 0;
            for (int node : nodes)
                ++d.nodeBackendEvents[std::size_t(node)];
            backendNodes[{ int(l.block), int(l.event) }] = std::move(nodes);
            // Linked by the Inspector too (its instruction's handles): already off its call.
            if (!ev.linkedNodes().empty())
                continue;
            if (!l.delegateCall || !ev.perfData || *l.delegateCall >= blocks[l.block].events.size())
                continue;
            const Event &call = blocks[l.block].events[*l.delegateCall];
            auto [it, fresh] = counted.try_emplace({ int(l.block), int(*l.delegateCall) }, 0.0);
            if (fresh)
                it->second = call.perfData ? call.perfData->avg : 0.0;
            it->second = std::max(0.0, it->second - ev.perfData->avg);
        }
    }
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (d.timeUnit.empty())
            d.timeUnit = std::string(timeScaleName(blocks[b].targetTimeScale));
        for (std::size_t e = 0; e < blocks[b].events.size(); ++e) {
            const Event &ev = blocks[b].events[e];
            if (!countedEvent(ev))
                continue;
            // An exact backend link beats the Inspector's instruction-level handles.
            const auto linked = backendNodes.find({ int(b), int(e) });
            const std::vector<int> nodes = linked != backendNodes.end() ? linked->second : nodesOfEvent(g, ev);
            if (nodes.empty())
                continue;
            const bool call = ev.name == kDelegateCall;
            int home = -1;
            for (int node : nodes) {
                d.nodeEvents[std::size_t(node)].push_back({ int(b), int(e) });
                home = home < 0 ? g.nodes()[std::size_t(node)].group
                                : commonGroup(g, home, g.nodes()[std::size_t(node)].group);
                if (ev.perfData && !call) {
                    double &l = d.nodeLatency[std::size_t(node)];
                    l = (std::isnan(l) ? 0.0 : l) + ev.perfData->avg;
                }
            }
            if (!ev.perfData)
                continue;
            if (call)
                for (std::size_t p = 0; p < g.partitions().size(); ++p)
                    if (g.partitions()[p].instructionId == ev.instructionId) {
                        double &l = d.partitionLatency[p];
                        l = (std::isnan(l) ? 0.0 : l) + ev.perfData->avg;
                    }
            const auto it = counted.find({ int(b), int(e) });
            const double t = it != counted.end() ? it->second : ev.perfData->avg;
            d.totalLatency += t;
            d.eventLatency[{ int(b), int(e) }] = t;
            d.eventGroup[{ int(b), int(e) }] = home;
        }
    }
    return d;
}

std::vector<std::string> payloadNodeDetails(const ProgramGraph &g, int node)
{
    if (node < 0 || std::size_t(node) >= g.nodes().size())
        return {};
    const OpNode &op = g.nodes()[std::size_t(node)];
    const DelegatePayload *p = g.payload(op.partition);
    if (op.payloadNode < 0 || !p)
        return {};
    const ProgramMethod *m = g.program() ? g.program()->method(g.entryName()) : nullptr;
    const std::size_t args = m && op.instruction >= 0 && std::size_t(op.instruction) < m->instructionCount()
        ? m->instruction(std::size_t(op.instruction)).args.size()
        : 0;
    return payloadNodeLines(*p, std::size_t(op.payloadNode), args);
}

BackendGraphLinks payloadGraphLinks(
    const ProgramGraph &g, const std::vector<EventBlock> &blocks, const BackendEventTable &table)
{
    // Every block is taken as a run of the method drawn (the graph dock hands the runs of that
    // method's scope).
    const ProgramMethod *m = g.program() ? g.program()->method(g.entryName()) : nullptr;
    const PayloadEventLinks links = linkPayloadEvents(blocks, table, [m](std::size_t) { return m; });
    BackendGraphLinks out;
    out.exact.reserve(links.linked.size());
    for (const PayloadEventLink &l : links.linked) {
        BackendGraphLinks::Linked x;
        x.block = l.block;
        x.event = l.event;
        x.delegateCall = l.delegateCall;
        x.instruction = l.instruction;
        x.payloadNodes = { l.node };
        x.byOrder = l.basis == PayloadLinkBasis::OrderAndKind;
        out.exact.push_back(std::move(x));
    }
    out.byOrder = links.byOrder;
    out.unidentified = links.unplaced;
    out.notes = links.notes;
    return out;
}

double groupLatency(const ProgramGraph &g, const OverlayData &d, int group)
{
    double total = 0;
    for (const auto &[ev, home] : d.eventGroup) {
        bool inside = false;
        for (int at = home; at >= 0 && !inside; at = g.groups()[std::size_t(at)].parent)
            inside = at == group;
        if (inside)
            if (auto it = d.eventLatency.find(ev); it != d.eventLatency.end())
                total += it->second;
    }
    return total;
}

int partitionOf(const ProgramGraph &g, const VisibleItem &item)
{
    if (item.kind == VisibleItem::Kind::Op)
        return g.nodes()[std::size_t(item.index)].partition;
    for (int at = item.index; at > 0; at = g.groups()[std::size_t(at)].parent)
        if (g.groups()[std::size_t(at)].kind == Group::Kind::Partition)
            for (std::size_t p = 0; p < g.partitions().size(); ++p)
                if (g.partitions()[p].group == at)
                    return int(p);
    return -1;
}

} // namespace etscope::graph
