#pragma once

#include <vector>

namespace etscope {

// numpy-exact statistics over durations (Inspector's PerfData): np.percentile with the default
// linear method, np.mean (pairwise summation), Python min/max.
double numpyPercentile(std::vector<double> sorted, double q); // takes a copy; sorts it
double numpyPercentileSorted(const std::vector<double> &sorted, double q);
double numpyMean(const std::vector<double> &values);

struct PerfData {
    std::vector<double> raw; // one duration per run, in run order, target unit
    double p10 = 0, p50 = 0, p90 = 0, avg = 0, min = 0, max = 0;

    static PerfData fromRaw(std::vector<double> raw);
};

} // namespace etscope
