#pragma once

// Links EventBlocks to an ETRecord the way the Python Inspector does (inspector-semantics.md §5):
// debug handles from debug_handle_map, backend names from delegate_map, num_outputs from
// instruction_id_to_num_outs_map, then op_types / stack traces / module stacks from the nodes
// of the reference graph that carry those handles.

#include "common/error.h"
#include "events/event.h"

#include <string>
#include <string_view>
#include <vector>

namespace etscope {

class ETRecord;

struct LinkOptions {
    // The Inspector only ever consults "forward"; other methods can be chosen here.
    std::string method = "forward";
    // Program entry used to find nodes ("edge_dialect_exported_program/forward",
    // "aten_dialect_output/forward", ...). Empty: the Edge program of `method`.
    std::string referenceGraph;
    // The Inspector resolves a delegate identifier it cannot find verbatim by letting every
    // inner-map key that is a substring of the identifier's text overwrite the result (the last
    // one in map order wins), so identifier 12 may get the handles of key "1". We match exactly
    // unless this is set.
    bool delegateSubstringQuirk = false;
};

struct LinkReport {
    std::string referenceGraph; // entry actually used ("" if none was found)
    std::size_t linkedEvents = 0; // events that received debug handles
    std::size_t eventsWithOpTypes = 0;
    std::size_t danglingHandles = 0; // handles that match no node (the event keeps them, no op types)
    // Signs that the ETRecord describes another program than the one that produced the ETDump
    // (the Inspector links such pairs silently and labels kernels with unrelated operators).
    std::size_t runtimeInstructions = 0; // distinct instruction ids of runtime operator events
    std::size_t unmatchedInstructions = 0; // of those, ids missing from debug_handle_map
    std::size_t comparedKernels = 0; // non-delegated kernels with op types to compare
    std::size_t mismatchedKernels = 0; // of those, kernels whose name names none of their op types
    std::string mismatchExample; // "native_call_convolution.out -> aten.permute_copy.default"
    bool mismatch = false; // one of the above is bad enough to warn
    std::vector<std::string> warnings; // one line each
};

// Fills the ETRecord fields of every Event (previous link results are replaced).
Result<LinkReport> linkETRecord(
    std::vector<EventBlock> &blocks, const ETRecord &record, const LinkOptions &options = {});

// The operator a kernel event implements, from its name ("native_call_convolution.out" ->
// "convolution"), or "" when the name does not follow the kernel wrapper's pattern.
std::string kernelOperatorName(std::string_view eventName);
// The bare operator of an op type ("aten.convolution.default", "aten::convolution" -> "convolution").
std::string opTypeOperatorName(std::string_view opType);

// Inspector.find_total_for_module: sum of perf avg (target unit) over events other than
// OPERATOR_CALL whose module hierarchy has a key containing `name`; each event counted once.
double findTotalForModule(const std::vector<EventBlock> &blocks, std::string_view name);

} // namespace etscope
