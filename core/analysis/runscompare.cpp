#include "analysis/runscompare.h"

#include "common/numberformat.h"
#include "common/pathnames.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace etscope {

namespace {

std::string cell(const std::optional<double> &v, int digits = 4)
{
    return v ? significantText(*v, digits) : std::string("–");
}

} // namespace

std::string runsSideBySideText(const std::vector<RecordingRuns> &recs, std::size_t topN)
{
    std::vector<std::string> paths;
    for (const auto &r : recs)
        paths.push_back(r.runs.file);
    const auto names = distinguishingNames(paths);
    std::vector<std::pair<std::string, std::vector<std::string>>> rows;
    auto row = [&](std::string label, auto value) {
        std::vector<std::string> cells;
        for (const auto &r : recs)
            cells.push_back(value(r));
        rows.emplace_back(std::move(label), std::move(cells));
    };
    row("runs", [](const RecordingRuns &r) { return std::to_string(r.runs.runs.size()); });
    row("time to first token (ms)", [](const RecordingRuns &r) { return cell(r.runs.timeToFirstTokenMs); });
    std::vector<std::string> phases;
    for (const auto &r : recs)
        for (const auto &p : r.runs.phases)
            if (std::find(phases.begin(), phases.end(), p.name) == phases.end())
                phases.push_back(p.name);
    for (const std::string &ph : phases) {
        row(ph + ": runs", [&](const RecordingRuns &r) {
            const auto *p = r.runs.phase(ph);
            return p ? std::to_string(p->runs) : std::string("–");
        });
        row(ph + ": median run (ms)", [&](const RecordingRuns &r) {
            const auto *p = r.runs.phase(ph);
            return p ? significantText(p->medianMs, 4) : std::string("–");
        });
        row(ph + ": tokens/s", [&](const RecordingRuns &r) {
            const auto *p = r.runs.phase(ph);
            return p ? cell(p->tokensPerS) : std::string("–");
        });
    }
    row("coverage: events / Method::execute", [](const RecordingRuns &r) {
        return r.coverage.runs.empty() ? std::string("–") : significantText(100 * r.coverage.fraction(), 3) + " %";
    });
    for (const std::string &ph : phases) {
        std::vector<std::string> ops; // the union of every recording's top N, in first-seen order
        for (const auto &r : recs)
            if (const auto *p = r.runs.phase(ph))
                for (std::size_t i = 0; i < p->shares.size() && (topN == 0 || i < topN); ++i)
                    if (std::find(ops.begin(), ops.end(), p->shares[i].name) == ops.end())
                        ops.push_back(p->shares[i].name);
        for (const std::string &op : ops)
            row(ph + " share: " + op, [&](const RecordingRuns &r) {
                const auto *p = r.runs.phase(ph);
                if (!p)
                    return std::string("–");
                for (const auto &s : p->shares)
                    if (s.name == op)
                        return significantText(100 * s.share, 3) + " %";
                return std::string("0 %");
            });
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
