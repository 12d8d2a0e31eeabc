#include "evalgap/graphdiff.h"

#include "analysis/noise.h"
#include "common/jsontext.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace etscope::evalgap {

namespace {

// A node's from_node chain, nearest first: (name, graph id if recorded).
struct Origin {
    std::string name;
    std::optional<std::int64_t> graphId;
    std::string key() const { return name + "." + (graphId ? std::to_string(*graphId) : std::string("?")); }
};

std::vector<Origin> originChain(const GraphNode &n)
{
    std::vector<Origin> chain;
    for (NodeOrigin &o : fromNodeChain(n))
        chain.push_back(Origin { std::move(o.name), o.graphId });
    return chain;
}

bool isLayer(const GraphNode &n)
{
    return !n.isGetItem() && !n.isMemoryAlloc() && n.target.find("getitem") == std::string::npos;
}

// What alignment needs of one graph.
struct Side {
    const ExportedProgram &p;
    std::optional<std::int64_t> graphId;
    std::vector<bool> layer;
    std::vector<std::string> op;
    std::vector<std::vector<Origin>> chain;
    std::unordered_map<std::string, int> byName;
    std::vector<int> partner;

    Side(const ExportedProgram &prog, std::optional<std::int64_t> id)
        : p(prog)
        , graphId(id)
    {
        const std::size_t n = p.nodes.size();
        layer.resize(n);
        op.resize(n);
        chain.resize(n);
        partner.assign(n, -1);
        for (std::size_t i = 0; i < n; ++i) {
            const GraphNode &g = p.nodes[i];
            layer[i] = isLayer(g);
            op[i] = eval::operatorKey(g.target);
            chain[i] = originChain(g);
            byName.emplace(g.name, int(i));
        }
    }
    bool open(int i) const { return layer[std::size_t(i)] && partner[std::size_t(i)] < 0; }
    // The node an origin entry names in this graph, or -1.
    int named(const Origin &o) const
    {
        if (o.graphId && graphId && *o.graphId != *graphId)
            return -1;
        auto it = byName.find(o.name);
        return it == byName.end() ? -1 : it->second;
    }
};

void pair(Side &a, Side &b, int i, int j, AlignedBy by, std::vector<NodePair> &out)
{
    a.partner[std::size_t(i)] = j;
    b.partner[std::size_t(j)] = i;
    out.push_back(NodePair { i, j, by });
}

// Stage 1: equal debug handles.
void alignByHandle(Side &a, Side &b, std::vector<NodePair> &out)
{
    std::map<std::int64_t, std::vector<int>> ha, hb;
    for (int i = 0; i < int(a.p.nodes.size()); ++i)
        if (a.layer[std::size_t(i)] && a.p.nodes[std::size_t(i)].debugHandle)
            ha[*a.p.nodes[std::size_t(i)].debugHandle].push_back(i);
    for (int j = 0; j < int(b.p.nodes.size()); ++j)
        if (b.layer[std::size_t(j)] && b.p.nodes[std::size_t(j)].debugHandle)
            hb[*b.p.nodes[std::size_t(j)].debugHandle].push_back(j);
    for (const auto &[h, ga] : ha) {
        auto it = hb.find(h);
        if (it == hb.end())
            continue;
        const auto &gb = it->second;
        // Same operator in order within the handle.
        std::map<std::string, std::vector<int>> opsB;
        for (int j : gb)
            opsB[b.op[std::size_t(j)]].push_back(j);
        std::map<std::string, std::size_t> used;
        for (int i : ga) {
            auto &cands = opsB[a.op[std::size_t(i)]];
            std::size_t &k = used[a.op[std::size_t(i)]];
            if (k < cands.size())
                pair(a, b, i, cands[k++], AlignedBy::DebugHandle, out);
        }
        // The handle's output: its last node on each side.
        if (a.open(ga.back()) && b.open(gb.back()))
            pair(a, b, ga.back(), gb.back(), AlignedBy::DebugHandle, out);
    }
}

// Stage 2a: open nodes of the child graph whose nearest from_node ancestor present in the
// parent graph is an open node of it; each such parent pairs with its last open descendant.
void alignByDescent(Side &a, Side &b, bool bDescendsFromA, std::vector<NodePair> &out)
{
    Side &parent = bDescendsFromA ? a : b;
    Side &child = bDescendsFromA ? b : a;
    std::map<int, int> lastChild; // parent node → its last open descendant
    for (int j = 0; j < int(child.p.nodes.size()); ++j) {
        if (!child.open(j))
            continue;
        for (const Origin &o : child.chain[std::size_t(j)]) {
            const int i = parent.named(o);
            if (i < 0)
                continue;
            if (parent.open(i))
                lastChild[i] = j;
            break; // the nearest ancestor in the parent graph decides
        }
    }
    for (const auto &[i, j] : lastChild)
        pair(a, b, bDescendsFromA ? i : j, bDescendsFromA ? j : i, AlignedBy::FromNode, out);
}

// Stage 2b: open nodes whose nearest from_node entries name the same origin; the last of each
// side pairs.
void alignByCommonOrigin(Side &a, Side &b, std::vector<NodePair> &out)
{
    std::map<std::string, int> lastA, lastB;
    for (int i = 0; i < int(a.p.nodes.size()); ++i)
        if (a.open(i) && !a.chain[std::size_t(i)].empty())
            lastA[a.chain[std::size_t(i)].front().key()] = i;
    for (int j = 0; j < int(b.p.nodes.size()); ++j)
        if (b.open(j) && !b.chain[std::size_t(j)].empty())
            lastB[b.chain[std::size_t(j)].front().key()] = j;
    for (const auto &[key, i] : lastA) {
        auto it = lastB.find(key);
        if (it != lastB.end())
            pair(a, b, i, it->second, AlignedBy::FromNode, out);
    }
}

// Stage 3: the k-th open node of an operator in a with the k-th in b, when the counts agree.
void alignByPosition(Side &a, Side &b, std::vector<NodePair> &out)
{
    std::map<std::string, std::vector<int>> oa, ob;
    for (int i = 0; i < int(a.p.nodes.size()); ++i)
        if (a.open(i))
            oa[a.op[std::size_t(i)]].push_back(i);
    for (int j = 0; j < int(b.p.nodes.size()); ++j)
        if (b.open(j))
            ob[b.op[std::size_t(j)]].push_back(j);
    for (const auto &[op, na] : oa) {
        auto it = ob.find(op);
        if (it == ob.end() || it->second.size() != na.size())
            continue;
        for (std::size_t k = 0; k < na.size(); ++k)
            pair(a, b, na[k], it->second[k], AlignedBy::Position, out);
    }
}

bool isListOutput(const GraphNode &n)
{
    return n.outputs.size() > 1 || (n.outputs.size() == 1 && n.outputs.front().kind == "as_tensors");
}

analysis::NumValue toValue(const GraphNode &n, const std::vector<eval::Tensor> &outs)
{
    std::vector<analysis::NumTensor> ts;
    ts.reserve(outs.size());
    for (const auto &t : outs)
        ts.push_back(eval::toNumTensor(t));
    if (ts.size() == 1 && !isListOutput(n))
        return analysis::NumValue::tensor(std::move(ts.front()));
    return analysis::NumValue::list(std::move(ts));
}

std::string number(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return fmt::format("{:.6g}", v);
}

nlohmann::json jsonNumber(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return v;
}

nlohmann::json jsonHandle(const std::optional<std::int64_t> &h)
{
    return h ? nlohmann::json(*h) : nlohmann::json(nullptr);
}

std::string handleText(const std::optional<std::int64_t> &h)
{
    return h ? std::to_string(*h) : std::string();
}

std::string gapList(const std::vector<double> &g)
{
    std::string out;
    for (std::size_t k = 0; k < g.size(); ++k)
        out += fmt::format("{}{:.17g}", k ? ";" : "", g[k]);
    return out;
}

void judge(GraphDiffRow &r, analysis::Metric m, analysis::Direction d, std::optional<double> threshold)
{
    r.flagged = false;
    r.noise.assign(r.gap.size(), 0.0);
    for (std::size_t k = 0; k < r.gap.size(); ++k) {
        r.noise[k] = threshold ? *threshold : analysis::noiseThreshold(m, r.a.items[k], r.b.items[k]);
        r.flagged = r.flagged || analysis::exceedsThreshold(d, r.gap[k], r.noise[k]);
    }
}

} // namespace

const char *alignedByName(AlignedBy a)
{
    switch (a) {
    case AlignedBy::DebugHandle:
        return "debug_handle";
    case AlignedBy::FromNode:
        return "from_node";
    case AlignedBy::Position:
        return "position";
    }
    return "position";
}

GraphAlignment alignGraphs(const ExportedProgram &a, const ExportedProgram &b, std::optional<std::int64_t> aGraphId,
    std::optional<std::int64_t> bGraphId)
{
    Side sa(a, aGraphId), sb(b, bGraphId);
    GraphAlignment out;
    alignByHandle(sa, sb, out.pairs);
    alignByDescent(sa, sb, true, out.pairs);
    alignByDescent(sa, sb, false, out.pairs);
    alignByCommonOrigin(sa, sb, out.pairs);
    alignByPosition(sa, sb, out.pairs);
    std::sort(out.pairs.begin(), out.pairs.end(), [](const NodePair &x, const NodePair &y) { return x.a < y.a; });
    for (int i = 0; i < int(a.nodes.size()); ++i)
        if (sa.open(i))
            out.unalignedA.push_back(i);
    for (int j = 0; j < int(b.nodes.size()); ++j)
        if (sb.open(j))
            out.unalignedB.push_back(j);
    return out;
}

double GraphDiffRow::worst(analysis::Direction d) const
{
    const int k = worstIndex(d);
    return k < 0 ? std::numeric_limits<double>::quiet_NaN() : gap[std::size_t(k)];
}

int GraphDiffRow::worstIndex(analysis::Direction d) const
{
    int w = -1;
    for (std::size_t k = 0; k < gap.size(); ++k)
        if (w < 0 || analysis::badness(d, gap[k]) > analysis::badness(d, gap[std::size_t(w)]))
            w = int(k);
    return w;
}

double GraphDiffRow::worstNoise(analysis::Direction d) const
{
    const int k = worstIndex(d);
    return k < 0 || std::size_t(k) >= noise.size() ? std::numeric_limits<double>::quiet_NaN() : noise[std::size_t(k)];
}

double GraphDiffRow::excess(analysis::Metric m, analysis::Direction d) const
{
    double e = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t k = 0; k < gap.size() && k < noise.size(); ++k) {
        const double x = analysis::excessOverNoise(d, m, gap[k], noise[k]);
        if (!std::isnan(x) && (std::isnan(e) || x > e))
            e = x;
    }
    return e;
}

int GraphDiff::firstParting() const
{
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].flagged)
            return int(i);
    return -1;
}

std::string GraphDiff::verdict() const
{
    std::size_t failed = 0;
    const GraphDiffRow *firstFailed = nullptr;
    for (const auto &r : rows)
        if (!r.error.empty()) {
            ++failed;
            firstFailed = firstFailed ? firstFailed : &r;
        }
    const std::string within = threshold ? fmt::format("within the threshold {:g}", *threshold) : "within noise";
    std::string uncompared;
    if (firstFailed)
        uncompared = fmt::format("{} of {} aligned layers could not be compared (first: a:{}: {})", failed, rows.size(),
            firstFailed->aName, firstFailed->error);
    if (failed == rows.size())
        return "no aligned layer could be compared: " + uncompared;
    const int first = firstParting();
    if (first < 0)
        return failed == 0 ? fmt::format("the graphs agree {} at every aligned layer", within)
                           : fmt::format("the graphs agree {} at the {} compared layers; {}", within,
                               rows.size() - failed, uncompared);
    const GraphDiffRow &r = rows[std::size_t(first)];
    return fmt::format("the graphs part at layer {} a:{} / b:{} ({}): {} {}, beyond the {} {}{}", first + 1, r.aName,
        r.bName, r.aOp, analysis::metricName(metric), number(r.worst(direction)),
        threshold ? "threshold" : "noise level", number(r.worstNoise(direction)),
        uncompared.empty() ? "" : "; " + uncompared);
}

Result<const ETRecordProgram *> resolveGraph(const ETRecord &record, const std::string &name)
{
    const ETRecordProgram *p = name.empty() ? nullptr : eval::findProgram(record, name);
    if (p && p->program)
        return p;
    std::vector<std::string> names;
    for (const auto &q : record.programs())
        names.push_back(q.entryName);
    return makeError(ErrorCode::InvalidArgument, record.path(),
        fmt::format("no graph named '{}'; the ETRecord has: {}", name, fmt::join(names, ", ")));
}

void applyThreshold(GraphDiff &d, std::optional<double> threshold)
{
    d.threshold = threshold;
    for (auto &r : d.rows)
        if (r.error.empty())
            judge(r, d.metric, d.direction, threshold);
}

Result<GraphDiff> diffGraphs(const ETRecord &record, const GraphDiffOptions &opts)
{
    auto pa = resolveGraph(record, opts.a);
    if (!pa)
        return pa.error();
    auto pb = resolveGraph(record, opts.b);
    if (!pb)
        return pb.error();
    const ExportedProgram &ga = *(*pa)->program, &gb = *(*pb)->program;
    // The ATen program is the graph the Edge program's from_node entries name by export_graph_id.
    auto idOf = [&](const ETRecordProgram *p) {
        return p->kind == ETRecordEntryKind::AtenProgram ? record.exportGraphId() : std::nullopt;
    };
    GraphAlignment al = alignGraphs(ga, gb, idOf(*pa), idOf(*pb));
    if (al.pairs.empty())
        return makeError(ErrorCode::InvalidArgument, record.path(),
            fmt::format("no node of '{}' aligns with a node of '{}' (no shared debug handle, from_node "
                        "provenance or operator)",
                (*pa)->entryName, (*pb)->entryName));

    auto inputs = eval::chooseInputs(record, opts.inputs);
    if (!inputs)
        return inputs.error();
    GraphDiff d;
    d.etrecord = record.path();
    d.aGraph = (*pa)->entryName;
    d.bGraph = (*pb)->entryName;
    d.metric = opts.metric;
    auto comparator = analysis::makeComparator(opts.metric);
    d.direction = comparator->direction();

    std::vector<eval::EvalResult> runs;
    int pass = 0;
    for (const ETRecordProgram *p : { *pa, *pb }) {
        eval::EvalOptions eo;
        eo.threads = opts.threads;
        eo.maxMemory = opts.maxMemory;
        eo.keep = eval::EvalOptions::Keep::All;
        if (opts.progress)
            eo.progress = [prog = opts.progress, pass](int permille) { return prog(pass * 500 + permille / 2); };
        auto r = eval::evaluate(record, p->entryName, *inputs, eo);
        if (!r)
            return Error { r.error().code, r.error().file,
                fmt::format("graph '{}': {}", p->entryName, r.error().reason) };
        for (const auto &w : r->warnings)
            d.warnings.push_back(fmt::format("{}: {}", p->entryName, w));
        runs.push_back(std::move(*r));
        ++pass;
    }
    std::vector<const eval::NodeOutput *> outA(ga.nodes.size(), nullptr), outB(gb.nodes.size(), nullptr);
    for (const auto &o : runs[0].nodes)
        if (o.nodeIndex >= 0 && std::size_t(o.nodeIndex) < outA.size())
            outA[std::size_t(o.nodeIndex)] = &o;
    for (const auto &o : runs[1].nodes)
        if (o.nodeIndex >= 0 && std::size_t(o.nodeIndex) < outB.size())
            outB[std::size_t(o.nodeIndex)] = &o;

    auto valueOf = [](const GraphNode &n, const eval::NodeOutput *o, std::string &why) {
        if (!o) {
            why = "not evaluated";
            return analysis::NumValue {};
        }
        if (!o->error.empty()) {
            why = o->error;
            return analysis::NumValue {};
        }
        return toValue(n, o->outputs);
    };
    for (const NodePair &np : al.pairs) {
        const GraphNode &na = ga.nodes[std::size_t(np.a)], &nb = gb.nodes[std::size_t(np.b)];
        GraphDiffRow r;
        r.aNode = np.a;
        r.bNode = np.b;
        r.aName = na.name;
        r.bName = nb.name;
        r.aOp = eval::operatorKey(na.target);
        r.bOp = eval::operatorKey(nb.target);
        r.aHandle = na.debugHandle;
        r.bHandle = nb.debugHandle;
        r.by = np.by;
        std::string whyA, whyB;
        r.a = valueOf(na, outA[std::size_t(np.a)], whyA);
        r.b = valueOf(nb, outB[std::size_t(np.b)], whyB);
        if (!whyA.empty() || !whyB.empty()) {
            r.error = !whyA.empty() ? "a: " + whyA : "";
            r.error += !whyB.empty() ? (r.error.empty() ? "b: " : "; b: ") + whyB : "";
        } else if (auto g = analysis::compareValues(*comparator, r.a, r.b); !g) {
            r.error = g.error().reason;
        } else {
            r.gap = std::move(*g);
            judge(r, d.metric, d.direction, opts.threshold);
        }
        d.rows.push_back(std::move(r));
    }
    d.threshold = opts.threshold;
    auto unaligned = [](const ExportedProgram &p, const std::vector<int> &idx) {
        std::vector<UnalignedNode> out;
        for (int i : idx) {
            const GraphNode &n = p.nodes[std::size_t(i)];
            out.push_back(UnalignedNode { i, n.name, eval::operatorKey(n.target), n.debugHandle });
        }
        return out;
    };
    d.unalignedA = unaligned(ga, al.unalignedA);
    d.unalignedB = unaligned(gb, al.unalignedB);
    return d;
}

std::string graphDiffText(const GraphDiff &d)
{
    std::size_t wa = 6, wb = 6;
    for (const auto &r : d.rows) {
        wa = std::max(wa, r.aName.size());
        wb = std::max(wb, r.bName.size());
    }
    const char *metric = analysis::metricName(d.metric);
    std::string out = fmt::format("a: {}\nb: {}\n{} per aligned layer, flagged above the {}\n\n", d.aGraph, d.bGraph,
        metric, analysis::thresholdDescription(d.metric, d.threshold));
    out += fmt::format("{:>5}  {:<2}  {:<{}}  {:<{}}  {:<12}  {:>12}  {:>12}  {}\n", "layer", "", "a node", wa,
        "b node", wb, "aligned by", metric, "noise", "a op");
    for (std::size_t i = 0; i < d.rows.size(); ++i) {
        const auto &r = d.rows[i];
        const double w = r.worst(d.direction), noise = r.worstNoise(d.direction);
        out += fmt::format("{:>5}  {:<2}  {:<{}}  {:<{}}  {:<12}  {:>12}  {:>12}  {}{}\n", i + 1, r.flagged ? "!!" : "",
            r.aName, wa, r.bName, wb, alignedByName(r.by), r.error.empty() ? number(w) : "-",
            r.error.empty() ? number(noise) : "-", r.aOp, r.error.empty() ? "" : "  error: " + r.error);
    }
    out += "\n" + d.verdict() + "\n";
    auto list = [&](const char *side, const std::string &graph, const std::vector<UnalignedNode> &ns) {
        out += fmt::format("unaligned in {} ({}): {}\n", side, graph, ns.size());
        for (const auto &n : ns)
            out += fmt::format(
                "  {} ({}{})\n", n.name, n.op, n.handle ? fmt::format(", debug handle {}", *n.handle) : "");
    };
    list("a", d.aGraph, d.unalignedA);
    list("b", d.bGraph, d.unalignedB);
    return out;
}

std::string graphDiffTsv(const GraphDiff &d)
{
    std::string out
        = fmt::format("layer\ta_node\ta_op\ta_debug_handle\tb_node\tb_op\tb_debug_handle\taligned_by\tgap_{}"
                      "\tnoise\tflagged\ta_output\tb_output\terror\n",
            analysis::metricName(d.metric));
    for (std::size_t i = 0; i < d.rows.size(); ++i) {
        const auto &r = d.rows[i];
        out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", i + 1, r.aName, r.aOp,
            handleText(r.aHandle), r.bName, r.bOp, handleText(r.bHandle), alignedByName(r.by), gapList(r.gap),
            gapList(r.noise), r.flagged ? 1 : 0, analysis::summarizeValue(r.a), analysis::summarizeValue(r.b), r.error);
    }
    return out;
}

std::string graphDiffJson(const GraphDiff &d)
{
    using nlohmann::json;
    json rows = json::array();
    for (std::size_t i = 0; i < d.rows.size(); ++i) {
        const auto &r = d.rows[i];
        json gap = json::array(), noise = json::array();
        for (double g : r.gap)
            gap.push_back(jsonNumber(g));
        for (double n : r.noise)
            noise.push_back(jsonNumber(n));
        rows.push_back(json { { "layer", i + 1 }, { "a_node", r.aName }, { "a_op", r.aOp },
            { "a_debug_handle", jsonHandle(r.aHandle) }, { "b_node", r.bName }, { "b_op", r.bOp },
            { "b_debug_handle", jsonHandle(r.bHandle) }, { "aligned_by", alignedByName(r.by) }, { "gap", gap },
            { "worst", r.gap.empty() ? json(nullptr) : jsonNumber(r.worst(d.direction)) }, { "noise", noise },
            { "flagged", r.flagged }, { "a_output", analysis::summarizeValue(r.a) },
            { "b_output", analysis::summarizeValue(r.b) }, { "error", r.error } });
    }
    auto unaligned = [](const std::vector<UnalignedNode> &ns) {
        json out = json::array();
        for (const auto &n : ns)
            out.push_back(json { { "node", n.name }, { "op", n.op }, { "debug_handle", jsonHandle(n.handle) } });
        return out;
    };
    const int first = d.firstParting();
    json doc { { "etrecord", d.etrecord }, { "a", d.aGraph }, { "b", d.bGraph },
        { "metric", analysis::metricName(d.metric) },
        { "threshold", d.threshold ? jsonNumber(*d.threshold) : json(nullptr) },
        { "judged_by", analysis::thresholdDescription(d.metric, d.threshold) }, { "rows", rows },
        { "first_parting",
            first < 0 ? json(nullptr)
                      : json { { "layer", first + 1 }, { "a_node", d.rows[std::size_t(first)].aName },
                          { "b_node", d.rows[std::size_t(first)].bName } } },
        { "verdict", d.verdict() }, { "unaligned_a", unaligned(d.unalignedA) },
        { "unaligned_b", unaligned(d.unalignedB) }, { "warnings", d.warnings } };
    return jsonDocument(doc);
}

} // namespace etscope::evalgap
