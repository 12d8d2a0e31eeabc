#include "gapdocks.h"
#include "filedialogs.h"
#include "qtstrings.h"

#include "analysis/compareresults.h"
#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "backgroundjob.h"
#include "compareresultschart.h"
#include "delegatetriageview.h"
#include "filesniffer.h"
#include "gapheatmapwidget.h"
#include "gapreferencedialog.h"
#include "gaptrendchart.h"
#include "sessioncontroller.h"
#include "tensorinspectorwidget.h"

#include "etrecord/etrecord.h"
#include "evalgap/evalgap.h"
#include "events/blockstats.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace etscope {

struct GapDocks::Tables : analysis::GapTables {
    const std::vector<analysis::GapTable> &current(bool iso) const
    {
        return iso && !isolated.empty() ? isolated : accumulated;
    }
};

struct GapDocks::Outcome {
    std::shared_ptr<Tables> tables;
    QString error;
    QStringList warnings;
};

namespace {
const analysis::Metric kMetrics[] = { analysis::Metric::MSE, analysis::Metric::SNR, analysis::Metric::MaxAbs };

// `view` under a warning line that every gap view fed by a doubtful input carries (hidden while
// there is nothing to say).
QWidget *withCaveat(QWidget *view, QList<QLabel *> &caveats)
{
    auto *panel = new QWidget;
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *caveat = new QLabel;
    caveat->setObjectName(QStringLiteral("GapCaveat"));
    caveat->setWordWrap(true);
    caveat->setTextInteractionFlags(Qt::TextSelectableByMouse);
    caveat->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; "
                                         "border-radius: 3px; padding: 2px 6px; }"));
    caveat->hide();
    caveats << caveat;
    layout->addWidget(caveat);
    layout->addWidget(view, 1);
    return panel;
}
} // namespace

GapDocks::GapDocks(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_job(new BackgroundJob(this))
{
    m_heatmap = new gapui::GapHeatmapWidget;
    m_triage = new gapui::DelegateTriageView;
    m_tensor = new gapui::TensorInspectorWidget;
    m_compare = new gapui::CompareResultsChart;
    // The heatmap paints at its full size (a row per instruction): scroll it inside the dock,
    // under the metric and threshold that judge it.
    auto *heatmapScroll = new QScrollArea;
    heatmapScroll->setWidget(m_heatmap);
    heatmapScroll->setWidgetResizable(false);
    heatmapScroll->setFrameShape(QFrame::NoFrame);
    auto *heatmapPanel = new QWidget;
    auto *heatmapLayout = new QVBoxLayout(heatmapPanel);
    heatmapLayout->setContentsMargins(4, 4, 4, 0);
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric:")));
    m_metricBox = new QComboBox;
    m_metricBox->setObjectName(QStringLiteral("GapMetricBox"));
    for (analysis::Metric m : kMetrics)
        m_metricBox->addItem(QString::fromLatin1(analysis::metricName(m)), int(m));
    controls->addWidget(m_metricBox);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Flag above:")));
    m_thresholdEdit = new QLineEdit;
    m_thresholdEdit->setObjectName(QStringLiteral("GapThresholdEdit"));
    m_thresholdEdit->setPlaceholderText(tr("noise level"));
    m_thresholdEdit->setToolTip(tr("Empty: the noise level the dtype explains (relative error √ε; float32 3.45e-4).\n"
                                   "A number: a threshold in the metric's own units (SNR in dB)."));
    m_thresholdEdit->setClearButtonEnabled(true);
    m_thresholdEdit->setMaximumWidth(140);
    controls->addWidget(m_thresholdEdit);
    controls->addStretch(1);
    heatmapLayout->addLayout(controls);
    heatmapLayout->addWidget(new gapui::GapHeatmapLegend(m_heatmap));
    heatmapLayout->addWidget(heatmapScroll, 1);
    m_primary = kMetrics[0];
    connect(m_metricBox, &QComboBox::currentIndexChanged, this,
        [this](int i) { setPrimaryMetric(analysis::Metric(m_metricBox->itemData(i).toInt())); });
    connect(m_thresholdEdit, &QLineEdit::editingFinished, this, [this] {
        const QString text = m_thresholdEdit->text().trimmed();
        if (text.isEmpty()) {
            setThreshold(std::nullopt);
            return;
        }
        bool ok = false;
        const double v = text.toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            m_controller->notify(MessageKind::Error, tr("Numeric gap threshold: '%1' is not a number").arg(text));
            return;
        }
        setThreshold(v);
    });
    m_heatmapDock = makeDock(withCaveat(heatmapPanel, m_caveats), tr("Numeric gap"), QStringLiteral("GapHeatmapDock"));
    m_triageDock
        = makeDock(withCaveat(m_triage, m_caveats), tr("Delegate triage"), QStringLiteral("DelegateTriageDock"));
    // Scrolls rather than drawing its histogram over its tables when the dock is short.
    auto *tensorScroll = new QScrollArea;
    tensorScroll->setWidget(m_tensor);
    tensorScroll->setWidgetResizable(true);
    tensorScroll->setFrameShape(QFrame::NoFrame);
    m_tensorDock
        = makeDock(withCaveat(tensorScroll, m_caveats), tr("Tensor inspector"), QStringLiteral("TensorInspectorDock"));
    m_compareDock = makeDock(m_compare, tr("Output quality"), QStringLiteral("CompareResultsDock"));
    // Gap along execution order with the accumulated / isolated switch above it.
    auto *trendPanel = new QWidget;
    auto *trendLayout = new QVBoxLayout(trendPanel);
    trendLayout->setContentsMargins(4, 4, 4, 4);
    auto *switchRow = new QHBoxLayout;
    switchRow->addWidget(new QLabel(tr("Heatmap and triage show:")));
    m_accumulatedButton = new QRadioButton(tr("Accumulated (Inspector)"));
    m_isolatedButton = new QRadioButton(tr("Isolated (error each op introduces)"));
    m_accumulatedButton->setObjectName(QStringLiteral("GapAccumulatedButton"));
    m_isolatedButton->setObjectName(QStringLiteral("GapIsolatedButton"));
    m_accumulatedButton->setChecked(true);
    auto *group = new QButtonGroup(trendPanel);
    group->addButton(m_accumulatedButton);
    group->addButton(m_isolatedButton);
    switchRow->addWidget(m_accumulatedButton);
    switchRow->addWidget(m_isolatedButton);
    switchRow->addStretch(1);
    trendLayout->addLayout(switchRow);
    m_trend = new gapui::GapTrendChart;
    trendLayout->addWidget(m_trend, 1);
    connect(m_isolatedButton, &QRadioButton::toggled, this, [this](bool on) { setIsolated(on); });
    m_trendDock
        = makeDock(withCaveat(trendPanel, m_caveats), tr("Gap along execution"), QStringLiteral("GapTrendDock"));

    m_compareAction = new QAction(tr("Numeric gap…"), this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    connect(m_compareAction, &QAction::triggered, this, &GapDocks::chooseReference);
    connect(m_trend, &gapui::GapTrendChart::eventSelected, this, &GapDocks::showRow);

    connect(controller, &SessionController::sessionChanged, this, &GapDocks::onSessionChanged);
    connect(controller, &SessionController::sessionChanged, this, &GapDocks::updateCaveats); // after it
    connect(m_heatmap, &gapui::GapHeatmapWidget::eventSelected, this, &GapDocks::showRow);
    connect(m_triage, &gapui::DelegateTriageView::eventSelected, this, &GapDocks::showRow);
}

QList<Panel::Dock> GapDocks::docks() const
{
    // Shown once there is something to compare.
    return { { m_heatmapDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        { m_triageDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        // Room of its own beside the heatmap it follows, not a tab behind Details.
        { m_tensorDock, Qt::BottomDockWidgetArea, Placement::OwnArea, true },
        { m_compareDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        { m_trendDock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> GapDocks::menuActions(Menu menu) const
{
    return menu == Menu::Analysis ? QList<QAction *> { m_compareAction } : QList<QAction *> {};
}

QWidget *GapDocks::dialogParent() const
{
    return m_triage->window();
}

void GapDocks::showRow(int blockIndex, int eventIndex)
{
    m_selection->selectEvent(blockIndex, eventIndex);
    if (!m_tables || m_tables->accumulated.empty())
        return;
    for (const analysis::GapRow &row : m_tables->current(m_isolated).front().rows)
        if (row.blockIndex == blockIndex && row.eventIndex == eventIndex) {
            m_tensor->setRow(row);
            m_tensorBlock = blockIndex;
            m_tensorEvent = eventIndex;
            m_tensorDock->show();
            m_tensorDock->raise();
            return;
        }
}

const analysis::GapTable *GapDocks::activeTable() const
{
    return m_tables && !m_tables->accumulated.empty() ? &m_tables->current(m_isolated).front() : nullptr;
}

QString GapDocks::caveatText() const
{
    // What makes the gap doubtful, for as long as the session has it.
    QStringList lines;
    if (m_session)
        for (const std::string &w : m_session->warningsOf(SessionWarningKind::SuspectDebugBuffer))
            lines << tr("Gap values come from a doubtful debug buffer: %1").arg(toQString(w));
    return lines.join(QLatin1Char('\n'));
}

void GapDocks::updateCaveats()
{
    const QString text = caveatText();
    for (QLabel *caveat : std::as_const(m_caveats)) {
        caveat->setText(text);
        caveat->setVisible(!text.isEmpty());
    }
}

void GapDocks::emitGapChanged()
{
    updateCaveats();
    const analysis::GapTable *active = activeTable();
    Q_EMIT gapChanged(m_session, active ? std::shared_ptr<const analysis::GapTable>(m_tables, active) : nullptr);
}

void GapDocks::onSessionChanged(std::shared_ptr<const Session> session)
{
    cancelEvaluator();
    // A reload of the same run (unit change, companion added) keeps the reference: recompute
    // against it (files or the ETRecord graph) instead of closing the views.
    const bool sameRun = m_session && session && m_session->inputs.etdump == session->inputs.etdump
        && m_session->inputs.debugBuffer == session->inputs.debugBuffer;
    // A different ETRecord that does not match the run would recompute the gap into blank rows:
    // keep the result shown unless the user says otherwise.
    if (sameRun && m_tables && session->inputs.etrecord != m_session->inputs.etrecord) {
        const auto mismatch = session->warningsOf(SessionWarningKind::ETRecordMismatch);
        if (!mismatch.empty()
            && !m_controller->confirm(tr("Recompute the numeric gap?"),
                tr("%1\n\nRecompute the numeric gap with this ETRecord? No keeps the gap computed with %2.")
                    .arg(toQString(mismatch.front()),
                        m_session->inputs.etrecord.empty() ? tr("no ETRecord") : toQString(m_session->inputs.etrecord)),
                SessionController::DefaultAnswer::No)) {
            const QString keptWith = m_session->inputs.etrecord.empty()
                ? tr("no ETRecord")
                : m_controller->displayName(m_session->inputs.etrecord);
            m_session = std::move(session); // same ETDump and buffer: the rows still point at the same events
            m_controller->notify(MessageKind::Warning,
                tr("Numeric gap kept: computed with %1, not with the ETRecord now open.").arg(keptWith));
            return;
        }
    }
    // What the gap depends on besides the run itself: the ETRecord linked to it (op types, rows).
    const bool sameLink = sameRun && m_session->inputs.etrecord == session->inputs.etrecord;
    m_session = std::move(session);
    const bool had = m_tables != nullptr;
    if (sameRun && !m_referenceFiles.isEmpty()) {
        if (sameLink && m_tables) {
            // A unit change: the tensors compared are the same, so is the gap; only the views follow.
            showTables();
            return;
        }
        // Recomputed once for the change, off the GUI thread; the views keep the last gap meanwhile.
        cancelEvaluator();
        const int block = m_tensorBlock, event = m_tensorEvent;
        const bool tensorShown = m_tensorDock->isVisible();
        m_job->start(
            [s = m_session, files = m_referenceFiles](BackgroundJob::Control &) { return computeFileGap(*s, files); },
            [this, files = m_referenceFiles, block, event, tensorShown](std::shared_ptr<Outcome> outcome) {
                if (!outcome->error.isEmpty()) {
                    m_controller->notify(MessageKind::Warning, tr("Numeric gap: %1").arg(outcome->error));
                    return;
                }
                applyFileGap(files, *outcome);
                if (block >= 0 && tensorShown && m_tables && !m_tables->accumulated.empty())
                    for (const analysis::GapRow &row : m_tables->current(m_isolated).front().rows)
                        if (row.blockIndex == block && row.eventIndex == event) {
                            m_tensor->setRow(row);
                            m_tensorDock->show();
                        }
            });
        return;
    }
    if (sameRun && m_evaluatorReference && m_session->etrecord && m_session->debugBuffer) {
        const eval::InputChoice inputs = *m_evaluatorReference;
        compareWithEvaluator(inputs);
        return;
    }
    m_evaluatorReference.reset();
    m_referenceFiles.clear();
    m_warnings.clear();
    m_tensorBlock = m_tensorEvent = -1;
    m_tables.reset();
    if (had)
        emitGapChanged();
    m_heatmap->setTables({});
    m_trend->setTables({}, {});
    m_trendDock->hide();
    m_heatmapDock->hide();
    m_triageDock->hide();
    m_tensorDock->hide();
    m_compareDock->hide();
    if (!m_session || m_session->inputs.bundledProgram.empty() || !m_session->debugBuffer)
        return;
    // A BundledProgram opened with the run: its expected outputs against the run outputs.
    analysis::ReferenceInputs ref;
    ref.bundledProgram = m_session->inputs.bundledProgram;
    auto set = analysis::loadReference(ref);
    auto run = analysis::sessionRunOutputs(*m_session, -1);
    if (!set || !run || run->empty())
        return;
    m_compare->setResults(analysis::compareResults(set->finalOutputs, *run));
    m_compareDock->show();
}

GapDocks::ReferenceOffer GapDocks::referenceOffer() const
{
    if (m_session && m_session->etrecord && m_session->debugBuffer)
        return m_session->etrecord->hasRepresentativeInputs() ? ReferenceOffer::ETRecordGraph
                                                              : ReferenceOffer::ETRecordNeedsInputs;
    return ReferenceOffer::Files;
}

void GapDocks::chooseReference()
{
    if (!m_session || !m_session->etdump) {
        m_controller->notify(MessageKind::Info, tr("Numeric gap: open an ETDump with its debug buffer first."));
        return;
    }
    if (!logsValues(m_session->blocks)) {
        // Nothing to compare: say so instead of asking for a reference that cannot help.
        m_controller->notify(MessageKind::Info,
            tr("Numeric gap: %1 holds no intermediate or output values — the run was profiled only. Record it "
               "again with ETDumpGen's debug buffer and intermediate outputs logged to compare it.")
                .arg(m_controller->displayName(m_session->inputs.etdump)));
        return;
    }
    const ReferenceOffer offer = referenceOffer();
    if (offer == ReferenceOffer::Files) {
        chooseFiles();
        return;
    }
    // The ETRecord graph, evaluated here, is the Inspector's reference; files stay available.
    const auto choice = askGapReference(dialogParent(), offer == ReferenceOffer::ETRecordGraph);
    if (!choice)
        return;
    if (choice->files) {
        chooseFiles();
        return;
    }
    connect(
        this, &GapDocks::evaluatorFinished, this,
        [this](bool ok, const QString &message) {
            if (!ok && !m_evaluatorCancelled)
                QMessageBox::warning(dialogParent(), tr("Numeric gap"), message);
        },
        Qt::SingleShotConnection);
    compareWithEvaluator(choice->inputs);
}

void GapDocks::chooseFiles()
{
    const QStringList files
        = askOpenFileNames(dialogParent(), tr("Reference: ETDump + debug buffer (+ ETRecord), or an AOT outputs file"));
    if (files.isEmpty())
        return;
    QString error;
    if (!compareWith(files, &error))
        m_controller->notify(MessageKind::Warning, tr("Numeric gap: %1").arg(error));
}

// The gap against reference files (a second ETDump + debug buffer, an AOT outputs file, a
// BundledProgram), on any thread: the files sniffed by content, the reference loaded, every
// metric's table computed.
std::shared_ptr<GapDocks::Outcome> GapDocks::computeFileGap(const Session &session, const QStringList &referenceFiles)
{
    auto out = std::make_shared<Outcome>();
    analysis::ReferenceInputs ref;
    for (const QString &f : referenceFiles) {
        const std::string path = f.toStdString();
        switch (sniffFile(f).kind) {
        case FileKind::ETDump:
            ref.etdump = path;
            break;
        case FileKind::ETRecord:
            ref.etrecord = path;
            break;
        case FileKind::BundledProgram:
            ref.bundledProgram = path;
            break;
        case FileKind::Program:
        case FileKind::ProgramData:
            out->error
                = tr("%1: a program (.pte) holds no reference values; open it with the recording instead").arg(f);
            return out;
        case FileKind::TorchSave:
            ref.aotOutputs = path;
            break;
        case FileKind::DebugBuffer: // the reference run's, which has no header of its own
            ref.debugBuffer = path;
            break;
        case FileKind::Unreadable:
            out->error = sniffFile(f).error;
            return out;
        }
    }
    if (!ref.debugBuffer.empty() && ref.etdump.empty()) {
        out->error = tr("a debug buffer needs its ETDump");
        return out;
    }
    auto set = analysis::loadReference(ref);
    if (!set) {
        out->error = toQString(set.error().message());
        return out;
    }
    auto computed = analysis::computeGapTables(session, *set, nullptr, kMetrics);
    if (!computed) {
        out->error = toQString(computed.error().message());
        return out;
    }
    out->tables = std::make_shared<Tables>();
    static_cast<analysis::GapTables &>(*out->tables) = std::move(*computed);
    // Blank cells need their reason next to them: the same warnings as `etscope-cli gap`.
    for (const std::string &w : out->tables->accumulated.front().warnings)
        out->warnings << toQString(w);
    return out;
}

void GapDocks::applyFileGap(const QStringList &referenceFiles, const Outcome &outcome)
{
    m_tables = outcome.tables;
    m_referenceFiles = referenceFiles;
    m_evaluatorReference.reset();
    m_warnings = outcome.warnings;
    if (!m_warnings.isEmpty())
        m_controller->notify(MessageKind::Warning,
            tr("Numeric gap against %1: %n warning(s): ", nullptr, int(m_warnings.size()))
                    .arg(QFileInfo(referenceFiles.value(0)).fileName())
                + m_warnings.join(QStringLiteral("; ")));
    showTables();
}

bool GapDocks::compareWith(const QStringList &referenceFiles, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (!m_session || !m_session->etdump)
        return fail(tr("no recording loaded"));
    cancelEvaluator(); // a late evaluator result must not replace this one
    const auto outcome = computeFileGap(*m_session, referenceFiles);
    if (!outcome->error.isEmpty())
        return fail(outcome->error);
    applyFileGap(referenceFiles, *outcome);
    Q_EMIT needsRoom(m_heatmapDock);
    return true;
}

void GapDocks::arrangeTables()
{
    // The primary metric first (what the triage, the chart and the graph read), judged by the
    // user's threshold; the other metrics by their noise level.
    for (auto *list : { &m_tables->accumulated, &m_tables->isolated }) {
        std::stable_partition(
            list->begin(), list->end(), [this](const analysis::GapTable &t) { return t.metric == m_primary; });
        for (analysis::GapTable &t : *list) {
            const std::optional<double> want = t.metric == m_primary ? m_threshold : std::nullopt;
            if (t.threshold != want)
                analysis::applyThreshold(t, want);
        }
    }
}

void GapDocks::setPrimaryMetric(analysis::Metric m)
{
    if (m_primary == m)
        return;
    m_primary = m;
    m_threshold.reset(); // a threshold is in the units of its metric
    {
        const QSignalBlocker b(m_thresholdEdit);
        m_thresholdEdit->clear();
    }
    {
        const QSignalBlocker b(m_metricBox);
        m_metricBox->setCurrentIndex(m_metricBox->findData(int(m)));
    }
    showTables();
}

void GapDocks::setThreshold(std::optional<double> threshold)
{
    if (m_threshold == threshold)
        return;
    m_threshold = threshold;
    {
        const QSignalBlocker b(m_thresholdEdit);
        m_thresholdEdit->setText(threshold ? QString::number(*threshold, 'g', 6) : QString());
    }
    showTables();
}

void GapDocks::showTables()
{
    if (!m_tables || !m_session || m_tables->accumulated.empty())
        return;
    arrangeTables();
    emitGapChanged();
    const auto &tables = m_tables->current(m_isolated);
    m_heatmap->setTables(tables);
    m_heatmap->resize(m_heatmap->sizeHint());
    m_triage->setData(*m_session, tables.front());
    m_trend->setTables(
        m_tables->accumulated.front(), m_tables->isolated.empty() ? analysis::GapTable {} : m_tables->isolated.front());
    m_accumulatedButton->setEnabled(!m_tables->isolated.empty());
    m_isolatedButton->setEnabled(!m_tables->isolated.empty());
    m_heatmapDock->show();
    // Triage is about delegates: only shown when the run has delegated rows.
    const auto &rows = tables.front().rows;
    m_triageDock->setVisible(
        std::any_of(rows.begin(), rows.end(), [](const analysis::GapRow &r) { return r.delegated; }));
    m_trendDock->setVisible(!m_tables->isolated.empty());
    m_heatmapDock->raise();
    // The tensor inspector opens on the row where the error enters (else the first row), so the
    // values behind the first red cell are one glance away.
    if (m_tensorBlock < 0 && !rows.empty()) {
        const analysis::GapRow *first = analysis::firstFlagged(tables.front());
        const analysis::GapRow &row = first ? *first : rows.front();
        m_tensor->setRow(row);
        m_tensorBlock = row.blockIndex;
        m_tensorEvent = row.eventIndex;
        m_tensorDock->show();
    }
}

void GapDocks::setIsolated(bool isolated)
{
    if (m_isolated == isolated)
        return;
    m_isolated = isolated;
    const QSignalBlocker b1(m_accumulatedButton), b2(m_isolatedButton);
    m_isolatedButton->setChecked(isolated);
    m_accumulatedButton->setChecked(!isolated);
    showTables();
}

bool GapDocks::evaluatorRunning() const
{
    return m_job->isRunning();
}

void GapDocks::cancelEvaluator()
{
    if (m_job->cancel()) {
        m_evaluatorCancelled = true;
        m_job->waitForFinished();
    }
    if (m_progress) {
        m_progress->deleteLater();
        m_progress = nullptr;
    }
}

void GapDocks::compareWithEvaluator(const eval::InputChoice &inputs, const QString &referenceGraph)
{
    cancelEvaluator();
    m_evaluatorCancelled = false;
    if (!m_session || !m_session->etrecord || !m_session->debugBuffer) {
        Q_EMIT evaluatorFinished(false, tr("open an ETDump with its debug buffer and ETRecord first"));
        return;
    }
    auto session = m_session;
    evalgap::EvalGapOptions opts;
    opts.inputs = inputs;
    opts.referenceGraph = referenceGraph.toStdString();
    opts.isolated = true;
    m_progress = new QProgressDialog(
        tr("Evaluating the ETRecord graph (accumulated, then isolated)…"), tr("Cancel"), 0, 1000, dialogParent());
    m_progress->setWindowTitle(tr("Numeric gap"));
    m_progress->setMinimumDuration(300);
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    connect(m_progress, &QProgressDialog::canceled, this, [this] {
        // The dialog goes when the evaluation returns; the job's result is dropped.
        if (m_job->cancel())
            m_evaluatorCancelled = true;
        if (m_progress) {
            m_progress->deleteLater();
            m_progress = nullptr;
        }
        Q_EMIT evaluatorFinished(false, tr("cancelled"));
    });
    connect(m_job, &BackgroundJob::progress, m_progress, &QProgressDialog::setValue);
    m_job->start(
        [session, opts](BackgroundJob::Control &job) mutable {
            opts.progress = [&job](int permille) { return job.setProgress(permille); };
            auto out = std::make_shared<Outcome>();
            auto ref = evalgap::referenceFromEvaluator(*session->etrecord, session.get(), opts);
            if (!ref) {
                out->error = toQString(ref.error().message());
                return out;
            }
            for (const auto &w : ref->warnings)
                out->warnings << toQString(w);
            auto computed = analysis::computeGapTables(
                *session, ref->accumulated, ref->isolated ? &*ref->isolated : nullptr, kMetrics);
            if (!computed) {
                out->error = toQString(computed.error().message());
                return out;
            }
            auto tables = std::make_shared<Tables>();
            static_cast<analysis::GapTables &>(*tables) = std::move(*computed);
            out->tables = tables;
            return out;
        },
        [this, inputs](std::shared_ptr<Outcome> outcome) {
            if (m_progress) {
                m_progress->deleteLater();
                m_progress = nullptr;
            }
            if (!outcome->error.isEmpty()) {
                Q_EMIT evaluatorFinished(false, outcome->error);
                return;
            }
            m_tables = outcome->tables;
            m_referenceFiles.clear(); // the ETRecord graph is now the reference, kept across reloads
            m_evaluatorReference = inputs;
            m_warnings = outcome->warnings;
            if (!m_warnings.isEmpty())
                m_controller->notify(MessageKind::Warning,
                    tr("Numeric gap against the ETRecord graph: %n warning(s): ", nullptr, int(m_warnings.size()))
                        + m_warnings.join(QStringLiteral("; ")));
            showTables();
            m_trendDock->raise();
            Q_EMIT needsRoom(m_trendDock);
            Q_EMIT evaluatorFinished(true, outcome->warnings.join(QLatin1Char('\n')));
        });
}

} // namespace etscope
