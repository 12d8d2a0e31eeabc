// `diff`: latency A/B of two recordings with per-row statistics and a CI gate
// (core/analysis/latencydiff.h). Exits kExitGateTripped (3) when --fail-if-slower trips, and
// kExitBadInput (1) when asked to gate two recordings of different programs.
#include "command.h"
#include "many.h"

#include "analysis/latencydiff.h"
#include "analysis/latencydiffformat.h"
#include "analysis/scopediff.h"

#include <cstdio>
#include <cstdlib>
#include <future>

namespace etscope::cli {
namespace {

struct DiffArgs {
    InputOptions a;
    std::string etdumpB, debugBufferB, etrecordB;
    double alpha = 0.01;
    std::string minChange = "2%";
    std::string tsv, csv;
    bool json = false;
    bool all = false;
    double failIfSlower = -1;
    std::size_t top = 0;
};

// "2%", "2" (both percent) or "0.02" is not accepted as a fraction: a bare number is percent,
// like --fail-if-slower.
bool parsePercent(const std::string &text, double &fraction)
{
    std::string s = text;
    if (!s.empty() && s.back() == '%')
        s.pop_back();
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !(v >= 0) || v > 1e6)
        return false;
    fraction = v / 100.0;
    return true;
}

const Registration diffCmd(
    "diff", "Compare the latency of two recordings (A/B) with statistics; --fail-if-slower for CI", [](CLI::App &sub) {
        auto args = std::make_shared<DiffArgs>();
        addInputOptions(sub, args->a);
        sub.add_option("--etdump-b", args->etdumpB, "ETDump of recording B (the candidate)")->required();
        sub.add_option("--debug-buffer-b", args->debugBufferB, "Debug buffer of recording B");
        sub.add_option(
            "--etrecord-b", args->etrecordB, "ETRecord of recording B (with --etrecord: match through debug handles)");
        sub.add_option("--alpha", args->alpha, "Significance level of the Mann-Whitney U test (default 0.01)")
            ->check(CLI::Range(0.0, 1.0));
        sub.add_option("--min-change", args->minChange, "Noise floor on the median ratio, in percent (default 2%)");
        auto *tsv = sub.add_option("--tsv", args->tsv, "Write all rows as TSV to this file ('-' = stdout)");
        auto *csv = sub.add_option("--csv", args->csv, "Write all rows as CSV to this file ('-' = stdout)");
        auto *json = sub.add_flag("--json", args->json, "Print the diff as JSON");
        tsv->excludes(json)->excludes(csv);
        csv->excludes(json);
        sub.add_flag("--all", args->all, "Keep OPERATOR_CALL rows (hidden like in the Inspector's table)");
        sub.add_option("--top", args->top, "Readable table: show only the N biggest changes (default all)");
        sub.add_option("--fail-if-slower", args->failIfSlower,
               "Exit 3 when a matched row or a block total is 'slower' by more than PCT percent")
            ->check(CLI::Range(0.0, 1e6));
        return std::function<int()>([args] {
            DiffOptions options;
            options.alpha = args->alpha;
            options.includeOperatorCalls = args->all;
            if (!parsePercent(args->minChange, options.minChange))
                return reportError(makeError(ErrorCode::InvalidArgument, {},
                    "--min-change: expected a percentage like 2% (got '" + args->minChange + "')"));
            // B: its own ETDump and companions, A's program and .ptd (the same program's runs).
            InputOptions b = args->a;
            b.files.clear();
            if (auto inA = sessionInputsOf(args->a)) {
                b.program = inA->program;
                b.data = inA->programData;
            }
            b.etdump = args->etdumpB;
            b.debugBuffer = args->debugBufferB;
            b.etrecord = args->etrecordB;
            b.bundledProgram.clear();
            const auto scope = scopeOf(args->a);
            if (!scope)
                return reportError(scope.error());
            LatencyDiff diff;
            if (isMany({ args->a.etdump }) || isMany({ b.etdump })) {
                // Directories or globs: each side's recordings pooled run by run (many.h).
                auto pa = loadPooledBlocks(args->a);
                auto pb = pa ? loadPooledBlocks(b) : std::nullopt;
                if (!pa || !pb)
                    return 1;
                diff = diffLatency(*pa, *pb, options);
            } else {
                // Both recordings load at once: a compare costs about as much as the bigger file.
                auto futureB = std::async(std::launch::async, [b] { return loadOrReport(b); });
                auto sa = loadOrReport(args->a);
                auto sb = futureB.get();
                if (!sa || !sb)
                    return 1;
                // Per method and phase of the runs (session/scope.h), within the asked scope.
                auto scoped = diffLatencyByScope(*sa, *sb, *scope, options);
                if (!scoped)
                    return reportError(scoped.error());
                diff = std::move(scoped->diff);
            }
            std::string text;
            std::string out;
            if (args->json)
                text = formatDiffJson(diff, options);
            else if (!args->tsv.empty() || !args->csv.empty()) {
                text = formatDiffDelimited(diff, args->tsv.empty() ? ',' : '\t');
                out = args->tsv.empty() ? args->csv : args->tsv;
            } else
                text = formatDiffText(diff, args->top);
            if (auto st = writeOutput(out, text); !st)
                return reportError(st.error());
            if (args->failIfSlower >= 0 && !diff.comparable()) {
                // Verdicts between rows of unrelated programs would gate on noise: refuse.
                std::fprintf(stderr,
                    "etscope-cli: %s and %s ran different programs (%s): --fail-if-slower gates only recordings of "
                    "the same program\n",
                    args->a.etdump.c_str(), b.etdump.c_str(), diff.identity.reason.c_str());
                return kExitBadInput;
            }
            if (diff.heuristic())
                std::fprintf(stderr, "etscope-cli: note: %s (heuristic)\n",
                    (diff.banner.empty() ? diff.notes.front() : diff.banner).c_str());
            if (args->failIfSlower >= 0) {
                std::string why;
                if (slowerThan(diff, args->failIfSlower, &why)) {
                    std::fprintf(stderr, "etscope-cli: slower than %g%%:\n%s", args->failIfSlower, why.c_str());
                    return kExitGateTripped;
                }
            }
            return 0;
        });
    });

} // namespace
} // namespace etscope::cli
