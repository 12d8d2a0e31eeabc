#pragma once

#include "etdump/runtimevalue.h"
#include "events/perfdata.h"
#include "events/timescale.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace etscope {

// Names the runtime gives to method-level events; never linked to graph nodes.
inline constexpr const char *kMethodInit = "Method::init";
inline constexpr const char *kProgramLoadMethod = "Program::load_method";
inline constexpr const char *kMethodExecute = "Method::execute";
inline constexpr const char *kOperatorCall = "OPERATOR_CALL";
inline constexpr const char *kDelegateCall = "DELEGATE_CALL";
bool isFrameworkEventName(const std::string &name); // the three reserved names

// int id (not -1), string id (not empty), or none.
using DelegateDebugId = std::variant<std::monostate, std::int64_t, std::string>;
std::string delegateDebugIdText(const DelegateDebugId &id); // "" for none

// One entry of a decoded nn_module_stack: outermost module first.
struct ModuleFrame {
    std::string key;  // opaque unique id, e.g. "L__self___layers_0"
    std::string path; // e.g. "layers.0" or "getattr(L['self'].layers, '0')"
    std::string type; // e.g. "torch.nn.modules.linear.Linear"
    bool operator==(const ModuleFrame &) const = default;
};

// A graph node an Event was linked to through its debug handles (ETRecord, §5 of the
// semantics). Order of first sight = the Inspector's dict order for stack_traces and
// module_hierarchy.
struct LinkedNode {
    std::string nodeName;                   // "aten_convolution_default_" style, as the Inspector names it
    std::optional<std::string> stackTrace;  // metadata "stack_trace", none if absent
    std::optional<std::vector<ModuleFrame>> moduleStack; // decoded "nn_module_stack", none if absent
};

// One row of an EventBlock: an operator instance (or framework/delegate event) with its
// latency across all runs of the block. Field names follow the Inspector's Event.
struct Event {
    std::string name;
    std::optional<PerfData> perfData;         // absent when only debug events exist
    std::vector<std::uint64_t> startTimes;    // raw ticks per run (Inspector's start_time)
    std::vector<std::uint64_t> endTimes;      // raw ticks per run (for timelines)
    DelegateDebugId delegateDebugIdentifier;
    bool isDelegatedOp = false;
    std::int32_t instructionId = -1;          // Inspector's _instruction_id
    std::int64_t chainIndex = 0;              // chain of the event (-1 for framework events)
    std::vector<std::string> delegateDebugMetadatas; // raw bytes per run; empty unless some non-empty
    std::vector<RuntimeValue> debugData;      // values of the first run's debug events (tensors by ref)
    bool debugDataDiffersAcrossRuns = false;  // the Inspector would assert here; we flag instead
    std::size_t debugEventsPerRun = 0;

    // Filled by linking with an ETRecord (empty/none otherwise).
    std::optional<std::vector<std::int64_t>> debugHandles;
    bool debugHandlesIsScalar = false;        // map value was an int, not a list
    std::vector<std::string> opTypes;
    int numOutputs = 1;
    std::vector<LinkedNode> linkedNodes;      // stack_traces + module_hierarchy, keyed by node name
    std::optional<std::string> delegateBackendName;

    bool isOperatorCall() const { return name.find(kOperatorCall) != std::string::npos; }
    bool isFramework() const { return isFrameworkEventName(name); }
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
    TimeScale sourceTimeScale = TimeScale::NS;
    TimeScale targetTimeScale = TimeScale::MS;
    std::int32_t bundledInputIndex = -1;     // as recorded; the runtime always writes -1
    std::vector<RuntimeValue> runOutput;     // program outputs of the first run
    bool runOutputDiffersAcrossRuns = false;
    std::vector<std::size_t> runIndices;     // which RunData entries of the file were merged here
    std::vector<AllocatorSummary> allocators;
    std::uint64_t allocationEventCount = 0;
    std::vector<std::string> warnings;       // things the Inspector would have failed on
};

} // namespace etscope
