#include "analysis/latencydiff.h"

#include "etrecord/modulestack.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace etscope {

const char *matchModeName(MatchMode m)
{
    switch (m) {
    case MatchMode::Exact:
        return "exact";
    case MatchMode::Graph:
        return "graph";
    case MatchMode::Heuristic:
        return "heuristic";
    }
    return "?";
}

const char *pairingName(Pairing p)
{
    switch (p) {
    case Pairing::Instruction:
        return "instruction";
    case Pairing::Graph:
        return "graph";
    case Pairing::OperatorName:
        return "operator_name";
    case Pairing::TotalsOnly:
        return "totals_only";
    }
    return "?";
}

const char *verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Slower:
        return "slower";
    case Verdict::Faster:
        return "faster";
    case Verdict::Unchanged:
        return "unchanged";
    case Verdict::OnlyA:
        return "only_a";
    case Verdict::OnlyB:
        return "only_b";
    case Verdict::NoData:
        return "no_data";
    }
    return "?";
}

std::size_t LatencyDiff::count(Verdict v) const
{
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [v](const DiffRow &r) { return r.verdict == v; }));
}

void computeRowStatistics(DiffRow &row, const DiffOptions &options)
{
    row.pValue.reset();
    row.ci.reset();
    row.ratioOnly = false;
    row.exactTest = false;
    row.deltaP50 = 0;
    row.ratio = std::numeric_limits<double>::quiet_NaN();
    const bool hasA = !row.a.events.empty() || row.a.perf, hasB = !row.b.events.empty() || row.b.perf;
    if (hasA && !hasB) {
        row.verdict = Verdict::OnlyA;
        return;
    }
    if (hasB && !hasA) {
        row.verdict = Verdict::OnlyB;
        return;
    }
    if (!row.a.perf || !row.b.perf || row.a.perf->raw.empty() || row.b.perf->raw.empty()) {
        row.verdict = Verdict::NoData;
        return;
    }
    const PerfData &pa = *row.a.perf, &pb = *row.b.perf;
    row.deltaP50 = pb.p50 - pa.p50;
    if (pa.p50 != 0)
        row.ratio = pb.p50 / pa.p50;
    else
        row.ratio = pb.p50 == 0 ? 1.0 : std::numeric_limits<double>::infinity();

    const bool up = row.ratio > 1.0 + options.minChange;
    const bool down = row.ratio < 1.0 - options.minChange;
    if (pa.raw.size() < options.minRunsForTest || pb.raw.size() < options.minRunsForTest) {
        row.ratioOnly = true;
        row.verdict = up ? Verdict::Slower : down ? Verdict::Faster : Verdict::Unchanged;
        return;
    }
    const MannWhitneyResult mw = mannWhitneyU(pa.raw, pb.raw);
    row.pValue = mw.pValue;
    row.exactTest = mw.exact;
    row.ci = bootstrapMedianDifference(pa.raw, pb.raw, options.bootstrap);
    const bool significant = mw.pValue < options.alpha;
    row.verdict = significant && up ? Verdict::Slower : significant && down ? Verdict::Faster : Verdict::Unchanged;
}

namespace {

struct Side {
    const std::vector<EventBlock> *blocks;
    const Event &event(const EventPos &r) const { return (*blocks)[r.block].events[r.event]; }
};

bool included(const Event &e, const DiffOptions &o)
{
    return e.perfData && (o.includeOperatorCalls || !e.isOperatorCall());
}

bool linked(const Event &e)
{
    return e.debugHandles() && !e.debugHandles()->empty();
}

// Events that pair through the graph: linked top-level operator events (a DELEGATE_CALL, a kernel).
bool graphEligible(const Event &e)
{
    return linked(e) && !e.isDelegatedOp && !e.isFramework() && !e.isOperatorCall();
}

// Per-run sums over a group of events of one block (all events of a block have one value per run).
std::optional<PerfData> sumPerRun(const Side &side, const std::vector<EventPos> &refs)
{
    std::optional<std::vector<double>> sum;
    for (const EventPos &r : refs) {
        const Event &e = side.event(r);
        if (!e.perfData)
            continue;
        const auto &raw = e.perfData->raw;
        if (!sum)
            sum.emplace(raw.begin(), raw.end());
        else {
            sum->resize(std::min(sum->size(), raw.size()));
            for (std::size_t i = 0; i < sum->size(); ++i)
                (*sum)[i] += raw[i];
        }
    }
    if (!sum)
        return std::nullopt;
    return PerfData::fromRaw(std::move(*sum));
}

std::string groupLabel(const Side &side, const std::vector<EventPos> &refs)
{
    std::string label;
    for (std::size_t i = 0; i < refs.size(); ++i) {
        if (i == 3) {
            label += " + " + std::to_string(refs.size() - 3) + " more";
            break;
        }
        if (i)
            label += " + ";
        label += side.event(refs[i]).name;
    }
    return label;
}

std::string modulePath(const Event &e)
{
    for (const LinkedNode &n : e.linkedNodes()) {
        if (!n.moduleStack || n.moduleStack->empty())
            continue;
        for (const ModuleFrame &f : *n.moduleStack) {
            std::string p = normalizeModulePath(f.path);
            if (!p.empty())
                return p;
        }
    }
    return {};
}

// Fills the descriptive fields of a row from its first event on either side.
void describe(DiffRow &row, const Side &sa, const Side &sb, const DiffOptions &options)
{
    const Event *ea = row.a.events.empty() ? nullptr : &sa.event(row.a.events.front());
    const Event *eb = row.b.events.empty() ? nullptr : &sb.event(row.b.events.front());
    const Event *rep = ea ? ea : eb;
    if (!rep)
        return;
    const auto &blocksRep = ea ? *sa.blocks : *sb.blocks;
    const EventPos &refRep = ea ? row.a.events.front() : row.b.events.front();
    row.blockName = blocksRep[refRep.block].name;
    row.eventName = rep->name;
    row.instructionId = rep->instructionId;
    row.framework = rep->isFramework();
    row.nested = rep->isDelegatedOp;
    if (ea)
        row.a.label = groupLabel(sa, row.a.events);
    if (eb)
        row.b.label = groupLabel(sb, row.b.events);
    row.a.perf = ea ? sumPerRun(sa, row.a.events) : std::nullopt;
    row.b.perf = eb ? sumPerRun(sb, row.b.events) : std::nullopt;

    auto opTypeOf = [](const Event &e) -> std::string {
        if (e.name == kDelegateCall)
            return kDelegateCall;
        if (!e.opTypes().empty())
            return e.opTypes().front();
        return std::string(e.name);
    };
    row.opType = opTypeOf(*rep);
    auto backendOf = [](const Event *e) -> std::string {
        if (!e)
            return {};
        return e->delegateBackendName() ? *e->delegateBackendName() : std::string("portable");
    };
    const std::string ba = backendOf(ea), bb = backendOf(eb);
    row.backend = !ea ? bb : !eb || ba == bb ? ba : ba + " -> " + bb;
    row.module = modulePath(*rep);
    if (row.module.empty() && eb)
        row.module = modulePath(*eb);
    computeRowStatistics(row, options);
}

using NameKey = std::tuple<std::string, std::int32_t>; // name, instruction id (-2 = ignored)

// Pairs `as` with `bs` by (key, occurrence of the key); unpaired ones become one-sided rows.
void pairByKey(const std::vector<EventPos> &as, const std::vector<EventPos> &bs, const Side &sa, const Side &sb,
    bool useInstruction, MatchMode mode, std::vector<DiffRow> &out)
{
    auto keyOf = [useInstruction](const Event &e) { return NameKey { e.name, useInstruction ? e.instructionId : -2 }; };
    std::map<NameKey, std::vector<EventPos>> bByKey;
    for (const EventPos &r : bs)
        bByKey[keyOf(sb.event(r))].push_back(r);
    std::map<NameKey, std::size_t> used, seenA;
    for (const EventPos &r : as) {
        const NameKey k = keyOf(sa.event(r));
        DiffRow row;
        row.match = mode;
        row.occurrence = seenA[k]++;
        row.a.events = { r };
        auto it = bByKey.find(k);
        std::size_t &u = used[k];
        if (it != bByKey.end() && u < it->second.size())
            row.b.events = { it->second[u++] };
        out.push_back(std::move(row));
    }
    // Remaining B events, in B's order.
    std::map<NameKey, std::size_t> seenB;
    for (const EventPos &r : bs) {
        const NameKey k = keyOf(sb.event(r));
        const std::size_t occ = seenB[k]++;
        if (occ < used[k])
            continue;
        DiffRow row;
        row.match = mode;
        row.occurrence = occ;
        row.b.events = { r };
        out.push_back(std::move(row));
    }
}

// Union-find over the linked top-level events of a block pair (A's first, then B's).
struct Components {
    std::vector<std::size_t> parent;
    explicit Components(std::size_t n)
        : parent(n)
    {
        std::iota(parent.begin(), parent.end(), 0);
    }
    std::size_t find(std::size_t x)
    {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    }
    void unite(std::size_t x, std::size_t y)
    {
        x = find(x);
        y = find(y);
        if (x != y)
            parent[std::max(x, y)] = std::min(x, y);
    }
};

void pairByGraph(const std::vector<EventPos> &as, const std::vector<EventPos> &bs, const Side &sa, const Side &sb,
    std::vector<DiffRow> &out)
{
    std::vector<EventPos> la, lb, restA, restB;
    for (const EventPos &r : as)
        (graphEligible(sa.event(r)) ? la : restA).push_back(r);
    for (const EventPos &r : bs)
        (graphEligible(sb.event(r)) ? lb : restB).push_back(r);

    const std::size_t n = la.size() + lb.size();
    Components comp(n);
    std::map<std::int64_t, std::size_t> owner;
    for (std::size_t i = 0; i < n; ++i) {
        const Event &e = i < la.size() ? sa.event(la[i]) : sb.event(lb[i - la.size()]);
        for (std::int64_t h : *e.debugHandles()) {
            auto [it, inserted] = owner.emplace(h, i);
            if (!inserted)
                comp.unite(i, it->second);
        }
    }
    // One row per component, ordered by its first member (A's order first, then B's).
    std::map<std::size_t, std::size_t> rowOfRoot;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t root = comp.find(i);
        auto [it, inserted] = rowOfRoot.emplace(root, out.size());
        if (inserted) {
            DiffRow row;
            row.match = MatchMode::Graph;
            out.push_back(std::move(row));
        }
        DiffRow &row = out[it->second];
        if (i < la.size())
            row.a.events.push_back(la[i]);
        else
            row.b.events.push_back(lb[i - la.size()]);
    }
    // Framework events, delegate-internal events, OPERATOR_CALL and unlinked events by name.
    pairByKey(restA, restB, sa, sb, false, MatchMode::Graph, out);
}

bool anyLinked(const std::vector<EventBlock> &blocks)
{
    for (const auto &blk : blocks)
        for (const auto &e : blk.events)
            if (linked(e))
                return true;
    return false;
}

// (chain, instruction id) -> the kernel names of its top-level events. OPERATOR_CALL wraps every
// kernel call, so it names the kernel only when nothing else was recorded for the instruction.
using InstrKey = std::pair<std::int64_t, std::int32_t>;
std::map<InstrKey, std::set<std::string>> kernelsByInstruction(const std::vector<EventBlock> &blocks)
{
    std::map<InstrKey, std::set<std::string>> kernels;
    for (const EventBlock &blk : blocks)
        for (const Event &e : blk.events)
            if (!e.isFramework() && !e.isDelegatedOp && e.instructionId >= 0 && !e.name.empty())
                kernels[{ e.chainIndex, e.instructionId }].emplace(e.name);
    for (auto &[key, names] : kernels)
        if (names.size() > 1)
            names.erase(kOperatorCall);
    return kernels;
}

std::string joinNames(const std::set<std::string> &names)
{
    std::string out;
    for (const std::string &n : names)
        out += (out.empty() ? "" : " + ") + n;
    return out;
}

std::string instructionText(const InstrKey &k)
{
    return k.first == 0 ? "instruction " + std::to_string(k.second)
                        : "chain " + std::to_string(k.first) + " instruction " + std::to_string(k.second);
}

// Empty when every instruction runs the same kernel in A and B, else the first difference.
std::string instructionDifference(const std::vector<EventBlock> &a, const std::vector<EventBlock> &b)
{
    const auto ka = kernelsByInstruction(a), kb = kernelsByInstruction(b);
    const std::set<std::string> unknown { kOperatorCall };
    for (const auto &[key, names] : ka) {
        auto it = kb.find(key);
        if (it == kb.end())
            return instructionText(key) + " runs " + joinNames(names) + " in A, nothing in B";
        if (names != it->second && names != unknown && it->second != unknown)
            return instructionText(key) + " runs " + joinNames(names) + " in A, " + joinNames(it->second) + " in B";
    }
    for (const auto &[key, names] : kb)
        if (!ka.count(key))
            return instructionText(key) + " runs " + joinNames(names) + " in B, nothing in A";
    return {};
}

// True when both sides are linked to graphs that agree: the events of A and B that share a debug
// handle (a connected group, as pairByGraph forms rows) cover the same operator types on both
// sides, and such shared groups hold at least half of each side's linked instructions. Handle
// numbers alone prove nothing: two unrelated exports both number their nodes from 1.
bool graphsAgree(const std::vector<EventBlock> &a, const std::vector<EventBlock> &b)
{
    struct Linked {
        const Event *event;
        bool sideB;
    };
    std::vector<Linked> events;
    for (const bool sideB : { false, true }) {
        std::set<std::tuple<std::int64_t, std::int32_t, std::string_view>> seen; // once per instruction
        for (const EventBlock &blk : sideB ? b : a)
            for (const Event &e : blk.events)
                if (graphEligible(e) && seen.emplace(e.chainIndex, e.instructionId, e.name).second)
                    events.push_back({ &e, sideB });
    }
    Components comp(events.size());
    std::map<std::int64_t, std::size_t> owner;
    for (std::size_t i = 0; i < events.size(); ++i)
        for (std::int64_t h : *events[i].event->debugHandles()) {
            auto [it, inserted] = owner.emplace(h, i);
            if (!inserted)
                comp.unite(i, it->second);
        }
    struct Group {
        std::set<std::string> opsA, opsB;
        std::size_t countA = 0, countB = 0;
    };
    std::map<std::size_t, Group> groups;
    for (std::size_t i = 0; i < events.size(); ++i) {
        Group &g = groups[comp.find(i)];
        const auto &ops = events[i].event->opTypes();
        (events[i].sideB ? g.opsB : g.opsA).insert(ops.begin(), ops.end());
        ++(events[i].sideB ? g.countB : g.countA);
    }
    std::size_t totalA = 0, totalB = 0, sharedA = 0, sharedB = 0;
    for (const auto &[root, g] : groups) {
        totalA += g.countA;
        totalB += g.countB;
        if (!g.countA || !g.countB)
            continue;
        if (g.opsA.empty() || g.opsB.empty() || g.opsA != g.opsB)
            return false; // no graph to confirm the handles with, or different operators behind them
        sharedA += g.countA;
        sharedB += g.countB;
    }
    return totalA && totalB && 2 * sharedA >= totalA && 2 * sharedB >= totalB;
}

} // namespace

ProgramIdentity judgeProgramIdentity(const std::vector<EventBlock> &a, const std::vector<EventBlock> &b)
{
    ProgramIdentity id;
    id.reason = instructionDifference(a, b);
    id.sameInstructions = id.reason.empty();
    id.sameGraph = anyLinked(a) && anyLinked(b) && graphsAgree(a, b);
    return id;
}

namespace {

struct BlockPair {
    std::optional<std::size_t> a, b;
};

std::vector<BlockPair> pairBlocks(const std::vector<EventBlock> &a, const std::vector<EventBlock> &b)
{
    std::map<std::string, std::vector<std::size_t>> bByName;
    for (std::size_t i = 0; i < b.size(); ++i)
        bByName[b[i].name].push_back(i);
    std::map<std::string, std::size_t> used;
    std::vector<BlockPair> pairs;
    std::vector<bool> bUsed(b.size(), false);
    for (std::size_t i = 0; i < a.size(); ++i) {
        BlockPair p { i, std::nullopt };
        auto it = bByName.find(a[i].name);
        std::size_t &u = used[a[i].name];
        if (it != bByName.end() && u < it->second.size()) {
            p.b = it->second[u++];
            bUsed[*p.b] = true;
        }
        pairs.push_back(p);
    }
    for (std::size_t i = 0; i < b.size(); ++i)
        if (!bUsed[i])
            pairs.push_back({ std::nullopt, i });
    return pairs;
}

std::vector<EventPos> rowEvents(
    const std::vector<EventBlock> &blocks, std::optional<std::size_t> block, const DiffOptions &o)
{
    std::vector<EventPos> refs;
    if (!block)
        return refs;
    const auto &events = blocks[*block].events;
    for (std::size_t i = 0; i < events.size(); ++i)
        if (included(events[i], o))
            refs.push_back({ *block, i });
    return refs;
}

bool sameSignature(const std::vector<EventBlock> &a, const std::vector<EventBlock> &b,
    const std::vector<BlockPair> &pairs, const DiffOptions &o)
{
    for (const BlockPair &p : pairs) {
        if (!p.a || !p.b)
            return false;
        const auto ra = rowEvents(a, p.a, o), rb = rowEvents(b, p.b, o);
        if (ra.size() != rb.size())
            return false;
        for (std::size_t i = 0; i < ra.size(); ++i) {
            const Event &ea = a[ra[i].block].events[ra[i].event], &eb = b[rb[i].block].events[rb[i].event];
            if (ea.name != eb.name || ea.instructionId != eb.instructionId)
                return false;
        }
    }
    return true;
}

void addTo(std::map<std::string, DiffTotal> &m, const std::string &key, const DiffRow &r)
{
    DiffTotal &t = m[key];
    t.key = key;
    t.a += r.a.perf ? r.a.perf->p50 : 0;
    t.b += r.b.perf ? r.b.perf->p50 : 0;
    ++t.rows;
}

std::vector<DiffTotal> sortedTotals(std::map<std::string, DiffTotal> &m)
{
    std::vector<DiffTotal> v;
    for (auto &[k, t] : m)
        v.push_back(t);
    std::stable_sort(v.begin(), v.end(),
        [](const DiffTotal &x, const DiffTotal &y) { return std::abs(x.delta()) > std::abs(y.delta()); });
    return v;
}

// A row counts towards totals and ranking when it is an operator-level time that no other row contains.
bool counted(const DiffRow &r)
{
    return !r.framework && !r.nested && (r.a.perf || r.b.perf);
}

// Counts, pairing, banner and caveats of a finished diff.
void describePairing(LatencyDiff &result, const DiffOptions &options)
{
    std::size_t maxRunsA = 0, maxRunsB = 0;
    for (const DiffRow &r : result.rows) {
        if (r.a.perf)
            maxRunsA = std::max(maxRunsA, r.a.perf->raw.size());
        if (r.b.perf)
            maxRunsB = std::max(maxRunsB, r.b.perf->raw.size());
        if (r.framework)
            continue;
        const bool inA = !r.a.events.empty(), inB = !r.b.events.empty();
        result.pairedRows += inA && inB ? 1 : 0;
        result.onlyARows += inA && !inB ? 1 : 0;
        result.onlyBRows += inB && !inA ? 1 : 0;
    }
    switch (result.mode) {
    case MatchMode::Exact:
        result.pairing = Pairing::Instruction;
        break;
    case MatchMode::Graph:
        result.pairing = Pairing::Graph;
        break;
    case MatchMode::Heuristic:
        result.pairing = result.pairedRows ? Pairing::OperatorName : Pairing::TotalsOnly;
        break;
    }
    const std::string counts = std::to_string(result.pairedRows) + " paired, " + std::to_string(result.onlyARows)
        + " only in A, " + std::to_string(result.onlyBRows) + " only in B";
    switch (result.pairing) {
    case Pairing::Instruction:
        break;
    case Pairing::Graph:
        result.banner = "same model, different programs: rows paired through both ETRecords' graphs (" + counts + ")";
        break;
    case Pairing::OperatorName:
        result.banner = "different programs: rows paired by operator name (" + counts + ")";
        break;
    case Pairing::TotalsOnly:
        result.banner = "different programs, no operator name in common: totals only (Method::execute per block; "
            + std::to_string(result.onlyARows) + " rows only in A, " + std::to_string(result.onlyBRows) + " only in B)";
        break;
    }
    // Few runs: a verdict is the ratio of medians of a handful of values, or of single values.
    auto fewRuns = [&options](const std::string &who, std::size_t runs) {
        if (runs == 1)
            return who + ": no spread, verdicts are point comparisons of single durations (no significance test)";
        return who + " (fewer than " + std::to_string(options.minRunsForTest)
            + "): verdicts from the ratio of medians alone (no significance test)";
    };
    const bool fewA = maxRunsA && maxRunsA < options.minRunsForTest;
    const bool fewB = maxRunsB && maxRunsB < options.minRunsForTest;
    auto runsText = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); };
    if (fewA && fewB && maxRunsA == maxRunsB)
        result.caveats.push_back(fewRuns("A and B have " + runsText(maxRunsA) + " each", maxRunsA));
    else {
        if (fewA)
            result.caveats.push_back(fewRuns("A has " + runsText(maxRunsA), maxRunsA));
        if (fewB)
            result.caveats.push_back(fewRuns("B has " + runsText(maxRunsB), maxRunsB));
    }
}

} // namespace

namespace {
// Totals by op type, backend and module and the ranking, over the counted rows.
void totalAndRank(LatencyDiff &result)
{
    std::map<std::string, DiffTotal> ops, backends, modules;
    double absSum = 0;
    result.total.key = "total";
    bool anyModule = false;
    for (const DiffRow &r : result.rows) {
        if (!counted(r))
            continue;
        // Rows of several methods and phases (diffLatencyByScope): each group's totals apart.
        const std::string group = r.phase.empty() ? std::string()
            : r.method.empty()                    ? r.phase + ": "
                                                  : r.method + " · " + r.phase + ": ";
        addTo(ops, group + r.opType, r);
        addTo(backends, group + r.backend, r);
        if (!r.module.empty())
            anyModule = true;
        addTo(modules, group + (r.module.empty() ? std::string("(no module)") : r.module), r);
        result.total.a += r.a.perf ? r.a.perf->p50 : 0;
        result.total.b += r.b.perf ? r.b.perf->p50 : 0;
        ++result.total.rows;
        absSum += std::abs((r.b.perf ? r.b.perf->p50 : 0) - (r.a.perf ? r.a.perf->p50 : 0));
    }
    for (DiffRow &r : result.rows)
        if (counted(r) && absSum > 0)
            r.contribution = ((r.b.perf ? r.b.perf->p50 : 0) - (r.a.perf ? r.a.perf->p50 : 0)) / absSum;
    result.byOpType = sortedTotals(ops);
    result.byBackend = sortedTotals(backends);
    if (anyModule)
        result.byModule = sortedTotals(modules);

    std::stable_sort(result.rows.begin(), result.rows.end(), [](const DiffRow &x, const DiffRow &y) {
        const bool cx = counted(x), cy = counted(y);
        if (cx != cy)
            return cx;
        return std::abs(x.contribution) > std::abs(y.contribution);
    });
}
} // namespace

LatencyDiff diffLatency(const std::vector<EventBlock> &a, const std::vector<EventBlock> &b, const DiffOptions &options)
{
    LatencyDiff result;
    const Side sa { &a }, sb { &b };
    const auto pairs = pairBlocks(a, b);
    if (!a.empty())
        result.unit = a.front().targetTimeScale;
    else if (!b.empty())
        result.unit = b.front().targetTimeScale;
    if (!a.empty() && !b.empty() && a.front().targetTimeScale != b.front().targetTimeScale)
        result.notes.push_back("A and B were loaded with different target time scales: durations are not comparable");

    // Bare debug-handle numbers never pair two different programs: graph matching only when both
    // graphs agree on the operators behind the shared handles (judgeProgramIdentity).
    result.identity = judgeProgramIdentity(a, b);
    const std::string why = result.identity.reason.empty() ? std::string() : " (" + result.identity.reason + ")";
    if (options.forceMode)
        result.mode = *options.forceMode;
    else if (sameSignature(a, b, pairs, options) || result.identity.sameInstructions)
        result.mode = MatchMode::Exact;
    else if (result.identity.sameGraph)
        result.mode = MatchMode::Graph;
    else
        result.mode = MatchMode::Heuristic;
    switch (result.mode) {
    case MatchMode::Exact:
        result.notes.push_back("events matched exactly by block, instruction id, name and occurrence");
        break;
    case MatchMode::Graph:
        result.notes.push_back("same model, different programs" + why
            + ": events matched through both ETRecords' graphs, which agree on the operators behind every shared "
              "debug handle (groups summed per run)");
        break;
    case MatchMode::Heuristic:
        result.notes.push_back((why.empty() ? std::string() : "different programs" + why + ": ")
            + "events matched by operator name and order of occurrence (heuristic)");
        break;
    }

    for (const BlockPair &p : pairs) {
        const auto ra = rowEvents(a, p.a, options), rb = rowEvents(b, p.b, options);
        const std::size_t first = result.rows.size();
        if (result.mode == MatchMode::Graph)
            pairByGraph(ra, rb, sa, sb, result.rows);
        else
            pairByKey(ra, rb, sa, sb, result.mode == MatchMode::Exact, result.mode, result.rows);
        for (std::size_t i = first; i < result.rows.size(); ++i)
            describe(result.rows[i], sa, sb, options);

        // Block total: Method::execute on both sides, else per-run sum of the counted rows.
        if (!p.a || !p.b)
            continue;
        BlockTotal bt;
        bt.blockName = a[*p.a].name;
        bt.row.blockName = bt.blockName;
        bt.row.match = result.mode;
        auto findExecute = [](const std::vector<EventBlock> &blocks, std::size_t blk) -> std::optional<EventPos> {
            const auto &ev = blocks[blk].events;
            for (std::size_t i = 0; i < ev.size(); ++i)
                if (ev[i].name == kMethodExecute && ev[i].perfData)
                    return EventPos { blk, i };
            return std::nullopt;
        };
        const auto xa = findExecute(a, *p.a), xb = findExecute(b, *p.b);
        if (xa && xb) {
            bt.source = kMethodExecute;
            bt.row.a.events = { *xa };
            bt.row.b.events = { *xb };
        } else {
            bt.source = "sum of rows";
            for (std::size_t i = first; i < result.rows.size(); ++i) {
                const DiffRow &r = result.rows[i];
                if (!counted(r))
                    continue;
                bt.row.a.events.insert(bt.row.a.events.end(), r.a.events.begin(), r.a.events.end());
                bt.row.b.events.insert(bt.row.b.events.end(), r.b.events.begin(), r.b.events.end());
            }
            if (bt.row.a.events.empty() || bt.row.b.events.empty())
                continue;
        }
        bt.row.eventName = bt.source;
        bt.row.a.label = bt.row.b.label = bt.source;
        bt.row.a.perf = sumPerRun(sa, bt.row.a.events);
        bt.row.b.perf = sumPerRun(sb, bt.row.b.events);
        computeRowStatistics(bt.row, options);
        result.blockTotals.push_back(std::move(bt));
    }

    totalAndRank(result);
    describePairing(result, options);
    return result;
}

void rankDiff(LatencyDiff &diff)
{
    totalAndRank(diff);
}

} // namespace etscope
