// `runs`: one row per executed run (method, phase, start, duration) and the generation figures
// (time to first token, tokens/s, latency against position, drift, outliers) with per-phase
// operator shares. The rules are analysis/runs.h's.
#include "command.h"

#include "analysis/runs.h"

#include <fmt/format.h>

namespace etscope::cli {
namespace {

struct RunsArgs {
    InputOptions in;
    std::string sharesBy, json, output;
    std::optional<std::int64_t> promptTokens;
    std::size_t top = 15;
};

const Registration runs("runs",
    "Runs over time: method, phase and generation per run, time to first token, tokens/s, latency slope, operator "
    "shares",
    [](CLI::App &sub) {
        auto a = std::make_shared<RunsArgs>();
        addInputOptions(sub, a->in);
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
        return std::function<int()>([a] {
            auto session = loadOrReport(a->in);
            if (!session)
                return kExitBadInput;
            RunsOptions opt;
            opt.method = a->in.method;
            opt.promptTokens = a->promptTokens;
            // etscope's own table: backend events by their decoded operator unless asked otherwise.
            if (a->sharesBy == "backend-operator" || (a->sharesBy.empty() && !a->in.rawBackendNames))
                opt.sharesBy = ShareRowsBy::BackendOperator;
            opt.sharesByDefault = a->sharesBy.empty();
            auto report = analyzeRuns(*session, opt);
            if (!report)
                return reportError(report.error());
            if (!a->json.empty()) {
                if (Status st = writeOutput(a->json, runsJson(*report)); !st)
                    return reportError(st.error());
                if (a->json == "-" && a->output.empty())
                    return kExitOk;
            }
            if (Status st = writeOutput(a->output, runsText(*report, a->top)); !st)
                return reportError(st.error());
            return kExitOk;
        });
    });

} // namespace
} // namespace etscope::cli
