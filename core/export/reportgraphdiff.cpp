#include "export/reportgraphdiff.h"

#include "analysis/noise.h"
#include "common/jsontext.h"
#include "common/numberformat.h"
#include "evalgap/graphdiff.h"
#include "export/reportcells.h"
#include "graph/programgraph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {

using std::string;

string esc(std::string_view s)
{
    return htmlEscaped(s);
}

using reportcells::number;
using reportcells::sortValue;

string handleText(const std::optional<std::int64_t> &h)
{
    return h ? std::to_string(*h) : string();
}

string colorOf(double severity)
{
    // The colours of every gap view: graph::gapSeverityColor of analysis::gapSeverity; grey without a value.
    return (std::isnan(severity) ? graph::neutralColor() : graph::gapSeverityColor(severity)).hex();
}

string layerTitle(const ReportGraphDiff &d, std::size_t i)
{
    const auto &r = d.rows[i];
    string t = fmt::format("layer {} a:{} / b:{} ({})", i + 1, r.aName, r.bName, r.aOp);
    if (!r.error.empty())
        return t + " — not compared: " + r.error;
    return t
        + fmt::format(" — {} {} ({} the {} {})", d.metric, number(r.worst), r.flagged ? "above" : "within",
            d.userThreshold ? "threshold" : "noise level", number(r.noise));
}

// One column per aligned layer in graph a's order, its height and colour the one scale of the gap
// views (exact at the bottom, the noise level half way, 10⁴× the noise level at the top).
string layerChart(const ReportGraphDiff &d)
{
    const int n = static_cast<int>(d.rows.size());
    const int left = 78, top = 24, plotH = 150, bottom = 40;
    const double colW = std::clamp(1000.0 / std::max(1, n), 3.0, 24.0);
    const int W = left + static_cast<int>(std::ceil(colW * n)) + 40, H = top + plotH + bottom;
    string s = fmt::format(
        R"(<svg id="graph-diff-chart" class="chart" role="img" width="{}" height="{}" viewBox="0 0 {} {}">)", W, H, W,
        H);
    auto Y = [&](double severity) { return top + plotH * (1.0 - severity); };
    // Axis: the scale's three marks, the noise level dashed.
    s += fmt::format(R"(<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" stroke="#8c959f"/>)", left, top, top + plotH);
    s += fmt::format(
        R"(<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#8c959f"/>)", left, W - 10, top + plotH, top + plotH);
    s += fmt::format(
        R"(<line id="graph-diff-noise" x1="{0}" x2="{1}" y1="{2:.1f}" y2="{2:.1f}" stroke="#1f2328" stroke-dasharray="4,3"/>)",
        left, W - 10, Y(0.5));
    s += fmt::format(R"(<text x="{}" y="{:.1f}" text-anchor="end">10⁴× {}</text>)", left - 4, Y(1.0) + 4,
        d.userThreshold ? "thr." : "noise");
    s += fmt::format(R"(<text x="{}" y="{:.1f}" text-anchor="end">{}</text>)", left - 4, Y(0.5) + 4,
        d.userThreshold ? "threshold" : "noise level");
    s += fmt::format(R"(<text x="{}" y="{:.1f}" text-anchor="end">exact</text>)", left - 4, Y(0.0));
    for (int i = 0; i < n; ++i) {
        const auto &r = d.rows[std::size_t(i)];
        const double x = left + i * colW;
        const double sev = std::isnan(r.severity) ? 1.0 : std::max(r.severity, 0.01); // exact: a sliver
        const double y = Y(sev);
        s += fmt::format(
            R"(<rect class="layer" data-layer="{}" data-flagged="{}" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}"{}><title>{}</title></rect>)",
            i + 1, r.flagged ? 1 : 0, x + 0.5, y, std::max(1.0, colW - 1), top + plotH - y, colorOf(r.severity),
            std::isnan(r.severity) ? R"( fill-opacity="0.4")" : "", esc(layerTitle(d, std::size_t(i))));
    }
    // Layer numbers: about twenty ticks.
    const int step = std::max(1, (n + 19) / 20);
    for (int i = 0; i < n; i += step)
        s += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>)", left + (i + 0.5) * colW,
            top + plotH + 14, i + 1);
    s += fmt::format(R"(<text x="{}" y="{}">layer (graph a's execution order)</text>)", left, top + plotH + 32);
    if (d.firstParting >= 0) {
        const double x = left + (d.firstParting + 0.5) * colW;
        s += fmt::format(
            R"(<line id="graph-diff-parting" x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#cf222e" stroke-width="1.5"/>)",
            x, top - 10, top + plotH);
        s += fmt::format(R"(<text x="{:.1f}" y="{}" fill="#cf222e" style="fill:#cf222e">parts at layer {}</text>)",
            x + 4, top - 12, d.firstParting + 1);
    }
    return s + "</svg>\n";
}

string unalignedList(const char *side, const string &graph, const std::vector<ReportUnalignedNode> &ns)
{
    string h = fmt::format(R"(<h3>Unaligned in {} ({}): {}</h3>)", side, esc(graph), ns.size());
    if (ns.empty())
        return h;
    h += fmt::format(R"(<ul id="graph-diff-unaligned-{}">)", side);
    for (const auto &n : ns)
        h += "<li>" + esc(n.name) + " <span class=\"muted\">(" + esc(n.op)
            + (n.handle ? ", debug handle " + std::to_string(*n.handle) : string()) + ")</span></li>";
    return h + "</ul>";
}

} // namespace

ReportGraphDiff reportGraphDiff(const evalgap::GraphDiff &d)
{
    ReportGraphDiff r;
    r.etrecord = d.etrecord;
    r.aGraph = d.aGraph;
    r.bGraph = d.bGraph;
    r.metric = analysis::metricName(d.metric);
    r.judgedBy = analysis::thresholdDescription(d.metric, d.threshold);
    r.userThreshold = d.threshold.has_value();
    r.verdict = d.verdict();
    r.firstParting = d.firstParting();
    r.warnings = d.warnings;
    for (const auto &x : d.rows) {
        ReportGraphDiffRow row;
        row.aName = x.aName;
        row.bName = x.bName;
        row.aOp = x.aOp;
        row.bOp = x.bOp;
        row.aHandle = x.aHandle;
        row.bHandle = x.bHandle;
        row.alignedBy = evalgap::alignedByName(x.by);
        row.worst = x.worst(d.direction);
        row.noise = x.gap.empty() ? std::nan("") : x.worstNoise(d.direction);
        row.severity = x.gap.empty() ? std::nan("") : analysis::gapSeverity(x.excess(d.metric, d.direction), x.flagged);
        row.flagged = x.flagged;
        row.error = x.error;
        r.rows.push_back(std::move(row));
    }
    auto unaligned = [](const std::vector<evalgap::UnalignedNode> &ns) {
        std::vector<ReportUnalignedNode> out;
        for (const auto &n : ns)
            out.push_back(ReportUnalignedNode { n.name, n.op, n.handle });
        return out;
    };
    r.unalignedA = unaligned(d.unalignedA);
    r.unalignedB = unaligned(d.unalignedB);
    return r;
}

string graphDiffSummaryLine(const ReportGraphDiff &d)
{
    return "<p id=\"summary-graph-diff\"><b>Graph against graph</b> (" + esc(d.aGraph) + " vs " + esc(d.bGraph)
        + "): " + esc(d.verdict) + R"( <a href="#graph-diff">(details)</a></p>)";
}

string graphDiffSection(const ReportGraphDiff &d)
{
    string h
        = "<section id=\"graph-diff\"><h2>Graph against graph: " + esc(d.aGraph) + " vs " + esc(d.bGraph) + "</h2>";
    h += "<table class=\"kv\" id=\"graph-diff-graphs\"><tbody><tr><td>a (reference)</td><td>" + esc(d.aGraph)
        + "</td></tr><tr><td>b</td><td>" + esc(d.bGraph) + "</td></tr><tr><td>ETRecord</td><td>" + esc(d.etrecord)
        + "</td></tr><tr><td>metric</td><td>" + esc(d.metric) + " per aligned layer, flagged above the "
        + esc(d.judgedBy) + "</td></tr></tbody></table>";
    h += "<p class=\"muted\">Both graphs run by the built-in evaluator on the same inputs; nodes aligned by debug "
         "handle, then from_node provenance, then position. Nodes no rule aligns are listed below, never paired by "
         "guess.</p>";
    h += R"(<p id="graph-diff-verdict"><b>)" + esc(d.verdict) + "</b></p>";
    if (!d.warnings.empty()) {
        h += R"(<ul class="warn" id="graph-diff-warnings">)";
        for (const auto &w : d.warnings)
            h += "<li>" + esc(w) + "</li>";
        h += "</ul>";
    }
    h += fmt::format("<h3>Gap per aligned layer ({} {}; height and colour: the scale of every gap view, dashed: "
                     "the {}; pale grey: not compared)</h3>",
        d.rows.size(), d.rows.size() == 1 ? "layer" : "layers", d.userThreshold ? "threshold" : "noise level");
    h += "<div class=\"scroll\">" + layerChart(d) + "</div>";
    h += R"(<h3>Aligned layers</h3><div class="scroll"><table id="graph-diff-table" class="sortable"><thead><tr>)"
         R"(<th>layer</th><th>a node</th><th>a op</th><th>a handle</th><th>b node</th><th>b op</th><th>b handle</th>)"
         "<th>aligned by</th><th>"
        + esc(d.metric) + "</th><th>noise</th><th>flagged</th><th>error</th></tr></thead><tbody>\n";
    for (std::size_t i = 0; i < d.rows.size(); ++i) {
        const auto &r = d.rows[i];
        h += fmt::format(
            R"(<tr data-layer="{0}" data-flagged="{1}"><td class="n" data-v="{0}">{0}</td><td>{2}</td><td>{3}</td><td class="n">{4}</td><td>{5}</td><td>{6}</td><td class="n">{7}</td><td>{8}</td>)",
            i + 1, r.flagged ? 1 : 0, esc(r.aName), esc(r.aOp), handleText(r.aHandle), esc(r.bName), esc(r.bOp),
            handleText(r.bHandle), esc(r.alignedBy));
        if (std::isnan(r.worst))
            h += "<td class=\"n\">–</td><td class=\"n\">–</td>";
        else
            h += fmt::format(
                R"(<td class="n" data-v="{0}" title="{1}">{2}</td><td class="n" data-v="{3}" title="{4}">{5}</td>)",
                sortValue(r.worst), fullPrecisionText(r.worst),
                r.flagged ? "<b>" + number(r.worst) + "</b>" : number(r.worst), sortValue(r.noise),
                fullPrecisionText(r.noise), number(r.noise));
        h += fmt::format("<td>{}</td><td>{}</td></tr>\n", r.flagged ? "above" : "", esc(r.error));
    }
    h += "</tbody></table></div>";
    h += unalignedList("a", d.aGraph, d.unalignedA) + unalignedList("b", d.bGraph, d.unalignedB);
    return h + "</section>\n";
}

} // namespace etscope
