#pragma once

// Which decoded delegate node a backend's profiling event timed.
//
// XNNPACK (backends/xnnpack/runtime/profiling/XNNProfiler.cpp, submit_trace, at ExecuTorch
// commit cff6f4dd32e630945b7188512c1f2b4f102b05ad): after each run the delegate logs one event
// per XNNPACK *runtime operator*, in the runtime's operator order, named "<operator name> #<n>"
// (n counts operators of that name), with no node id (delegate_debug_id -1). XNNPACK builds its
// operators from the subgraph's nodes in order, but may fuse a node into its producer (a clamp
// into a convolution), drop one (a copy) or lower one into several operators, so the link is
// made by order *and* operator kind: events are walked in order and each is matched to the next
// node whose kind it names ("Fully Connected (NC, F32) GEMM" -> FullyConnected); a node no event
// names is taken as fused. Confidence is Exact when every event found a node of its kind and
// every node got at most one event ("complete": a link by the runtime's order, not by a stored
// id); otherwise the unmatched events are left unlinked — the window and CLI then say the link is
// unknown rather than guess.

#include "program/delegates/delegatepayload.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace etscope {

struct DelegateEventLink {
    std::int64_t node = -1; // index in DelegatePayload::nodes, -1 when not linked
    bool kindMatches = false; // the event's operator name names the node's op
};

struct DelegateEventLinks {
    std::vector<DelegateEventLink> events; // one per event, in the order given
    bool complete = false; // every event linked to a node of its kind, each node at most once
    std::size_t fusedNodes = 0; // nodes no event names (fused or dropped by the backend)
    std::string note; // why the links are incomplete, or "" when exact
};

// XNNPACK operator events (names as logged: "Fully Connected (NC, F32) GEMM #1") of one call of a
// delegate, linked to that delegate's decoded payload.
DelegateEventLinks linkXnnpackEvents(const DelegatePayload &payload, const std::vector<std::string> &eventNames);

// The node kind an XNNPACK operator name stands for ("FullyConnected" for "Fully Connected (NC,
// F32) GEMM #2"), or "" when unknown.
std::string xnnpackOperatorKind(std::string_view operatorName);

} // namespace etscope

namespace etscope {

struct EventBlock;
struct DelegateCallEvents;
class BackendEventTable;
class ProgramMethod;

// How a decoded backend event was placed on a node of its delegate's decoded payload.
enum class PayloadLinkBasis {
    NodeId, // the event names the node's id (Vulkan's delegate_node_id = OperatorCall.node_id)
    // XNNPACK: the runtime logs operators in order with no id; every event of the call matched
    // the next node of its kind (linkXnnpackEvents). Known from the logging code, not stored.
    OrderAndKind,
};
const char *payloadLinkBasisName(PayloadLinkBasis basis); // "node id", "runtime order and kind"

struct PayloadEventLink {
    std::size_t block = 0, event = 0;
    std::int32_t instruction = -1; // the DELEGATE_CALL's instruction
    std::size_t delegateCall = 0; // event index of that DELEGATE_CALL in the block
    const ProgramMethod *method = nullptr;
    std::size_t delegate = 0; // index in method->delegates()
    std::int64_t node = -1; // index in the payload's nodes
    PayloadLinkBasis basis = PayloadLinkBasis::NodeId;
};

// Every decoded backend event of a recording that lands on a node of its delegate's decoded
// payload, and what could not be placed.
struct PayloadEventLinks {
    std::vector<PayloadEventLink> linked; // sorted by (block, event)
    std::size_t byNodeId = 0, byOrder = 0;
    // Work events (operators, dispatches with an operator, kernels) of calls whose payload has
    // nodes that could not be placed: no node of their id, or a call whose XNNPACK events did not
    // all match a node of their kind in order (none of that call's events is linked then).
    std::size_t unplaced = 0;
    std::vector<std::string> notes; // why, once per delegate ("XNNPACK delegate 0 (instruction 0): …")

    const PayloadEventLink *find(std::size_t block, std::size_t event) const;
    // The decoded payload of a link (kept here, decoded once per delegate).
    const DelegatePayload *payload(const PayloadEventLink &link) const;
    // "1 FullyConnected qint8[8, 64] -> qint8[8, 128]": the node, its op, its first non-constant
    // input and output tensor (dtype and shape; describe() has the quantization).
    std::string nodeLabel(const PayloadEventLink &link) const;
    // nodeLines of the link's node, then how it was placed.
    std::vector<std::string> describe(const PayloadEventLink &link) const;

    std::map<std::pair<const ProgramMethod *, std::size_t>, std::shared_ptr<const DelegatePayload>> payloads;
};

// Links the decoded events of `blocks` to the payload nodes of the delegates they ran in.
// `methodOf(block)` names the method whose instruction ids the block's events carry (null: the
// block is left out). `onlyBlock` restricts the work to one block (Details).
PayloadEventLinks linkPayloadEvents(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const std::function<const ProgramMethod *(std::size_t block)> &methodOf, std::optional<std::size_t> onlyBlock = {});

// A payload node, one line each: "XNNPACK FullyConnected node 1 (of 4)", its attributes, its
// debug handle, then one line per input and output value ("in  v0: fp32[1, 64]", marked
// constant, graph input/output and "argument N of the call" for a call of `callArgs` arguments).
std::vector<std::string> payloadNodeLines(const DelegatePayload &payload, std::size_t node, std::size_t callArgs);

} // namespace etscope
