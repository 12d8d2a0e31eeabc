#include "analysis/scopediff.h"

#include "session/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace etscope {

namespace {
struct Part {
    std::string method;
    Phase phase = Phase::All; // SessionRun::scopePhase(): a phase's warm-up runs are Phase::Warmup
    bool operator==(const Part &) const = default;
};

// The (method, phase) pairs of a recording's runs in `scope`, in file order of first appearance.
void collectParts(const Session &s, const Scope &scope, std::vector<Part> &parts)
{
    for (const SessionRun &r : s.runTable.runs)
        if (runInScope(r, scope)) {
            const Part p { r.methodName(), r.scopePhase() };
            if (std::find(parts.begin(), parts.end(), p) == parts.end())
                parts.push_back(p);
        }
}

// Runs that name no method and no phase: one kind of run, whatever the warm-up flags say.
bool plain(const std::vector<Part> &parts)
{
    return std::all_of(parts.begin(), parts.end(),
        [](const Part &p) { return p.method.empty() && (p.phase == Phase::All || p.phase == Phase::Warmup); });
}

std::string partLabel(const Part &p)
{
    if (p.method.empty())
        return p.phase == Phase::All ? std::string() : std::string(phaseName(p.phase));
    return p.phase == Phase::All ? p.method : p.method + " · " + phaseName(p.phase);
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

void toSessionBlocks(LatencyDiff &d, const ScopedBlocks &a, const ScopedBlocks &b)
{
    for (DiffRow &r : d.rows) {
        toSessionBlocks(r.a.events, a.sourceBlock);
        toSessionBlocks(r.b.events, b.sourceBlock);
    }
    for (BlockTotal &t : d.blockTotals) {
        toSessionBlocks(t.row.a.events, a.sourceBlock);
        toSessionBlocks(t.row.b.events, b.sourceBlock);
    }
}

void setPart(DiffRow &r, const Part &p)
{
    r.method = p.method;
    r.phase = phaseName(p.phase);
}

std::string joined(const std::vector<std::string> &v)
{
    std::string s;
    for (const std::string &x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

// One diff of the scope's blocks: a recording of one kind of run, or a scope of one part.
Result<ScopedLatencyDiff> diffWhole(
    const Session &a, const Session &b, const Scope &scope, const std::vector<Part> &parts, const DiffOptions &options)
{
    auto sa = scopeBlocks(a, scope);
    if (!sa)
        return sa.error();
    auto sb = scopeBlocks(b, scope);
    if (!sb)
        return sb.error();
    ScopedLatencyDiff out;
    out.diff = diffLatency(sa->blocks, sb->blocks, options);
    toSessionBlocks(out.diff, *sa, *sb);
    ScopeDiffPart p;
    p.scope = scope;
    p.runsA = sa->runCount;
    p.runsB = sb->runCount;
    p.total = out.diff.total;
    if (!plain(parts)) { // one method or phase: the rows say which, the total is the part's
        p.label = partLabel(parts.front());
        for (DiffRow &r : out.diff.rows)
            setPart(r, parts.front());
        for (BlockTotal &t : out.diff.blockTotals)
            setPart(t.row, parts.front());
        p.total.key = p.label;
        out.diff.byMethodPhase.push_back(p.total);
    }
    out.parts.push_back(std::move(p));
    return out;
}
} // namespace

Result<ScopedLatencyDiff> diffLatencyByScope(
    const Session &a, const Session &b, const Scope &scope, const DiffOptions &options)
{
    std::vector<Part> parts;
    collectParts(a, scope, parts);
    collectParts(b, scope, parts);
    if (plain(parts) || parts.size() == 1)
        return diffWhole(a, b, scope, parts, options);

    // Each (method, phase) of either recording diffed on its own: rows pair within a part only,
    // so a decode kernel never meets its prefill namesake, and totals are per part.
    ScopedLatencyDiff out;
    LatencyDiff &all = out.diff;
    std::vector<std::string> onlyA, onlyB;
    bool first = true;
    for (const Part &part : parts) {
        ScopeDiffPart p;
        p.scope = scope;
        p.scope.method = part.method;
        p.scope.phase = part.phase;
        p.label = partLabel(part);
        p.runsA = runsIn(a, p.scope);
        p.runsB = runsIn(b, p.scope);
        p.total.key = p.label;
        if (p.runsA == 0 || p.runsB == 0) {
            (p.runsA ? onlyA : onlyB).push_back(p.label);
            out.parts.push_back(std::move(p));
            continue;
        }
        auto sa = scopeBlocks(a, p.scope);
        if (!sa)
            return sa.error();
        auto sb = scopeBlocks(b, p.scope);
        if (!sb)
            return sb.error();
        LatencyDiff d = diffLatency(sa->blocks, sb->blocks, options);
        toSessionBlocks(d, *sa, *sb);
        p.total.a = d.total.a;
        p.total.b = d.total.b;
        p.total.rows = d.total.rows;
        all.byMethodPhase.push_back(p.total);
        if (first || !d.comparable()) { // the weakest pairing of any part is the diff's
            all.mode = d.mode;
            all.unit = d.unit;
            all.pairing = d.pairing;
            all.identity = d.identity;
            all.banner = d.banner;
            first = false;
        }
        all.pairedRows += d.pairedRows;
        all.onlyARows += d.onlyARows;
        all.onlyBRows += d.onlyBRows;
        for (std::string &c : d.caveats)
            all.caveats.push_back(p.label + ": " + c);
        for (std::string &n : d.notes)
            all.notes.push_back(p.label + ": " + n);
        for (DiffRow &r : d.rows) {
            setPart(r, part);
            r.blockName += " · " + p.label;
            all.rows.push_back(std::move(r));
        }
        for (BlockTotal &t : d.blockTotals) {
            setPart(t.row, part);
            t.blockName += " · " + p.label;
            t.row.blockName = t.blockName;
            all.blockTotals.push_back(std::move(t));
        }
        out.parts.push_back(std::move(p));
    }
    if (first && !a.blocks.empty())
        all.unit = a.blocks.front().targetTimeScale;
    rankDiff(all); // one ranking over every part; totals by op type etc. per method and phase
    all.total.key = "sum over the methods and phases below";

    std::string paired;
    for (const ScopeDiffPart &p : out.parts)
        if (p.runsA && p.runsB)
            paired += fmt::format("{}{} ({} run{} in A, {} in B)", paired.empty() ? "" : "; ", p.label, p.runsA,
                p.runsA == 1 ? "" : "s", p.runsB);
    if (!paired.empty())
        out.notes.push_back("rows paired within each method and phase: " + paired);
    if (!onlyA.empty() || !onlyB.empty())
        out.notes.push_back(fmt::format("the recordings' methods or phases differ: {}{}{}",
            onlyA.empty() ? "" : "only in A: " + joined(onlyA), !onlyA.empty() && !onlyB.empty() ? "; " : "",
            onlyB.empty() ? "" : "only in B: " + joined(onlyB)));
    if (paired.empty())
        return makeError(ErrorCode::InvalidArgument, a.primaryPath(),
            fmt::format("no method and phase holds runs in both recordings ({})", out.notes.back()));
    all.notes.insert(all.notes.begin(), out.notes.begin(), out.notes.end());
    return out;
}

} // namespace etscope
