// `determinism`: the same tensors over several runs (one recording's debug buffer holding every
// run's intermediates, or several recordings of one program and input), compared bit for bit
// (core/analysis/determinism.h).
#include "command.h"

#include "analysis/determinism.h"

#include <fmt/format.h>

#include <cstdio>

namespace etscope::cli {
namespace {

struct DeterminismArgs {
    std::vector<std::string> etdumps, debugBuffers;
    std::string json, output;
};

const Registration determinismCmd("determinism",
    "Is every logged tensor the same on every run? Distinct results, runs that differ, by how much, where (tile)",
    [](CLI::App &sub) {
        auto a = std::make_shared<DeterminismArgs>();
        sub.add_option("--etdump,-e", a->etdumps, "ETDump with intermediate outputs (repeat for more recordings)")
            ->required();
        sub.add_option("--debug-buffer,-b", a->debugBuffers, "The debug buffer of each --etdump, in the same order")
            ->required();
        sub.add_option("--json", a->json, "Write the tensors as JSON to this file ('-' for stdout)");
        sub.add_option("--output,-o", a->output, "Write the text to this file instead of stdout");
        return std::function<int()>([a] {
            if (a->etdumps.size() != a->debugBuffers.size())
                return reportError(makeError(ErrorCode::InvalidArgument, {},
                    fmt::format("{} --etdump but {} --debug-buffer: give one debug buffer per ETDump",
                        a->etdumps.size(), a->debugBuffers.size())));
            std::vector<DeterminismInput> inputs;
            for (std::size_t i = 0; i < a->etdumps.size(); ++i) {
                auto e = readETDump(a->etdumps[i]);
                if (!e)
                    return reportError(e.error());
                auto b = DebugBuffer::open(a->debugBuffers[i]);
                if (!b)
                    return reportError(b.error());
                inputs.push_back({ *e, *b });
            }
            auto report = analyzeDeterminism(inputs);
            if (!report)
                return reportError(report.error());
            for (const auto &w : report->warnings)
                std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
            if (!a->json.empty())
                if (Status st = writeOutput(a->json, determinismJson(*report)); !st)
                    return reportError(st.error());
            if (a->json != "-" || !a->output.empty())
                if (Status st = writeOutput(a->output, determinismText(*report)); !st)
                    return reportError(st.error());
            return kExitOk;
        });
    });

} // namespace
} // namespace etscope::cli
