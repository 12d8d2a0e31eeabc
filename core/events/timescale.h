#pragma once

#include "common/error.h"

#include <optional>
#include <string>
#include <string_view>

namespace etscope {

enum class TimeScale { NS, US, MS, S, Cycles };

std::string_view timeScaleName(TimeScale t); // "ns", "us", "ms", "s", "cycles"
std::optional<TimeScale> parseTimeScale(std::string_view s);

// How raw ticks become displayed durations. Mirrors the Inspector: duration = ticks / scale
// with scale = factor(source) / factor(target), factors ns=1e9, us=1e6, ms=1e3, s=1, cycles=1.
// Extension: when the source is cycles and cyclesPerSecond is set, cycles count as time with
// factor cyclesPerSecond, so they can be shown in any time unit.
struct TimeConversion {
    TimeScale source = TimeScale::NS;
    TimeScale target = TimeScale::MS;
    std::optional<double> cyclesPerSecond;

    // Errors when exactly one side is cycles without a clock rate (the Inspector raises too).
    Result<double> scaleFactor() const;
    // Units of `scale` in one second (ns 1e9, us 1e6, ms 1e3, s 1; cycles: the clock rate), or
    // none for cycles without a clock rate.
    std::optional<double> unitsPerSecond(TimeScale scale) const;
};

} // namespace etscope
