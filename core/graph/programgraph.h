#pragma once

// The exported program as a drawable graph (plain C++, shared by the GUI's graph view and
// `etscope-cli graph --svg`): one node per operator, tensor data-flow edges, nested groups for
// the nn_module_stack hierarchy and for delegated partitions, a collapse state per group, and
// the overlay values (latency from linked events, numeric gap) per node and per group.

#include "common/error.h"
#include "etrecord/backendlink.h"
#include "etrecord/etrecord.h"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace etscope {
struct EventBlock;
struct DelegatePayload;
class BackendEventTable;
class Program;
namespace analysis {
struct GapTable;
}
} // namespace etscope

namespace etscope::graph {

struct OpNode {
    std::string name; // serialized node name (the Graphviz node / SVG <title>)
    std::string opName; // Inspector op name, "aten.addmm.default"
    std::string shortOp; // "addmm"
    std::string shape; // output shape(s), "[1, 128]"
    std::optional<std::int64_t> debugHandle;
    bool placeholder = false; // a graph input (user input, weight) drawn on request
    int group = 0; // innermost group (0 = the whole program)
    int partition = -1; // index into ProgramGraph::partitions(), -1 = not delegated
    std::vector<std::string> collapsedInputs; // placeholders folded into this node ("x", "p_fc1_weight")
    const GraphNode *source = nullptr; // null for placeholders and for graphs drawn from a .pte
    std::int32_t instruction = -1; // graphs drawn from a .pte: the instruction (chain 0) it is or is inside
    // Graphs drawn from a .pte: a node of the decoded payload of the DELEGATE_CALL `instruction`
    // (its index in DelegatePayload::nodes), -1 for the instructions themselves.
    std::int32_t payloadNode = -1;
};

struct Edge {
    int from = -1, to = -1; // OpNode indices
    // An edge of a DELEGATE_CALL that edges of its payload nodes replace: not drawn while the
    // call's payload group is expanded.
    bool replaced = false;
};

struct Group {
    enum class Kind { Program, Module, Partition };
    Kind kind = Kind::Program;
    std::string key; // module key ("L__self___layers_0") or "partition:<instruction id>"
    std::string label; // "layers.0", or "XnnpackBackend #0"
    std::string type; // module type, or the backend name
    int parent = -1;
    int depth = 0;
    std::vector<int> children; // groups, in order of first appearance
    std::vector<int> nodes; // direct OpNodes
    std::size_t totalOps = 0; // operator nodes in the subtree (placeholders excluded)
    // Graphs drawn from a .pte: a partition holding its DELEGATE_CALL's decoded payload nodes,
    // collapsed by default like a module. Expanded, the call's own node is drawn only when it
    // keeps an edge the payload cannot take (`callNodeDrawn`).
    bool payload = false;
    int callNode = -1;
    bool callNodeDrawn = false;
};

struct Partition {
    std::int64_t instructionId = -1;
    std::string backend;
    std::vector<std::int64_t> handles; // sorted, unique
    std::vector<int> nodes; // OpNodes carrying one of the handles
    int group = -1;
};

struct BuildOptions {
    std::string method = "forward";
    std::string entry; // program entry; empty = the Edge program of `method`
    bool showPlaceholders = false; // graph inputs as their own nodes instead of folded
};

class ProgramGraph
{
public:
    static Result<ProgramGraph> build(std::shared_ptr<const ETRecord> record, const BuildOptions &opts = {});
    // The instruction graph of a .pte method, for recordings without an ETRecord: one node per
    // KernelCall and DelegateCall, an edge where an instruction reads a tensor an earlier one
    // wrote (the first instruction that touches a planned tensor writes it, the memory plan's
    // rule; a Move hands its source's writer on), one partition per DelegateCall. Events are
    // matched to nodes by instruction id. `method` empty: the first method.
    // A DelegateCall whose payload decodes into nodes (`delegateNodes`) gets them as OpNodes in its
    // partition's group (Group::payload): edges between them where one reads a value another
    // writes (its outputs; a backend that lists none, Vulkan: the first node that touches a
    // tensor value that is no graph input or constant writes it), and edges to the instructions
    // around where the payload binds a graph input/output to a call argument
    // (DelegatePayload::callArguments); the call's other edges stay on the call.
    static Result<ProgramGraph> fromProgram(
        std::shared_ptr<const Program> program, const std::string &method = {}, bool delegateNodes = true);
    bool drawnFromProgram() const { return m_program != nullptr; }
    const Program *program() const { return m_program.get(); }
    int nodeForInstruction(std::int32_t instruction) const; // -1 if none
    // The OpNode of node `payloadNode` of the payload of DELEGATE_CALL `instruction`, -1 if none.
    int nodeForPayload(std::int32_t instruction, std::int64_t payloadNode) const;
    // The decoded payload of a partition whose nodes are drawn, else null.
    const DelegatePayload *payload(int partition) const;

    const std::string &entryName() const { return m_entry; }
    const std::vector<OpNode> &nodes() const { return m_nodes; }
    const std::vector<Edge> &edges() const { return m_edges; }
    const std::vector<Group> &groups() const { return m_groups; } // [0] is the program
    const std::vector<Partition> &partitions() const { return m_partitions; }
    std::size_t operatorCount() const; // nodes that are not placeholders
    int findNode(const std::string &name) const; // -1 if none
    int findGroup(const std::string &keyOrLabel) const; // module key, dotted path or partition key
    // Groups on the way from the program to `group`, outermost first (the program excluded).
    std::vector<int> ancestry(int group) const;
    // OpNodes of a debug handle (several nodes can share one).
    std::vector<int> nodesForHandle(std::int64_t handle) const;

private:
    void countOperators(); // Group::totalOps, children after their parents

    std::shared_ptr<const ETRecord> m_record; // keeps OpNode::source alive
    std::shared_ptr<const Program> m_program;
    std::unordered_map<std::int32_t, int> m_byInstruction;
    std::vector<std::shared_ptr<const DelegatePayload>> m_payloads; // per partition
    std::map<std::pair<std::int32_t, std::int64_t>, int> m_byPayloadNode;
    std::string m_entry;
    std::vector<OpNode> m_nodes;
    std::vector<Edge> m_edges;
    std::vector<Group> m_groups;
    std::vector<Partition> m_partitions;
    std::unordered_map<std::string, int> m_byName;
    std::unordered_multimap<std::int64_t, int> m_byHandle;
};

// Which groups are expanded. The program is always expanded.
class ExpansionState
{
public:
    ExpansionState() = default;
    // Default: modules and payload partitions collapsed (one box each), other partitions
    // expanded (drawn as clusters).
    explicit ExpansionState(const ProgramGraph &g);
    bool expanded(int group) const { return group == 0 || (group < int(m_open.size()) && m_open[group]); }
    void setExpanded(int group, bool on);
    void expandAll();
    void collapseAll(); // modules and payload partitions collapsed, other partitions kept open
    // Expands every group on the way to `group` (and the group itself when `self`).
    void reveal(const ProgramGraph &g, int group, bool self = false);

private:
    std::vector<char> m_open;
    std::vector<char> m_closedByDefault;
};

// What is drawn for a given expansion: operator nodes of expanded groups, one box per
// outermost collapsed group, clusters for expanded groups, edges between what is drawn
// (deduplicated, none inside a collapsed box).
struct VisibleItem {
    enum class Kind { Op, Group };
    Kind kind = Kind::Op;
    int index = -1; // OpNode or Group index
    int cluster = 0; // innermost expanded group holding the item (0 = none)
};
struct VisibleGraph {
    std::vector<VisibleItem> items;
    std::vector<std::pair<int, int>> edges; // item indices
    std::vector<int> clusters; // expanded groups other than the program, parents first
    std::vector<int> itemOfNode; // OpNode -> item
    std::vector<int> itemOfGroup; // Group -> item (-1 unless drawn as a box)
    std::string itemName(const ProgramGraph &g, int item) const; // node name, or "module:<label>"
};
VisibleGraph visibleGraph(const ProgramGraph &g, const ExpansionState &state);

// Runtime numbers per node. Events are matched to nodes by their debug handles (the Inspector's
// linking), or by linked node name when the shown program has no handles (ATen graphs).
struct EventRef {
    int block = -1, event = -1;
};
struct OverlayData {
    std::vector<std::vector<EventRef>> nodeEvents; // per OpNode, events other than framework/OPERATOR_CALL
    // Per OpNode: sum of perf avg of its own events, NaN if none. A DELEGATE_CALL is not a node's
    // own event: its time belongs to the partition (partitionLatency); a delegated node has its
    // own time only when delegate-internal events are linked to it.
    std::vector<double> nodeLatency;
    std::vector<double> partitionLatency; // per Partition: perf avg of its DELEGATE_CALL(s), NaN if none
    // (block, event) -> time counted once (ModuleAttribution::time in etrecord/modulerollup.h:
    // the perf avg, a DELEGATE_CALL less its linked delegate-internal events), linked events.
    std::map<std::pair<int, int>, double> eventLatency;
    // (block, event) -> the group its time is counted in: the innermost group holding all its
    // nodes (a partition's DELEGATE_CALL spanning modules: the partition).
    std::map<std::pair<int, int>, int> eventGroup;
    double totalLatency = 0; // every linked event counted once
    std::string timeUnit; // "ms"
    std::vector<double> nodeGap; // per OpNode: worst gap of its rows, NaN if none
    std::vector<double> nodeGapExcess; // per OpNode: largest excess over the noise level (noise.h)
    std::vector<char> nodeGapFlagged; // gap worse than its threshold
    bool hasGap = false;
    bool gapHigherIsWorse = true;
    std::string gapMetric, gapReference;
    std::string gapLegend; // "MSE, isolated, flagged above the noise level (…)"
    // Decoded backend events (a Vulkan dispatch) given to their nodes by an exact link
    // (backendlink.h), per OpNode: their time is in nodeLatency and no longer in their
    // DELEGATE_CALL's counted time. Inexact links are counted, not attributed.
    std::vector<int> nodeBackendEvents;
    std::size_t backendAttributed = 0, backendNotExact = 0;
    // Of backendAttributed, the events placed by the runtime's operator order and kind (XNNPACK:
    // its profiler logs no node id, nodelink.h), not by an id.
    std::size_t backendByOrder = 0;
    // Decoded events inside drawn payloads that could not be placed on a node: not attributed.
    std::size_t backendUnidentified = 0;
    std::vector<std::string> backendNotes; // why, one line per delegate
    bool hasLatency() const { return totalLatency > 0; }
};
// `backend`: the exact links of the decoded backend events to the ETRecord's nodes, beyond the
// Inspector's own links (none without).
OverlayData overlayFromEvents(
    const ProgramGraph &g, const std::vector<EventBlock> &blocks, const BackendGraphLinks *backend = nullptr);
// What a payload node of a graph drawn from a .pte is, from its decoded payload, one line each:
// "XNNPACK FullyConnected node 0 (of 4)", its attributes, then one line per input and output value
// ("in  v0: fp32[1, 64]", "out v3: qint8[1, 128] per-tensor scale 0.01 zero point -3", marked
// "graph input/output" and "argument N of the call" where bound). Empty for other nodes.
std::vector<std::string> payloadNodeDetails(const ProgramGraph &g, int node);

// The exact links of decoded backend events to the payload nodes of a graph drawn from a .pte
// (fromProgram): the event's identifier (backendEventIdentifier, backendevents.h) equal
// to the node id of exactly one node of its DELEGATE_CALL's payload. XNNPACK operator events
// name no node and are counted as unidentified, never linked.
BackendGraphLinks payloadGraphLinks(
    const ProgramGraph &g, const std::vector<EventBlock> &blocks, const BackendEventTable &table);

// Adds the gap of `table` (rows matched through their runtime event, then their handles).
// Rows are flagged and coloured by the table's rule (the noise level, or the table's threshold);
// a `threshold` given here replaces it.
void addGap(OverlayData &data, const ProgramGraph &g, const std::vector<EventBlock> &blocks,
    const analysis::GapTable &table, std::optional<double> threshold = {});

// Latency of a group: the events counted in it or in a group below it (eventGroup), each once;
// the module roll-up's rule, so the children of a group never add up to more than the group.
double groupLatency(const ProgramGraph &g, const OverlayData &d, int group);
// The partition holding an OpNode or group (-1 if none): its own partition, or the nearest
// partition group above it.
int partitionOf(const ProgramGraph &g, const VisibleItem &item);

enum class Overlay { None, Latency, Gap, OpType, Backend };
std::optional<Overlay> parseOverlay(const std::string &name); // latency, gap, optype, backend, none
const char *overlayName(Overlay o);

struct Rgb {
    std::uint8_t r = 255, g = 255, b = 255;
    bool operator==(const Rgb &) const = default;
    std::string hex() const; // "#rrggbb"
};

struct LegendEntry {
    Rgb color;
    std::string label;
};
struct Coloring {
    Overlay overlay = Overlay::None;
    std::vector<Rgb> fill; // per visible item
    std::vector<std::string> value; // per visible item, short text ("12.3 %", "MSE 4.1e-03"), may be empty
    std::vector<double> rank; // per visible item: position on the scale in [0, 1], -1 if none
    std::string title; // legend title
    std::string note; // a line under the legend (latency: what backend events were given to nodes)
    std::vector<LegendEntry> legend; // swatches, or gradient stops low -> high
    bool gradient = false;
};
Coloring colorItems(const ProgramGraph &g, const VisibleGraph &v, const OverlayData &d, Overlay o);

// Palette used by the overlays (exposed for tests): heat(0) pale, heat(1) the hottest colour.
Rgb heatColor(double t);
Rgb gapColor(double t, bool aboveThreshold); // warm ramp above the threshold, cool below
Rgb gapSeverityColor(double severity); // analysis::gapSeverity: [0, 0.5) cool, [0.5, 1] warm
Rgb neutralColor();
Rgb categoricalColor(std::size_t i);
bool isWarmGapColor(const Rgb &c);

} // namespace etscope::graph
