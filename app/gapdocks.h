#pragma once

#include "session/session.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

class QAction;
class QDockWidget;

namespace etscope {

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
    gapui::TensorInspectorWidget *tensorInspector() const { return m_tensor; }
    // The reference the gap views compare against (kept and recomputed across reloads).
    QStringList referenceFiles() const { return m_referenceFiles; }
    // The comparison's warnings (as `etscope-cli gap` prints them), also shown in the window.
    QStringList referenceWarnings() const { return m_warnings; }

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
    QStringList m_referenceFiles;
    QStringList m_warnings;
    int m_tensorBlock = -1, m_tensorEvent = -1; // row shown in the tensor inspector
};

} // namespace etscope
