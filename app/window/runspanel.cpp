#include "runspanel.h"

#include "analysis/coverage.h"
#include "backgroundjob.h"
#include "events/blockstats.h"
#include "modelroles.h"
#include "numberformat.h"
#include "qtstrings.h"
#include "runschart.h"
#include "runsmodel.h"
#include "sessioncontroller.h"
#include "treeviewutil.h"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace etscope {

namespace {
constexpr std::size_t kTopShares = 20;

struct RunsOutcome {
    std::shared_ptr<const RunsReport> report;
    CoverageReport coverage; // of every run: the shares below describe the explained part only
    QString error;
};

QString percent(double share)
{
    return formatSignificant(share * 100, 3) + QLatin1Char('%');
}
} // namespace

RunsPanel::RunsPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_chart(new RunsChart)
    , m_figures(new QLabel)
    , m_shares(new QTreeWidget)
    , m_runsModel(new RunsTableModel(this))
    , m_runsTable(new QTableView)
    , m_byBackendOp(new QCheckBox(tr("By backend operator (etscope)")))
    , m_action(new QAction(tr("Runs over Time"), this))
    , m_job(new BackgroundJob(this))
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    m_figures->setWordWrap(true);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_figures);
    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_chart);
    m_shares->setRootIsDecorated(true);
    m_shares->setHeaderLabels({ tr("phase / operator"), tr("total (ms)"), tr("share"), tr("calls"), tr("delegated") });
    m_shares->setToolTip(tr("Each kernel's own time: wrappers (OPERATOR_CALL, DELEGATE_CALL, host phases around "
                            "a backend's other events) are not counted twice"));
    m_byBackendOp->setToolTip(tr("etscope's own: name delegate rows by the operator decoded from the backend's "
                                 "events (Vulkan dispatch, XNNPACK operator, Neutron kernel), every instance in one "
                                 "row, host phases as \"phase: …\"; off: by the events' names"));
    auto *sharesPane = new QWidget;
    auto *sharesLayout = new QVBoxLayout(sharesPane);
    sharesLayout->setContentsMargins(0, 0, 0, 0);
    sharesLayout->addWidget(m_byBackendOp);
    sharesLayout->addWidget(m_shares, 1);
    // Every run as a row: sortable by duration to find the slow ones, a click selects the run.
    auto *proxy = new QSortFilterProxyModel(this);
    TreeViewUtil::setupRowTable(m_runsTable, proxy, m_runsModel);
    m_runsTable->sortByColumn(RunsTableModel::RunColumn, Qt::AscendingOrder);
    auto *tabs = new QTabWidget;
    tabs->addTab(sharesPane, tr("Shares"));
    tabs->addTab(m_runsTable, tr("Runs"));
    split->addWidget(tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    m_dock = makeDock(page, tr("Runs"), QStringLiteral("RunsDock"));
    m_action->setToolTip(tr("Every run over time: prefill and decode, tokens/s, latency against position"));
    connect(m_action, &QAction::triggered, this, [this] {
        m_dock->show();
        m_dock->raise();
        Q_EMIT needsRoom(m_dock);
    });
    connect(m_chart, &RunsChart::runClicked, this, &RunsPanel::selectRun);
    connect(m_runsTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this, proxy](const QModelIndex &current) {
            if (current.isValid() && !m_selectingRun)
                selectRun(proxy->mapToSource(current).row());
        });
    connect(m_byBackendOp, &QCheckBox::toggled, this, [this] {
        if (m_report) // else the session has no runs to show (or is being analysed)
            analyze();
    });
    connect(controller, &SessionController::sessionChanged, this, &RunsPanel::onSessionChanged);
    onSessionChanged(nullptr);
}

QList<Panel::Dock> RunsPanel::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> RunsPanel::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_action } : QList<QAction *> {};
}

QList<Panel::Chart> RunsPanel::charts() const
{
    return { { QStringLiteral("runs"), tr("Runs over time…"), m_chart,
        [this] { return m_report ? QString() : tr("needs a recording of more than one run"); } } };
}

QString RunsPanel::figuresText() const
{
    return m_figures->text();
}

void RunsPanel::onSessionChanged(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    m_job->cancel();
    if (!m_session || !m_session->etdump || countRecording(m_session->blocks).runs < 2) {
        m_report.reset();
        m_chart->setReport(nullptr);
        m_runsModel->setReport(nullptr);
        m_shares->clear();
        m_figures->setText(tr("A recording with more than one run shows its runs over time here."));
        return;
    }
    analyze();
}

void RunsPanel::analyze()
{
    m_job->cancel();
    const ShareRowsBy by = m_byBackendOp->isChecked() ? ShareRowsBy::BackendOperator : ShareRowsBy::Operator;
    m_job->start(
        [loaded = m_session, by](BackgroundJob::Control &) {
            RunsOptions opts;
            opts.time = loaded->inputs.time;
            opts.sharesBy = by;
            RunsOutcome out;
            auto r = analyzeRuns(loaded->blocks, loaded->program.get(), opts, loaded->inputs.etdump);
            if (r) {
                out.report = std::make_shared<const RunsReport>(std::move(*r));
                out.coverage = analyzeCoverage(loaded->blocks, loaded->inputs.time);
            } else
                out.error = toQString(r.error().message());
            return out;
        },
        [this](RunsOutcome outcome) {
            if (!outcome.report) {
                m_figures->setText(outcome.error);
                return;
            }
            m_coverage.clear();
            for (const std::string &line : coverageSentences(outcome.coverage))
                m_coverage << toQString(line).toHtmlEscaped();
            if (outcome.coverage.low() && !m_coverage.isEmpty()) // the warning line ends the list
                m_coverage.back() = QStringLiteral("<span style=\"color:#9a6700\">%1</span>").arg(m_coverage.back());
            show(outcome.report);
        });
}

void RunsPanel::show(std::shared_ptr<const RunsReport> report)
{
    m_report = std::move(report);
    const RunsReport &r = *m_report;
    m_chart->setReport(m_report);
    m_runsModel->setReport(m_report);
    m_runsTable->resizeColumnsToContents();
    QStringList lines;
    lines << tr("<b>%1 runs</b>, phases by %2").arg(r.runs.size()).arg(QString::fromLatin1(phaseRuleName(r.rule)));
    if (r.timeToFirstTokenMs)
        lines.back() += tr("; time to first token <b>%1 ms</b>").arg(formatSignificant(*r.timeToFirstTokenMs));
    for (const PhaseFigures &p : r.phases) {
        QString line = tr("<b>%1</b>: %2 runs").arg(toQString(p.name)).arg(p.runs);
        if (p.warmupRuns || p.outlierRuns)
            line += tr(" (%1 warm-up, %2 outliers)").arg(p.warmupRuns).arg(p.outlierRuns);
        line += tr(", median %1 ms").arg(formatSignificant(p.medianMs));
        if (p.tokensPerSP50)
            line += tr(", %1 tokens/s (p50), %2 (p90)")
                        .arg(formatSignificant(*p.tokensPerSP50, 4), formatSignificant(p.tokensPerSP90.value_or(0), 4));
        else if (p.tokensPerS)
            line += tr(", %1 tokens/s").arg(formatSignificant(*p.tokensPerS, 4));
        if (p.slopeMsPerPosition)
            line += tr(", %1 ms per position (robust fit)").arg(formatSignificant(*p.slopeMsPerPosition, 3));
        if (p.driftPct)
            line += tr(", drift %1%").arg(formatSignificant(*p.driftPct, 3));
        lines << line;
    }
    for (const std::string &note : r.notes)
        lines << toQString(note).toHtmlEscaped();
    lines << m_coverage;
    m_figures->setText(lines.join(QStringLiteral("<br>")));

    m_shares->clear();
    m_shares->headerItem()->setText(
        0, r.sharesBy == ShareRowsBy::BackendOperator ? tr("phase / backend operator") : tr("phase / operator"));
    for (const PhaseFigures &p : r.phases) {
        auto *phase = new QTreeWidgetItem(
            m_shares, { toQString(p.name), formatSignificant(p.countedMs), {}, {}, percent(p.delegatedShare) });
        for (std::size_t i = 0; i < p.shares.size() && i < kTopShares; ++i) {
            const ShareRow &s = p.shares[i];
            new QTreeWidgetItem(phase,
                { toQString(s.name), formatSignificant(s.totalMs), percent(s.share), QString::number(s.calls),
                    percent(s.delegatedShare) });
        }
        if (p.shares.size() > kTopShares)
            new QTreeWidgetItem(phase, { tr("… %1 more").arg(p.shares.size() - kTopShares) });
        phase->setExpanded(true);
    }
    for (int c = 0; c < m_shares->columnCount(); ++c)
        m_shares->resizeColumnToContents(c);
    m_dock->show(); // a tab beside the timeline; raised from Analysis ▸ Runs over Time
    Q_EMIT reportReady();
}

void RunsPanel::selectRun(int run)
{
    if (!m_report || !m_session || run < 0 || std::size_t(run) >= m_report->runs.size())
        return;
    const RunRow &r = m_report->runs[std::size_t(run)];
    if (r.block >= m_session->blocks.size())
        return;
    // The table follows (a click on the chart), without selecting the run a second time.
    m_selectingRun = true;
    auto *proxy = static_cast<QSortFilterProxyModel *>(m_runsTable->model());
    const QModelIndex row = proxy->mapFromSource(m_runsModel->index(run, 0));
    m_runsTable->setCurrentIndex(row);
    m_runsTable->scrollTo(row);
    m_selectingRun = false;
    const auto &events = m_session->blocks[r.block].events;
    for (std::size_t e = 0; e < events.size(); ++e)
        if (events[e].name == "Method::execute") {
            m_selection->selectEvent(int(r.block), int(e));
            break;
        }
    Q_EMIT runsSelected(
        { int(r.runInBlock) }, tr("run %1 of %2 (%3)").arg(run + 1).arg(m_report->runs.size()).arg(toQString(r.phase)));
}

} // namespace etscope
