#pragma once

#include "evalgap/graphdiffoverlay.h"

#include <QSplitter>

#include <memory>

class QLabel;

namespace etscope {
class GraphView;
namespace graph {
class ProgramGraph;
}
namespace evalgap {
struct GraphDiff;
struct GraphDiffRow;
} // namespace evalgap

namespace gapui {

// Both graphs of a graph-against-graph comparison side by side, each titled and coloured by the
// per-layer gap (evalgap/graphdiffoverlay.h); the nodes no rule aligns stay uncoloured. Centring
// a layer on both sides never comes back as a click.
class GraphDiffGraphs : public QSplitter
{
    Q_OBJECT
public:
    explicit GraphDiffGraphs(QWidget *parent = nullptr);
    // Draws `g` on `side` with `diff`'s overlay; without a graph or a diff, shows `error` instead.
    // The pair is hidden while neither side has a graph.
    void showGraph(evalgap::DiffSide side, std::shared_ptr<const graph::ProgramGraph> g, const evalgap::GraphDiff *diff,
        const QString &error);
    // Centres both views on the nodes of aligned layer `row`.
    void centerOn(const evalgap::GraphDiffRow &row);
    GraphView *view(evalgap::DiffSide side) const { return side == evalgap::DiffSide::A ? m_viewA : m_viewB; }
    const std::shared_ptr<const graph::ProgramGraph> &graph(evalgap::DiffSide side) const
    {
        return side == evalgap::DiffSide::A ? m_graphA : m_graphB;
    }

Q_SIGNALS:
    // Operation node `opNode` of the graph shown on `side` was clicked.
    void nodeClicked(evalgap::DiffSide side, int opNode);
    // The user asked `side`'s graph again, with or without placeholder nodes.
    void graphRequested(evalgap::DiffSide side, bool placeholders);
    // A view's action (Export…) failed (GraphView::actionFailed).
    void actionFailed(const QString &message);

private:
    void onNodeClicked(evalgap::DiffSide side, int opNode);

    GraphView *m_viewA;
    GraphView *m_viewB;
    QLabel *m_titleA;
    QLabel *m_titleB;
    std::shared_ptr<const graph::ProgramGraph> m_graphA, m_graphB;
    bool m_syncing = false; // a selection being mirrored to the other side
};

} // namespace gapui
} // namespace etscope
