// runsJson / runsText: the `etscope-cli runs` renderings of a RunsReport (analysis/runs.h).
#include "analysis/runs.h"
#include "common/jsontext.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

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
    Json head;
    head["file"] = report.file;
    head["program"] = report.program.empty() ? Json(nullptr) : Json(report.program);
    head["phase_rule"] = phaseRuleName(report.rule);
    head["phase_rule_line"] = report.ruleLine;
    head["generations"] = report.generations;
    head["shares_by"] = shareRowsByName(report.sharesBy);
    Json tail;
    Json phases = Json::object();
    for (const PhaseFigures &f : report.phases)
        phases[f.name] = phaseJson(f);
    tail["phases"] = std::move(phases);
    tail["time_to_first_token_ms"] = orNull(report.timeToFirstTokenMs);

    // The runs (tens of thousands in a generation) and the share rows (as many when a backend
    // names its events after positions) are written row by row, not built as a tree: the same
    // bytes as one dump of the whole document, in its key order (file, program, phase_rule,
    // shares_by, runs, phases, time_to_first_token_ms, shares, notes). Strings and numbers still go
    // through the JSON library's own escaping and shortest round-trip formatting (jsonCompact:
    // names come from files, invalid UTF-8 is replaced rather than refused).
    std::string out = jsonCompact(head);
    out.pop_back(); // '}'
    out += ",\"runs\":[";
    std::map<std::string, std::string, std::less<>> quoted; // methods, phases and notes repeat
    auto quote = [&](const std::string &v) -> const std::string & {
        auto it = quoted.find(v);
        if (it == quoted.end())
            it = quoted.emplace(v, jsonCompact(Json(v))).first;
        return it->second;
    };
    // Numbers as the library's serializer writes a double (nlohmann/detail/output/serializer.hpp,
    // dump_float): "null" when not finite, else its shortest round-trip digits (to_chars).
    auto number = [&out](double v) {
        if (!std::isfinite(v)) {
            out += "null";
            return;
        }
        std::array<char, 64> buf {};
        const char *end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
        out.append(buf.data(), std::size_t(end - buf.data()));
    };
    auto o = std::back_inserter(out);
    for (std::size_t i = 0; i < report.runs.size(); ++i) {
        const RunRow &r = report.runs[i];
        fmt::format_to(o,
            "{}{{\"index\":{},\"method\":{},\"phase\":{},\"generation\":{},\"start_ns\":{},\"duration_ms\":",
            i ? "," : "", r.index, r.method.empty() ? std::string_view("null") : std::string_view(quote(r.method)),
            quote(r.phase), r.generation, r.startNs);
        number(r.durationMs);
        fmt::format_to(o, ",\"outlier\":{},\"warmup\":{},\"tokens\":", r.outlier, r.warmup);
        if (r.tokens)
            fmt::format_to(o, "{}", *r.tokens);
        else
            out += "null";
        if (!r.methodNote.empty() && r.method.empty())
            fmt::format_to(o, ",\"method_note\":{}", quote(r.methodNote));
        out += '}';
    }
    out += "],";
    const std::string figures = jsonCompact(tail);
    out += std::string_view(figures).substr(1, figures.size() - 2); // without its braces
    out += ",\"shares\":{";
    for (std::size_t p = 0; p < report.phases.size(); ++p) {
        const PhaseFigures &f = report.phases[p];
        fmt::format_to(o, "{}{}:[", p ? "," : "", quote(f.name));
        for (std::size_t i = 0; i < f.shares.size(); ++i) {
            const ShareRow &s = f.shares[i];
            fmt::format_to(o, "{}{{\"name\":{},\"total_ms\":", i ? "," : "", jsonCompact(Json(s.name)));
            number(s.totalMs);
            out += ",\"share\":";
            number(s.share);
            fmt::format_to(o, ",\"calls\":{},\"delegated_share\":", s.calls);
            number(s.delegatedShare);
            out += '}';
        }
        out += ']';
    }
    fmt::format_to(o, "}},\"notes\":{}}}\n", jsonCompact(Json(report.notes)));
    return out;
}

std::string runsText(const RunsReport &report, std::size_t topN)
{
    std::string out;
    auto o = std::back_inserter(out);
    if (report.rule == PhaseRule::None)
        fmt::format_to(o, "{}: {} runs, one phase (all)\n", report.file, report.runs.size());
    else
        fmt::format_to(o, "{}: {} runs in {} generation(s), phases by {}\n", report.file, report.runs.size(),
            report.generations, phaseRuleName(report.rule));
    if (!report.ruleLine.empty())
        fmt::format_to(o, "rule: {}\n", report.ruleLine);
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
        out += "\n  run  method               phase    gen  start ns              duration ms  flags\n";
        for (const RunRow &r : report.runs) {
            std::string flags = r.warmup ? "warm-up" : "";
            if (r.outlier)
                flags += "outlier";
            const std::string method = r.method.empty() ? (r.methodNote.empty() ? "-" : r.methodNote) : r.method;
            fmt::format_to(o, "  {:>3}  {:<20}  {:<7}  {:>3}  {:>20}  {:>11.4f}  {}\n", r.index, method, r.phase,
                r.generation, r.startNs, r.durationMs, flags);
        }
    }
    return out;
}

} // namespace etscope
