#pragma once

#include "evalgap/decompose.h"
#include "panel.h"
#include "session/session.h"

#include <memory>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QPushButton;
class QTableView;

namespace etscope {

class BackgroundJob;
class EvaluatorInputsButton;
class DecompositionModel;
namespace gapui {
class MetricBox;
class DecompositionChart;
} // namespace gapui

// "Quantization or kernel?": the numeric gap of a quantized model's runtime run split per op into
// the error quantization introduces (float twin against the fake-quantized graph) and the error
// the kernels add (fake-quantized graph against the runtime), evalgap/decompose.h. The sentence
// that answers the question leads; below it a stacked bar per op and the table. Needs the
// recording's ETRecord and debug buffer; both graphs run in the background.
class DecompositionPanel : public Panel
{
    Q_OBJECT
public:
    DecompositionPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;
    QList<Chart> charts() const override;

    // Decomposes the current session's gap in the background, in the metric and on the inputs of
    // the window's EvaluatorSettings; finished() reports.
    void decompose();
    bool isRunning() const;
    const std::shared_ptr<const evalgap::Decomposition> &result() const { return m_result; }
    QString summaryText() const;
    gapui::DecompositionChart *chart() const { return m_chart; }
    QTableView *table() const { return m_table; }
    QDockWidget *dock() const { return m_dock; }

Q_SIGNALS:
    void finished(bool ok, const QString &message);

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void show(std::shared_ptr<const evalgap::Decomposition> d);

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const evalgap::Decomposition> m_result;
    gapui::MetricBox *m_metric;
    QPushButton *m_run;
    EvaluatorInputsButton *m_inputs;
    QLabel *m_summary;
    QLabel *m_warnings;
    gapui::DecompositionChart *m_chart;
    DecompositionModel *m_model;
    QTableView *m_table;
    QDockWidget *m_dock;
    QAction *m_action;
    BackgroundJob *m_job;
};

} // namespace etscope
