#pragma once

#include "evalgap/graphdiff.h"
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

// "Graph against graph": two graphs of the session's ETRecord (the ATen exported_program, the
// Edge program, graph_map entries such as edge_after_transform) evaluated on the same inputs and
// compared layer by layer (evalgap/graphdiff.h): the aligned layers with their gap judged by the
// noise rule, where the graphs part, and the nodes no rule aligns, listed, never paired by guess.
class GraphDiffPanel : public Panel
{
    Q_OBJECT
public:
    GraphDiffPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;

    // Compares graph `a` with graph `b` in the background; finished() reports.
    void compare(const QString &a, const QString &b, analysis::Metric metric = analysis::Metric::MSE);
    const std::shared_ptr<const evalgap::GraphDiff> &result() const { return m_result; }
    QTreeWidget *table() const { return m_table; }
    QString verdictText() const;
    QStringList graphChoices() const;

Q_SIGNALS:
    void finished(bool ok, const QString &message);

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void show(std::shared_ptr<const evalgap::GraphDiff> diff);

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const evalgap::GraphDiff> m_result;
    QComboBox *m_a;
    QComboBox *m_b;
    QComboBox *m_metric;
    QPushButton *m_run;
    QPushButton *m_inputs;
    QLabel *m_verdict;
    QTreeWidget *m_table;
    QLabel *m_unaligned;
    QDockWidget *m_dock;
    QAction *m_action;
    BackgroundJob *m_job;
    eval::InputChoice m_inputChoice; // empty: the ETRecord's representative_inputs
};

} // namespace etscope
