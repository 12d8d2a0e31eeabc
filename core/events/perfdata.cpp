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

namespace {

// Where np.percentile(q, method="linear") reads n sorted values: between lo and hi at t.
struct PercentilePosition {
    std::size_t lo = 0, hi = 0;
    double t = 0;
};

PercentilePosition percentilePosition(std::size_t n, double q)
{
    const double quantile = q / 100.0; // np.true_divide(q, 100)
    const double virtualIndex = static_cast<double>(n - 1) * quantile; // "linear": (n-1)*q
    if (virtualIndex >= static_cast<double>(n - 1))
        return { n - 1, n - 1, 0.0 };
    const double prev = std::floor(virtualIndex);
    const auto lo = static_cast<std::size_t>(prev);
    return { lo, std::min(lo + 1, n - 1), virtualIndex - prev };
}

// numpy's _lerp: a + (b-a)*t, but b - (b-a)*(1-t) where t >= 0.5.
double numpyLerp(double a, double b, double t)
{
    const double diff = b - a;
    return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

} // namespace

double numpyPercentileSorted(const std::vector<double> &x, double q)
{
    const std::size_t n = x.size();
    if (n == 0)
        return std::numeric_limits<double>::quiet_NaN();
    // numpy sorts NaN last and propagates it into every percentile.
    if (std::isnan(x.back()))
        return std::numeric_limits<double>::quiet_NaN();
    const PercentilePosition pos = percentilePosition(n, q);
    return pos.lo == pos.hi ? x[pos.lo] : numpyLerp(x[pos.lo], x[pos.hi], pos.t);
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
    // The three percentiles need six order statistics, not a sorted copy: select them in
    // increasing order, each within what the previous selection left above it.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (raw.empty() || std::any_of(raw.begin(), raw.end(), [](double v) { return std::isnan(v); })) {
        p.p10 = p.p50 = p.p90 = nan; // numpy sorts NaN last, so every percentile reads it
    } else {
        thread_local std::vector<double> work;
        work.assign(raw.begin(), raw.end());
        std::size_t selectedUpTo = 0; // work[0, selectedUpTo) <= everything after it, and in place
        auto orderStatistic = [&](std::size_t k) {
            if (k == selectedUpTo) { // the smallest of the rest (an interpolation's upper neighbour): one scan
                std::iter_swap(
                    work.begin() + std::ptrdiff_t(k), std::min_element(work.begin() + std::ptrdiff_t(k), work.end()));
                selectedUpTo = k + 1;
            } else if (k > selectedUpTo) {
                std::nth_element(
                    work.begin() + std::ptrdiff_t(selectedUpTo), work.begin() + std::ptrdiff_t(k), work.end());
                selectedUpTo = k + 1;
            }
            return work[k];
        };
        double *out[] = { &p.p10, &p.p50, &p.p90 };
        const double qs[] = { 10, 50, 90 };
        for (int i = 0; i < 3; ++i) {
            const PercentilePosition pos = percentilePosition(raw.size(), qs[i]);
            const double a = orderStatistic(pos.lo);
            *out[i] = pos.lo == pos.hi ? a : numpyLerp(a, orderStatistic(pos.hi), pos.t);
        }
    }
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
