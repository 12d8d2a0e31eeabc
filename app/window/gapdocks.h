#pragma once

#include "analysis/comparator.h"
#include "eval/evaluator.h"
#include "panel.h"
#include "session/session.h"

#include <QString>

#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QProgressDialog;
class QRadioButton;

namespace etscope {
namespace analysis {
struct GapTable;
}

class BackgroundJob;
namespace gapui {
class CompareResultsChart;
class DelegateTriageView;
class GapHeatmapWidget;
class GapTrendChart;
class TensorInspectorWidget;
} // namespace gapui

// Numeric-gap views in the main window: a heatmap and a delegate-triage table against a
// reference the user picks (a second ETDump + debug buffer, or an AOT outputs file), and the
// compare_results chart against a BundledProgram opened with the session. Clicking a row or
// cell selects that event everywhere (details, stack trace → source).
class GapDocks : public Panel
{
    Q_OBJECT
public:
    GapDocks(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;

    // Compares the current session with the given reference files (sniffed by content).
    bool compareWith(const QStringList &referenceFiles, QString *error = nullptr);

    // What Analysis ▸ Numeric gap offers first for the current session: the ETRecord's graph
    // evaluated by etscope when an ETRecord and a debug buffer are open (ready when the
    // ETRecord has representative_inputs, otherwise after "Choose inputs…"), else files.
    enum class ReferenceOffer { Files, ETRecordGraph, ETRecordNeedsInputs };
    ReferenceOffer referenceOffer() const;
    // Evaluates the ETRecord's graph in the background (accumulated and isolated), with a
    // progress dialog that can cancel; evaluatorFinished() reports the outcome.
    void compareWithEvaluator(const eval::InputChoice &inputs = {}, const QString &referenceGraph = {});
    bool evaluatorRunning() const;
    void cancelEvaluator();
    // Accumulated (the Inspector's gap) or isolated (each op from the runtime's inputs) in the
    // heatmap and the delegate triage.
    void setIsolated(bool isolated);
    bool isolated() const { return m_isolated; }
    // The metric that leads (triage, gap chart, graph overlay, first heatmap column) and the
    // threshold it is judged by (unset: the noise level of analysis/noise.h).
    void setPrimaryMetric(analysis::Metric m);
    analysis::Metric primaryMetric() const { return m_primary; }
    void setThreshold(std::optional<double> threshold);
    std::optional<double> threshold() const { return m_threshold; }
    gapui::GapTrendChart *trendChart() const { return m_trend; }

    // The gap table of the active reference (first metric; accumulated or isolated as
    // switched), or null; see tablesChanged().
    const analysis::GapTable *activeTable() const;

Q_SIGNALS:
    void evaluatorFinished(bool ok, const QString &message);
    // The gap shown for `session` changed (null: none); the graph overlays it.
    void gapChanged(
        std::shared_ptr<const etscope::Session> session, std::shared_ptr<const etscope::analysis::GapTable> table);

public:
    gapui::GapHeatmapWidget *heatmap() const { return m_heatmap; }
    gapui::DelegateTriageView *triage() const { return m_triage; }
    gapui::CompareResultsChart *compareChart() const { return m_compare; }
    gapui::TensorInspectorWidget *tensorInspector() const { return m_tensor; }
    // The reference the gap views compare against (kept and recomputed across reloads).
    QStringList referenceFiles() const { return m_referenceFiles; }
    // The comparison's warnings (as `etscope-cli gap` prints them), also shown in the window.
    QStringList referenceWarnings() const { return m_warnings; }
    // The warning every gap view shows above its figures while the session's inputs are doubtful
    // (a debug buffer that is probably not the run's); "" when there is none.
    QString caveatText() const;

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void chooseReference();
    void chooseFiles();
    void showRow(int blockIndex, int eventIndex);
    void showTables();
    struct Outcome;
    static std::shared_ptr<Outcome> computeFileGap(const Session &session, const QStringList &referenceFiles);
    void applyFileGap(const QStringList &referenceFiles, const Outcome &outcome);
    void emitGapChanged();
    void updateCaveats();
    void arrangeTables();

    QWidget *dialogParent() const;

    std::shared_ptr<const Session> m_session;
    QAction *m_compareAction = nullptr;
    gapui::GapHeatmapWidget *m_heatmap = nullptr;
    gapui::DelegateTriageView *m_triage = nullptr;
    gapui::TensorInspectorWidget *m_tensor = nullptr;
    gapui::CompareResultsChart *m_compare = nullptr;
    QDockWidget *m_heatmapDock = nullptr;
    QDockWidget *m_triageDock = nullptr;
    QDockWidget *m_tensorDock = nullptr;
    QDockWidget *m_compareDock = nullptr;
    gapui::GapTrendChart *m_trend = nullptr;
    QDockWidget *m_trendDock = nullptr;
    QRadioButton *m_accumulatedButton = nullptr;
    QRadioButton *m_isolatedButton = nullptr;
    QProgressDialog *m_progress = nullptr;
    bool m_isolated = false;
    QComboBox *m_metricBox = nullptr;
    QLineEdit *m_thresholdEdit = nullptr;
    analysis::Metric m_primary;
    std::optional<double> m_threshold;
    struct Tables;
    std::shared_ptr<Tables> m_tables;
    QStringList m_referenceFiles;
    QStringList m_warnings;
    QList<QLabel *> m_caveats; // one above each gap view
    int m_tensorBlock = -1, m_tensorEvent = -1; // row shown in the tensor inspector
    std::optional<eval::InputChoice> m_evaluatorReference; // the ETRecord graph is the reference
    BackgroundJob *m_job = nullptr;
    bool m_evaluatorCancelled = false; // the last evaluation was cancelled (no warning dialog)
};

} // namespace etscope
