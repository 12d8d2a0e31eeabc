#include "etdumprescale.h"

#include "etdump/etdumpfile.h"
#include "etdumpwriter.h"

#include <cmath>
#include <utility>

namespace etscope::test {

Result<std::string> rescaleETDump(const std::string &path, const std::vector<Rescale> &changes)
{
    auto file = readETDump(path);
    if (!file)
        return file.error();
    const ETDumpFile &f = **file;
    ETDumpWriter w;
    for (const RunData &run : f.runs) {
        // (end time in the original run, ticks added there) for every rescaled event, in time order.
        std::vector<std::pair<std::uint64_t, std::int64_t>> shifts;
        for (const ProfileEventRecord &p : run.profileEvents) {
            const std::string &name = f.strings.str(p.name);
            for (const Rescale &c : changes)
                if (c.eventName == name && c.instructionId == p.instructionId) {
                    const auto d = static_cast<std::int64_t>(p.endTime - p.startTime);
                    shifts.emplace_back(p.endTime, std::llround(static_cast<double>(d) * c.factor) - d);
                }
        }
        auto map = [&](std::uint64_t t) {
            std::int64_t add = 0;
            for (const auto &[end, delta] : shifts)
                if (end <= t)
                    add += delta;
            return static_cast<std::uint64_t>(static_cast<std::int64_t>(t) + add);
        };
        if (!run.debugEvents.empty())
            return makeError(ErrorCode::Unsupported, path, "rescaleETDump: debug events are not re-encoded");
        w.beginRun(run.name, run.bundledInputIndex, run.hasEvents);
        for (const std::string &a : run.allocators)
            w.addAllocator(a);
        for (const EventRef &ref : run.events) {
            if (ref.kind == EventRef::Kind::Profile) {
                const ProfileEventRecord &p = run.profileEvents[ref.index];
                ProfileSpec s;
                if (p.name)
                    s.name = f.strings.str(p.name);
                s.chainIndex = p.chainIndex;
                s.instructionId = p.instructionId;
                s.delegateDebugIdInt = p.delegateDebugIdInt;
                if (p.delegateDebugIdStr)
                    s.delegateDebugIdStr = f.strings.str(p.delegateDebugIdStr);
                if (p.delegateDebugMetadata)
                    s.delegateDebugMetadata = f.strings.str(p.delegateDebugMetadata);
                s.startTime = map(p.startTime);
                s.endTime = map(p.endTime);
                w.addProfile(s);
            } else if (ref.kind == EventRef::Kind::Allocation) {
                const AllocationEventRecord &a = run.allocationEvents[ref.index];
                w.addAllocation(a.allocatorId, a.allocationSize);
            }
        }
    }
    return w.finish(f.version);
}

} // namespace etscope::test
