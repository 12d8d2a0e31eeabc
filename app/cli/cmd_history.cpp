// `history`: many recordings ordered by label, one series per operator (or method, or total),
// change points by E-divisive means with a permutation test (core/analysis/history.h), and a CI
// gate on significant slowdowns. Exits kExitGateTripped (3) when --fail-on-change trips.
#include "command.h"

#include "historyload.h"

#include <cstdio>

namespace etscope::cli {
namespace {

struct HistoryArgs {
    std::vector<std::string> recordings;
    std::string labels, by = "operator", json, output;
    std::string sourceTimeScale = "ns", targetTimeScale = "ms";
    double cyclesPerSecond = 0;
    double failOnChange = -1;
    unsigned jobs = 0;
    ChangePointOptions cp;
};

const Registration historyCmd("history",
    "Recordings over time: per-operator p50 series and their change points (E-divisive, permutation test); "
    "--fail-on-change for CI",
    [](CLI::App &sub) {
        auto a = std::make_shared<HistoryArgs>();
        sub.add_option("recordings", a->recordings, "ETDump files, directories (searched for *.etdp) or globs")
            ->required();
        sub.add_option("--labels", a->labels,
            "CSV with columns file,label[,order]: each recording's label and order (default: its path, in path order)");
        sub.add_option("--by", a->by, "One series per operator (default), per method (Method::execute) or the total")
            ->check(CLI::IsMember({ "operator", "method", "total" }));
        sub.add_option("--json", a->json, "Write series and change points as JSON to this file ('-' for stdout)");
        sub.add_option("--output,-o", a->output, "Write the text to this file instead of stdout");
        sub.add_option("--fail-on-change", a->failOnChange,
               "Exit 3 when a significant change makes a series slower by more than PCT percent")
            ->check(CLI::Range(0.0, 1e6));
        sub.add_option("--alpha", a->cp.alpha, "Significance level of a change point (default 0.001)")
            ->check(CLI::Range(1e-9, 1.0));
        sub.add_option("--permutations", a->cp.permutations, "Permutations per candidate (default 999)")
            ->check(CLI::Range(1, 1000000));
        sub.add_option("--min-segment", a->cp.minSegment, "Fewest recordings on either side of a change (default 3)")
            ->check(CLI::Range(2, 1000000));
        sub.add_option("--seed", a->cp.seed, "Seed of the permutations (results are reproducible for a seed)");
        sub.add_option(
            "--source-time-scale", a->sourceTimeScale, "Time scale of the recording (ns, us, ms, s, cycles)");
        sub.add_option("--target-time-scale", a->targetTimeScale, "Time scale to report in (ns, us, ms, s, cycles)");
        sub.add_option("--cycles-per-second", a->cyclesPerSecond, "Clock rate when a time scale is cycles");
        sub.add_option("--jobs,-j", a->jobs, "Recordings loaded at once (default: all cores)");
        return std::function<int()>([a] {
            HistoryInputs in;
            in.recordings = a->recordings;
            in.labelsCsv = a->labels;
            in.by = a->by == "method" ? HistoryBy::Method : a->by == "total" ? HistoryBy::Total : HistoryBy::Operator;
            in.threads = a->jobs;
            in.changePoints = a->cp;
            const auto h = loadHistoryOrReport(in, a->sourceTimeScale, a->targetTimeScale, a->cyclesPerSecond);
            if (!h)
                return kExitBadInput;
            if (!a->json.empty())
                if (Status st = writeOutput(a->json, historyJson(*h)); !st)
                    return reportError(st.error());
            if (a->json != "-" || !a->output.empty())
                if (Status st = writeOutput(a->output, formatHistoryText(*h)); !st)
                    return reportError(st.error());
            if (a->failOnChange >= 0 && historyHasSlowdown(*h, a->failOnChange)) {
                std::fprintf(
                    stderr, "etscope-cli: a significant change is slower by more than %g%%:\n", a->failOnChange);
                for (const auto &c : h->changes)
                    if (c.changePercent > a->failOnChange)
                        std::fprintf(stderr, "  %s\n", describeChange(*h, c).c_str());
                return kExitGateTripped;
            }
            return h->errors.empty() ? kExitOk : kExitBadInput;
        });
    });

} // namespace
} // namespace etscope::cli
