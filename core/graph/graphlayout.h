#pragma once

// Graphviz (`dot`, through libgvc/libcgraph) for what a VisibleGraph draws: positions of items,
// cluster boxes and edge splines for the GUI, and Graphviz's own SVG for the CLI. Graphviz is
// not thread-safe, so every call here is serialized through one process-wide mutex; callers may
// run layouts on worker threads.

#include "common/error.h"
#include "graph/programgraph.h"

#include <atomic>
#include <string>
#include <vector>

namespace etscope::graph {

struct PointF {
    double x = 0, y = 0;
};

// Points (1/72 in), y grows downwards, origin at the top-left of the drawing.
struct ItemGeometry {
    double x = 0, y = 0, w = 0, h = 0; // centre and size
};
struct ClusterGeometry {
    int group = -1;
    double x = 0, y = 0, w = 0, h = 0; // top-left and size
};
struct EdgeGeometry {
    int from = -1, to = -1; // visible item indices
    std::vector<PointF> bezier; // cubic Bezier control points: p0, (c1, c2, p)...
    bool arrow = false;
    PointF arrowTip;
};
struct GraphLayout {
    double width = 0, height = 0;
    std::vector<ItemGeometry> items;
    std::vector<ClusterGeometry> clusters;
    std::vector<EdgeGeometry> edges;
};

// Text lines of an item's box: op / module name, shape / type and size; the overlay value is
// drawn in a third line (space is reserved so switching overlays needs no new layout).
std::vector<std::string> itemLabel(const ProgramGraph &g, const VisibleGraph &v, int item);
// Size (points) reserved for an item's box.
void itemSize(const ProgramGraph &g, const VisibleGraph &v, int item, double &w, double &h);
// Label of an expanded group's cluster box.
std::string clusterLabel(const ProgramGraph &g, int group);

// Runs `dot`. `cancel` is checked before and after the (uninterruptible) Graphviz call; a
// cancelled layout returns ErrorCode::Cancelled.
Result<GraphLayout> layoutGraph(
    const ProgramGraph &g, const VisibleGraph &v, const std::atomic<bool> *cancel = nullptr);

// Graphviz's SVG of the same drawing, filled with the overlay's colours, with a legend table.
// Every operator node's <title> is its node name.
Result<std::string> renderSvg(const ProgramGraph &g, const VisibleGraph &v, const Coloring &colors);

} // namespace etscope::graph
