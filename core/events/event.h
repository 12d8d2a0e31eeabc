#pragma once

#include "etdump/runtimevalue.h"
#include "events/perfdata.h"
#include "events/timescale.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace etscope {

// Names the runtime gives to method-level events; never linked to graph nodes.
inline constexpr const char *kMethodInit = "Method::init";
inline constexpr const char *kProgramLoadMethod = "Program::load_method";
inline constexpr const char *kMethodExecute = "Method::execute";
inline constexpr const char *kOperatorCall = "OPERATOR_CALL";
inline constexpr const char *kDelegateCall = "DELEGATE_CALL";
bool isFrameworkEventName(std::string_view name); // the three reserved names

// int id (not -1), string id (not empty), or none.
using DelegateDebugId = std::variant<std::monostate, std::int64_t, std::string>;
std::string delegateDebugIdText(const DelegateDebugId &id); // "" for none

// One entry of a decoded nn_module_stack: outermost module first.
struct ModuleFrame {
    std::string key; // opaque unique id, e.g. "L__self___layers_0"
    std::string path; // e.g. "layers.0" or "getattr(L['self'].layers, '0')"
    std::string type; // e.g. "torch.nn.modules.linear.Linear"
    bool operator==(const ModuleFrame &) const = default;
};

// A graph node an Event was linked to through its debug handles (ETRecord, §5 of the
// semantics). Order of first sight = the Inspector's dict order for stack_traces and
// module_hierarchy.
struct LinkedNode {
    std::string nodeName; // "aten_convolution_default_" style, as the Inspector names it
    std::optional<std::string> stackTrace; // metadata "stack_trace", none if absent
    std::optional<std::vector<ModuleFrame>> moduleStack; // decoded "nn_module_stack", none if absent
};

// Statistics of an Event's durations as the Inspector's PerfData computes them, with the
// per-run samples in the owning block's EventStore (see PerfData for the owning variant).
struct EventPerf : PerfStats {
    std::span<const double> raw; // one duration per run, in run order, target unit
};

// What few Events carry: delegate identity and metadata, debug data, and what linking with an
// ETRecord adds. Kept out of line so that a plain operator event stays small.
struct EventExtra {
    DelegateDebugId delegateDebugIdentifier;
    std::vector<std::string> delegateDebugMetadatas; // raw bytes per run; empty unless some non-empty
    std::vector<RuntimeValue> debugData; // values of the first run's debug events (tensors by ref)
    std::size_t debugEventsPerRun = 0;

    // Filled by linking with an ETRecord (empty/none otherwise).
    std::optional<std::vector<std::int64_t>> debugHandles;
    bool debugHandlesIsScalar = false; // map value was an int, not a list
    std::vector<std::string> opTypes;
    int numOutputs = 1;
    std::vector<LinkedNode> linkedNodes; // stack_traces + module_hierarchy, keyed by node name
    std::optional<std::string> delegateBackendName;

    const class EventStore *owner = nullptr; // the store that allocated it

    void clearLink();
};

// One row of an EventBlock: an operator instance (or framework/delegate event) with its
// latency across all runs of the block. Field names follow the Inspector's Event. An Event is
// a small handle (56 bytes): its name, samples, statistics and extras live in the block's
// EventStore, so it stays valid as long as some EventBlock sharing that store does.
struct Event {
    std::string_view name; // interned in the block's store
    const EventPerf *perfData = nullptr; // null when only debug events exist
    const std::uint64_t *ticks = nullptr; // start ticks per run, then end ticks per run
    std::int64_t chainIndex = 0; // chain of the event (-1 for framework events)
    const EventExtra *extra = nullptr; // null: no delegate id, metadata, debug data or link
    std::int32_t instructionId = -1; // Inspector's _instruction_id
    bool isDelegatedOp = false;
    bool debugDataDiffersAcrossRuns = false; // the Inspector would assert here; we flag instead

    std::size_t runCount() const { return perfData ? perfData->raw.size() : 0; }
    // Raw ticks per run (Inspector's start_time), and the end ticks (for timelines).
    std::span<const std::uint64_t> startTimes() const { return { ticks, runCount() }; }
    std::span<const std::uint64_t> endTimes() const { return { ticks ? ticks + runCount() : nullptr, runCount() }; }

    const DelegateDebugId &delegateDebugIdentifier() const;
    const std::vector<std::string> &delegateDebugMetadatas() const;
    const std::vector<RuntimeValue> &debugData() const;
    std::size_t debugEventsPerRun() const { return extra ? extra->debugEventsPerRun : 0; }
    const std::optional<std::vector<std::int64_t>> &debugHandles() const;
    bool debugHandlesIsScalar() const { return extra && extra->debugHandlesIsScalar; }
    const std::vector<std::string> &opTypes() const;
    int numOutputs() const { return extra ? extra->numOutputs : 1; }
    const std::vector<LinkedNode> &linkedNodes() const;
    const std::optional<std::string> &delegateBackendName() const;

    bool isOperatorCall() const { return name.find(kOperatorCall) != std::string_view::npos; }
    bool isFramework() const { return isFrameworkEventName(name); }
};

// Owns what the Events of one or more EventBlocks point at: interned names, per-run samples,
// statistics and extras. Append-only with stable addresses; blocks copied from one another
// share it. Not thread-safe for writes: fill it before handing blocks to other threads.
class EventStore
{
public:
    EventStore();
    ~EventStore();
    EventStore(const EventStore &) = delete;
    EventStore &operator=(const EventStore &) = delete;

    std::string_view intern(std::string_view s);
    // Storage for n doubles / ticks / statistics (numbers uninitialised), valid for the
    // store's lifetime; adopt* keeps a filled vector as is.
    double *allocateDoubles(std::size_t n);
    std::uint64_t *allocateTicks(std::size_t n);
    EventPerf *allocatePerfs(std::size_t n);
    const double *adoptDoubles(std::vector<double> v);
    const std::uint64_t *adoptTicks(std::vector<std::uint64_t> v);
    // Statistics of `durations` (numpy-exact, as PerfData::fromRaw), copied in with the ticks
    // (starts then ends; empty for none) and attached to `e`.
    void setPerf(Event &e, std::span<const double> durations, std::span<const std::uint64_t> starts = {},
        std::span<const std::uint64_t> ends = {});
    // The extras of `e` to fill in, created and attached on first use (copied into this store
    // when they belong to another). Events sharing them see the change: they are handles.
    EventExtra &extra(Event &e);

    // Keeps `other` alive as long as this store: a store of recomputed samples whose events still
    // point at another store's names and extras (scoped blocks, session/scope.h).
    void retain(std::shared_ptr<const void> other);

    // Bytes held (for benchmarks).
    std::size_t bytes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

struct AllocatorSummary {
    std::string name;
    std::uint64_t allocationCount = 0; // over all runs of the block
    std::uint64_t totalBytes = 0;
    std::uint64_t maxBytes = 0;
};

// A group of runs with identical run signatures (Inspector's EventBlock).
struct EventBlock {
    std::string name;
    std::vector<Event> events;
    std::shared_ptr<EventStore> store; // what `events` point at (shared by copies)
    TimeScale sourceTimeScale = TimeScale::NS;
    TimeScale targetTimeScale = TimeScale::MS;
    std::int32_t bundledInputIndex = -1; // as recorded; the runtime always writes -1
    std::vector<RuntimeValue> runOutput; // program outputs of the first run
    bool runOutputDiffersAcrossRuns = false;
    std::vector<std::size_t> runIndices; // which RunData entries of the file were merged here
    std::vector<AllocatorSummary> allocators;
    std::uint64_t allocationEventCount = 0;
    std::vector<std::string> warnings; // things the Inspector would have failed on

    // The store, created on first use (for blocks assembled by hand or by other readers).
    EventStore &storage();
};

} // namespace etscope
