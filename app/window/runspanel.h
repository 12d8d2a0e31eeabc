#pragma once

#include "analysis/runs.h"
#include "panel.h"
#include "session/session.h"

#include <QStringList>

#include <memory>

class QAction;
class QCheckBox;
class QDockWidget;
class QLabel;
class QTableView;
class QTreeWidget;

namespace etscope {

class BackgroundJob;
class RunsChart;
class RunsTableModel;

// "Runs": every run of the recording over time (analysis/runs.h) — its method and phase
// (prefill / decode when the program names them), time to first token, tokens/s, the latency
// slope against position, warm-up and outlier runs, and per phase the operators' shares. A click
// on a run selects its Method::execute event and shows that run in the timeline.
class RunsPanel : public Panel
{
    Q_OBJECT
public:
    RunsPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;
    QList<Chart> charts() const override;

    const std::shared_ptr<const RunsReport> &report() const { return m_report; }
    RunsChart *chart() const { return m_chart; }
    QTreeWidget *shareTable() const { return m_shares; }
    QTableView *runsTable() const { return m_runsTable; }
    // The toggle that names the share rows by the operator decoded from the backends' events
    // (etscope's own, ShareRowsBy::BackendOperator) instead of the events' names.
    QCheckBox *backendOperatorToggle() const { return m_byBackendOp; }
    QString figuresText() const;
    // Selects run `run` (index into report()->runs) everywhere.
    void selectRun(int run);

Q_SIGNALS:
    void runsSelected(const QList<int> &runs, const QString &what); // the timeline shows them
    void reportReady();

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void analyze();
    void show(std::shared_ptr<const RunsReport> report);

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const RunsReport> m_report;
    QStringList m_coverage; // how much of Method::execute the events explain, as HTML lines
    RunsChart *m_chart;
    QLabel *m_figures;
    QTreeWidget *m_shares;
    RunsTableModel *m_runsModel;
    QTableView *m_runsTable;
    bool m_selectingRun = false; // the table follows a run selected elsewhere
    QCheckBox *m_byBackendOp;
    QDockWidget *m_dock;
    QAction *m_action;
    BackgroundJob *m_job;
};

} // namespace etscope
