#include "timelinelayout.h"

#include <algorithm>
#include <limits>

namespace etscope {

TimelineLayout layoutTimeline(
    const EventBlock &block, std::size_t run, double ticksPerUnit, const HostClockOffsets *host, std::size_t blockIndex)
{
    TimelineLayout out;
    struct Raw {
        int event;
        std::uint64_t s, e;
        bool moved;
    };
    std::vector<Raw> raw;
    raw.reserve(block.events.size());
    std::uint64_t t0 = std::numeric_limits<std::uint64_t>::max();
    for (int i = 0; i < int(block.events.size()); ++i) {
        const Event &ev = block.events[i];
        if (run >= ev.startTimes().size() || run >= ev.endTimes().size())
            continue;
        const std::int64_t shift = host && !host->empty() ? host->offset(blockIndex, std::size_t(i), run) : 0;
        const std::uint64_t s = ev.startTimes()[run] + std::uint64_t(shift); // two's complement: s − |shift|
        const std::uint64_t e = std::max(s, ev.endTimes()[run] + std::uint64_t(shift));
        raw.push_back({ i, s, e, shift != 0 });
        t0 = std::min(t0, s);
    }
    if (raw.empty() || !(ticksPerUnit > 0))
        return out;
    // Outer intervals first at equal starts, so containment can be decided with a stack. Events
    // come in about execution order, so the check usually spares the sort; when it does not,
    // introsort on nearly sorted runs falls back to heapsort, a merge does not.
    const auto before = [](const Raw &a, const Raw &b) {
        return a.s != b.s ? a.s < b.s : (a.e != b.e ? a.e > b.e : a.event < b.event);
    };
    if (!std::is_sorted(raw.begin(), raw.end(), before))
        std::stable_sort(raw.begin(), raw.end(), before);
    std::vector<std::uint64_t> openEnds;
    out.bars.reserve(raw.size());
    for (const Raw &r : raw) {
        while (!openEnds.empty() && openEnds.back() < r.e)
            openEnds.pop_back();
        TimelineBar bar;
        bar.event = r.event;
        bar.start = double(r.s - t0) / ticksPerUnit;
        bar.end = double(r.e - t0) / ticksPerUnit;
        bar.lane = int(openEnds.size());
        bar.moved = r.moved;
        openEnds.push_back(r.e);
        out.laneCount = std::max(out.laneCount, bar.lane + 1);
        out.span = std::max(out.span, bar.end);
        out.bars.push_back(bar);
    }
    return out;
}

} // namespace etscope
