#pragma once

#include "session/session.h"

#include <QObject>
#include <QString>

#include <memory>

class QAction;
class QDockWidget;

namespace etscope {
namespace analysis {
struct GapTable;
}

class MainWindow;
namespace gapui {
class CompareResultsChart;
class DelegateTriageView;
class GapHeatmapWidget;
class TensorInspectorWidget;
} // namespace gapui

// Numeric-gap views in the main window: a heatmap and a delegate-triage table against a
// reference the user picks (a second ETDump + debug buffer, or an AOT outputs file), and the
// compare_results chart against a BundledProgram opened with the session. Clicking a row or
// cell selects that event everywhere (details, stack trace → source).
class GapDocks : public QObject
{
    Q_OBJECT
public:
    explicit GapDocks(MainWindow *window);

    // Compares the current session with the given reference files (sniffed by content).
    bool compareWith(const QStringList &referenceFiles, QString *error = nullptr);
    gapui::GapHeatmapWidget *heatmap() const { return m_heatmap; }
    gapui::DelegateTriageView *triage() const { return m_triage; }
    gapui::CompareResultsChart *compareChart() const { return m_compare; }
    // The gap table of the active reference (first metric), or null; see tablesChanged().
    const analysis::GapTable *activeTable() const;

Q_SIGNALS:
    void tablesChanged();

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void chooseReference();
    void showRow(int blockIndex, int eventIndex);

    MainWindow *m_window;
    std::shared_ptr<const Session> m_session;
    gapui::GapHeatmapWidget *m_heatmap = nullptr;
    gapui::DelegateTriageView *m_triage = nullptr;
    gapui::TensorInspectorWidget *m_tensor = nullptr;
    gapui::CompareResultsChart *m_compare = nullptr;
    QDockWidget *m_heatmapDock = nullptr;
    QDockWidget *m_triageDock = nullptr;
    QDockWidget *m_tensorDock = nullptr;
    QDockWidget *m_compareDock = nullptr;
    struct Tables;
    std::shared_ptr<Tables> m_tables;
};

} // namespace etscope
