#pragma once

// calculate_numeric_gap with etscope's own evaluator as the AOT side (inspector-semantics.md §8
// steps 1-3): choose the reference graph, propagate debug handles from the Edge program to the
// ATen program, run the graph on the chosen inputs and capture every node's output by
// (handle,). Steps 4-7 are core/analysis (computeNumericGap) unchanged.
//
// Isolated mode (beyond the Inspector): every node is evaluated again from the RUNTIME values
// of its inputs, so a row's gap is the error this op introduces rather than what it inherits.

#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "common/error.h"
#include "etrecord/etrecord.h"
#include "eval/evaluator.h"
#include "session/session.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace etscope::evalgap {

// §8 step 1. `program` is the graph to run; `handles[i]` the debug handle of program->nodes[i]
// (metadata for Edge/graph-map programs, propagated for the ATen program).
struct ReferenceGraph {
    const ETRecordProgram *program = nullptr;
    std::string name; // "exported_program", "edge_dialect_exported_program" or a graph-map entry
    std::vector<std::optional<std::int64_t>> handles;
    std::vector<std::string> warnings;
};

// requested: "" (Inspector default: the ATen program if handle propagation succeeds, else the
// Edge program with a warning), "exported_program" (fails when propagation fails),
// "edge_dialect_exported_program", or any other program entry ("/forward" appended when the
// name has no '/').
Result<ReferenceGraph> resolveReferenceGraph(
    const ETRecord &record, const std::string &requested, bool disableHandleValidation = false);

struct EvalGapOptions {
    std::string referenceGraph;
    bool disableHandleValidation = false;
    eval::InputChoice inputs; // empty: the ETRecord's representative_inputs
    bool isolated = false; // also compute the isolated reference (needs the runtime session)
    bool floatTwin = false; // run the float twin of the graph (eval::EvalOptions::floatTwin)
    int threads = 0;
    eval::EvalOptions::Keep keep = eval::EvalOptions::Keep::All; // see eval::EvalOptions
    std::int64_t maxMemory = 0; // bytes; 0 = physical / 2, < 0 = no limit
    std::function<bool(int permille)> progress; // 0..1000 over all passes; false cancels
};

struct EvaluatorReference {
    std::string graphName;
    analysis::ReferenceSet accumulated; // the Inspector's AOT intermediates
    std::optional<analysis::ReferenceSet> isolated;
    std::vector<std::string> warnings;
    int floatTwinPairs = 0; // with floatTwin: quantize -> dequantize pairs passed through
};

// Runs the reference graph (and, with opts.isolated, the isolated pass against `runtime`,
// which must be linked to the same ETRecord). The sets are keyed by handle, entries in capture
// order; a node the evaluator could not compute yields an entry without outputs whose note
// says why, so its row shows "no reference (needs aten.xxx)".
Result<EvaluatorReference> referenceFromEvaluator(
    const ETRecord &record, const Session *runtime, const EvalGapOptions &opts);

// The accumulated references of the graph fake-quantized (as it is) and as its float twin
// (eval::EvalOptions::floatTwin), from one load of the ETRecord's weights and inputs: what the
// error decomposition (decompose.h) compares. opts.isolated and opts.floatTwin are ignored.
Result<std::pair<EvaluatorReference, EvaluatorReference>> fakeAndTwinReferences(
    const ETRecord &record, const EvalGapOptions &opts);

} // namespace etscope::evalgap
