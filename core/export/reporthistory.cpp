#include "export/reporthistory.h"

#include "analysis/history.h"
#include "common/jsontext.h"
#include "common/numberformat.h"
#include "export/reportcells.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {

using reportcells::number;
using std::string;

string esc(std::string_view s)
{
    return htmlEscaped(s);
}

// A number cell: what the reader sees and every digit in data-v (what the sort script and the
// tests read).
string numberCell(double v, int digits = 4)
{
    return fmt::format(R"(<td class="n" data-v="{}">{}</td>)", reportcells::sortValue(v),
        std::isnan(v) ? "–" : significantText(v, digits));
}

// One series over its recordings: band p10–p90, p50 line and points, change markers (red,
// dashed) and the means before and after each (orange); x labels thinned to one per 110 px.
string trendSvg(const History &h, std::size_t si, std::size_t chartIndex)
{
    const HistorySeries &s = h.series[si];
    const std::size_t n = s.p50.size();
    std::vector<const HistoryChange *> changes;
    for (const auto &c : h.changes)
        if (c.series == si)
            changes.push_back(&c);
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (std::size_t i = 0; i < n; ++i) {
        lo = std::min({ lo, s.p10[i], s.p50[i] });
        hi = std::max({ hi, s.p90[i], s.p50[i] });
    }
    for (const auto *c : changes) {
        lo = std::min({ lo, c->before, c->after });
        hi = std::max({ hi, c->before, c->after });
    }
    const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(std::abs(hi) * 0.05, 1e-9);
    lo -= pad;
    hi += pad;
    const int left = 70, top = 12, plotW = 760, plotH = 170, bottom = 34;
    const int W = left + plotW + 16, H = top + plotH + bottom;
    const double step = n > 1 ? double(plotW) / double(n - 1) : 0.0;
    auto X = [&](double i) { return left + (n > 1 ? i * step : plotW / 2.0); };
    auto Y = [&](double v) { return top + plotH * (1.0 - (v - lo) / (hi - lo)); };
    string svg = fmt::format(
        R"(<svg id="history-trend-{}" class="chart" role="img" width="{}" height="{}" viewBox="0 0 {} {}"><title>{}</title>)",
        chartIndex, W, H, W, H, esc(s.name));
    svg += fmt::format(R"(<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" stroke="#8c959f"/>)", left, top, top + plotH);
    svg += fmt::format(
        R"(<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#8c959f"/>)", left, left + plotW, top + plotH, top + plotH);
    for (double v : { lo + pad, hi - pad })
        svg += fmt::format(
            R"(<text x="{}" y="{:.1f}" text-anchor="end">{}</text>)", left - 4, Y(v) + 4, significantText(v, 4));
    svg += fmt::format(
        R"svg(<text x="12" y="{}" transform="rotate(-90 12 {})" text-anchor="middle">p50 ({})</text>)svg",
        top + plotH / 2, top + plotH / 2, timeScaleName(h.unit));
    // The band: p90 left to right, then p10 back.
    string band;
    for (std::size_t i = 0; i < n; ++i)
        band += fmt::format("{:.1f},{:.1f} ", X(double(i)), Y(s.p90[i]));
    for (std::size_t i = n; i-- > 0;)
        band += fmt::format("{:.1f},{:.1f} ", X(double(i)), Y(s.p10[i]));
    svg += R"(<polygon fill="#1f6feb" fill-opacity="0.18" stroke="none" points=")" + band + R"("/>)";
    string line;
    for (std::size_t i = 0; i < n; ++i)
        line += fmt::format("{:.1f},{:.1f} ", X(double(i)), Y(s.p50[i]));
    svg += R"(<polyline fill="none" stroke="#1f6feb" stroke-width="1.5" points=")" + line + R"("/>)";
    const auto &recs = h.groups[s.group].recordings;
    for (std::size_t i = 0; i < n; ++i)
        svg += fmt::format(
            R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.5" fill="#1f6feb"><title>{}: {} {}</title></circle>)", X(double(i)),
            Y(s.p50[i]), esc(h.recordings[recs[i]].label), significantText(s.p50[i], 4), timeScaleName(h.unit));
    for (std::size_t k = 0; k < changes.size(); ++k) {
        const HistoryChange &c = *changes[k];
        const double x = X(double(c.index) - 0.5);
        const double from = k ? X(double(changes[k - 1]->index) - 0.5) : X(0);
        const double to = k + 1 < changes.size() ? X(double(changes[k + 1]->index) - 0.5) : X(double(n - 1));
        svg += fmt::format(
            R"(<line class="change" x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#cf222e" stroke-width="2" stroke-dasharray="5,3"><title>{3}</title></line>)",
            x, top, top + plotH, esc(describeChange(h, c)));
        svg += fmt::format(
            R"(<line x1="{0:.1f}" x2="{1:.1f}" y1="{2:.1f}" y2="{2:.1f}" stroke="#db6d28" stroke-width="2"/>)", from, x,
            Y(c.before));
        svg += fmt::format(
            R"(<line x1="{0:.1f}" x2="{1:.1f}" y1="{2:.1f}" y2="{2:.1f}" stroke="#db6d28" stroke-width="2"/>)", x, to,
            Y(c.after));
    }
    // Labels: as many as fit one per 110 px, always the first.
    const std::size_t every = std::max<std::size_t>(1, std::size_t(std::ceil(110.0 / std::max(step, 1.0))));
    for (std::size_t i = 0; i < n; i += every)
        svg += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>)", X(double(i)), top + plotH + 16,
            esc(h.recordings[recs[i]].label));
    return svg + "</svg>";
}

} // namespace

std::string historySection(const History &h)
{
    const string unit(timeScaleName(h.unit));
    string out = fmt::format(
        R"(<section id="history"><h2>History <span class="muted">({} recordings, {} program{}, series by {})</span></h2>)",
        h.recordings.size(), h.groups.size(), h.groups.size() == 1 ? "" : "s", historyByName(h.by));
    out += fmt::format(
        "<p class=\"muted\">Each recording's p50 over its runs ({}), ordered by label; change points by E-divisive "
        "means with a permutation test (α = {}, up to {} permutations, at least {} recordings a side, seed {:#x}; "
        "docs/history.md). Before and after: the mean p50 between neighbouring change points, ± the half-width of "
        "its 95&nbsp;% interval.</p>",
        esc(unit), significantText(h.options.alpha), h.options.permutations, h.options.minSegment, h.options.seed);
    if (h.groups.size() > 1)
        out += fmt::format(
            R"(<p class="warn" id="history-programs">The recordings are of {} different programs: each program's series are kept apart ([program N]).</p>)",
            h.groups.size());
    for (const auto &w : h.warnings)
        out += R"(<p class="warn">)" + esc(w) + "</p>";
    for (const auto &e : h.errors)
        out += R"(<p class="warn">)" + esc(e) + "</p>";
    if (h.changes.empty()) {
        out += fmt::format(
            R"(<p id="history-verdict">No significant change in any of the {} series.</p>)", h.series.size());
        return out + "</section>\n";
    }
    out += fmt::format(R"(<p id="history-verdict">{} change point{} in {} series.</p>)", h.changes.size(),
        h.changes.size() == 1 ? "" : "s", h.series.size());
    out += fmt::format(
        R"(<div class="scroll"><table id="history-changes" class="sortable"><thead><tr><th>series</th><th>before ({0})</th><th>±95 %</th><th>after ({0})</th><th>±95 %</th><th>change (%)</th><th>index</th><th>at</th><th>after</th><th>p</th></tr></thead><tbody>)",
        esc(unit));
    for (const auto &c : h.changes) {
        const auto &a = h.recordings[c.recordingAfter];
        const auto &b = h.recordings[c.recordingBefore];
        const string name = (h.groups.size() > 1 ? fmt::format("[program {}] ", c.group + 1) : string()) + c.name;
        out += "<tr><td>" + esc(name) + "</td>" + numberCell(c.before) + numberCell(c.beforeCi, 2) + numberCell(c.after)
            + numberCell(c.afterCi, 2)
            + fmt::format(
                R"(<td class="n" data-v="{}">{:+.1f}</td>)", reportcells::sortValue(c.changePercent), c.changePercent)
            + fmt::format(R"(<td class="n" data-v="{0}">{0}</td>)", c.index)
            + fmt::format(
                R"(<td title="{}">{}</td><td title="{}">{}</td>)", esc(a.file), esc(a.label), esc(b.file), esc(b.label))
            + numberCell(c.test.pValue, 3) + "</tr>";
    }
    out += "</tbody></table></div>";
    std::size_t chart = 0;
    for (std::size_t si = 0; si < h.series.size(); ++si) {
        if (std::none_of(h.changes.begin(), h.changes.end(), [&](const HistoryChange &c) { return c.series == si; }))
            continue;
        const auto &s = h.series[si];
        out += "<h3>" + esc((h.groups.size() > 1 ? fmt::format("[program {}] ", s.group + 1) : string()) + s.name)
            + "</h3>" + trendSvg(h, si, chart++);
    }
    return out + "</section>\n";
}

} // namespace etscope
