// `graph-diff`: two graphs of one ETRecord (exported_program, the Edge program, graph_map
// entries) run by the built-in evaluator on the same inputs, nodes aligned, every aligned layer
// compared with a metric and the noise rule, and the first layer where they part. See
// core/evalgap/graphdiff.h.
#include "command.h"

#include "analysis/comparator.h"
#include "etrecord/etrecord.h"
#include "evalgap/graphdiff.h"

#include <fmt/format.h>

#include <cstdio>
#include <unistd.h>

namespace etscope::cli {
namespace {

struct GraphDiffArgs {
    std::string etrecord, a = "exported_program", b = "edge_dialect_exported_program";
    std::string inputs, bundled, metric = "MSE", tsv, json;
    int testCase = 0, threads = 0;
    double threshold = 0, maxMemoryMb = 0;
};

const Registration graphDiff("graph-diff",
    "Compare two graphs of an ETRecord layer by layer on the same inputs (built-in evaluator)", [](CLI::App &sub) {
        auto a = std::make_shared<GraphDiffArgs>();
        sub.add_option("--etrecord", a->etrecord, "ETRecord file")->required();
        sub.add_option("--a", a->a,
               "Reference graph: exported_program, edge_dialect_exported_program or a graph_map entry "
               "(e.g. edge_after_transform)")
            ->capture_default_str();
        sub.add_option("--b", a->b, "Graph compared against --a")->capture_default_str();
        sub.add_option(
            "--inputs", a->inputs, "torch.save'd tuple/list of input tensors (default: representative_inputs)");
        sub.add_option("--bundled-program,-p", a->bundled, "BundledProgram whose test case supplies the inputs");
        sub.add_option("--test-case", a->testCase, "BundledProgram test case (<0: from the end)")
            ->capture_default_str();
        sub.add_option("--metric", a->metric, "MSE, L1, SNR, COSINE, MAXABS or MAXREL")->capture_default_str();
        auto *th = sub.add_option(
            "--threshold", a->threshold, "Flag layers whose gap is worse than this (default: the noise level)");
        sub.add_option("--threads", a->threads, "Evaluator threads (default: all cores)");
        sub.add_option("--max-memory", a->maxMemoryMb,
            "Refuse graphs needing more than this many MB (default: half the physical memory; -1: no limit)");
        sub.add_option("--tsv", a->tsv, "Also write the aligned layers as TSV to this file ('-' = stdout only TSV)");
        sub.add_option("--json", a->json, "Also write everything as JSON to this file ('-' = stdout only JSON)");
        return std::function<int()>([a, th] {
            auto metric = analysis::parseMetric(a->metric);
            if (!metric)
                return reportError(
                    makeError(ErrorCode::InvalidArgument, "", fmt::format("unknown metric '{}'", a->metric)));
            if (a->tsv == "-" && a->json == "-")
                return reportError(
                    makeError(ErrorCode::InvalidArgument, "", "only one of --tsv and --json can be '-'"));
            auto record = readETRecord(a->etrecord);
            if (!record)
                return reportError(record.error());
            evalgap::GraphDiffOptions o;
            o.a = a->a;
            o.b = a->b;
            o.inputs.inputsFile = a->inputs;
            o.inputs.bundledProgram = a->bundled;
            o.inputs.testCase = a->testCase;
            o.metric = *metric;
            if (th->count() > 0)
                o.threshold = a->threshold;
            o.threads = a->threads;
            o.maxMemory = a->maxMemoryMb < 0 ? -1 : std::int64_t(a->maxMemoryMb * 1048576.0);
            if (isatty(2))
                o.progress = [](int permille) {
                    std::fprintf(stderr, "\revaluating %3d%%%s", permille / 10, permille >= 1000 ? "\n" : "");
                    return true;
                };
            auto diff = evalgap::diffGraphs(**record, o);
            if (!diff)
                return reportError(diff.error());
            for (const auto &w : diff->warnings)
                std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
            if (a->tsv != "-" && a->json != "-") {
                const std::string text = evalgap::graphDiffText(*diff);
                std::fwrite(text.data(), 1, text.size(), stdout);
            }
            if (!a->tsv.empty())
                if (auto st = writeOutput(a->tsv, evalgap::graphDiffTsv(*diff)); !st)
                    return reportError(st.error());
            if (!a->json.empty())
                if (auto st = writeOutput(a->json, evalgap::graphDiffJson(*diff)); !st)
                    return reportError(st.error());
            return kExitOk;
        });
    });

} // namespace
} // namespace etscope::cli
