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

// Whether a latency histogram offers "Clip at p99" (values above p99 drawn as one "> p99" bar)
// and turns it on. p99 is numpy's linear-interpolation percentile, the one the Inspector's
// p10/p50/p90 use, so that below 100 runs it lies under the largest run instead of being it:
// 50 runs with one slow outlier offer clipping. Offered from 20 finite values when the largest
// lies above p99; turned on when the gap from the largest kept value to the largest is more
// than twice the kept values' spread (one 13.5 µs run over 0.8–3.1 µs). NaN/Inf skipped.
struct P99Clip {
    bool offer = false;
    bool suggest = false;
    double p99 = 0; // NaN when there are no finite values
};
P99Clip p99Clip(std::span<const double> values);

} // namespace etscope
