#pragma once

// Latency per nn.Module, as a tree: every level of every module path an event was linked to
// (through its graph nodes' nn_module_stack), with the same event rule as
// Inspector.find_total_for_module (OPERATOR_CALL skipped, each event counted once per module).

#include "events/event.h"

#include <cstddef>
#include <string>
#include <vector>

namespace etscope {

struct ModuleRollupNode {
    std::string key; // nn_module_stack key ("L__self___head_fc1"); empty for the root
    std::string path; // as recorded ("L['self'].head.fc1")
    std::string displayPath; // dotted ("head.fc1")
    std::string type; // "torch.nn.modules.linear.Linear"
    double total = 0; // sum of perf avg of the events under this module (target unit)
    std::size_t eventCount = 0; // events with perf data counted in `total`
    std::vector<ModuleRollupNode> children; // in order of first appearance

    double average() const { return eventCount ? total / static_cast<double>(eventCount) : 0.0; }
    const ModuleRollupNode *find(const std::string &key) const; // depth-first
};

// The root stands for the whole model: events linked to at least one module.
ModuleRollupNode buildModuleRollup(const std::vector<EventBlock> &blocks);

} // namespace etscope
