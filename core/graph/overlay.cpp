// Overlay values that need the gap table, and the colours every overlay uses (the GUI and the
// CLI's SVG colour identically).
#include "analysis/comparator.h"
#include "analysis/noise.h"
#include "analysis/numericgap.h"
#include "events/event.h"
#include "graph/programgraph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace etscope::graph {

namespace {

Rgb lerp(const std::vector<Rgb> &stops, double t)
{
    t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0);
    const double x = t * double(stops.size() - 1);
    const std::size_t i = std::min(stops.size() - 2, std::size_t(x));
    const double f = x - double(i);
    auto mix = [f](std::uint8_t a, std::uint8_t b) { return std::uint8_t(std::lround(a + (b - a) * f)); };
    return { mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b) };
}

// Position on a log scale (or the dB / similarity value itself when lower is worse): larger = worse.
double severity(double gap, bool higherIsWorse)
{
    if (!higherIsWorse)
        return -gap;
    return std::log10(std::max(gap, 1e-30));
}

std::string fmtShare(double s)
{
    return s >= 0.1 ? fmt::format("{:.1f} %", s * 100) : fmt::format("{:.2f} %", s * 100);
}

} // namespace

void addGap(OverlayData &d, const ProgramGraph &g, const std::vector<EventBlock> &blocks,
    const analysis::GapTable &table, std::optional<double> threshold)
{
    d.hasGap = true;
    d.gapHigherIsWorse = table.direction == analysis::Direction::HigherIsWorse;
    d.gapMetric = analysis::metricName(table.metric);
    d.gapReference = table.referenceDescription;
    d.gapLegend = analysis::gapLegend(
        table.metric, table.isolated ? "isolated" : "accumulated", threshold ? threshold : table.threshold);
    d.nodeGap.assign(g.nodes().size(), std::nan(""));
    d.nodeGapExcess.assign(g.nodes().size(), std::nan(""));
    d.nodeGapFlagged.assign(g.nodes().size(), 0);
    for (const analysis::GapRow &row : table.rows) {
        const double w = row.worst(table.direction);
        if (std::isnan(w))
            continue;
        std::vector<int> nodes;
        if (row.blockIndex >= 0 && std::size_t(row.blockIndex) < blocks.size() && row.eventIndex >= 0
            && std::size_t(row.eventIndex) < blocks[std::size_t(row.blockIndex)].events.size()) {
            const EventRef ref { row.blockIndex, row.eventIndex };
            for (std::size_t n = 0; n < d.nodeEvents.size(); ++n)
                for (const EventRef &r : d.nodeEvents[n])
                    if (r.block == ref.block && r.event == ref.event)
                        nodes.push_back(int(n));
        }
        if (nodes.empty())
            for (std::int64_t h : row.debugHandles)
                for (int n : g.nodesForHandle(h))
                    nodes.push_back(n);
        const double excess = threshold ? analysis::excessOverNoise(table.direction, table.metric, w, *threshold)
                                        : row.excess(table.metric, table.direction);
        const bool flagged = threshold ? analysis::exceedsThreshold(table.direction, w, *threshold) : row.flagged;
        for (int n : nodes) {
            double &cur = d.nodeGap[std::size_t(n)];
            if (std::isnan(cur) || analysis::badness(table.direction, w) > analysis::badness(table.direction, cur))
                cur = w;
            double &ex = d.nodeGapExcess[std::size_t(n)];
            if (!std::isnan(excess) && (std::isnan(ex) || excess > ex))
                ex = excess;
            if (flagged)
                d.nodeGapFlagged[std::size_t(n)] = 1;
        }
    }
}

std::optional<Overlay> parseOverlay(const std::string &name)
{
    if (name == "latency")
        return Overlay::Latency;
    if (name == "gap")
        return Overlay::Gap;
    if (name == "optype" || name == "op")
        return Overlay::OpType;
    if (name == "backend" || name == "delegated")
        return Overlay::Backend;
    if (name == "none")
        return Overlay::None;
    return std::nullopt;
}

const char *overlayName(Overlay o)
{
    switch (o) {
    case Overlay::Latency:
        return "latency";
    case Overlay::Gap:
        return "gap";
    case Overlay::OpType:
        return "optype";
    case Overlay::Backend:
        return "backend";
    case Overlay::None:
        break;
    }
    return "none";
}

std::string Rgb::hex() const
{
    return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

Rgb heatColor(double t)
{
    static const std::vector<Rgb> stops { { 255, 247, 220 }, { 254, 217, 118 }, { 253, 141, 60 }, { 227, 26, 28 },
        { 128, 0, 38 } };
    return lerp(stops, t);
}

Rgb gapColor(double t, bool above)
{
    static const std::vector<Rgb> warm { { 253, 174, 97 }, { 244, 109, 67 }, { 215, 48, 39 }, { 127, 0, 0 } };
    static const std::vector<Rgb> cool { { 237, 248, 233 }, { 199, 233, 192 }, { 161, 217, 155 }, { 116, 196, 118 } };
    return lerp(above ? warm : cool, t);
}

Rgb gapSeverityColor(double severity)
{
    if (std::isnan(severity))
        return neutralColor();
    return severity < 0.5 ? gapColor(2 * severity, false) : gapColor(2 * severity - 1, true);
}

bool isWarmGapColor(const Rgb &c)
{
    return int(c.r) > int(c.g) + 40 && int(c.r) > int(c.b) + 40;
}

Rgb neutralColor()
{
    return { 238, 238, 238 };
}

Rgb categoricalColor(std::size_t i)
{
    static const Rgb palette[]
        = { { 141, 211, 199 }, { 190, 186, 218 }, { 251, 128, 114 }, { 128, 177, 211 }, { 253, 180, 98 },
              { 179, 222, 105 }, { 252, 205, 229 }, { 188, 128, 189 }, { 204, 235, 197 }, { 255, 237, 111 } };
    return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

Coloring colorItems(const ProgramGraph &g, const VisibleGraph &v, const OverlayData &d, Overlay o)
{
    Coloring c;
    c.overlay = o;
    const std::size_t n = v.items.size();
    c.fill.assign(n, Rgb { 250, 250, 250 });
    c.value.assign(n, "");
    c.rank.assign(n, -1);
    // Operator nodes of each item (a collapsed box stands for its whole subtree).
    auto opsOf = [&](const VisibleItem &it) {
        std::vector<int> out;
        if (it.kind == VisibleItem::Kind::Op) {
            out.push_back(it.index);
            return out;
        }
        std::vector<int> stack { it.index };
        while (!stack.empty()) {
            const Group &grp = g.groups()[std::size_t(stack.back())];
            stack.pop_back();
            out.insert(out.end(), grp.nodes.begin(), grp.nodes.end());
            stack.insert(stack.end(), grp.children.begin(), grp.children.end());
        }
        return out;
    };

    switch (o) {
    case Overlay::None:
        c.title = "";
        break;
    case Overlay::Latency: {
        c.title = fmt::format("Latency: share of total ({:.4g} {})", d.totalLatency, d.timeUnit);
        c.gradient = true;
        std::vector<double> share(n, std::nan(""));
        // Items inside a partition without time of their own: the partition's DELEGATE_CALL share.
        std::vector<double> partShare(n, std::nan(""));
        double maxShare = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const VisibleItem &it = v.items[i];
            const double lat = it.kind == VisibleItem::Kind::Op ? d.nodeLatency[std::size_t(it.index)]
                                                                : groupLatency(g, d, it.index);
            if (!std::isnan(lat) && d.totalLatency > 0 && (it.kind == VisibleItem::Kind::Op || lat > 0)) {
                share[i] = lat / d.totalLatency;
                maxShare = std::max(maxShare, share[i]);
            } else if (const int p = partitionOf(g, it); p >= 0 && std::size_t(p) < d.partitionLatency.size()
                       && !std::isnan(d.partitionLatency[std::size_t(p)]) && d.totalLatency > 0) {
                partShare[i] = d.partitionLatency[std::size_t(p)] / d.totalLatency;
                maxShare = std::max(maxShare, partShare[i]);
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (!std::isnan(partShare[i])) {
                // Coloured like the partition, so that a hot partition shows, but not ranked as
                // a hot item itself: the time is the call's, not the node's.
                c.fill[i] = heatColor(maxShare > 0 ? partShare[i] / maxShare : 0);
                c.value[i] = "part of partition (" + fmtShare(partShare[i]) + ")";
                continue;
            }
            if (std::isnan(share[i])) {
                c.fill[i] = neutralColor();
                continue;
            }
            c.rank[i] = maxShare > 0 ? share[i] / maxShare : 0;
            c.fill[i] = heatColor(c.rank[i]);
            c.value[i] = fmtShare(share[i]);
            const VisibleItem &it = v.items[i];
            if (it.kind == VisibleItem::Kind::Op && std::size_t(it.index) < d.nodeBackendEvents.size()
                && d.nodeBackendEvents[std::size_t(it.index)] > 0)
                c.value[i] += " (backend events)";
        }
        for (double t : { 0.0, 0.25, 0.5, 0.75, 1.0 })
            c.legend.push_back({ heatColor(t), fmtShare(t * maxShare) });
        if (d.backendAttributed > 0 && d.backendByOrder == 0)
            c.note = fmt::format("{} backend event{} given to their nodes (exact link)", d.backendAttributed,
                d.backendAttributed == 1 ? "" : "s");
        else if (d.backendAttributed > 0) // XNNPACK: placed by order, formats.md §1.8
            c.note = fmt::format("{} backend event{} given to their nodes ({} by the runtime's operator order and "
                                 "kind: the backend logs no node id)",
                d.backendAttributed, d.backendAttributed == 1 ? "" : "s",
                d.backendByOrder == d.backendAttributed ? std::string("all") : std::to_string(d.backendByOrder));
        if (d.backendNotExact > 0)
            c.note += fmt::format(
                "{}{} not attributed: link not exact", c.note.empty() ? "backend events: " : "; ", d.backendNotExact);
        if (d.backendUnidentified > 0) // formats.md §1.8
            c.note += fmt::format("{}{} delegate event{} left on their call: not placed on a node ({})",
                c.note.empty() ? "" : "; ", d.backendUnidentified, d.backendUnidentified == 1 ? "" : "s",
                fmt::join(d.backendNotes, "; "));
        if (!d.hasLatency())
            c.title = "Latency: no linked events with timings";
        break;
    }
    case Overlay::Gap: {
        if (!d.hasGap) {
            c.title = "Numeric gap: no reference";
            std::fill(c.fill.begin(), c.fill.end(), neutralColor());
            break;
        }
        c.title
            = fmt::format("Numeric gap ({}){}", d.gapLegend, d.gapReference.empty() ? "" : "; vs " + d.gapReference);
        const bool higher = d.gapHigherIsWorse;
        std::vector<double> worst(n, std::nan("")), excess(n, std::nan(""));
        std::vector<char> flagged(n, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (int op : opsOf(v.items[i])) {
                const double gv = d.nodeGap[std::size_t(op)];
                if (std::isnan(gv))
                    continue;
                if (std::isnan(worst[i]) || severity(gv, higher) > severity(worst[i], higher))
                    worst[i] = gv;
                const double ex = d.nodeGapExcess[std::size_t(op)];
                if (!std::isnan(ex) && (std::isnan(excess[i]) || ex > excess[i]))
                    excess[i] = ex;
                flagged[i] |= d.nodeGapFlagged[std::size_t(op)];
            }
        for (std::size_t i = 0; i < n; ++i) {
            if (std::isnan(worst[i])) {
                c.fill[i] = neutralColor();
                continue;
            }
            const double s = analysis::gapSeverity(excess[i], flagged[i] != 0);
            c.fill[i] = gapSeverityColor(s);
            c.rank[i] = s;
            c.value[i] = fmt::format("{} {:.2e}{}", d.gapMetric, worst[i], flagged[i] ? " (above)" : "");
        }
        c.legend.push_back({ gapSeverityColor(0), "exact" });
        c.legend.push_back({ gapSeverityColor(0.49), "noise (below the level)" });
        c.legend.push_back({ gapSeverityColor(0.5), "just above the level" });
        c.legend.push_back({ gapSeverityColor(0.75), "100×" });
        c.legend.push_back({ gapSeverityColor(1), "≥ 10,000×" });
        c.legend.push_back({ neutralColor(), "no data" });
        break;
    }
    case Overlay::OpType: {
        c.title = "Operator type";
        std::map<std::string, std::size_t> freq;
        for (const OpNode &op : g.nodes())
            if (!op.placeholder)
                ++freq[op.shortOp];
        std::vector<std::pair<std::size_t, std::string>> order;
        for (const auto &[k, f] : freq)
            order.emplace_back(f, k);
        std::sort(order.begin(), order.end(),
            [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
        std::map<std::string, std::size_t> colorOf;
        for (std::size_t i = 0; i < order.size() && i < 9; ++i) {
            colorOf[order[i].second] = i;
            c.legend.push_back({ categoricalColor(i), fmt::format("{} ({})", order[i].second, order[i].first) });
        }
        if (order.size() > 9)
            c.legend.push_back({ neutralColor(), "other" });
        for (std::size_t i = 0; i < n; ++i) {
            const VisibleItem &it = v.items[i];
            if (it.kind == VisibleItem::Kind::Op) {
                auto f = colorOf.find(g.nodes()[std::size_t(it.index)].shortOp);
                c.fill[i] = f == colorOf.end() ? neutralColor() : categoricalColor(f->second);
            } else {
                c.fill[i] = Rgb { 245, 245, 245 };
            }
        }
        break;
    }
    case Overlay::Backend: {
        c.title = "Delegated / backend";
        std::map<std::string, std::size_t> backendIdx;
        for (const Partition &p : g.partitions())
            backendIdx.emplace(p.backend, backendIdx.size());
        const Rgb portable { 223, 231, 242 };
        c.legend.push_back({ portable, "portable kernels" });
        for (const auto &[b, i] : backendIdx)
            c.legend.push_back({ categoricalColor(i + 3), b });
        for (std::size_t i = 0; i < n; ++i) {
            std::set<int> parts;
            for (int op : opsOf(v.items[i]))
                if (!g.nodes()[std::size_t(op)].placeholder)
                    parts.insert(g.nodes()[std::size_t(op)].partition);
            if (parts.size() == 1) {
                const int p = *parts.begin();
                c.fill[i] = p < 0 ? portable : categoricalColor(backendIdx[g.partitions()[std::size_t(p)].backend] + 3);
                c.value[i] = p < 0 ? "" : g.partitions()[std::size_t(p)].backend;
            } else {
                c.fill[i] = neutralColor();
                c.value[i] = parts.empty() ? "" : "mixed";
            }
        }
        break;
    }
    }
    return c;
}

} // namespace etscope::graph
