#include "graph/graphlayout.h"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cmath>
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

constexpr double kCharWidth = 7.6; // points per character of the bold 12 px op name (Qt and SVG)
constexpr double kSmallCharWidth = 6.2; // of the 10 px lines below it
constexpr double kLineHeight = 12.0; // the 10 px lines
constexpr double kNameLineHeight = 15.0; // the op name's line

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
void build(BuiltGraph &b, const ProgramGraph &g, const VisibleGraph &v, const Coloring *colors,
    FlowDirection direction = FlowDirection::TopToBottom)
{
    b.graph = agopen(const_cast<char *>("program"), Agdirected, nullptr);
    Agraph_t *G = b.graph;
    const bool large = v.items.size() > 1500;
    set(G, "rankdir", direction == FlowDirection::LeftToRight ? "LR" : "TB");
    set(G, "nodesep", "0.18");
    set(G, "ranksep", "0.25");
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
        set(s, "fontsize", "12"); // reserves room for the GUI's 11 px label font too
        set(s, "margin", "5");
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
    // The first line is bold 12 px (kCharWidth), the others 10 px (about 6 points a character).
    const std::vector<std::string> lines = itemLabel(g, v, item);
    double text = 11 * kCharWidth;
    for (std::size_t i = 0; i < lines.size(); ++i)
        text = std::max(text, double(lines[i].size()) * (i == 0 ? kCharWidth : kSmallCharWidth));
    // A delegated op's latency overlay reads "part of partition (44.0 %)" (26 characters, bold
    // 10 px): reserved so that it is never cut.
    if (const VisibleItem &it = v.items[std::size_t(item)];
        it.kind == VisibleItem::Kind::Op && g.nodes()[std::size_t(it.index)].partition >= 0)
        text = std::max(text, 26 * kSmallCharWidth);
    w = std::min(360.0, text + 12.0);
    h = kNameLineHeight + 2 * kLineHeight + 5.0;
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
    return layoutGraph(g, v, FlowDirection::TopToBottom, cancel);
}

Result<GraphLayout> layoutGraph(
    const ProgramGraph &g, const VisibleGraph &v, FlowDirection direction, const std::atomic<bool> *cancel)
{
    auto cancelled = [cancel] { return cancel && cancel->load(); };
    std::lock_guard lock(graphvizMutex());
    if (cancelled())
        return makeError(ErrorCode::Cancelled, "", "cancelled");
    BuiltGraph b;
    build(b, g, v, nullptr, direction);
    GVC_t *gvc = context();
    if (!gvc || gvLayout(gvc, b.graph, "dot") != 0)
        return makeError(ErrorCode::InvalidArgument, g.entryName(), "Graphviz dot layout failed");
    GraphLayout out;
    out.direction = direction;
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
        if (!colors.note.empty())
            html += "<tr><td colspan=\"2\" align=\"left\">" + esc(colors.note) + "</td></tr>";
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

namespace {

// Along = the direction of flow (y for TopToBottom, x for LeftToRight); across = the other.
struct Axes {
    bool lr = false;
    double along(double x, double y) const { return lr ? x : y; }
    double across(double x, double y) const { return lr ? y : x; }
    PointF point(double alongPos, double acrossPos) const
    {
        return lr ? PointF { alongPos, acrossPos } : PointF { acrossPos, alongPos };
    }
};

constexpr double kFoldGap = 12; // between pieces, before the lanes of the edges that cross
constexpr double kLaneStep = 4; // between two crossing edges running side by side
constexpr double kContinuedLabel = 18; // room for a continued cluster's label (TopToBottom)

// Straight lines as the cubic Bezier chain EdgeGeometry holds.
std::vector<PointF> polylineBezier(const std::vector<PointF> &pts)
{
    std::vector<PointF> out { pts.front() };
    for (std::size_t i = 1; i < pts.size(); ++i) {
        const PointF a = pts[i - 1], b = pts[i];
        out.push_back({ a.x + (b.x - a.x) / 3, a.y + (b.y - a.y) / 3 });
        out.push_back({ a.x + 2 * (b.x - a.x) / 3, a.y + 2 * (b.y - a.y) / 3 });
        out.push_back(b);
    }
    return out;
}

// Places between ranks where a layout may be cut: the middle of each gap between boxes along
// the flow, moved off cluster borders that lie in the gap so that no piece of a cluster holds
// only its label.
std::vector<double> cutCandidates(const GraphLayout &base, const Axes &ax)
{
    std::vector<std::pair<double, double>> spans;
    spans.reserve(base.items.size());
    for (const ItemGeometry &it : base.items) {
        const double c = ax.along(it.x, it.y), half = ax.along(it.w, it.h) / 2;
        spans.emplace_back(c - half, c + half);
    }
    std::sort(spans.begin(), spans.end());
    std::vector<double> cuts;
    double reach = spans.empty() ? 0 : spans.front().second;
    for (std::size_t i = 1; i < spans.size(); ++i) {
        if (spans[i].first > reach + 1) {
            const double g0 = reach, g1 = spans[i].first;
            double lo = g0, hi = g1;
            for (const ClusterGeometry &c : base.clusters) {
                const double c0 = ax.along(c.x, c.y), c1 = c0 + ax.along(c.w, c.h);
                if (c1 > g0 && c1 < g1)
                    lo = std::max(lo, c1); // ends in the gap: cut after it
                if (c0 > g0 && c0 < g1)
                    hi = std::min(hi, c0); // begins in the gap: cut before it
            }
            cuts.push_back(lo < hi ? (lo + hi) / 2 : (g0 + g1) / 2);
        }
        reach = std::max(reach, spans[i].second);
    }
    return cuts;
}

} // namespace

GraphLayout foldLayout(const GraphLayout &base, int segments)
{
    if (segments <= 1 || base.items.empty())
        return base;
    const Axes ax { base.direction == FlowDirection::LeftToRight };
    const double length = ax.along(base.width, base.height);

    // The cuts that make the longest piece shortest: the least length T for which cutting
    // greedily (each piece as long as T allows) needs no more than `segments` pieces.
    const std::vector<double> candidates = cutCandidates(base, ax);
    auto greedy = [&](double limit) {
        std::vector<double> out;
        double start = 0;
        std::size_t i = 0;
        while (i < candidates.size()) {
            if (length - start <= limit)
                break;
            // The farthest cut within reach, else the first one (a piece longer than the limit).
            std::size_t pick = i;
            while (pick + 1 < candidates.size() && candidates[pick + 1] - start <= limit)
                ++pick;
            out.push_back(candidates[pick]);
            start = candidates[pick];
            i = pick + 1;
        }
        return out;
    };
    double loT = 0, hiT = length;
    for (int iter = 0; iter < 40; ++iter) {
        const double mid = (loT + hiT) / 2;
        if (int(greedy(mid).size()) + 1 <= segments)
            hiT = mid;
        else
            loT = mid;
    }
    const std::vector<double> cuts = greedy(hiT);
    if (cuts.empty())
        return base;
    const int n = int(cuts.size()) + 1;
    auto segmentOf
        = [&](double along) { return int(std::upper_bound(cuts.begin(), cuts.end(), along) - cuts.begin()); };
    auto startOf = [&](int s) { return s == 0 ? 0.0 : cuts[std::size_t(s - 1)]; };
    auto endOf = [&](int s) { return s == n - 1 ? length : cuts[std::size_t(s)]; };

    // Clusters cut at the start of each piece, outermost (widest across) first: TopToBottom
    // pieces begin with room for their continued labels, stacked.
    std::vector<std::vector<std::size_t>> straddling(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < base.clusters.size(); ++k) {
        const ClusterGeometry &c = base.clusters[k];
        const double c0 = ax.along(c.x, c.y), c1 = c0 + ax.along(c.w, c.h);
        for (int s = 1; s < n; ++s)
            if (c0 < startOf(s) && c1 > startOf(s))
                straddling[std::size_t(s)].push_back(k);
    }
    std::vector<double> lead(static_cast<std::size_t>(n), 0.0);
    for (int s = 1; s < n; ++s) {
        auto &st = straddling[std::size_t(s)];
        std::stable_sort(st.begin(), st.end(), [&](std::size_t a, std::size_t b) {
            const ClusterGeometry &ca = base.clusters[a], &cb = base.clusters[b];
            return ax.across(ca.w, ca.h) > ax.across(cb.w, cb.h);
        });
        if (!ax.lr && !st.empty())
            lead[std::size_t(s)] = kContinuedLabel; // the innermost continued label; the others in tooltips
    }

    // An edge that crosses a cut leaves its piece through the gutter after it and enters the
    // target's piece through the gutter before that one (the same gutter for the next piece):
    // a lane of its own in each.
    std::vector<int> itemSegment(base.items.size());
    for (std::size_t i = 0; i < base.items.size(); ++i)
        itemSegment[i] = segmentOf(ax.along(base.items[i].x, base.items[i].y));
    std::vector<int> lanes(static_cast<std::size_t>(n), 0); // edges running in the gutter before piece s
    for (const EdgeGeometry &e : base.edges) {
        const int sa = e.from >= 0 ? itemSegment[std::size_t(e.from)] : 0;
        const int sb = e.to >= 0 ? itemSegment[std::size_t(e.to)] : 0;
        if (sb > sa) {
            ++lanes[std::size_t(sa + 1)];
            if (sb > sa + 1)
                ++lanes[std::size_t(sb)];
        }
    }
    auto gapBefore = [&](int s) { return kFoldGap + lanes[std::size_t(s)] * kLaneStep; };
    double maxLength = 0;
    for (int s = 0; s < n; ++s)
        maxLength = std::max(maxLength, endOf(s) - startOf(s) + lead[std::size_t(s)]);
    // Each piece as broad as what it holds (its boxes, its parts of clusters, its own edges),
    // stacked one after the other across the flow.
    std::vector<double> lo(static_cast<std::size_t>(n), 1e300), hi(static_cast<std::size_t>(n), -1e300);
    auto cover = [&](int s, double a, double b) {
        lo[std::size_t(s)] = std::min(lo[std::size_t(s)], a);
        hi[std::size_t(s)] = std::max(hi[std::size_t(s)], b);
    };
    for (std::size_t i = 0; i < base.items.size(); ++i) {
        const ItemGeometry &it = base.items[i];
        const double c = ax.across(it.x, it.y), half = ax.across(it.w, it.h) / 2;
        cover(itemSegment[i], c - half, c + half);
    }
    for (const ClusterGeometry &c : base.clusters) {
        const double c0 = ax.along(c.x, c.y), c1 = c0 + ax.along(c.w, c.h);
        const double a0 = ax.across(c.x, c.y), a1 = a0 + ax.across(c.w, c.h);
        for (int s = segmentOf(c0), last = std::min(n - 1, segmentOf(c1 - 1e-9)); s <= last; ++s)
            cover(s, a0, a1);
    }
    for (const EdgeGeometry &e : base.edges) {
        const int sa = e.from >= 0 ? itemSegment[std::size_t(e.from)] : 0;
        if (e.to >= 0 && itemSegment[std::size_t(e.to)] == sa)
            for (const PointF &p : e.bezier)
                cover(sa, ax.across(p.x, p.y), ax.across(p.x, p.y));
    }
    std::vector<double> shift(static_cast<std::size_t>(n), 0.0); // across, per piece
    double next = 0;
    for (int s = 0; s < n; ++s) {
        if (s > 0)
            next += gapBefore(s);
        shift[std::size_t(s)] = next - lo[std::size_t(s)];
        next += hi[std::size_t(s)] - lo[std::size_t(s)];
    }
    auto acrossStart = [&](int s) { return lo[std::size_t(s)] + shift[std::size_t(s)]; };
    auto move = [&](PointF p, int s) {
        return ax.point(
            ax.along(p.x, p.y) - startOf(s) + lead[std::size_t(s)], ax.across(p.x, p.y) + shift[std::size_t(s)]);
    };

    GraphLayout out;
    out.direction = base.direction;
    out.segments = n;
    out.items.reserve(base.items.size());
    for (std::size_t i = 0; i < base.items.size(); ++i) {
        const ItemGeometry &it = base.items[i];
        const PointF c = move({ it.x, it.y }, itemSegment[i]);
        out.items.push_back({ c.x, c.y, it.w, it.h });
    }
    for (std::size_t k = 0; k < base.clusters.size(); ++k) {
        const ClusterGeometry &c = base.clusters[k];
        const double c0 = ax.along(c.x, c.y), c1 = c0 + ax.along(c.w, c.h);
        const double a0 = ax.across(c.x, c.y), aw = ax.across(c.w, c.h);
        const int first = segmentOf(c0), last = std::min(n - 1, segmentOf(c1 - 1e-9));
        for (int s = first; s <= last; ++s) {
            double p0 = std::max(c0, startOf(s)) - startOf(s) + lead[std::size_t(s)];
            const double p1 = std::min(c1, endOf(s)) - startOf(s) + lead[std::size_t(s)];
            if (s > first) { // a continued part: its label above the piece's first rank
                const auto &st = straddling[std::size_t(s)];
                const auto at = std::find(st.begin(), st.end(), k);
                const double rank = at == st.end() ? 0 : double(at - st.begin());
                p0 = ax.lr ? rank * 3 : std::min(rank * 4, kContinuedLabel - 4);
            }
            const PointF tl = ax.point(p0, a0 + shift[std::size_t(s)]);
            const PointF size = ax.point(p1 - p0, aw);
            (s > first ? out.continuedClusters : out.clusters).push_back({ c.group, tl.x, tl.y, size.x, size.y });
        }
    }
    int busLane = 0; // past the end of the pieces: edges that skip a piece
    std::vector<int> gutterLane(static_cast<std::size_t>(n), 0);
    auto gutter = [&](int s) {
        return acrossStart(s) - gapBefore(s) + kFoldGap / 2 + gutterLane[std::size_t(s)]++ * kLaneStep;
    };
    out.edges.reserve(base.edges.size());
    for (const EdgeGeometry &e : base.edges) {
        EdgeGeometry g;
        g.from = e.from;
        g.to = e.to;
        const int sa = e.from >= 0 ? itemSegment[std::size_t(e.from)] : 0;
        const int sb = e.to >= 0 ? itemSegment[std::size_t(e.to)] : 0;
        if (sa == sb) {
            for (const PointF &p : e.bezier)
                g.bezier.push_back(move(p, sa));
            g.arrow = e.arrow;
            g.arrowTip = move(e.arrowTip, sa);
        } else {
            // Out of the source into the rank gap after it, across to the gutter, along it to
            // the rank gap before the target, across into the target. An edge that skips
            // pieces goes round their ends between its two gutters.
            const ItemGeometry &src = out.items[std::size_t(e.from)], &dst = out.items[std::size_t(e.to)];
            const double srcEnd = ax.along(src.x, src.y) + ax.along(src.w, src.h) / 2;
            const double srcC = ax.across(src.x, src.y);
            const double dstStart = ax.along(dst.x, dst.y) - ax.along(dst.w, dst.h) / 2;
            const double dstC = ax.across(dst.x, dst.y);
            std::vector<PointF> pts { ax.point(srcEnd, srcC) };
            if (sb > sa) {
                const double out1 = gutter(sa + 1);
                pts.push_back(ax.point(srcEnd + 8, srcC));
                pts.push_back(ax.point(srcEnd + 8, out1));
                double in = out1;
                if (sb > sa + 1) {
                    const double bus = maxLength + 6 + busLane++ * kLaneStep;
                    in = gutter(sb);
                    pts.push_back(ax.point(bus, out1));
                    pts.push_back(ax.point(bus, in));
                }
                pts.push_back(ax.point(dstStart - 8, in));
            }
            pts.push_back(ax.point(dstStart - 8, dstC));
            g.bezier = polylineBezier(pts);
            g.arrow = true;
            g.arrowTip = ax.point(dstStart, dstC);
        }
        out.edges.push_back(std::move(g));
    }

    // Origin at the top-left of everything drawn.
    double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
    auto extend = [&](double xa, double ya, double xb, double yb) {
        x0 = std::min(x0, xa);
        y0 = std::min(y0, ya);
        x1 = std::max(x1, xb);
        y1 = std::max(y1, yb);
    };
    for (const ItemGeometry &it : out.items)
        extend(it.x - it.w / 2, it.y - it.h / 2, it.x + it.w / 2, it.y + it.h / 2);
    for (const auto *list : { &out.clusters, &out.continuedClusters })
        for (const ClusterGeometry &c : *list)
            extend(c.x, c.y, c.x + c.w, c.y + c.h);
    for (const EdgeGeometry &e : out.edges) {
        for (const PointF &p : e.bezier)
            extend(p.x, p.y, p.x, p.y);
        if (e.arrow)
            extend(e.arrowTip.x, e.arrowTip.y, e.arrowTip.x, e.arrowTip.y);
    }
    for (ItemGeometry &it : out.items) {
        it.x -= x0;
        it.y -= y0;
    }
    for (auto *list : { &out.clusters, &out.continuedClusters })
        for (ClusterGeometry &c : *list) {
            c.x -= x0;
            c.y -= y0;
        }
    for (EdgeGeometry &e : out.edges) {
        for (PointF &p : e.bezier) {
            p.x -= x0;
            p.y -= y0;
        }
        e.arrowTip.x -= x0;
        e.arrowTip.y -= y0;
    }
    out.width = x1 - x0;
    out.height = y1 - y0;
    return out;
}

double fitScale(const GraphLayout &layout, double viewWidth, double viewHeight, double margin)
{
    const double w = layout.width + 2 * margin, h = layout.height + 2 * margin;
    if (!(w > 0) || !(h > 0) || !(viewWidth > 0) || !(viewHeight > 0))
        return 0;
    return std::min(viewWidth / w, viewHeight / h);
}

Arrangement bestArrangement(const GraphLayout &topToBottom, const GraphLayout *leftToRight, double viewWidth,
    double viewHeight, double margin, int maxSegments)
{
    std::vector<Arrangement> all;
    for (const GraphLayout *base : { &topToBottom, leftToRight }) {
        if (!base || base->items.empty())
            continue;
        int previous = 0;
        for (int k = 1; k <= std::max(1, maxSegments); ++k) {
            const GraphLayout folded = foldLayout(*base, k);
            if (folded.segments == previous)
                break; // no more places to cut
            previous = folded.segments;
            all.push_back(
                { base->direction, folded.segments, std::min(1.0, fitScale(folded, viewWidth, viewHeight, margin)) });
        }
    }
    if (all.empty())
        return {};
    double best = 0;
    for (const Arrangement &a : all)
        best = std::max(best, a.scale);
    // Within 1 % of the largest, the simplest picture: fewer pieces, then top to bottom.
    const Arrangement *pick = nullptr;
    for (const Arrangement &a : all)
        if (a.scale >= best * 0.99
            && (!pick || a.segments < pick->segments
                || (a.segments == pick->segments && a.direction == FlowDirection::TopToBottom
                    && pick->direction != FlowDirection::TopToBottom)))
            pick = &a;
    return *pick;
}

} // namespace etscope::graph
