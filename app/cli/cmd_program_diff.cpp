// `program-diff`: two builds of one model compared (core/program/programdiff.h): size per part,
// operators moved into or out of delegates, delegates added/split/merged, constants changed,
// memory-plan peaks, inputs/outputs. Two programs of different models are refused (exit 1);
// --fail-if-larger PCT exits 3 when B's file is more than PCT percent larger than A's. --html
// OUT writes the HTML report's program-diff section as a page of its own (core/export).
#include "command.h"

#include "export/htmlreport.h"
#include "program/flattensor.h"
#include "program/programdiff.h"

#include <fmt/format.h>

#include <optional>

namespace etscope::cli {
namespace {

struct ProgramDiffArgs {
    std::string a, b, json, html;
    std::optional<double> failIfLarger;
};

Registration reg("program-diff", "Compare two builds of one model (.pte): sizes, delegation, constants, memory",
    [](CLI::App &sub) -> std::function<int()> {
        auto a = std::make_shared<ProgramDiffArgs>();
        sub.add_option("a", a->a, "Program A (.pte or .bpte), the baseline")->required();
        sub.add_option("b", a->b, "Program B (.pte or .bpte)")->required();
        sub.add_option("--json", a->json, "Write JSON to this file ('-' for stdout) instead of the listing");
        sub.add_option(
            "--html", a->html, "Write the comparison as an HTML page too ('-': stdout, instead of the listing)");
        sub.add_option("--fail-if-larger", a->failIfLarger, "Exit 3 when B's file is more than PCT percent larger")
            ->check(CLI::NonNegativeNumber);
        return [a] {
            auto pa = Program::openAny(a->a);
            if (!pa)
                return reportError(pa.error());
            auto pb = Program::openAny(a->b);
            if (!pb)
                return reportError(pb.error());
            const ProgramDiff d = diffPrograms(**pa, **pb);
            // The listing goes to stdout unless --json or --html takes it.
            const Status st = !a->json.empty() ? writeOutput(a->json, programDiffJson(d))
                : a->html == "-"               ? Status(Ok {})
                                               : writeOutput("-", programDiffText(d));
            if (!st)
                return reportError(st.error());
            if (!a->html.empty())
                if (const Status h = writeOutput(a->html,
                        renderProgramDiffPage(
                            d, fmt::format("etscope-cli {} (git {})", ETSCOPE_VERSION, ETSCOPE_GIT_REVISION)));
                    !h)
                    return reportError(h.error());
            if (!d.comparable)
                return reportError(makeError(ErrorCode::InvalidArgument, a->b, d.refusal));
            if (a->failIfLarger && d.growthPercent() > *a->failIfLarger)
                return kExitGateTripped;
            return kExitOk;
        };
    });

} // namespace
} // namespace etscope::cli
