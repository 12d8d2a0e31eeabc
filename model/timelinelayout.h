#pragma once

#include "events/event.h"

#include <vector>

namespace etscope {

struct TimelineBar {
    int event = 0; // index into EventBlock::events
    int lane = 0; // nesting depth: 0 = outermost (e.g. Method::execute)
    double start = 0; // in the target unit, relative to the earliest start of the run
    double end = 0;
};

struct TimelineLayout {
    std::vector<TimelineBar> bars; // sorted by start
    int laneCount = 0;
    double span = 0; // end of the latest bar
};

// Lays out one run of a block: an event whose interval lies inside another's goes one lane
// deeper (native_call inside OPERATOR_CALL, delegated events inside DELEGATE_CALL, everything
// inside Method::execute). `ticksPerUnit` converts raw ticks to the displayed unit.
TimelineLayout layoutTimeline(const EventBlock &block, std::size_t run, double ticksPerUnit);

} // namespace etscope
