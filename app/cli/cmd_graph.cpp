// `graph`: one line per node of an ETRecord program (node, op, output shape, debug handle,
// module path, source location), the ETRecord's entry listing with --entries, or with --svg the
// picture the GUI's graph view draws (Graphviz SVG, overlays from an ETDump / reference).
#include "command.h"

#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "graph/graphlayout.h"
#include "graph/programgraph.h"

#include "etrecord/etrecord.h"
#include "etrecord/modulestack.h"
#include "events/backendevents.h"
#include "program/program.h"

#include <fmt/format.h>

#include <algorithm>

namespace etscope::cli {
namespace {

struct GraphArgs {
    std::string etrecord, method = "forward", entry, output;
    bool entries = false;
    std::string svg, overlay, etdump, debugBuffer, metric = "MSE";
    std::vector<std::string> expand;
    bool placeholders = false;
    double threshold = 0;
    analysis::ReferenceInputs ref;
};

// The graph to draw: the ETRecord's program, or a .pte's instruction graph (its decoded
// delegates as payload groups, collapsed unless --expand names them).
Result<graph::ProgramGraph> graphToDraw(const GraphArgs &a, const CLI::Option *methodOpt)
{
    auto rec = readETRecord(a.etrecord);
    if (!rec) {
        auto program = Program::open(a.etrecord);
        if (!program)
            return rec.error();
        return graph::ProgramGraph::fromProgram(*program, methodOpt->count() > 0 ? a.method : std::string());
    }
    graph::BuildOptions bo;
    bo.method = a.method;
    bo.entry = a.entry;
    bo.showPlaceholders = a.placeholders;
    return graph::ProgramGraph::build(*rec, bo);
}

int writeSvg(GraphArgs &a, const CLI::Option *thresholdOpt, const CLI::Option *methodOpt)
{
    auto g = graphToDraw(a, methodOpt);
    if (!g)
        return reportError(g.error());
    graph::Overlay overlay = graph::Overlay::None;
    if (!a.overlay.empty()) {
        auto o = graph::parseOverlay(a.overlay);
        if (!o)
            return reportError(makeError(ErrorCode::InvalidArgument, "",
                fmt::format("unknown overlay '{}' (latency, gap, optype, backend, none)", a.overlay)));
        overlay = *o;
    } else {
        overlay = !a.etdump.empty() ? graph::Overlay::Latency : graph::Overlay::Backend;
    }
    graph::OverlayData data = graph::overlayFromEvents(*g, {});
    std::shared_ptr<const Session> session;
    if (!a.etdump.empty()) {
        InputOptions in;
        in.etdump = a.etdump;
        in.debugBuffer = a.debugBuffer;
        (g->drawnFromProgram() ? in.program : in.etrecord) = a.etrecord;
        in.link.method = a.method; // the events link to the method drawn
        session = loadOrReport(in);
        if (!session)
            return 1;
        std::optional<BackendGraphLinks> backend;
        if (g->drawnFromProgram())
            backend = graph::payloadGraphLinks(*g, session->blocks, decodeBackendEvents(session->blocks));
        else if (session->etrecord)
            backend = backendGraphLinks(
                session->blocks, decodeBackendEvents(session->blocks), *session->etrecord, a.method);
        data = graph::overlayFromEvents(*g, session->blocks, backend ? &*backend : nullptr);
    }
    if (overlay == graph::Overlay::Latency && !session)
        return reportError(makeError(ErrorCode::InvalidArgument, a.etrecord, "--overlay latency needs --etdump"));
    if (overlay == graph::Overlay::Gap) {
        if (!session || !session->debugBuffer)
            return reportError(
                makeError(ErrorCode::InvalidArgument, a.etrecord, "--overlay gap needs --etdump and --debug-buffer"));
        if (a.ref.etdump.empty() && a.ref.aotOutputs.empty())
            return reportError(makeError(ErrorCode::InvalidArgument, "",
                "--overlay gap needs --reference-etdump (+ --reference-debug-buffer) or --aot-outputs"));
        if (!a.ref.etdump.empty() && a.ref.etrecord.empty())
            a.ref.etrecord = a.etrecord;
        auto metric = analysis::parseMetric(a.metric);
        if (!metric)
            return reportError(makeError(ErrorCode::InvalidArgument, "", fmt::format("unknown metric '{}'", a.metric)));
        auto ref = analysis::loadReference(a.ref);
        if (!ref)
            return reportError(ref.error());
        analysis::GapOptions opts;
        opts.metric = *metric;
        auto table = analysis::computeNumericGap(*session, *ref, opts);
        if (!table)
            return reportError(table.error());
        graph::addGap(data, *g, session->blocks, *table,
            thresholdOpt->count() > 0 ? std::optional<double>(a.threshold) : std::nullopt);
    }
    graph::ExpansionState state(*g);
    for (const std::string &e : a.expand) {
        if (e == "all") {
            state.expandAll();
            continue;
        }
        const int grp = g->findGroup(e);
        if (grp < 0)
            return reportError(
                makeError(ErrorCode::InvalidArgument, a.etrecord, fmt::format("no module or partition '{}'", e)));
        state.reveal(*g, grp, true);
    }
    const graph::VisibleGraph v = graph::visibleGraph(*g, state);
    const graph::Coloring colors = graph::colorItems(*g, v, data, overlay);
    auto svg = graph::renderSvg(*g, v, colors);
    if (!svg)
        return reportError(svg.error());
    if (auto s = writeOutput(a.svg, *svg); !s)
        return reportError(s.error());
    return 0;
}

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
    "graph", "List the nodes of an ETRecord program (op, shape, debug handle, module, source)", [](CLI::App &sub) {
        auto a = std::make_shared<GraphArgs>();
        sub.add_option("etrecord", a->etrecord, "ETRecord file (with --svg also a .pte: its instruction graph)")
            ->required();
        auto *method = sub.add_option("--method,-m", a->method, "Method of the Edge program (default forward)");
        sub.add_option(
            "--entry", a->entry, "Program entry instead, e.g. exported_program or aten_dialect_output/forward");
        sub.add_flag("--entries", a->entries, "List the ETRecord's entries and their kinds instead");
        sub.add_option("--output,-o", a->output, "Write to this file instead of stdout");
        sub.add_option("--svg", a->svg, "Draw the graph (Graphviz SVG) to this file instead, as the GUI's graph view");
        sub.add_option("--overlay", a->overlay,
            "With --svg: latency, gap, optype, backend or none "
            "(default: latency with --etdump, else backend)");
        sub.add_option(
            "--expand", a->expand, "With --svg: expand these modules / partitions (dotted path or key), or 'all'");
        sub.add_flag("--placeholders", a->placeholders, "With --svg: draw graph inputs and weights as nodes");
        sub.add_option("--etdump,-e", a->etdump, "ETDump of a run (latency overlay)");
        sub.add_option("--debug-buffer,-b", a->debugBuffer, "Debug buffer of that run (gap overlay)");
        sub.add_option("--reference-etdump", a->ref.etdump, "Gap overlay: ETDump of the reference run");
        sub.add_option(
            "--reference-debug-buffer", a->ref.debugBuffer, "Gap overlay: debug buffer of the reference run");
        sub.add_option(
            "--reference-etrecord", a->ref.etrecord, "Gap overlay: ETRecord of the reference run (default: this one)");
        sub.add_option("--aot-outputs", a->ref.aotOutputs, "Gap overlay: torch.save'd AOT intermediate outputs");
        sub.add_option("--metric", a->metric, "Gap overlay metric: MSE, L1, SNR, COSINE, MAXABS or MAXREL")
            ->capture_default_str();
        auto *th = sub.add_option("--threshold", a->threshold, "Gap overlay: gaps worse than this get warm colours");
        return std::function<int()>([a, th, method] {
            if (!a->svg.empty())
                return writeSvg(*a, th, method);
            auto rec = readETRecord(a->etrecord);
            if (!rec)
                return reportError(rec.error());
            const ETRecord &r = **rec;
            std::string out;
            if (a->entries) {
                std::vector<std::vector<std::string>> rows { { "entry", "kind", "bytes" } };
                for (const ETRecordEntry &e : r.entries())
                    rows.push_back({ e.name, entryKindName(e.kind), std::to_string(e.size) });
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
                std::vector<std::vector<std::string>> rows { { "node", "op", "output", "handle", "module", "source" } };
                for (const GraphNode &n : ep.nodes) {
                    std::string module;
                    if (n.moduleStack && !n.moduleStack->empty())
                        module = normalizeModulePath(n.moduleStack->back().path);
                    rows.push_back(
                        { n.name, n.opName, outputShapes(ep, n), n.debugHandle ? std::to_string(*n.debugHandle) : "-",
                            module.empty() ? "-" : module, n.sourceLocation().empty() ? "-" : n.sourceLocation() });
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
