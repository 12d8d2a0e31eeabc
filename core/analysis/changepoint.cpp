#include "analysis/changepoint.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace etscope {

namespace {

// A segment's points as ranks into its sorted values: a permutation moves ranks, and the
// within-side distance sums come from a Fenwick tree over ranks (count and sum of the points
// already added), so every split's Q̂ costs O(n log n) in all instead of O(n²).
struct RankedSegment {
    std::vector<double> sorted; // the segment's values, ascending
    std::vector<std::uint32_t> ranks; // per point, its place in `sorted` (ties by position)

    explicit RankedSegment(std::span<const double> x)
    {
        std::vector<std::uint32_t> order(x.size());
        std::iota(order.begin(), order.end(), 0U);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return x[a] < x[b]; });
        sorted.resize(x.size());
        ranks.resize(x.size());
        for (std::size_t r = 0; r < order.size(); ++r) {
            sorted[r] = x[order[r]];
            ranks[order[r]] = static_cast<std::uint32_t>(r);
        }
    }
};

class Fenwick
{
public:
    explicit Fenwick(std::size_t n)
        : m_count(n + 1, 0)
        , m_sum(n + 1, 0.0)
    { }
    void add(std::size_t rank, double v)
    {
        for (std::size_t i = rank + 1; i < m_count.size(); i += i & (~i + 1)) {
            ++m_count[i];
            m_sum[i] += v;
        }
    }
    // Count and sum of the points added with a rank below `rank`.
    std::pair<std::size_t, double> below(std::size_t rank) const
    {
        std::size_t c = 0;
        double s = 0;
        for (std::size_t i = rank; i > 0; i -= i & (~i + 1)) {
            c += m_count[i];
            s += m_sum[i];
        }
        return { c, s };
    }

private:
    std::vector<std::size_t> m_count;
    std::vector<double> m_sum;
};

// within[t] = Σ_{i<t} Σ_{k<i} |x_i − x_k| for t = 0 … n, the points taken in the order `ranks` lists them.
template <typename RankAt>
std::vector<double> cumulativeWithin(std::size_t n, const std::vector<double> &sorted, RankAt rankAt)
{
    std::vector<double> within(n + 1, 0.0);
    Fenwick tree(n);
    double total = 0;
    for (std::size_t t = 0; t < n; ++t) {
        const std::size_t r = rankAt(t);
        // Shifted by the smallest value: equal values then cancel exactly (0 − 0), so a series
        // of equal points has Q̂ = 0 exactly instead of rounding noise.
        const double v = sorted[r] - sorted.front();
        const auto [cLess, sLess] = tree.below(r);
        const double cMore = static_cast<double>(t - cLess);
        const double sMore = total - sLess;
        within[t + 1] = within[t] + (v * static_cast<double>(cLess) - sLess) + (sMore - v * cMore);
        tree.add(r, v);
        total += v;
    }
    return within;
}

std::vector<double> statisticsOfRanks(
    const std::vector<double> &sorted, const std::vector<std::uint32_t> &ranks, std::size_t m)
{
    const std::size_t n = ranks.size();
    std::vector<double> q;
    if (m < 2 || n < 2 * m)
        return q;
    const auto left = cumulativeWithin(n, sorted, [&](std::size_t t) { return ranks[t]; });
    const auto rightRev = cumulativeWithin(n, sorted, [&](std::size_t t) { return ranks[n - 1 - t]; });
    const double total = left[n];
    const double nn = static_cast<double>(n);
    q.reserve(n - 2 * m + 1);
    for (std::size_t tau = m; tau <= n - m; ++tau) {
        const double a = static_cast<double>(tau), b = nn - a;
        const double wl = left[tau], wr = rightRev[n - tau];
        const double between = total - wl - wr;
        q.push_back(2.0 / nn * between - 2.0 * b / (nn * (a - 1)) * wl - 2.0 * a / (nn * (b - 1)) * wr);
    }
    return q;
}

std::optional<SplitCandidate> bestOf(const std::vector<double> &q, std::size_t m)
{
    if (q.empty())
        return std::nullopt;
    std::size_t best = 0;
    for (std::size_t i = 1; i < q.size(); ++i)
        if (q[i] > q[best])
            best = i;
    return SplitCandidate { best + m, q[best] };
}

constexpr double kRelativeTolerance = 1e-9;

struct Segment {
    std::size_t begin, end;
};

// The best split over all segments (the first segment's on ties), its index in the whole series.
std::optional<std::pair<SplitCandidate, std::size_t>> bestOverSegments(
    const std::vector<Segment> &segments, const std::vector<RankedSegment> &ranked, std::size_t m)
{
    std::optional<std::pair<SplitCandidate, std::size_t>> best;
    for (std::size_t s = 0; s < segments.size(); ++s) {
        auto c = bestOf(statisticsOfRanks(ranked[s].sorted, ranked[s].ranks, m), m);
        if (c && (!best || c->qhat > best->first.qhat))
            best = std::pair { SplitCandidate { c->index + segments[s].begin, c->qhat }, s };
    }
    return best;
}

} // namespace

std::vector<double> splitStatistics(std::span<const double> x, std::size_t minSegment)
{
    const RankedSegment r(x);
    return statisticsOfRanks(r.sorted, r.ranks, minSegment);
}

std::optional<SplitCandidate> bestSplit(std::span<const double> x, std::size_t minSegment)
{
    return bestOf(splitStatistics(x, minSegment), minSegment);
}

std::vector<ChangePoint> detectChangePoints(std::span<const double> series, const ChangePointOptions &o)
{
    std::vector<ChangePoint> found;
    const std::size_t m = std::max<std::size_t>(o.minSegment, 2);
    for (double v : series)
        if (!std::isfinite(v))
            return found; // callers drop missing points first; a NaN has no distance
    SplitMix64 rng(o.seed);
    std::vector<Segment> segments { { 0, series.size() } };
    // Significant needs (k + 1) / (R + 1) ≤ alpha: past kMax exceedances it cannot be.
    const double kMax = o.alpha * static_cast<double>(o.permutations + 1) - 1.0;
    // Permuted statistics equal to the observed one up to rounding count as exceedances: sums
    // taken in another order differ in their last bits, and must not make a tie "significant".
    // The scale: Σ_{i≠j} |x_i − x_j| / n over the whole series (the scale of Q̂ itself).
    const RankedSegment whole(series);
    const auto withinAll = cumulativeWithin(series.size(), whole.sorted, [&](std::size_t t) { return whole.ranks[t]; });
    const double tolerance
        = kRelativeTolerance * 2.0 * withinAll.back() / std::max<double>(1.0, static_cast<double>(series.size()));
    for (;;) {
        std::vector<RankedSegment> ranked;
        ranked.reserve(segments.size());
        for (const Segment &s : segments)
            ranked.emplace_back(series.subspan(s.begin, s.end - s.begin));
        const auto candidate = bestOverSegments(segments, ranked, m);
        // Q̂ below the tolerance is no divergence at all (equal points, or rounding).
        if (!candidate || candidate->first.qhat <= tolerance)
            break;
        ChangePoint cp;
        cp.index = candidate->first.index;
        cp.qhat = candidate->first.qhat;
        cp.segmentBegin = segments[candidate->second].begin;
        cp.segmentEnd = segments[candidate->second].end;
        std::vector<RankedSegment> shuffled = ranked;
        for (std::size_t r = 0; r < o.permutations; ++r) {
            for (std::size_t s = 0; s < segments.size(); ++s) {
                shuffled[s].ranks = ranked[s].ranks; // every permutation starts from the series as observed
                auto &v = shuffled[s].ranks;
                for (std::size_t i = v.size(); i-- > 1;)
                    std::swap(v[i], v[rng.index(i + 1)]);
            }
            const auto permuted = bestOverSegments(segments, shuffled, m);
            ++cp.permutations;
            if (permuted && permuted->first.qhat >= cp.qhat - tolerance)
                ++cp.exceedances;
            if (static_cast<double>(cp.exceedances) > kMax)
                break;
        }
        cp.pValue = static_cast<double>(cp.exceedances + 1) / static_cast<double>(cp.permutations + 1);
        if (cp.pValue > o.alpha || o.permutations == 0)
            break;
        found.push_back(cp);
        const Segment split = segments[candidate->second];
        segments.erase(segments.begin() + static_cast<std::ptrdiff_t>(candidate->second));
        segments.push_back({ split.begin, cp.index });
        segments.push_back({ cp.index, split.end });
        std::sort(
            segments.begin(), segments.end(), [](const Segment &a, const Segment &b) { return a.begin < b.begin; });
    }
    std::sort(found.begin(), found.end(), [](const ChangePoint &a, const ChangePoint &b) { return a.index < b.index; });
    return found;
}

} // namespace etscope
