#pragma once

#include "analysis/numericgap.h"
#include "panel.h"

#include <QObject>
#include <QString>

#include <utility>

class QDockWidget;

namespace etscope {

class EvaluatorSettings;
struct Session;
namespace gapui {
class CaveatFrame;
class DelegateTriageView;
class GapHeatmapWidget;
class GapTrendChart;
class GapTrendPage;
class TensorInspectorWidget;
} // namespace gapui

// The numeric gap's four docks and what they show: the heatmap page (with the shared metric and
// threshold), the delegate triage, the tensor inspector and the gap along execution, each under
// the caveat line. It holds no reference and runs nothing: GapDocks hands it the tables.
class GapViews : public QObject
{
    Q_OBJECT
public:
    explicit GapViews(EvaluatorSettings *settings, QObject *parent = nullptr);
    QList<Panel::Dock> docks() const;

    // Shows every metric's tables against `session` (the primary metric's first, as
    // GapReference::arrange put them): `tables` accumulated or isolated as switched, `accumulated`
    // and `isolated` (empty without the evaluator) for the chart. The tensor inspector opens on the
    // row where the error enters unless it shows a row already.
    void show(const Session &session, const std::vector<analysis::GapTable> &tables,
        const std::vector<analysis::GapTable> &accumulated, const std::vector<analysis::GapTable> &isolated);
    // Shows the row of `table` at (block, event) in the tensor inspector; `raise` brings its dock
    // forward. Nothing when the table has no such row.
    void showTensorRow(const analysis::GapTable *table, int blockIndex, int eventIndex, bool raise);
    // The row the tensor inspector shows ((-1, -1): none) and whether its dock is visible.
    std::pair<int, int> tensorRow() const { return { m_tensorBlock, m_tensorEvent }; }
    bool tensorShown() const;
    // Empties and hides every view, and forgets the tensor row.
    void clear();
    void setCaveat(const QString &text);
    // The warning every gap view shows above its figures while the session's inputs are doubtful
    // (a debug buffer that is probably not the run's); "" when there is none.
    static QString caveatText(const Session *session);

    gapui::GapHeatmapWidget *heatmap() const { return m_heatmap; }
    gapui::DelegateTriageView *triage() const { return m_triage; }
    gapui::TensorInspectorWidget *tensorInspector() const { return m_tensor; }
    gapui::GapTrendChart *trendChart() const { return m_trend; }
    QDockWidget *heatmapDock() const { return m_heatmapDock; }
    QDockWidget *trendDock() const { return m_trendDock; }

Q_SIGNALS:
    // A row or cell was clicked in the heatmap, the triage or the chart.
    void eventSelected(int blockIndex, int eventIndex);
    void invalidThreshold(const QString &text);

private:
    EvaluatorSettings *m_settings;
    gapui::GapHeatmapWidget *m_heatmap = nullptr;
    gapui::DelegateTriageView *m_triage = nullptr;
    gapui::TensorInspectorWidget *m_tensor = nullptr;
    gapui::GapTrendChart *m_trend = nullptr;
    gapui::GapTrendPage *m_trendPage = nullptr;
    QDockWidget *m_heatmapDock = nullptr;
    QDockWidget *m_triageDock = nullptr;
    QDockWidget *m_tensorDock = nullptr;
    QDockWidget *m_trendDock = nullptr;
    QList<gapui::CaveatFrame *> m_caveats; // one around each gap view
    int m_tensorBlock = -1, m_tensorEvent = -1; // row shown in the tensor inspector
};

} // namespace etscope
