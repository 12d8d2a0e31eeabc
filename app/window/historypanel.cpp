#include "historypanel.h"

#include "backgroundjob.h"
#include "historychart.h"
#include "historydialog.h"
#include "historypage.h"
#include "qtstrings.h"
#include "sessioncontroller.h"

#include "export/recordings.h"

#include <QAction>
#include <QChartView>
#include <QDockWidget>

namespace etscope {

HistoryPanel::HistoryPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_page(new HistoryPage)
    , m_action(new QAction(tr("&History…"), this))
    , m_job(new BackgroundJob(this))
{
    m_dock = makeDock(m_page, tr("History"), QStringLiteral("HistoryDock"));
    m_action->setStatusTip(tr("Many recordings over time: when did which operator get slower (change points)"));
    connect(m_action, &QAction::triggered, this, &HistoryPanel::ask);
    // Opening goes through the session like every other open; a change opens the recording
    // before it as A and compares it with the one after (B), as File ▸ Compare with… does.
    connect(
        m_page, &HistoryPage::openRequested, this, [this](const QString &file) { m_controller->openFiles({ file }); });
    // The series are in the window's unit: another unit reads the recordings again.
    connect(controller, &SessionController::timeConversionChanged, this, [this] {
        if (!m_lastRecordings.isEmpty())
            analyze(m_lastRecordings, m_lastLabels);
    });
    connect(m_page, &HistoryPage::compareRequested, this, [this](const QString &before, const QString &after) {
        m_controller->openFiles({ before });
        m_controller->requestCompare({ after });
    });
}

QList<Panel::Dock> HistoryPanel::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> HistoryPanel::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_action } : QList<QAction *> {};
}

QList<Panel::Chart> HistoryPanel::charts() const
{
    return { { QStringLiteral("history"), tr("History trend…"), m_page->chart()->chartView(), [this] {
                  return m_page->selectedRow() >= 0 ? QString() : tr("analyse a history first (Analysis ▸ History…)");
              } } };
}

void HistoryPanel::ask()
{
    HistoryDialog dialog(m_dock->window());
    dialog.setRecordings(m_lastRecordings);
    dialog.setLabels(m_lastLabels);
    if (dialog.exec() != QDialog::Accepted || dialog.recordings().isEmpty())
        return;
    analyze(dialog.recordings(), dialog.labels());
}

HistoryPanel::Outcome HistoryPanel::compute(
    const QStringList &recordings, const QString &labelsCsv, const TimeConversion &time)
{
    Outcome o;
    HistoryInputs in;
    for (const QString &r : recordings)
        in.recordings.push_back(toStdString(r));
    in.labelsCsv = toStdString(labelsCsv);
    in.time = time;
    // The operators, Method::execute and the total, from the same recordings and labels.
    for (HistoryBy by : { HistoryBy::Operator, HistoryBy::Method, HistoryBy::Total }) {
        in.by = by;
        auto h = loadHistory(in);
        if (!h) {
            o.error = toQString(h.error().message());
            o.histories.clear();
            return o;
        }
        if (!h->series.empty())
            o.histories.push_back(std::make_shared<const History>(std::move(*h)));
    }
    if (o.histories.empty())
        o.error = tr("%1: no recording has timed events").arg(recordings.join(QStringLiteral(", ")));
    return o;
}

void HistoryPanel::analyze(const QStringList &recordings, const QString &labelsCsv)
{
    m_lastRecordings = recordings;
    m_lastLabels = labelsCsv;
    m_page->setMessage(tr("Reading %1…").arg(recordings.join(QStringLiteral(", "))));
    m_dock->show();
    m_dock->raise();
    m_job->start([recordings, labelsCsv, time = m_controller->timeConversion()](
                     BackgroundJob::Control &) { return compute(recordings, labelsCsv, time); },
        [this](Outcome o) { show(o); });
}

bool HistoryPanel::analyzeSync(const QStringList &recordings, const QString &labelsCsv, QString *error)
{
    m_job->cancel();
    m_lastRecordings = recordings;
    m_lastLabels = labelsCsv;
    const Outcome o = compute(recordings, labelsCsv, m_controller->timeConversion());
    show(o);
    if (error)
        *error = o.error;
    return o.error.isEmpty();
}

void HistoryPanel::show(const Outcome &o)
{
    if (!o.error.isEmpty()) {
        m_page->setMessage(tr("History: %1").arg(o.error));
        m_controller->notify(MessageKind::Error, tr("History: %1").arg(o.error));
        Q_EMIT historyReady(false, o.error);
        return;
    }
    m_page->setHistories(o.histories);
    m_dock->show();
    m_dock->raise();
    Q_EMIT needsRoom(m_dock);
    Q_EMIT historyReady(true, {});
}

} // namespace etscope
