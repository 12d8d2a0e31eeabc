#include "analysis/numericgap.h"

#include "analysis/noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <thread>
#include <tuple>

namespace etscope::analysis {

double GapRow::worst(Direction d) const
{
    double w = std::numeric_limits<double>::quiet_NaN();
    for (double g : gap)
        if (std::isnan(w) || badness(d, g) > badness(d, w))
            w = g;
    return w;
}

double GapRow::excess(Metric m, Direction d) const
{
    double e = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t k = 0; k < gap.size() && k < noise.size(); ++k) {
        const double x = excessOverNoise(d, m, gap[k], noise[k]);
        if (!std::isnan(x) && (std::isnan(e) || x > e))
            e = x;
    }
    return e;
}

namespace {
void judgeRow(GapRow &row, Metric m, Direction d, std::optional<double> threshold)
{
    row.flagged = false;
    row.noise.assign(row.gap.size(), 0.0);
    for (std::size_t k = 0; k < row.gap.size(); ++k) {
        row.noise[k] = threshold ? *threshold : noiseThreshold(m, row.reference.items[k], row.runtime.items[k]);
        row.flagged = row.flagged || exceedsThreshold(d, row.gap[k], row.noise[k]);
    }
}
} // namespace

void applyThreshold(GapTable &t, std::optional<double> threshold)
{
    t.threshold = threshold;
    for (GapRow &row : t.rows)
        if (row.error.empty())
            judgeRow(row, t.metric, t.direction, threshold);
}

const GapRow *firstFlagged(const GapTable &t)
{
    const GapRow *first = nullptr;
    for (const GapRow &r : t.rows)
        if (r.flagged
            && (!first || std::tie(r.blockIndex, r.eventIndex) < std::tie(first->blockIndex, first->eventIndex)))
            first = &r;
    return first;
}

std::string gapLegend(Metric m, std::string_view mode, std::optional<double> threshold)
{
    return fmt::format("{}, {}, flagged above the {}", metricName(m), mode, thresholdDescription(m, threshold));
}

std::string gapLegend(const GapTable &t)
{
    return gapLegend(t.metric, t.isolated ? "isolated" : "accumulated", t.threshold);
}

std::string gapLegend(const std::vector<GapTable> &tables)
{
    // (how the metrics are judged, the metrics judged so), in first-seen order.
    std::vector<std::pair<std::string, std::vector<std::string_view>>> clauses;
    for (const GapTable &t : tables) {
        std::string judged = fmt::format("{}, flagged above the {}", t.isolated ? "isolated" : "accumulated",
            thresholdDescription(t.metric, t.threshold));
        auto it = std::find_if(clauses.begin(), clauses.end(), [&](const auto &c) { return c.first == judged; });
        if (it == clauses.end()) {
            clauses.emplace_back(std::move(judged), std::vector<std::string_view> {});
            it = std::prev(clauses.end());
        }
        if (std::find(it->second.begin(), it->second.end(), metricName(t.metric)) == it->second.end())
            it->second.push_back(metricName(t.metric));
    }
    std::vector<std::string> parts;
    for (const auto &[judged, metrics] : clauses)
        parts.push_back(fmt::format("{}, {}", fmt::join(metrics, " · "), judged));
    return fmt::format("{}", fmt::join(parts, "; "));
}

namespace {

// Block ordinal among the blocks that contribute entries: lets a 1-run ETDump be compared
// with another whose block list differs only in blocks without debug data.
std::map<int, int> blockOrdinals(const std::vector<OpOutputs> &entries)
{
    std::map<int, int> ord;
    for (const auto &e : entries)
        if (!ord.count(e.blockIndex))
            ord.emplace(e.blockIndex, int(ord.size()));
    return ord;
}

NumValue asList(const std::vector<NumValue> &vs)
{
    NumValue out;
    out.kind = NumValue::Kind::List;
    for (const auto &v : vs)
        for (const auto &t : v.items)
            out.items.push_back(t);
    return out;
}

bool sameShape(const NumValue &v, const NumTensor &t, bool checkDtype)
{
    return v.kind == NumValue::Kind::Tensor && v.items.front().sizes == t.sizes
        && (!checkDtype || v.items.front().dtype == t.dtype);
}

// §8 step 6: which runtime value a reference tensor is compared with.
std::optional<NumValue> pickRuntime(const NumValue &ref, const std::vector<NumValue> &rt, int numOutputs, int i)
{
    const int k = int(rt.size()) - 1 - i; // Python index -(i+1)
    if (k < 0)
        return std::nullopt;
    if (ref.kind == NumValue::Kind::List) {
        if (rt[std::size_t(k)].kind == NumValue::Kind::List)
            return rt[std::size_t(k)];
        if (rt[std::size_t(k)].kind == NumValue::Kind::Tensor)
            return asList(rt);
        return std::nullopt;
    }
    if (numOutputs == 1 && rt.size() > 1 && ref.kind == NumValue::Kind::Tensor) {
        // max_pool2d_with_indices, dropout masks, delegate argument lists: the output is the
        // unique same-shape entry, else the unique same shape+dtype entry, else the last one.
        for (bool withDtype : { false, true }) {
            int found = -1, count = 0;
            for (int j = 0; j < int(rt.size()); ++j)
                if (sameShape(rt[std::size_t(j)], ref.items.front(), withDtype)) {
                    found = j;
                    ++count;
                }
            if (count == 1)
                return rt[std::size_t(found)];
        }
        return rt.back();
    }
    return rt[std::size_t(k)];
}

GapRow rowFrom(const OpOutputs &r)
{
    GapRow row;
    row.blockIndex = r.blockIndex;
    row.eventIndex = r.eventIndex;
    row.instructionId = r.instructionId;
    row.debugHandles = r.debugHandles;
    row.runtimeOps = r.ops;
    row.stackTraces = r.stack;
    row.delegated = r.delegated;
    row.backend = r.backend;
    return row;
}

void byInstruction(const std::vector<OpOutputs> &rt, const ReferenceSet &ref, GapTable &t)
{
    auto rtOrd = blockOrdinals(rt);
    auto refOrd = blockOrdinals(ref.intermediates);
    std::map<std::tuple<int, std::int64_t, std::int32_t, int>, const OpOutputs *> refIndex;
    for (const auto &e : ref.intermediates)
        refIndex[{ refOrd[e.blockIndex], e.chainIndex, e.instructionId, e.occurrence }] = &e;
    int unmatched = 0;
    for (const auto &r : rt) {
        auto it = refIndex.find({ rtOrd[r.blockIndex], r.chainIndex, r.instructionId, r.occurrence });
        if (it == refIndex.end()) {
            ++unmatched;
            continue;
        }
        const OpOutputs &a = *it->second;
        GapRow row = rowFrom(r);
        row.referenceOps = a.ops;
        if (a.outputs.size() == r.outputs.size()) {
            row.reference = asList(a.outputs);
            row.runtime = asList(r.outputs);
        } else {
            // Different numbers of logged values (e.g. a delegate's argument list): the op's
            // output is logged last on both sides.
            t.warnings.push_back(
                fmt::format("instruction {}: {} reference values vs {} runtime values, comparing the last",
                    r.instructionId, a.outputs.size(), r.outputs.size()));
            if (a.outputs.empty() || r.outputs.empty())
                continue;
            row.reference = a.outputs.back();
            row.runtime = r.outputs.back();
        }
        t.rows.push_back(std::move(row));
    }
    if (unmatched)
        t.warnings.push_back(fmt::format("{} runtime instruction(s) have no reference counterpart", unmatched));
}

void byHandle(const std::vector<OpOutputs> &rt, const ReferenceSet &ref, GapTable &t)
{
    const auto &aot = ref.intermediates;
    const std::size_t na = aot.size(), n = na + rt.size();
    std::vector<std::size_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](std::size_t x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    };
    std::map<std::int64_t, std::size_t> owner; // handle → first node that has it
    auto link = [&](std::size_t node, const std::vector<std::int64_t> &handles) {
        for (auto h : handles) {
            auto [it, fresh] = owner.emplace(h, node);
            if (!fresh)
                parent[find(node)] = find(it->second);
        }
    };
    for (std::size_t i = 0; i < na; ++i)
        link(i, aot[i].debugHandles);
    for (std::size_t j = 0; j < rt.size(); ++j)
        link(na + j, rt[j].debugHandles);

    std::map<std::size_t, std::vector<std::size_t>> comps;
    for (std::size_t x = 0; x < n; ++x)
        comps[find(x)].push_back(x);
    for (const auto &[root, nodes] : comps) {
        std::vector<const OpOutputs *> as, rs;
        for (auto x : nodes)
            (x < na ? as : rs).push_back(x < na ? &aot[x] : &rt[x - na]);
        if (as.empty() || rs.empty())
            continue;
        if (rs.size() > 1) {
            t.warnings.push_back(fmt::format("debug handles {} map to {} runtime entries; not compared",
                fmt::join(rs.front()->debugHandles, ","), rs.size()));
            continue;
        }
        const OpOutputs &r = *rs.front();
        const auto &tuple = r.debugHandles;
        std::set<std::int64_t> runtimeSet(tuple.begin(), tuple.end());
        bool subset = true;
        for (const auto *a : as)
            for (auto h : a->debugHandles)
                subset = subset && runtimeSet.count(h);
        if (!subset || r.outputs.empty())
            continue;
        for (int i = 0; i < r.numOutputs; ++i) {
            const int k = int(tuple.size()) - 1 - i;
            if (k < 0)
                break;
            const std::int64_t h = tuple[std::size_t(k)];
            const OpOutputs *a = nullptr;
            for (const auto *cand : as)
                if (std::find(cand->debugHandles.begin(), cand->debugHandles.end(), h) != cand->debugHandles.end())
                    a = cand;
            if (a && a->outputs.empty() && !a->note.empty()) {
                // The reference could not compute this handle (unsupported op, bad node): the
                // row stays visible with the reason instead of silently disappearing.
                GapRow row = rowFrom(r);
                row.referenceOps = a->ops;
                row.referenceHandle = h;
                row.runtime = r.outputs.back();
                row.error = a->note;
                t.rows.push_back(std::move(row));
                continue;
            }
            if (!a || a->outputs.empty())
                continue;
            // An AOT entry holds one value. A reference ETDump entry holds its debug_data list:
            // with as many values as the runtime entry, both lists are compared pairwise (one
            // row); otherwise its last value (the operator output is logged last).
            const bool pairwise = a->outputs.size() > 1 && a->outputs.size() == r.outputs.size();
            NumValue refVal = pairwise ? asList(a->outputs) : a->outputs.back();
            auto runVal = pairwise ? std::optional<NumValue>(asList(r.outputs))
                                   : pickRuntime(refVal, r.outputs, r.numOutputs, i);
            if (!runVal) {
                t.warnings.push_back(fmt::format(
                    "debug handles {}: runtime value {} does not fit the reference", fmt::join(tuple, ","), i));
                continue;
            }
            GapRow row = rowFrom(r);
            for (const auto *x : as)
                row.referenceOps.insert(row.referenceOps.end(), x->ops.begin(), x->ops.end());
            row.reference = std::move(refVal);
            row.runtime = std::move(*runVal);
            row.referenceHandle = h;
            row.note = a->note;
            t.rows.push_back(std::move(row));
            if (pairwise)
                break;
        }
    }
    std::stable_sort(t.rows.begin(), t.rows.end(), [](const GapRow &x, const GapRow &y) {
        return std::tie(x.blockIndex, x.eventIndex) < std::tie(y.blockIndex, y.eventIndex);
    });
}

std::string joinStrings(const std::vector<std::string> &v)
{
    return fmt::format("{}", fmt::join(v, ","));
}

std::string gapText(const std::vector<double> &g)
{
    std::vector<std::string> parts;
    for (double x : g)
        parts.push_back(fmt::format("{:.17g}", x));
    return fmt::format("{}", fmt::join(parts, ";"));
}

std::string firstStack(const GapRow &r)
{
    for (const auto &n : r.stackTraces)
        if (n.stackTrace) {
            std::string s = *n.stackTrace;
            std::replace(s.begin(), s.end(), '\n', ' ');
            std::replace(s.begin(), s.end(), '\t', ' ');
            return n.nodeName + ": " + s;
        }
    return {};
}

} // namespace

Result<GapTable> computeNumericGap(const Session &runtime, const ReferenceSet &reference, const GapOptions &opts)
{
    auto cmp = makeComparator(opts.metric);
    GapTable t;
    t.metric = opts.metric;
    t.direction = cmp->direction();
    t.threshold = opts.threshold;
    t.isolated = reference.isolated;
    t.referenceDescription = reference.description;
    bool byHandles = reference.keyedByHandle;
    if (opts.matching == GapOptions::Matching::Instruction)
        byHandles = false;
    if (opts.matching == GapOptions::Matching::DebugHandle)
        byHandles = true;
    if (byHandles && !sessionHasHandles(runtime))
        return makeError(ErrorCode::InvalidArgument, runtime.inputs.etdump,
            "matching by debug handle needs an ETRecord linked to the runtime ETDump");
    if (byHandles && !reference.keyedByHandle)
        return makeError(ErrorCode::InvalidArgument, "", "the reference has no debug handles to match by");
    if (reference.intermediates.empty())
        return makeError(
            ErrorCode::InvalidArgument, "", fmt::format("{} has no intermediate outputs", reference.description));
    t.matchedByHandle = byHandles;
    if (!runtime.debugBuffer)
        t.warnings.push_back("no debug buffer: runtime tensors are zeros, as the Inspector substitutes");

    auto rt = byHandles ? collectByHandle(runtime, &t.warnings) : collectByInstruction(runtime);
    if (!rt)
        return rt.error();
    if (rt->empty())
        return makeError(ErrorCode::InvalidArgument, runtime.inputs.etdump,
            "no intermediate outputs (run with a debug buffer and intermediate output logging)");
    if (byHandles)
        byHandle(*rt, reference, t);
    else
        byInstruction(*rt, reference, t);

    auto computeRows = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            GapRow &row = t.rows[i];
            if (!row.error.empty())
                continue;
            auto g = compareValues(*cmp, row.reference, row.runtime);
            if (!g) {
                row.error = g.error().reason;
                continue;
            }
            row.gap = std::move(*g);
            judgeRow(row, t.metric, t.direction, opts.threshold);
        }
    };
    // Large tables are memory-bound: split the rows over a few threads (each row is written
    // by exactly one thread; comparators are stateless). Small tables stay on this thread.
    std::int64_t elements = 0;
    for (const auto &row : t.rows)
        for (const auto &it : row.runtime.items)
            elements += it.numel;
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t workers
        = elements < (std::int64_t(1) << 22) ? 1 : std::min<std::size_t>({ hw, 8, t.rows.size() });
    if (workers <= 1) {
        computeRows(0, t.rows.size());
        return t;
    }
    std::vector<std::thread> threads;
    const std::size_t chunk = (t.rows.size() + workers - 1) / workers;
    for (std::size_t w = 0; w < workers; ++w) {
        const std::size_t b = w * chunk, e = std::min(t.rows.size(), b + chunk);
        if (b < e)
            threads.emplace_back(computeRows, b, e);
    }
    for (auto &th : threads)
        th.join();
    return t;
}

Result<GapTables> computeGapTables(const Session &runtime, const ReferenceSet &accumulated,
    const ReferenceSet *isolated, std::span<const Metric> metrics)
{
    GapTables out;
    for (Metric m : metrics) {
        GapOptions opt;
        opt.metric = m;
        auto acc = computeNumericGap(runtime, accumulated, opt);
        if (!acc)
            return acc.error();
        out.accumulated.push_back(std::move(*acc));
        if (isolated) {
            auto iso = computeNumericGap(runtime, *isolated, opt);
            if (iso)
                out.isolated.push_back(std::move(*iso));
        }
    }
    if (out.isolated.size() != out.accumulated.size())
        out.isolated.clear();
    return out;
}

void sortWorstFirst(GapTable &t)
{
    const Direction d = t.direction;
    std::stable_sort(t.rows.begin(), t.rows.end(),
        [d](const GapRow &a, const GapRow &b) { return badness(d, a.worst(d)) > badness(d, b.worst(d)); });
}

std::string gapTableTsv(const GapTable &t)
{
    std::string out
        = fmt::format("instruction_id\tdebug_handles\taot_ops\taot_intermediate_output\truntime_ops\t"
                      "runtime_intermediate_output\tgap_{}\tflagged\tdelegated\tbackend\tstacktrace\terror\tnote\n",
            metricName(t.metric));
    for (const auto &r : t.rows)
        out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", r.instructionId,
            fmt::join(r.debugHandles, ","), joinStrings(r.referenceOps), summarizeValue(r.reference),
            joinStrings(r.runtimeOps), summarizeValue(r.runtime), gapText(r.gap), r.flagged ? 1 : 0,
            r.delegated ? 1 : 0, r.backend, firstStack(r), r.error, r.note);
    return out;
}

std::string gapOpText(const GapRow &r)
{
    std::string op = joinStrings(r.runtimeOps);
    if (r.delegated)
        op += r.backend.empty() ? " [delegated]" : " [" + r.backend + "]";
    return op;
}

std::string gapVerdict(const GapTable &t)
{
    if (const GapRow *first = firstFlagged(t))
        return fmt::format("error enters: instruction {} {}", first->instructionId, gapOpText(*first));
    return t.threshold ? "no op exceeds the threshold" : "no op exceeds the noise level";
}

std::string gapTableText(const GapTable &t)
{
    std::string out = fmt::format(
        "reference: {}  (matched by {})\n", t.referenceDescription, t.matchedByHandle ? "debug handle" : "instruction");
    out += fmt::format("flagged rows: {}\n", gapLegend(t));
    auto gapCell = [](const GapRow &r) {
        std::vector<std::string> g;
        for (double x : r.gap)
            g.push_back(fmt::format("{:.6g}", x));
        return r.error.empty() ? fmt::format("{}", fmt::join(g, " ")) : "error: " + r.error;
    };
    std::size_t opW = 10, gapW = 10;
    for (const auto &r : t.rows) {
        opW = std::max(opW, gapOpText(r).size());
        gapW = std::max(gapW, gapCell(r).size());
    }
    out += fmt::format("{:>5}  {:<4} {:<{}} {:<{}} {}\n", "instr", "flag", "runtime op", opW,
        fmt::format("gap {}", metricName(t.metric)), gapW, "runtime output");
    for (const auto &r : t.rows)
        out += fmt::format("{:>5}  {:<4} {:<{}} {:<{}} {}\n", r.instructionId, r.flagged ? "!!" : "", gapOpText(r), opW,
            gapCell(r), gapW, summarizeValue(r.runtime));
    for (const auto &r : t.rows)
        if (!r.note.empty())
            out += fmt::format("note: instruction {}: {}\n", r.instructionId, r.note);
    out += gapVerdict(t) + "\n";
    for (const auto &w : t.warnings)
        out += "warning: " + w + "\n";
    return out;
}

} // namespace etscope::analysis
