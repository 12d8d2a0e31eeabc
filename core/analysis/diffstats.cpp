#include "analysis/diffstats.h"

#include "events/perfdata.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace etscope {

std::uint64_t SplitMix64::next()
{
    m_state += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = m_state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

namespace {

__extension__ typedef __int128 Int128; // exact counts; GCC and Clang both have it

// Upper tail P(U >= k) of the exact null distribution of U for sample sizes m, n (no ties).
// The counts of U are the coefficients of the Gaussian binomial [m+n choose m]_q, built as
// prod_{i=1..m} (1 - q^{n+i}) / (1 - q^i); every partial product is again a Gaussian binomial,
// so with 128-bit integers the counts stay exact for m <= 8 and n up to ~10^5.
double exactUpperTail(std::size_t m, std::size_t n, std::size_t k)
{
    if (m > n)
        std::swap(m, n);
    const std::size_t maxU = m * n;
    std::vector<Int128> c(maxU + 1, 0);
    c[0] = 1;
    std::size_t degree = 0;
    for (std::size_t i = 1; i <= m; ++i) {
        const std::size_t shift = n + i;
        const std::size_t newDegree = degree + n; // degree of [n+i choose i]_q is i*n
        for (std::size_t d = std::min(newDegree, maxU); d >= shift; --d) // multiply by (1 - q^shift)
            c[d] -= c[d - shift];
        for (std::size_t d = i; d <= newDegree; ++d) // divide by (1 - q^i): running sum with stride i
            c[d] += c[d - i];
        degree = newDegree;
    }
    long double total = 0, tail = 0;
    for (std::size_t d = 0; d <= maxU; ++d) {
        total += static_cast<long double>(c[d]);
        if (d >= k)
            tail += static_cast<long double>(c[d]);
    }
    return total > 0 ? static_cast<double>(tail / total) : 1.0;
}

} // namespace

MannWhitneyResult mannWhitneyU(const std::vector<double> &a, const std::vector<double> &b)
{
    MannWhitneyResult r;
    const std::size_t n1 = a.size(), n2 = b.size();
    if (n1 == 0 || n2 == 0)
        return r;
    const std::size_t n = n1 + n2;

    // Average ranks of the pooled sample (scipy.stats.rankdata), and tie group sizes.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto value = [&](std::size_t i) { return i < n1 ? a[i] : b[i - n1]; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return value(x) < value(y); });
    std::vector<double> ranks(n);
    double tieTerm = 0;
    bool ties = false;
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && value(order[j]) == value(order[i]))
            ++j;
        const double avg = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
        for (std::size_t k = i; k < j; ++k)
            ranks[order[k]] = avg;
        const double t = static_cast<double>(j - i);
        if (j - i > 1)
            ties = true;
        tieTerm += t * t * t - t;
        i = j;
    }
    double r1 = 0;
    for (std::size_t i = 0; i < n1; ++i)
        r1 += ranks[i];
    const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
    const double u1 = r1 - dn1 * (dn1 + 1) / 2;
    const double u2 = dn1 * dn2 - u1;
    const double u = std::max(u1, u2);
    r.u = u1;

    const bool exact = !(n1 > 8 && n2 > 8) && !ties;
    double p;
    if (exact) {
        r.exact = true;
        p = 2.0 * exactUpperTail(n1, n2, static_cast<std::size_t>(u));
    } else {
        const double dn = static_cast<double>(n);
        const double s = std::sqrt(dn1 * dn2 / 12.0 * ((dn + 1) - tieTerm / (dn * (dn - 1))));
        const double num = u - dn1 * dn2 / 2.0 - 0.5; // continuity correction
        if (!(s > 0))
            p = 2.0 * (num > 0 ? 0.0 : 1.0); // scipy: z = ±inf (all values tied: U = mu, p clips to 1)
        else
            p = std::erfc(num / s / std::sqrt(2.0)); // 2 * norm.sf(z)
    }
    r.pValue = std::clamp(p, 0.0, 1.0);
    return r;
}

namespace {

// np.percentile(resample, 50) without building the resample: `counts[i]` copies of sorted[i].
// Same positions and the same _lerp as numpyPercentileSorted on the sorted resample.
double medianOfResample(const std::vector<double> &sorted, const std::vector<std::uint32_t> &counts, std::size_t n)
{
    const double virtualIndex = static_cast<double>(n - 1) * (50.0 / 100.0);
    const double prev = std::floor(virtualIndex);
    const auto lo = static_cast<std::size_t>(prev);
    const std::size_t hi = std::min(lo + 1, n - 1);
    double a = 0, b = 0;
    std::size_t seen = 0;
    bool haveA = false;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        seen += counts[i];
        if (!haveA && seen > lo) {
            a = sorted[i];
            haveA = true;
        }
        if (seen > hi) {
            b = sorted[i];
            break;
        }
    }
    const double t = virtualIndex - prev;
    const double diff = b - a;
    return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

bool anyNaN(const std::vector<double> &v)
{
    return std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
}

} // namespace

Interval bootstrapMedianDifference(
    const std::vector<double> &a, const std::vector<double> &b, const BootstrapOptions &options)
{
    if (a.empty() || b.empty() || options.iterations <= 0)
        return {};
    SplitMix64 rng(options.seed);
    std::vector<double> diffs(static_cast<std::size_t>(options.iterations));
    if (anyNaN(a) || anyNaN(b)) { // numpy's NaN propagation: the plain way
        std::vector<double> ra(a.size()), rb(b.size());
        for (double &d : diffs) {
            for (double &x : ra)
                x = a[rng.index(a.size())];
            for (double &x : rb)
                x = b[rng.index(b.size())];
            d = numpyPercentile(rb, 50) - numpyPercentile(ra, 50);
        }
    } else {
        // Draw indices into the ORIGINAL order (that is the documented scheme), count them per
        // sorted position, and read the median off the counts: O(n) per replicate, no sort.
        auto sortedWithRank = [](const std::vector<double> &v, std::vector<double> &sorted,
                                  std::vector<std::size_t> &rank) {
            std::vector<std::size_t> order(v.size());
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
            sorted.resize(v.size());
            rank.resize(v.size());
            for (std::size_t i = 0; i < order.size(); ++i) {
                sorted[i] = v[order[i]];
                rank[order[i]] = i;
            }
        };
        std::vector<double> sa, sb;
        std::vector<std::size_t> rankA, rankB;
        sortedWithRank(a, sa, rankA);
        sortedWithRank(b, sb, rankB);
        std::vector<std::uint32_t> ca(a.size()), cb(b.size());
        for (double &d : diffs) {
            std::fill(ca.begin(), ca.end(), 0);
            std::fill(cb.begin(), cb.end(), 0);
            for (std::size_t i = 0; i < a.size(); ++i)
                ++ca[rankA[rng.index(a.size())]];
            for (std::size_t i = 0; i < b.size(); ++i)
                ++cb[rankB[rng.index(b.size())]];
            d = medianOfResample(sb, cb, b.size()) - medianOfResample(sa, ca, a.size());
        }
    }
    std::sort(diffs.begin(), diffs.end());
    const double tail = 100.0 * (1.0 - options.level) / 2.0;
    return { numpyPercentileSorted(diffs, tail), numpyPercentileSorted(diffs, 100.0 - tail) };
}

} // namespace etscope
