#pragma once

// Latency per nn.Module, as a tree: every level of every module path an event was linked to
// (through its graph nodes' nn_module_stack). Each event's time is counted once, in its *home*
// (moduleHome below): the innermost module that holds every graph node the event is linked to.
// A call whose nodes lie in several modules (a delegated partition running fc1 and fc2, a fused
// kernel) is therefore counted in their common ancestor, listed there as a spanning call, and
// shown in the modules it touches as shared time that their totals do not include. Totals of
// siblings never exceed their parent.
//
// This is deliberately not Inspector.find_total_for_module (linker.h), which credits an event
// to every module any of its nodes sits in; that function keeps the Inspector's semantics for
// `table`, `tsv` and Python.

#include "events/event.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

// Where one linked event's time goes in the module tree.
struct ModuleAttribution {
    std::size_t block = 0, event = 0; // indices into the blocks given
    std::vector<ModuleFrame> home; // outermost first; empty = the model itself
    // Distinct innermost module paths of the event's nodes, in order of first sight (an empty
    // path stands for nodes outside every module, i.e. in the model's own forward).
    std::vector<std::vector<ModuleFrame>> touched;
    bool spanning = false; // touched.size() > 1: labelled where it is counted
    // Time counted at `home`: the perf average; for a DELEGATE_CALL, minus the delegate-internal
    // events of that call that are linked to nodes themselves (they are counted at their own
    // home, so the partition's time is still counted exactly once). 0 without perf data.
    double time = 0;
    bool hasTime = false;
    bool inModule = false; // some node has an nn_module_stack (else the roll-up skips the event)
};

// Every linked event that counts, in block and event order: linked to at least one graph node,
// and neither OPERATOR_CALL nor a framework event (Method::execute and friends). Nodes without
// an nn_module_stack belong to the model itself. The roll-up uses those with `inModule`; the
// graph overlay (programgraph.h) uses all of them, with the same counted `time`.
std::vector<ModuleAttribution> attributeToModules(const std::vector<EventBlock> &blocks);

// "DELEGATE_CALL (XnnpackBackend, instruction 0)", "native_call_addmm.out (instruction 12)".
std::string callLabel(const Event &e);
// Dotted display path of a module path ("head.fc1"); "(model)" for the empty path.
std::string modulePathText(const std::vector<ModuleFrame> &path);

// A call counted in a module although its nodes lie in several modules (see above).
struct SpanningCall {
    std::string label; // callLabel
    double time = 0; // counted in the holding module's total
    // modulePathText of the modules it touches, the holding module itself last (when some of
    // the call's nodes sit directly in it).
    std::vector<std::string> modules;
};

struct ModuleRollupNode {
    std::string key; // nn_module_stack key ("L__self___head_fc1"); empty for the root
    std::string path; // as recorded ("L['self'].head.fc1")
    std::string displayPath; // dotted ("head.fc1")
    std::string type; // "torch.nn.modules.linear.Linear"
    double total = 0; // sum of the counted time of the events whose home is this module or below
    std::size_t eventCount = 0; // events with perf data counted in `total`
    std::vector<SpanningCall> spanning; // calls whose home is exactly this module and that span modules
    // Calls that ran some of this module's ops but span other modules too: counted in an
    // ancestor (sharedAt), not in `total`.
    double sharedTotal = 0;
    std::size_t sharedCount = 0;
    std::string sharedAt; // modulePathText of the module(s) holding them, ", "-separated
    std::vector<ModuleRollupNode> children; // in order of first appearance

    double average() const { return eventCount ? total / static_cast<double>(eventCount) : 0.0; }
    const ModuleRollupNode *find(const std::string &key) const; // depth-first
};

// The root stands for the whole model: events linked to at least one module.
ModuleRollupNode buildModuleRollup(const std::vector<EventBlock> &blocks);

} // namespace etscope
