#include "histogrambins.h"

#include "events/perfdata.h"

#include <algorithm>
#include <cmath>

namespace etscope {

HistogramBins computeHistogram(std::span<const double> values, int maxBins)
{
    std::vector<double> v;
    v.reserve(values.size());
    for (double x : values)
        if (std::isfinite(x))
            v.push_back(x);
    HistogramBins out;
    if (v.empty())
        return out;
    std::sort(v.begin(), v.end());
    const double lo = v.front();
    const double hi = v.back();
    out.lower = lo;
    const double range = hi - lo;
    // Durations that differ only by the rounding of a unit conversion (two large timestamps
    // converted, then subtracted: 1e-10 ms apart at 0.002 ms) are one value: binned apart they
    // drew axis labels like "0.00199999…" under bars of one duration.
    if (!(range > 1e-6 * std::max(std::abs(lo), std::abs(hi)))) {
        out.counts = { int(v.size()) };
        return out;
    }
    const double n = double(v.size());
    const double iqr = numpyPercentileSorted(v, 75) - numpyPercentileSorted(v, 25);
    int bins = 0;
    if (iqr > 0) {
        const double width = 2.0 * iqr / std::cbrt(n);
        bins = int(std::ceil(range / width));
    } else {
        bins = int(std::ceil(std::log2(n))) + 1;
    }
    bins = std::clamp(bins, 1, std::max(1, maxBins));
    out.binWidth = range / bins;
    out.counts = QList<int>(bins, 0);
    for (double x : v) {
        int b = int((x - lo) / out.binWidth);
        // The maximum lands exactly on the right edge; it belongs to the last bin.
        b = std::clamp(b, 0, bins - 1);
        ++out.counts[b];
    }
    return out;
}

P99Clip p99Clip(std::span<const double> values)
{
    std::vector<double> v;
    v.reserve(values.size());
    for (double x : values)
        if (std::isfinite(x))
            v.push_back(x);
    P99Clip out;
    std::sort(v.begin(), v.end());
    out.p99 = numpyPercentileSorted(v, 99);
    if (v.size() < 20 || !(v.back() > out.p99))
        return out;
    out.offer = true;
    const double kept = *(std::upper_bound(v.begin(), v.end(), out.p99) - 1); // largest value <= p99
    out.suggest = v.back() - kept > 2 * (kept - v.front());
    return out;
}

} // namespace etscope
