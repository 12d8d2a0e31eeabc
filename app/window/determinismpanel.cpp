#include "determinismpanel.h"

#include "backgroundjob.h"
#include "determinismmodel.h"
#include "qtstrings.h"
#include "runstrip.h"
#include "sessioncontroller.h"
#include "treeviewutil.h"
#include "varyingheatmap.h"

#include <QAction>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace etscope {

namespace {

struct ReportOutcome {
    std::shared_ptr<const DeterminismReport> report;
    QString error;
};

struct MapOutcome {
    int position = -1;
    std::optional<VaryingMap> map;
    QString error;
};

std::vector<DeterminismInput> inputsOf(const Session &s)
{
    return { { s.etdump, s.debugBuffer } };
}

} // namespace

DeterminismPanel::DeterminismPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_sentence(new QLabel)
    , m_model(new DeterminismModel(this))
    , m_table(new QTableView)
    , m_heatmap(new VaryingHeatmap)
    , m_strip(new RunStrip)
    , m_action(new QAction(tr("Determinism over Runs"), this))
    , m_job(new BackgroundJob(this))
    , m_mapJob(new BackgroundJob(this))
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    m_sentence->setWordWrap(true);
    m_sentence->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sentence->setMargin(4);
    layout->addWidget(m_sentence);
    auto *proxy = new QSortFilterProxyModel(this);
    TreeViewUtil::setupRowTable(m_table, proxy, m_model);
    m_table->sortByColumn(DeterminismModel::PositionColumn, Qt::AscendingOrder);
    auto *left = new QSplitter(Qt::Vertical);
    left->addWidget(m_table);
    left->addWidget(m_strip);
    left->setStretchFactor(0, 3);
    left->setStretchFactor(1, 2);
    left->setChildrenCollapsible(false);
    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(m_heatmap);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    m_dock = makeDock(page, tr("Determinism"), QStringLiteral("DeterminismDock"));
    m_action->setToolTip(tr("The tensors logged over several runs compared bit for bit: which vary, on which "
                            "runs, where"));
    connect(m_action, &QAction::triggered, this, [this] {
        m_dock->show();
        m_dock->raise();
        Q_EMIT needsRoom(m_dock);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this, proxy](const QModelIndex &current) {
            if (current.isValid() && !m_following)
                selectTensor(proxy->mapToSource(current).row());
        });
    connect(m_strip, &RunStrip::tensorClicked, this, &DeterminismPanel::selectTensor);
    connect(controller, &SessionController::sessionChanged, this, &DeterminismPanel::onSessionChanged);
    onSessionChanged(nullptr);
}

QList<Panel::Dock> DeterminismPanel::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> DeterminismPanel::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_action } : QList<QAction *> {};
}

QList<Panel::Chart> DeterminismPanel::charts() const
{
    return { { QStringLiteral("determinism"), tr("Determinism heatmap…"), m_heatmap, [this] {
                  return m_heatmap->map() ? QString() : tr("select a logged tensor of a recording of several runs");
              } } };
}

QString DeterminismPanel::sentence() const
{
    return m_sentence->text();
}

void DeterminismPanel::say(const QString &line, bool warning)
{
    m_sentence->setText(line);
    m_sentence->setStyleSheet(warning ? QStringLiteral("QLabel { background: #fff3cd; color: #6b3d00; "
                                                       "border: 1px solid #e0b252; font-weight: bold; }")
                                      : QString());
}

void DeterminismPanel::onSessionChanged(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    m_job->cancel();
    m_mapJob->cancel();
    m_report.reset();
    m_model->setReport(nullptr);
    m_strip->setReport(nullptr);
    m_heatmap->clear(tr("Select a tensor to see where it varies."));
    if (!m_session || !m_session->etdump) {
        say(tr("Open a recording whose debug buffer holds several runs of the same input to check determinism."));
        return;
    }
    if (!m_session->debugBuffer) {
        say(tr("No debug buffer with this recording: determinism compares the tensors it logs over several runs "
               "(open the run's debug buffer with it)."));
        return;
    }
    say(tr("Comparing the logged tensors over the runs…"));
    m_job->start(
        [loaded = m_session](BackgroundJob::Control &) {
            ReportOutcome out;
            auto r = analyzeDeterminism(inputsOf(*loaded));
            if (r)
                out.report = std::make_shared<const DeterminismReport>(std::move(*r));
            else
                out.error = toQString(r.error().message());
            return out;
        },
        [this](ReportOutcome outcome) {
            if (!outcome.report) {
                say(outcome.error);
                return;
            }
            show(outcome.report);
        });
}

void DeterminismPanel::show(std::shared_ptr<const DeterminismReport> report)
{
    m_report = std::move(report);
    const DeterminismReport &r = *m_report;
    QStringList notes;
    for (const std::string &w : r.warnings)
        notes << toQString(w);
    // A buffer that may not be this recording's makes every figure here doubtful: say so with them.
    for (const std::string &w : m_session->warningsOf(SessionWarningKind::SuspectDebugBuffer))
        notes << toQString(w);
    const QString tail = notes.isEmpty() ? QString() : QStringLiteral("\n") + notes.join(QLatin1Char('\n'));
    if (r.runs < 2) {
        say(tr("The debug buffer holds one run of each of the %1 logged tensors: determinism needs two or more runs "
               "of the same input.")
                    .arg(r.tensors.size())
                + tail,
            !notes.isEmpty());
        return;
    }
    say(toQString(determinismSentence(r)) + tail, r.firstVarying.has_value() || !notes.isEmpty());
    m_model->setReport(m_report);
    m_strip->setReport(m_report);
    m_table->resizeColumnsToContents();
    m_dock->show(); // a tab beside the timeline; raised from Analysis ▸ Determinism over Runs
    Q_EMIT reportReady();
    selectTensor(int(r.firstVarying.value_or(0)));
}

void DeterminismPanel::selectTensor(int position)
{
    if (!m_report || position < 0 || std::size_t(position) >= m_report->tensors.size())
        return;
    m_following = true;
    auto *proxy = static_cast<QSortFilterProxyModel *>(m_table->model());
    const QModelIndex row = proxy->mapFromSource(m_model->index(position, 0));
    m_table->setCurrentIndex(row);
    m_table->scrollTo(row);
    m_following = false;
    m_strip->setCurrentTensor(position);
    computeMap(position);
    selectEventOf(m_report->tensors[std::size_t(position)]);
}

void DeterminismPanel::computeMap(int position)
{
    m_heatmap->clear(tr("Reading the runs of tensor #%1…").arg(position));
    m_mapJob->start(
        [loaded = m_session, report = m_report, position](BackgroundJob::Control &) {
            MapOutcome out;
            out.position = position;
            auto m = determinismMap(inputsOf(*loaded), *report, std::size_t(position));
            if (m)
                out.map = std::move(*m);
            else
                out.error = toQString(m.error().message());
            return out;
        },
        [this](MapOutcome outcome) {
            if (!outcome.map) {
                m_heatmap->clear(outcome.error);
                return;
            }
            const TensorDeterminism &t = m_report->tensors[std::size_t(outcome.position)];
            const QString what = t.programOutput
                ? tr("program output %1").arg(t.occurrence)
                : tr("%1 (instruction %2)").arg(toQString(t.name)).arg(t.instructionId);
            m_heatmap->setMap(*outcome.map, t.region,
                tr("#%1 %2 %3").arg(t.position).arg(what, toQString(describeShape(t.dtype, t.sizes))));
            Q_EMIT mapReady();
        });
}

void DeterminismPanel::selectEventOf(const TensorDeterminism &t)
{
    if (t.programOutput || !m_session)
        return;
    // The operator event of the instruction that logged it, in the first block that has one.
    const auto &blocks = m_session->blocks;
    for (std::size_t b = 0; b < blocks.size(); ++b)
        for (std::size_t e = 0; e < blocks[b].events.size(); ++e) {
            const Event &ev = blocks[b].events[e];
            if (ev.instructionId == t.instructionId && ev.name == t.name) {
                m_selection->selectEvent(int(b), int(e));
                return;
            }
        }
}

} // namespace etscope
