#include "export/chrometrace.h"

#include "common/chunkedwriter.h"
#include "etrecord/exportedprogram.h"

#include "common/jsontext.h"
#include "events/backendevents.h"
#include "events/inspectortable.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace etscope {

namespace {

enum Track : int { kFramework = 1, kOperator = 2, kDelegate = 3 };
constexpr const char *kTrackNames[] = { "", "framework", "operators", "delegate-internal" };

// How raw ticks become nanoseconds: exact integer factors for ns/us/ms/s, a double for cycles.
struct TickClock {
    std::uint64_t nsPerTick = 1;
    double nsPerCycle = 0; // > 0 when the source is cycles

    bool exact() const { return nsPerCycle == 0; }
};

Result<TickClock> tickClock(const TimeConversion &t, const std::string &file)
{
    TickClock c;
    switch (t.source) {
    case TimeScale::NS:
        c.nsPerTick = 1;
        break;
    case TimeScale::US:
        c.nsPerTick = 1000;
        break;
    case TimeScale::MS:
        c.nsPerTick = 1000'000;
        break;
    case TimeScale::S:
        c.nsPerTick = 1000'000'000;
        break;
    case TimeScale::Cycles:
        if (!t.cyclesPerSecond || !(*t.cyclesPerSecond > 0))
            return makeError(ErrorCode::InvalidArgument, file,
                "timestamps are in cycles; give the clock rate (--cycles-per-second) to place them "
                "on a time axis");
        c.nsPerCycle = 1e9 / *t.cyclesPerSecond;
        break;
    }
    return c;
}

// The source frame of a Python stack trace, as Python prints it ("File "m.py", line 88, in forward").
std::string topStackFrame(const std::string &trace)
{
    // The user's frame (not torch's), as Python prints a frame line.
    const auto f = userFrame(trace);
    return f ? fmt::format("File \"{}\", line {}, in {}", f->file, f->line, f->function) : std::string();
}

// The block's Event that a raw profile record was merged into, found by the fields the
// Inspector's signature uses. Runs of a block repeat their records in the same order, so the
// answer for a record position is cached and re-checked instead of searched again.
class EventLookup
{
public:
    EventLookup(const EventBlock &block, const StringPool &pool)
        : m_pool(pool)
    {
        for (const Event &e : block.events)
            m_byKey.try_emplace(
                Key { e.instructionId, e.chainIndex, delegateDebugIdText(e.delegateDebugIdentifier()), e.name }, &e);
    }

    const Event *find(std::size_t position, const ProfileEventRecord &p)
    {
        if (position < m_cache.size()) {
            const Cached &c = m_cache[position];
            if (c.name == p.name && c.instructionId == p.instructionId && c.chainIndex == p.chainIndex
                && c.delegateInt == p.delegateDebugIdInt && c.delegateStr == p.delegateDebugIdStr)
                return c.event;
        } else {
            m_cache.resize(position + 1);
        }
        std::string delegateId;
        if (p.delegateDebugIdInt != -1)
            delegateId = std::to_string(p.delegateDebugIdInt);
        else if (p.delegateDebugIdStr != StringPool::Empty)
            delegateId = m_pool.str(p.delegateDebugIdStr);
        std::string name = delegateId.empty() ? m_pool.str(p.name) : delegateId;
        const Event *found = nullptr;
        if (auto it = m_byKey.find(Key { p.instructionId, p.chainIndex, delegateId, name }); it != m_byKey.end())
            found = it->second;
        m_cache[position]
            = { p.name, p.instructionId, p.chainIndex, p.delegateDebugIdInt, p.delegateDebugIdStr, found };
        return found;
    }

private:
    using Key = std::tuple<std::int32_t, std::int64_t, std::string, std::string>;
    struct Cached {
        StringPool::Id name = 0;
        std::int32_t instructionId = -2, chainIndex = 0, delegateInt = 0;
        StringPool::Id delegateStr = 0;
        const Event *event = nullptr;
    };
    const StringPool &m_pool;
    std::map<Key, const Event *> m_byKey;
    std::vector<Cached> m_cache;
};

using Writer = ChunkedWriter;

// What etscope decoded from a backend's own event name (backendevents.h): "backend_op" and the
// fields the convention has.
void appendBackendArgs(fmt::memory_buffer &b, const BackendEvent &d)
{
    auto out = std::back_inserter(b);
    const auto str = [&b](std::string_view key, const std::string &v) {
        if (v.empty())
            return;
        fmt::format_to(std::back_inserter(b), ",\"{}\":", key);
        appendJsonString(b, v);
    };
    const auto num = [&out](std::string_view key, const std::optional<std::int64_t> &v) {
        if (v)
            fmt::format_to(out, ",\"{}\":{}", key, *v);
    };
    str("backend_op", backendOpLabel(d));
    str("backend_event", backendEventKindName(d.kind));
    str("backend_kernel", d.kernel);
    num("operator_id", d.operatorId);
    num("dispatch_id", d.dispatchId);
    num("delegate_node_id", d.delegateNodeId);
    if (!d.args.empty()) {
        b.append(std::string_view(",\"backend_args\":["));
        for (std::size_t i = 0; i < d.args.size(); ++i) {
            if (i)
                b.push_back(',');
            appendJsonString(b, vulkanArgText(d.args[i]));
        }
        b.push_back(']');
    }
    str("layout", d.layout);
    str("dtype", d.dtype);
    str("variant", d.variant);
    num("instance", d.instance);
    str("phase", d.phase);
    num("kernel_index", d.kernelIndex);
    if (d.functionCode)
        fmt::format_to(out, ",\"function_code\":{}", *d.functionCode);
}

void appendNs(fmt::memory_buffer &b, std::uint64_t ns)
{
    fmt::format_to(std::back_inserter(b), "{}", ns);
}

// ns as microseconds with exactly three decimals (no rounding: µs = ns / 1000).
void appendUsFromNs(fmt::memory_buffer &b, std::uint64_t ns)
{
    fmt::format_to(std::back_inserter(b), "{}.{:03}", ns / 1000, ns % 1000);
}

} // namespace

Result<std::pair<std::optional<std::size_t>, std::optional<std::size_t>>> parseRunRange(std::string_view text)
{
    using R = std::pair<std::optional<std::size_t>, std::optional<std::size_t>>;
    if (text.empty() || text == "all")
        return R {};
    auto parse = [](std::string_view s) -> std::optional<std::size_t> {
        std::size_t v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || s.empty())
            return std::nullopt;
        return v;
    };
    const auto dash = text.find('-');
    auto a = parse(dash == std::string_view::npos ? text : text.substr(0, dash));
    auto b = dash == std::string_view::npos ? a : parse(text.substr(dash + 1));
    if (!a || !b || *b < *a)
        return makeError(ErrorCode::InvalidArgument, "",
            fmt::format("bad run selection '{}' (all, N or N-M, runs counted from 0)", text));
    return R { a, b };
}

Result<TraceStats> writeChromeTrace(const Session &session, const TraceOptions &options, const TraceSink &sink)
{
    const std::string &path = session.inputs.etdump;
    auto clock = tickClock(session.inputs.time, path);
    if (!clock)
        return clock.error();
    if (!session.etdump)
        return makeError(ErrorCode::InvalidArgument, path, "no ETDump loaded");
    const ETDumpFile &file = *session.etdump;
    if (options.block && *options.block >= session.blocks.size())
        return makeError(ErrorCode::InvalidArgument, path,
            fmt::format("no block {} (the file has {} blocks, counted from 0)", *options.block, session.blocks.size()));

    // Origin of the time axis: the earliest profile event of the whole file, so that a subset
    // of runs keeps its real position.
    std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
    for (const RunData &run : file.runs)
        for (const ProfileEventRecord &p : run.profileEvents)
            origin = std::min(origin, p.startTime);
    if (origin == std::numeric_limits<std::uint64_t>::max())
        origin = 0;

    // Backend events on another clock (Vulkan's GPU query pool) drawn inside their host phase.
    const HostClockOffsets clockOffsets = hostClockOffsets(session.blocks);
    Writer w(sink, options.chunkSize);
    auto &b = w.buf();
    auto out = std::back_inserter(b);
    TraceStats stats;
    b.append(std::string_view("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":"));
    appendJsonString(b, path);
    fmt::format_to(
        out, ",\"source_time_scale\":\"{}\",\"origin_ticks\":{}", timeScaleName(session.inputs.time.source), origin);
    if (!clock->exact())
        fmt::format_to(out, ",\"cycles_per_second\":{}", *session.inputs.time.cyclesPerSecond);
    if (!clockOffsets.empty()) {
        b.append(std::string_view(",\"clock_notes\":["));
        for (std::size_t i = 0; i < clockOffsets.notes().size(); ++i) {
            if (i)
                b.push_back(',');
            appendJsonString(b, clockOffsets.notes()[i]);
        }
        b.push_back(']');
    }
    b.append(std::string_view("},\n\"traceEvents\":[\n"));
    bool first = true;
    auto sep = [&] {
        if (!first)
            b.append(std::string_view(",\n"));
        first = false;
    };

    const BackendEventTable backendEvents = decodeBackendEvents(session.blocks);
    // With the program: the payload node each decoded event ran (nodelink.h).
    const PayloadEventLinks payloadNodes = payloadEventLinks(session, backendEvents);
    std::vector<std::uint32_t> order;
    for (std::size_t bi = 0; bi < session.blocks.size(); ++bi) {
        if (options.block && bi != *options.block)
            continue;
        const EventBlock &block = session.blocks[bi];
        const std::size_t pid = bi + 1;
        const std::size_t runCount = block.runIndices.size();
        const std::size_t r0 = options.firstRun.value_or(0);
        const std::size_t r1
            = std::min(options.lastRun.value_or(runCount ? runCount - 1 : 0), runCount ? runCount - 1 : 0);

        sep();
        b.append(std::string_view("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":"));
        fmt::format_to(out, "{},\"tid\":0,\"args\":{{\"name\":", pid);
        appendJsonString(b, fmt::format("{} (block {}, {} runs)", block.name, bi, runCount));
        b.append(std::string_view("}}"));
        sep();
        fmt::format_to(out,
            "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"tid\":0,\"args\":{{\"sort_index\":{}}}}}", pid,
            pid);
        for (int t = kFramework; t <= kDelegate; ++t) {
            sep();
            fmt::format_to(out,
                "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}", pid, t,
                kTrackNames[t]);
            sep();
            fmt::format_to(out,
                "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
                pid, t, t);
        }
        if (runCount == 0 || r0 >= runCount)
            continue;

        EventLookup lookup(block, file.strings);
        for (std::size_t k = r0; k <= r1; ++k) {
            const std::size_t runIndex = block.runIndices[k];
            if (runIndex >= file.runs.size())
                continue;
            const RunData &run = file.runs[runIndex];
            const auto &pe = run.profileEvents;
            // Parents before children: start ascending, longer first on ties (nesting viewers
            // expect this order within a thread).
            order.resize(pe.size());
            for (std::uint32_t i = 0; i < pe.size(); ++i)
                order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
                if (pe[x].startTime != pe[y].startTime)
                    return pe[x].startTime < pe[y].startTime;
                return pe[x].endTime > pe[y].endTime;
            });
            for (const std::uint32_t i : order) {
                const ProfileEventRecord &p = pe[i];
                const Event *ev = lookup.find(i, p);
                const bool delegated = p.delegateDebugIdInt != -1 || p.delegateDebugIdStr != StringPool::Empty;
                std::string_view name;
                std::string intName;
                if (p.delegateDebugIdInt != -1) {
                    intName = std::to_string(p.delegateDebugIdInt);
                    name = intName;
                } else if (delegated) {
                    name = file.strings.str(p.delegateDebugIdStr);
                } else {
                    name = file.strings.str(p.name);
                }
                const std::string_view rawName = file.strings.str(p.name);
                const Track track = delegated ? kDelegate
                    : (rawName == kMethodInit || rawName == kProgramLoadMethod || rawName == kMethodExecute)
                    ? kFramework
                    : kOperator;
                // On the host's clock: a backend event timed on another clock moved by one offset
                // per call and run (hostClockOffsets); its duration is unchanged.
                const std::int64_t shift = ev && !clockOffsets.empty()
                    ? clockOffsets.offset(bi, static_cast<std::size_t>(ev - block.events.data()), k)
                    : 0;
                const std::uint64_t startTime = p.startTime + static_cast<std::uint64_t>(shift);
                const std::uint64_t endTime = p.endTime + static_cast<std::uint64_t>(shift);
                // A start after the end (a wrapped 32-bit counter) gets zero length, flagged.
                const bool wrapped = endTime < startTime;
                const std::uint64_t endTicks = wrapped ? startTime : endTime;

                sep();
                b.append(std::string_view("{\"ph\":\"X\",\"name\":"));
                appendJsonString(b, name);
                fmt::format_to(out, ",\"cat\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":", kTrackNames[track], pid,
                    static_cast<int>(track));
                if (clock->exact()) {
                    const std::uint64_t startNs = (startTime - origin) * clock->nsPerTick;
                    const std::uint64_t durNs = (endTicks - startTime) * clock->nsPerTick;
                    appendUsFromNs(b, startNs);
                    b.append(std::string_view(",\"dur\":"));
                    appendUsFromNs(b, durNs);
                    fmt::format_to(out, ",\"args\":{{\"run\":{},\"start_ns\":", k);
                    appendNs(b, startTime * clock->nsPerTick);
                    b.append(std::string_view(",\"dur_ns\":"));
                    appendNs(b, durNs);
                } else {
                    const double startNs = static_cast<double>(startTime - origin) * clock->nsPerCycle;
                    const double durNs = static_cast<double>(endTicks - startTime) * clock->nsPerCycle;
                    fmt::format_to(out,
                        "{:.3f},\"dur\":{:.3f},\"args\":{{\"run\":{},\"start_cycles\":{},\"end_cycles\":{},"
                        "\"start_ns\":{},\"dur_ns\":{}",
                        startNs / 1000, durNs / 1000, k, startTime, endTime,
                        static_cast<double>(startTime) * clock->nsPerCycle, durNs);
                }
                if (wrapped)
                    b.append(std::string_view(",\"wrapped\":true"));
                if (shift != 0)
                    fmt::format_to(out, ",\"clock_offset_ticks\":{},\"recorded_start_ticks\":{}", shift, p.startTime);
                fmt::format_to(out, ",\"instruction_id\":{},\"chain\":{},\"delegated\":{}", p.instructionId,
                    p.chainIndex, delegated ? "true" : "false");
                if (ev) {
                    if (!ev->opTypes().empty()) {
                        b.append(std::string_view(",\"op_types\":["));
                        for (std::size_t t = 0; t < ev->opTypes().size(); ++t) {
                            if (t)
                                b.push_back(',');
                            appendJsonString(b, ev->opTypes()[t]);
                        }
                        b.push_back(']');
                    }
                    if (ev->debugHandles()) {
                        b.append(std::string_view(",\"debug_handles\":["));
                        for (std::size_t t = 0; t < ev->debugHandles()->size(); ++t)
                            fmt::format_to(out, "{}{}", t ? "," : "", (*ev->debugHandles())[t]);
                        b.push_back(']');
                    }
                    if (ev->delegateBackendName()) {
                        b.append(std::string_view(",\"delegate_backend\":"));
                        appendJsonString(b, *ev->delegateBackendName());
                    }
                    if (ev->isDelegatedOp && !backendEvents.empty()) {
                        const auto at = static_cast<std::size_t>(ev - block.events.data());
                        if (const BackendEvent *d = backendEvents.find(bi, at))
                            appendBackendArgs(b, *d);
                        if (const PayloadEventLink *l = payloadNodes.find(bi, at)) {
                            b.append(std::string_view(",\"payload_node\":"));
                            appendJsonString(b, payloadNodes.nodeLabel(*l));
                            b.append(std::string_view(",\"payload_node_placed_by\":"));
                            appendJsonString(b, payloadLinkBasisName(l->basis));
                        }
                    }
                    if (!ev->linkedNodes().empty()) {
                        if (const std::string module = eventModulePath(*ev); !module.empty()) {
                            b.append(std::string_view(",\"module\":"));
                            appendJsonString(b, module);
                        }
                        for (const LinkedNode &n : ev->linkedNodes()) {
                            if (!n.stackTrace)
                                continue;
                            if (const std::string frame = topStackFrame(*n.stackTrace); !frame.empty()) {
                                b.append(std::string_view(",\"stack_frame\":"));
                                appendJsonString(b, frame);
                                break;
                            }
                        }
                    }
                }
                b.append(std::string_view("}}"));
                ++stats.events;
                if (!w.maybeFlush())
                    return makeError(ErrorCode::Io, "", "writing the trace failed");
            }
        }
    }
    b.append(std::string_view("\n]}\n"));
    stats.bytes = w.bytes();
    if (!w.flush())
        return makeError(ErrorCode::Io, "", "writing the trace failed");
    return stats;
}

} // namespace etscope
