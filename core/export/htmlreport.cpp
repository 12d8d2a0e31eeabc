#include "export/htmlreport.h"

#include "common/jsontext.h"
#include "common/numberformat.h"
#include "events/backendevents.h"
#include "events/blockstats.h"
#include "events/inspectortable.h"
#include "export/reportbackend.h"
#include "export/reporthistory.h"

#include "analysis/coverage.h"
#include "analysis/runs.h"
#include "etrecord/modulerollup.h"
#include "etrecord/modulestack.h"
#include "graph/programgraph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

namespace etscope {

namespace {

using std::string;
using std::string_view;

string esc(string_view s)
{
    return htmlEscaped(s);
}

// Labels in charts are shortened; the full text stays in the SVG <title> tooltip.
string shorten(const string &s, std::size_t max)
{
    if (s.size() <= max)
        return s;
    std::size_t cut = max - 1;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut; // not inside a UTF-8 sequence
    return s.substr(0, cut) + "\xE2\x80\xA6";
}

// The window's number format (common/numberformat.h): six significant digits, positional.
string num(double v)
{
    return std::isfinite(v) ? significantText(v) : "–";
}

// "1 run", "50 runs".
string counted(std::size_t n, const char *one, const char *many)
{
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

string unitOf(const Session &s)
{
    return string(timeScaleName(s.inputs.time.target));
}

// "device7/etdump.etdp": recordings are often all named etdump.etdp.
string fileName(const string &p)
{
    const std::filesystem::path path(p);
    const string dir = path.parent_path().filename().string();
    return dir.empty() ? path.filename().string() : dir + "/" + path.filename().string();
}

constexpr const char *kCss = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
header{background:#1f2d3d;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}header p{margin:4px 0 0;color:#c9d1d9}
main{padding:8px 28px 40px;max-width:1400px}h2{margin:28px 0 8px;font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:14px;margin:14px 0 4px}.muted{color:#656d76}.warn{color:#9a6700}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}td.n{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer}.kv td:first-child{font-weight:600;background:#f6f8fa}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}.card{border:1px solid #d0d7de;border-radius:6px;padding:8px 14px;min-width:120px}
.card b{display:block;font-size:20px}.grid{display:flex;flex-wrap:wrap;gap:10px}
svg{font:11px system-ui,sans-serif;background:#fff}svg text{fill:#1f2328}.scroll{overflow-x:auto}
nav a{margin-right:14px}
)css";

// Sorts a table.sortable by the clicked column: numbers by data-v, text otherwise.
constexpr const char *kJs = R"js(
document.querySelectorAll('table.sortable th').forEach(function(th,i){th.addEventListener('click',function(){
var b=th.closest('table').tBodies[0],rows=Array.from(b.rows),d=th.dataset.dir==='a'?-1:1;th.dataset.dir=d>0?'a':'d';
rows.sort(function(x,y){var a=x.cells[i].dataset.v,c=y.cells[i].dataset.v;
if(a!==undefined&&c!==undefined)return (parseFloat(a)-parseFloat(c))*d;
return x.cells[i].textContent.localeCompare(y.cells[i].textContent)*d;});
rows.forEach(function(r){b.appendChild(r);});});});
document.documentElement.dataset.sortable='on';
)js";

// ---- charts -----------------------------------------------------------------------------

struct Bar {
    string label;
    double value = 0;
    string tooltip;
};

string barChart(const string &id, const std::vector<Bar> &bars, const string &unit, const char *color)
{
    const int labelW = 300, barW = 460, rowH = 20, top = 8;
    const int h = top + rowH * static_cast<int>(bars.size()) + 24;
    double max = 0;
    for (const auto &b : bars)
        if (std::isfinite(b.value))
            max = std::max(max, b.value);
    string s = fmt::format(R"(<svg id="{}" class="chart" role="img" width="{}" height="{}" viewBox="0 0 {} {}">)", id,
        labelW + barW + 90, h, labelW + barW + 90, h);
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto &b = bars[i];
        const double w = max > 0 && std::isfinite(b.value) ? b.value / max * barW : 0;
        const int y = top + static_cast<int>(i) * rowH;
        s += fmt::format(R"(<g class="bar"><title>{}</title><text x="{}" y="{}" text-anchor="end">{}</text>)",
            esc(b.tooltip.empty() ? b.label : b.tooltip), labelW - 6, y + 14, esc(shorten(b.label, 46)));
        s += fmt::format(
            R"(<rect x="{}" y="{}" width="{:.2f}" height="{}" fill="{}"/>)", labelW, y + 3, w, rowH - 6, color);
        s += fmt::format(
            R"(<text x="{:.2f}" y="{}">{} {}</text></g>)", labelW + w + 4, y + 14, num(b.value), esc(unit));
    }
    s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#8c959f"/>)", labelW, top, labelW,
        top + rowH * static_cast<int>(bars.size()));
    s += "</svg>\n";
    return s;
}

string histogram(const string &id, const string &title, const EventPerf &p, const string &unit)
{
    const int W = 330, H = 150, left = 36, bottom = 28, top = 22, bins = 20;
    std::vector<double> v;
    for (double d : p.raw)
        if (std::isfinite(d))
            v.push_back(d);
    string s
        = fmt::format(R"(<svg id="{}" class="chart histogram" role="img" width="{}" height="{}" viewBox="0 0 {} {}">)",
            id, W, H, W, H);
    s += fmt::format(
        R"(<title>{}</title><text x="4" y="14" font-weight="600">{}</text>)", esc(title), esc(shorten(title, 48)));
    if (v.empty())
        return s + "</svg>";
    // Range of the finite runs: PerfData's min/max are NaN as soon as one run is (numpy's rule).
    const auto [minIt, maxIt] = std::minmax_element(v.begin(), v.end());
    const double lo = *minIt, hi = *maxIt > *minIt ? *maxIt : *minIt + 1e-12;
    std::vector<int> counts(bins, 0);
    for (double d : v) {
        const double f = (d - lo) / (hi - lo) * bins; // inf/inf = NaN when the range overflows
        ++counts[std::isfinite(f) ? static_cast<int>(std::clamp(f, 0.0, double(bins - 1))) : 0];
    }
    const int maxCount = *std::max_element(counts.begin(), counts.end());
    const double bw = double(W - left - 8) / bins, ph = H - top - bottom;
    for (int i = 0; i < bins; ++i) {
        const double bh = maxCount ? counts[i] * ph / maxCount : 0;
        s += fmt::format(
            R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="#54aeff"><title>{} – {} {}: {}</title></rect>)",
            left + i * bw, top + ph - bh, std::max(0.5, bw - 1), bh, num(lo + i * (hi - lo) / bins),
            num(lo + (i + 1) * (hi - lo) / bins), esc(unit), counted(std::size_t(counts[i]), "run", "runs"));
    }
    const double x50 = left + (p.p50 - lo) / (hi - lo) * (W - left - 8);
    if (std::isfinite(x50))
        s += fmt::format(
            R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#cf222e" stroke-dasharray="3,2"/>)", x50, top,
            H - bottom);
    s += fmt::format(R"(<text x="{}" y="{}">{}</text><text x="{}" y="{}" text-anchor="end">{} {}</text>)", left,
        H - bottom + 14, num(lo), W - 8, H - bottom + 14, num(hi), esc(unit));
    s += fmt::format(R"(<text x="{}" y="{}" class="muted">p50 {} · {}</text>)", left, H - 4, num(p.p50),
        counted(v.size(), "run", "runs"));
    s += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", left - 4, top + 8, maxCount);
    return s + "</svg>\n";
}

struct Span {
    std::uint64_t start, end;
    string name;
    bool delegated;
};

// Flame-style timeline of one run: depth = how many events enclose the event.
string timeline(const std::vector<Span> &spansIn, double ticksPerUnit, const string &unit)
{
    std::vector<Span> spans = spansIn;
    std::sort(spans.begin(), spans.end(),
        [](const Span &a, const Span &b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
    std::uint64_t t0 = std::numeric_limits<std::uint64_t>::max(), t1 = 0;
    for (const auto &sp : spans) {
        t0 = std::min(t0, sp.start);
        t1 = std::max(t1, sp.end);
    }
    std::vector<int> depth(spans.size());
    std::vector<std::uint64_t> openEnds;
    int maxDepth = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        while (!openEnds.empty() && openEnds.back() <= spans[i].start)
            openEnds.pop_back();
        depth[i] = static_cast<int>(openEnds.size());
        maxDepth = std::max(maxDepth, depth[i]);
        openEnds.push_back(spans[i].end);
    }
    const int W = 1100, left = 10, rowH = 22, top = 8;
    const int H = top + (maxDepth + 1) * rowH + 30;
    const double span = t1 > t0 ? double(t1 - t0) : 1.0;
    string s = fmt::format(
        R"(<svg id="timeline" class="chart" role="img" width="{}" height="{}" viewBox="0 0 {} {}">)", W, H, W, H);
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const auto &sp = spans[i];
        const double x = left + double(sp.start - t0) / span * (W - 2 * left);
        const double w = std::max(0.5, double(sp.end - sp.start) / span * (W - 2 * left));
        const int y = top + depth[i] * rowH;
        const char *fill = sp.delegated                            ? "#8250df"
            : isFrameworkEventName(sp.name)                        ? "#8c959f"
            : sp.name == kOperatorCall || sp.name == kDelegateCall ? "#54aeff"
                                                                   : "#2da44e";
        s += fmt::format(
            R"(<g><title>{} · {} {}</title><rect x="{:.2f}" y="{}" width="{:.2f}" height="{}" fill="{}" stroke="#fff" stroke-width="0.5"/>)",
            esc(sp.name), num(double(sp.end - sp.start) / ticksPerUnit), esc(unit), x, y, w, rowH - 2, fill);
        if (w > 60)
            s += fmt::format(R"(<text x="{:.2f}" y="{}" fill="#fff" style="fill:#fff">{}</text>)", x + 3, y + 14,
                esc(shorten(sp.name, static_cast<std::size_t>(w / 6.5))));
        s += "</g>";
    }
    s += fmt::format(R"(<text x="{}" y="{}">0</text><text x="{}" y="{}" text-anchor="end">{} {}</text>)", left, H - 8,
        W - left, H - 8, num(span / ticksPerUnit), esc(unit));
    return s + "</svg>\n";
}

string colorOf(double severity)
{
    // The window's colours: graph::gapSeverityColor of analysis::gapSeverity; grey without a value.
    return (std::isnan(severity) ? graph::neutralColor() : graph::gapSeverityColor(severity)).hex();
}

// One cell per compared output in execution order, coloured as every gap view colours it: cool
// within the noise level (or the user's threshold), warm above it; black outline: flagged.
string gapHeatmap(const ReportGap &g)
{
    const int perRow = 32, cell = 22, left = 10, top = 10;
    const int rows = (static_cast<int>(g.rows.size()) + perRow - 1) / perRow;
    const int barW = 300, W = std::max(left * 2 + perRow * cell, left + barW + 40);
    const int H = top + std::max(1, rows) * cell + 64;
    string s = fmt::format(
        R"(<svg id="gap-heatmap" class="chart" role="img" width="{}" height="{}" viewBox="0 0 {} {}">)", W, H, W, H);
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
        const auto &r = g.rows[i];
        const int x = left + static_cast<int>(i % perRow) * cell, y = top + static_cast<int>(i / perRow) * cell;
        s += fmt::format(
            R"(<rect class="gapcell" data-instruction="{}" data-flagged="{}" x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="{}" stroke-width="{}"><title>instruction {} {} — {} {}{}{}</title></rect>)",
            r.instructionId, r.flagged ? 1 : 0, x, y, cell - 2, cell - 2, colorOf(r.severity),
            r.flagged ? "#000" : "#fff", r.flagged ? 2 : 1, r.instructionId, esc(r.label), esc(g.metric), num(r.worst),
            std::isnan(r.worst) ? string()
                                : fmt::format(" ({} the {})", r.flagged ? "above" : "within",
                                    g.userThreshold ? "threshold" : "noise level"),
            r.error.empty() ? string() : " — " + esc(r.error));
    }
    // The window's legend: what is compared and how it is judged, then the scale.
    const int ly = top + std::max(1, rows) * cell + 8;
    s += fmt::format(R"(<text x="{}" y="{}" id="gap-legend">{}</text>)", left, ly + 10, esc(g.legend));
    s += R"(<defs><linearGradient id="gap-scale">)";
    for (int k = 0; k <= 20; ++k)
        s += fmt::format(R"(<stop offset="{}" stop-color="{}"/>)", k / 20.0, colorOf(k / 20.0));
    s += "</linearGradient></defs>";
    const int by = ly + 18;
    s += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="10" fill="url(#gap-scale)"/>)svg", left, by, barW);
    s += fmt::format(
        R"(<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" stroke="#1f2328"/>)", left + barW / 2, by - 2, by + 12);
    s += fmt::format(R"(<text x="{}" y="{}">exact</text><text x="{}" y="{}" text-anchor="middle">noise level</text>)"
                     R"(<text x="{}" y="{}" text-anchor="end">10⁴× noise</text>)",
        left, by + 24, left + barW / 2, by + 24, left + barW, by + 24);
    return s + "</svg>\n";
}

string waterfall(const ReportDiff &d)
{
    struct Step {
        string label;
        double delta;
    };
    double baseTotal = 0, otherTotal = 0;
    std::vector<Step> steps;
    for (const auto &r : d.rows) {
        const double b = std::isfinite(r.base) ? r.base : 0, o = std::isfinite(r.other) ? r.other : 0;
        baseTotal += b;
        otherTotal += o;
        if (o - b != 0)
            steps.push_back({ r.label, o - b });
    }
    std::stable_sort(
        steps.begin(), steps.end(), [](const Step &a, const Step &b) { return std::abs(a.delta) > std::abs(b.delta); });
    constexpr std::size_t kShown = 20;
    if (steps.size() > kShown) {
        double rest = 0;
        for (std::size_t i = kShown; i < steps.size(); ++i)
            rest += steps[i].delta;
        const std::size_t n = steps.size() - kShown;
        steps.resize(kShown);
        steps.push_back({ fmt::format("{} other events", n), rest });
    }
    // Bars: base total, the steps floating from the running sum, the comparison's total.
    double lo = 0, hi = std::max(baseTotal, otherTotal), run = baseTotal;
    for (const auto &st : steps) {
        run += st.delta;
        lo = std::min(lo, run);
        hi = std::max(hi, run);
    }
    const int labelW = 300, barW = 560, rowH = 20, top = 8;
    const int n = static_cast<int>(steps.size()) + 2;
    const int H = top + n * rowH + 20, W = labelW + barW + 110;
    const double scale = hi > lo ? barW / (hi - lo) : 0;
    auto X = [&](double v) { return labelW + (v - lo) * scale; };
    string s = fmt::format(
        R"(<svg id="diff-waterfall" class="chart" role="img" width="{}" height="{}" viewBox="0 0 {} {}">)", W, H, W, H);
    auto row = [&](int i, const string &label, double from, double to, const char *fill, const string &text) {
        const int y = top + i * rowH;
        const double x0 = X(std::min(from, to)), x1 = X(std::max(from, to));
        s += fmt::format(R"(<g class="step"><title>{}: {}</title><text x="{}" y="{}" text-anchor="end">{}</text>)",
            esc(label), esc(text), labelW - 6, y + 14, esc(shorten(label, 46)));
        s += fmt::format(R"(<rect x="{:.2f}" y="{}" width="{:.2f}" height="{}" fill="{}"/>)", x0, y + 3,
            std::max(1.0, x1 - x0), rowH - 6, fill);
        s += fmt::format(R"(<text x="{:.2f}" y="{}">{}</text></g>)", x1 + 4, y + 14, esc(text));
    };
    row(0, d.baseName + " (total)", 0, baseTotal, "#8c959f", num(baseTotal) + " " + d.unit);
    run = baseTotal;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const double next = run + steps[i].delta;
        row(static_cast<int>(i) + 1, steps[i].label, run, next, steps[i].delta > 0 ? "#cf222e" : "#2da44e",
            (steps[i].delta > 0 ? "+" : "") + num(steps[i].delta) + " " + d.unit);
        run = next;
    }
    row(n - 1, d.otherName + " (total)", 0, otherTotal, "#1f6feb", num(otherTotal) + " " + d.unit);
    return s + "</svg>\n";
}

// ---- data ---------------------------------------------------------------------------------

bool chartable(const Event &e)
{
    return e.perfData && !e.isOperatorCall() && !e.isFramework();
}

string eventLabel(const EventBlock &b, const Event &e)
{
    // The instruction id tells repeated operators (three convolutions) apart. A backend event
    // etscope decodes (a Vulkan dispatch's JSON) is named by its operator, as etscope's own
    // views name it; the raw string stays in the Inspector table below.
    string base(e.name);
    if (e.isDelegatedOp)
        if (const BackendEvent d = decodeBackendEvent(e); d.decoded())
            if (string label = backendOpLabel(d); !label.empty())
                base = label;
    const string name = e.instructionId >= 0 ? fmt::format("{} #{}", base, e.instructionId) : base;
    return b.name == "Execute" ? name : b.name + " · " + name;
}

double executeTotal(const Session &s)
{
    double total = 0;
    for (const auto &b : s.blocks)
        for (const auto &e : b.events)
            if (e.name == kMethodExecute && e.perfData)
                for (double d : e.perfData->raw)
                    if (std::isfinite(d))
                        total += d;
    return total;
}

void appendTable(string &h, const std::vector<std::shared_ptr<const Session>> &sessions)
{
    const bool many = sessions.size() > 1;
    TableOptions opt;
    const TimeScale unit = sessions.front()->inputs.time.target;
    const auto headers = inspectorTableHeaders(unit, opt);
    h += R"(<div class="scroll"><table id="inspector" class="sortable"><thead><tr>)";
    if (many)
        h += "<th>file</th>";
    h += "<th>#</th>";
    for (const auto &hd : headers)
        h += "<th>" + esc(hd) + "</th>";
    h += "</tr></thead>\n<tbody>\n";
    for (const auto &s : sessions) {
        const auto rows = inspectorTableRows(s->blocks, opt);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Event &e = *rows[i].event;
            h += "<tr>";
            if (many)
                h += "<td>" + esc(fileName(s->inputs.etdump)) + "</td>";
            h += fmt::format(R"(<td class="n" data-v="{0}">{0}</td><td>{1}</td><td>{2}</td>)", i,
                esc(rows[i].block->name), esc(e.name));
            const double stats[6] = { e.perfData ? e.perfData->p10 : NAN, e.perfData ? e.perfData->p50 : NAN,
                e.perfData ? e.perfData->p90 : NAN, e.perfData ? e.perfData->avg : NAN,
                e.perfData ? e.perfData->min : NAN, e.perfData ? e.perfData->max : NAN };
            for (double v : stats) {
                if (std::isfinite(v)) // shown as the window shows it; every digit to sort by and in the tooltip
                    h += fmt::format(R"(<td class="n" data-v="{0}" title="{0}">{1}</td>)", pythonFloatRepr(v), num(v));
                else
                    h += "<td></td>";
            }
            h += "<td>" + esc(opTypesText(e.opTypes())) + "</td>";
            h += e.isDelegatedOp ? "<td>True</td>" : "<td>False</td>";
            h += "<td>" + esc(e.delegateBackendName().value_or("")) + "</td>";
            h += "<td>" + esc(e.perfData ? shorten(startTimeText(e.startTimes()), 120) : string()) + "</td>";
            h += "</tr>\n";
        }
    }
    h += "</tbody></table></div>\n";
}

} // namespace

namespace {
// Runs over time (analysis/runs.h), as `etscope-cli runs --json` gives them: the phases with
// their figures, time to first token, tokens/s and each phase's top shares. Every figure carries
// its full-precision value in data-v.
string runsSection(const Session &s)
{
    if (s.runTable.runs.size() < 2)
        return {};
    RunsOptions opt;
    auto report = analyzeRuns(s, opt);
    if (!report)
        return fmt::format(
            R"(<section id="runs"><h2>Runs</h2><p class="warn">{}</p></section>)", esc(report.error().message()));
    auto cell = [](std::optional<double> v, const char *suffix = "") {
        if (!v || !std::isfinite(*v))
            return string(R"(<td class="n">–</td>)");
        return fmt::format(R"(<td class="n" data-v="{:.17g}">{}{}</td>)", *v, num(*v), suffix);
    };
    string h = R"(<section id="runs"><h2>Runs</h2>)";
    h += fmt::format(R"(<p id="runs-rule">{} executed runs in {} generation(s); phases: {}</p>)", report->runs.size(),
        report->generations, esc(report->ruleLine.empty() ? phaseRuleName(report->rule) : report->ruleLine));
    if (report->timeToFirstTokenMs)
        h += fmt::format(R"(<p>Time to first token: <b id="ttft" data-v="{:.17g}">{} ms</b></p>)",
            *report->timeToFirstTokenMs, num(*report->timeToFirstTokenMs));
    h += R"(<table class="kv" id="runs-phases"><thead><tr><th>phase</th><th>runs</th><th>warm-up</th><th>outliers</th><th>median (ms)</th><th>p90 (ms)</th><th>total (ms)</th><th>tokens</th><th>tokens/s</th><th>share of the time</th></tr></thead><tbody>)";
    double all = 0;
    for (const PhaseFigures &f : report->phases)
        all += f.totalMs;
    for (const PhaseFigures &f : report->phases) {
        h += fmt::format(
            R"(<tr data-phase="{}"><td>{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td>)",
            esc(f.name), esc(f.name), f.runs, f.warmupRuns, f.outlierRuns);
        h += cell(f.medianMs) + cell(f.p90Ms) + cell(f.totalMs)
            + cell(f.tokens ? std::optional<double>(double(*f.tokens)) : std::nullopt) + cell(f.tokensPerS)
            + cell(all > 0 ? std::optional<double>(f.totalMs / all) : std::nullopt) + "</tr>";
    }
    h += "</tbody></table>";
    for (const PhaseFigures &f : report->phases) {
        if (f.shares.empty())
            continue;
        h += fmt::format(
            R"(<h3>{}: operator shares</h3><table class="kv" id="runs-shares-{}"><thead><tr><th>operator</th><th>total (ms)</th><th>share</th><th>calls</th></tr></thead><tbody>)",
            esc(f.name), esc(f.name));
        for (std::size_t i = 0; i < f.shares.size() && i < 10; ++i) {
            const ShareRow &r = f.shares[i];
            h += "<tr><td>" + esc(r.name) + "</td>" + cell(r.totalMs) + cell(r.share)
                + fmt::format(R"(<td class="n">{}</td></tr>)", r.calls);
        }
        h += "</tbody></table>";
    }
    for (const string &n : report->notes)
        h += "<p class=\"muted\">" + esc(n) + "</p>";
    return h + "</section>\n";
}

// How much of the time the events explain (analysis/coverage.h) over the runs the charts answer
// for: the shares below are shares of the explained part only, so the figure stands before them
// (a warning when low). data-v holds the explained fraction at full precision.
string coverageSection(const std::vector<EventBlock> &blocks, const TimeConversion &time, std::optional<double> wallMs)
{
    const CoverageReport report = analyzeCoverage(blocks, time, wallMs);
    const std::vector<string> lines = coverageSentences(report);
    if (lines.empty())
        return {};
    string h = fmt::format(
        R"(<section id="coverage"><h2>How much of the time is seen</h2><p id="coverage-headline"{} data-v="{:.17g}">{}</p>)",
        report.low() ? R"( class="warn")" : "", report.fraction(), esc(lines.front()));
    if (lines.size() > 1) {
        h += "<ul>";
        for (std::size_t i = 1; i < lines.size(); ++i)
            h += "<li>" + esc(lines[i]) + "</li>";
        h += "</ul>";
    }
    return h + "</section>\n";
}
} // namespace

string renderHtmlReport(const ReportInputs &in)
{
    string h;
    if (in.sessions.empty())
        return h;
    const Session &first = *in.sessions.front();
    const string unit = unitOf(first);
    h.reserve(1 << 20);
    h += R"(<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">)";
    // No network: everything is inline, and the policy forbids loading anything else.
    h += R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">)";
    h += R"(<meta name="viewport" content="width=device-width, initial-scale=1">)";
    h += "<title>etscope report — " + esc(fileName(first.inputs.etdump)) + (in.sessions.size() > 1 ? " and others" : "")
        + "</title><style>" + kCss + "</style></head><body>\n";
    h += "<header><h1>etscope report</h1><p>" + esc(first.inputs.etdump)
        + (in.sessions.size() > 1 ? fmt::format(" and {} more recordings", in.sessions.size() - 1) : string())
        + "</p></header><main>\n";
    h += R"(<nav><a href="#summary">Summary</a>)";
    if (first.runTable.runs.size() >= 2)
        h += R"(<a href="#runs">Runs</a>)";
    h += R"(<a href="#coverage">Coverage</a><a href="#charts">Charts</a>)";
    if (in.gap)
        h += R"(<a href="#gap">Numeric gap</a>)";
    if (in.diff)
        h += R"(<a href="#diff">Diff</a>)";
    if (in.decomposition)
        h += R"(<a href="#decompose">Error decomposition</a>)";
    if (in.graphDiff)
        h += R"(<a href="#graph-diff">Graph against graph</a>)";
    if (in.history)
        h += R"(<a href="#history">History</a>)";
    h += R"(<a href="#table">Inspector table</a></nav>)";

    // Summary.
    std::size_t blocks = 0, runs = 0, rows = 0;
    double total = 0;
    std::vector<string> warnings;
    for (const auto &s : in.sessions) {
        blocks += s->blocks.size();
        runs += countRecording(s->blocks).runs; // the window's and the CLI's count
        for (const auto &b : s->blocks) {
            for (const auto &w : b.warnings)
                warnings.push_back(fileName(s->inputs.etdump) + ": block " + b.name + ": " + w);
        }
        for (const auto &w : s->warnings)
            warnings.push_back(w);
        rows += inspectorTableRows(s->blocks).size();
        total += executeTotal(*s);
    }
    if (in.gap)
        for (const auto &w : in.gap->warnings)
            warnings.push_back("numeric gap: " + w);
    if (in.decomposition)
        for (const auto &w : in.decomposition->warnings)
            warnings.push_back("error decomposition: " + w);
    if (in.graphDiff)
        for (const auto &w : in.graphDiff->warnings)
            warnings.push_back("graph against graph: " + w);
    h += R"(<section id="summary"><h2>Summary</h2><div class="cards">)";
    auto card = [](std::size_t n, const char *one, const char *many) {
        return fmt::format(R"(<div class="card"><b>{}</b>{}</div>)", n, n == 1 ? one : many);
    };
    h += card(in.sessions.size(), "file", "files") + card(blocks, "event block", "event blocks")
        + card(runs, "run", "runs");
    h += fmt::format(R"(<div class="card"><b>{} {}</b>total Method::execute time</div>)", num(total), esc(unit))
        + card(rows, "table row", "table rows") + card(warnings.size(), "warning", "warnings") + "</div>";
    // Every input file: the recording, its companions, the program and its .ptd files (those left
    // out are in the warnings, with why).
    h += R"(<table class="kv" id="files"><thead><tr><th>file</th><th>debug buffer</th><th>ETRecord</th><th>program</th><th>program data (.ptd)</th><th>size</th><th>blocks</th><th>runs</th></tr></thead><tbody>)";
    for (const auto &s : in.sessions) {
        const std::size_t r = countRecording(s->blocks).runs;
        string data;
        for (const string &d : s->inputs.programData)
            data += (data.empty() ? "" : "<br>") + esc(d);
        const string program = s->inputs.program.empty() ? s->inputs.bundledProgram : s->inputs.program;
        h += fmt::format(
            R"(<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class="n">{} bytes</td><td class="n">{}</td><td class="n">{}</td></tr>)",
            esc(s->inputs.etdump), esc(s->inputs.debugBuffer), esc(s->inputs.etrecord), esc(program), data,
            s->etdump ? s->etdump->fileSize : 0, s->blocks.size(), r);
    }
    h += "</tbody></table>\n";
    if (in.decomposition)
        h += decompositionSummaryLine(*in.decomposition);
    if (in.graphDiff)
        h += graphDiffSummaryLine(*in.graphDiff);
    if (!warnings.empty()) {
        h += R"(<h3 class="warn">Warnings</h3><ul id="warnings">)";
        for (const auto &w : warnings)
            h += "<li>" + esc(w) + "</li>";
        h += "</ul>";
    }
    h += "</section>\n";

    h += runsSection(first);

    // Charts (from the first recording), over the runs in scope.
    auto scoped = scopeBlocks(first, in.scope);
    const std::vector<EventBlock> &chartBlocks = scoped ? scoped->blocks : first.blocks;
    h += coverageSection(chartBlocks, first.inputs.time, in.wallMs);
    h += R"(<section id="charts"><h2>Charts)";
    if (in.sessions.size() > 1)
        h += " <span class=\"muted\">(" + esc(fileName(first.inputs.etdump)) + ")</span>";
    h += "</h2>\n";
    if (scoped && first.runTable.rule != PhaseRule::None)
        h += fmt::format(R"(<p id="charts-scope">Runs: <b>{}</b> ({}){}</p>)", esc(scoped->label),
            esc(scoped->ruleLine),
            in.scope.whole() ? " — every phase mixed; the Runs section gives each phase's shares" : "");
    std::vector<std::pair<const EventBlock *, const Event *>> events;
    for (const auto &b : chartBlocks)
        for (const auto &e : b.events)
            if (chartable(e) && std::isfinite(e.perfData->avg))
                events.emplace_back(&b, &e);
    std::stable_sort(events.begin(), events.end(),
        [](const auto &a, const auto &b) { return a.second->perfData->avg > b.second->perfData->avg; });
    {
        std::vector<Bar> bars;
        for (std::size_t i = 0; i < events.size() && i < 15; ++i) {
            const auto &[b, e] = events[i];
            bars.push_back({ eventLabel(*b, *e), e->perfData->avg,
                fmt::format("{} — avg {} {}, p50 {}, p90 {}, {}", eventLabel(*b, *e), num(e->perfData->avg), unit,
                    num(e->perfData->p50), num(e->perfData->p90), counted(e->perfData->raw.size(), "run", "runs")) });
        }
        h += "<h3>Top events by average latency</h3>" + barChart("top-events", bars, unit, "#1f6feb");
    }
    h += R"(<h3>Latency histograms of the ten slowest events</h3><div class="grid" id="histograms">)";
    for (std::size_t i = 0; i < events.size() && i < 10; ++i)
        h += histogram(fmt::format("hist-{}", i), eventLabel(*events[i].first, *events[i].second),
            *events[i].second->perfData, unit);
    h += "</div>\n";

    if (first.etrecord) {
        const ModuleRollupNode root = buildModuleRollup(chartBlocks);
        std::vector<Bar> bars;
        auto addBar = [&](const ModuleRollupNode &n, int depth) {
            string indent; // en spaces: SVG text keeps them
            for (int k = 0; k < depth; ++k)
                indent += "\xE2\x80\x82\xE2\x80\x82";
            // Issue 23: calls spanning modules are counted once, in their common ancestor.
            string note;
            for (const SpanningCall &sc : n.spanning)
                note += fmt::format(
                    "; counted here, spanning {}: {} {} {}", fmt::join(sc.modules, ", "), sc.label, num(sc.time), unit);
            if (n.sharedCount)
                note += fmt::format("; also ran inside {} call(s) spanning other modules, counted under {} ({} {})",
                    n.sharedCount, n.sharedAt, num(n.sharedTotal), unit);
            // "(model)" for the root (the model itself), as the CLI's `modules` and the window name it.
            const string name = depth == 0 ? modulePathText({}) : moduleDisplayName(n.path);
            const string type = n.type.empty() ? string() : " (" + n.type + ")";
            bars.push_back({ indent + name + (n.sharedCount ? " (shared)" : ""), n.total,
                fmt::format("{}{} — {} {} over {}{}", name, type, num(n.total), unit,
                    counted(n.eventCount, "event", "events"), note) });
        };
        // The model first, then depth-first, indented by level, largest first among siblings.
        auto walk = [&](auto &&self, const ModuleRollupNode &n, int depth) -> void {
            std::vector<const ModuleRollupNode *> kids;
            for (const auto &c : n.children)
                kids.push_back(&c);
            std::stable_sort(kids.begin(), kids.end(), [](auto *a, auto *b) { return a->total > b->total; });
            for (const auto *c : kids) {
                if (bars.size() >= 40)
                    return;
                addBar(*c, depth);
                self(self, *c, depth + 1);
            }
        };
        addBar(root, 0);
        walk(walk, root, 1);
        h += "<h3>Module roll-up (sum of average latency per nn.Module; a call spanning modules counts once, in "
             "their common ancestor)</h3>"
            + barChart("module-rollup", bars, unit, "#8250df");
    }

    // Timeline: first run of the first block that executed the method (else the first block).
    if (first.etdump && !first.blocks.empty()) {
        const EventBlock *tb = &first.blocks.front();
        for (const auto &b : first.blocks)
            if (std::any_of(
                    b.events.begin(), b.events.end(), [](const Event &e) { return e.name == kMethodExecute; })) {
                tb = &b;
                break;
            }
        auto scale = first.inputs.time.scaleFactor();
        if (!tb->runIndices.empty() && tb->runIndices.front() < first.etdump->runs.size() && scale) {
            const RunData &run = first.etdump->runs[tb->runIndices.front()];
            const auto &pool = first.etdump->strings;
            std::vector<Span> spans;
            for (const auto &p : run.profileEvents) {
                const bool delegated = p.delegateDebugIdInt != -1 || p.delegateDebugIdStr != StringPool::Empty;
                string name = p.delegateDebugIdInt != -1 ? std::to_string(p.delegateDebugIdInt)
                    : delegated                          ? pool.str(p.delegateDebugIdStr)
                                                         : pool.str(p.name);
                spans.push_back({ p.startTime, std::max(p.startTime, p.endTime), std::move(name), delegated });
            }
            if (!spans.empty())
                h += "<h3>Timeline of the first run (" + esc(tb->name) + ")</h3><div class=\"scroll\">"
                    + timeline(spans, *scale, unit) + "</div>\n";
        }
    }
    h += "</section>\n";

    if (in.gap) {
        const auto &g = *in.gap;
        h += "<section id=\"gap\"><h2>Numeric gap (" + esc(g.metric) + ")</h2><p class=\"muted\">Against "
            + esc(g.reference) + ". " + counted(g.rows.size(), "compared output", "compared outputs")
            + " in execution order; warm and outlined in black: above the "
            + (g.userThreshold ? "threshold" : "noise level") + ".</p>";
        h += "<p id=\"gap-verdict\"><b>" + esc(g.verdict) + "</b></p>";
        h += gapHeatmap(g);
        std::vector<const ReportGapRow *> worst;
        for (const auto &r : g.rows)
            if (std::isfinite(r.worst))
                worst.push_back(&r);
        std::stable_sort(worst.begin(), worst.end(),
            [&](auto *a, auto *b) { return g.higherIsWorse ? a->worst > b->worst : a->worst < b->worst; });
        h += R"(<h3>Worst rows</h3><table id="gap-worst"><thead><tr><th>runtime op</th><th>instruction</th><th>gap</th><th>flagged</th></tr></thead><tbody>)";
        for (std::size_t i = 0; i < worst.size() && i < 10; ++i)
            h += fmt::format(R"(<tr><td>{}</td><td class="n">{}</td><td class="n" title="{}">{}</td><td>{}</td></tr>)",
                esc(worst[i]->label), worst[i]->instructionId, fullPrecisionText(worst[i]->worst), num(worst[i]->worst),
                worst[i]->flagged ? "above" : "");
        h += "</tbody></table></section>\n";
    }
    if (in.diff) {
        h += "<section id=\"diff\"><h2>Diff: " + esc(in.diff->otherName) + " against " + esc(in.diff->baseName)
            + "</h2><p class=\"muted\">Median (p50) latency per event, from the baseline's total to this recording's; "
              "red: slower, green: faster.</p>"
            + waterfall(*in.diff) + "</section>\n";
    }
    if (in.decomposition)
        h += decompositionSection(*in.decomposition);
    if (in.graphDiff)
        h += graphDiffSection(*in.graphDiff);
    if (in.history)
        h += historySection(*in.history);

    h += backendReportSection(first); // etscope's decoded backend operators (reportbackend.h)
    h += fmt::format(
        R"(<section id="table"><h2>Inspector table <span class="muted">({} rows, {}; click a header to sort)</span></h2>)",
        rows, esc(unit));
    appendTable(h, in.sessions);
    h += "</section>\n<footer class=\"muted\"><p>Generated by " + esc(in.generator) + ".</p></footer></main>\n<script>"
        + kJs + "</script></body></html>\n";
    return h;
}

} // namespace etscope
