#include "gapdocks.h"
#include "filedialogs.h"
#include "qtstrings.h"

#include "analysis/numericgap.h"
#include "delegatetriageview.h"
#include "evaluatorsettings.h"
#include "gapreference.h"
#include "gapreferencedialog.h"
#include "gapviews.h"
#include "sessioncontroller.h"

#include "etrecord/etrecord.h"
#include "events/blockstats.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QProgressDialog>

namespace etscope {

GapDocks::GapDocks(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_settings(controller->evaluatorSettings())
    , m_reference(new GapReference(this))
    , m_views(new GapViews(m_settings, this))
{
    m_compareAction = new QAction(tr("Numeric gap…"), this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    connect(m_compareAction, &QAction::triggered, this, &GapDocks::chooseReference);
    connect(m_views, &GapViews::invalidThreshold, this, [this](const QString &text) {
        m_controller->notify(MessageKind::Error, tr("Numeric gap threshold: '%1' is not a number").arg(text));
    });
    connect(m_settings, &EvaluatorSettings::thresholdChanged, this, &GapDocks::showTables);
    connect(m_settings, &EvaluatorSettings::metricChanged, this, &GapDocks::showTables);
    connect(m_settings, &EvaluatorSettings::isolatedChanged, this, &GapDocks::showTables);
    connect(m_reference, &GapReference::finished, this, &GapDocks::onReferenceFinished);
    connect(m_reference, &GapReference::evaluationStarted, this, &GapDocks::showProgress);
    connect(controller, &SessionController::sessionChanged, this, &GapDocks::onSessionChanged);
    connect(controller, &SessionController::sessionChanged, this, &GapDocks::updateCaveats); // after it
    connect(m_views, &GapViews::eventSelected, this, &GapDocks::showRow);
}

QList<Panel::Dock> GapDocks::docks() const
{
    return m_views->docks();
}

QList<QAction *> GapDocks::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_compareAction } : QList<QAction *> {};
}

QWidget *GapDocks::dialogParent() const
{
    return m_views->triage()->window();
}

void GapDocks::showRow(int blockIndex, int eventIndex)
{
    m_selection->selectEvent(blockIndex, eventIndex);
    m_views->showTensorRow(activeTable(), blockIndex, eventIndex, true);
}

const analysis::GapTable *GapDocks::activeTable() const
{
    const auto &tables = m_reference->tables();
    return tables && !tables->accumulated.empty() ? &tables->current(m_settings->isolated()).front() : nullptr;
}

void GapDocks::updateCaveats()
{
    m_views->setCaveat(caveatText());
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
        m_restoreTensor = m_views->tensorShown();
        return;
    }
    m_reference->clear();
    if (had)
        emitGapChanged();
    m_views->clear();
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
    Q_EMIT needsRoom(m_views->heatmapDock());
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
    const auto [block, event] = m_views->tensorRow();
    const bool restore = m_restoreTensor;
    m_restoreTensor = false;
    showTables();
    if (restore && block >= 0)
        m_views->showTensorRow(activeTable(), block, event, false);
    if (evaluator) {
        m_views->trendDock()->raise();
        Q_EMIT needsRoom(m_views->trendDock());
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
    m_views->show(*m_session, all->current(m_settings->isolated()), all->accumulated, all->isolated);
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
    m_progress = evaluationProgressDialog(dialogParent());
    connect(m_progress, &QProgressDialog::canceled, this, [this] {
        // The job's result is dropped; the dialog goes at once.
        cancelEvaluator();
        Q_EMIT evaluatorFinished(false, tr("cancelled"));
    });
    connect(m_reference, &GapReference::progress, m_progress, &QProgressDialog::setValue);
}

} // namespace etscope
