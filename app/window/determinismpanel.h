#pragma once

#include "analysis/determinism.h"
#include "panel.h"
#include "session/session.h"

#include <memory>

class QAction;
class QDockWidget;
class QLabel;
class QTableView;

namespace etscope {

class BackgroundJob;
class DeterminismModel;
class RunStrip;
class VaryingHeatmap;

// "Determinism": the session's debug buffer holding the same tensors over several runs, compared
// bit for bit (analysis/determinism.h). The sentence on top (warning style when a tensor varies),
// one row per logged tensor in program order, the heatmap of where the selected tensor varies
// (its last two dimensions, the tile outlined) and every run against every tensor. A session
// without a debug buffer, or whose buffer holds one run, is said so in one line. Selecting a
// tensor selects the operator event that logged it.
class DeterminismPanel : public Panel
{
    Q_OBJECT
public:
    DeterminismPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;
    QList<Chart> charts() const override;

    const std::shared_ptr<const DeterminismReport> &report() const { return m_report; }
    QString sentence() const;
    QTableView *table() const { return m_table; }
    VaryingHeatmap *heatmap() const { return m_heatmap; }
    RunStrip *strip() const { return m_strip; }
    // Selects the tensor at `position` (program order) everywhere: row, strip, heatmap, event.
    void selectTensor(int position);

Q_SIGNALS:
    void reportReady();
    void mapReady();

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void say(const QString &line, bool warning = false);
    void show(std::shared_ptr<const DeterminismReport> report);
    void computeMap(int position);
    void selectEventOf(const TensorDeterminism &t);

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const DeterminismReport> m_report;
    QLabel *m_sentence;
    DeterminismModel *m_model;
    QTableView *m_table;
    VaryingHeatmap *m_heatmap;
    RunStrip *m_strip;
    QDockWidget *m_dock;
    QAction *m_action;
    BackgroundJob *m_job;
    BackgroundJob *m_mapJob;
    bool m_following = false; // the row follows a tensor selected elsewhere
};

} // namespace etscope
