#include "export/reportgap.h"

#include "analysis/noise.h"

#include <cmath>

namespace etscope {

ReportGap reportGapFromTable(const analysis::GapTable &t, const Session &runtime)
{
    ReportGap g;
    g.metric = analysis::metricName(t.metric);
    g.higherIsWorse = t.direction == analysis::Direction::HigherIsWorse;
    g.reference = t.referenceDescription;
    g.legend = analysis::gapLegend(t);
    g.userThreshold = t.threshold.has_value();
    g.verdict = analysis::gapVerdict(t);
    g.warnings = t.warnings;
    for (const auto &r : t.rows) {
        ReportGapRow row;
        // The runtime ops name the row, as in the window's heatmap and the CLI's table; the event
        // name only when the row has no ops (it is the same text for a portable op).
        row.label = analysis::gapOpText(r);
        if (r.runtimeOps.empty() && r.blockIndex >= 0
            && static_cast<std::size_t>(r.blockIndex) < runtime.blocks.size()) {
            const auto &b = runtime.blocks[static_cast<std::size_t>(r.blockIndex)];
            if (r.eventIndex >= 0 && static_cast<std::size_t>(r.eventIndex) < b.events.size())
                row.label = std::string(b.events[static_cast<std::size_t>(r.eventIndex)].name) + row.label;
        }
        if (row.label.empty())
            row.label = "instruction " + std::to_string(r.instructionId);
        row.instructionId = r.instructionId;
        row.worst = r.worst(t.direction);
        // A cell without a value is neutral, as in the window's heatmap.
        row.severity
            = std::isnan(row.worst) ? std::nan("") : analysis::gapSeverity(r.excess(t.metric, t.direction), r.flagged);
        row.flagged = r.flagged;
        row.delegated = r.delegated;
        row.backend = r.backend;
        row.error = r.error;
        g.rows.push_back(std::move(row));
    }
    return g;
}

} // namespace etscope
