#include "graphdiffgraphs.h"

#include "analysis/comparator.h"
#include "evalgap/graphdiff.h"
#include "graph/programgraph.h"
#include "graphview.h"
#include "qtstrings.h"

#include <QLabel>
#include <QVBoxLayout>

namespace etscope::gapui {

GraphDiffGraphs::GraphDiffGraphs(QWidget *parent)
    : QSplitter(Qt::Horizontal, parent)
    , m_viewA(new GraphView)
    , m_viewB(new GraphView)
    , m_titleA(new QLabel)
    , m_titleB(new QLabel)
{
    for (auto [title, view] : { std::pair { m_titleA, m_viewA }, std::pair { m_titleB, m_viewB } }) {
        auto *box = new QWidget;
        auto *boxLayout = new QVBoxLayout(box);
        boxLayout->setContentsMargins(0, 0, 0, 0);
        boxLayout->setSpacing(2);
        title->setTextInteractionFlags(Qt::TextSelectableByMouse);
        boxLayout->addWidget(title);
        boxLayout->addWidget(view, 1);
        view->clear(tr("Compare to draw the graph"));
        addWidget(box);
    }
    for (auto side : { evalgap::DiffSide::A, evalgap::DiffSide::B }) {
        connect(view(side), &GraphView::nodeClicked, this, [this, side](int n) { onNodeClicked(side, n); });
        connect(view(side), &GraphView::programRequested, this,
            [this, side](const QString &, bool placeholders) { Q_EMIT graphRequested(side, placeholders); });
        connect(view(side), &GraphView::actionFailed, this, &GraphDiffGraphs::actionFailed);
    }
}

void GraphDiffGraphs::showGraph(evalgap::DiffSide side, std::shared_ptr<const graph::ProgramGraph> g,
    const evalgap::GraphDiff *diff, const QString &error)
{
    GraphView *v = view(side);
    QLabel *title = side == evalgap::DiffSide::A ? m_titleA : m_titleB;
    (side == evalgap::DiffSide::A ? m_graphA : m_graphB) = g;
    const QString letter = side == evalgap::DiffSide::A ? QStringLiteral("A") : QStringLiteral("B");
    if (!g || !diff) {
        v->clear(error);
        title->setText(letter);
        setVisible(m_graphA || m_graphB);
        return;
    }
    setVisible(true);
    const std::string &name = side == evalgap::DiffSide::A ? diff->aGraph : diff->bGraph;
    const std::size_t unaligned = side == evalgap::DiffSide::A ? diff->unalignedA.size() : diff->unalignedB.size();
    title->setText(tr("%1: %2 — colour: %3 per aligned layer; %4 nodes only here, uncoloured")
                       .arg(letter, toQString(name), QString::fromLatin1(analysis::metricName(diff->metric)))
                       .arg(unaligned));
    v->setGraph(g, evalgap::graphDiffOverlay(*diff, *g, side));
    v->setOverlay(graph::Overlay::Gap);
}

void GraphDiffGraphs::onNodeClicked(evalgap::DiffSide side, int opNode)
{
    const auto &g = graph(side);
    if (m_syncing || !g || opNode < 0 || std::size_t(opNode) >= g->nodes().size())
        return;
    Q_EMIT nodeClicked(side, opNode);
}

void GraphDiffGraphs::centerOn(const evalgap::GraphDiffRow &row)
{
    if (m_syncing)
        return;
    m_syncing = true;
    if (m_graphA)
        m_viewA->centerOnNode(m_graphA->findNode(row.aName));
    if (m_graphB)
        m_viewB->centerOnNode(m_graphB->findNode(row.bName));
    m_syncing = false;
}

} // namespace etscope::gapui
