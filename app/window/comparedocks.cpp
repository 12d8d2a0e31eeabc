#include "comparedocks.h"
#include "filedialogs.h"

#include "analysis/scopediff.h"
#include "backgroundjob.h"
#include "compareview.h"
#include "filesniffer.h"
#include "qtstrings.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFileDialog>

namespace etscope {

struct CompareDocks::Outcome {
    std::shared_ptr<const Session> a, b;
    std::shared_ptr<const LatencyDiff> diff;
    std::vector<ScopeDiffPart> parts; // per method and phase
    std::vector<std::string> notes;
    QString error;
};

CompareDocks::CompareDocks(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_job(new BackgroundJob(this))
{
    m_view = new CompareView;
    m_dock = makeDock(m_view, tr("Compare A/B"), QStringLiteral("CompareDock"));

    m_compareAction = new QAction(tr("Compare &with…"), this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_compareAction->setStatusTip(tr("Compare the latency of the open recording (A) with another one (B)"));
    connect(m_compareAction, &QAction::triggered, this, &CompareDocks::chooseFiles);

    connect(controller, &SessionController::compareRequested, this, &CompareDocks::compareWith);
    connect(controller, &SessionController::sessionChanged, this, &CompareDocks::onSessionChanged);
    // A comparison shown answers for the scope: compared again within the new one.
    connect(controller, &SessionController::scopeChanged, this, [this] {
        if (m_busy || !m_view->sessionA() || m_view->sessionA() != m_controller->session() || !m_view->sessionB())
            return;
        LoadOutcome b;
        b.session = m_view->sessionB();
        const Outcome o = compute(m_view->sessionA(), b, m_controller->scope());
        if (!o.error.isEmpty()) // no rows of the old scope under the new scope's title
            m_view->setComparison(m_view->sessionA(), m_view->sessionB(), nullptr);
        show(o);
    });
    connect(controller, &SessionController::loadFinished, this, [this](bool ok) {
        if (!ok && m_loadedB)
            tryDiff(); // A failed: report instead of waiting forever
    });
    connect(m_view, &CompareView::actionFailed, this, &CompareDocks::reportActionFailed);
    connect(m_view, &CompareView::rowSelected, this, [this](int, int blockA, int eventA, int, int) {
        if (blockA >= 0 && m_controller->session() == m_view->sessionA())
            m_selection->selectEvent(blockA, eventA);
    });
}

QList<Panel::Dock> CompareDocks::docks() const
{
    // Shown once there is a comparison.
    // A tab of the bottom area (its full width); the window makes room when a comparison shows.
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true, true } };
}

QList<QAction *> CompareDocks::menuActions(Menu menu) const
{
    return menu == Menu::File ? QList<QAction *> { m_compareAction } : QList<QAction *> {};
}

void CompareDocks::chooseFiles()
{
    if (!(m_controller->session() && m_controller->session()->etdump) && !m_controller->isLoading()) {
        m_controller->notify(
            MessageKind::Info, tr("Compare: open recording A first (File ▸ Open), then compare it with B."));
        return;
    }
    const QStringList files
        = askOpenFileNames(m_view->window(), tr("Recording B: ETDump (+ ETRecord, debug buffer, program)"),
            tr("ExecuTorch artifacts (*.etdp *.etdump *.bin *.pte *.ptd *.zip *.etrecord);;All files (*)"));
    if (!files.isEmpty())
        compareWith(files);
}

bool CompareDocks::composeB(const QStringList &bFiles, SessionInputs *inputs, QString *error) const
{
    const ClassifiedFiles files = classifyFiles(bFiles);
    if (!files.errors.isEmpty()) {
        *error = files.errors.front();
        return false;
    }
    if (files.etdump.isEmpty()) {
        *error = tr("%1: no ETDump among the files for B").arg(bFiles.join(QStringLiteral(", ")));
        return false;
    }
    inputs->etdump = toStdString(files.etdump);
    inputs->debugBuffer = toStdString(files.debugBuffer);
    inputs->etrecord = toStdString(files.etrecord);
    // The program tells each run's method (and so its phase): B's own, else A's when B's events
    // fit it — left out with the reason when they do not, B still loading.
    const auto &a = m_controller->session();
    if (!files.program.isEmpty()) {
        inputs->program = toStdString(files.program);
        for (const QString &d : files.programData)
            inputs->programData.push_back(toStdString(d));
    } else if (a && a->program) {
        inputs->program = a->inputs.program;
        inputs->programData = a->inputs.programData;
        inputs->dropUnpairable = true;
    }
    // Same units as A so that durations compare.
    if (m_controller->session())
        inputs->time = m_controller->session()->inputs.time;
    else
        inputs->time = m_controller->timeConversion();
    return true;
}

CompareDocks::Outcome CompareDocks::compute(std::shared_ptr<const Session> a, const LoadOutcome &b, const Scope &scope)
{
    Outcome o;
    if (!b.session) {
        o.error = b.cancelled ? tr("cancelled") : b.error;
        return o;
    }
    o.a = std::move(a);
    o.b = b.session;
    // Rows pair within each method and phase (the scope's, or every one A and B hold).
    auto d = diffLatencyByScope(*o.a, *o.b, scope);
    if (!d) {
        o.error = toQString(d.error().message());
        return o;
    }
    o.diff = std::make_shared<const LatencyDiff>(std::move(d->diff));
    o.parts = std::move(d->parts);
    o.notes = std::move(d->notes);
    return o;
}

void CompareDocks::compareWith(const QStringList &bFiles)
{
    m_clock.start();
    if (!(m_controller->session() && m_controller->session()->etdump) && !m_controller->isLoading()) {
        Q_EMIT comparisonReady(false, tr("open recording A first"));
        return;
    }
    SessionInputs b;
    QString error;
    if (!composeB(bFiles, &b, &error)) {
        m_controller->notify(MessageKind::Error, tr("Compare: %1").arg(error)); // the one error place
        Q_EMIT comparisonReady(false, error);
        return;
    }
    // B loads now, in parallel with A when A is still loading; the diff waits for both.
    m_busy = true;
    m_loadedB.reset();
    m_job->start([b](BackgroundJob::Control &) { return LoadOutcome::load(b); },
        [this](LoadOutcome loaded) {
            m_loadedB = std::make_shared<LoadOutcome>(std::move(loaded));
            tryDiff();
        });
}

void CompareDocks::tryDiff()
{
    if (!m_loadedB || m_controller->isLoading())
        return;
    if (!m_controller->session()) {
        m_busy = false;
        m_loadedB.reset();
        Q_EMIT comparisonReady(false, tr("recording A did not load"));
        return;
    }
    const auto b = std::move(m_loadedB);
    m_loadedB.reset();
    m_job->start([a = m_controller->session(), b, scope = m_controller->scope()](
                     BackgroundJob::Control &) { return compute(a, *b, scope); },
        [this](Outcome outcome) {
            m_busy = false;
            show(outcome);
        });
}

bool CompareDocks::compareWithSync(const QStringList &bFiles, QString *error)
{
    m_clock.start();
    m_job->cancel(); // drops a background compare in flight
    QString err;
    SessionInputs b;
    if (!m_controller->session())
        err = tr("open recording A first");
    else if (composeB(bFiles, &b, &err)) {
        const Outcome o = compute(m_controller->session(), LoadOutcome::load(b), m_controller->scope());
        show(o);
        err = o.error;
    }
    if (error)
        *error = err;
    return err.isEmpty();
}

void CompareDocks::show(const Outcome &o)
{
    if (!o.error.isEmpty()) {
        if (!QCoreApplication::closingDown())
            m_controller->notify(MessageKind::Error, tr("Compare: %1").arg(o.error));
        Q_EMIT comparisonReady(false, o.error);
        return;
    }
    m_view->setScopeParts(o.parts, o.notes);
    m_view->setComparison(o.a, o.b, o.diff);
    m_dock->show();
    m_dock->raise();
    Q_EMIT needsRoom(m_dock);
    m_lastMs = m_clock.elapsed();
    Q_EMIT comparisonReady(true, {});
}

void CompareDocks::onSessionChanged(std::shared_ptr<const Session> session)
{
    if (m_loadedB) { // B finished first: A just arrived
        tryDiff();
        return;
    }
    if (m_busy)
        return;
    // A different A invalidates the comparison.
    if (m_view->sessionA() && m_view->sessionA() != session) {
        m_view->setComparison(nullptr, nullptr, nullptr);
        m_dock->hide();
    }
}

} // namespace etscope
