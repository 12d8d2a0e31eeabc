#include "export/reportdiff.h"

#include "analysis/latencydiff.h"

#include <cmath>

namespace etscope {

ReportDiff reportDiff(const std::vector<EventBlock> &base, const std::vector<EventBlock> &other, std::string baseName,
    std::string otherName, std::string unit)
{
    const LatencyDiff diff = diffLatency(base, other);
    ReportDiff d;
    d.baseName = std::move(baseName);
    d.otherName = std::move(otherName);
    d.unit = std::move(unit);
    for (const DiffRow &r : diff.rows) {
        if (r.framework || r.nested)
            continue; // inside other rows' time
        ReportDiffRow row;
        row.label = r.blockName == "Execute" ? r.eventName : r.blockName + " · " + r.eventName;
        row.base = r.a.perf ? r.a.perf->p50 : NAN;
        row.other = r.b.perf ? r.b.perf->p50 : NAN;
        d.rows.push_back(std::move(row));
    }
    return d;
}

} // namespace etscope
