#pragma once

#include "analysis/numtensor.h"
#include "common/error.h"

#include <optional>
#include <string>
#include <vector>

namespace etscope::analysis {

// The Inspector's compare_results (§10) for one output pair. Both tensors are cast to float32
// first (values are rounded to float, no NaN/inf replacement); the metrics are then computed in
// double from those float values. `rounded()` gives the Inspector's 2-decimal view.
struct OutputComparison {
    int index = 0;
    bool comparable = false; // false: one side is not a tensor (the Inspector yields None)
    double snr = 0, mse = 0, cosine = 0;
    std::string error; // cosine needs equal shapes; broadcast failures land here
    std::string referenceSummary, runSummary;
};

// Pairs the lists element-wise; the shorter list wins.
std::vector<OutputComparison> compareResults(const std::vector<NumValue> &reference, const std::vector<NumValue> &run);

// Python's round(x, 2) on a double (correct decimal rounding of the binary value).
double roundTo2(double x);

// "snr\n0 inf\n...mse\n...cosine_similarity\n..." in the Inspector's order; `full` prints
// every digit instead of the 2-decimal rounding.
std::string compareResultsText(const std::vector<OutputComparison> &rows, bool full);

} // namespace etscope::analysis
