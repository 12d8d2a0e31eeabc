#pragma once

#include "panel.h"
#include "session/session.h"

#include <memory>

class QDockWidget;

namespace etscope {

class GapDocks;
class GraphView;
class Program;
namespace graph {
class ProgramGraph;
}

// The "Graph" dock: the session's ETRecord program (or, without one, the paired .pte's instruction
// graph) drawn by GraphView, with the latency of the
// linked events and, once a reference is chosen in GapDocks, the numeric gap. Selection is
// shared: a click on a node selects its events in the tree (details show its stack trace and
// source); selecting an event anywhere (tree, heatmap, charts) centres the graph on its node.
class GraphDock : public Panel
{
    Q_OBJECT
public:
    GraphDock(SessionController *controller, EventSelection *selection, GapDocks *gap, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    GraphView *view() const { return m_view; }
    QDockWidget *dock() const { return m_dock; }
    // Without an ETRecord, the paired .pte's method is drawn as its instruction graph (events
    // matched by instruction id); null: no program paired.
    void setProgram(std::shared_ptr<const Program> program, const QString &method);

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void showProgram(const QString &entry, bool placeholders);
    void onGapChanged();
    void onNodeClicked(int opNode);
    void onGroupClicked(int group);
    void selectEvents(const std::vector<EventPosition> &events);

    GapDocks *m_gap;
    GraphView *m_view = nullptr;
    QDockWidget *m_dock = nullptr;
    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const graph::ProgramGraph> m_graph;
    std::shared_ptr<const Program> m_program;
    QString m_programMethod;
    bool m_selecting = false; // our own selection must not re-centre the graph
    bool m_roomGiven = false; // needsRoom asked once per session, when the graph first shows
};

} // namespace etscope
