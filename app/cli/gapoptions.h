#pragma once

// The numeric-gap options of `gap` and `report`: one definition and one reading, so that the
// same arguments give the same gap table in both (issue 28). Reference: a second ETDump, an AOT
// outputs file, or (with only --etrecord) the ETRecord's graph run by the built-in evaluator, as
// the window's Ctrl+G does.

#include "command.h"

#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "evalgap/decompose.h"
#include "evalgap/graphdiff.h"

#include <string>

namespace etscope::cli {

struct GapArgs {
    analysis::ReferenceInputs ref;
    std::string metric = "MSE", match = "auto";
    double threshold = 0;
    CLI::Option *thresholdOption = nullptr; // set by addGapOptions: was --threshold given?
    // Built-in evaluator as reference.
    std::string inputs, referenceGraph;
    int testCase = 0;
    bool isolate = false;
    bool floatTwin = false; // the built-in reference is the quantized graph's float twin
    // "all": the ATen reference graph gets its debug handles by propagation in evalgap, not
    // from its nodes, so "handles" would drop what the gap needs there.
    std::string keep = "all";
    double maxMemoryMb = 0;

    // No --reference-etdump and no --aot-outputs: the evaluator runs the ETRecord's graph.
    bool builtIn() const { return ref.etdump.empty() && ref.aotOutputs.empty(); }
};

void addGapOptions(CLI::App &sub, GapArgs &a);

// Checks the combination before anything is loaded (`etrecord`: the --etrecord given). Fills
// ref.etrecord from it for a reference ETDump.
Status checkGapArgs(GapArgs &a, const std::string &etrecord);

// The gap table of `session` (which has its debug buffer) against the reference the arguments
// name; the evaluator's warnings go to stderr.
Result<analysis::GapTable> computeGap(const Session &session, const GapArgs &a);

// The decomposition `gap --decompose` and `report --decompose` compute from the same arguments
// (built-in evaluator: --reference-graph, --inputs, --bundled-program/--test-case, --metric,
// --threshold, --max-memory).
evalgap::DecomposeOptions decomposeOptions(const GapArgs &a);

// The graph-against-graph options `report --graph-diff A B` takes from the gap arguments
// (--inputs, --bundled-program/--test-case, --metric, --threshold, --max-memory), as `graph-diff`
// reads its own options of the same names.
evalgap::GraphDiffOptions graphDiffOptions(const GapArgs &a, const std::string &graphA, const std::string &graphB);

} // namespace etscope::cli
