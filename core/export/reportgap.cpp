#include "export/reportgap.h"

#include <cmath>

namespace etscope {

ReportGap reportGapFromTable(const analysis::GapTable &t, const Session &runtime)
{
    ReportGap g;
    g.metric = analysis::metricName(t.metric);
    g.higherIsWorse = t.direction == analysis::Direction::HigherIsWorse;
    g.reference = t.referenceDescription;
    g.warnings = t.warnings;
    for (const auto &r : t.rows) {
        ReportGapRow row;
        std::string name;
        if (r.blockIndex >= 0 && static_cast<std::size_t>(r.blockIndex) < runtime.blocks.size()) {
            const auto &b = runtime.blocks[static_cast<std::size_t>(r.blockIndex)];
            if (r.eventIndex >= 0 && static_cast<std::size_t>(r.eventIndex) < b.events.size())
                name = b.events[static_cast<std::size_t>(r.eventIndex)].name;
        }
        std::string ops;
        for (const auto &op : r.runtimeOps)
            ops += (ops.empty() ? "" : ", ") + op;
        row.label = name.empty() ? ops : ops.empty() ? name : name + " [" + ops + "]";
        if (row.label.empty())
            row.label = "instruction " + std::to_string(r.instructionId);
        row.instructionId = r.instructionId;
        row.worst = r.worst(t.direction);
        row.flagged = r.flagged;
        row.delegated = r.delegated;
        row.backend = r.backend;
        row.error = r.error;
        g.rows.push_back(std::move(row));
    }
    return g;
}

} // namespace etscope
