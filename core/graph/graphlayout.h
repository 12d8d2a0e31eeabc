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
// Which way the data flows: Graphviz's rankdir TB (the default) or LR.
enum class FlowDirection { TopToBottom, LeftToRight };

struct GraphLayout {
    double width = 0, height = 0;
    std::vector<ItemGeometry> items;
    std::vector<ClusterGeometry> clusters; // one per expanded group (folded: its first piece)
    std::vector<ClusterGeometry> continuedClusters; // folded: the later pieces of split clusters
    std::vector<EdgeGeometry> edges;
    FlowDirection direction = FlowDirection::TopToBottom;
    int segments = 1; // > 1: folded by foldLayout() into that many rows (LR) or columns (TB)
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
Result<GraphLayout> layoutGraph(
    const ProgramGraph &g, const VisibleGraph &v, FlowDirection direction, const std::atomic<bool> *cancel = nullptr);

// A long chain fitted into a wide, short view (or a tall, narrow one) shrinks its text to
// nothing. foldLayout() cuts a layout between ranks into `segments` pieces of about equal
// length and stacks them across the flow: rows one under the other for LeftToRight, columns side
// by side for TopToBottom, like text wrapping. Nothing moves within a piece; a cluster that
// spans a cut is drawn as one box per piece (the later ones `continued`); an edge that crosses
// a cut runs around the pieces: past the end of its piece, along the gutter before the
// target's piece, back to the start and into the target. Fewer pieces when the layout has
// fewer places to cut (ranks that no box spans). `segments` <= 1 returns the layout unchanged.
GraphLayout foldLayout(const GraphLayout &base, int segments);

// Largest zoom at which `layout` fits a view of viewWidth × viewHeight pixels with `margin`
// points of room around the drawing (what QGraphicsView::fitInView gives with that scene rect).
double fitScale(const GraphLayout &layout, double viewWidth, double viewHeight, double margin);

// The arrangement that a view of this size shows largest: each base layout (TopToBottom and,
// when given, LeftToRight) folded into 1..maxSegments pieces, the one with the largest
// fitScale (capped at 1: beyond full size nothing reads better) wins; ties keep fewer pieces
// and then TopToBottom.
struct Arrangement {
    FlowDirection direction = FlowDirection::TopToBottom;
    int segments = 1;
    double scale = 0;
};
Arrangement bestArrangement(const GraphLayout &topToBottom, const GraphLayout *leftToRight, double viewWidth,
    double viewHeight, double margin, int maxSegments = 12);

// Graphviz's SVG of the same drawing, filled with the overlay's colours, with a legend table.
// Every operator node's <title> is its node name.
Result<std::string> renderSvg(const ProgramGraph &g, const VisibleGraph &v, const Coloring &colors);

} // namespace etscope::graph
