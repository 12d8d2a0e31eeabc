#include "gapoptions.h"

#include "evalgap/evalgap.h"

#include <fmt/format.h>

#include <cstdio>

namespace etscope::cli {

namespace {

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

} // namespace

void addGapOptions(CLI::App &sub, GapArgs &a)
{
    sub.add_option("--reference-etdump", a.ref.etdump, "ETDump of the reference run (same program)");
    sub.add_option("--reference-debug-buffer", a.ref.debugBuffer, "Debug buffer of the reference run");
    sub.add_option("--reference-etrecord", a.ref.etrecord,
        "ETRecord for the reference run (default: --etrecord), enables matching by debug handle");
    sub.add_option(
        "--aot-outputs", a.ref.aotOutputs, "torch.save'd dict {debug handle or tuple → tensor or list of tensors}");
    sub.add_option("--bundled-program,-p", a.ref.bundledProgram,
        "BundledProgram whose test case (--test-case) feeds the built-in evaluator");
    sub.add_option("--test-case", a.testCase, "BundledProgram test case for the evaluator's inputs (<0: from the end)")
        ->capture_default_str();
    sub.add_option("--inputs", a.inputs, "torch.save'd tuple/list of input tensors for the built-in evaluator");
    sub.add_option("--keep", a.keep,
           "Built-in evaluator: keep outputs of all nodes, or only of nodes carrying a debug handle (Edge graphs)")
        ->check(CLI::IsMember({ "all", "handles" }))
        ->capture_default_str();
    sub.add_option("--max-memory", a.maxMemoryMb,
        "Built-in evaluator: refuse graphs needing more than this many MB (default: half the physical memory)");
    sub.add_option("--reference-graph", a.referenceGraph,
        "Graph the evaluator runs: exported_program, edge_dialect_exported_program or a graph-map "
        "entry (default: the Inspector's choice)");
    sub.add_flag("--isolate", a.isolate,
        "Evaluate each node from the runtime values of its inputs: the gap is the error the op itself "
        "introduces");
    sub.add_flag("--float-twin", a.floatTwin,
        "Built-in reference of a quantized graph: its float twin (quantize -> dequantize pairs pass their "
        "input through), so the gap is the total loss against the float model");
    sub.add_option("--metric", a.metric, "MSE, L1, SNR, COSINE, MAXABS or MAXREL")->capture_default_str();
    a.thresholdOption = sub.add_option(
        "--threshold", a.threshold, "Flag rows whose gap is worse than this (default: the dtype's noise level)");
    sub.add_option("--match", a.match, "auto, instruction or handle")
        ->check(CLI::IsMember({ "auto", "instruction", "handle" }));
}

Status checkGapArgs(GapArgs &a, const std::string &etrecord)
{
    if (!analysis::parseMetric(a.metric))
        return makeError(ErrorCode::InvalidArgument, "", fmt::format("unknown metric '{}'", a.metric));
    if (a.builtIn() && etrecord.empty())
        return makeError(ErrorCode::InvalidArgument, "",
            "give --etrecord (its graph is evaluated as the reference), "
            "--reference-etdump (+ --reference-debug-buffer) or --aot-outputs");
    if (!a.builtIn() && (a.isolate || a.floatTwin || !a.inputs.empty() || !a.referenceGraph.empty()))
        return makeError(ErrorCode::InvalidArgument, "",
            "--isolate, --float-twin, --inputs and --reference-graph apply to the built-in "
            "reference (no --reference-etdump / --aot-outputs)");
    if (!a.builtIn() && !a.ref.bundledProgram.empty())
        return makeError(ErrorCode::InvalidArgument, a.ref.bundledProgram,
            "a BundledProgram holds final outputs only; use compare-outputs");
    if (!a.ref.etdump.empty() && a.ref.etrecord.empty())
        a.ref.etrecord = etrecord;
    return Ok {};
}

Result<analysis::GapTable> computeGap(const Session &session, const GapArgs &a)
{
    auto metric = analysis::parseMetric(a.metric);
    if (!metric)
        return makeError(ErrorCode::InvalidArgument, "", fmt::format("unknown metric '{}'", a.metric));
    if (!session.debugBuffer)
        return makeError(ErrorCode::InvalidArgument, session.inputs.etdump,
            "--debug-buffer is required to read intermediate outputs");
    auto ref = a.builtIn() ? evaluatorReference(session, a) : analysis::loadReference(a.ref);
    if (!ref)
        return ref.error();
    analysis::GapOptions opts;
    opts.metric = *metric;
    if (a.thresholdOption && a.thresholdOption->count() > 0)
        opts.threshold = a.threshold;
    opts.matching = a.match == "instruction" ? analysis::GapOptions::Matching::Instruction
        : a.match == "handle"                ? analysis::GapOptions::Matching::DebugHandle
                                             : analysis::GapOptions::Matching::Auto;
    return analysis::computeNumericGap(session, *ref, opts);
}

evalgap::DecomposeOptions decomposeOptions(const GapArgs &a)
{
    evalgap::DecomposeOptions o;
    o.referenceGraph = a.referenceGraph;
    o.inputs.inputsFile = a.inputs;
    o.inputs.bundledProgram = a.ref.bundledProgram;
    o.inputs.testCase = a.testCase;
    o.maxMemory = a.maxMemoryMb < 0 ? -1 : std::int64_t(a.maxMemoryMb * 1048576.0);
    o.metric = analysis::parseMetric(a.metric).value_or(analysis::Metric::MSE);
    if (a.thresholdOption && a.thresholdOption->count() > 0)
        o.threshold = a.threshold;
    return o;
}

evalgap::GraphDiffOptions graphDiffOptions(const GapArgs &a, const std::string &graphA, const std::string &graphB)
{
    evalgap::GraphDiffOptions o;
    o.a = graphA;
    o.b = graphB;
    o.inputs.inputsFile = a.inputs;
    o.inputs.bundledProgram = a.ref.bundledProgram;
    o.inputs.testCase = a.testCase;
    o.metric = analysis::parseMetric(a.metric).value_or(analysis::Metric::MSE);
    if (a.thresholdOption && a.thresholdOption->count() > 0)
        o.threshold = a.threshold;
    o.maxMemory = a.maxMemoryMb < 0 ? -1 : std::int64_t(a.maxMemoryMb * 1048576.0);
    return o;
}

} // namespace etscope::cli
