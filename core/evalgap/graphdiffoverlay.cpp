#include "evalgap/graphdiffoverlay.h"

#include "analysis/noise.h"
#include "analysis/numericgap.h"

#include <cmath>
#include <limits>

namespace etscope::evalgap {

Result<graph::ProgramGraph> diffSideGraph(
    std::shared_ptr<const ETRecord> record, const std::string &name, bool placeholders)
{
    if (!record)
        return makeError(ErrorCode::InvalidArgument, "", "no ETRecord");
    auto p = resolveGraph(*record, name);
    if (!p)
        return p.error();
    graph::BuildOptions o;
    o.entry = (*p)->entryName;
    o.showPlaceholders = placeholders;
    return graph::ProgramGraph::build(std::move(record), o);
}

graph::OverlayData graphDiffOverlay(const GraphDiff &d, const graph::ProgramGraph &g, DiffSide side)
{
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    graph::OverlayData o;
    const std::size_t n = g.nodes().size();
    o.nodeEvents.assign(n, {});
    o.nodeLatency.assign(n, kNaN);
    o.partitionLatency.assign(g.partitions().size(), kNaN);
    o.hasGap = true;
    o.gapHigherIsWorse = d.direction == analysis::Direction::HigherIsWorse;
    o.gapMetric = analysis::metricName(d.metric);
    o.gapReference.clear(); // the other graph is named in the view's title, not the legend
    // The graphs are named in each view's title; the legend stays short enough for its column.
    o.gapLegend = analysis::gapLegend(d.metric, "per layer", d.threshold);
    o.nodeGap.assign(n, kNaN);
    o.nodeGapExcess.assign(n, kNaN);
    o.nodeGapFlagged.assign(n, 0);
    for (const GraphDiffRow &r : d.rows) {
        if (!r.error.empty())
            continue;
        const int node = g.findNode(side == DiffSide::A ? r.aName : r.bName);
        if (node < 0)
            continue;
        const auto k = std::size_t(node);
        o.nodeGap[k] = r.worst(d.direction);
        o.nodeGapExcess[k] = r.excess(d.metric, d.direction);
        o.nodeGapFlagged[k] = r.flagged ? 1 : 0;
    }
    return o;
}

int graphDiffRowOfNode(const GraphDiff &d, const std::string &nodeName, DiffSide side)
{
    for (std::size_t i = 0; i < d.rows.size(); ++i)
        if ((side == DiffSide::A ? d.rows[i].aName : d.rows[i].bName) == nodeName)
            return int(i);
    return -1;
}

} // namespace etscope::evalgap
