#pragma once

// The report's diff waterfall from the latency A/B analysis (core/analysis/latencydiff.h).
// Declared without that header so that the report and the CLI need only plain data.

#include "events/event.h"
#include "export/reportdata.h"

#include <string>
#include <vector>

namespace etscope {

// Compares `other` against the baseline `base`: median (p50) per counted row.
ReportDiff reportDiff(const std::vector<EventBlock> &base, const std::vector<EventBlock> &other, std::string baseName,
    std::string otherName, std::string unit);

} // namespace etscope
