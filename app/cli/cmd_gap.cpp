// `gap`: the Inspector's calculate_numeric_gap. Reference: a second ETDump, an AOT outputs file,
// or (default, with only --etrecord) the ETRecord's graph run by the built-in evaluator on the
// ETRecord's representative inputs, --inputs or a BundledProgram test case; --isolate evaluates
// every node from the runtime values of its inputs. See core/analysis/numericgap.h and
// core/evalgap/evalgap.h.
#include "command.h"

#include "analysis/numericgap.h"

#include <fmt/format.h>

#include "etrecord/etrecord.h"
#include "evalgap/decompose.h"
#include "evalgap/evalgap.h"

#include <cstdio>

namespace etscope::cli {
namespace {

struct GapArgs {
    InputOptions in;
    analysis::ReferenceInputs ref;
    std::string metric = "MSE", sort, tsv, match = "auto";
    double threshold = 0;
    bool hasThreshold = false;
    // Built-in evaluator as reference.
    std::string inputs, referenceGraph;
    int testCase = 0;
    bool isolate = false;
    bool decompose = false; // quantization / kernel / total error per op (evalgap/decompose.h)
    bool floatTwin = false; // the built-in reference is the graph's float twin
    std::string json;
    // "all": the ATen reference graph gets its debug handles by propagation in evalgap, not
    // from its nodes, so "handles" would drop what the gap needs there.
    std::string keep = "all";
    double maxMemoryMb = 0;
};

Result<analysis::ReferenceSet> evaluatorReference(const Session &s, const GapArgs &a)
{
    if (!s.etrecord)
        return makeError(ErrorCode::InvalidArgument, s.inputs.etdump, "the built-in reference needs --etrecord");
    evalgap::EvalGapOptions o;
    o.referenceGraph = a.referenceGraph;
    o.inputs.inputsFile = a.inputs;
    o.inputs.bundledProgram = a.ref.bundledProgram;
    o.inputs.testCase = a.testCase;
    o.isolated = a.isolate;
    o.floatTwin = a.floatTwin;
    o.keep = a.keep == "all" ? eval::EvalOptions::Keep::All : eval::EvalOptions::Keep::DebugHandles;
    o.maxMemory = a.maxMemoryMb < 0 ? -1 : std::int64_t(a.maxMemoryMb * 1048576.0);
    auto ref = evalgap::referenceFromEvaluator(*s.etrecord, &s, o);
    if (!ref)
        return ref.error();
    for (const auto &w : ref->warnings)
        std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
    return a.isolate ? std::move(*ref->isolated) : std::move(ref->accumulated);
}

// `gap --decompose`: the built-in evaluator runs the graph fake-quantized and as its float twin.
int decompose(const Session &s, const GapArgs &a, analysis::Metric metric, std::optional<double> threshold)
{
    if (!s.etrecord)
        return reportError(makeError(ErrorCode::InvalidArgument, s.inputs.etdump, "--decompose needs --etrecord"));
    evalgap::DecomposeOptions o;
    o.referenceGraph = a.referenceGraph;
    o.inputs.inputsFile = a.inputs;
    o.inputs.bundledProgram = a.ref.bundledProgram;
    o.inputs.testCase = a.testCase;
    o.maxMemory = a.maxMemoryMb < 0 ? -1 : std::int64_t(a.maxMemoryMb * 1048576.0);
    o.metric = metric;
    o.threshold = threshold;
    auto d = evalgap::decomposeGap(*s.etrecord, s, o);
    if (!d)
        return reportError(d.error());
    for (const auto &w : d->warnings)
        std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
    if (a.tsv != "-" && a.json != "-") {
        const std::string text = evalgap::decompositionText(*d);
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    if (!a.tsv.empty())
        if (auto st = writeOutput(a.tsv, evalgap::decompositionTsv(*d)); !st)
            return reportError(st.error());
    if (!a.json.empty())
        if (auto st = writeOutput(a.json, evalgap::decompositionJson(*d)); !st)
            return reportError(st.error());
    return 0;
}

const Registration gap(
    "gap", "Per-operator numeric gap between this run and a reference (calculate_numeric_gap)", [](CLI::App &sub) {
        auto a = std::make_shared<GapArgs>();
        addInputOptions(sub, a->in);
        sub.add_option("--reference-etdump", a->ref.etdump, "ETDump of the reference run (same program)");
        sub.add_option("--reference-debug-buffer", a->ref.debugBuffer, "Debug buffer of the reference run");
        sub.add_option("--reference-etrecord", a->ref.etrecord,
            "ETRecord for the reference run (default: --etrecord), enables matching by debug handle");
        sub.add_option("--aot-outputs", a->ref.aotOutputs,
            "torch.save'd dict {debug handle or tuple → tensor or list of tensors}");
        sub.add_option("--bundled-program,-p", a->ref.bundledProgram,
            "BundledProgram whose test case (--test-case) feeds the built-in evaluator");
        sub.add_option(
               "--test-case", a->testCase, "BundledProgram test case for the evaluator's inputs (<0: from the end)")
            ->capture_default_str();
        sub.add_option("--inputs", a->inputs, "torch.save'd tuple/list of input tensors for the built-in evaluator");
        sub.add_option("--keep", a->keep,
               "Built-in evaluator: keep outputs of all nodes, or only of nodes carrying a debug handle (Edge graphs)")
            ->check(CLI::IsMember({ "all", "handles" }))
            ->capture_default_str();
        sub.add_option("--max-memory", a->maxMemoryMb,
            "Built-in evaluator: refuse graphs needing more than this many MB (default: half the physical memory)");
        sub.add_option("--reference-graph", a->referenceGraph,
            "Graph the evaluator runs: exported_program, edge_dialect_exported_program or a graph-map "
            "entry (default: the Inspector's choice)");
        sub.add_flag("--isolate", a->isolate,
            "Evaluate each node from the runtime values of its inputs: the gap is the error the op itself "
            "introduces");
        sub.add_option("--metric", a->metric, "MSE, L1, SNR, COSINE, MAXABS or MAXREL")->capture_default_str();
        auto *th = sub.add_option("--threshold", a->threshold, "Flag rows whose gap is worse than this");
        sub.add_option("--sort", a->sort, "'gap': worst first (default: execution order)")
            ->check(CLI::IsMember({ "gap", "order" }));
        sub.add_option("--match", a->match, "auto, instruction or handle")
            ->check(CLI::IsMember({ "auto", "instruction", "handle" }));
        sub.add_option("--tsv", a->tsv, "Also write the table as TSV to this file ('-' = stdout only TSV)");
        sub.add_flag("--decompose", a->decompose,
            "Quantized models: split each op's gap into quantization error (float twin vs fake-quantized "
            "graph), kernel error (fake-quantized vs runtime) and total, and name the dominant one");
        sub.add_option("--json", a->json, "With --decompose: also write the decomposition as JSON ('-' = stdout only)");
        sub.add_flag("--float-twin", a->floatTwin,
            "Built-in reference of a quantized graph: its float twin (quantize -> dequantize pairs pass their "
            "input through), so the gap is the total loss against the float model");
        return std::function<int()>([a, th] {
            auto metric = analysis::parseMetric(a->metric);
            if (!metric)
                return reportError(
                    makeError(ErrorCode::InvalidArgument, "", fmt::format("unknown metric '{}'", a->metric)));
            const bool builtIn = a->ref.etdump.empty() && a->ref.aotOutputs.empty();
            if (builtIn && a->in.etrecord.empty())
                return reportError(makeError(ErrorCode::InvalidArgument, "",
                    "give --etrecord (its graph is evaluated as the reference), "
                    "--reference-etdump (+ --reference-debug-buffer) or --aot-outputs"));
            if (a->decompose && (!builtIn || a->isolate))
                return reportError(makeError(ErrorCode::InvalidArgument, "",
                    "--decompose uses the built-in evaluator on --etrecord (no --reference-etdump, "
                    "--aot-outputs or --isolate)"));
            if (!a->json.empty() && !a->decompose)
                return reportError(makeError(ErrorCode::InvalidArgument, "", "--json applies to --decompose"));
            if (a->floatTwin && (!builtIn || a->decompose))
                return reportError(makeError(ErrorCode::InvalidArgument, "",
                    "--float-twin applies to the built-in reference without --decompose (which runs both graphs)"));
            if (!builtIn && (a->isolate || !a->inputs.empty() || !a->referenceGraph.empty()))
                return reportError(makeError(ErrorCode::InvalidArgument, "",
                    "--isolate, --inputs and --reference-graph apply to the built-in "
                    "reference (no --reference-etdump / --aot-outputs)"));
            if (!builtIn && !a->ref.bundledProgram.empty())
                return reportError(makeError(ErrorCode::InvalidArgument, a->ref.bundledProgram,
                    "a BundledProgram holds final outputs only; use compare-outputs"));
            if (!a->ref.etdump.empty() && a->ref.etrecord.empty())
                a->ref.etrecord = a->in.etrecord;
            auto session = loadOrReport(a->in);
            if (!session)
                return 1;
            if (!session->debugBuffer)
                return reportError(makeError(ErrorCode::InvalidArgument, a->in.etdump,
                    "--debug-buffer is required to read intermediate outputs"));
            if (a->decompose)
                return decompose(*session, *a, *metric,
                    th->count() > 0 ? std::optional<double>(a->threshold) : std::optional<double>());
            Result<analysis::ReferenceSet> ref = makeError(ErrorCode::InvalidArgument, "", "no reference");
            if (builtIn)
                ref = evaluatorReference(*session, *a);
            else
                ref = analysis::loadReference(a->ref);
            if (!ref)
                return reportError(ref.error());
            analysis::GapOptions opts;
            opts.metric = *metric;
            if (th->count() > 0)
                opts.threshold = a->threshold;
            opts.matching = a->match == "instruction" ? analysis::GapOptions::Matching::Instruction
                : a->match == "handle"                ? analysis::GapOptions::Matching::DebugHandle
                                                      : analysis::GapOptions::Matching::Auto;
            auto table = analysis::computeNumericGap(*session, *ref, opts);
            if (!table)
                return reportError(table.error());
            if (a->sort == "gap")
                analysis::sortWorstFirst(*table);
            if (a->tsv != "-") {
                const std::string text = analysis::gapTableText(*table);
                std::fwrite(text.data(), 1, text.size(), stdout);
            }
            if (!a->tsv.empty()) {
                auto st = writeOutput(a->tsv, analysis::gapTableTsv(*table));
                if (!st)
                    return reportError(st.error());
            }
            return 0;
        });
    });

} // namespace
} // namespace etscope::cli
