#include "decompositionpanel.h"

#include "analysis/noise.h"
#include "backgroundjob.h"
#include "decompositionchart.h"
#include "decompositionmodel.h"
#include "evaluatorcontrols.h"
#include "evaluatorsettings.h"
#include "gapreferencedialog.h"
#include "modelroles.h"
#include "qtstrings.h"
#include "sessioncontroller.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace etscope {

namespace {

struct DecompositionOutcome {
    std::shared_ptr<const evalgap::Decomposition> result;
    QString error;
};
} // namespace

DecompositionPanel::DecompositionPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_metric(new gapui::MetricBox(controller->evaluatorSettings()))
    , m_run(new QPushButton(tr("Decompose")))
    , m_inputs(new EvaluatorInputsButton(controller->evaluatorSettings()))
    , m_summary(new QLabel)
    , m_warnings(new QLabel)
    , m_chart(new gapui::DecompositionChart)
    , m_model(new DecompositionModel(this))
    , m_table(new QTableView)
    , m_action(new QAction(tr("Quantization or Kernel? (Error Decomposition)…"), this))
    , m_job(new BackgroundJob(this))
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Metric:")));
    bar->addWidget(m_metric);
    bar->addStretch(1);
    bar->addWidget(m_inputs);
    bar->addWidget(m_run);
    layout->addLayout(bar);
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->setVisible(false);
    layout->addWidget(m_warnings);

    auto *scroll = new QScrollArea;
    scroll->setWidget(m_chart);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(SortRole);
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(DecompositionModel::OpColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(scroll);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    m_dock = makeDock(page, tr("Quantization or kernel"), QStringLiteral("DecompositionDock"));

    m_run->setToolTip(tr("Run the ETRecord's graph twice (fake-quantized and its float twin) and split each op's "
                         "error into quantization and kernel"));
    m_action->setToolTip(tr("Where a quantized model's accuracy goes, per op: quantization or the kernels"));

    connect(m_action, &QAction::triggered, this, [this] {
        m_dock->show();
        m_dock->raise();
        Q_EMIT needsRoom(m_dock);
        if (!m_session || !m_session->etrecord || !m_session->debugBuffer)
            m_controller->notify(MessageKind::Info,
                tr("Quantization or kernel: open the recording with its debug buffer and its ETRecord."));
        else if (!m_result && !isRunning())
            decompose();
    });
    connect(m_run, &QPushButton::clicked, this, [this] { decompose(); });
    connect(m_chart, &gapui::DecompositionChart::opClicked, this,
        [this, proxy](int row) { m_table->selectRow(proxy->mapFromSource(m_model->index(row, 0)).row()); });
    connect(m_chart, &gapui::DecompositionChart::eventSelected, m_selection, &EventSelection::selectEvent);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this, scroll](const QModelIndex &current) {
            if (!current.isValid())
                return;
            const int block = current.data(BlockIndexRole).toInt(), event = current.data(EventIndexRole).toInt();
            const int row = m_table->model()->index(current.row(), 0).data(SortRole).toInt();
            scroll->ensureVisible(0,
                gapui::DecompositionChart::kHeaderHeight + row * gapui::DecompositionChart::kRowHeight
                    + gapui::DecompositionChart::kRowHeight / 2);
            if (block >= 0 && event >= 0)
                m_selection->selectEvent(block, event);
        });
    connect(m_job, &BackgroundJob::progress, this, [this](int permille, const QString &) {
        m_summary->setText(tr("Running the fake-quantized graph and its float twin… %1 %").arg(permille / 10));
    });
    connect(controller, &SessionController::sessionChanged, this, &DecompositionPanel::onSessionChanged);
    onSessionChanged(nullptr);
}

QList<Panel::Dock> DecompositionPanel::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> DecompositionPanel::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_action } : QList<QAction *> {};
}

QList<Panel::Chart> DecompositionPanel::charts() const
{
    return { { QStringLiteral("decomposition"), tr("Quantization or kernel (stacked bars)…"), m_chart,
        [this] { return m_result ? QString() : tr("run Analysis ▸ Quantization or Kernel? first"); } } };
}

bool DecompositionPanel::isRunning() const
{
    return m_job->isRunning();
}

QString DecompositionPanel::summaryText() const
{
    return m_summary->text();
}

void DecompositionPanel::onSessionChanged(std::shared_ptr<const Session> session)
{
    const bool sameInputs = m_session && session && m_session->etrecord == session->etrecord
        && m_session->primaryPath() == session->primaryPath() && m_session->debugBuffer == session->debugBuffer;
    m_session = std::move(session);
    if (sameInputs)
        return; // a unit change or a reload of the same files keeps the result
    m_job->cancel();
    m_result.reset();
    m_model->setDecomposition(nullptr);
    m_chart->setDecomposition(nullptr);
    m_warnings->clear();
    m_warnings->setVisible(false);
    const bool ready = m_session && m_session->etrecord && m_session->debugBuffer;
    m_action->setEnabled(ready);
    for (QWidget *w : std::initializer_list<QWidget *> { m_metric, m_run, m_inputs })
        w->setEnabled(ready);
    m_summary->setText(ready ? tr("Decompose to see whether the accuracy is lost to quantization or in the kernels.")
                             : tr("Open a quantized model's recording with its debug buffer and ETRecord to see "
                                  "whether its accuracy is lost to quantization or in the kernels."));
}

void DecompositionPanel::decompose()
{
    const analysis::Metric metric = m_controller->evaluatorSettings()->metric();
    if (!m_session || !m_session->etrecord || !m_session->debugBuffer) {
        Q_EMIT finished(false, tr("needs the recording's debug buffer and ETRecord"));
        return;
    }
    evalgap::DecomposeOptions opts;
    opts.metric = metric;
    opts.inputs = m_controller->evaluatorSettings()->inputs();
    auto session = m_session;
    m_run->setEnabled(false);
    m_summary->setText(tr("Running the fake-quantized graph and its float twin…"));
    m_job->start(
        [session, opts](BackgroundJob::Control &job) mutable {
            opts.progress = [&job](int permille) { return job.setProgress(permille); };
            DecompositionOutcome out;
            auto d = evalgap::decomposeGap(*session->etrecord, *session, opts);
            if (d)
                out.result = std::make_shared<const evalgap::Decomposition>(std::move(*d));
            else
                out.error = toQString(d.error().message());
            return out;
        },
        [this](DecompositionOutcome outcome) {
            m_run->setEnabled(true);
            if (!outcome.result) {
                m_summary->setText(outcome.error);
                m_controller->notify(MessageKind::Error, tr("Quantization or kernel: %1").arg(outcome.error));
                Q_EMIT finished(false, outcome.error);
                return;
            }
            show(outcome.result);
            Q_EMIT finished(true, m_summary->text());
        });
}

void DecompositionPanel::show(std::shared_ptr<const evalgap::Decomposition> d)
{
    m_result = std::move(d);
    // The answer first, as the core words it; then what it rests on.
    QString summary = toQString(m_result->summary);
    if (!summary.isEmpty())
        summary[0] = summary[0].toUpper();
    m_summary->setText(summary);
    QStringList notes;
    notes << tr("%1, judged by %2; reference graph %3; %4 quantize→dequantize pairs passed through in the float twin.")
                 .arg(QString::fromLatin1(analysis::metricName(m_result->metric)),
                     toQString(analysis::thresholdDescription(m_result->metric, m_result->threshold)),
                     toQString(
                         m_result->referenceGraph.empty() ? std::string("(Edge program)") : m_result->referenceGraph))
                 .arg(m_result->floatTwinPairs);
    for (const std::string &w : m_result->warnings)
        notes << toQString(w);
    m_warnings->setText(notes.join(QLatin1Char('\n')));
    m_warnings->setVisible(true);
    m_model->setDecomposition(m_result);
    m_chart->setDecomposition(m_result.get());
    m_table->resizeColumnsToContents();
    m_dock->show();
    m_dock->raise();
    Q_EMIT needsRoom(m_dock);
}

} // namespace etscope
