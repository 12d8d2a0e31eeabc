// `runs`: one row per executed run (method, phase, start, duration) and the generation figures
// (time to first token, tokens/s, latency against position, drift, outliers) with per-phase
// operator shares. The rules are analysis/runs.h's.
#include "command.h"

#include "analysis/coverage.h"
#include "analysis/runs.h"
#include "analysis/runscompare.h"
#include "program/flattensor.h"
#include "program/program.h"

#include <fmt/format.h>

#include <optional>

namespace etscope::cli {
namespace {

struct RunsArgs {
    InputOptions in;
    std::string program, method, phaseBy, sharesBy = "operator", json, output;
    std::vector<std::string> data; // .ptd files of the program's external tensors
    std::optional<std::size_t> prefillRuns;
    std::optional<std::int64_t> promptTokens;
    std::size_t top = 15;
    std::optional<double> wallMs; // the runs' wall time, for the coverage line
};

const Registration runs("runs",
    "Runs over time: method and phase per run, time to first token, tokens/s, latency slope, operator shares",
    [](CLI::App &sub) {
        auto a = std::make_shared<RunsArgs>();
        addInputOptions(sub, a->in);
        // Several --etdump: the recordings side by side (analysis/runscompare.h); all are read
        // from the option's results.
        auto *etdumps = sub.get_option("--etdump")->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
        // --program and --method may become input options shared by every command (the program as
        // a session input): then those are read, not added twice.
        auto *program = sub.get_option_no_throw("--program");
        if (!program)
            program = sub.add_option(
                "--program,-p", a->program, "The program (.pte or .bpte) the runs executed: methods per run");
        auto *method = sub.get_option_no_throw("--method");
        if (!method)
            method = sub.add_option("--method,-m", a->method, "Only the runs of this method (needs --program)");
        sub.add_option("--data", a->data, "FlatTensor file (.ptd) holding the program's external tensors (repeatable)")
            ->needs(program);
        auto *prefill
            = sub.add_option("--prefill-runs", a->prefillRuns, "The first N runs are prefill, the rest decode");
        sub.add_option("--phase-by", a->phaseBy, "Phases by the runs' method names or by duration")
            ->check(CLI::IsMember({ "method", "duration" }))
            ->excludes(prefill);
        sub.add_option("--prompt-tokens", a->promptTokens, "Tokens of the prompt (default: the prefill input's shape)")
            ->check(CLI::PositiveNumber);
        sub.add_option("--shares-by", a->sharesBy,
               "Share rows by operator (default) or by the operator decoded from backends' events "
               "(Vulkan, XNNPACK, Neutron; wrapping host phases not counted)")
            ->check(CLI::IsMember({ "operator", "backend-operator" }));
        sub.add_option("--top", a->top, "Share rows per phase in the text (0: all)");
        sub.add_option("--json", a->json, "Write the runs and figures as JSON to this file ('-' for stdout)");
        sub.add_option("--output,-o", a->output, "Write the text to this file instead of stdout");
        sub.add_option(
               "--wall-ms", a->wallMs, "The runs' wall time in ms (e.g. from the runner's log): coverage against it")
            ->check(CLI::PositiveNumber);
        return std::function<int()>([a, program, method, etdumps] {
            if (a->program.empty() && program->count())
                a->program = program->as<std::string>();
            if (a->method.empty() && method->count())
                a->method = method->as<std::string>();
            std::shared_ptr<const Program> pte;
            if (!a->program.empty()) {
                auto p = openProgramWithData(a->program, a->data);
                if (!p)
                    return reportError(p.error());
                pte = *p;
            }
            std::vector<RecordingRuns> recordings;
            for (const std::string &etdump : etdumps->results()) {
                InputOptions in = a->in;
                in.etdump = etdump;
                auto session = loadOrReport(in);
                if (!session)
                    return kExitBadInput;
                RunsOptions opt;
                opt.time = session->inputs.time;
                opt.method = a->method;
                opt.promptTokens = a->promptTokens;
                if (a->sharesBy == "backend-operator")
                    opt.sharesBy = ShareRowsBy::BackendOperator;
                if (a->prefillRuns) {
                    opt.phaseBy = PhaseRule::PrefillRuns;
                    opt.prefillRuns = *a->prefillRuns;
                } else if (a->phaseBy == "method") {
                    opt.phaseBy = PhaseRule::Method;
                } else if (a->phaseBy == "duration") {
                    opt.phaseBy = PhaseRule::Duration;
                }
                auto report = analyzeRuns(session->blocks, pte.get(), opt, etdump);
                if (!report)
                    return reportError(report.error());
                // How much of Method::execute the events explain (analysis/coverage.h).
                recordings.push_back({ std::move(*report), analyzeCoverage(session->blocks, opt.time, a->wallMs) });
            }
            if (recordings.size() > 1) {
                if (!a->json.empty()) {
                    if (Status st = writeOutput(a->json, runsSideBySideJson(recordings)); !st)
                        return reportError(st.error());
                    if (a->json == "-" && a->output.empty())
                        return kExitOk;
                }
                if (Status st = writeOutput(a->output, runsSideBySideText(recordings, a->top)); !st)
                    return reportError(st.error());
                return kExitOk;
            }
            const RunsReport *report = &recordings.front().runs;
            const CoverageReport &coverage = recordings.front().coverage;
            if (!a->json.empty()) {
                if (Status st = writeOutput(a->json, runsJsonWithCoverage(*report, coverage)); !st)
                    return reportError(st.error());
                if (a->json == "-" && a->output.empty())
                    return kExitOk;
            }
            std::string text = runsText(*report, a->top);
            for (const std::string &line : coverageSentences(coverage))
                text += "coverage: " + line + '\n';
            if (Status st = writeOutput(a->output, text); !st)
                return reportError(st.error());
            return kExitOk;
        });
    });

} // namespace
} // namespace etscope::cli
