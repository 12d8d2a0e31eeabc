#pragma once

// What backends write into their own (delegate) events, decoded: one small parser per backend
// convention, each following the upstream code that logs it (ExecuTorch commit
// cff6f4dd32e630945b7188512c1f2b4f102b05ad; formats.md §1.8 lists them with examples). The
// Inspector shows these events as opaque strings; etscope reads them into an operator, its
// arguments, the kernel and the identifiers that lead back to the graph. A name that follows no
// known convention decodes to nothing (kind None) and is shown as before.

#include "events/event.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace etscope {

enum class BackendKind { None, Vulkan, Vgf, Neutron, Xnnpack };

enum class BackendEventKind {
    None, // no known convention
    Dispatch, // one GPU compute dispatch (Vulkan query pool)
    Phase, // a host phase of the delegate call (ETVK_*, VGF_*)
    Kernel, // one NPU kernel reported after the inference (Neutron)
    ProfilingDump, // Neutron's closing event that covers the whole profile readout
    Operator, // one XNNPACK runtime operator
};

// One argument of a Vulkan operator as make_arg_json writes it (graph/Logging.cpp): every
// argument has type and value_ref; tensors add dtype, sizes, storage and packed_dim; constant
// tensors (TENSORREF) sizes and dtype; scalars `value`, lists `values` (kept as text).
struct VulkanArg {
    std::string type; // "TENSOR", "TENSORREF", "INT", "INTLIST", "BOOL", "DOUBLE", ...
    std::int64_t valueRef = -1;
    std::string dtype; // vkapi::ScalarType name: "Float", "Half", "Int", ...
    std::optional<std::vector<std::int64_t>> sizes;
    std::string storage; // "TEXTURE_3D", "TEXTURE_2D", "BUFFER"
    std::optional<std::int64_t> packedDim; // WHCN dimension index
    std::string value; // "value" or "values" as written ("1", "[1, 1]"), "" if absent
    bool operator==(const VulkanArg &) const = default;
};

struct BackendEvent {
    BackendKind backend = BackendKind::None;
    BackendEventKind kind = BackendEventKind::None;
    // The operator the event runs, in the backend's words: "aten.convolution.default" (Vulkan),
    // "Fully Connected" (XNNPACK), "Neutron kernel 5" (Neutron, as upstream's own metadata
    // parser names it); "" for phases and for dispatches that belong to no operator.
    std::string op;

    // Vulkan dispatch.
    std::string kernel; // shader name, e.g. "conv2d_float"
    std::optional<std::int64_t> operatorId, dispatchId, delegateNodeId;
    std::vector<VulkanArg> args; // the operator's arguments, output last
    // A staging copy (nchw_to_* / *_to_nchw* shaders of StagingUtils.cpp) carries whatever
    // operator was logged last, not its own: its operator is dropped, see formats.md §1.8.
    bool stagingCopy = false;

    // XNNPACK: "<op> (<layout>[, <dtype>...])[ <variant>] #<instance>".
    std::string layout, dtype, variant;
    std::optional<std::int64_t> instance;

    // Host phases: the name without its prefix ("COPY_INPUTS").
    std::string phase;
    bool wholeCall = false; // ETVK_EXECUTE / VGF_EXECUTE: spans the whole delegate call
    bool init = false; // VGF_INIT_*: logged while the delegate is initialised, not per call

    // Neutron.
    std::optional<std::int64_t> kernelIndex; // running index = the delegate debug identifier
    std::optional<int> functionCode; // the one byte of delegate metadata

    bool decoded() const { return kind != BackendEventKind::None; }
    bool operator==(const BackendEvent &) const = default;
};

const char *backendKindName(BackendKind kind); // "Vulkan", "VGF", "Neutron", "XNNPACK", ""
const char *backendEventKindName(BackendEventKind kind); // "dispatch", "phase", "kernel", ...
// The backend a delegate_map / program names ("VulkanBackend", "VgfBackend", "NeutronBackend",
// "XnnpackBackend"); None for others.
BackendKind backendKindFromName(std::string_view backendName);

// The identifier a decoded event names its node by: Vulkan's delegate_node_id (staging copies
// carry none), Neutron's running kernel index; none for XNNPACK operators (their logging names
// no node, formats.md §1.8).
std::optional<std::int64_t> backendEventIdentifier(const BackendEvent &event);

// The one-cell summary etscope shows in its "backend op" column: the operator; for a dispatch
// without one its kernel; "phase: copy inputs" for phases; "" when nothing was decoded.
std::string backendOpLabel(const BackendEvent &event);

// "TENSOR Float [1, 3, 16, 16] TEXTURE_3D packed_dim 2", "INTLIST [1, 1]", "INT 1".
std::string vulkanArgText(const VulkanArg &arg);
// Every decoded field, one "key: value" line each (tooltips, the CLI's text view).
std::string describeBackendEvent(const BackendEvent &event);

// The parsers, one per convention. `name` is the event's name (its delegate string id).
std::optional<BackendEvent> decodeVulkanDispatch(std::string_view name);
std::optional<BackendEvent> decodeHostPhase(std::string_view name); // ETVK_* and VGF_*
std::optional<BackendEvent> decodeXnnpackOperator(std::string_view name);
// `id` is the integer delegate identifier, `metadatas` the raw metadata per run.
std::optional<BackendEvent> decodeNeutronKernel(std::int64_t id, std::span<const std::string> metadatas);

// Decodes one event. Only delegated events are considered. `backendName` (the ETRecord's
// delegate_map name, the event's own when empty) restricts the conventions tried to that
// backend's; without one, a convention is recognised by its name alone, except Neutron's
// (a bare integer id with one metadata byte per run is only read as Neutron when every run has
// exactly one byte, see formats.md §1.8).
BackendEvent decodeBackendEvent(const Event &event, std::string_view backendName = {});

// The decoded events of a whole recording, looked up by (block, event) position. Events with
// the same name (the same dispatch in every unmerged run) share one decoded value, decoded once.
// Movable, not copyable (entries point into it).
class BackendEventTable
{
public:
    BackendEventTable() = default;
    BackendEventTable(BackendEventTable &&) noexcept = default;
    BackendEventTable &operator=(BackendEventTable &&) noexcept = default;
    BackendEventTable(const BackendEventTable &) = delete;
    BackendEventTable &operator=(const BackendEventTable &) = delete;

    const BackendEvent *find(std::size_t block, std::size_t event) const;
    std::size_t size() const { return m_events.size(); }
    bool empty() const { return m_events.empty(); }
    std::size_t distinct() const { return m_decoded.size(); } // distinct decoded values
    // Every decoded event with its (block, event) position, in file order.
    struct Entry {
        std::size_t block = 0;
        std::size_t event = 0;
        const BackendEvent *decoded = nullptr; // owned by the table
    };
    const std::vector<Entry> &entries() const { return m_events; }

private:
    friend BackendEventTable decodeBackendEvents(
        const std::vector<EventBlock> &blocks, std::optional<std::size_t> onlyBlock);
    std::vector<Entry> m_events; // sorted by (block, event)
    std::deque<BackendEvent> m_decoded; // stable addresses, kept by a move
};

// `onlyBlock`: the events of that block only (one selected event's neighbours).
BackendEventTable decodeBackendEvents(const std::vector<EventBlock> &blocks, std::optional<std::size_t> onlyBlock = {});

// A DELEGATE_CALL with the decoded events it encloses: host phases (the whole-call phase
// first), then dispatches / kernels / operators, in file order. The enclosing call of a
// delegated event is the DELEGATE_CALL of the same instruction and chain that follows it in the
// block (backends log while the call is open, so their events precede it), else the preceding
// one — the rule the event tree nests by.
struct DelegateCallEvents {
    std::size_t block = 0;
    std::size_t delegateCall = 0; // event index of the DELEGATE_CALL
    std::int32_t instructionId = -1;
    BackendKind backend = BackendKind::None;
    std::optional<std::size_t> wholeCall; // event index of ETVK_EXECUTE / VGF_EXECUTE
    std::vector<std::size_t> phases; // event indices of the other phases
    std::vector<std::size_t> work; // dispatches, kernels, operators
};
std::vector<DelegateCallEvents> groupDelegateCalls(
    const std::vector<EventBlock> &blocks, const BackendEventTable &table, std::optional<std::size_t> onlyBlock = {});

// Backend events timed on another clock, placed on the host's for drawing (timeline, Perfetto
// trace). Vulkan's dispatches carry the GPU query pool's timestamps (VulkanBackend.cpp execute
// logs each with log_profiling_delegate after ETVK_COMPUTE_GRAPH_EXECUTE ends, start and end
// from vk_api/QueryPool.cpp extract_results: GPU ticks × the device's timestampPeriod, ns on the
// GPU's own clock; ExecuTorch cff6f4dd32e630945b7188512c1f2b4f102b05ad). When a call's
// dispatches do not lie inside its ETVK_COMPUTE_GRAPH_EXECUTE, every dispatch of that call and run
// is shifted by one offset that puts the earliest at the phase's start: order and gaps between
// dispatches kept, durations unchanged. Dispatches already inside keep their times (offset 0).
class HostClockOffsets
{
public:
    // Ticks to add to the start and end of event `event` of block `block` in the block's run `run`.
    std::int64_t offset(std::size_t block, std::size_t event, std::size_t run) const;
    bool empty() const { return m_offsets.empty(); }
    // One line per block whose events were moved: what, by how much (in the blocks' source ticks).
    const std::vector<std::string> &notes() const { return m_notes; }

private:
    friend HostClockOffsets hostClockOffsets(const std::vector<EventBlock> &blocks);
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::vector<std::int64_t>>> m_offsets; // sorted
    std::vector<std::string> m_notes;
};
HostClockOffsets hostClockOffsets(const std::vector<EventBlock> &blocks);

// Share tables by backend operator (`etscope-cli runs --shares-by backend-operator`,
// formats.md §1.8): the row a decoded event's own time counts under — backendOpLabel, so that
// every instance of an operator ("GEMM #1", "GEMM #2", each Vulkan dispatch of a convolution)
// lands in one row, and each counted host phase in "phase: copy inputs" — or nothing when the
// event wraps other events its backend logged in the same call, so no time counts twice: the
// whole-call phase (ETVK_EXECUTE, VGF_EXECUTE) around any other; ETVK_COMPUTE_GRAPH_EXECUTE
// around the call's dispatches (the GPU time is counted, not the host's wait);
// VGF_DISPATCH_AND_WAIT around VGF_QUEUE_SUBMIT_AND_WAIT_FENCE / VGF_TIMESTAMP_QUERY_READBACK;
// VGF_INIT_TOTAL around the other VGF_INIT_*. A wrapper whose contents were not logged counts.
// `sameCall`: the decoded events of the event's delegate call (groupDelegateCalls), itself included.
std::optional<std::string> backendShareName(const BackendEvent &event, std::span<const BackendEvent *const> sameCall);

// backendShareName of every decoded event of a recording, looked up by position. Events outside
// any DELEGATE_CALL (VGF_INIT_* while the method loads) form one call per block and instruction.
class BackendShareRows
{
public:
    static constexpr int kNotDecoded = -2; // follows no convention: the caller names it
    static constexpr int kNotCounted = -1; // a wrapper of counted events
    int row(std::size_t block, std::size_t event) const; // index into names(), or one of the above
    const std::vector<std::string> &names() const { return m_names; }

private:
    friend BackendShareRows backendShareRows(const std::vector<EventBlock> &, const BackendEventTable &);
    struct Entry {
        std::size_t block = 0, event = 0;
        int row = kNotCounted;
    };
    std::vector<Entry> m_entries; // sorted by (block, event)
    std::vector<std::string> m_names;
};
BackendShareRows backendShareRows(const std::vector<EventBlock> &blocks, const BackendEventTable &table);

} // namespace etscope
