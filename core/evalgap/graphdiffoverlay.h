#pragma once

// Graph against graph, drawn: each side's graph (graph/programgraph.h) with the per-layer gap of
// a GraphDiff as its gap overlay, so the two graphs can be shown side by side with the same
// colours as every gap view, and a node of one side leads to its aligned node on the other.

#include "common/error.h"
#include "evalgap/graphdiff.h"
#include "graph/programgraph.h"

#include <memory>
#include <string>

namespace etscope::evalgap {

enum class DiffSide { A, B };

// The drawable graph of one side (`name` as GraphDiff::aGraph / bGraph, resolved as diffGraphs
// resolves it); `placeholders`: graph inputs and weights as their own nodes.
Result<graph::ProgramGraph> diffSideGraph(
    std::shared_ptr<const ETRecord> record, const std::string &name, bool placeholders = false);

// The gap of every aligned layer on the node of that side (matched by node name); unaligned
// nodes and rows that could not be compared have no gap (NaN), never a guessed one. No latency.
graph::OverlayData graphDiffOverlay(const GraphDiff &d, const graph::ProgramGraph &g, DiffSide side);

// Index into d.rows of the aligned layer whose node on `side` is `nodeName`; -1 when unaligned.
int graphDiffRowOfNode(const GraphDiff &d, const std::string &nodeName, DiffSide side);

} // namespace etscope::evalgap
