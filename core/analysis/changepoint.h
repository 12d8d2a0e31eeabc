#pragma once

// Change points in one series by E-divisive means (Matteson & James 2014, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data", arXiv:1306.4933) with a
// permutation significance test, as MongoDB's performance CI (Daly et al., ICPE 2020, "The Use of
// Change Point Detection to Identify Software Performance Regressions in a Continuous
// Integration System") and Apache Otava (formerly Hunter; otava/change_point_divisive/) apply it
// to benchmark histories. The method, its parameters and the measured false-alarm rate are in
// docs/history.md; tests/tools/edivisive_reference.py is an independent numpy twin.

#include "analysis/diffstats.h" // SplitMix64: the permutations' generator

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace etscope {

struct ChangePointOptions {
    // A candidate is a change point when its permutation p-value is at most this.
    double alpha = 0.001;
    // At most this many permutations per candidate; p = (k + 1) / (r + 1) after r permutations
    // of which k gave a statistic at least the candidate's. The smallest p is 1 / (R + 1).
    std::size_t permutations = 999;
    // Neither side of a split may hold fewer points than this (≥ 2: a side's within-distance
    // term needs a pair).
    std::size_t minSegment = 3;
    std::uint64_t seed = 0x6574'7363'6f70'6521ULL; // the permutations' only source of chance
};

struct ChangePoint {
    std::size_t index = 0; // the first point after the change
    double qhat = 0; // Q̂ of the split (Matteson & James eq. 6, α = 1, κ = the segment's end)
    double pValue = 1;
    std::size_t permutations = 0; // how many were run (fewer when stopped early)
    std::size_t exceedances = 0; // permutations whose best Q̂ was ≥ qhat
    std::size_t segmentBegin = 0, segmentEnd = 0; // the segment [begin, end) it split
};

// The best split of x into x[0, τ) and x[τ, n), τ in [minSegment, n - minSegment]: the first τ
// of the largest Q̂. None when x is shorter than 2 × minSegment.
struct SplitCandidate {
    std::size_t index = 0;
    double qhat = 0;
};
std::optional<SplitCandidate> bestSplit(std::span<const double> x, std::size_t minSegment);

// Q̂ of every split τ in [minSegment, n - minSegment] (index τ - minSegment), O(n log n).
std::vector<double> splitStatistics(std::span<const double> x, std::size_t minSegment);

// Hierarchical E-divisive: the best split over all current segments is tested by permuting the
// points within each segment (all segments, independently, from the series as observed) and
// taking the best split of the permuted series; a significant one splits its segment, and the
// search goes on until a candidate is not significant. Permutations stop early as soon as the
// candidate can no longer reach alpha. Sorted by index. Deterministic for a seed: one SplitMix64
// (analysis/diffstats.h) and a Fisher–Yates shuffle per segment, segments in index order, drawing
// j = index(i + 1) for i = n-1 … 1 — simple enough for the numpy twin to reproduce draw for draw.
std::vector<ChangePoint> detectChangePoints(std::span<const double> series, const ChangePointOptions &options = {});

} // namespace etscope
