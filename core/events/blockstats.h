#pragma once

#include "events/event.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace etscope {

// Rules about a whole recording that the window, the CLI and the Python package share.

// A block that executed the method: it holds a Method::execute event.
bool executesMethod(const EventBlock &block);

struct RecordingCounts {
    std::size_t events = 0; // rows of every block
    // Executions: the runs of the blocks that executed the method. The load-time block is a
    // run_data entry too, but not a run the user asked for; with no executing block, the largest
    // block's run count.
    std::size_t runs = 0;
};
RecordingCounts countRecording(const std::vector<EventBlock> &blocks);

// Whether the runtime logged any values (intermediate or program outputs) into the recording: a
// profile-only recording has nothing a numeric gap could compare.
bool logsValues(const std::vector<EventBlock> &blocks);

// Where an event sits: block index and event index within the block.
struct EventPosition {
    int block = -1;
    int event = -1;
    bool operator==(const EventPosition &) const = default;
};

// The kernel with the largest average duration (framework events and OPERATOR_CALL rows
// excluded; first in file order on ties): what a user opens a profile to find.
std::optional<EventPosition> slowestKernel(const std::vector<EventBlock> &blocks);

// First event with this exact name, in file order.
std::optional<EventPosition> findEventByName(const std::vector<EventBlock> &blocks, std::string_view name);

// Copies of the blocks keeping only the events `keep(block, event)` accepts; blocks left empty
// are dropped (what an export of a filtered table writes).
std::vector<EventBlock> filterEvents(
    const std::vector<EventBlock> &blocks, const std::function<bool(int block, int event)> &keep);

// Sample standard deviation (ddof = 1, as pandas' Series.std) of `raw` around `mean`; 0 for
// fewer than two samples.
double sampleStddev(std::span<const double> raw, double mean);

} // namespace etscope
