#pragma once

// Where a decoded backend event lands in the graph: its backend identifier (Vulkan's
// delegate_node_id, Neutron's running index) looked up in the ETRecord's delegate_map entry of
// its DELEGATE_CALL instruction, then the Edge program's nodes that carry those debug handles
// (formats.md §1.8). The Inspector cannot do this for Vulkan: it looks up the whole dispatch
// string, which is never a key.

#include "common/chunkedwriter.h"
#include "events/backendevents.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace etscope {

class ETRecord;

struct BackendNodeLink {
    std::string identifier; // the delegate_map key looked up ("3")
    std::vector<std::int64_t> debugHandles;
    std::vector<std::string> nodeNames; // Inspector names of the nodes ("aten_convolution_default_")
    std::vector<std::string> opTypes; // their operators ("aten.convolution.default")
    // Linked inside the delegate's decoded payload instead (a .pte drawn without an ETRecord):
    // the payload nodes (indices in payload order) whose node id is the identifier.
    std::vector<std::int64_t> payloadNodes;
    // The key was found verbatim in this instruction's delegate_map and every handle names a
    // node of the reference graph (or the identifier names exactly one payload node): the
    // event's time can be given to those nodes.
    bool exact = false;
};

// Links one decoded event of the DELEGATE_CALL instruction `instructionId` to nodes, or none.
using BackendLinker = std::function<std::optional<BackendNodeLink>(std::int32_t instructionId, const BackendEvent &)>;

// The link of one decoded event of `method`'s instruction `instructionId`; none when the event
// has no identifier, the ETRecord has no delegate_map entry for the instruction or no key for
// the identifier.
std::optional<BackendNodeLink> linkBackendEvent(
    const ETRecord &record, const std::string &method, std::int32_t instructionId, const BackendEvent &event);

// One decoded event with its link, for etscope's own views (CLI `backend-events`, JSON).
struct BackendEventRow {
    std::size_t block = 0;
    std::size_t event = 0;
    const BackendEvent *decoded = nullptr; // in the table the rows were made from
    std::optional<BackendNodeLink> link; // needs an ETRecord
};
// `record` may be null (no links).
std::vector<BackendEventRow> backendEventRows(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const ETRecord *record, const std::string &method);
// The same rows linked by `link` (null: no links).
std::vector<BackendEventRow> backendEventRows(
    const std::vector<EventBlock> &blocks, const BackendEventTable &table, const BackendLinker &link);

// (block, event) -> debug handles of every decoded event whose link is exact: what a view that
// gives graph nodes their time (the graph overlay, share tables) can add to the Inspector's own
// links (Event::debugHandles), which Vulkan dispatches never have.
std::map<std::pair<std::size_t, std::size_t>, std::vector<std::int64_t>> exactBackendHandles(
    const std::vector<EventBlock> &blocks, const BackendEventTable &table, const ETRecord &record,
    const std::string &method);

// What a graph overlay gives to nodes beyond the Inspector's links: every decoded event whose
// link is exact (Vulkan dispatches; Neutron kernels only when the Inspector did not link their
// integer id itself), with the DELEGATE_CALL that
// encloses it (groupDelegateCalls), whose time it is part of. Linked events that are not exact
// are counted, not attributed (formats.md §1.8).
struct BackendGraphLinks {
    struct Linked {
        std::size_t block = 0, event = 0;
        std::optional<std::size_t> delegateCall; // event index of the enclosing DELEGATE_CALL
        std::vector<std::int64_t> debugHandles;
        std::int32_t instruction = -1; // the event's DELEGATE_CALL instruction
        std::vector<std::int64_t> payloadNodes; // linked in the decoded payload (BackendNodeLink)
        // Placed by the runtime's operator order and kind, not an id (nodelink.h, XNNPACK).
        bool byOrder = false;
    };
    std::vector<Linked> exact; // by (block, event)
    std::size_t inexact = 0; // decoded events whose identifier was found, but not exactly
    // Decoded operator events the linker was asked about that it could not place (XNNPACK's
    // without a payload whose nodes their order matches).
    std::size_t unidentified = 0;
    std::size_t byOrder = 0; // entries of `exact` placed by order (XNNPACK)
    std::vector<std::string> notes; // why events were not placed, one line per delegate
    const Linked *find(std::size_t block, std::size_t event) const;
};
BackendGraphLinks backendGraphLinks(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const ETRecord &record, const std::string &method);
// The same rule with another linker (graph/programgraph.h: payloadGraphLinks, the decoded
// payload of a .pte drawn without an ETRecord). `unidentified` counts the decoded operator
// events for which `wanted` holds that carry no identifier.
BackendGraphLinks backendGraphLinks(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const BackendLinker &link, const std::function<bool(std::int32_t instructionId)> &wanted = {});

// The node of its delegate's decoded payload a decoded event ran (session.h payloadEventLinks
// makes them; nodelink.h the rule), as the JSON and the CLI show it.
struct PayloadNodeRef {
    std::size_t delegate = 0; // index in the method's delegates
    std::int64_t node = -1; // index in the payload's nodes
    std::string op; // "FullyConnected"
    std::string label; // "1 FullyConnected qint8[8, 64] -> qint8[8, 128]"
    std::string placedBy; // "node id", "runtime order and kind"
    std::vector<std::string> details; // the node's attributes and values, one line each
};
using PayloadNodeOf = std::function<std::optional<PayloadNodeRef>(std::size_t block, std::size_t event)>;

// {"unit", "events": [{block, block_name, event, name, instruction_id, backend, kind, backend_op,
// op, kernel, operator_id, dispatch_id, delegate_node_id, args, layout, dtype, variant, instance,
// phase, whole_call, init, staging_copy, kernel_index, function_code, runs, avg, p50, node,
// payload_node: {delegate, node, op, label, placed_by, details}}],
// "delegate_calls": [{block, event, instruction_id, backend, avg, whole_call, phases, work}]}
// Times in `unit` (the blocks' target time scale), absent fields left out (formats.md §1.8).
// Streamed in 1 MB chunks (false when the sink failed); format* returns it whole.
// `payloadNode` (may be empty) gives each event its payload node.
bool writeBackendEventsJson(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const ETRecord *record, const std::string &method, const TextSink &sink, const PayloadNodeOf &payloadNode = {});
std::string formatBackendEventsJson(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const ETRecord *record, const std::string &method, const PayloadNodeOf &payloadNode = {});

} // namespace etscope
