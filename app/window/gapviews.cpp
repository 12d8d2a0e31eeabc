#include "gapviews.h"

#include "delegatetriageview.h"
#include "gapheatmapwidget.h"
#include "gappages.h"
#include "gaptrendchart.h"
#include "tensorinspectorwidget.h"

#include "evaluatorsettings.h"
#include "qtstrings.h"
#include "session/session.h"

#include <QDockWidget>
#include <QScrollArea>

#include <algorithm>

namespace etscope {

namespace {
// The heatmap's columns: the metrics the Inspector's users read, and the leading one when it is
// another (every metric is computed, so switching needs no recompute).
bool shownInHeatmap(analysis::Metric m, analysis::Metric primary)
{
    return m == primary || m == analysis::Metric::MSE || m == analysis::Metric::SNR || m == analysis::Metric::MaxAbs;
}
} // namespace

GapViews::GapViews(EvaluatorSettings *settings, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_triage(new gapui::DelegateTriageView)
    , m_tensor(new gapui::TensorInspectorWidget)
{
    auto *heatmapPage = new gapui::GapHeatmapPage(settings);
    m_heatmap = heatmapPage->heatmap();
    m_trendPage = new gapui::GapTrendPage(settings);
    m_trend = m_trendPage->chart();
    auto framed = [this](QWidget *view) {
        m_caveats << new gapui::CaveatFrame(view);
        return m_caveats.back();
    };
    m_heatmapDock = makeDock(framed(heatmapPage), tr("Numeric gap"), QStringLiteral("GapHeatmapDock"));
    m_triageDock = makeDock(framed(m_triage), tr("Delegate triage"), QStringLiteral("DelegateTriageDock"));
    // Scrolls rather than drawing its histogram over its tables when the dock is short.
    auto *tensorScroll = new QScrollArea;
    tensorScroll->setWidget(m_tensor);
    tensorScroll->setWidgetResizable(true);
    tensorScroll->setFrameShape(QFrame::NoFrame);
    m_tensorDock = makeDock(framed(tensorScroll), tr("Tensor inspector"), QStringLiteral("TensorInspectorDock"));
    m_trendDock = makeDock(framed(m_trendPage), tr("Gap along execution"), QStringLiteral("GapTrendDock"));

    connect(heatmapPage, &gapui::GapHeatmapPage::invalidThreshold, this, &GapViews::invalidThreshold);
    connect(m_heatmap, &gapui::GapHeatmapWidget::eventSelected, this, &GapViews::eventSelected);
    connect(m_triage, &gapui::DelegateTriageView::eventSelected, this, &GapViews::eventSelected);
    connect(m_trend, &gapui::GapTrendChart::eventSelected, this, &GapViews::eventSelected);
}

QList<Panel::Dock> GapViews::docks() const
{
    // Shown once there is something to compare.
    using Placement = Panel::Placement;
    return { { m_heatmapDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        { m_triageDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        // Room of its own beside the heatmap it follows, not a tab behind Details.
        { m_tensorDock, Qt::BottomDockWidgetArea, Placement::OwnArea, true },
        { m_trendDock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

void GapViews::showTensorRow(const analysis::GapTable *table, int blockIndex, int eventIndex, bool raise)
{
    if (!table)
        return;
    for (const analysis::GapRow &row : table->rows)
        if (row.blockIndex == blockIndex && row.eventIndex == eventIndex) {
            m_tensor->setRow(row);
            m_tensorBlock = blockIndex;
            m_tensorEvent = eventIndex;
            m_tensorDock->show();
            if (raise)
                m_tensorDock->raise();
            return;
        }
}

bool GapViews::tensorShown() const
{
    return m_tensorDock->isVisible();
}

void GapViews::setCaveat(const QString &text)
{
    for (gapui::CaveatFrame *frame : std::as_const(m_caveats))
        frame->setCaveat(text);
}

QString GapViews::caveatText(const Session *session)
{
    // What makes the gap doubtful, for as long as the session has it.
    QStringList lines;
    if (session)
        for (const std::string &w : session->warningsOf(SessionWarningKind::SuspectDebugBuffer))
            lines << tr("Gap values come from a doubtful debug buffer: %1").arg(toQString(w));
    return lines.join(QLatin1Char('\n'));
}

void GapViews::clear()
{
    m_tensorBlock = m_tensorEvent = -1;
    m_heatmap->setTables({});
    m_trend->setTables({}, {});
    for (QDockWidget *dock : { m_trendDock, m_heatmapDock, m_triageDock, m_tensorDock })
        dock->hide();
}

void GapViews::show(const Session &session, const std::vector<analysis::GapTable> &tables,
    const std::vector<analysis::GapTable> &accumulated, const std::vector<analysis::GapTable> &isolated)
{
    std::vector<analysis::GapTable> shown;
    for (const analysis::GapTable &t : tables)
        if (shownInHeatmap(t.metric, m_settings->metric()))
            shown.push_back(t);
    m_heatmap->setTables(shown);
    m_heatmap->resize(m_heatmap->sizeHint());
    m_triage->setData(session, tables.front());
    m_trend->setTables(accumulated.front(), isolated.empty() ? analysis::GapTable {} : isolated.front());
    m_trendPage->setIsolatedAvailable(!isolated.empty());
    m_heatmapDock->show();
    // Triage is about delegates: only shown when the run has delegated rows.
    const auto &rows = tables.front().rows;
    m_triageDock->setVisible(
        std::any_of(rows.begin(), rows.end(), [](const analysis::GapRow &r) { return r.delegated; }));
    m_trendDock->setVisible(!isolated.empty());
    m_heatmapDock->raise();
    // The tensor inspector opens on the row where the error enters (else the first row), so the
    // values behind the first red cell are one glance away.
    if (m_tensorBlock < 0 && !rows.empty()) {
        const analysis::GapRow *first = analysis::firstFlagged(tables.front());
        const analysis::GapRow &row = first ? *first : rows.front();
        m_tensor->setRow(row);
        m_tensorBlock = row.blockIndex;
        m_tensorEvent = row.eventIndex;
        m_tensorDock->show();
    }
}

} // namespace etscope
