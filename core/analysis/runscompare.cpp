#include "analysis/runscompare.h"

#include "common/numberformat.h"
#include "common/pathnames.h"
#include "session/scope.h"
#include "session/session.h"

#include <fmt/format.h>

#include <algorithm>

namespace etscope {

Result<RecordingRuns> analyzeRecordingRuns(const Session &session, const RunsOptions &opt, std::optional<double> wallMs)
{
    auto runs = analyzeRuns(session, opt);
    if (!runs)
        return runs.error();
    // Coverage over the same runs as the figures (the whole recording when the scope is).
    std::optional<ScopedBlocks> scoped;
    if (!opt.scope.whole()) {
        auto s = scopeBlocks(session, opt.scope);
        if (!s)
            return s.error();
        scoped = std::move(*s);
    }
    return RecordingRuns { std::move(*runs),
        analyzeCoverage(scoped ? scoped->blocks : session.blocks, session.inputs.time, wallMs) };
}

std::string sideBySideCell(SideBySideKind kind, const std::optional<double> &v)
{
    if (!v)
        return "–";
    switch (kind) {
    case SideBySideKind::Runs:
    case SideBySideKind::PhaseRuns:
        return std::to_string(static_cast<long long>(*v));
    case SideBySideKind::Coverage:
    case SideBySideKind::Share:
        return significantText(*v, 3) + " %";
    default:
        return significantText(*v, 4);
    }
}

std::vector<SideBySideRow> runsSideBySideRows(const std::vector<RecordingRuns> &recs, std::size_t topN)
{
    std::vector<SideBySideRow> rows;
    auto row = [&](SideBySideKind kind, std::string phase, std::string op, std::string label, auto value) {
        SideBySideRow r { kind, std::move(phase), std::move(op), std::move(label), {} };
        for (const auto &rec : recs)
            r.values.push_back(value(rec));
        rows.push_back(std::move(r));
    };
    const auto none = std::optional<double>();
    row(SideBySideKind::Runs, "", "", "runs",
        [](const RecordingRuns &r) { return std::optional<double>(double(r.runs.runs.size())); });
    row(SideBySideKind::TimeToFirstToken, "", "", "time to first token (ms)",
        [](const RecordingRuns &r) { return r.runs.timeToFirstTokenMs; });
    std::vector<std::string> phases;
    for (const auto &r : recs)
        for (const auto &p : r.runs.phases)
            if (std::find(phases.begin(), phases.end(), p.name) == phases.end())
                phases.push_back(p.name);
    for (const std::string &ph : phases) {
        row(SideBySideKind::PhaseRuns, ph, "", ph + ": runs", [&](const RecordingRuns &r) {
            const auto *p = r.runs.phase(ph);
            return p ? std::optional<double>(double(p->runs)) : none;
        });
        row(SideBySideKind::PhaseMedian, ph, "", ph + ": median run (ms)", [&](const RecordingRuns &r) {
            const auto *p = r.runs.phase(ph);
            return p ? std::optional<double>(p->medianMs) : none;
        });
        row(SideBySideKind::PhaseTokensPerS, ph, "", ph + ": tokens/s", [&](const RecordingRuns &r) {
            const auto *p = r.runs.phase(ph);
            return p ? p->tokensPerS : none;
        });
    }
    row(SideBySideKind::Coverage, "", "", "coverage: events / Method::execute", [](const RecordingRuns &r) {
        return r.coverage.runs.empty() ? std::optional<double>() : std::optional<double>(100 * r.coverage.fraction());
    });
    for (const std::string &ph : phases) {
        std::vector<std::string> ops; // the union of every recording's top N, in first-seen order
        for (const auto &r : recs)
            if (const auto *p = r.runs.phase(ph))
                for (std::size_t i = 0; i < p->shares.size() && (topN == 0 || i < topN); ++i)
                    if (std::find(ops.begin(), ops.end(), p->shares[i].name) == ops.end())
                        ops.push_back(p->shares[i].name);
        for (const std::string &op : ops)
            row(SideBySideKind::Share, ph, op, ph + " share: " + op, [&](const RecordingRuns &r) {
                const auto *p = r.runs.phase(ph);
                if (!p)
                    return none;
                for (const auto &s : p->shares)
                    if (s.name == op)
                        return std::optional<double>(100 * s.share);
                return std::optional<double>(0.0);
            });
    }
    return rows;
}

std::string runsSideBySideText(const std::vector<RecordingRuns> &recs, std::size_t topN)
{
    std::vector<std::string> paths;
    for (const auto &r : recs)
        paths.push_back(r.runs.file);
    const auto names = distinguishingNames(paths);
    std::vector<std::pair<std::string, std::vector<std::string>>> rows;
    for (const SideBySideRow &r : runsSideBySideRows(recs, topN)) {
        std::vector<std::string> cells;
        for (const auto &v : r.values)
            cells.push_back(sideBySideCell(r.kind, v));
        rows.emplace_back(r.label, std::move(cells));
    }
    std::size_t labelWidth = 0;
    for (const auto &[l, c] : rows)
        labelWidth = std::max(labelWidth, l.size());
    std::vector<std::size_t> widths;
    for (std::size_t i = 0; i < recs.size(); ++i) {
        std::size_t w = names[i].size();
        for (const auto &[l, c] : rows)
            w = std::max(w, c[i].size());
        widths.push_back(w);
    }
    std::string out = fmt::format("{} recordings side by side\n", recs.size());
    out += fmt::format("{:<{}}", "", labelWidth);
    for (std::size_t i = 0; i < recs.size(); ++i)
        out += fmt::format("  {:>{}}", names[i], widths[i]);
    out += '\n';
    for (const auto &[l, c] : rows) {
        out += fmt::format("{:<{}}", l, labelWidth);
        for (std::size_t i = 0; i < c.size(); ++i)
            out += fmt::format("  {:>{}}", c[i], widths[i]);
        out += '\n';
    }
    for (std::size_t i = 0; i < recs.size(); ++i)
        for (const std::string &line : coverageSentences(recs[i].coverage))
            if (line.starts_with("warning:"))
                out += names[i] + ": " + line + '\n';
    return out;
}

std::string runsJsonWithCoverage(const RunsReport &runs, const CoverageReport &coverage)
{
    std::string json = runsJson(runs);
    const auto close = json.find_last_of('}');
    if (close == std::string::npos)
        return json;
    return json.substr(0, close) + ",\"coverage\":" + coverageJson(coverage) + json.substr(close);
}

std::string runsSideBySideJson(const std::vector<RecordingRuns> &recs)
{
    std::string out = "{\"recordings\":[";
    for (std::size_t i = 0; i < recs.size(); ++i)
        out += (i ? "," : "") + runsJsonWithCoverage(recs[i].runs, recs[i].coverage);
    out += "]}\n";
    return out;
}

} // namespace etscope
