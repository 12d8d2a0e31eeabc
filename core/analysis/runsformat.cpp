// runsJson / runsText: the `etscope-cli runs` renderings of a RunsReport (analysis/runs.h).
#include "analysis/runs.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace etscope {

namespace {

using Json = nlohmann::ordered_json;

template <typename T> Json orNull(const std::optional<T> &v)
{
    return v ? Json(*v) : Json(nullptr);
}

Json phaseJson(const PhaseFigures &f)
{
    Json j;
    j["runs"] = f.runs;
    j["warmup_runs"] = f.warmupRuns;
    j["outlier_runs"] = f.outlierRuns;
    j["total_ms"] = f.totalMs;
    j["mean_ms"] = f.meanMs;
    j["median_ms"] = f.medianMs;
    j["p90_ms"] = f.p90Ms;
    j["tokens"] = orNull(f.tokens);
    j["tokens_per_s"] = orNull(f.tokensPerS);
    j["tokens_per_s_p50"] = orNull(f.tokensPerSP50);
    j["tokens_per_s_p90"] = orNull(f.tokensPerSP90);
    j["slope_ms_per_position"] = orNull(f.slopeMsPerPosition);
    j["intercept_ms"] = orNull(f.interceptMs);
    j["drift_pct"] = orNull(f.driftPct);
    j["counted_ms"] = f.countedMs;
    j["delegated_share"] = f.delegatedShare;
    return j;
}

std::string optionalNumber(const std::optional<double> &v, const char *unit)
{
    return v ? fmt::format("{:.4g}{}", *v, unit) : std::string("-");
}

} // namespace

std::string runsJson(const RunsReport &report)
{
    Json j;
    j["file"] = report.file;
    j["program"] = report.program.empty() ? Json(nullptr) : Json(report.program);
    j["phase_rule"] = phaseRuleName(report.rule);
    j["shares_by"] = shareRowsByName(report.sharesBy);
    Json runs = Json::array();
    for (const RunRow &r : report.runs) {
        Json row;
        row["index"] = r.index;
        row["method"] = r.method.empty() ? Json(nullptr) : Json(r.method);
        row["phase"] = r.phase;
        row["start_ns"] = r.startNs;
        row["duration_ms"] = r.durationMs;
        row["outlier"] = r.outlier;
        row["warmup"] = r.warmup;
        row["tokens"] = orNull(r.tokens);
        if (!r.methodNote.empty() && r.method.empty())
            row["method_note"] = r.methodNote;
        runs.push_back(std::move(row));
    }
    j["runs"] = std::move(runs);
    Json phases = Json::object();
    for (const PhaseFigures &f : report.phases)
        phases[f.name] = phaseJson(f);
    j["phases"] = std::move(phases);
    j["time_to_first_token_ms"] = orNull(report.timeToFirstTokenMs);
    Json shares = Json::object();
    for (const PhaseFigures &f : report.phases) {
        Json rows = Json::array();
        for (const ShareRow &s : f.shares)
            rows.push_back({ { "name", s.name }, { "total_ms", s.totalMs }, { "share", s.share }, { "calls", s.calls },
                { "delegated_share", s.delegatedShare } });
        shares[f.name] = std::move(rows);
    }
    j["shares"] = std::move(shares);
    j["notes"] = report.notes;
    // Names come from files: invalid UTF-8 is replaced rather than refused.
    return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string runsText(const RunsReport &report, std::size_t topN)
{
    std::string out;
    auto o = std::back_inserter(out);
    if (report.rule == PhaseRule::None)
        fmt::format_to(o, "{}: {} runs, one phase (all)\n", report.file, report.runs.size());
    else
        fmt::format_to(o, "{}: {} runs, phases by {}\n", report.file, report.runs.size(), phaseRuleName(report.rule));
    if (!report.program.empty())
        fmt::format_to(o, "program: {}\n", report.program);
    for (const std::string &n : report.notes)
        fmt::format_to(o, "note: {}\n", n);
    if (report.timeToFirstTokenMs)
        fmt::format_to(o, "time to first token: {:.4g} ms\n", *report.timeToFirstTokenMs);
    for (const PhaseFigures &f : report.phases) {
        fmt::format_to(o, "\n{}: {} runs ({} warm-up, {} outliers), median {:.4g} ms, p90 {:.4g} ms, total {:.4g} ms\n",
            f.name, f.runs, f.warmupRuns, f.outlierRuns, f.medianMs, f.p90Ms, f.totalMs);
        if (f.tokens)
            fmt::format_to(o, "  tokens {}, {} tokens/s", *f.tokens, optionalNumber(f.tokensPerS, ""));
        if (f.tokensPerSP50)
            fmt::format_to(o, ", p50 {} tokens/s, p90 {} tokens/s", optionalNumber(f.tokensPerSP50, ""),
                optionalNumber(f.tokensPerSP90, ""));
        if (f.tokens)
            out += '\n';
        if (f.slopeMsPerPosition)
            fmt::format_to(o, "  latency against position: slope {} per position, drift {}\n",
                optionalNumber(f.slopeMsPerPosition, " ms"), optionalNumber(f.driftPct, " %"));
        const std::size_t rows = topN ? std::min(topN, f.shares.size()) : f.shares.size();
        if (rows == 0)
            continue;
        std::size_t width = report.sharesBy == ShareRowsBy::BackendOperator ? 16 : 8;
        for (std::size_t i = 0; i < rows; ++i)
            width = std::max(width, std::min<std::size_t>(f.shares[i].name.size(), 60));
        fmt::format_to(o, "  {:<{}}  {:>12}  {:>7}  {:>8}  {:>9}\n",
            report.sharesBy == ShareRowsBy::BackendOperator ? "backend operator" : "operator", width, "total ms",
            "share", "calls", "delegated");
        for (std::size_t i = 0; i < rows; ++i) {
            const ShareRow &s = f.shares[i];
            fmt::format_to(o, "  {:<{}}  {:>12.4f}  {:>6.2f}%  {:>8}  {:>8.1f}%\n", s.name, width, s.totalMs,
                100 * s.share, s.calls, 100 * s.delegatedShare);
        }
        if (rows < f.shares.size())
            fmt::format_to(o, "  ({} more)\n", f.shares.size() - rows);
    }
    if (!report.runs.empty()) {
        out += "\n  run  method               phase    start ns              duration ms  flags\n";
        for (const RunRow &r : report.runs) {
            std::string flags = r.warmup ? "warm-up" : "";
            if (r.outlier)
                flags += "outlier";
            const std::string method = r.method.empty() ? (r.methodNote.empty() ? "-" : r.methodNote) : r.method;
            fmt::format_to(o, "  {:>3}  {:<20}  {:<7}  {:>20}  {:>11.4f}  {}\n", r.index, method, r.phase, r.startNs,
                r.durationMs, flags);
        }
    }
    return out;
}

} // namespace etscope
