#include "analysis/latencydiffformat.h"

#include "common/jsontext.h"
#include "events/inspectortable.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace etscope {

namespace {

std::string num(double v)
{
    if (std::isnan(v))
        return {};
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return pythonFloatRepr(v);
}

std::string opt(const std::optional<double> &v)
{
    return v ? num(*v) : std::string();
}

double p50(const DiffSide &s)
{
    return s.perf ? s.perf->p50 : std::nan("");
}

// Cells that might hold the separator, a quote or a newline are quoted, as `tsv` quotes them.
std::string cell(const std::string &s, char sep)
{
    return csvField(s, sep);
}

nlohmann::json jnum(double v)
{
    if (!std::isfinite(v))
        return nullptr;
    return v;
}

nlohmann::json sideJson(const DiffSide &s)
{
    nlohmann::json o;
    o["label"] = s.label;
    o["events"] = s.events.size();
    if (s.perf) {
        o["runs"] = s.perf->raw.size();
        o["p10"] = jnum(s.perf->p10);
        o["p50"] = jnum(s.perf->p50);
        o["p90"] = jnum(s.perf->p90);
        o["avg"] = jnum(s.perf->avg);
        o["min"] = jnum(s.perf->min);
        o["max"] = jnum(s.perf->max);
    }
    return o;
}

nlohmann::json rowJson(const DiffRow &r)
{
    nlohmann::json o;
    o["event_block_name"] = r.blockName;
    if (!r.method.empty() || !r.phase.empty()) {
        o["method"] = r.method.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.method);
        o["phase"] = r.phase;
    }
    o["event_name"] = r.eventName;
    o["instruction_id"] = r.instructionId;
    o["occurrence"] = r.occurrence;
    o["match"] = matchModeName(r.match);
    o["a"] = sideJson(r.a);
    o["b"] = sideJson(r.b);
    o["delta_p50"] = jnum(r.deltaP50);
    o["ratio"] = jnum(r.ratio);
    o["p_value"] = r.pValue ? jnum(*r.pValue) : nlohmann::json(nullptr);
    o["exact_test"] = r.exactTest;
    o["ci_low"] = r.ci ? jnum(r.ci->low) : nlohmann::json(nullptr);
    o["ci_high"] = r.ci ? jnum(r.ci->high) : nlohmann::json(nullptr);
    o["verdict"] = verdictName(r.verdict);
    o["ratio_only"] = r.ratioOnly;
    o["framework"] = r.framework;
    o["nested"] = r.nested;
    o["op_type"] = r.opType;
    o["backend"] = r.backend;
    o["module"] = r.module;
    o["contribution"] = jnum(r.contribution);
    return o;
}

nlohmann::json totalsJson(const std::vector<DiffTotal> &v)
{
    nlohmann::json a = nlohmann::json::array();
    for (const DiffTotal &t : v)
        a.push_back({ { "key", t.key }, { "a", jnum(t.a) }, { "b", jnum(t.b) }, { "delta", jnum(t.delta()) },
            { "rows", t.rows } });
    return a;
}

std::string verdictText(const DiffRow &r)
{
    std::string v = verdictName(r.verdict);
    if (r.ratioOnly
        && (r.verdict == Verdict::Slower || r.verdict == Verdict::Faster || r.verdict == Verdict::Unchanged))
        v += "*";
    return v;
}

std::string shortNum(double v)
{
    if (std::isnan(v))
        return "-";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return fmt::format("{:.6g}", v);
}

} // namespace

std::vector<std::string> diffColumnNames(TimeScale unit)
{
    const std::string u = fmt::format(" ({})", timeScaleName(unit));
    return { "event_block_name", "event_name", "instruction_id", "occurrence", "match", "runs_a", "runs_b", "p10_a" + u,
        "p50_a" + u, "p90_a" + u, "avg_a" + u, "p10_b" + u, "p50_b" + u, "p90_b" + u, "avg_b" + u, "delta_p50" + u,
        "ratio", "p_value", "ci_low" + u, "ci_high" + u, "verdict", "ratio_only", "contribution", "event_name_b",
        "op_type", "backend", "module", "pairing" };
}

std::string formatDiffDelimited(const LatencyDiff &diff, char sep)
{
    std::string out;
    auto cols = diffColumnNames(diff.unit);
    // Runs of a method or phase (diffSessions): two last columns say which.
    const bool scoped = !diff.byMethodPhase.empty();
    if (scoped) {
        cols.emplace_back("method");
        cols.emplace_back("phase");
    }
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (i)
            out += sep;
        out += cell(cols[i], sep);
    }
    out += '\n';
    for (const DiffRow &r : diff.rows) {
        auto stat = [](const DiffSide &s, int which) -> std::string {
            if (!s.perf)
                return {};
            const PerfData &p = *s.perf;
            return num(which == 0 ? p.p10 : which == 1 ? p.p50 : which == 2 ? p.p90 : p.avg);
        };
        const bool both = r.a.perf && r.b.perf;
        // `pairing` is the same on every row: how A and B were paired.
        std::vector<std::string> cells = {
            r.blockName,
            r.eventName,
            std::to_string(r.instructionId),
            std::to_string(r.occurrence),
            matchModeName(r.match),
            r.a.perf ? std::to_string(r.a.perf->raw.size()) : std::string(),
            r.b.perf ? std::to_string(r.b.perf->raw.size()) : std::string(),
            stat(r.a, 0),
            stat(r.a, 1),
            stat(r.a, 2),
            stat(r.a, 3),
            stat(r.b, 0),
            stat(r.b, 1),
            stat(r.b, 2),
            stat(r.b, 3),
            both ? num(r.deltaP50) : std::string(),
            both ? num(r.ratio) : std::string(),
            opt(r.pValue),
            r.ci ? num(r.ci->low) : std::string(),
            r.ci ? num(r.ci->high) : std::string(),
            verdictName(r.verdict),
            r.ratioOnly ? "True" : "False",
            num(r.contribution),
            r.b.label,
            r.opType,
            r.backend,
            r.module,
            pairingName(diff.pairing),
        };
        if (scoped) {
            cells.push_back(r.method);
            cells.push_back(r.phase);
        }
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (i)
                out += sep;
            out += cell(cells[i], sep);
        }
        out += '\n';
    }
    return out;
}

std::string formatDiffJson(const LatencyDiff &diff, const DiffOptions &options)
{
    nlohmann::json o;
    o["match"] = matchModeName(diff.mode);
    o["pairing"] = pairingName(diff.pairing);
    o["heuristic"] = diff.heuristic();
    o["banner"] = diff.banner;
    o["program_identity"] = { { "same_instructions", diff.identity.sameInstructions },
        { "same_graph", diff.identity.sameGraph }, { "reason", diff.identity.reason } };
    o["paired_rows"] = diff.pairedRows;
    o["only_a_rows"] = diff.onlyARows;
    o["only_b_rows"] = diff.onlyBRows;
    o["caveats"] = diff.caveats;
    o["unit"] = std::string(timeScaleName(diff.unit));
    o["alpha"] = options.alpha;
    o["min_change"] = options.minChange;
    o["bootstrap"] = { { "iterations", options.bootstrap.iterations }, { "level", options.bootstrap.level },
        { "seed", options.bootstrap.seed } };
    o["notes"] = diff.notes;
    nlohmann::json counts;
    for (Verdict v :
        { Verdict::Slower, Verdict::Faster, Verdict::Unchanged, Verdict::OnlyA, Verdict::OnlyB, Verdict::NoData })
        counts[verdictName(v)] = diff.count(v);
    o["counts"] = counts;
    nlohmann::json rows = nlohmann::json::array();
    for (const DiffRow &r : diff.rows)
        rows.push_back(rowJson(r));
    o["rows"] = rows;
    nlohmann::json blocks = nlohmann::json::array();
    for (const BlockTotal &t : diff.blockTotals) {
        nlohmann::json b = rowJson(t.row);
        b["source"] = t.source;
        blocks.push_back(b);
    }
    o["block_totals"] = blocks;
    o["total"] = { { "a", jnum(diff.total.a) }, { "b", jnum(diff.total.b) }, { "delta", jnum(diff.total.delta()) },
        { "rows", diff.total.rows } };
    if (!diff.byMethodPhase.empty())
        o["by_method_phase"] = totalsJson(diff.byMethodPhase);
    o["by_op_type"] = totalsJson(diff.byOpType);
    o["by_backend"] = totalsJson(diff.byBackend);
    o["by_module"] = totalsJson(diff.byModule);
    return jsonDocument(o);
}

std::string formatDiffText(const LatencyDiff &diff, std::size_t maxRows)
{
    const std::string u(timeScaleName(diff.unit));
    std::string out;
    if (!diff.banner.empty())
        out += diff.banner + "\n";
    out += fmt::format("match: {}\n", matchModeName(diff.mode));
    for (const std::string &n : diff.notes)
        out += "note: " + n + "\n";
    for (const std::string &c : diff.caveats)
        out += "caveat: " + c + "\n";
    out += fmt::format("rows: {} slower, {} faster, {} unchanged, {} only in A, {} only in B\n\n",
        diff.count(Verdict::Slower), diff.count(Verdict::Faster), diff.count(Verdict::Unchanged),
        diff.count(Verdict::OnlyA), diff.count(Verdict::OnlyB));
    // Rows of several methods or phases: the block column names them.
    const bool grouped = diff.byMethodPhase.size() > 1;
    auto where = [grouped](const DiffRow &r) {
        if (!grouped)
            return r.blockName;
        return r.method.empty() ? r.phase : r.phase == "all" ? r.method : r.method + ":" + r.phase;
    };
    const std::size_t bw = grouped ? 28 : 10;
    auto line = [&](const std::string &block, const std::string &name, const std::string &instr, const std::string &a,
                    const std::string &b, const std::string &d, const std::string &ratio, const std::string &p,
                    const std::string &verdict) {
        return fmt::format("{:<{}} {:<42} {:>5} {:>12} {:>12} {:>12} {:>8} {:>9}  {}\n", block.substr(0, bw), bw,
            name.size() > 42 ? name.substr(0, 41) + "~" : name, instr, a, b, d, ratio, p, verdict);
    };
    out += line(grouped ? "method:phase" : "block", "event", "instr", "p50 A (" + u + ")", "p50 B (" + u + ")",
        "delta (" + u + ")", "ratio", "p", "verdict");
    std::size_t shown = 0;
    for (const DiffRow &r : diff.rows) {
        if (maxRows && shown++ >= maxRows) {
            out += fmt::format("... {} more rows (use --tsv or --json for all)\n", diff.rows.size() - maxRows);
            break;
        }
        std::string name = r.eventName;
        if (!r.b.label.empty() && r.b.label != r.eventName && !r.a.events.empty())
            name += " ~ " + r.b.label;
        const bool both = r.a.perf && r.b.perf;
        out += line(where(r), name, std::to_string(r.instructionId), shortNum(p50(r.a)), shortNum(p50(r.b)),
            both ? shortNum(r.deltaP50) : "-", both ? fmt::format("{:.3f}", r.ratio) : "-",
            r.pValue ? fmt::format("{:.2g}", *r.pValue) : "-", verdictText(r));
    }
    out += "\nblock totals (per-run)\n";
    for (const BlockTotal &t : diff.blockTotals)
        out += line(where(t.row), t.source, "", shortNum(p50(t.row.a)), shortNum(p50(t.row.b)),
            shortNum(t.row.deltaP50), fmt::format("{:.3f}", t.row.ratio),
            t.row.pValue ? fmt::format("{:.2g}", *t.row.pValue) : "-", verdictText(t.row));
    auto group = [&](const char *title, const std::vector<DiffTotal> &v) {
        if (v.empty())
            return;
        out += fmt::format("\nby {} (sum of p50, {})\n", title, u);
        for (const DiffTotal &t : v)
            out += fmt::format("  {:<48} {:>12} {:>12} {:>12}\n", t.key.size() > 48 ? t.key.substr(0, 47) + "~" : t.key,
                shortNum(t.a), shortNum(t.b), shortNum(t.delta()));
    };
    if (grouped) {
        // One total per method and phase: a sum across them would add a prefill to a decode step.
        out += fmt::format("\ntotal of operator rows per method and phase (sum of p50, {})\n", u);
        for (const DiffTotal &t : diff.byMethodPhase)
            out += fmt::format("  {:<48} A {:>12}  B {:>12}  delta {:>12}\n", t.key, shortNum(t.a), shortNum(t.b),
                shortNum(t.delta()));
    } else {
        out += fmt::format("\ntotal of operator rows (sum of p50, {}): A {}  B {}  delta {}\n", u,
            shortNum(diff.total.a), shortNum(diff.total.b), shortNum(diff.total.delta()));
    }
    group("op type", diff.byOpType);
    group("backend", diff.byBackend);
    group("module", diff.byModule);
    bool anyRatioOnly = false;
    for (const DiffRow &r : diff.rows)
        anyRatioOnly = anyRatioOnly || r.ratioOnly;
    if (anyRatioOnly)
        out += "\n* fewer than 5 runs on a side: verdict from the ratio alone (no significance test)\n";
    return out;
}

bool slowerThan(const LatencyDiff &diff, double percent, std::string *why)
{
    bool any = false;
    auto check = [&](const DiffRow &r, const std::string &what) {
        if (r.verdict != Verdict::Slower || !(r.ratio > 1.0 + percent / 100.0))
            return;
        any = true;
        if (why)
            *why += fmt::format("{} slower by {:.1f}% (p50 {} -> {})\n", what, (r.ratio - 1.0) * 100.0,
                shortNum(p50(r.a)), shortNum(p50(r.b)));
    };
    for (const DiffRow &r : diff.rows)
        check(r, fmt::format("{} / {} (instruction {})", r.blockName, r.eventName, r.instructionId));
    for (const BlockTotal &t : diff.blockTotals)
        check(t.row, fmt::format("{} total ({})", t.blockName, t.source));
    return any;
}

} // namespace etscope
