#include "graph/graphlayout.h"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <mutex>
#include <unordered_set>

namespace etscope::graph {

namespace {

std::mutex &graphvizMutex()
{
    static std::mutex m;
    return m;
}

// One context for the process (plugin loading is not free); only used under the mutex.
GVC_t *context()
{
    static GVC_t *gvc = [] {
        // Layout warnings ("size too small for label": a node keeps its box when its value text
        // is longer, which the views elide) are not the user's business; errors still print.
        agseterr(AGERR);
        return gvContext();
    }();
    return gvc;
}

constexpr double kCharWidth = 7.0; // points per character of the bold 11 px label font (Qt and SVG)
constexpr double kLineHeight = 13.0;

std::string lastComponent(const std::string &type)
{
    const auto dot = type.rfind('.');
    return dot == std::string::npos ? type : type.substr(dot + 1);
}

void set(void *obj, const char *name, const std::string &value)
{
    agsafeset(obj, const_cast<char *>(name), const_cast<char *>(value.c_str()), const_cast<char *>(""));
}

// Graphviz label escapes: backslash and the record/HTML specials we never want interpreted.
std::string escapeLabel(const std::string &s)
{
    std::string out;
    for (char c : s) {
        if (c == '\\' || c == '"')
            out += '\\';
        out += c;
    }
    return out;
}

struct BuiltGraph {
    Agraph_t *graph = nullptr;
    std::vector<Agnode_t *> nodes;
    std::vector<Agedge_t *> edges;
    std::vector<Agraph_t *> clusters; // parallel to VisibleGraph::clusters
    ~BuiltGraph()
    {
        if (graph)
            agclose(graph);
    }
};

// Builds the cgraph (caller holds the mutex). `colors` adds fills and labels for SVG output.
void build(BuiltGraph &b, const ProgramGraph &g, const VisibleGraph &v, const Coloring *colors)
{
    b.graph = agopen(const_cast<char *>("program"), Agdirected, nullptr);
    Agraph_t *G = b.graph;
    const bool large = v.items.size() > 1500;
    set(G, "rankdir", "TB");
    set(G, "nodesep", "0.25");
    set(G, "ranksep", "0.4");
    set(G, "fontname", "Helvetica");
    set(G, "fontsize", "10");
    set(G, "splines", large ? "polyline" : "spline");
    if (large) { // keep very large graphs within seconds: fewer network-simplex / mincross passes
        set(G, "nslimit", "2");
        set(G, "nslimit1", "2");
        set(G, "mclimit", "0.3");
        set(G, "remincross", "false");
    }
    set(G, "outputorder", "edgesfirst");

    std::vector<Agraph_t *> sub(g.groups().size(), nullptr);
    sub[0] = G;
    b.clusters.reserve(v.clusters.size());
    for (int c : v.clusters) {
        const Group &grp = g.groups()[std::size_t(c)];
        Agraph_t *parent = sub[std::size_t(grp.parent)] ? sub[std::size_t(grp.parent)] : G;
        Agraph_t *s = agsubg(parent, const_cast<char *>(fmt::format("cluster_{}", c).c_str()), 1);
        set(s, "label", escapeLabel(clusterLabel(g, c)));
        set(s, "labeljust", "l");
        set(s, "fontname", "Helvetica");
        set(s, "fontsize", "13"); // reserves room for the GUI's label font too
        const bool partition = grp.kind == Group::Kind::Partition;
        set(s, "style", partition ? "rounded,filled,bold" : "rounded,filled");
        set(s, "fillcolor", partition ? "#eef3fb" : (grp.depth % 2 ? "#f7f7f7" : "#fcfcfc"));
        set(s, "color", partition ? "#3b6fb6" : "#b0b0b0");
        sub[std::size_t(c)] = s;
        b.clusters.push_back(s);
    }
    std::unordered_set<std::string> used;
    b.nodes.resize(v.items.size());
    for (std::size_t i = 0; i < v.items.size(); ++i) {
        std::string name = v.itemName(g, int(i));
        if (!used.insert(name).second) {
            name += fmt::format("~{}", i);
            used.insert(name);
        }
        Agnode_t *n = agnode(G, const_cast<char *>(name.c_str()), 1);
        double w = 0, h = 0;
        itemSize(g, v, int(i), w, h);
        set(n, "shape", "box");
        set(n, "fixedsize", "true");
        set(n, "width", fmt::format("{:.3f}", w / 72.0));
        set(n, "height", fmt::format("{:.3f}", h / 72.0));
        if (colors) {
            std::vector<std::string> lines = itemLabel(g, v, int(i));
            if (i < colors->value.size() && !colors->value[i].empty())
                lines.back() = colors->value[i];
            std::string label;
            for (const std::string &l : lines)
                if (!l.empty())
                    label += escapeLabel(l) + "\\n";
            set(n, "label", label);
            set(n, "fontname", "Helvetica");
            set(n, "fontsize", "10");
            const bool isGroup = v.items[i].kind == VisibleItem::Kind::Group;
            set(n, "style", isGroup ? "filled,bold" : "rounded,filled");
            const Rgb fill = i < colors->fill.size() ? colors->fill[i] : Rgb {};
            set(n, "fillcolor", fill.hex());
            // Light text on dark fills (the hottest latency / worst gap colours).
            if (0.299 * fill.r + 0.587 * fill.g + 0.114 * fill.b < 128)
                set(n, "fontcolor", "#ffffff");
            set(n, "color", isGroup ? "#555555" : "#808080");
            if (v.items[i].kind == VisibleItem::Kind::Op) {
                const OpNode &op = g.nodes()[std::size_t(v.items[i].index)];
                set(n, "tooltip",
                    escapeLabel(
                        op.opName + (op.debugHandle ? fmt::format(" (debug handle {})", *op.debugHandle) : "")));
            }
        } else {
            set(n, "label", "");
        }
        const int cluster = v.items[i].cluster;
        if (cluster > 0 && sub[std::size_t(cluster)])
            agsubnode(sub[std::size_t(cluster)], n, 1);
        b.nodes[i] = n;
    }
    b.edges.reserve(v.edges.size());
    for (const auto &[from, to] : v.edges) {
        Agedge_t *e = agedge(G, b.nodes[std::size_t(from)], b.nodes[std::size_t(to)], nullptr, 1);
        if (colors)
            set(e, "color", "#707070");
        b.edges.push_back(e);
    }
}

} // namespace

std::vector<std::string> itemLabel(const ProgramGraph &g, const VisibleGraph &v, int item)
{
    const VisibleItem &it = v.items[std::size_t(item)];
    if (it.kind == VisibleItem::Kind::Op) {
        const OpNode &op = g.nodes()[std::size_t(it.index)];
        return { op.placeholder ? op.name : op.shortOp, op.placeholder ? op.opName + " " + op.shape : op.shape, "" };
    }
    const Group &grp = g.groups()[std::size_t(it.index)];
    std::string what = grp.kind == Group::Kind::Partition ? "delegate" : lastComponent(grp.type);
    return { grp.label, fmt::format("{} · {} op{}", what, grp.totalOps, grp.totalOps == 1 ? "" : "s"), "" };
}

void itemSize(const ProgramGraph &g, const VisibleGraph &v, int item, double &w, double &h)
{
    std::size_t chars = 12;
    for (const std::string &l : itemLabel(g, v, item))
        chars = std::max(chars, l.size());
    w = std::min(360.0, double(chars) * kCharWidth + 18.0);
    h = 3 * kLineHeight + 8.0;
    if (v.items[std::size_t(item)].kind == VisibleItem::Kind::Group)
        h += 6.0;
}

std::string clusterLabel(const ProgramGraph &g, int group)
{
    const Group &grp = g.groups()[std::size_t(group)];
    if (grp.kind == Group::Kind::Partition)
        return fmt::format("{} · delegated · {} ops", grp.label, grp.totalOps);
    return fmt::format("{} : {}", grp.label, lastComponent(grp.type));
}

Result<GraphLayout> layoutGraph(const ProgramGraph &g, const VisibleGraph &v, const std::atomic<bool> *cancel)
{
    auto cancelled = [cancel] { return cancel && cancel->load(); };
    std::lock_guard lock(graphvizMutex());
    if (cancelled())
        return makeError(ErrorCode::Cancelled, "", "cancelled");
    BuiltGraph b;
    build(b, g, v, nullptr);
    GVC_t *gvc = context();
    if (!gvc || gvLayout(gvc, b.graph, "dot") != 0)
        return makeError(ErrorCode::InvalidArgument, g.entryName(), "Graphviz dot layout failed");
    GraphLayout out;
    const boxf bb = GD_bb(b.graph);
    const double top = bb.UR.y;
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    auto pt = [&](pointf p) { return PointF { p.x - bb.LL.x, top - p.y }; };
    out.items.resize(v.items.size());
    for (std::size_t i = 0; i < v.items.size(); ++i) {
        Agnode_t *n = b.nodes[i];
        const PointF c = pt(ND_coord(n));
        out.items[i] = { c.x, c.y, ND_width(n) * 72.0, ND_height(n) * 72.0 };
    }
    for (std::size_t k = 0; k < b.clusters.size(); ++k) {
        const boxf cb = GD_bb(b.clusters[k]);
        out.clusters.push_back(
            { v.clusters[k], cb.LL.x - bb.LL.x, top - cb.UR.y, cb.UR.x - cb.LL.x, cb.UR.y - cb.LL.y });
    }
    out.edges.reserve(b.edges.size());
    for (std::size_t k = 0; k < b.edges.size(); ++k) {
        EdgeGeometry eg;
        eg.from = v.edges[k].first;
        eg.to = v.edges[k].second;
        if (const splines *spl = ED_spl(b.edges[k]); spl && spl->size > 0) {
            const bezier &bz = spl->list[0];
            for (int p = 0; p < bz.size; ++p)
                eg.bezier.push_back(pt(bz.list[p]));
            if (bz.eflag) {
                eg.arrow = true;
                eg.arrowTip = pt(bz.ep);
            }
        }
        out.edges.push_back(std::move(eg));
    }
    gvFreeLayout(gvc, b.graph);
    if (cancelled())
        return makeError(ErrorCode::Cancelled, "", "cancelled");
    return out;
}

Result<std::string> renderSvg(const ProgramGraph &g, const VisibleGraph &v, const Coloring &colors)
{
    std::lock_guard lock(graphvizMutex());
    BuiltGraph b;
    build(b, g, v, &colors);
    if (!colors.title.empty()) {
        // Legend: an HTML-like table label of the whole graph.
        std::string html = "<<table border=\"0\" cellspacing=\"2\"><tr><td colspan=\"2\" align=\"left\"><b>"
            + colors.title + "</b></td></tr>";
        auto esc = [](const std::string &s) {
            std::string o;
            for (char c : s)
                o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
            return o;
        };
        html = "<<table border=\"0\" cellspacing=\"2\"><tr><td colspan=\"2\" align=\"left\"><b>" + esc(colors.title)
            + "</b></td></tr>";
        for (const LegendEntry &e : colors.legend)
            html
                += fmt::format("<tr><td bgcolor=\"{}\" width=\"18\" border=\"1\"> </td><td align=\"left\">{}</td></tr>",
                    e.color.hex(), esc(e.label));
        html += "</table>>";
        Agsym_t *sym = agattr(b.graph, AGRAPH, const_cast<char *>("label"), const_cast<char *>(""));
        agxset(b.graph, sym, agstrdup_html(b.graph, const_cast<char *>(html.substr(1, html.size() - 2).c_str())));
        set(b.graph, "labelloc", "t");
        set(b.graph, "labeljust", "l");
    }
    GVC_t *gvc = context();
    if (!gvc || gvLayout(gvc, b.graph, "dot") != 0)
        return makeError(ErrorCode::InvalidArgument, g.entryName(), "Graphviz dot layout failed");
    char *data = nullptr;
    unsigned int len = 0;
    const int rc = gvRenderData(gvc, b.graph, "svg", &data, &len);
    std::string svg = rc == 0 && data ? std::string(data, len) : std::string();
    if (data)
        gvFreeRenderData(data);
    gvFreeLayout(gvc, b.graph);
    if (rc != 0 || svg.empty())
        return makeError(ErrorCode::InvalidArgument, g.entryName(), "Graphviz SVG rendering failed");
    return svg;
}

} // namespace etscope::graph
