// `runs`: one row per executed run (method, phase, start, duration) and the generation figures
// (time to first token, tokens/s, latency against position, drift, outliers) with per-phase
// operator shares and how much of each run the events explain. The rules are analysis/runs.h's and
// analysis/coverage.h's; several --etdump put the recordings side by side (analysis/runscompare.h).
#include "command.h"

#include "analysis/coverage.h"
#include "analysis/runs.h"
#include "analysis/runscompare.h"

#include <fmt/format.h>

#include <optional>

namespace etscope::cli {
namespace {

struct RunsArgs {
    InputOptions in;
    std::string sharesBy, json, output;
    std::optional<std::int64_t> promptTokens;
    std::size_t top = 15;
    std::optional<double> wallMs; // the runs' wall time, for the coverage line
};

const Registration runs("runs",
    "Runs over time: method, phase and generation per run, time to first token, tokens/s, latency slope, operator "
    "shares, coverage",
    [](CLI::App &sub) {
        auto a = std::make_shared<RunsArgs>();
        addInputOptions(sub, a->in);
        // Several --etdump: the recordings side by side; all are read from the option's results.
        auto *etdumps = sub.get_option("--etdump")->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
        sub.add_option("--prompt-tokens", a->promptTokens, "Tokens of the prompt (default: the prefill input's shape)")
            ->check(CLI::PositiveNumber);
        sub.add_option("--shares-by", a->sharesBy,
               "Share rows by the operator decoded from backends' events (default: Vulkan, XNNPACK, Neutron; "
               "wrapping host phases not counted) or by operator, events by their raw names (as "
               "--raw-backend-names)")
            ->check(CLI::IsMember({ "operator", "backend-operator" }));
        sub.add_option("--top", a->top, "Share rows per phase in the text (0: all)");
        sub.add_option("--json", a->json, "Write the runs and figures as JSON to this file ('-' for stdout)");
        sub.add_option("--output,-o", a->output, "Write the text to this file instead of stdout");
        sub.add_option(
               "--wall-ms", a->wallMs, "The runs' wall time in ms (e.g. from the runner's log): coverage against it")
            ->check(CLI::PositiveNumber);
        return std::function<int()>([a, etdumps] {
            std::vector<RecordingRuns> recordings;
            const auto files = etdumps->results();
            for (const std::string &etdump : files.empty() ? std::vector<std::string> { a->in.etdump } : files) {
                InputOptions in = a->in;
                in.etdump = etdump;
                auto session = loadOrReport(in);
                if (!session)
                    return kExitBadInput;
                const auto scope = scopeOf(in);
                if (!scope)
                    return reportError(scope.error());
                RunsOptions opt;
                opt.method = in.method;
                opt.scope = *scope; // --phase, --runs: those runs' rows, figures and shares
                opt.promptTokens = a->promptTokens;
                // etscope's own table: backend events by their decoded operator unless asked otherwise.
                if (a->sharesBy == "backend-operator" || (a->sharesBy.empty() && !in.rawBackendNames))
                    opt.sharesBy = ShareRowsBy::BackendOperator;
                opt.sharesByDefault = a->sharesBy.empty();
                // With how much of Method::execute the events explain, over the same runs.
                auto recording = analyzeRecordingRuns(*session, opt, a->wallMs);
                if (!recording)
                    return reportError(recording.error());
                recordings.push_back(std::move(*recording));
            }
            const bool several = recordings.size() > 1;
            if (!a->json.empty()) {
                const std::string json = several
                    ? runsSideBySideJson(recordings)
                    : runsJsonWithCoverage(recordings.front().runs, recordings.front().coverage);
                if (Status st = writeOutput(a->json, json); !st)
                    return reportError(st.error());
                if (a->json == "-" && a->output.empty())
                    return kExitOk;
            }
            std::string text;
            if (several) {
                text = runsSideBySideText(recordings, a->top);
            } else {
                text = runsText(recordings.front().runs, a->top);
                for (const std::string &line : coverageSentences(recordings.front().coverage))
                    text += "coverage: " + line + '\n';
            }
            if (Status st = writeOutput(a->output, text); !st)
                return reportError(st.error());
            return kExitOk;
        });
    });

} // namespace
} // namespace etscope::cli
