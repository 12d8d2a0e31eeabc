#pragma once

#include "common/error.h"
#include "etdump/debugbuffer.h"
#include "etdump/etdumpfile.h"
#include "events/event.h"

#include <functional>
#include <string_view>
#include <vector>

namespace etscope {

struct InspectorOptions {
    TimeConversion time;
    // Used to compare debug data and run outputs across merged runs (the Inspector asserts they
    // are equal; we record a warning instead). Optional.
    const DebugBuffer *debugBuffer = nullptr;
    // Converts a delegated event's timestamps (event name, raw ticks) to the target unit.
    // Default, as in the Inspector: ticks / scale.
    std::function<double(std::string_view eventName, std::uint64_t ticks)> delegateTimeConverter;
};

// Turns the runs of an ETDump into EventBlocks with the Inspector's grouping rules
// (inspector-semantics.md §1-§3). Allocation events, which make the Inspector fail, are
// summarised per block instead.
Result<std::vector<EventBlock>> buildEventBlocks(const ETDumpFile &etdump, const InspectorOptions &options = {});

} // namespace etscope
