// `compare-outputs`: the Inspector's compare_results between this run's outputs and a
// reference (BundledProgram expected outputs, or a second run's outputs).
#include "command.h"

#include "analysis/compareresults.h"
#include "analysis/referenceset.h"

#include <fmt/format.h>

#include <cstdio>

namespace etscope::cli {
namespace {

struct CompareArgs {
    InputOptions in;
    analysis::ReferenceInputs ref;
    int block = -1;
    bool full = false;
};

const Registration compareOutputs("compare-outputs",
    "Compare the run outputs with a reference (compare_results: SNR, MSE, cosine)", [](CLI::App &sub) {
        auto a = std::make_shared<CompareArgs>();
        addInputOptions(sub, a->in);
        sub.add_option("--bundled-program,-p", a->ref.bundledProgram, "BundledProgram (.bpte) with expected outputs");
        sub.add_option("--reference-etdump", a->ref.etdump, "ETDump of the reference run (its run outputs)");
        sub.add_option("--reference-debug-buffer", a->ref.debugBuffer, "Debug buffer of the reference run");
        sub.add_option("--test-case", a->ref.testCase,
            "Bundled test case / ETRecord reference output set (default -1: the last, as the Inspector does)");
        sub.add_option("--block", a->block, "Block whose run outputs to compare (default: last with outputs)");
        sub.add_flag("--full", a->full, "Full precision instead of the Inspector's 2-decimal rounding");
        return std::function<int()>([a] {
            // Without another reference, the ETRecord's reference_outputs are the reference.
            if (!analysis::hasReference(a->ref))
                a->ref.etrecordOutputs = a->in.etrecord;
            if (!analysis::hasReference(a->ref))
                return reportError(makeError(ErrorCode::InvalidArgument, "",
                    "give --bundled-program, --etrecord (reference_outputs) or "
                    "--reference-etdump (+ --reference-debug-buffer)"));
            auto session = loadScopedOrReport(a->in);
            if (!session)
                return 1;
            if (!session->debugBuffer)
                return reportError(makeError(
                    ErrorCode::InvalidArgument, a->in.etdump, "--debug-buffer is required to read the run outputs"));
            auto ref = analysis::loadReference(a->ref);
            if (!ref)
                return reportError(ref.error());
            auto run = analysis::sessionRunOutputs(*session, a->block);
            if (!run)
                return reportError(run.error());
            if (run->empty())
                return reportError(makeError(
                    ErrorCode::InvalidArgument, a->in.etdump, "no run outputs recorded (run with output logging)"));
            auto rows = analysis::compareResults(ref->finalOutputs, *run);
            std::string out = fmt::format("reference: {}\n", ref->description);
            for (const auto &r : rows)
                out += fmt::format("output {}: reference {} | run {}\n", r.index, r.referenceSummary, r.runSummary);
            out += analysis::compareResultsText(rows, a->full);
            std::fwrite(out.data(), 1, out.size(), stdout);
            return 0;
        });
    });

} // namespace
} // namespace etscope::cli
