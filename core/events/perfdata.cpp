#include "events/perfdata.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace etscope {

namespace {

// numpy's pairwise_sum for doubles (numpy/core/src/umath/loops_utils.h.src): plain loop below
// 8 elements, 8-way unrolled accumulators up to 128, recursive halving above. Mirrored so
// that averages are bit-identical to np.mean.
double pairwiseSum(const double *a, std::size_t n)
{
    if (n < 8) {
        double res = 0.;
        for (std::size_t i = 0; i < n; ++i)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; ++j)
            r[j] = a[j];
        std::size_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; ++j)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i)
            res += a[i];
        return res;
    }
    std::size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwiseSum(a, n2) + pairwiseSum(a + n2, n - n2);
}

} // namespace

double numpyMean(std::span<const double> values)
{
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    return pairwiseSum(values.data(), values.size()) / static_cast<double>(values.size());
}

double numpyPercentileSorted(const std::vector<double> &x, double q)
{
    const std::size_t n = x.size();
    if (n == 0)
        return std::numeric_limits<double>::quiet_NaN();
    // numpy sorts NaN last and propagates it into every percentile.
    if (std::isnan(x.back()))
        return std::numeric_limits<double>::quiet_NaN();
    const double quantile = q / 100.0;                          // np.true_divide(q, 100)
    const double virtualIndex = static_cast<double>(n - 1) * quantile; // "linear": (n-1)*q
    if (virtualIndex >= static_cast<double>(n - 1))
        return x[n - 1];
    const double prev = std::floor(virtualIndex);
    const auto lo = static_cast<std::size_t>(prev);
    const std::size_t hi = std::min(lo + 1, n - 1);
    const double t = virtualIndex - prev;
    const double a = x[lo], b = x[hi];
    // numpy's _lerp: a + (b-a)*t, but b - (b-a)*(1-t) where t >= 0.5.
    const double diff = b - a;
    return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

double numpyPercentile(std::vector<double> values, double q)
{
    std::sort(values.begin(), values.end(), [](double l, double r) {
        if (std::isnan(l))
            return false;
        return std::isnan(r) || l < r;
    });
    return numpyPercentileSorted(values, q);
}

PerfStats PerfStats::of(std::span<const double> raw)
{
    PerfStats p;
    if (raw.size() == 1) {
        // np.percentile/np.mean of one value is that value (NaN included): most Events of a
        // profile whose runs do not merge take this path, so no sort and no copy.
        p.p10 = p.p50 = p.p90 = p.avg = p.min = p.max = raw[0];
        return p;
    }
    std::vector<double> sorted(raw.begin(), raw.end());
    std::sort(sorted.begin(), sorted.end(), [](double l, double r) {
        if (std::isnan(l))
            return false;
        return std::isnan(r) || l < r;
    });
    p.p10 = numpyPercentileSorted(sorted, 10);
    p.p50 = numpyPercentileSorted(sorted, 50);
    p.p90 = numpyPercentileSorted(sorted, 90);
    p.avg = numpyMean(raw);
    // Python's min()/max() keep the first of equal values and compare with < / >; with NaN they
    // return whatever the comparisons leave standing, which this loop reproduces.
    if (!raw.empty()) {
        p.min = raw[0];
        p.max = raw[0];
        for (std::size_t i = 1; i < raw.size(); ++i) {
            if (raw[i] < p.min)
                p.min = raw[i];
            if (raw[i] > p.max)
                p.max = raw[i];
        }
    }
    return p;
}

PerfData PerfData::fromRaw(std::vector<double> raw)
{
    PerfData p;
    static_cast<PerfStats &>(p) = PerfStats::of(raw);
    p.raw = std::move(raw);
    return p;
}

} // namespace etscope
