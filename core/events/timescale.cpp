#include "events/timescale.h"

#include <fmt/format.h>

namespace etscope {

std::string_view timeScaleName(TimeScale t)
{
    switch (t) {
    case TimeScale::NS:
        return "ns";
    case TimeScale::US:
        return "us";
    case TimeScale::MS:
        return "ms";
    case TimeScale::S:
        return "s";
    case TimeScale::Cycles:
        return "cycles";
    }
    return "?";
}

std::optional<TimeScale> parseTimeScale(std::string_view s)
{
    for (TimeScale t : { TimeScale::NS, TimeScale::US, TimeScale::MS, TimeScale::S, TimeScale::Cycles })
        if (s == timeScaleName(t))
            return t;
    return std::nullopt;
}

namespace {
double factor(TimeScale t)
{
    switch (t) {
    case TimeScale::NS:
        return 1e9;
    case TimeScale::US:
        return 1e6;
    case TimeScale::MS:
        return 1e3;
    case TimeScale::S:
        return 1;
    case TimeScale::Cycles:
        return 1;
    }
    return 1;
}
} // namespace

std::optional<double> TimeConversion::unitsPerSecond(TimeScale scale) const
{
    if (scale != TimeScale::Cycles)
        return factor(scale);
    if (cyclesPerSecond && *cyclesPerSecond > 0)
        return *cyclesPerSecond;
    return std::nullopt;
}

Result<double> TimeConversion::scaleFactor() const
{
    const bool srcCycles = source == TimeScale::Cycles;
    const bool tgtCycles = target == TimeScale::Cycles;
    if (srcCycles && !tgtCycles) {
        if (!cyclesPerSecond || !(*cyclesPerSecond > 0))
            return makeError(ErrorCode::InvalidArgument, {},
                fmt::format(
                    "cannot convert cycles to {} without a clock rate (cycles per second)", timeScaleName(target)));
        return *cyclesPerSecond / factor(target);
    }
    if (tgtCycles && !srcCycles)
        return makeError(
            ErrorCode::InvalidArgument, {}, fmt::format("cannot convert {} to cycles", timeScaleName(source)));
    // Same arithmetic as Python's TIME_SCALE_DICT[src] / TIME_SCALE_DICT[tgt] (true division).
    return factor(source) / factor(target);
}

} // namespace etscope
