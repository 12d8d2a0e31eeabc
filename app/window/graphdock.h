#pragma once

#include "etrecord/backendlink.h"
#include "panel.h"
#include "session/scope.h"
#include "session/session.h"

#include <memory>
#include <optional>

class QDockWidget;

namespace etscope {

class GraphView;
namespace analysis {
struct GapTable;
}
namespace graph {
class ProgramGraph;
struct OverlayData;
} // namespace graph

// The "Graph" dock: the session's ETRecord program (or, without one, the instruction graph of the
// session's .pte method) drawn by GraphView, with the latency of the linked events and, once a
// numeric gap is shown (setGap, connected by the window to GapDocks::gapChanged), the gap. Selection is
// shared: a click on a node selects its events in the tree (details show its stack trace and
// source); selecting an event anywhere (tree, heatmap, charts) centres the graph on its node.
class GraphDock : public Panel
{
    Q_OBJECT
public:
    GraphDock(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    GraphView *view() const { return m_view; }
    QDockWidget *dock() const { return m_dock; }
    // The numeric gap of `session` shown as the overlay (null: none); a gap of another session
    // than the one shown is kept until that session arrives, whichever signal comes first.
    void setGap(std::shared_ptr<const Session> session, std::shared_ptr<const analysis::GapTable> gap);

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void onScopeChanged(std::shared_ptr<const ScopedBlocks> scoped);
    const std::vector<EventBlock> &overlayBlocks() const; // the scope's, else the session's
    void showProgram(const QString &entry, bool placeholders);
    void onGapChanged();
    void onNodeClicked(int opNode);
    void onGroupClicked(int group);
    void selectEvents(const std::vector<EventPosition> &events);
    graph::OverlayData overlay() const; // the session's events on m_graph
    void linkBackendEvents(); // m_backendLinks for the method m_graph shows

    std::shared_ptr<const analysis::GapTable> m_gap;
    std::shared_ptr<const Session> m_gapSession; // the session m_gap was computed for
    GraphView *m_view = nullptr;
    QDockWidget *m_dock = nullptr;
    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const ScopedBlocks> m_scoped;
    std::string m_graphScopeMethod; // the scope's method when m_graph was built
    std::shared_ptr<const graph::ProgramGraph> m_graph;
    // Decoded backend events (Vulkan dispatches) of the session, and those exactly linked to
    // the nodes of the method m_graph shows.
    std::shared_ptr<const BackendEventTable> m_backendEvents;
    std::optional<BackendGraphLinks> m_backendLinks;
    bool m_selecting = false; // our own selection must not re-centre the graph
    bool m_roomGiven = false; // needsRoom asked once per session, when the graph first shows
};

} // namespace etscope
