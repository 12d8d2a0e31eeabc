#pragma once

// The report's graph-against-graph section (issue 30 item 4): two graphs of the ETRecord run by
// the evaluator on the same inputs, aligned node by node and compared layer by layer, as
// `etscope-cli graph-diff` computes it (core/evalgap/graphdiff.h). Plain data filled from
// evalgap::GraphDiff, drawn as the verdict, a per-layer chart on the one colour scale of the gap
// views, the per-layer table and the unaligned nodes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

namespace evalgap {
struct GraphDiff;
}

struct ReportGraphDiffRow {
    std::string aName, bName, aOp, bOp;
    std::optional<std::int64_t> aHandle, bHandle;
    std::string alignedBy; // "debug_handle", "from_node", "position"
    double worst = 0; // NaN without a gap
    double noise = 0; // the threshold the worst gap is judged by
    // analysis::gapSeverity of the row's excess over noise: [0, 0.5) within, [0.5, 1] above; NaN without a gap.
    double severity = 0;
    bool flagged = false;
    std::string error;
};

struct ReportUnalignedNode {
    std::string name, op;
    std::optional<std::int64_t> handle;
};

struct ReportGraphDiff {
    std::string etrecord, aGraph, bGraph;
    std::string metric;
    std::string judgedBy; // analysis::thresholdDescription
    bool userThreshold = false;
    std::string verdict;
    int firstParting = -1; // row index
    std::vector<ReportGraphDiffRow> rows; // graph a's execution order
    std::vector<ReportUnalignedNode> unalignedA, unalignedB;
    std::vector<std::string> warnings;
};

ReportGraphDiff reportGraphDiff(const evalgap::GraphDiff &d);

// <section id="graph-diff">: graphs, metric, verdict, per-layer chart and table, unaligned nodes.
std::string graphDiffSection(const ReportGraphDiff &d);
// The verdict for the report's summary at the top of the page.
std::string graphDiffSummaryLine(const ReportGraphDiff &d);

} // namespace etscope
