#pragma once

// Plain data the HTML report draws besides the sessions: the numeric-gap heatmap and the diff
// waterfall. Kept apart from the analyses so that the report does not depend on their headers.

#include <cstdint>
#include <string>
#include <vector>

namespace etscope {

// Numeric gap per compared runtime output, as the heatmap shows it (filled from
// analysis::GapTable by reportGapFromTable in export/reportgap.h), judged and coloured by the
// rule of every gap view (analysis/noise.h).
struct ReportGapRow {
    std::string label; // the runtime ops ("native_call_addmm.out", "DELEGATE_CALL [XnnpackBackend]")
    std::int32_t instructionId = -1;
    double worst = 0; // NaN when the values could not be compared
    // Position on the one colour scale of the gap views (analysis::gapSeverity): [0, 0.5) within
    // the noise level or threshold, [0.5, 1] above it; NaN without a gap.
    double severity = 0;
    bool flagged = false; // above the noise level (or the user's threshold)
    bool delegated = false;
    std::string backend;
    std::string error;
};
struct ReportGap {
    std::string metric; // "MSE", "SNR", ...
    bool higherIsWorse = true;
    std::string reference; // what was compared against
    std::string legend; // analysis::gapLegend: metric, mode and what flags a row, as the window says it
    bool userThreshold = false; // rows are judged by the user's threshold, not the noise level
    std::string verdict; // analysis::gapVerdict: "no op exceeds the noise level", "error enters: …"
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
