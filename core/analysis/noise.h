#pragma once

// The noise level of a numeric gap: how large a gap the dtype's rounding alone explains. Every
// gap view (CLI `flagged`, heatmap, delegate triage, gap chart, graph overlay, report) flags and
// colours by this one rule, so a healthy run shows nothing alarming and a real error stands out
// (docs/inspector-semantics.md §9.4).
//
// Rule: a gap is noise while the error is within a relative tolerance τ of the reference's own
// magnitude, where τ = √ε of the compared dtype (half the significand bits agree): float32
// 3.45e-4, float16 3.1e-2, bfloat16 8.8e-2, float64 1.5e-8. Integer tensors tolerate one unit
// (requantization rounds either way), bool tensors nothing. Per metric, with r the reference:
//   MSE    ≤ (τ·rms(r))²        L1 (a sum) ≤ τ·Σ|r|         MAXABS ≤ τ·max|r|
//   SNR    ≥ −20·log10 τ dB      COSINE ≥ 1 − τ²/2            MAXREL ≤ τ
// (integers: the same with the unit in place of τ·|r|). A user threshold replaces the rule.

#include "analysis/comparator.h"
#include "analysis/numtensor.h"

#include <optional>
#include <string>
#include <vector>

namespace etscope::analysis {

// τ of the rule above for a floating dtype; nullopt for integer and bool dtypes.
std::optional<double> relativeTolerance(ScalarType dtype);

// The noise threshold of comparing `runtime` against `reference` (one tensor each) with `m`,
// in the metric's own units. The coarser of the two dtypes decides.
double noiseThreshold(Metric m, const NumTensor &reference, const NumTensor &runtime);

// How far a gap lies beyond its threshold, in decades (SNR: tens of dB; COSINE: decades of
// 1 − similarity): ≤ 0 is noise, 1 = ten times the noise level. NaN for a NaN gap.
double excessOverNoise(Direction d, Metric m, double gap, double threshold);

// The one colour scale of every gap view, from an excess: [0, 0.5) is noise (0 = exact or six
// decades below the noise level, 0.5 = at it), [0.5, 1] above it (1 = four decades or more).
double gapSeverity(double excess);
// The same for a gap whose flag is known: the colour never contradicts the flag (a NaN excess,
// an error row, a rounding at the boundary).
double gapSeverity(double excess, bool flagged);
inline constexpr double kSeverityDecadesBelow = 6, kSeverityDecadesAbove = 4;

// "noise level (√ε of the dtype)" or "threshold 1e-06", for legends and headers.
std::string thresholdDescription(Metric m, std::optional<double> userThreshold);

} // namespace etscope::analysis
