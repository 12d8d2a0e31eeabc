#include "analysis/coverage.h"

#include "common/jsontext.h"
#include "common/numberformat.h"
#include "events/backendevents.h"
#include "events/blockstats.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace etscope {

namespace {

struct Interval {
    std::uint64_t start = 0, end = 0;
    std::size_t event = 0; // index in the block
};

const char *kindPlural(BackendEventKind k)
{
    switch (k) {
    case BackendEventKind::Dispatch:
        return "dispatches";
    case BackendEventKind::Phase:
        return "phases";
    case BackendEventKind::Kernel:
        return "kernels";
    case BackendEventKind::Operator:
        return "operators";
    case BackendEventKind::ProfilingDump:
    case BackendEventKind::None:
        break;
    }
    return "events";
}

// What a parent's direct children are called: "kernels" inside OPERATOR_CALL, the backend's
// operators / phases inside a delegate call, else "events".
std::string childrenLabel(std::string_view parent, const std::vector<const BackendEvent *> &decoded)
{
    if (parent == kOperatorCall)
        return "kernels";
    if (parent == kMethodExecute)
        return "events";
    BackendKind backend = BackendKind::None;
    std::optional<BackendEventKind> kind;
    bool mixedKind = false;
    for (const BackendEvent *d : decoded) {
        if (!d || !d->decoded())
            return "events";
        if (backend != BackendKind::None && backend != d->backend)
            return "events";
        backend = d->backend;
        if (kind && *kind != d->kind)
            mixedKind = true;
        kind = d->kind;
    }
    if (backend == BackendKind::None)
        return "events";
    return fmt::format("{} {}", backendKindName(backend), mixedKind || !kind ? "events" : kindPlural(*kind));
}

// Total length of the union of sorted-by-start intervals, clipped to [lo, hi].
std::uint64_t unionLength(const std::vector<Interval> &v, std::uint64_t lo, std::uint64_t hi)
{
    std::uint64_t total = 0, curStart = 0, curEnd = 0;
    bool open = false;
    for (const Interval &i : v) {
        const std::uint64_t s = std::max(i.start, lo), e = std::min(i.end, hi);
        if (e <= s)
            continue;
        if (open && s <= curEnd) {
            curEnd = std::max(curEnd, e);
            continue;
        }
        if (open)
            total += curEnd - curStart;
        curStart = s;
        curEnd = e;
        open = true;
    }
    if (open)
        total += curEnd - curStart;
    return total;
}

} // namespace

CoverageReport analyzeCoverage(
    const std::vector<EventBlock> &blocks, const TimeConversion &time, std::optional<double> wallMs)
{
    CoverageReport rep;
    rep.unit = time.target;
    const auto factor = time.scaleFactor();
    const double scale = factor ? *factor : 1.0; // cycles without a rate: ticks as they are
    auto toUnit = [&](std::uint64_t ticks) { return static_cast<double>(ticks) / scale; };
    if (wallMs) {
        const auto perSecond = time.unitsPerSecond(time.target);
        if (perSecond)
            rep.wall = *wallMs / 1000.0 * *perSecond;
    }
    const BackendEventTable table = decodeBackendEvents(blocks);
    std::map<std::pair<std::string, std::string>, CoverageLine> lines;
    auto lineOf = [&](const std::string &parent, const std::string &children) -> CoverageLine & {
        CoverageLine &l = lines[{ parent, children }];
        l.parent = parent;
        l.children = children;
        return l;
    };

    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const EventBlock &block = blocks[b];
        if (!executesMethod(block))
            continue;
        std::size_t runs = 0;
        for (const Event &e : block.events)
            if (e.name == kMethodExecute)
                runs = std::max(runs, e.runCount());
        std::vector<const BackendEvent *> decodedOf(block.events.size(), nullptr);
        for (std::size_t i = 0; i < block.events.size(); ++i)
            decodedOf[i] = table.find(b, i);
        for (std::size_t r = 0; r < runs; ++r) {
            std::vector<Interval> iv;
            for (std::size_t i = 0; i < block.events.size(); ++i) {
                const Event &e = block.events[i];
                if (!e.ticks || r >= e.runCount())
                    continue;
                // GPU dispatches carry the GPU's clock: never nested in host intervals.
                if (decodedOf[i] && decodedOf[i]->kind == BackendEventKind::Dispatch)
                    continue;
                const std::uint64_t s = e.startTimes()[r], en = e.endTimes()[r];
                if (en < s || (en == s && e.name != kMethodExecute))
                    continue; // zero length explains nothing, and at a boundary would look like a parent
                iv.push_back({ s, en, i });
            }
            // Parents before their children: by start, longer first, and for equal intervals the
            // later-logged one (an event is written when it ends: the enclosing one last).
            std::sort(iv.begin(), iv.end(), [](const Interval &x, const Interval &y) {
                if (x.start != y.start)
                    return x.start < y.start;
                if (x.end != y.end)
                    return x.end > y.end;
                return x.event > y.event;
            });
            std::vector<std::vector<Interval>> children(iv.size());
            std::vector<std::size_t> stack;
            for (std::size_t k = 0; k < iv.size(); ++k) {
                while (!stack.empty() && !(iv[k].start >= iv[stack.back()].start && iv[k].end <= iv[stack.back()].end))
                    stack.pop_back();
                if (!stack.empty())
                    children[stack.back()].push_back(iv[k]);
                stack.push_back(k);
            }
            for (std::size_t k = 0; k < iv.size(); ++k) {
                const Event &parent = block.events[iv[k].event];
                const bool isExecute = parent.name == kMethodExecute;
                if (children[k].empty() && !isExecute)
                    continue;
                const double covered = toUnit(unionLength(children[k], iv[k].start, iv[k].end));
                const double length = toUnit(iv[k].end - iv[k].start);
                std::vector<const BackendEvent *> decoded;
                for (const Interval &c : children[k])
                    decoded.push_back(decodedOf[c.event]);
                const std::string parentName
                    = parent.isOperatorCall() ? std::string(kOperatorCall) : std::string(parent.name);
                CoverageLine &l = lineOf(parentName, childrenLabel(parent.name, decoded));
                l.parentTime += length;
                l.childTime += covered;
                ++l.instances;
                if (isExecute) {
                    RunCoverage rc;
                    rc.block = b;
                    rc.runInBlock = r;
                    rc.execute = length;
                    rc.explained = covered;
                    for (const Interval &c : children[k]) {
                        const Event &ce = block.events[c.event];
                        if (ce.isOperatorCall())
                            rc.operators += toUnit(c.end - c.start);
                        else if (ce.name == "DELEGATE_CALL")
                            rc.delegates += toUnit(c.end - c.start);
                    }
                    rep.execute += rc.execute;
                    rep.explained += rc.explained;
                    rep.operators += rc.operators;
                    rep.delegates += rc.delegates;
                    rep.runs.push_back(rc);
                }
            }
        }
    }

    // Vulkan: the dispatches (GPU clock) against the host's ETVK_COMPUTE_GRAPH_EXECUTE of the call.
    for (const DelegateCallEvents &call : groupDelegateCalls(blocks, table)) {
        if (call.backend != BackendKind::Vulkan)
            continue;
        const EventBlock &block = blocks[call.block];
        std::optional<std::size_t> compute;
        for (std::size_t p : call.phases)
            if (const BackendEvent *d = table.find(call.block, p); d && d->phase == "COMPUTE_GRAPH_EXECUTE")
                compute = p;
        std::vector<std::size_t> dispatches;
        for (std::size_t w : call.work)
            if (const BackendEvent *d = table.find(call.block, w); d && d->kind == BackendEventKind::Dispatch)
                dispatches.push_back(w);
        if (!compute || dispatches.empty() || !block.events[*compute].perfData)
            continue;
        CoverageLine &l = lineOf("ETVK_COMPUTE_GRAPH_EXECUTE", "Vulkan dispatches");
        l.otherClock = true;
        const Event &ce = block.events[*compute];
        for (std::size_t r = 0; r < ce.runCount(); ++r) {
            l.parentTime += ce.perfData->raw[r];
            ++l.instances;
            for (std::size_t d : dispatches) {
                const Event &de = block.events[d];
                if (de.perfData && r < de.runCount())
                    l.childTime += de.perfData->raw[r];
            }
        }
    }

    auto exec = lines.find({ std::string(kMethodExecute), "events" });
    if (exec != lines.end())
        rep.lines.push_back(exec->second);
    for (const auto &[key, l] : lines)
        if (key.first != kMethodExecute)
            rep.lines.push_back(l);
    return rep;
}

std::vector<std::string> coverageSentences(const CoverageReport &r)
{
    std::vector<std::string> out;
    if (r.runs.empty())
        return out;
    const std::string_view u = timeScaleName(r.unit);
    auto pct = [](double f) { return significantText(100.0 * f, 3); };
    out.push_back(
        fmt::format("events explain {} % of Method::execute ({} run{}: {} of {} {}; gaps {} {}; operator calls {} {}, "
                    "delegate calls {} {})",
            pct(r.fraction()), r.runs.size(), r.runs.size() == 1 ? "" : "s", significantText(r.explained, 4),
            significantText(r.execute, 4), u, significantText(r.execute - r.explained, 4), u,
            significantText(r.operators, 4), u, significantText(r.delegates, 4), u));
    for (const CoverageLine &l : r.lines) {
        if (l.parent == kMethodExecute)
            continue;
        out.push_back(fmt::format("{} explain {} % of {} ({} instance{}: {} of {} {}{})", l.children, pct(l.fraction()),
            l.parent, l.instances, l.instances == 1 ? "" : "s", significantText(l.childTime, 4),
            significantText(l.parentTime, 4), u, l.otherClock ? "; GPU clock, summed" : ""));
    }
    if (r.wall)
        out.push_back(
            fmt::format("Method::execute is {} % of the wall time given ({} of {} {}); events explain {} % of it",
                pct(*r.wall > 0 ? r.execute / *r.wall : 0), significantText(r.execute, 4), significantText(*r.wall, 4),
                u, pct(*r.wall > 0 ? r.explained / *r.wall : 0)));
    if (r.low())
        out.push_back(fmt::format("warning: events explain only {} % of Method::execute: operator shares describe the "
                                  "explained part only",
            pct(r.fraction())));
    else if (r.wall && *r.wall > 0 && r.explained / *r.wall < kLowCoverage)
        out.push_back(fmt::format(
            "warning: events explain only {} % of the wall time given: shares describe the explained part only",
            pct(r.explained / *r.wall)));
    return out;
}

std::string coverageJson(const CoverageReport &r)
{
    using Json = nlohmann::ordered_json;
    Json j;
    j["unit"] = timeScaleName(r.unit);
    j["runs"] = r.runs.size();
    j["execute"] = r.execute;
    j["explained"] = r.explained;
    j["gaps"] = r.execute - r.explained;
    j["operator_calls"] = r.operators;
    j["delegate_calls"] = r.delegates;
    j["fraction"] = r.fraction();
    j["low"] = r.low();
    j["wall"] = r.wall ? Json(*r.wall) : Json(nullptr);
    Json lines = Json::array();
    for (const auto &l : r.lines)
        lines.push_back({ { "parent", l.parent }, { "children", l.children }, { "parent_time", l.parentTime },
            { "child_time", l.childTime }, { "instances", l.instances }, { "fraction", l.fraction() },
            { "other_clock", l.otherClock } });
    j["lines"] = std::move(lines);
    Json perRun = Json::array();
    for (const auto &rc : r.runs)
        perRun.push_back({ { "block", rc.block }, { "run", rc.runInBlock }, { "execute", rc.execute },
            { "explained", rc.explained }, { "operator_calls", rc.operators }, { "delegate_calls", rc.delegates } });
    j["per_run"] = std::move(perRun);
    return jsonCompact(j);
}

} // namespace etscope
