#pragma once

#include "analysis/comparator.h"
#include "eval/evaluator.h"
#include "gapviews.h"
#include "panel.h"
#include "session/session.h"

#include <QString>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QProgressDialog;

namespace etscope {
namespace analysis {
struct GapTable;
}

class EvaluatorSettings;
class GapReference;
namespace gapui {
class DelegateTriageView;
class GapHeatmapWidget;
class GapTrendChart;
class TensorInspectorWidget;
} // namespace gapui

// Numeric-gap views in the main window: a heatmap and a delegate-triage table against a
// reference the user picks (a second ETDump + debug buffer, or an AOT outputs file), and the
// compare_results chart against a BundledProgram opened with the session. Clicking a row or
// cell selects that event everywhere (details, stack trace → source). The panel asks for the
// reference and follows the session; GapReference computes, GapViews shows.
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
    // The metric, threshold and accumulated/isolated switch are the window's EvaluatorSettings
    // (SessionController::evaluatorSettings()), shared with the other evaluator panels.
    gapui::GapTrendChart *trendChart() const { return m_views->trendChart(); }

    // The gap table of the active reference (first metric; accumulated or isolated as
    // switched), or null; see tablesChanged().
    const analysis::GapTable *activeTable() const;

Q_SIGNALS:
    void evaluatorFinished(bool ok, const QString &message);
    // The gap shown for `session` changed (null: none); the graph overlays it.
    void gapChanged(
        std::shared_ptr<const etscope::Session> session, std::shared_ptr<const etscope::analysis::GapTable> table);

public:
    gapui::GapHeatmapWidget *heatmap() const { return m_views->heatmap(); }
    gapui::DelegateTriageView *triage() const { return m_views->triage(); }
    gapui::TensorInspectorWidget *tensorInspector() const { return m_views->tensorInspector(); }
    // The reference the gap views compare against (kept and recomputed across reloads), its
    // tables and its warnings (as `etscope-cli gap` prints them).
    GapReference *reference() const { return m_reference; }
    // The warning every gap view shows above its figures while the session's inputs are doubtful
    // (a debug buffer that is probably not the run's); "" when there is none.
    QString caveatText() const { return GapViews::caveatText(m_session.get()); }

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void chooseReference();
    void chooseFiles();
    void showRow(int blockIndex, int eventIndex);
    void showTables();
    void onReferenceFinished(bool ok, const QString &message, bool evaluator);
    void notifyWarnings(const QString &against);
    void emitGapChanged();
    void updateCaveats();
    void showProgress();
    void closeProgress();

    QWidget *dialogParent() const;

    std::shared_ptr<const Session> m_session;
    EvaluatorSettings *m_settings;
    GapReference *m_reference;
    GapViews *m_views;
    QAction *m_compareAction = nullptr;
    QProgressDialog *m_progress = nullptr;
    bool m_restoreTensor = false; // a recompute for a reload shows the same tensor row again
    bool m_evaluatorCancelled = false; // the last evaluation was cancelled (no warning dialog)
};

} // namespace etscope
