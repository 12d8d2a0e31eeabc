#pragma once

#include "events/backendevents.h"
#include "events/event.h"

#include <vector>

namespace etscope {

struct TimelineBar {
    int event = 0; // index into EventBlock::events
    int lane = 0; // nesting depth: 0 = outermost (e.g. Method::execute)
    double start = 0; // in the target unit, relative to the earliest start of the run
    double end = 0;
    bool moved = false; // placed on the host's clock (HostClockOffsets), its own clock being another
};

struct TimelineLayout {
    std::vector<TimelineBar> bars; // sorted by start
    int laneCount = 0;
    double span = 0; // end of the latest bar
};

// Lays out one run of a block: an event whose interval lies inside another's goes one lane
// deeper (native_call inside OPERATOR_CALL, delegated events inside DELEGATE_CALL, everything
// inside Method::execute). `ticksPerUnit` converts raw ticks to the displayed unit. With `host`
// (hostClockOffsets of the session's blocks, `blockIndex` this block's place among them), events
// timed on another clock (Vulkan dispatches) are drawn where the host ran them; durations unchanged.
TimelineLayout layoutTimeline(const EventBlock &block, std::size_t run, double ticksPerUnit,
    const HostClockOffsets *host = nullptr, std::size_t blockIndex = 0);

} // namespace etscope
