#include "gapdocks.h"
#include "filedialogs.h"
#include "qtstrings.h"

#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "delegatetriageview.h"
#include "evaluatorsettings.h"
#include "gapheatmapwidget.h"
#include "gappages.h"
#include "gapreference.h"
#include "gapreferencedialog.h"
#include "gaptrendchart.h"
#include "sessioncontroller.h"
#include "tensorinspectorwidget.h"

#include "etrecord/etrecord.h"
#include "events/blockstats.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QProgressDialog>
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

GapDocks::GapDocks(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_settings(controller->evaluatorSettings())
    , m_reference(new GapReference(this))
    , m_triage(new gapui::DelegateTriageView)
    , m_tensor(new gapui::TensorInspectorWidget)
{
    auto *heatmapPage = new gapui::GapHeatmapPage(m_settings);
    m_heatmap = heatmapPage->heatmap();
    m_trendPage = new gapui::GapTrendPage(m_settings);
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

    m_compareAction = new QAction(tr("Numeric gap…"), this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    connect(m_compareAction, &QAction::triggered, this, &GapDocks::chooseReference);
    connect(heatmapPage, &gapui::GapHeatmapPage::invalidThreshold, this, [this](const QString &text) {
        m_controller->notify(MessageKind::Error, tr("Numeric gap threshold: '%1' is not a number").arg(text));
    });
    connect(m_settings, &EvaluatorSettings::thresholdChanged, this, &GapDocks::showTables);
    connect(m_settings, &EvaluatorSettings::metricChanged, this, &GapDocks::showTables);
    connect(m_settings, &EvaluatorSettings::isolatedChanged, this, &GapDocks::showTables);
    connect(m_reference, &GapReference::finished, this, &GapDocks::onReferenceFinished);
    connect(m_reference, &GapReference::evaluationStarted, this, &GapDocks::showProgress);
    connect(controller, &SessionController::sessionChanged, this, &GapDocks::onSessionChanged);
    connect(controller, &SessionController::sessionChanged, this, &GapDocks::updateCaveats); // after it
    connect(m_heatmap, &gapui::GapHeatmapWidget::eventSelected, this, &GapDocks::showRow);
    connect(m_triage, &gapui::DelegateTriageView::eventSelected, this, &GapDocks::showRow);
    connect(m_trend, &gapui::GapTrendChart::eventSelected, this, &GapDocks::showRow);
}

QList<Panel::Dock> GapDocks::docks() const
{
    // Shown once there is something to compare.
    return { { m_heatmapDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        { m_triageDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        // Room of its own beside the heatmap it follows, not a tab behind Details.
        { m_tensorDock, Qt::BottomDockWidgetArea, Placement::OwnArea, true },
        { m_trendDock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> GapDocks::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_compareAction } : QList<QAction *> {};
}

QWidget *GapDocks::dialogParent() const
{
    return m_triage->window();
}

void GapDocks::showRow(int blockIndex, int eventIndex)
{
    m_selection->selectEvent(blockIndex, eventIndex);
    const analysis::GapTable *table = activeTable();
    if (!table)
        return;
    for (const analysis::GapRow &row : table->rows)
        if (row.blockIndex == blockIndex && row.eventIndex == eventIndex) {
            m_tensor->setRow(row);
            m_tensorBlock = blockIndex;
            m_tensorEvent = eventIndex;
            m_tensorDock->show();
            m_tensorDock->raise();
            return;
        }
}

const analysis::GapTable *GapDocks::activeTable() const
{
    const auto &tables = m_reference->tables();
    return tables && !tables->accumulated.empty() ? &tables->current(m_settings->isolated()).front() : nullptr;
}

QString GapDocks::caveatText() const
{
    // What makes the gap doubtful, for as long as the session has it.
    QStringList lines;
    if (m_session)
        for (const std::string &w : m_session->warningsOf(SessionWarningKind::SuspectDebugBuffer))
            lines << tr("Gap values come from a doubtful debug buffer: %1").arg(toQString(w));
    return lines.join(QLatin1Char('\n'));
}

void GapDocks::updateCaveats()
{
    const QString text = caveatText();
    for (gapui::CaveatFrame *frame : std::as_const(m_caveats))
        frame->setCaveat(text);
}

void GapDocks::emitGapChanged()
{
    updateCaveats();
    const analysis::GapTable *active = activeTable();
    Q_EMIT gapChanged(
        m_session, active ? std::shared_ptr<const analysis::GapTable>(m_reference->tables(), active) : nullptr);
}

void GapDocks::onSessionChanged(std::shared_ptr<const Session> session)
{
    cancelEvaluator();
    // A reload of the same run (unit change, companion added) keeps the reference: recompute
    // against it (files or the ETRecord graph) instead of closing the views.
    const bool sameRun = m_session && session && m_session->inputs.etdump == session->inputs.etdump
        && m_session->inputs.debugBuffer == session->inputs.debugBuffer;
    const bool had = m_reference->tables() != nullptr;
    // A different ETRecord that does not match the run would recompute the gap into blank rows:
    // keep the result shown unless the user says otherwise.
    if (sameRun && had && session->inputs.etrecord != m_session->inputs.etrecord) {
        const auto mismatch = session->warningsOf(SessionWarningKind::ETRecordMismatch);
        if (!mismatch.empty()
            && !m_controller->confirm(tr("Recompute the numeric gap?"),
                tr("%1\n\nRecompute the numeric gap with this ETRecord? No keeps the gap computed with %2.")
                    .arg(toQString(mismatch.front()),
                        m_session->inputs.etrecord.empty() ? tr("no ETRecord") : toQString(m_session->inputs.etrecord)),
                SessionController::DefaultAnswer::No)) {
            const QString keptWith = m_session->inputs.etrecord.empty()
                ? tr("no ETRecord")
                : m_controller->displayName(m_session->inputs.etrecord);
            m_session = std::move(session); // same ETDump and buffer: the rows still point at the same events
            m_controller->notify(MessageKind::Warning,
                tr("Numeric gap kept: computed with %1, not with the ETRecord now open.").arg(keptWith));
            return;
        }
    }
    // What the gap depends on besides the run itself: the ETRecord linked to it (op types, rows).
    const bool sameLink = sameRun && m_session->inputs.etrecord == session->inputs.etrecord;
    m_session = std::move(session);
    if (sameRun && sameLink && had && !m_reference->files().isEmpty()) {
        // A unit change: the tensors compared are the same, so is the gap; only the views follow.
        showTables();
        return;
    }
    // Recomputed once for the change, off the GUI thread; the views keep the last gap meanwhile.
    if (sameRun && m_reference->recompute(m_session)) {
        m_restoreTensor = m_tensorDock->isVisible();
        return;
    }
    m_reference->clear();
    m_tensorBlock = m_tensorEvent = -1;
    if (had)
        emitGapChanged();
    clearViews();
}

void GapDocks::clearViews()
{
    m_heatmap->setTables({});
    m_trend->setTables({}, {});
    for (QDockWidget *dock : { m_trendDock, m_heatmapDock, m_triageDock, m_tensorDock })
        dock->hide();
}

GapDocks::ReferenceOffer GapDocks::referenceOffer() const
{
    if (m_session && m_session->etrecord && m_session->debugBuffer)
        return m_session->etrecord->hasRepresentativeInputs() ? ReferenceOffer::ETRecordGraph
                                                              : ReferenceOffer::ETRecordNeedsInputs;
    return ReferenceOffer::Files;
}

void GapDocks::chooseReference()
{
    if (!m_session || !m_session->etdump) {
        m_controller->notify(MessageKind::Info, tr("Numeric gap: open an ETDump with its debug buffer first."));
        return;
    }
    if (!logsValues(m_session->blocks)) {
        // Nothing to compare: say so instead of asking for a reference that cannot help.
        m_controller->notify(MessageKind::Info,
            tr("Numeric gap: %1 holds no intermediate or output values — the run was profiled only. Record it "
               "again with ETDumpGen's debug buffer and intermediate outputs logged to compare it.")
                .arg(m_controller->displayName(m_session->inputs.etdump)));
        return;
    }
    const ReferenceOffer offer = referenceOffer();
    if (offer == ReferenceOffer::Files) {
        chooseFiles();
        return;
    }
    // The ETRecord graph, evaluated here, is the Inspector's reference; files stay available.
    const auto choice = askGapReference(dialogParent(), offer == ReferenceOffer::ETRecordGraph);
    if (!choice)
        return;
    if (choice->files) {
        chooseFiles();
        return;
    }
    connect(
        this, &GapDocks::evaluatorFinished, this,
        [this](bool ok, const QString &message) {
            if (!ok && !m_evaluatorCancelled)
                m_controller->notify(MessageKind::Error, tr("Numeric gap: %1").arg(message));
        },
        Qt::SingleShotConnection);
    m_settings->setInputs(choice->inputs); // the other evaluator panels run on them too
    compareWithEvaluator(choice->inputs);
}

void GapDocks::chooseFiles()
{
    const QStringList files
        = askOpenFileNames(dialogParent(), tr("Reference: ETDump + debug buffer (+ ETRecord), or an AOT outputs file"));
    if (files.isEmpty())
        return;
    QString error;
    if (!compareWith(files, &error))
        m_controller->notify(MessageKind::Warning, tr("Numeric gap: %1").arg(error));
}

void GapDocks::notifyWarnings(const QString &against)
{
    const QStringList warnings = m_reference->warnings();
    if (!warnings.isEmpty())
        m_controller->notify(MessageKind::Warning,
            tr("Numeric gap against %1: %n warning(s): ", nullptr, int(warnings.size())).arg(against)
                + warnings.join(QStringLiteral("; ")));
}

bool GapDocks::compareWith(const QStringList &referenceFiles, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (!m_session || !m_session->etdump)
        return fail(tr("no recording loaded"));
    if (m_reference->running())
        cancelEvaluator(); // a late evaluator result must not replace this one
    const QString problem = m_reference->compareWithFiles(*m_session, referenceFiles);
    if (!problem.isEmpty())
        return fail(problem);
    notifyWarnings(QFileInfo(referenceFiles.value(0)).fileName());
    showTables();
    Q_EMIT needsRoom(m_heatmapDock);
    return true;
}

void GapDocks::onReferenceFinished(bool ok, const QString &message, bool evaluator)
{
    closeProgress();
    if (!evaluator) { // a recompute against files for a reload
        if (!ok) {
            m_controller->notify(MessageKind::Warning, tr("Numeric gap: %1").arg(message));
            return;
        }
        notifyWarnings(QFileInfo(m_reference->files().value(0)).fileName());
    } else if (!ok) {
        Q_EMIT evaluatorFinished(false, message);
        return;
    } else {
        notifyWarnings(tr("the ETRecord graph"));
    }
    const int block = m_tensorBlock, event = m_tensorEvent;
    const bool restore = m_restoreTensor;
    m_restoreTensor = false;
    showTables();
    if (const analysis::GapTable *table = activeTable(); table && restore && block >= 0)
        for (const analysis::GapRow &row : table->rows)
            if (row.blockIndex == block && row.eventIndex == event) {
                m_tensor->setRow(row);
                m_tensorDock->show();
            }
    if (evaluator) {
        m_trendDock->raise();
        Q_EMIT needsRoom(m_trendDock);
        Q_EMIT evaluatorFinished(true, message);
    }
}

void GapDocks::showTables()
{
    const auto &all = m_reference->tables();
    if (!all || !m_session || all->accumulated.empty())
        return;
    m_reference->arrange(m_settings->metric(), m_settings->threshold());
    emitGapChanged();
    const bool isolated = m_settings->isolated();
    const auto &tables = all->current(isolated);
    std::vector<analysis::GapTable> shown;
    for (const analysis::GapTable &t : tables)
        if (shownInHeatmap(t.metric, m_settings->metric()))
            shown.push_back(t);
    m_heatmap->setTables(shown);
    m_heatmap->resize(m_heatmap->sizeHint());
    m_triage->setData(*m_session, tables.front());
    m_trend->setTables(all->accumulated.front(), all->isolated.empty() ? analysis::GapTable {} : all->isolated.front());
    m_trendPage->setIsolatedAvailable(!all->isolated.empty());
    m_heatmapDock->show();
    // Triage is about delegates: only shown when the run has delegated rows.
    const auto &rows = tables.front().rows;
    m_triageDock->setVisible(
        std::any_of(rows.begin(), rows.end(), [](const analysis::GapRow &r) { return r.delegated; }));
    m_trendDock->setVisible(!all->isolated.empty());
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

bool GapDocks::evaluatorRunning() const
{
    return m_reference->running();
}

void GapDocks::closeProgress()
{
    if (m_progress) {
        m_progress->deleteLater();
        m_progress = nullptr;
    }
}

void GapDocks::cancelEvaluator()
{
    if (m_reference->cancel())
        m_evaluatorCancelled = true;
    closeProgress();
}

void GapDocks::compareWithEvaluator(const eval::InputChoice &inputs, const QString &referenceGraph)
{
    cancelEvaluator();
    m_evaluatorCancelled = false;
    if (!m_session || !m_session->etrecord || !m_session->debugBuffer) {
        Q_EMIT evaluatorFinished(false, tr("open an ETDump with its debug buffer and ETRecord first"));
        return;
    }
    m_reference->compareWithEvaluator(m_session, inputs, referenceGraph);
}

void GapDocks::showProgress()
{
    closeProgress();
    m_progress = new QProgressDialog(
        tr("Evaluating the ETRecord graph (accumulated, then isolated)…"), tr("Cancel"), 0, 1000, dialogParent());
    m_progress->setWindowTitle(tr("Numeric gap"));
    m_progress->setMinimumDuration(300);
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    connect(m_progress, &QProgressDialog::canceled, this, [this] {
        // The job's result is dropped; the dialog goes at once.
        cancelEvaluator();
        Q_EMIT evaluatorFinished(false, tr("cancelled"));
    });
    connect(m_reference, &GapReference::progress, m_progress, &QProgressDialog::setValue);
}

} // namespace etscope
