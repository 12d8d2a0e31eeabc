// `gap`: the Inspector's calculate_numeric_gap. Reference: a second ETDump, an AOT outputs file,
// or (default, with only --etrecord) the ETRecord's graph run by the built-in evaluator on the
// ETRecord's representative inputs, --inputs or a BundledProgram test case; --isolate evaluates
// every node from the runtime values of its inputs. The options and their reading are shared
// with `report` (gapoptions.h). See core/analysis/numericgap.h and core/evalgap/evalgap.h.
#include "command.h"
#include "gapoptions.h"

#include "analysis/numericgap.h"

#include <cstdio>

namespace etscope::cli {
namespace {

struct GapCommandArgs {
    InputOptions in;
    GapArgs gap;
    std::string sort, tsv;
};

const Registration gap(
    "gap", "Per-operator numeric gap between this run and a reference (calculate_numeric_gap)", [](CLI::App &sub) {
        auto a = std::make_shared<GapCommandArgs>();
        addInputOptions(sub, a->in);
        addGapOptions(sub, a->gap);
        sub.add_option("--sort", a->sort, "'gap': worst first (default: execution order)")
            ->check(CLI::IsMember({ "gap", "order" }));
        sub.add_option("--tsv", a->tsv, "Also write the table as TSV to this file ('-' = stdout only TSV)");
        return std::function<int()>([a] {
            if (auto st = checkGapArgs(a->gap, a->in.etrecord); !st)
                return reportError(st.error());
            auto session = loadOrReport(a->in);
            if (!session)
                return 1;
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
