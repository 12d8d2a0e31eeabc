#pragma once

#include "evalgap/graphdiff.h"
#include "evalgap/graphdiffoverlay.h"
#include "panel.h"
#include "session/session.h"

#include <memory>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QPushButton;
class QTreeWidget;

namespace etscope {

class BackgroundJob;
namespace gapui {
class GraphDiffGraphs;
class GraphDiffTable;
class MetricBox;
} // namespace gapui
class EvaluatorInputsButton;
class GraphView;

// "Graph against graph": two graphs of the session's ETRecord (the ATen exported_program, the
// Edge program, graph_map entries such as edge_after_transform) evaluated on the same inputs and
// compared layer by layer (evalgap/graphdiff.h): the aligned layers with their gap judged by the
// noise rule, where the graphs part, and the nodes no rule aligns, listed, never paired by guess.
// Below the table both graphs are drawn side by side with the per-layer gap as overlay; selecting a
// layer (in the table or on either graph) selects its aligned node on the other side too.
class GraphDiffPanel : public Panel
{
    Q_OBJECT
public:
    GraphDiffPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;

    // Compares graph `a` with graph `b` in the background, in the metric and on the inputs of the
    // window's EvaluatorSettings; finished() reports.
    void compare(const QString &a, const QString &b);
    const std::shared_ptr<const evalgap::GraphDiff> &result() const { return m_result; }
    QTreeWidget *table() const;
    GraphView *graphView(evalgap::DiffSide side) const;
    QDockWidget *dock() const { return m_dock; }
    // Selects aligned layer `row` (index into result()->rows) in the table and on both graphs.
    void selectLayer(int row);
    QString verdictText() const;
    QStringList graphChoices() const;

Q_SIGNALS:
    void finished(bool ok, const QString &message);

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void show(std::shared_ptr<const evalgap::GraphDiff> diff);
    void onNodeClicked(evalgap::DiffSide side, int opNode);
    void centerGraphsOn(int row);

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const evalgap::GraphDiff> m_result;
    QComboBox *m_a;
    QComboBox *m_b;
    gapui::MetricBox *m_metric;
    QPushButton *m_run;
    EvaluatorInputsButton *m_inputs;
    QLabel *m_verdict;
    gapui::GraphDiffTable *m_table;
    gapui::GraphDiffGraphs *m_graphs; // both views; hidden until a comparison has something to draw
    QDockWidget *m_dock;
    QAction *m_action;
    BackgroundJob *m_job;
};

} // namespace etscope
