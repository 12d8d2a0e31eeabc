#pragma once

// Graph against graph (issue 30 item 4): two graphs of one ETRecord (the ATen exported_program,
// the Edge program, graph_map entries such as edge_after_transform) evaluated by etscope's
// evaluator on the same inputs, their nodes aligned, and every aligned layer compared with a
// metric of core/analysis judged by the noise rule (analysis/noise.h). Where the graphs part is
// the first flagged layer in graph a's execution order (docs/inspector-semantics.md §14).
//
// Alignment, strongest evidence first; a node is paired at most once and nodes that no rule
// pairs are listed, never paired by guess:
//   1. debug handle: both nodes carry the same `debug_handle` metadata. Within one handle the
//      nodes of the same operator pair in order; otherwise the handle's last node on each side
//      (the node whose output the handle stands for, §8 step 2) pairs with the other's last.
//   2. from_node provenance: a node's `from_node` chain names the other node (by name, and by
//      graph id when that graph's id is known; the nearest ancestor found decides). When several
//      nodes descend from one node (a decomposition), its last descendant in execution order
//      carries its output and is the one paired. Then nodes whose nearest from_node entries name
//      the same origin (name.graph_id) pair, the last of each side.
//   3. position: among the nodes still unpaired, the k-th node of an operator in a pairs with
//      the k-th node of that operator in b — only when both have the same number of unpaired
//      nodes of that operator (otherwise none of them pairs).
// getitem and memory.alloc nodes are not layers (the evaluator reports no output for them).

#include "analysis/comparator.h"
#include "analysis/numtensor.h"
#include "common/error.h"
#include "etrecord/etrecord.h"
#include "eval/evaluator.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace etscope::evalgap {

enum class AlignedBy : std::uint8_t { DebugHandle, FromNode, Position };
const char *alignedByName(AlignedBy a); // "debug_handle", "from_node", "position"

struct NodePair {
    int a = -1, b = -1; // indices into ExportedProgram::nodes
    AlignedBy by = AlignedBy::Position;
};

struct GraphAlignment {
    std::vector<NodePair> pairs; // in graph a's node order
    std::vector<int> unalignedA, unalignedB; // node indices, in node order
};

// `aGraphId` / `bGraphId`: the graph id the other graph's from_node entries use for this graph
// (the ETRecord's export_graph_id for the ATen exported_program); unknown ids match any.
GraphAlignment alignGraphs(const ExportedProgram &a, const ExportedProgram &b,
    std::optional<std::int64_t> aGraphId = std::nullopt, std::optional<std::int64_t> bGraphId = std::nullopt);

// One aligned layer: the two nodes, their outputs and the gap (a = the reference side).
struct GraphDiffRow {
    int aNode = -1, bNode = -1;
    std::string aName, bName; // node names
    std::string aOp, bOp; // normalized operators ("aten.addmm.default")
    std::optional<std::int64_t> aHandle, bHandle;
    AlignedBy by = AlignedBy::Position;
    analysis::NumValue a, b; // outputs; None when a side could not be computed
    std::vector<double> gap; // one per compared tensor (lists compare pairwise, §9)
    std::vector<double> noise; // the threshold each gap is judged by (noise.h, or the user's)
    bool flagged = false; // some gap is worse than its threshold
    std::string error; // a side not computed, or the outputs do not compare (shapes, list lengths)

    double worst(analysis::Direction d) const; // NaN without gaps
    int worstIndex(analysis::Direction d) const; // index of the worst gap, -1 without gaps
    double worstNoise(analysis::Direction d) const; // the threshold the worst gap is judged by
    double excess(analysis::Metric m, analysis::Direction d) const; // noise.h excessOverNoise, NaN without gaps
};

struct UnalignedNode {
    int node = -1;
    std::string name, op;
    std::optional<std::int64_t> handle;
};

struct GraphDiff {
    std::string etrecord; // path
    std::string aGraph, bGraph; // program entry names ("exported_program", "edge_after_transform/forward")
    analysis::Metric metric = analysis::Metric::MSE;
    analysis::Direction direction = analysis::Direction::HigherIsWorse;
    std::optional<double> threshold; // the user's; unset = the noise rule
    std::vector<GraphDiffRow> rows; // graph a's execution order
    std::vector<UnalignedNode> unalignedA, unalignedB;
    std::vector<std::string> warnings;

    // Index into rows of the first flagged layer (where the graphs part); -1 when none.
    int firstParting() const;
    // "the graphs part at layer 5 a:native_layer_norm / b:aten_native_layer_norm (…): MSE 0.00086,
    // beyond the noise level 1.19e-07", or "the graphs agree within noise at every aligned layer";
    // says how many aligned layers could not be compared when some could not.
    std::string verdict() const;
};

struct GraphDiffOptions {
    std::string a = "exported_program", b = "edge_dialect_exported_program"; // graph names (see resolveGraph)
    eval::InputChoice inputs; // empty: the ETRecord's representative_inputs
    analysis::Metric metric = analysis::Metric::MSE;
    std::optional<double> threshold; // replaces the noise rule
    int threads = 0;
    std::int64_t maxMemory = 0; // eval::EvalOptions::maxMemory
    std::function<bool(int permille)> progress; // 0..1000 over both runs; false cancels
};

// A graph of the ETRecord by name: "exported_program", "edge_dialect_exported_program" (the
// forward method's), or a program entry ("edge_after_transform" = "edge_after_transform/forward").
// Unknown names fail with the list of names the ETRecord has.
Result<const ETRecordProgram *> resolveGraph(const ETRecord &record, const std::string &name);

// Evaluates both graphs on the chosen inputs, aligns and compares them. Fails (one line) on an
// unknown graph, inputs that cannot be chosen, a graph the evaluator refuses, or no aligned node.
Result<GraphDiff> diffGraphs(const ETRecord &record, const GraphDiffOptions &opts);

// Judges every row again with `threshold` (the metric's units) or the noise rule when unset.
void applyThreshold(GraphDiff &d, std::optional<double> threshold);

// The aligned table for a terminal, the verdict and the unaligned lists.
std::string graphDiffText(const GraphDiff &d);
// One row per aligned layer, header first; gaps full precision ("%.17g", ';'-joined).
std::string graphDiffTsv(const GraphDiff &d);
// Everything, for machines: graphs, metric, rows, first parting layer, verdict, unaligned lists,
// warnings. Non-finite numbers are the strings "inf", "-inf", "nan" (strict JSON).
std::string graphDiffJson(const GraphDiff &d);

} // namespace etscope::evalgap
