// `modules`: latency per nn.Module as an indented tree (ETDump linked to an ETRecord). Each
// event is counted once, in the innermost module holding all its graph nodes (modulerollup.h):
// a call spanning several modules (a delegated partition) is listed under their common
// ancestor as "[spans …]", and the modules it touches show it as "shared", outside their total.
// For the Inspector's find_total_for_module (every module a node sits in) see `tsv --modules`.
#include "command.h"

#include "etrecord/modulerollup.h"
#include "etrecord/modulestack.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace etscope::cli {
namespace {

struct ModulesArgs {
    InputOptions in;
    std::string method = "forward", output;
    bool quirk = false;
};

// The calls counted in `n` although they span several modules, one line each.
void printSpanning(const ModuleRollupNode &n, int depth, std::string_view unit, std::string &out)
{
    for (const SpanningCall &c : n.spanning)
        out += fmt::format(
            "{:{}}[spans {}] {}  {:.6f} {}\n", "", depth * 2 + 2, fmt::join(c.modules, ", "), c.label, c.time, unit);
}

void print(const ModuleRollupNode &n, int depth, std::string_view unit, std::string &out)
{
    const std::string name = n.displayPath.empty() ? n.key : n.displayPath;
    const auto dot = n.type.rfind('.');
    const std::string type = dot == std::string::npos ? n.type : n.type.substr(dot + 1);
    out += fmt::format("{:{}}{}{}  total {:.6f} {}  avg {:.6f} {}  events {}", "", depth * 2, name,
        type.empty() ? "" : " (" + type + ")", n.total, unit, n.average(), unit, n.eventCount);
    if (n.sharedCount)
        out += fmt::format("  shared {:.6f} {} in {} call{} counted under {}", n.sharedTotal, unit, n.sharedCount,
            n.sharedCount == 1 ? "" : "s", n.sharedAt);
    out += '\n';
    printSpanning(n, depth, unit, out);
    for (const ModuleRollupNode &c : n.children)
        print(c, depth + 1, unit, out);
}

const Registration modules(
    "modules", "Latency per nn.Module as a tree (needs --etdump and --etrecord)", [](CLI::App &sub) {
        auto a = std::make_shared<ModulesArgs>();
        sub.add_option("--method,-m", a->method, "Method to link (the Inspector only uses forward)");
        addInputOptions(sub, a->in);
        sub.get_option("--etrecord")->required();
        sub.add_flag("--delegate-substring-quirk", a->quirk,
            "Match delegate identifiers by substring like the Python Inspector (default: exact)");
        sub.add_option("--output,-o", a->output, "Write to this file instead of stdout");
        return std::function<int()>([a] {
            a->in.link.method = a->method;
            a->in.link.delegateSubstringQuirk = a->quirk;
            auto session = loadScopedOrReport(a->in);
            if (!session)
                return 1;
            const ModuleRollupNode root = buildModuleRollup(session->blocks);
            if (root.children.empty())
                return reportError(makeError(ErrorCode::InvalidArgument, a->in.etrecord,
                    "no event is linked to a module (no nn_module_stack in the graph, or no matching debug handles)"));
            const std::string_view unit = a->in.targetTimeScale;
            std::string out = fmt::format(
                "{}  total {:.6f} {}  events {}\n", moduleDisplayName({}), root.total, unit, root.eventCount);
            printSpanning(root, 0, unit, out);
            for (const ModuleRollupNode &c : root.children)
                print(c, 1, unit, out);
            if (auto s = writeOutput(a->output, out); !s)
                return reportError(s.error());
            return 0;
        });
    });

} // namespace
} // namespace etscope::cli
