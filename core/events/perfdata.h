#pragma once

#include <span>
#include <vector>

namespace etscope {

// numpy-exact statistics over durations (Inspector's PerfData): np.percentile with the default
// linear method, np.mean (pairwise summation), Python min/max.
double numpyPercentile(std::vector<double> sorted, double q); // takes a copy; sorts it
double numpyPercentileSorted(const std::vector<double> &sorted, double q);

double numpyMean(std::span<const double> values);

struct PerfStats {
    double p10 = 0, p50 = 0, p90 = 0, avg = 0, min = 0, max = 0;

    // p10/p50/p90 (np.percentile), avg (np.mean), min/max (Python's) of `raw`.
    static PerfStats of(std::span<const double> raw);
};

// Statistics with their samples owned (analyses that sum or resample runs).
struct PerfData : PerfStats {
    std::vector<double> raw; // one duration per run, in run order, target unit

    static PerfData fromRaw(std::vector<double> raw);
};

} // namespace etscope
