#include "events/blockstats.h"

#include <algorithm>
#include <cmath>

namespace etscope {

bool executesMethod(const EventBlock &block)
{
    return std::any_of(
        block.events.begin(), block.events.end(), [](const Event &e) { return e.name == kMethodExecute; });
}

RecordingCounts countRecording(const std::vector<EventBlock> &blocks)
{
    RecordingCounts counts;
    std::size_t largestBlockRuns = 0;
    for (const EventBlock &b : blocks) {
        counts.events += b.events.size();
        largestBlockRuns = std::max(largestBlockRuns, b.runIndices.size());
        if (executesMethod(b))
            counts.runs += b.runIndices.size();
    }
    if (counts.runs == 0)
        counts.runs = largestBlockRuns;
    return counts;
}

bool logsValues(const std::vector<EventBlock> &blocks)
{
    for (const EventBlock &b : blocks)
        for (const Event &e : b.events)
            if (!e.debugData().empty())
                return true;
    return false;
}

std::optional<EventPosition> slowestKernel(const std::vector<EventBlock> &blocks)
{
    std::optional<EventPosition> best;
    double bestAvg = -1;
    for (int b = 0; b < int(blocks.size()); ++b) {
        const auto &events = blocks[std::size_t(b)].events;
        for (int e = 0; e < int(events.size()); ++e) {
            const Event &ev = events[std::size_t(e)];
            if (ev.perfData && !ev.isFramework() && !ev.isOperatorCall() && ev.perfData->avg > bestAvg) {
                bestAvg = ev.perfData->avg;
                best = EventPosition { b, e };
            }
        }
    }
    return best;
}

std::optional<EventPosition> findEventByName(const std::vector<EventBlock> &blocks, std::string_view name)
{
    for (int b = 0; b < int(blocks.size()); ++b) {
        const auto &events = blocks[std::size_t(b)].events;
        for (int e = 0; e < int(events.size()); ++e)
            if (events[std::size_t(e)].name == name)
                return EventPosition { b, e };
    }
    return std::nullopt;
}

std::vector<EventBlock> filterEvents(
    const std::vector<EventBlock> &blocks, const std::function<bool(int block, int event)> &keep)
{
    std::vector<EventBlock> out;
    for (int b = 0; b < int(blocks.size()); ++b) {
        EventBlock copy = blocks[std::size_t(b)];
        copy.events.clear();
        for (int e = 0; e < int(blocks[std::size_t(b)].events.size()); ++e)
            if (keep(b, e))
                copy.events.push_back(blocks[std::size_t(b)].events[std::size_t(e)]);
        if (!copy.events.empty())
            out.push_back(std::move(copy));
    }
    return out;
}

double sampleStddev(std::span<const double> raw, double mean)
{
    if (raw.size() < 2)
        return 0.0;
    double var = 0;
    for (double x : raw)
        var += (x - mean) * (x - mean);
    return std::sqrt(var / double(raw.size() - 1));
}

} // namespace etscope
