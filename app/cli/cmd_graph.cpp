// `graph`: one line per node of an ETRecord program (node, op, output shape, debug handle,
// module path, source location), or the ETRecord's entry listing with --entries.
#include "command.h"

#include "etrecord/etrecord.h"
#include "etrecord/modulestack.h"

#include <fmt/format.h>

#include <algorithm>

namespace etscope::cli {
namespace {

struct GraphArgs {
    std::string etrecord, method = "forward", entry, output;
    bool entries = false;
};

std::string outputShapes(const ExportedProgram &p, const GraphNode &n)
{
    std::vector<std::string> parts;
    for (const GraphArgument &o : n.outputs)
        for (const std::string &t : o.tensorNames) {
            const TensorMetaInfo *m = p.tensor(t);
            parts.push_back(m ? m->dtypeName() + m->shapeText() : "?");
        }
    return fmt::format("{}", fmt::join(parts, " "));
}

std::string table(const std::vector<std::vector<std::string>> &rows)
{
    std::vector<std::size_t> width;
    for (const auto &r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) {
            if (width.size() <= c)
                width.push_back(0);
            width[c] = std::max(width[c], r[c].size());
        }
    std::string out;
    for (const auto &r : rows) {
        std::string line;
        for (std::size_t c = 0; c < r.size(); ++c)
            line += c + 1 == r.size() ? r[c] : fmt::format("{:<{}}  ", r[c], width[c]);
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
    }
    return out;
}

const Registration graph(
    "graph", "List the nodes of an ETRecord program (op, shape, debug handle, module, source)",
    [](CLI::App &sub) {
        auto a = std::make_shared<GraphArgs>();
        sub.add_option("etrecord", a->etrecord, "ETRecord file")->required();
        sub.add_option("--method,-m", a->method, "Method of the Edge program (default forward)");
        sub.add_option("--entry", a->entry, "Program entry instead, e.g. exported_program or aten_dialect_output/forward");
        sub.add_flag("--entries", a->entries, "List the ETRecord's entries and their kinds instead");
        sub.add_option("--output,-o", a->output, "Write to this file instead of stdout");
        return std::function<int()>([a] {
            auto rec = readETRecord(a->etrecord);
            if (!rec)
                return reportError(rec.error());
            const ETRecord &r = **rec;
            std::string out;
            if (a->entries) {
                std::vector<std::vector<std::string>> rows{{"entry", "kind", "bytes"}};
                for (const ETRecordEntry &e : r.entries())
                    rows.push_back({e.name, entryKindName(e.kind), std::to_string(e.size)});
                out = table(rows);
                for (const std::string &w : r.warnings())
                    out += "warning: " + w + "\n";
            } else {
                const ETRecordProgram *p = a->entry.empty() ? r.edgeProgram(a->method) : r.program(a->entry);
                if (!p) {
                    std::vector<std::string> names;
                    for (const ETRecordProgram &q : r.programs())
                        names.push_back(q.entryName);
                    return reportError(makeError(ErrorCode::InvalidArgument, a->etrecord,
                                                 fmt::format("no program {}; available: {}",
                                                             a->entry.empty() ? "for method '" + a->method + "'" : "'" + a->entry + "'",
                                                             fmt::join(names, ", "))));
                }
                const ExportedProgram &ep = *p->program;
                out = fmt::format("{}: {} nodes ({}, schema {})\n", p->entryName, ep.nodes.size(),
                                  ep.dialect.empty() ? "dialect not recorded" : ep.dialect, ep.schemaVersion);
                std::vector<std::vector<std::string>> rows{{"node", "op", "output", "handle", "module", "source"}};
                for (const GraphNode &n : ep.nodes) {
                    std::string module;
                    if (n.moduleStack && !n.moduleStack->empty())
                        module = normalizeModulePath(n.moduleStack->back().path);
                    rows.push_back({n.name, n.opName, outputShapes(ep, n), n.debugHandle ? std::to_string(*n.debugHandle) : "-",
                                    module.empty() ? "-" : module, n.sourceLocation().empty() ? "-" : n.sourceLocation()});
                }
                out += table(rows);
            }
            if (auto s = writeOutput(a->output, out); !s)
                return reportError(s.error());
            return 0;
        });
    });

} // namespace
} // namespace etscope::cli
