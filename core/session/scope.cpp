#include "session/scope.h"

#include "program/program.h"
#include "session/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace etscope {

namespace {
std::optional<std::size_t> parseIndex(std::string_view s)
{
    std::size_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty())
        return std::nullopt;
    return v;
}
// Each block's method and phase, when all its runs share them.
void labelBlocks(const RunTable &table, ScopedBlocks &out)
{
    for (const auto &runs : out.runs) {
        std::string method = runs.empty() ? std::string() : table.runs[runs.front()].methodName();
        std::optional<Phase> phase;
        if (!runs.empty())
            phase = table.runs[runs.front()].scopePhase();
        for (std::size_t i : runs) {
            if (table.runs[i].methodName() != method)
                method.clear();
            if (phase && table.runs[i].scopePhase() != *phase)
                phase.reset();
        }
        out.blockMethod.push_back(std::move(method));
        out.blockPhase.emplace_back(phaseName(phase.value_or(Phase::All)));
    }
}
} // namespace

Status parseRunRange(std::string_view text, Scope &scope)
{
    const auto dash = text.find('-');
    const std::string_view a = text.substr(0, dash), b = dash == std::string_view::npos ? a : text.substr(dash + 1);
    const auto first = a.empty() ? std::optional<std::size_t>() : parseIndex(a);
    const auto last = b.empty() ? std::optional<std::size_t>() : parseIndex(b);
    if ((!a.empty() && !first) || (!b.empty() && !last) || (a.empty() && b.empty())
        || (first && last && *first > *last))
        return makeError(ErrorCode::InvalidArgument, std::string(text),
            "not a run range: give N-M, N-, -M or N (runs counted from 0, as in `runs`)");
    scope.firstRun = first;
    scope.lastRun = last;
    return Ok {};
}

bool runInScope(const SessionRun &run, const Scope &scope)
{
    if (scope.firstRun && run.index < *scope.firstRun)
        return false;
    if (scope.lastRun && run.index > *scope.lastRun)
        return false;
    if (scope.phase != Phase::All && run.scopePhase() != scope.phase)
        return false;
    if (!scope.method.empty() && run.methodName() != scope.method)
        return false;
    return true;
}

std::string scopeLabel(const Session &session, const Scope &scope)
{
    std::size_t n = 0;
    for (const SessionRun &r : session.runTable.runs)
        n += runInScope(r, scope);
    std::string label = scope.method.empty() ? std::string() : scope.method;
    if (scope.phase != Phase::All)
        label += (label.empty() ? "" : " · ") + std::string(phaseName(scope.phase));
    if (scope.firstRun || scope.lastRun)
        label += fmt::format("{}runs {}–{}", label.empty() ? "" : " · ", scope.firstRun ? *scope.firstRun : 0,
            scope.lastRun ? fmt::format("{}", *scope.lastRun) : std::string());
    if (label.empty())
        label = "all runs";
    return fmt::format("{} · {} run{}", label, n, n == 1 ? "" : "s");
}

std::shared_ptr<const Session> scopedSession(const Session &session, const ScopedBlocks &scoped)
{
    auto copy = std::make_shared<Session>(session);
    copy->blocks = scoped.blocks;
    copy->runTable = {};
    copy->runMethods.clear();
    return copy;
}

ScopeChoices scopeChoices(const Session &session)
{
    ScopeChoices c;
    if (session.program)
        for (const ProgramMethod &m : session.program->methods())
            if (std::any_of(session.runTable.runs.begin(), session.runTable.runs.end(),
                    [&m](const SessionRun &r) { return r.method == &m; }))
                c.methods.push_back(m.name());
    for (Phase p : { Phase::Prefill, Phase::Decode, Phase::Warmup, Phase::Other })
        if (std::any_of(session.runTable.runs.begin(), session.runTable.runs.end(),
                [p](const SessionRun &r) { return r.scopePhase() == p; }))
            c.phases.push_back(p);
    c.phases.push_back(Phase::All);
    return c;
}

Result<ScopedBlocks> scopeBlocks(const Session &session, const Scope &scope)
{
    const std::string &file = session.primaryPath();
    const RunTable &table = session.runTable;
    ScopedBlocks out;
    out.ruleLine = table.ruleLine;
    out.label = scopeLabel(session, scope);
    if (scope.whole()) {
        out.blocks = session.blocks;
        out.runCount = table.runs.size();
        for (std::size_t b = 0; b < session.blocks.size(); ++b) {
            out.sourceBlock.push_back(b);
            std::vector<std::size_t> runs;
            if (b < table.runOfBlock.size())
                for (int i : table.runOfBlock[b])
                    if (i >= 0)
                        runs.push_back(std::size_t(i));
            out.runs.push_back(std::move(runs));
        }
        labelBlocks(table, out);
        return out;
    }
    out.whole = false;
    if (!scope.method.empty()) {
        if (!session.program)
            return makeError(ErrorCode::InvalidArgument, file,
                fmt::format("--method {} needs the program the runs executed (--program P.pte)", scope.method));
        if (!session.program->method(scope.method))
            return makeError(ErrorCode::InvalidArgument, file,
                fmt::format("the program {} has no method named '{}'", session.program->path(), scope.method));
    }
    if (scope.firstRun && *scope.firstRun >= table.runs.size())
        return makeError(ErrorCode::InvalidArgument, file,
            fmt::format("run {} is beyond the recording's {} executed runs (counted from 0)", *scope.firstRun,
                table.runs.size()));

    std::vector<double> durations;
    std::vector<std::uint64_t> starts, ends;
    for (std::size_t b = 0; b < session.blocks.size(); ++b) {
        const EventBlock &src = session.blocks[b];
        if (b >= table.runOfBlock.size() || table.runOfBlock[b].empty())
            continue; // not executed (the load-time "Default" block): never a run in scope
        std::vector<std::size_t> keep; // runs of the block
        std::vector<std::size_t> runs;
        for (std::size_t r = 0; r < table.runOfBlock[b].size(); ++r) {
            const int i = table.runOfBlock[b][r];
            if (i >= 0 && runInScope(table.runs[std::size_t(i)], scope)) {
                keep.push_back(r);
                runs.push_back(std::size_t(i));
            }
        }
        if (keep.empty())
            continue;
        out.runCount += keep.size();
        out.sourceBlock.push_back(b);
        out.runs.push_back(std::move(runs));
        EventBlock copy = src;
        if (keep.size() == src.runIndices.size()) {
            out.blocks.push_back(std::move(copy));
            continue;
        }
        // A store of its own for the recomputed samples, keeping the session's (names, extras) alive.
        auto store = std::make_shared<EventStore>();
        store->retain(src.store);
        copy.store = store;
        copy.runIndices.clear();
        for (std::size_t r : keep)
            copy.runIndices.push_back(src.runIndices[r]);
        for (Event &e : copy.events) {
            if (!e.perfData || e.perfData->raw.size() != src.runIndices.size())
                continue;
            durations.clear();
            starts.clear();
            ends.clear();
            const auto raw = e.perfData->raw;
            const auto s = e.ticks ? e.startTimes() : std::span<const std::uint64_t>();
            const auto en = e.ticks ? e.endTimes() : std::span<const std::uint64_t>();
            for (std::size_t r : keep) {
                durations.push_back(raw[r]);
                if (e.ticks) {
                    starts.push_back(s[r]);
                    ends.push_back(en[r]);
                }
            }
            store->setPerf(e, durations, starts, ends);
        }
        out.blocks.push_back(std::move(copy));
    }
    if (out.runCount == 0)
        return makeError(ErrorCode::InvalidArgument, file, fmt::format("no run in scope ({})", out.label));
    labelBlocks(table, out);
    return out;
}

} // namespace etscope
