#include "graphdock.h"
#include "qtstrings.h"

#include "analysis/numericgap.h"
#include "etrecord/etrecord.h"
#include "graph/programgraph.h"
#include "graphview.h"
#include "program/program.h"
#include "sessioncontroller.h"

#include <QDockWidget>

#include <set>

namespace etscope {

GraphDock::GraphDock(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
{
    m_view = new GraphView;
    m_dock = makeDock(m_view, tr("Graph"), QStringLiteral("GraphDock"));
    connect(controller, &SessionController::sessionChanged, this, &GraphDock::onSessionChanged);
    connect(controller, &SessionController::scopeChanged, this, &GraphDock::onScopeChanged);
    connect(m_view, &GraphView::nodeClicked, this, &GraphDock::onNodeClicked);
    connect(m_view, &GraphView::groupClicked, this, &GraphDock::onGroupClicked);
    connect(m_view, &GraphView::programRequested, this, &GraphDock::showProgram);
    connect(m_view, &GraphView::actionFailed, this, &GraphDock::reportActionFailed);
    connect(selection, &EventSelection::currentEventChanged, this, [this](int block, int event) {
        if (!m_selecting && event >= 0)
            m_view->centerOnEvent(block, event);
    });
    // A graph in a 150-px tab is boxes of two pixels: the first time a session's graph comes into
    // view, the bottom area grows to give it room (the view refits as it does).
    connect(m_dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && m_graph && !m_roomGiven) {
            m_roomGiven = true;
            Q_EMIT needsRoom(m_dock);
        }
    });
}

QList<Panel::Dock> GraphDock::docks() const
{
    // A tab beside the timeline rather than a sliver of the bottom area.
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::TabBehindAnchor, false, true } };
}

void GraphDock::onSessionChanged(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    m_scoped.reset(); // scopeChanged follows and draws
    m_graph.reset();
    m_backendLinks.reset();
    m_backendEvents.reset();
    m_roomGiven = false;
}

void GraphDock::onScopeChanged(std::shared_ptr<const ScopedBlocks> scoped)
{
    // The overlay answers for the runs in scope; a program graph shows the scope's method.
    m_scoped = std::move(scoped);
    m_backendEvents.reset();
    if (m_session && (m_session->etrecord || m_session->program))
        m_backendEvents = std::make_shared<const BackendEventTable>(decodeBackendEvents(overlayBlocks()));
    m_view->setRunsLabel(m_scoped && !m_scoped->whole ? toQString(m_scoped->label) : QString());
    if (!m_graph || m_graphScopeMethod != m_controller->scope().method)
        showProgram({}, false);
    else {
        linkBackendEvents();
        onGapChanged();
    }
}

const std::vector<EventBlock> &GraphDock::overlayBlocks() const
{
    return m_scoped ? m_scoped->blocks : m_session->blocks;
}

void GraphDock::setGap(std::shared_ptr<const Session> session, std::shared_ptr<const analysis::GapTable> gap)
{
    m_gapSession = std::move(session);
    m_gap = std::move(gap);
    onGapChanged();
}

void GraphDock::showProgram(const QString &entry, bool placeholders)
{
    m_graphScopeMethod = m_controller->scope().method;
    if (m_session && !m_session->etrecord && m_session->program && m_session->method) {
        // etscope's own view: the instruction graph of the .pte, labelled as such; of the
        // scope's method when it names one.
        const std::string &scoped = m_controller->scope().method;
        const std::string method
            = !scoped.empty() && m_session->program->method(scoped) ? scoped : m_session->method->name();
        auto g = graph::ProgramGraph::fromProgram(m_session->program, method);
        if (!g) {
            m_view->clear(toQString(g.error().message()));
            return;
        }
        m_graph = std::make_shared<const graph::ProgramGraph>(std::move(g.value()));
        linkBackendEvents();
        m_view->setGraph(m_graph, overlay());
        const QString label = tr("%1 (instructions of the .pte)").arg(toQString(m_graph->entryName()));
        m_view->setProgramChoices({ label }, label, false);
        onGapChanged();
        return;
    }
    if (!m_session || !m_session->etrecord) {
        m_graph.reset();
        m_view->clear(tr("Open an ETRecord (or the .pte) with the ETDump to see the program graph."));
        return;
    }
    graph::BuildOptions opts;
    opts.entry = entry.toStdString();
    opts.showPlaceholders = placeholders;
    auto g = graph::ProgramGraph::build(m_session->etrecord, opts);
    if (!g) {
        m_view->clear(toQString(g.error().message()));
        return;
    }
    m_graph = std::make_shared<const graph::ProgramGraph>(std::move(g.value()));
    // Edge program first (the default), then every other program entry of the file.
    QStringList entries { toQString(m_graph->entryName()) };
    for (const ETRecordProgram &p : m_session->etrecord->programs())
        if (!entries.contains(toQString(p.entryName)))
            entries << toQString(p.entryName);
    if (const ETRecordProgram *edge = m_session->etrecord->edgeProgram())
        if (const qsizetype i = entries.indexOf(toQString(edge->entryName)); i > 0)
            entries.move(i, 0);
    linkBackendEvents();
    m_view->setGraph(m_graph, overlay());
    m_view->setProgramChoices(entries, toQString(m_graph->entryName()), placeholders);
    onGapChanged();
}

void GraphDock::onGapChanged()
{
    if (!m_graph || !m_session)
        return;
    graph::OverlayData data = overlay();
    if (m_gap && m_gapSession == m_session) {
        graph::addGap(data, *m_graph, m_session->blocks, *m_gap);
        m_view->setOverlayData(std::move(data));
        m_view->setOverlay(graph::Overlay::Gap);
        return;
    }
    m_view->setOverlayData(std::move(data));
    // No gap in this session: a gap overlay would only paint the graph grey.
    if (m_view->overlay() == graph::Overlay::Gap)
        m_view->setOverlay(graph::Overlay::Latency);
}

void GraphDock::linkBackendEvents()
{
    m_backendLinks.reset();
    if (!m_graph || !m_session || !m_backendEvents || m_backendEvents->empty())
        return;
    if (m_graph->drawnFromProgram()) { // the .pte's own delegate payloads
        m_backendLinks = graph::payloadGraphLinks(*m_graph, overlayBlocks(), *m_backendEvents);
        return;
    }
    if (!m_session->etrecord)
        return;
    // The method of the Edge program drawn ("edge_dialect_exported_program/encode"), else the
    // method the session linked.
    const std::string &entry = m_graph->entryName();
    constexpr std::string_view kEdge = "edge_dialect_exported_program/";
    const std::string method = entry.starts_with(kEdge) ? entry.substr(kEdge.size()) : m_session->inputs.link.method;
    m_backendLinks = backendGraphLinks(overlayBlocks(), *m_backendEvents, *m_session->etrecord, method);
}

graph::OverlayData GraphDock::overlay() const
{
    graph::OverlayData d
        = graph::overlayFromEvents(*m_graph, overlayBlocks(), m_backendLinks ? &*m_backendLinks : nullptr);
    if (!m_scoped || m_scoped->whole)
        return d;
    // Computed on the scope's blocks; everything else (selection, gap) speaks of the session's.
    const auto &source = m_scoped->sourceBlock;
    for (auto &refs : d.nodeEvents)
        for (graph::EventRef &r : refs)
            r.block = int(source[std::size_t(r.block)]);
    auto remap = [&](auto &map) {
        std::remove_reference_t<decltype(map)> out;
        for (const auto &[key, value] : map)
            out.emplace(std::pair(int(source[std::size_t(key.first)]), key.second), value);
        map = std::move(out);
    };
    remap(d.eventLatency);
    remap(d.eventGroup);
    return d;
}

void GraphDock::selectEvents(const std::vector<EventPosition> &events)
{
    if (events.empty())
        return;
    m_selecting = true; // our own selection must not re-centre the graph
    m_selection->selectEvents(events);
    m_selecting = false;
}

void GraphDock::onNodeClicked(int opNode)
{
    const auto &events = m_view->overlayData().nodeEvents;
    if (opNode < 0 || std::size_t(opNode) >= events.size())
        return;
    std::vector<EventPosition> refs;
    for (const graph::EventRef &r : events[std::size_t(opNode)])
        refs.push_back({ r.block, r.event });
    selectEvents(refs);
}

void GraphDock::onGroupClicked(int group)
{
    if (!m_graph)
        return;
    const auto &events = m_view->overlayData().nodeEvents;
    std::set<std::pair<int, int>> seen;
    std::vector<EventPosition> refs;
    std::vector<int> stack { group };
    while (!stack.empty()) {
        const graph::Group &g = m_graph->groups()[std::size_t(stack.back())];
        stack.pop_back();
        for (int n : g.nodes)
            if (std::size_t(n) < events.size())
                for (const graph::EventRef &r : events[std::size_t(n)])
                    if (seen.emplace(r.block, r.event).second)
                        refs.push_back({ r.block, r.event });
        stack.insert(stack.end(), g.children.begin(), g.children.end());
    }
    selectEvents(refs);
}

} // namespace etscope
