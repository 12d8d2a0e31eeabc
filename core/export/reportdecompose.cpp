#include "export/reportdecompose.h"

#include "analysis/noise.h"
#include "common/jsontext.h"
#include "common/numberformat.h"
#include "evalgap/decompose.h"
#include "export/reportcells.h"
#include "graph/programgraph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {

using std::string;

constexpr const char *kQuantColor = "#0969da"; // blue
constexpr const char *kKernelColor = "#e16f24"; // orange: apart for colour-blind readers too
constexpr const char *kNoColor = "#d0d7de";

string esc(std::string_view s)
{
    return htmlEscaped(s);
}

using reportcells::number;
using reportcells::sortValue;

string shorten(const string &s, std::size_t max)
{
    if (s.size() <= max)
        return s;
    std::size_t cut = max - 1;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut;
    return s.substr(0, cut) + "\xE2\x80\xA6";
}

ReportErrorPart partOf(const evalgap::ErrorPart &p)
{
    return ReportErrorPart { p.gap, p.noise, p.snrDb, p.flagged, p.valid,
        p.valid ? analysis::gapSeverity(p.excess, p.flagged) : std::nan("") };
}

// "MSE 0.0012 (above the noise level 1.2e-05, SNR 29.2 dB)".
string partText(const ReportDecomposition &d, const ReportErrorPart &p)
{
    if (!p.valid)
        return "not computable";
    const string snr = std::isfinite(p.snrDb) ? fmt::format(", SNR {:.1f} dB", p.snrDb)
        : std::isinf(p.snrDb)                 ? string(", exact")
                                              : string();
    return fmt::format("{} {} ({} {} {}{})", d.metric, number(p.gap), p.flagged ? "above" : "within",
        d.judgedBy.rfind("threshold", 0) == 0 ? "the threshold" : "the noise level", number(p.noise), snr);
}

string percent(double share)
{
    return fmt::format("{:.0f}%", share * 100);
}

string stackedBars(const ReportDecomposition &d)
{
    // Which rows: all, or the kDecompositionBars with the largest total error, in execution order.
    std::vector<std::size_t> shown(d.rows.size());
    for (std::size_t i = 0; i < shown.size(); ++i)
        shown[i] = i;
    if (shown.size() > kDecompositionBars) {
        std::stable_sort(shown.begin(), shown.end(), [&](std::size_t a, std::size_t b) {
            const auto &ra = d.rows[a].total, &rb = d.rows[b].total;
            const double ea = ra.valid ? additiveError(d, ra) : -1, eb = rb.valid ? additiveError(d, rb) : -1;
            return ea > eb;
        });
        shown.resize(kDecompositionBars);
        std::sort(shown.begin(), shown.end());
    }
    const int labelW = 280, barW = 420, rowH = 20, top = 60, rightW = 320;
    const int W = labelW + barW + rightW, H = top + rowH * static_cast<int>(shown.size()) + 10;
    string s = fmt::format(
        R"(<svg id="decompose-bars" class="chart" role="img" width="{}" height="{}" viewBox="0 0 {} {}">)", W, H, W, H);
    // Legend.
    s += fmt::format(R"(<g id="decompose-legend"><rect x="{}" y="4" width="12" height="12" fill="{}"/>)"
                     R"(<text x="{}" y="14">quantization (float twin vs fake-quantized)</text>)"
                     R"(<rect x="{}" y="4" width="12" height="12" fill="{}"/>)"
                     R"(<text x="{}" y="14">kernel (fake-quantized vs runtime)</text>)",
        labelW, kQuantColor, labelW + 16, labelW + 290, kKernelColor, labelW + 306);
    const char *judged = d.judgedBy.rfind("threshold", 0) == 0 ? "threshold" : "noise level";
    s += fmt::format(R"(<text x="{}" y="32">bar: share of each op's error ({}); pale: a part within the {}; grey: no )"
                     R"(error</text>)",
        labelW,
        d.metric == "SNR"          ? "SNR as noise power 10^(−dB/10)"
            : d.metric == "COSINE" ? "1 − cosine"
                                   : d.metric,
        judged);
    s += fmt::format(R"(<text x="{}" y="48">right: the total error, its square on the gap colour scale (warm, )"
                     R"(outlined: above the {}), and the dominant part</text></g>)",
        labelW, judged);
    for (std::size_t k = 0; k < shown.size(); ++k) {
        const auto &r = d.rows[shown[k]];
        const int y = top + static_cast<int>(k) * rowH;
        const double q = r.quant.valid ? additiveError(d, r.quant) : 0;
        const double kn = r.kernel.valid ? additiveError(d, r.kernel) : 0;
        const double sum = q + kn;
        const double qShare = sum > 0 ? q / sum : 0, kShare = sum > 0 ? kn / sum : 0;
        const string tip = fmt::format("{} — quantization {}{}; kernel {}{}; total {}; dominant: {}", r.label,
            sum > 0 ? percent(qShare) + ", " : string(), partText(d, r.quant),
            sum > 0 ? percent(kShare) + ", " : string(), partText(d, r.kernel), partText(d, r.total), r.dominant);
        s += fmt::format(
            R"(<g class="decomp-bar" data-instruction="{}" data-dominant="{}" data-quant-share="{:.4f}"><title>{}</title>)",
            r.instructionId, esc(r.dominant), qShare, esc(tip));
        s += fmt::format(R"(<text x="{}" y="{}" text-anchor="end"{}>{}</text>)", labelW - 6, y + 14,
            r.dominant != "noise" ? R"( font-weight="600")" : "", esc(shorten(r.label, 42)));
        if (sum > 0) {
            const double qw = qShare * barW;
            s += fmt::format(R"(<rect x="{}" y="{}" width="{:.2f}" height="{}" fill="{}" fill-opacity="{}"/>)", labelW,
                y + 3, qw, rowH - 6, kQuantColor, r.quant.flagged ? 1.0 : 0.35);
            s += fmt::format(R"(<rect x="{:.2f}" y="{}" width="{:.2f}" height="{}" fill="{}" fill-opacity="{}"/>)",
                labelW + qw, y + 3, barW - qw, rowH - 6, kKernelColor, r.kernel.flagged ? 1.0 : 0.35);
        } else {
            s += fmt::format(
                R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)", labelW, y + 3, barW, rowH - 6, kNoColor);
        }
        // The total on the one colour scale of the gap views (cool within noise, warm above).
        const string chip
            = (std::isnan(r.total.severity) ? graph::neutralColor() : graph::gapSeverityColor(r.total.severity)).hex();
        s += fmt::format(R"(<rect class="total-chip" x="{}" y="{}" width="12" height="12" fill="{}" stroke="{}"/>)",
            labelW + barW + 6, y + 4, chip, r.total.flagged ? "#000" : "#fff");
        s += fmt::format(R"(<text x="{}" y="{}">{}{} · {}</text></g>)", labelW + barW + 22, y + 14,
            r.total.valid ? esc(d.metric) + " " : string(), r.total.valid ? number(r.total.gap) : string("no total"),
            esc(r.dominant));
    }
    return s + "</svg>\n";
}

string errorCell(const ReportErrorPart &p, const ReportDecomposition &d)
{
    if (!p.valid)
        return R"(<td class="n" title="not computable">–</td>)";
    const string text = number(p.gap);
    return fmt::format(R"(<td class="n{}" data-v="{}" title="{}">{}</td>)", p.flagged ? " above" : "", sortValue(p.gap),
        esc(fullPrecisionText(p.gap) + " — " + partText(d, p)), p.flagged ? "<b>" + text + "</b>" : text);
}

string entersText(const ReportDecomposition &d, int i)
{
    return i < 0 ? string("nowhere (within noise throughout)") : d.rows[std::size_t(i)].label;
}

} // namespace

ReportDecomposition reportDecomposition(const evalgap::Decomposition &d)
{
    ReportDecomposition r;
    r.metric = analysis::metricName(d.metric);
    r.higherIsWorse = d.direction == analysis::Direction::HigherIsWorse;
    r.judgedBy = analysis::thresholdDescription(d.metric, d.threshold);
    r.referenceGraph = d.referenceGraph;
    r.floatTwinPairs = d.floatTwinPairs;
    r.summary = d.summary;
    r.quantEnters = d.quantEnters;
    r.kernelEnters = d.kernelEnters;
    r.totalEnters = d.totalEnters;
    r.warnings = d.warnings;
    for (const auto &o : d.ops) {
        ReportDecompositionRow row;
        row.label = o.label();
        row.instructionId = o.instructionId;
        row.debugHandles = o.debugHandles;
        row.aotOps = fmt::format("{}", fmt::join(o.referenceOps, ";"));
        row.runtimeOps = fmt::format("{}", fmt::join(o.runtimeOps, ";"));
        row.quant = partOf(o.quant);
        row.kernel = partOf(o.kernel);
        row.total = partOf(o.total);
        row.dominant = evalgap::dominantName(o.dominant);
        row.note = o.note;
        r.rows.push_back(std::move(row));
    }
    return r;
}

double additiveError(const ReportDecomposition &d, const ReportErrorPart &p)
{
    // The window's rule (evalgap::additiveError), so bars read the same in both.
    const auto m = analysis::parseMetric(d.metric);
    return p.valid && m ? evalgap::additiveError(*m, p.gap) : 0;
}

string decompositionSummaryLine(const ReportDecomposition &d)
{
    return R"(<p id="summary-decompose"><b>Error decomposition:</b> )" + esc(d.summary)
        + R"( <a href="#decompose">(details)</a></p>)";
}

string decompositionSection(const ReportDecomposition &d)
{
    string h = "<section id=\"decompose\"><h2>Error decomposition (" + esc(d.metric) + ")</h2>";
    h += R"(<p id="decompose-summary"><b>)" + esc(d.summary) + "</b></p>";
    h += "<p class=\"muted\" id=\"decompose-rule\">Per op, " + esc(d.metric)
        + " of: <b>quantization</b> error = float twin against fake-quantized graph (both run by the built-in "
          "evaluator on "
        + esc(d.referenceGraph.empty() ? string("the reference graph") : d.referenceGraph) + ", "
        + fmt::format("{} quantize → dequantize {} passed through in the twin", d.floatTwinPairs,
            d.floatTwinPairs == 1 ? "pair" : "pairs")
        + "); <b>kernel</b> error = fake-quantized graph against the runtime; <b>total</b> = float twin against the "
          "runtime. Each is flagged (bold) above the "
        + esc(d.judgedBy)
        + ". <b>dominant</b>: the larger part above it (by excess over its threshold); noise: neither part is above "
          "it.</p>";
    h += "<p class=\"muted\">Where each error enters: quantization at " + esc(entersText(d, d.quantEnters))
        + "; kernel at " + esc(entersText(d, d.kernelEnters)) + "; total at " + esc(entersText(d, d.totalEnters))
        + ".</p>";
    if (!d.warnings.empty()) {
        h += R"(<ul class="warn" id="decompose-warnings">)";
        for (const auto &w : d.warnings)
            h += "<li>" + esc(w) + "</li>";
        h += "</ul>";
    }
    const std::size_t n = d.rows.size();
    if (n > kDecompositionBars)
        h += fmt::format("<h3>Quantization against kernel share, the {} ops with the largest total error of {} (in "
                         "execution order; the other {} are in the table)</h3>",
            kDecompositionBars, n, n - kDecompositionBars);
    else
        h += fmt::format(
            "<h3>Quantization against kernel share, {} {} in execution order</h3>", n, n == 1 ? "op" : "ops");
    h += "<div class=\"scroll\">" + stackedBars(d) + "</div>";
    h += "<h3>Per op <span class=\"muted\">(click a header to sort; hover a value for every digit)</span></h3>";
    h += R"(<div class="scroll"><table id="decompose-table" class="sortable"><thead><tr><th>#</th><th>op</th>)"
         R"(<th>instruction</th><th>debug handles</th><th>runtime ops</th>)";
    h += fmt::format("<th>quant_error ({0})</th><th>kernel_error ({0})</th><th>total_error ({0})</th>", esc(d.metric));
    h += "<th>dominant</th><th>note</th></tr></thead><tbody>\n";
    for (std::size_t i = 0; i < n; ++i) {
        const auto &r = d.rows[i];
        h += fmt::format(
            R"(<tr data-instruction="{0}" data-dominant="{1}"><td class="n" data-v="{2}">{2}</td><td>{3}</td><td class="n" data-v="{0}">{0}</td><td>{4}</td><td>{5}</td>)",
            r.instructionId, esc(r.dominant), i, esc(r.label), fmt::join(r.debugHandles, ", "), esc(r.runtimeOps));
        h += errorCell(r.quant, d) + errorCell(r.kernel, d) + errorCell(r.total, d);
        h += "<td>" + esc(r.dominant) + "</td><td>" + esc(r.note) + "</td></tr>\n";
    }
    h += "</tbody></table></div></section>\n";
    return h;
}

} // namespace etscope
