#pragma once

// Statistics for comparing two samples of run durations (latency A/B): a two-sided
// Mann–Whitney U test that chooses its method like scipy.stats.mannwhitneyu(method='auto',
// use_continuity=True), and a percentile bootstrap interval of the median difference driven by
// a tiny documented PRNG so that numpy can reproduce the exact intervals.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace etscope {

struct MannWhitneyResult {
    double u = 0; // U statistic of the first sample (scipy's "statistic")
    double pValue = 1; // two-sided
    bool exact = false; // exact null distribution (no ties, min(n) <= 8) vs normal approximation
};

// Two-sided Mann–Whitney U of `a` against `b`, as scipy 1.10's mannwhitneyu with the defaults:
// exact when either sample has at most 8 values and there are no ties, otherwise the normal
// approximation with tie correction and continuity correction. Empty inputs give p = 1.
MannWhitneyResult mannWhitneyU(const std::vector<double> &a, const std::vector<double> &b);

// SplitMix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15; z = state;
// z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
// return z ^ (z >> 31) (all arithmetic mod 2^64). An index below n is (next() * n) >> 64, the
// high half of the 128-bit product (Lemire's multiply-shift; bias < n / 2^64, no division).
class SplitMix64
{
public:
    explicit SplitMix64(std::uint64_t seed)
        : m_state(seed)
    { }
    std::uint64_t next();
    std::size_t index(std::size_t n)
    {
        __extension__ using U128 = unsigned __int128;
        return static_cast<std::size_t>((static_cast<U128>(next()) * n) >> 64);
    }

private:
    std::uint64_t m_state;
};

inline constexpr std::uint64_t kDefaultBootstrapSeed = 0x65747363'6f706531ULL; // "etscope1"

struct BootstrapOptions {
    int iterations = 2000;
    double level = 0.95;
    std::uint64_t seed = kDefaultBootstrapSeed;
};

struct Interval {
    double low = 0, high = 0;
};

// Percentile bootstrap of median(b*) − median(a*). Scheme (reproduced by
// tests/tools/gen_diff_stats.py): one SplitMix64 seeded with `seed`; for each of `iterations`
// replicates draw |a| indices into a, then |b| indices into b (index(n) each), take both medians
// as np.percentile(x, 50), store the difference; the interval is np.percentile(diffs,
// 100·(1−level)/2) and np.percentile(diffs, 100·(1+level)/2) (linear). Empty inputs give {0, 0}.
Interval bootstrapMedianDifference(
    const std::vector<double> &a, const std::vector<double> &b, const BootstrapOptions &options = {});

} // namespace etscope
