#include "graphdiffpanel.h"

#include "analysis/noise.h"
#include "backgroundjob.h"
#include "common/numberformat.h"
#include "evaluatorcontrols.h"
#include "evaluatorsettings.h"
#include "gapreferencedialog.h"
#include "graph/programgraph.h"
#include "graphview.h"
#include "numberformat.h"
#include "qtstrings.h"
#include "sessioncontroller.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {

struct SideGraph {
    std::shared_ptr<const graph::ProgramGraph> graph;
    QString error; // the graph could not be drawn (the comparison still stands)
};

SideGraph buildSide(const std::shared_ptr<const ETRecord> &record, const std::string &name, bool placeholders)
{
    SideGraph out;
    auto g = evalgap::diffSideGraph(record, name, placeholders);
    if (g)
        out.graph = std::make_shared<const graph::ProgramGraph>(std::move(*g));
    else
        out.error = toQString(g.error().message());
    return out;
}

struct DiffOutcome {
    std::shared_ptr<const evalgap::GraphDiff> diff;
    QString error;
    SideGraph a, b;
};

} // namespace

GraphDiffPanel::GraphDiffPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_a(new QComboBox)
    , m_b(new QComboBox)
    , m_metric(new gapui::MetricBox(controller->evaluatorSettings()))
    , m_run(new QPushButton(tr("Compare")))
    , m_inputs(new EvaluatorInputsButton(controller->evaluatorSettings()))
    , m_verdict(new QLabel)
    , m_table(new QTreeWidget)
    , m_unaligned(new QLabel)
    , m_viewA(new GraphView)
    , m_viewB(new GraphView)
    , m_titleA(new QLabel)
    , m_titleB(new QLabel)
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
    auto *top = new QWidget;
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_table, 1);
    m_unaligned->setWordWrap(true);
    m_unaligned->setTextInteractionFlags(Qt::TextSelectableByMouse);
    topLayout->addWidget(m_unaligned);
    // Both graphs side by side, the per-layer gap as overlay, the selection mirrored.
    auto *graphs = new QSplitter(Qt::Horizontal);
    m_graphs = graphs;
    for (auto [title, view] : { std::pair { m_titleA, m_viewA }, std::pair { m_titleB, m_viewB } }) {
        auto *box = new QWidget;
        auto *boxLayout = new QVBoxLayout(box);
        boxLayout->setContentsMargins(0, 0, 0, 0);
        boxLayout->setSpacing(2);
        title->setTextInteractionFlags(Qt::TextSelectableByMouse);
        boxLayout->addWidget(title);
        boxLayout->addWidget(view, 1);
        view->clear(tr("Compare to draw the graph"));
        graphs->addWidget(box);
    }
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(graphs);
    // The graphs get most of the room: the table scrolls to the selected layer.
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({ 100, 300 });
    layout->addWidget(split, 1);
    m_dock = makeDock(page, tr("Graph against graph"), QStringLiteral("GraphDiffDock"));
    connect(m_viewA, &GraphView::nodeClicked, this, [this](int n) { onNodeClicked(evalgap::DiffSide::A, n); });
    connect(m_viewB, &GraphView::nodeClicked, this, [this](int n) { onNodeClicked(evalgap::DiffSide::B, n); });
    for (auto side : { evalgap::DiffSide::A, evalgap::DiffSide::B })
        connect(graphView(side), &GraphView::programRequested, this, [this, side](const QString &, bool placeholders) {
            if (!m_result || !m_session || !m_session->etrecord)
                return;
            const std::string name = side == evalgap::DiffSide::A ? m_result->aGraph : m_result->bGraph;
            SideGraph g = buildSide(m_session->etrecord, name, placeholders);
            showGraph(side, g.graph, g.error);
        });
    m_a->setToolTip(tr("The reference graph"));
    m_b->setToolTip(tr("The graph compared with it, layer by layer, on the same inputs"));

    m_action->setToolTip(tr("Compare two graphs of the ETRecord layer by layer (e.g. the float program and "
                            "the quantized one)"));
    connect(m_action, &QAction::triggered, this, [this] {
        m_dock->show();
        m_dock->raise();
        Q_EMIT needsRoom(m_dock);
        if (!m_session || !m_session->etrecord)
            m_controller->notify(MessageKind::Info, tr("Graph against graph: open an ETRecord with the recording."));
    });
    connect(m_run, &QPushButton::clicked, this, [this] { compare(m_a->currentText(), m_b->currentText()); });
    connect(m_table, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        // The runtime events of the A node's debug handle, when the recording has them.
        if (!item || !m_session || !m_result)
            return;
        const int row = item->data(0, Qt::UserRole).toInt();
        if (row < 0 || std::size_t(row) >= m_result->rows.size())
            return;
        centerGraphsOn(row);
        if (!m_result->rows[std::size_t(row)].aHandle)
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
    for (auto side : { evalgap::DiffSide::A, evalgap::DiffSide::B })
        showGraph(side, nullptr, tr("Compare to draw the graph"));
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

void GraphDiffPanel::compare(const QString &a, const QString &b)
{
    const analysis::Metric metric = m_controller->evaluatorSettings()->metric();
    if (!m_session || !m_session->etrecord) {
        Q_EMIT finished(false, tr("no ETRecord open"));
        return;
    }
    // The choosers show what is compared, however it was asked for.
    for (auto [box, name] : { std::pair { m_a, a }, std::pair { m_b, b } })
        for (const QString &text : QStringList { name, name + QStringLiteral("/forward") })
            if (const int i = box->findText(text); i >= 0) {
                box->setCurrentIndex(i);
                break;
            }
    evalgap::GraphDiffOptions opts;
    opts.a = a.toStdString();
    opts.b = b.toStdString();
    opts.metric = metric;
    opts.inputs = m_controller->evaluatorSettings()->inputs();
    auto record = m_session->etrecord;
    m_verdict->setText(tr("Evaluating %1 and %2…").arg(a, b));
    m_run->setEnabled(false);
    m_job->start(
        [record, opts](BackgroundJob::Control &job) mutable {
            opts.progress = [&job](int permille) { return job.setProgress(permille); };
            DiffOutcome out;
            auto d = evalgap::diffGraphs(*record, opts);
            if (!d) {
                out.error = toQString(d.error().message());
                return out;
            }
            out.diff = std::make_shared<const evalgap::GraphDiff>(std::move(*d));
            out.a = buildSide(record, out.diff->aGraph, false);
            out.b = buildSide(record, out.diff->bGraph, false);
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
            showGraph(evalgap::DiffSide::A, outcome.a.graph, outcome.a.error);
            showGraph(evalgap::DiffSide::B, outcome.b.graph, outcome.b.error);
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
                r.error.empty() ? formatGap(r.worst(d.direction)) : toQString(r.error),
                formatGap(r.worstNoise(d.direction)), r.flagged ? tr("yes") : QString() });
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

void GraphDiffPanel::showGraph(
    evalgap::DiffSide side, std::shared_ptr<const graph::ProgramGraph> g, const QString &error)
{
    GraphView *view = graphView(side);
    QLabel *title = side == evalgap::DiffSide::A ? m_titleA : m_titleB;
    (side == evalgap::DiffSide::A ? m_graphA : m_graphB) = g;
    const QString letter = side == evalgap::DiffSide::A ? QStringLiteral("A") : QStringLiteral("B");
    if (!g || !m_result) {
        view->clear(error);
        title->setText(letter);
        m_graphs->setVisible(m_graphA || m_graphB);
        return;
    }
    m_graphs->setVisible(true);
    const std::string &name = side == evalgap::DiffSide::A ? m_result->aGraph : m_result->bGraph;
    const std::size_t unaligned
        = side == evalgap::DiffSide::A ? m_result->unalignedA.size() : m_result->unalignedB.size();
    title->setText(tr("%1: %2 — colour: %3 per aligned layer; %4 nodes only here, uncoloured")
                       .arg(letter, toQString(name), QString::fromLatin1(analysis::metricName(m_result->metric)))
                       .arg(unaligned));
    view->setGraph(g, evalgap::graphDiffOverlay(*m_result, *g, side));
    view->setOverlay(graph::Overlay::Gap);
}

void GraphDiffPanel::onNodeClicked(evalgap::DiffSide side, int opNode)
{
    const auto &g = side == evalgap::DiffSide::A ? m_graphA : m_graphB;
    if (m_syncing || !m_result || !g || opNode < 0 || std::size_t(opNode) >= g->nodes().size())
        return;
    const int row = evalgap::graphDiffRowOfNode(*m_result, g->nodes()[std::size_t(opNode)].name, side);
    if (row < 0) {
        m_controller->notify(MessageKind::Info,
            tr("%1 is not aligned with a node of the other graph (listed under the table)")
                .arg(toQString(g->nodes()[std::size_t(opNode)].name)));
        return;
    }
    selectLayer(row);
}

void GraphDiffPanel::selectLayer(int row)
{
    if (!m_result || row < 0 || std::size_t(row) >= m_result->rows.size())
        return;
    // The table's current item mirrors the layer onto both graphs and selects its events.
    for (int i = 0; i < m_table->topLevelItemCount(); ++i)
        if (m_table->topLevelItem(i)->data(0, Qt::UserRole).toInt() == row) {
            if (m_table->currentItem() == m_table->topLevelItem(i))
                centerGraphsOn(row); // no change of item: mirror it anyway
            m_table->setCurrentItem(m_table->topLevelItem(i));
            m_table->scrollToItem(m_table->topLevelItem(i));
            return;
        }
}

void GraphDiffPanel::centerGraphsOn(int row)
{
    if (m_syncing || !m_result || row < 0 || std::size_t(row) >= m_result->rows.size())
        return;
    m_syncing = true;
    const evalgap::GraphDiffRow &r = m_result->rows[std::size_t(row)];
    if (m_graphA)
        m_viewA->centerOnNode(m_graphA->findNode(r.aName));
    if (m_graphB)
        m_viewB->centerOnNode(m_graphB->findNode(r.bName));
    m_syncing = false;
}

} // namespace etscope
