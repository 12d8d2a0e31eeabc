#include "graphdock.h"

#include "etrecord/etrecord.h"
#include "eventfilterproxy.h"
#include "eventtreemodel.h"
#include "graph/programgraph.h"
#include "graphview.h"
#include "mainwindow.h"
#include "modelroles.h"

#ifdef ETSCOPE_HAVE_GAPUI
#include "analysis/numericgap.h"
#include "gapdocks.h"
#endif

#include <QDockWidget>
#include <QItemSelectionModel>
#include <QTreeView>

#include <set>

namespace etscope {

GraphDock::GraphDock(MainWindow *window, GapDocks *gap)
    : QObject(window)
    , m_window(window)
    , m_gap(gap)
{
    m_view = new GraphView;
    m_dock = window->addAnalysisDock(m_view, tr("Graph"), QStringLiteral("GraphDock"));
    // A tab beside the timeline rather than a sliver of the bottom area.
    if (auto *timeline = window->findChild<QDockWidget *>(QStringLiteral("TimelineDock"));
        timeline && window->dockWidgetArea(timeline) == window->dockWidgetArea(m_dock)) {
        window->tabifyDockWidget(timeline, m_dock);
        timeline->raise();
    }
    connect(window, &MainWindow::sessionChanged, this, &GraphDock::onSessionChanged);
    connect(m_view, &GraphView::nodeClicked, this, &GraphDock::onNodeClicked);
    connect(m_view, &GraphView::groupClicked, this, &GraphDock::onGroupClicked);
    connect(m_view, &GraphView::programRequested, this, &GraphDock::showProgram);
    connect(window->treeView()->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex &current) {
            if (m_selecting || !current.isValid())
                return;
            const int block = current.data(BlockIndexRole).toInt();
            const int event = current.data(EventIndexRole).toInt();
            if (event >= 0)
                m_view->centerOnEvent(block, event);
        });
#ifdef ETSCOPE_HAVE_GAPUI
    if (m_gap)
        connect(m_gap, &GapDocks::tablesChanged, this, &GraphDock::onGapChanged);
#endif
}

void GraphDock::onSessionChanged(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    m_graph.reset();
    if (!m_session || !m_session->etrecord) {
        m_view->clear(tr("Open an ETRecord with the ETDump to see the program graph."));
        return;
    }
    showProgram({}, false);
}

void GraphDock::showProgram(const QString &entry, bool placeholders)
{
    if (!m_session || !m_session->etrecord)
        return;
    graph::BuildOptions opts;
    opts.entry = entry.toStdString();
    opts.showPlaceholders = placeholders;
    auto g = graph::ProgramGraph::build(m_session->etrecord, opts);
    if (!g) {
        m_view->clear(QString::fromStdString(g.error().message()));
        return;
    }
    m_graph = std::make_shared<const graph::ProgramGraph>(std::move(g.value()));
    // Edge program first (the default), then every other program entry of the file.
    QStringList entries { QString::fromStdString(m_graph->entryName()) };
    for (const ETRecordProgram &p : m_session->etrecord->programs())
        if (!entries.contains(QString::fromStdString(p.entryName)))
            entries << QString::fromStdString(p.entryName);
    if (const ETRecordProgram *edge = m_session->etrecord->edgeProgram())
        if (const qsizetype i = entries.indexOf(QString::fromStdString(edge->entryName)); i > 0)
            entries.move(i, 0);
    m_view->setGraph(m_graph, graph::overlayFromEvents(*m_graph, m_session->blocks));
    m_view->setProgramChoices(entries, QString::fromStdString(m_graph->entryName()), placeholders);
    onGapChanged();
}

void GraphDock::onGapChanged()
{
#ifdef ETSCOPE_HAVE_GAPUI
    if (!m_graph || !m_session || !m_gap)
        return;
    graph::OverlayData data = graph::overlayFromEvents(*m_graph, m_session->blocks);
    if (const analysis::GapTable *t = m_gap->activeTable()) {
        graph::addGap(data, *m_graph, m_session->blocks, *t);
        m_view->setOverlayData(std::move(data));
        m_view->setOverlay(graph::Overlay::Gap);
        return;
    }
    m_view->setOverlayData(std::move(data));
#endif
}

void GraphDock::selectEvents(const std::vector<std::pair<int, int>> &events)
{
    if (events.empty())
        return;
    m_selecting = true;
    m_window->selectEvent(events.front().first, events.front().second);
    QItemSelectionModel *sel = m_window->treeView()->selectionModel();
    for (std::size_t i = 1; i < events.size(); ++i) {
        const QModelIndex src = m_window->treeModel()->indexForEvent(events[i].first, events[i].second);
        const QModelIndex idx = m_window->proxyModel()->mapFromSource(src);
        if (idx.isValid())
            sel->select(idx, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    m_selecting = false;
}

void GraphDock::onNodeClicked(int opNode)
{
    const auto &events = m_view->overlayData().nodeEvents;
    if (opNode < 0 || std::size_t(opNode) >= events.size())
        return;
    std::vector<std::pair<int, int>> refs;
    for (const graph::EventRef &r : events[std::size_t(opNode)])
        refs.emplace_back(r.block, r.event);
    selectEvents(refs);
}

void GraphDock::onGroupClicked(int group)
{
    if (!m_graph)
        return;
    const auto &events = m_view->overlayData().nodeEvents;
    std::set<std::pair<int, int>> seen;
    std::vector<std::pair<int, int>> refs;
    std::vector<int> stack { group };
    while (!stack.empty()) {
        const graph::Group &g = m_graph->groups()[std::size_t(stack.back())];
        stack.pop_back();
        for (int n : g.nodes)
            if (std::size_t(n) < events.size())
                for (const graph::EventRef &r : events[std::size_t(n)])
                    if (seen.emplace(r.block, r.event).second)
                        refs.emplace_back(r.block, r.event);
        stack.insert(stack.end(), g.children.begin(), g.children.end());
    }
    selectEvents(refs);
}

} // namespace etscope
