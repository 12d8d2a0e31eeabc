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
// every node got at most one event; otherwise the unmatched events are left unlinked — the
// window and CLI then say the link is unknown rather than guess.

#include "program/delegates/delegatepayload.h"

#include <string>
#include <string_view>
#include <vector>

namespace etscope {

struct DelegateEventLink {
    std::int64_t node = -1; // index in DelegatePayload::nodes, -1 when not linked
    bool kindMatches = false; // the event's operator name names the node's op
};

struct DelegateEventLinks {
    std::vector<DelegateEventLink> events; // one per event, in the order given
    bool exact = false; // every event linked to a node of its kind, each node at most once
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
