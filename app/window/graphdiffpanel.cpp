#include "graphdiffpanel.h"

#include "analysis/noise.h"
#include "backgroundjob.h"
#include "common/numberformat.h"
#include "filedialogs.h"
#include "graph/programgraph.h"
#include "qtstrings.h"
#include "sessioncontroller.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {
const analysis::Metric kMetrics[]
    = { analysis::Metric::MSE, analysis::Metric::SNR, analysis::Metric::MaxAbs, analysis::Metric::Cosine };

struct DiffOutcome {
    std::shared_ptr<const evalgap::GraphDiff> diff;
    QString error;
};

QString gapText(double v)
{
    if (std::isnan(v))
        return {};
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return toQString(significantText(v));
}
} // namespace

GraphDiffPanel::GraphDiffPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_a(new QComboBox)
    , m_b(new QComboBox)
    , m_metric(new QComboBox)
    , m_run(new QPushButton(tr("Compare")))
    , m_inputs(new QPushButton(tr("Inputs…")))
    , m_verdict(new QLabel)
    , m_table(new QTreeWidget)
    , m_unaligned(new QLabel)
    , m_action(new QAction(tr("Graph against Graph…"), this))
    , m_job(new BackgroundJob(this))
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("A:")));
    bar->addWidget(m_a, 1);
    bar->addWidget(new QLabel(tr("B:")));
    bar->addWidget(m_b, 1);
    bar->addWidget(new QLabel(tr("Metric:")));
    for (analysis::Metric m : kMetrics)
        m_metric->addItem(QString::fromLatin1(analysis::metricName(m)), int(m));
    bar->addWidget(m_metric);
    bar->addWidget(m_inputs);
    bar->addWidget(m_run);
    layout->addLayout(bar);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_verdict);
    m_table->setRootIsDecorated(false);
    m_table->setAlternatingRowColors(true);
    m_table->setHeaderLabels(
        { tr("layer"), tr("A node"), tr("B node"), tr("aligned by"), tr("gap"), tr("noise level"), tr("flagged") });
    m_table->header()->setStretchLastSection(false);
    layout->addWidget(m_table, 1);
    m_unaligned->setWordWrap(true);
    m_unaligned->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_unaligned);
    m_dock = makeDock(page, tr("Graph against graph"), QStringLiteral("GraphDiffDock"));
    m_a->setToolTip(tr("The reference graph"));
    m_b->setToolTip(tr("The graph compared with it, layer by layer, on the same inputs"));
    m_inputs->setToolTip(tr("Inputs: a torch.save'd tuple of tensors (.pt); without one, the ETRecord's "
                            "representative_inputs"));

    m_action->setToolTip(tr("Compare two graphs of the ETRecord layer by layer (e.g. the float program and "
                            "the quantized one)"));
    connect(m_action, &QAction::triggered, this, [this] {
        m_dock->show();
        m_dock->raise();
        Q_EMIT needsRoom(m_dock);
        if (!m_session || !m_session->etrecord)
            m_controller->notify(MessageKind::Info, tr("Graph against graph: open an ETRecord with the recording."));
    });
    connect(m_run, &QPushButton::clicked, this,
        [this] { compare(m_a->currentText(), m_b->currentText(), analysis::Metric(m_metric->currentData().toInt())); });
    connect(m_inputs, &QPushButton::clicked, this, [this] {
        const QString path = askOpenFileName(m_dock->window(), tr("Inputs: torch.save'd tuple of tensors (.pt)"),
            tr("Inputs (*.pt *.pth);;All files (*)"));
        if (path.isEmpty())
            return;
        m_inputChoice = {};
        m_inputChoice.inputsFile = path.toStdString();
        m_inputs->setText(tr("Inputs: %1").arg(m_controller->displayName(m_inputChoice.inputsFile)));
    });
    connect(m_table, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        // The runtime events of the A node's debug handle, when the recording has them.
        if (!item || !m_session || !m_result)
            return;
        const int row = item->data(0, Qt::UserRole).toInt();
        if (row < 0 || std::size_t(row) >= m_result->rows.size() || !m_result->rows[std::size_t(row)].aHandle)
            return;
        const std::int64_t handle = *m_result->rows[std::size_t(row)].aHandle;
        std::vector<EventPosition> events;
        for (std::size_t b = 0; b < m_session->blocks.size(); ++b)
            for (std::size_t e = 0; e < m_session->blocks[b].events.size(); ++e) {
                const auto &handles = m_session->blocks[b].events[e].debugHandles();
                if (handles && std::find(handles->begin(), handles->end(), handle) != handles->end())
                    events.push_back({ int(b), int(e) });
            }
        if (!events.empty())
            m_selection->selectEvents(events);
    });
    connect(controller, &SessionController::sessionChanged, this, &GraphDiffPanel::onSessionChanged);
    onSessionChanged(nullptr);
}

QList<Panel::Dock> GraphDiffPanel::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> GraphDiffPanel::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_action } : QList<QAction *> {};
}

QString GraphDiffPanel::verdictText() const
{
    return m_verdict->text();
}

QStringList GraphDiffPanel::graphChoices() const
{
    QStringList out;
    for (int i = 0; i < m_a->count(); ++i)
        out << m_a->itemText(i);
    return out;
}

void GraphDiffPanel::onSessionChanged(std::shared_ptr<const Session> session)
{
    const bool sameRecord = m_session && session && m_session->etrecord && m_session->etrecord == session->etrecord;
    m_session = std::move(session);
    if (sameRecord)
        return; // a reload keeps the comparison shown
    m_job->cancel();
    m_result.reset();
    m_table->clear();
    m_unaligned->clear();
    m_a->clear();
    m_b->clear();
    const bool have = m_session && m_session->etrecord;
    for (QWidget *w : std::initializer_list<QWidget *> { m_a, m_b, m_metric, m_run, m_inputs })
        w->setEnabled(have);
    if (!have) {
        m_verdict->setText(tr("Open an ETRecord with the recording to compare two of its graphs."));
        return;
    }
    QStringList names { QStringLiteral("exported_program") };
    for (const ETRecordProgram &p : m_session->etrecord->programs()) {
        QString name = toQString(p.entryName);
        if (name == QLatin1String("edge_dialect_exported_program/forward"))
            name = QStringLiteral("edge_dialect_exported_program");
        if (!names.contains(name))
            names << name;
    }
    m_a->addItems(names);
    m_b->addItems(names);
    m_b->setCurrentIndex(names.size() > 1 ? 1 : 0);
    m_verdict->setText(tr("Choose two graphs and Compare: both run on the same inputs, aligned node by node."));
}

void GraphDiffPanel::compare(const QString &a, const QString &b, analysis::Metric metric)
{
    if (!m_session || !m_session->etrecord) {
        Q_EMIT finished(false, tr("no ETRecord open"));
        return;
    }
    evalgap::GraphDiffOptions opts;
    opts.a = a.toStdString();
    opts.b = b.toStdString();
    opts.metric = metric;
    opts.inputs = m_inputChoice;
    auto record = m_session->etrecord;
    m_verdict->setText(tr("Evaluating %1 and %2…").arg(a, b));
    m_run->setEnabled(false);
    m_job->start(
        [record, opts](BackgroundJob::Control &job) mutable {
            opts.progress = [&job](int permille) { return job.setProgress(permille); };
            DiffOutcome out;
            auto d = evalgap::diffGraphs(*record, opts);
            if (d)
                out.diff = std::make_shared<const evalgap::GraphDiff>(std::move(*d));
            else
                out.error = toQString(d.error().message());
            return out;
        },
        [this](DiffOutcome outcome) {
            m_run->setEnabled(true);
            if (!outcome.diff) {
                m_verdict->setText(outcome.error);
                m_controller->notify(MessageKind::Error, tr("Graph against graph: %1").arg(outcome.error));
                Q_EMIT finished(false, outcome.error);
                return;
            }
            show(outcome.diff);
            Q_EMIT finished(true, m_verdict->text());
        });
}

void GraphDiffPanel::show(std::shared_ptr<const evalgap::GraphDiff> diff)
{
    m_result = std::move(diff);
    const evalgap::GraphDiff &d = *m_result;
    m_verdict->setText(tr("%1 vs %2 (%3): %4")
                           .arg(toQString(d.aGraph), toQString(d.bGraph),
                               QString::fromLatin1(analysis::metricName(d.metric)), toQString(d.verdict())));
    m_table->clear();
    const int parting = d.firstParting();
    for (std::size_t i = 0; i < d.rows.size(); ++i) {
        const evalgap::GraphDiffRow &r = d.rows[i];
        auto *item = new QTreeWidgetItem(m_table,
            { QString::number(i + 1), toQString(r.aName) + QStringLiteral(" (") + toQString(r.aOp) + QLatin1Char(')'),
                toQString(r.bName) + QStringLiteral(" (") + toQString(r.bOp) + QLatin1Char(')'),
                QString::fromLatin1(evalgap::alignedByName(r.by)),
                r.error.empty() ? gapText(r.worst(d.direction)) : toQString(r.error),
                gapText(r.worstNoise(d.direction)), r.flagged ? tr("yes") : QString() });
        item->setData(0, Qt::UserRole, int(i));
        item->setToolTip(4, r.error.empty() ? toQString(fullPrecisionText(r.worst(d.direction))) : toQString(r.error));
        // The gap views' colour scale: cool up to the noise level, warm above it.
        const double excess = r.excess(d.metric, d.direction);
        if (!std::isnan(excess)) {
            const graph::Rgb c = graph::gapSeverityColor(analysis::gapSeverity(excess, r.flagged));
            item->setBackground(4, QColor(c.r, c.g, c.b));
        }
        if (int(i) == parting)
            for (int col = 0; col < m_table->columnCount(); ++col) {
                QFont f = item->font(col);
                f.setBold(true);
                item->setFont(col, f);
            }
    }
    for (int col = 0; col < m_table->columnCount(); ++col)
        m_table->resizeColumnToContents(col);
    QStringList lines;
    auto list = [](const std::vector<evalgap::UnalignedNode> &nodes) {
        QStringList names;
        for (const auto &n : nodes)
            names << toQString(n.name);
        return names.join(QStringLiteral(", "));
    };
    if (!d.unalignedA.empty())
        lines << tr("Only in A (not aligned, never paired by guess): %1").arg(list(d.unalignedA));
    if (!d.unalignedB.empty())
        lines << tr("Only in B: %1").arg(list(d.unalignedB));
    for (const std::string &w : d.warnings)
        lines << toQString(w);
    m_unaligned->setText(lines.join(QLatin1Char('\n')));
    m_unaligned->setVisible(!lines.isEmpty());
    if (parting >= 0)
        m_table->scrollToItem(m_table->topLevelItem(parting));
    m_dock->show();
    m_dock->raise();
    Q_EMIT needsRoom(m_dock);
}

} // namespace etscope
