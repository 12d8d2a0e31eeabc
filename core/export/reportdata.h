#pragma once

// Plain data the HTML report draws besides the sessions: the numeric-gap heatmap and the diff
// waterfall. Kept apart from the analyses so that the report does not depend on their headers.

#include <cstdint>
#include <string>
#include <vector>

namespace etscope {

// Numeric gap per compared runtime output, as the heatmap shows it (filled from
// analysis::GapTable by reportGapFromTable in export/reportgap.h).
struct ReportGapRow {
    std::string label; // event name and ops
    std::int32_t instructionId = -1;
    double worst = 0; // NaN when the values could not be compared
    bool flagged = false;
    bool delegated = false;
    std::string backend;
    std::string error;
};
struct ReportGap {
    std::string metric; // "MSE", "SNR", ...
    bool higherIsWorse = true;
    std::string reference; // what was compared against
    std::vector<ReportGapRow> rows; // execution order
    std::vector<std::string> warnings;
};

// Per-event latency of the report's recording against a comparison recording (the waterfall).
struct ReportDiffRow {
    std::string label;
    double base = 0; // NaN: the event is absent on that side
    double other = 0;
};
struct ReportDiff {
    std::string baseName, otherName; // base = the compared-against recording (--compare)
    std::string unit; // "ms", ...
    std::vector<ReportDiffRow> rows;
};

} // namespace etscope
