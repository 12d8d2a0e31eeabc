// `gap`: the Inspector's calculate_numeric_gap against a second ETDump, an AOT outputs file or
// (final outputs only) a BundledProgram — see core/analysis/numericgap.h.
#include "command.h"

#include "analysis/numericgap.h"

#include <fmt/format.h>

#ifdef ETSCOPE_HAVE_ETRECORD
#include "etrecord/etrecordsupport.h"
#endif

#include <cstdio>

namespace etscope::cli {
namespace {

struct GapArgs {
    InputOptions in;
    analysis::ReferenceInputs ref;
    std::string metric = "MSE", sort, tsv, match = "auto";
    double threshold = 0;
    bool hasThreshold = false;
};

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
        sub.add_option("--bundled-program,-p", a->ref.bundledProgram, "BundledProgram: final outputs only (see compare-outputs)");
        sub.add_option("--metric", a->metric, "MSE, L1, SNR, COSINE, MAXABS or MAXREL")->capture_default_str();
        auto *th = sub.add_option("--threshold", a->threshold, "Flag rows whose gap is worse than this");
        sub.add_option("--sort", a->sort, "'gap': worst first (default: execution order)")
            ->check(CLI::IsMember({"gap", "order"}));
        sub.add_option("--match", a->match, "auto, instruction or handle")
            ->check(CLI::IsMember({"auto", "instruction", "handle"}));
        sub.add_option("--tsv", a->tsv, "Also write the table as TSV to this file ('-' = stdout only TSV)");
        return std::function<int()>([a, th] {
#ifdef ETSCOPE_HAVE_ETRECORD
            installETRecordSupport(); // --etrecord links events to debug handles
#endif
            auto metric = analysis::parseMetric(a->metric);
            if (!metric)
                return reportError(makeError(ErrorCode::InvalidArgument, "", fmt::format("unknown metric '{}'", a->metric)));
            if (a->ref.etdump.empty() && a->ref.aotOutputs.empty()) {
                if (!a->ref.bundledProgram.empty())
                    return reportError(makeError(ErrorCode::InvalidArgument, a->ref.bundledProgram,
                                                 "a BundledProgram holds final outputs only; use compare-outputs, "
                                                 "or give --reference-etdump or --aot-outputs"));
                return reportError(makeError(ErrorCode::InvalidArgument, "",
                                             "give --reference-etdump (+ --reference-debug-buffer) or --aot-outputs"));
            }
            if (!a->ref.etdump.empty() && a->ref.etrecord.empty())
                a->ref.etrecord = a->in.etrecord;
            auto session = loadOrReport(a->in);
            if (!session)
                return 1;
            if (!session->debugBuffer)
                return reportError(makeError(ErrorCode::InvalidArgument, a->in.etdump,
                                             "--debug-buffer is required to read intermediate outputs"));
            auto ref = analysis::loadReference(a->ref);
            if (!ref)
                return reportError(ref.error());
            analysis::GapOptions opts;
            opts.metric = *metric;
            if (th->count() > 0)
                opts.threshold = a->threshold;
            opts.matching = a->match == "instruction" ? analysis::GapOptions::Matching::Instruction
                            : a->match == "handle"    ? analysis::GapOptions::Matching::DebugHandle
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
