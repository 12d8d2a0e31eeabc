#pragma once

// Fills the report's heatmap and waterfall data from the analyses (only built with etscope_analysis).

#include "analysis/numericgap.h"
#include "export/htmlreport.h"

namespace etscope {

ReportGap reportGapFromTable(const analysis::GapTable &table, const Session &runtime);

} // namespace etscope
