#include "analysis/scopediff.h"

#include "session/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace etscope {

namespace {
struct Part {
    std::string method;
    Phase phase = Phase::All;
    bool operator==(const Part &) const = default;
};

// The (method, phase) pairs of a recording's runs in file order of first appearance. Warm-up
// runs are not a part of their own: a phase's scope leaves them out (scope.h), and a recording
// of one method and no phases compares whole, warm-up included, as it always did.
void collectParts(const Session &s, std::vector<Part> &parts)
{
    for (const SessionRun &r : s.runTable.runs) {
        const Part p { r.methodName(), r.phase };
        if (std::find(parts.begin(), parts.end(), p) == parts.end())
            parts.push_back(p);
    }
}

std::string partLabel(const Scope &scope)
{
    std::string label = scope.method;
    if (scope.phase != Phase::All)
        label += (label.empty() ? "" : " · ") + std::string(phaseName(scope.phase));
    return label;
}

std::size_t runsIn(const Session &s, const Scope &scope)
{
    return std::size_t(std::count_if(
        s.runTable.runs.begin(), s.runTable.runs.end(), [&](const SessionRun &r) { return runInScope(r, scope); }));
}

// Positions of a scoped diff refer to the scope's blocks: give them back the sessions' own.
void toSessionBlocks(std::vector<EventPos> &events, const std::vector<std::size_t> &source)
{
    for (EventPos &p : events)
        if (p.block < source.size())
            p.block = source[p.block];
}

void prefixKeys(std::vector<DiffTotal> &totals, const std::string &label)
{
    for (DiffTotal &t : totals)
        t.key = label + ": " + t.key;
}
} // namespace

Result<ScopedLatencyDiff> diffLatencyByScope(
    const Session &a, const Session &b, const Scope &scope, const DiffOptions &options)
{
    std::vector<Part> parts;
    if (!scope.method.empty() || scope.phase != Phase::All) {
        parts.push_back({ scope.method, scope.phase });
    } else {
        collectParts(a, parts);
        collectParts(b, parts);
    }
    ScopedLatencyDiff out;
    // One part without a method or phase: the recordings compare as they always did. Without a
    // program (no run has a method) the phases are the runs' own evidence only (a cold first run
    // of a CNN loop reads as a prompt): whole recordings then compare whole, as upstream's.
    const bool methods = std::any_of(parts.begin(), parts.end(), [](const Part &p) { return !p.method.empty(); });
    const bool chosen = !scope.method.empty() || scope.phase != Phase::All;
    const bool split = chosen || (methods && (parts.size() > 1 || parts[0].phase != Phase::All));
    if (!split) {
        auto sa = scopeBlocks(a, scope);
        if (!sa)
            return sa.error();
        auto sb = scopeBlocks(b, scope);
        if (!sb)
            return sb.error();
        out.diff = diffLatency(sa->blocks, sb->blocks, options);
        for (DiffRow &r : out.diff.rows) {
            toSessionBlocks(r.a.events, sa->sourceBlock);
            toSessionBlocks(r.b.events, sb->sourceBlock);
        }
        ScopeDiffPart p;
        p.scope = scope;
        p.runsA = sa->runCount;
        p.runsB = sb->runCount;
        p.total = out.diff.total;
        p.rowCount = out.diff.rows.size();
        out.parts.push_back(std::move(p));
        return out;
    }

    LatencyDiff &all = out.diff;
    all.total.key = "sum over the methods and phases below";
    std::vector<std::string> onlyA, onlyB;
    bool first = true;
    for (const Part &part : parts) {
        Scope s = scope;
        s.method = part.method;
        s.phase = part.phase;
        ScopeDiffPart p;
        p.scope = s;
        p.label = partLabel(s);
        p.runsA = runsIn(a, s);
        p.runsB = runsIn(b, s);
        p.total.key = p.label;
        if (p.runsA == 0 || p.runsB == 0) {
            (p.runsA ? onlyA : onlyB).push_back(p.label);
            out.parts.push_back(std::move(p));
            continue;
        }
        auto sa = scopeBlocks(a, s);
        if (!sa)
            return sa.error();
        auto sb = scopeBlocks(b, s);
        if (!sb)
            return sb.error();
        LatencyDiff d = diffLatency(sa->blocks, sb->blocks, options);
        p.total.a = d.total.a;
        p.total.b = d.total.b;
        p.total.rows = d.total.rows;
        p.firstRow = all.rows.size();
        p.rowCount = d.rows.size();
        for (DiffRow &r : d.rows) {
            toSessionBlocks(r.a.events, sa->sourceBlock);
            toSessionBlocks(r.b.events, sb->sourceBlock);
            r.blockName += " · " + p.label;
            all.rows.push_back(std::move(r));
        }
        for (BlockTotal &t : d.blockTotals) {
            t.blockName += " · " + p.label;
            t.row.blockName = t.blockName;
            all.blockTotals.push_back(std::move(t));
        }
        prefixKeys(d.byOpType, p.label);
        prefixKeys(d.byBackend, p.label);
        prefixKeys(d.byModule, p.label);
        all.byOpType.insert(all.byOpType.end(), d.byOpType.begin(), d.byOpType.end());
        all.byBackend.insert(all.byBackend.end(), d.byBackend.begin(), d.byBackend.end());
        all.byModule.insert(all.byModule.end(), d.byModule.begin(), d.byModule.end());
        if (first) {
            all.mode = d.mode;
            all.unit = d.unit;
            all.pairing = d.pairing;
            all.identity = d.identity;
            first = false;
        }
        if (all.banner.empty())
            all.banner = d.banner;
        for (std::string &c : d.caveats)
            if (std::find(all.caveats.begin(), all.caveats.end(), c) == all.caveats.end())
                all.caveats.push_back(std::move(c));
        for (std::string &n : d.notes)
            all.notes.push_back(p.label + ": " + n);
        all.pairedRows += d.pairedRows;
        all.onlyARows += d.onlyARows;
        all.onlyBRows += d.onlyBRows;
        all.total.a += d.total.a;
        all.total.b += d.total.b;
        all.total.rows += d.total.rows;
        out.parts.push_back(std::move(p));
    }
    if (first && !a.blocks.empty())
        all.unit = a.blocks.front().targetTimeScale;
    std::string paired;
    for (const ScopeDiffPart &p : out.parts)
        if (p.runsA && p.runsB)
            paired += fmt::format("{}{} ({} run{} in A, {} in B)", paired.empty() ? "" : "; ", p.label, p.runsA,
                p.runsA == 1 ? "" : "s", p.runsB);
    if (!paired.empty())
        out.notes.push_back("rows paired within each method and phase: " + paired);
    auto join = [](const std::vector<std::string> &v) {
        std::string s;
        for (const std::string &x : v)
            s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    if (!onlyA.empty() || !onlyB.empty())
        out.notes.push_back(fmt::format("the recordings' methods or phases differ: {}{}{}",
            onlyA.empty() ? "" : "only in A: " + join(onlyA), !onlyA.empty() && !onlyB.empty() ? "; " : "",
            onlyB.empty() ? "" : "only in B: " + join(onlyB)));
    if (all.rows.empty() && paired.empty())
        return makeError(ErrorCode::InvalidArgument, a.primaryPath(),
            fmt::format("no method and phase holds runs in both recordings ({})", out.notes.back()));
    return out;
}

} // namespace etscope
