#pragma once

// The session's run table (scope.h): which method, phase and generation each executed run
// belongs to, decided once. The rules are docs/inspector-semantics.md "Runs over time"; the
// constants below are theirs.

#include "events/event.h"
#include "program/runattribution.h"
#include "session/scope.h"

#include <optional>
#include <string_view>
#include <vector>

namespace etscope {

// Warm-up: a phase's leading runs, fewer than half of it, each longer than this factor times the
// median of the runs after it.
inline constexpr double kWarmupFactor = 2.0;
// Outliers: |0.6745 (r − median r)| / MAD > this, r = residuals from the phase's fit (modified
// z-score, Iglewicz & Hoaglin), MAD floored at kMadFloor × the phase's median duration.
inline constexpr double kOutlierZ = 3.5;
inline constexpr double kMadFloor = 1e-3;
// --phase-by duration: a run at least this many times the median run is a prefill run.
inline constexpr double kPrefillDurationFactor = 3.0;
// --phase-by operators (the default for one method used for both phases): a run's work scales
// with a prompt when at least kScaledOperatorsShare of its operators take at least
// kScaledOperatorFactor times their median over the recording's runs, and unevenly: the 90th
// percentile of those ratios is at least kPrefillSpread times the 10th (work that grows with the
// prompt's tokens grows, work over a fixed-size cache or per call does not; a slow machine, a
// cold cache or a stall slows every operator alike, or only a few).
inline constexpr double kScaledOperatorFactor = 2.0;
inline constexpr double kScaledOperatorsShare = 0.25;
inline constexpr double kPrefillSpread = 2.0;
// The first prefill is among the recording's first kFirstPrefillWithin runs (the runs before it
// are warm-up); a later one starts a new generation when its scaled operators are those of the
// first prefill (Jaccard index ≥ kSameOperatorsJaccard) and it follows decode runs.
inline constexpr std::size_t kFirstPrefillWithin = 3;
inline constexpr double kSameOperatorsJaccard = 0.5;

// The phase a method's name says: "prefill" when it contains "prefill", "decode" when it contains
// "decode" or "kv_forward" (case-insensitive), else empty.
std::string phaseOfMethodName(std::string_view method);

// Decides the table from the blocks and, with a program, each block's attribution (empty
// without one). loadSession calls it; so do analyses handed bare blocks.
RunTable buildRunTable(
    const std::vector<EventBlock> &blocks, const std::vector<RunAttribution> &attribution, const PhaseOptions &options);

// The event whose durations are a block's run durations: its (last) Method::execute; null when none.
const Event *executeEvent(const EventBlock &block);

// numpy's median (mean of the two middle values); NaN for none.
double medianOf(std::vector<double> v);
// Theil's estimator with pairs half the sample apart (Theil 1950, the "incomplete" method):
// slope = median of (y[i+h] − y[i]) / h for i < n − h, h = ceil(n/2), x = 0, 1, …; intercept =
// median of y[i] − slope·i. Each run enters at most one pair, so an outlier moves one slope.
struct TheilFit {
    double slope = 0, intercept = 0;
};
std::optional<TheilFit> theilFit(const std::vector<double> &y);

} // namespace etscope
