// `gap`: the Inspector's calculate_numeric_gap. Reference: a second ETDump, an AOT outputs file,
// or (default, with only --etrecord) the ETRecord's graph run by the built-in evaluator on the
// ETRecord's representative inputs, --inputs or a BundledProgram test case; --isolate evaluates
// every node from the runtime values of its inputs. The options and their reading are shared
// with `report` (gapoptions.h). See core/analysis/numericgap.h and core/evalgap/evalgap.h.
#include "command.h"
#include "gapoptions.h"

#include "analysis/numericgap.h"
#include "evalgap/decompose.h"

#include <cstdio>

namespace etscope::cli {
namespace {

struct GapCommandArgs {
    InputOptions in;
    GapArgs gap;
    std::string sort, tsv;
    bool decompose = false; // quantization / kernel / total error per op (evalgap/decompose.h)
    std::string json;
};

// `gap --decompose`: the built-in evaluator runs the graph fake-quantized and as its float twin.
int decompose(const Session &s, const GapCommandArgs &a)
{
    if (!s.etrecord)
        return reportError(makeError(ErrorCode::InvalidArgument, s.inputs.etdump, "--decompose needs --etrecord"));
    if (!s.debugBuffer)
        return reportError(makeError(
            ErrorCode::InvalidArgument, s.inputs.etdump, "--debug-buffer is required to read intermediate outputs"));
    auto d = evalgap::decomposeGap(*s.etrecord, s, decomposeOptions(a.gap));
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
        auto a = std::make_shared<GapCommandArgs>();
        addInputOptions(sub, a->in);
        addGapOptions(sub, a->gap);
        sub.add_option("--sort", a->sort, "'gap': worst first (default: execution order)")
            ->check(CLI::IsMember({ "gap", "order" }));
        sub.add_option("--tsv", a->tsv, "Also write the table as TSV to this file ('-' = stdout only TSV)");
        sub.add_flag("--decompose", a->decompose,
            "Quantized models: split each op's gap into quantization error (float twin vs fake-quantized "
            "graph), kernel error (fake-quantized vs runtime) and total, and name the dominant one");
        sub.add_option("--json", a->json, "With --decompose: also write the decomposition as JSON ('-' = stdout only)");
        return std::function<int()>([a] {
            if (auto st = checkGapArgs(a->gap, a->in.etrecord); !st)
                return reportError(st.error());
            if (a->decompose && (!a->gap.builtIn() || a->gap.isolate || a->gap.floatTwin))
                return reportError(makeError(ErrorCode::InvalidArgument, "",
                    "--decompose uses the built-in evaluator on --etrecord (no --reference-etdump, "
                    "--aot-outputs, --isolate or --float-twin: it runs both graphs)"));
            if (!a->json.empty() && !a->decompose)
                return reportError(makeError(ErrorCode::InvalidArgument, "", "--json applies to --decompose"));
            auto session = loadScopedOrReport(a->in);
            if (!session)
                return 1;
            if (a->decompose)
                return decompose(*session, *a);
            auto table = computeGap(*session, a->gap);
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
