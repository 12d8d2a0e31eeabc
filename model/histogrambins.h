#pragma once

#include <QList>

#include <span>
#include <vector>

namespace etscope {

struct HistogramBins {
    double lower = 0; // left edge of the first bin
    double binWidth = 0; // 0 when every value is equal (one bin)
    QList<int> counts; // one per bin; sums to the number of finite values
};

// Freedman–Diaconis bin width (2·IQR/n^(1/3)), capped to [1, maxBins] bins; falls back to
// Sturges when the IQR is zero (many identical timings with a few outliers). NaN/Inf skipped.
HistogramBins computeHistogram(std::span<const double> values, int maxBins = 40);

} // namespace etscope
