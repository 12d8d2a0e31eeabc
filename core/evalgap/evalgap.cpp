#include "evalgap/evalgap.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace etscope::evalgap {

namespace {

// "name.graph_id" of every ancestor along the last from_node chain, nearest first.
std::vector<std::string> ancestorIds(const GraphNode &n)
{
    std::vector<std::string> ids;
    for (const NodeOrigin &o : fromNodeChain(n))
        ids.push_back(o.name + "." + (o.graphId ? std::to_string(*o.graphId) : std::string("0")));
    return ids;
}

std::vector<std::optional<std::int64_t>> metadataHandles(const ExportedProgram &p)
{
    std::vector<std::optional<std::int64_t>> h;
    for (const auto &n : p.nodes)
        h.push_back(n.debugHandle);
    return h;
}

// §8 step 1 propagation. Returns false when validation fails.
bool propagate(const ExportedProgram &edge, const ExportedProgram &aten, std::int64_t exportGraphId, bool validate,
    std::vector<std::optional<std::int64_t>> &out, std::string &why)
{
    std::unordered_map<std::string, std::int64_t> ancestorHandle;
    std::set<std::int64_t> edgeHandles;
    for (const auto &n : edge.nodes) {
        if (!n.debugHandle)
            continue;
        edgeHandles.insert(*n.debugHandle);
        for (const auto &id : ancestorIds(n))
            ancestorHandle.emplace(id, *n.debugHandle); // first writer wins
    }
    out.clear();
    std::set<std::int64_t> matched;
    for (const auto &n : aten.nodes) {
        std::int64_t h = 0;
        auto it = ancestorHandle.find(n.name + "." + std::to_string(exportGraphId));
        if (it != ancestorHandle.end()) {
            h = it->second;
        } else {
            for (const auto &id : ancestorIds(n)) {
                auto a = ancestorHandle.find(id);
                if (a != ancestorHandle.end()) {
                    h = a->second;
                    break;
                }
            }
        }
        out.push_back(h);
        matched.insert(h);
    }
    if (!validate)
        return true;
    for (auto h : edgeHandles)
        if (!matched.count(h)) {
            why = fmt::format("no ATen node carries Edge debug handle {}", h);
            return false;
        }
    return true;
}

bool isListOutput(const GraphNode &n)
{
    return n.outputs.size() > 1 || (n.outputs.size() == 1 && n.outputs.front().kind == "as_tensors");
}

analysis::NumValue toValue(const GraphNode *n, const std::vector<eval::Tensor> &outs)
{
    std::vector<analysis::NumTensor> ts;
    for (const auto &t : outs)
        ts.push_back(eval::toNumTensor(t));
    if (ts.size() == 1 && !(n && isListOutput(*n)))
        return analysis::NumValue::tensor(std::move(ts.front()));
    return analysis::NumValue::list(std::move(ts));
}

// The graph's dataflow, by tensor name: which node (and which of its flattened outputs)
// produces a tensor, and which nodes depend on a user input.
struct Dataflow {
    std::unordered_map<std::string, std::pair<int, int>> producer; // tensor → (node index, output index)
    std::vector<bool> dependsOnInput;
    std::set<std::string> userInputs;

    explicit Dataflow(const ExportedProgram &p)
    {
        for (const auto &s : p.inputSpecs)
            if (s.kind == "user_input")
                userInputs.insert(s.argName);
        for (int i = 0; i < int(p.nodes.size()); ++i) {
            int k = 0;
            for (const auto &o : p.nodes[std::size_t(i)].outputs)
                for (const auto &name : o.tensorNames)
                    producer.emplace(name, std::make_pair(i, k++));
        }
        dependsOnInput.assign(p.nodes.size(), false);
        for (std::size_t i = 0; i < p.nodes.size(); ++i)
            for (const auto &in : p.nodes[i].inputs)
                for (const auto &name : in.arg.tensorNames) {
                    if (userInputs.count(name))
                        dependsOnInput[i] = true;
                    auto it = producer.find(name);
                    if (it != producer.end() && std::size_t(it->second.first) < i
                        && dependsOnInput[std::size_t(it->second.first)])
                        dependsOnInput[i] = true;
                }
    }
};

struct Capture {
    analysis::ReferenceSet set;
    std::map<std::int64_t, std::size_t> entryOf; // handle → index in set.intermediates
    std::map<std::int64_t, int> lastNode; // handle → node index whose output is the AOT value
};

// §8 steps 2-3: results by (handle,), getitem skipped (the evaluator does not report it), later
// nodes overwrite, AOT op names = every node with the handle; stack traces per node.
Capture capture(const ReferenceGraph &g, const eval::EvalResult &r, const std::string &description)
{
    Capture c;
    c.set.description = description;
    c.set.keyedByHandle = true;
    const auto &nodes = g.program->program->nodes;
    for (const auto &out : r.nodes) {
        if (out.nodeIndex < 0 || std::size_t(out.nodeIndex) >= nodes.size())
            continue;
        const GraphNode &n = nodes[std::size_t(out.nodeIndex)];
        const auto &h = g.handles[std::size_t(out.nodeIndex)];
        if (!h || n.isGetItem() || n.name.find("getitem") != std::string::npos)
            continue;
        auto [it, fresh] = c.entryOf.emplace(*h, c.set.intermediates.size());
        if (fresh) {
            analysis::OpOutputs o;
            o.debugHandles = { *h };
            c.set.intermediates.push_back(std::move(o));
        }
        analysis::OpOutputs &e = c.set.intermediates[it->second];
        e.ops.push_back(n.name);
        e.stack.push_back(LinkedNode { n.name, n.stackTrace, n.moduleStack });
        e.outputs.clear();
        e.note.clear();
        if (!out.error.empty())
            e.note = out.error;
        else
            e.outputs.push_back(toValue(&n, out.outputs));
        c.lastNode[*h] = out.nodeIndex;
    }
    return c;
}

eval::EvalOptions passOptions(const EvalGapOptions &opts, int from, int span)
{
    eval::EvalOptions eo;
    eo.threads = opts.threads;
    eo.keep = opts.keep;
    eo.maxMemory = opts.maxMemory;
    eo.floatTwin = opts.floatTwin;
    if (opts.progress)
        eo.progress = [p = opts.progress, from, span](int permille) { return p(from + permille * span / 1000); };
    return eo;
}

} // namespace

Result<ReferenceGraph> resolveReferenceGraph(
    const ETRecord &record, const std::string &requested, bool disableHandleValidation)
{
    ReferenceGraph g;
    const ETRecordProgram *edge = record.edgeProgram("forward");
    if (requested.empty() || requested == "exported_program") {
        const ETRecordProgram *aten = record.atenProgram();
        std::string why = !aten ? "the ETRecord has no ATen exported_program"
            : !edge             ? "the ETRecord has no Edge program to propagate debug handles from"
                                : "";
        if (aten && edge && aten->program && edge->program
            && propagate(*edge->program, *aten->program, record.exportGraphId().value_or(0), !disableHandleValidation,
                g.handles, why)) {
            g.program = aten;
            g.name = "exported_program";
            return g;
        }
        if (!requested.empty())
            return makeError(
                ErrorCode::InvalidArgument, record.path(), fmt::format("cannot use 'exported_program': {}", why));
        g.warnings.push_back(fmt::format("ATen exported_program not usable ({}); falling back to "
                                         "'edge_dialect_exported_program'",
            why));
        if (!edge || !edge->program)
            return makeError(ErrorCode::InvalidArgument, record.path(), "no Edge program for method 'forward'");
        g.program = edge;
        g.name = "edge_dialect_exported_program";
        g.handles = metadataHandles(*edge->program);
        return g;
    }
    if (requested == "edge_dialect_exported_program") {
        if (!edge || !edge->program)
            return makeError(ErrorCode::InvalidArgument, record.path(), "no Edge program for method 'forward'");
        g.program = edge;
        g.name = requested;
        g.handles = metadataHandles(*edge->program);
        return g;
    }
    const std::string lookup = requested.find('/') == std::string::npos ? requested + "/forward" : requested;
    const ETRecordProgram *p = record.program(lookup);
    if (!p || !p->program) {
        std::vector<std::string> names;
        for (const auto &q : record.programs())
            names.push_back(q.entryName);
        return makeError(ErrorCode::InvalidArgument, record.path(),
            fmt::format("reference graph '{}' not found; available: exported_program, "
                        "edge_dialect_exported_program, {}",
                lookup, fmt::join(names, ", ")));
    }
    g.program = p;
    g.name = lookup;
    g.handles = metadataHandles(*p->program);
    return g;
}

Result<EvaluatorReference> referenceFromEvaluator(
    const ETRecord &record, const Session *runtime, const EvalGapOptions &opts)
{
    auto graph = resolveReferenceGraph(record, opts.referenceGraph, opts.disableHandleValidation);
    if (!graph)
        return graph.error();
    if (opts.isolated && !runtime)
        return makeError(ErrorCode::InvalidArgument, record.path(), "isolated mode needs the runtime run");
    auto inputs = eval::chooseInputs(record, opts.inputs);
    if (!inputs)
        return inputs.error();

    EvaluatorReference ref;
    ref.graphName = graph->name;
    ref.warnings = graph->warnings;
    const int span = opts.isolated ? 500 : 1000;
    auto acc = eval::evaluate(record, graph->program->entryName, *inputs, passOptions(opts, 0, span));
    if (!acc)
        return acc.error();
    for (const auto &w : acc->warnings)
        ref.warnings.push_back(w);
    Capture c = capture(*graph, *acc, fmt::format("ETRecord {} '{}' evaluated by etscope", record.path(), graph->name));
    // §8 step 2: nothing captured means there was nothing to run the graph on.
    if (c.set.intermediates.empty())
        return makeError(ErrorCode::InvalidArgument, record.path(),
            "the reference graph produced no intermediate outputs with debug handles");
    ref.accumulated = c.set;
    ref.floatTwinPairs = acc->floatTwinPairs;
    if (!opts.isolated)
        return ref;

    // Runtime values per AOT handle, exactly as the accumulated comparison pairs them.
    analysis::GapOptions go;
    go.matching = analysis::GapOptions::Matching::DebugHandle;
    auto table = analysis::computeNumericGap(*runtime, c.set, go);
    if (!table)
        return table.error();
    std::map<std::int64_t, const analysis::GapRow *> rowOf;
    for (const auto &row : table->rows)
        if (row.referenceHandle >= 0 && row.error.empty())
            rowOf.emplace(row.referenceHandle, &row);

    const ExportedProgram &prog = *graph->program->program;
    const auto &nodes = prog.nodes;
    // Override tensors, built before the pass: the evaluator may call back from several threads.
    std::map<std::pair<std::string, int>, eval::Tensor> overrides;
    std::set<int> overridden; // node indices with a runtime value
    for (const auto &[h, nodeIndex] : c.lastNode) {
        auto r = rowOf.find(h);
        const auto &entry = c.set.intermediates[c.entryOf.at(h)];
        if (r == rowOf.end() || entry.outputs.empty())
            continue;
        const analysis::NumValue &aot = entry.outputs.front();
        const analysis::NumValue &rt = r->second->runtime;
        if (aot.items.size() != rt.items.size())
            continue;
        bool any = false;
        for (std::size_t i = 0; i < aot.items.size(); ++i) {
            const auto &a = aot.items[i];
            const auto &b = rt.items[i];
            if (a.numel != b.numel)
                continue;
            auto t = eval::fromNumTensor(b, a.dtype);
            if (!t)
                continue;
            t->sizes = a.sizes; // same elements, the graph's shape (runtime logs are contiguous)
            overrides.emplace(std::make_pair(nodes[std::size_t(nodeIndex)].name, int(i)), std::move(*t));
            any = true;
        }
        if (any)
            overridden.insert(nodeIndex);
    }

    eval::EvalOptions eo = passOptions(opts, 500, 500);
    eo.inputOverride = [&overrides](const std::string &producer, int index) -> std::optional<eval::Tensor> {
        auto it = overrides.find({ producer, index });
        if (it == overrides.end())
            return std::nullopt;
        return it->second;
    };
    auto iso = eval::evaluate(record, graph->program->entryName, *inputs, eo);
    if (!iso)
        return iso.error();
    Capture ci = capture(
        *graph, *iso, fmt::format("ETRecord {} '{}' evaluated by etscope, isolated", record.path(), graph->name));

    // Say which rows read an input that has no runtime value: a node outside the row's own
    // runtime unit (a delegated region is one unit) whose output depends on the program input.
    Dataflow flow(prog);
    std::map<std::int64_t, std::vector<int>> nodesOf;
    for (int i = 0; i < int(nodes.size()); ++i)
        if (graph->handles[std::size_t(i)])
            nodesOf[*graph->handles[std::size_t(i)]].push_back(i);
    for (auto &e : ci.set.intermediates) {
        const std::int64_t h = e.debugHandles.front();
        auto r = rowOf.find(h);
        if (r == rowOf.end())
            continue;
        const auto &unit = r->second->debugHandles;
        std::set<std::string> missing;
        for (int ni : nodesOf[h])
            for (const auto &in : nodes[std::size_t(ni)].inputs)
                for (const auto &name : in.arg.tensorNames) {
                    auto p = flow.producer.find(name);
                    if (p == flow.producer.end())
                        continue; // placeholder: program input or weight
                    const int pi = p->second.first;
                    const auto &ph = graph->handles[std::size_t(pi)];
                    if (overridden.count(pi) || !flow.dependsOnInput[std::size_t(pi)])
                        continue;
                    if (ph && std::find(unit.begin(), unit.end(), *ph) != unit.end())
                        continue; // inside the same runtime unit
                    missing.insert(nodes[std::size_t(pi)].name);
                }
        if (!missing.empty()) {
            std::string note
                = fmt::format("no runtime value for input(s) {}: reference value used", fmt::join(missing, ", "));
            e.note = e.note.empty() ? note : e.note + "; " + note;
        }
    }
    for (const auto &w : iso->warnings)
        if (std::find(ref.warnings.begin(), ref.warnings.end(), w) == ref.warnings.end())
            ref.warnings.push_back(w);
    ci.set.isolated = true;
    ref.isolated = std::move(ci.set);
    return ref;
}

Result<std::pair<EvaluatorReference, EvaluatorReference>> fakeAndTwinReferences(
    const ETRecord &record, const EvalGapOptions &opts)
{
    auto graph = resolveReferenceGraph(record, opts.referenceGraph, opts.disableHandleValidation);
    if (!graph)
        return graph.error();
    auto inputs = eval::chooseInputs(record, opts.inputs);
    if (!inputs)
        return inputs.error();
    std::vector<std::string> loadWarnings;
    auto weights = eval::loadWeights(record, *graph->program, &loadWarnings);
    if (!weights)
        return weights.error();
    std::pair<EvaluatorReference, EvaluatorReference> out;
    for (int pass = 0; pass < 2; ++pass) {
        EvaluatorReference &ref = pass == 0 ? out.first : out.second;
        ref.graphName = graph->name;
        ref.warnings = graph->warnings;
        ref.warnings.insert(ref.warnings.end(), loadWarnings.begin(), loadWarnings.end());
        eval::EvalOptions eo = passOptions(opts, pass * 500, 500);
        eo.floatTwin = pass == 1;
        // Tensors share their storage: the second pass gets the same weights without a copy.
        auto r = pass == 0 ? eval::evaluateProgram(*graph->program->program, *weights, *inputs, eo)
                           : eval::evaluateProgram(*graph->program->program, std::move(*weights), *inputs, eo);
        if (!r)
            return Error { r.error().code, r.error().file.empty() ? record.path() : r.error().file, r.error().reason };
        ref.warnings.insert(ref.warnings.end(), r->warnings.begin(), r->warnings.end());
        ref.floatTwinPairs = r->floatTwinPairs;
        Capture c = capture(*graph, *r,
            fmt::format("ETRecord {} '{}' evaluated by etscope{}", record.path(), graph->name,
                pass == 1 ? ", float twin" : ""));
        if (c.set.intermediates.empty())
            return makeError(ErrorCode::InvalidArgument, record.path(),
                "the reference graph produced no intermediate outputs with debug handles");
        ref.accumulated = std::move(c.set);
    }
    return out;
}

} // namespace etscope::evalgap
