#include "graphdiffpanel.h"

#include "backgroundjob.h"
#include "evaluatorcontrols.h"
#include "evaluatorsettings.h"
#include "gapreferencedialog.h"
#include "graph/programgraph.h"
#include "graphdiffgraphs.h"
#include "graphdifftable.h"
#include "qtstrings.h"
#include "sessioncontroller.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

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
    , m_table(new gapui::GraphDiffTable)
    , m_graphs(new gapui::GraphDiffGraphs)
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
    // Below the table both graphs side by side, the per-layer gap as overlay, the selection mirrored.
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(m_table);
    split->addWidget(m_graphs);
    // The graphs get most of the room: the table scrolls to the selected layer.
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({ 100, 300 });
    layout->addWidget(split, 1);
    m_dock = makeDock(page, tr("Graph against graph"), QStringLiteral("GraphDiffDock"));
    connect(m_graphs, &gapui::GraphDiffGraphs::nodeClicked, this, &GraphDiffPanel::onNodeClicked);
    connect(m_graphs, &gapui::GraphDiffGraphs::actionFailed, this, &GraphDiffPanel::reportActionFailed);
    connect(m_graphs, &gapui::GraphDiffGraphs::graphRequested, this, [this](evalgap::DiffSide side, bool placeholders) {
        if (!m_result || !m_session || !m_session->etrecord)
            return;
        const std::string name = side == evalgap::DiffSide::A ? m_result->aGraph : m_result->bGraph;
        SideGraph g = buildSide(m_session->etrecord, name, placeholders);
        m_graphs->showGraph(side, g.graph, m_result.get(), g.error);
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
    connect(m_table, &gapui::GraphDiffTable::currentLayerChanged, this, [this](int row) {
        // The runtime events of the A node's debug handle, when the recording has them.
        if (!m_session || !m_result)
            return;
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

QTreeWidget *GraphDiffPanel::table() const
{
    return m_table->tree();
}

GraphView *GraphDiffPanel::graphView(evalgap::DiffSide side) const
{
    return m_graphs->view(side);
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
    for (auto side : { evalgap::DiffSide::A, evalgap::DiffSide::B })
        m_graphs->showGraph(side, nullptr, nullptr, tr("Compare to draw the graph"));
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
            m_graphs->showGraph(evalgap::DiffSide::A, outcome.a.graph, m_result.get(), outcome.a.error);
            m_graphs->showGraph(evalgap::DiffSide::B, outcome.b.graph, m_result.get(), outcome.b.error);
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
    m_table->setDiff(d);
    m_dock->show();
    m_dock->raise();
    Q_EMIT needsRoom(m_dock);
}

void GraphDiffPanel::onNodeClicked(evalgap::DiffSide side, int opNode)
{
    const auto &g = m_graphs->graph(side);
    if (!m_result || !g)
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
    if (m_table->selectLayer(row))
        centerGraphsOn(row); // no change of item: mirror it anyway
}

void GraphDiffPanel::centerGraphsOn(int row)
{
    if (!m_result || row < 0 || std::size_t(row) >= m_result->rows.size())
        return;
    m_graphs->centerOn(m_result->rows[std::size_t(row)]);
}

} // namespace etscope
