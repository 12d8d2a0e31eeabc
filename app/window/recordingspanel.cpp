#include "recordingspanel.h"

#include "backgroundjob.h"
#include "filedialogs.h"
#include "groupedbarschart.h"
#include "modelroles.h"
#include "qtstrings.h"
#include "sessioncontroller.h"
#include "sidebysidemodel.h"

#include "common/pathnames.h"
#include "session/session.h"

#include <QAction>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace etscope {

namespace {
// Operator shares per phase in the table: the union of each recording's top 8 (as `runs --top 8`).
constexpr std::size_t kTopShares = 8;
} // namespace

RecordingsPanel::RecordingsPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_model(new SideBySideModel(this))
    , m_chart(new GroupedBarsChart)
    , m_figure(new QComboBox)
    , m_notes(new QLabel)
    , m_table(new QTableView)
    , m_action(new QAction(tr("Recordings &Side by Side…"), this))
    , m_job(new BackgroundJob(this))
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Figure:")));
    top->addWidget(m_figure, 1);
    layout->addLayout(top);
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->setText(tr("Analysis ▸ Recordings Side by Side… puts other recordings of this model (other devices, "
                        "other backends) beside the open one."));
    layout->addWidget(m_notes);
    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_chart);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->setTextElideMode(Qt::ElideMiddle); // long operator names keep both ends
    split->addWidget(m_table);
    split->setSizes({ 1000, 1000 }); // halves: the table's columns are the recordings
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    layout->addWidget(split, 1);
    m_dock = makeDock(page, tr("Recordings side by side"), QStringLiteral("RecordingsDock"));

    m_action->setStatusTip(tr("The open recording and others of the same model as grouped bars: medians, tokens/s, "
                              "coverage, operator shares"));
    connect(m_action, &QAction::triggered, this, [this] {
        if (!m_controller->session() || !m_controller->session()->etdump) {
            m_controller->notify(MessageKind::Error, tr("Recordings side by side: open an ETDump first"));
            return;
        }
        const QStringList files = askOpenFileNames(m_dock->window(), tr("Recordings to put beside the open one"),
            tr("ETDump (*.etdp *.etdump);;All files (*)"));
        if (!files.isEmpty())
            compare(files);
    });
    connect(m_figure, &QComboBox::currentIndexChanged, this, &RecordingsPanel::showFigure);
    // A new session or scope makes the figures stale: cleared, never shown for other runs.
    auto stale = [this] {
        m_job->cancel();
        m_model->setRecordings({}, {});
        m_figure->clear();
        m_chart->clear();
    };
    connect(controller, &SessionController::sessionChanged, this, stale);
    connect(controller, &SessionController::scopeChanged, this, [this, stale] {
        if (m_model->rowCount() > 0) {
            stale();
            m_notes->setText(
                tr("The scope changed: compare the recordings again (Analysis ▸ Recordings Side by Side…)."));
        }
    });
}

QList<Panel::Dock> RecordingsPanel::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> RecordingsPanel::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_action } : QList<QAction *> {};
}

QList<Panel::Chart> RecordingsPanel::charts() const
{
    return { { QStringLiteral("recordings"), tr("Recordings side by side…"), m_chart->chartView(), [this] {
                  return m_chart->series() ? QString()
                                           : tr("compare recordings first (Analysis ▸ Recordings Side by Side…)");
              } } };
}

QString RecordingsPanel::notesText() const
{
    return m_notes->text();
}

RecordingsPanel::Outcome RecordingsPanel::compute(
    const std::shared_ptr<const Session> &open, const Scope &scope, const QStringList &others)
{
    Outcome o;
    if (!open || !open->etdump) {
        o.error = tr("open an ETDump first");
        return o;
    }
    RunsOptions opt;
    opt.scope = scope;
    opt.sharesBy = ShareRowsBy::BackendOperator; // etscope's default, as `runs`
    opt.sharesByDefault = true;
    auto add = [&](const Session &s) {
        auto r = analyzeRecordingRuns(s, opt);
        if (!r) {
            o.warnings << toQString(s.inputs.etdump) + QStringLiteral(": ") + toQString(r.error().message());
            return;
        }
        for (const auto &w : s.warnings)
            o.warnings << toQString(w);
        o.recordings.push_back(std::move(*r));
    };
    add(*open);
    for (const QString &file : others) {
        SessionInputs in;
        in.etdump = toStdString(file);
        in.program = open->inputs.program;
        in.programData = open->inputs.programData;
        in.time = open->inputs.time;
        in.phases = open->inputs.phases;
        in.dropUnpairable = true; // another backend's recording keeps its figures without this program
        auto s = loadSession(in);
        if (!s) {
            o.warnings << toQString(s.error().message());
            continue;
        }
        add(**s);
    }
    if (o.recordings.size() < 2)
        o.error = tr("fewer than two recordings could be compared");
    return o;
}

void RecordingsPanel::compare(const QStringList &others)
{
    m_notes->setText(tr("Reading %1…").arg(others.join(QStringLiteral(", "))));
    m_dock->show();
    m_dock->raise();
    // The session and scope are taken here, on the GUI thread; the job only reads them.
    m_job->start([open = m_controller->session(), scope = m_controller->scope(), others](
                     BackgroundJob::Control &) { return compute(open, scope, others); },
        [this](Outcome o) { show(o); });
}

bool RecordingsPanel::compareSync(const QStringList &others, QString *error)
{
    m_job->cancel();
    const Outcome o = compute(m_controller->session(), m_controller->scope(), others);
    show(o);
    if (error)
        *error = o.error;
    return o.error.isEmpty();
}

void RecordingsPanel::show(const Outcome &o)
{
    QStringList notes;
    if (!o.error.isEmpty()) {
        m_controller->notify(MessageKind::Error, tr("Recordings side by side: %1").arg(o.error));
        notes << tr("Recordings side by side: %1").arg(o.error);
    }
    std::vector<std::string> paths;
    for (const auto &r : o.recordings)
        paths.push_back(r.runs.file);
    QStringList names;
    for (const std::string &n : distinguishingNames(paths))
        names << toQString(n);
    m_model->setRecordings(
        names, o.error.isEmpty() ? runsSideBySideRows(o.recordings, kTopShares) : std::vector<SideBySideRow> {});
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(0, std::min(m_table->columnWidth(0), 280));
    if (o.error.isEmpty()) {
        const auto &scoped = m_controller->scoped();
        notes << (m_controller->scope().whole() || !scoped
                ? tr("%1 recordings, every run of each").arg(o.recordings.size())
                : tr("%1 recordings, the runs in scope of each: %2")
                      .arg(o.recordings.size())
                      .arg(toQString(scoped->label)));
        // Shares describe the explained part only: a low coverage is said for its recording.
        for (std::size_t i = 0; i < o.recordings.size(); ++i)
            for (const std::string &line : coverageSentences(o.recordings[i].coverage))
                if (line.starts_with("warning:"))
                    notes << names[qsizetype(i)] + QStringLiteral(": ") + toQString(line);
    }
    notes << o.warnings;
    m_notes->setText(notes.join(QLatin1Char('\n')));
    m_figure->blockSignals(true);
    m_figure->clear();
    for (const auto &g : m_model->groups())
        m_figure->addItem(g.title);
    m_figure->blockSignals(false);
    // Medians first: what "which device is faster" asks.
    const int medians = m_figure->findText(tr("Median run per phase"));
    m_figure->setCurrentIndex(std::max(0, medians));
    showFigure(m_figure->currentIndex());
    m_dock->show();
    m_dock->raise();
    Q_EMIT needsRoom(m_dock);
    Q_EMIT comparisonReady(o.error.isEmpty(), o.error);
}

void RecordingsPanel::showFigure(int index)
{
    const auto groups = m_model->groups();
    if (index < 0 || std::size_t(index) >= groups.size()) {
        m_chart->clear();
        return;
    }
    const auto &g = groups[std::size_t(index)];
    std::vector<std::vector<std::optional<double>>> values(std::size_t(m_model->names().size()));
    for (int row : g.rows)
        for (std::size_t r = 0; r < values.size(); ++r)
            values[r].push_back(m_model->rows()[std::size_t(row)].values[r]);
    m_chart->setBars(g.title, g.unit, g.categories, m_model->names(), values);
}

} // namespace etscope
