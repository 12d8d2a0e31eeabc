#include "eventpanels.h"

#include "detailspanel.h"
#include "histogramwidget.h"
#include "modulerollupview.h"
#include "program/memoryplan.h"
#include "qtstrings.h"
#include "sessioncontroller.h"
#include "timelinewidget.h"
#include "topeventschart.h"

#include <QDockWidget>

namespace etscope {

EventDetailsDocks::EventDetailsDocks(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_details(new DetailsPanel)
    , m_histogram(new HistogramWidget)
    , m_detailsDock(makeDock(m_details, tr("Details"), QStringLiteral("DetailsDock")))
    , m_histogramDock(makeDock(m_histogram, tr("Latency histogram"), QStringLiteral("HistogramDock")))
{
    connect(controller, &SessionController::sessionChanged, this, [this](std::shared_ptr<const Session> session) {
        m_session = std::move(session);
        m_scoped.reset();
        m_block = m_event = -1;
        m_details->clear();
        m_histogram->clear();
    });
    // The event shown answers for the runs in scope: shown again when the scope changes.
    connect(controller, &SessionController::scopeChanged, this, [this](std::shared_ptr<const ScopedBlocks> scoped) {
        m_scoped = std::move(scoped);
        if (m_block >= 0)
            showEvent(m_block, m_event);
    });
    connect(selection, &EventSelection::currentEventChanged, this, &EventDetailsDocks::showEvent);
    // A bar's values are the runs in scope of the event's block: the timeline shows them as runs
    // of that block.
    connect(m_histogram, &HistogramWidget::runsSelected, this, [this](const QList<int> &values, const QString &what) {
        QList<int> runs;
        for (int v : values)
            runs << (v < m_valueRuns.size() ? m_valueRuns[v] : v);
        Q_EMIT runsSelected(runs, what);
    });
    connect(m_details, &DetailsPanel::frameUnavailable, this,
        [this](const QString &m) { m_controller->notify(MessageKind::Status, m, 8000); });
}

QList<Panel::Dock> EventDetailsDocks::docks() const
{
    return { { m_detailsDock, Qt::RightDockWidgetArea, Placement::Anchor, false, true },
        { m_histogramDock, Qt::RightDockWidgetArea, Placement::BelowAnchor, false, true } };
}

QList<Panel::Chart> EventDetailsDocks::charts() const
{
    return { { QStringLiteral("histogram"), tr("Latency histogram…"), m_histogram->chartView(),
        [this] { return m_histogram->totalCount() > 0 ? QString() : tr("select an event with timing data first"); } } };
}

void EventDetailsDocks::showEvent(int block, int event)
{
    m_block = block;
    m_event = event;
    m_valueRuns.clear();
    const Session *s = m_session.get();
    if (!s || block < 0 || std::size_t(block) >= s->blocks.size()) {
        m_details->clear();
        m_histogram->clear();
        return;
    }
    if (event < 0 || std::size_t(event) >= s->blocks[std::size_t(block)].events.size()) {
        // A block row: its summary (runs, allocation events per allocator).
        m_details->setBlock(m_session, block);
        m_histogram->clear();
        return;
    }
    m_details->setEvent(m_session, block, event, m_scoped.get());
    if (const auto instruction = s->instructionOfEvent(block, event)) {
        QList<QPair<QString, QString>> rows;
        for (const auto &[label, value] : instructionDetails(*s->method, *instruction))
            rows.append({ toQString(label), toQString(value) });
        m_details->addSection(tr("Program (etscope, from the .pte)"), rows);
    }
    // The event's runs in scope (its block's scoped copy), else every run of its block.
    const Event *e = &s->blocks[std::size_t(block)].events[std::size_t(event)];
    QString name = toQString(e->name);
    if (m_scoped && !m_scoped->whole) {
        const auto &src = m_scoped->sourceBlock;
        if (const auto it = std::find(src.begin(), src.end(), std::size_t(block)); it != src.end()) {
            const auto i = std::size_t(it - src.begin());
            e = &m_scoped->blocks[i].events[std::size_t(event)];
            for (std::size_t run : m_scoped->runs[i])
                m_valueRuns << int(s->runTable.runs[run].runInBlock);
            name += QStringLiteral(" · ") + toQString(m_scoped->label);
        } else {
            name += tr(" · outside the scope");
        }
    }
    const QString unit = toQString(timeScaleName(s->inputs.time.target));
    if (e->perfData)
        m_histogram->setValues(name, e->perfData->raw, e->perfData->p10, e->perfData->p50, e->perfData->p90, unit);
    else
        m_histogram->setValues(name, {}, 0, 0, 0, unit);
}

TimelineDock::TimelineDock(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_timeline(new TimelineWidget)
    , m_dock(makeDock(m_timeline, tr("Timeline"), QStringLiteral("TimelineDock")))
{
    connect(controller, &SessionController::sessionChanged, m_timeline, &TimelineWidget::setSession);
    connect(controller, &SessionController::scopeChanged, this, [this](std::shared_ptr<const ScopedBlocks> scoped) {
        if (scoped)
            m_timeline->showScope(*scoped);
    });
    connect(selection, &EventSelection::currentEventChanged, this, [this](int block, int event) {
        if (event < 0)
            return;
        m_timeline->showRuns({}, {});
        m_timeline->highlightEvent(block, event);
    });
    connect(m_timeline, &TimelineWidget::eventClicked, selection, &EventSelection::selectEvent);
}

QList<Panel::Dock> TimelineDock::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Anchor, false, true } };
}

QList<Panel::Chart> TimelineDock::charts() const
{
    return { { QStringLiteral("timeline"), tr("Timeline…"), m_timeline->canvas(),
        [this] { return m_timeline->currentBlock() >= 0 ? QString() : tr("open an ETDump first"); } } };
}

void TimelineDock::showRuns(const QList<int> &runs, const QString &what)
{
    m_timeline->showRuns(runs, what);
    m_dock->show();
    m_dock->raise();
}

TopEventsDock::TopEventsDock(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_chart(new TopEventsChart)
    , m_dock(makeDock(m_chart, tr("Top events"), QStringLiteral("TopEventsDock")))
{
    // Every session change is followed by its scope: the chart answers for the runs in scope.
    connect(controller, &SessionController::scopeChanged, this,
        [this](std::shared_ptr<const ScopedBlocks> scoped) { m_chart->setScoped(m_controller->session(), scoped); });
    connect(m_chart, &TopEventsChart::eventClicked, selection, &EventSelection::selectEvent);
}

QList<Panel::Dock> TopEventsDock::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, false, true } };
}

QList<Panel::Chart> TopEventsDock::charts() const
{
    return { { QStringLiteral("top-events"), tr("Top events…"), m_chart->chartView(), [this] {
                  return m_chart->barCount() > 0 ? QString()
                      : m_controller->session() && m_controller->session()->etdump
                      ? tr("no timed event in this recording")
                      : tr("open an ETDump first");
              } } };
}

ModulesDock::ModulesDock(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_view(new ModuleRollupView)
    , m_dock(makeDock(m_view, tr("Modules"), QStringLiteral("ModulesDock")))
{
    connect(controller, &SessionController::scopeChanged, this, [this](std::shared_ptr<const ScopedBlocks> scoped) {
        m_view->setSession(m_controller->session(), scoped.get());
    });
    connect(m_view, &ModuleRollupView::moduleActivated, this, &ModulesDock::moduleActivated);
}

QList<Panel::Dock> ModulesDock::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, false, true } };
}

} // namespace etscope
