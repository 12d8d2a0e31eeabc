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
#include "gaptrendchart.h"
#include "sessioncontroller.h"
#include "tensorinspectorwidget.h"

#include "etrecord/etrecord.h"
#include "evalgap/evalgap.h"

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

namespace {
bool isZip(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(4) == QByteArrayLiteral("PK\x03\x04");
}
} // namespace

struct GapDocks::Tables {
    std::vector<analysis::GapTable> tables; // one per metric, same rows (accumulated)
    std::vector<analysis::GapTable> isolated; // the same metrics, isolated mode (may be empty)
    const std::vector<analysis::GapTable> &current(bool iso) const
    {
        return iso && !isolated.empty() ? isolated : tables;
    }
};

struct GapDocks::Outcome {
    std::shared_ptr<Tables> tables;
    QString error;
    QStringList warnings;
};

namespace {
const analysis::Metric kMetrics[] = { analysis::Metric::MSE, analysis::Metric::SNR, analysis::Metric::MaxAbs };
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
    m_heatmapDock = makeDock(heatmapPanel, tr("Numeric gap"), QStringLiteral("GapHeatmapDock"));
    m_triageDock = makeDock(m_triage, tr("Delegate triage"), QStringLiteral("DelegateTriageDock"));
    // Scrolls rather than drawing its histogram over its tables when the dock is short.
    auto *tensorScroll = new QScrollArea;
    tensorScroll->setWidget(m_tensor);
    tensorScroll->setWidgetResizable(true);
    tensorScroll->setFrameShape(QFrame::NoFrame);
    m_tensorDock = makeDock(tensorScroll, tr("Tensor inspector"), QStringLiteral("TensorInspectorDock"));
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
    m_trendDock = makeDock(trendPanel, tr("Gap along execution"), QStringLiteral("GapTrendDock"));

    m_compareAction = new QAction(tr("Numeric gap…"), this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    connect(m_compareAction, &QAction::triggered, this, &GapDocks::chooseReference);
    connect(m_trend, &gapui::GapTrendChart::eventSelected, this, &GapDocks::showRow);

    connect(controller, &SessionController::sessionChanged, this, &GapDocks::onSessionChanged);
    connect(m_heatmap, &gapui::GapHeatmapWidget::eventSelected, this, &GapDocks::showRow);
    connect(m_triage, &gapui::DelegateTriageView::eventSelected, this, &GapDocks::showRow);
}

QList<Panel::Dock> GapDocks::docks() const
{
    // Shown once there is something to compare.
    return { { m_heatmapDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        { m_triageDock, Qt::BottomDockWidgetArea, Placement::Tab, true },
        { m_tensorDock, Qt::RightDockWidgetArea, Placement::Tab, true },
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
    if (!m_tables || m_tables->tables.empty())
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
    return m_tables && !m_tables->tables.empty() ? &m_tables->current(m_isolated).front() : nullptr;
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
        const auto &w = session->warnings;
        const auto mismatch = std::find_if(w.begin(), w.end(), [](const std::string &line) {
            return line.find("ETRecord does not match this ETDump") != std::string::npos;
        });
        if (mismatch != w.end()
            && !m_controller->confirm(tr("Recompute the numeric gap?"),
                tr("%1\n\nRecompute the numeric gap with this ETRecord? No keeps the gap computed with %2.")
                    .arg(toQString(*mismatch),
                        m_session->inputs.etrecord.empty() ? tr("no ETRecord")
                                                           : toQString(m_session->inputs.etrecord)))) {
            m_session = std::move(session); // same ETDump and buffer: the rows still point at the same events
            m_controller->notify(MessageKind::Warning, tr("Numeric gap kept from before the ETRecord changed."));
            return;
        }
    }
    m_session = std::move(session);
    const bool had = m_tables != nullptr;
    if (sameRun && !m_referenceFiles.isEmpty()) {
        const int block = m_tensorBlock, event = m_tensorEvent;
        const bool tensorShown = m_tensorDock->isVisible();
        QString error;
        if (compareWith(m_referenceFiles, &error)) {
            if (block >= 0 && tensorShown && m_tables && !m_tables->tables.empty())
                for (const analysis::GapRow &row : m_tables->current(m_isolated).front().rows)
                    if (row.blockIndex == block && row.eventIndex == event) {
                        m_tensor->setRow(row);
                        m_tensorDock->show();
                    }
            return;
        }
        m_controller->notify(MessageKind::Warning, tr("Numeric gap: %1").arg(error));
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
        Q_EMIT tablesChanged();
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
    if (!m_session) {
        m_controller->notify(MessageKind::Info, tr("Numeric gap: open an ETDump with its debug buffer first."));
        return;
    }
    const ReferenceOffer offer = referenceOffer();
    if (offer == ReferenceOffer::Files) {
        chooseFiles();
        return;
    }
    // The ETRecord graph, evaluated here, is the Inspector's reference; files stay available.
    QDialog dlg(dialogParent());
    dlg.setWindowTitle(tr("Numeric gap: reference"));
    auto *layout = new QVBoxLayout(&dlg);
    auto *graph = new QRadioButton(tr("ETRecord graph, evaluated by etscope (the Inspector's calculate_numeric_gap)"));
    auto *files = new QRadioButton(tr("Other reference: a second ETDump + debug buffer, or an AOT outputs file…"));
    graph->setChecked(true);
    layout->addWidget(graph);
    auto *inputsRow = new QHBoxLayout;
    auto *inputsLabel = new QLabel;
    auto *chooseInputs = new QPushButton(tr("Choose inputs…"));
    inputsRow->addSpacing(24);
    inputsRow->addWidget(inputsLabel, 1);
    inputsRow->addWidget(chooseInputs);
    layout->addLayout(inputsRow);
    layout->addWidget(files);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dlg, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);

    auto choice = std::make_shared<eval::InputChoice>();
    auto haveInputs = std::make_shared<bool>(offer == ReferenceOffer::ETRecordGraph);
    auto refresh = [=] {
        if (!choice->inputsFile.empty())
            inputsLabel->setText(tr("Inputs: %1").arg(toQString(choice->inputsFile)));
        else if (!choice->bundledProgram.empty())
            inputsLabel->setText(
                tr("Inputs: %1, test case %2").arg(toQString(choice->bundledProgram)).arg(choice->testCase));
        else if (*haveInputs)
            inputsLabel->setText(tr("Inputs: the ETRecord's representative_inputs"));
        else
            inputsLabel->setText(tr("The ETRecord has no representative_inputs: choose a .pt file or a "
                                    "BundledProgram test case."));
        buttons->button(QDialogButtonBox::Ok)->setEnabled(files->isChecked() || *haveInputs);
    };
    connect(files, &QRadioButton::toggled, &dlg, refresh);
    connect(chooseInputs, &QPushButton::clicked, &dlg, [&, choice, haveInputs, refresh] {
        const QString path
            = askOpenFileName(&dlg, tr("Inputs: torch.save'd tuple of tensors (.pt) or a BundledProgram (.bpte)"),
                tr("Inputs (*.pt *.pth *.bpte);;All files (*)"));
        if (path.isEmpty())
            return;
        *choice = {};
        if (sniffFile(path).kind == FileKind::BundledProgram) {
            bool ok = false;
            const int tc
                = QInputDialog::getInt(&dlg, tr("BundledProgram test case"), tr("Test case:"), 0, -1000, 1000, 1, &ok);
            if (!ok)
                return;
            choice->bundledProgram = path.toStdString();
            choice->testCase = tc;
        } else {
            choice->inputsFile = path.toStdString();
        }
        *haveInputs = true;
        graph->setChecked(true);
        refresh();
    });
    refresh();
    if (dlg.exec() != QDialog::Accepted)
        return;
    if (files->isChecked()) {
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
    compareWithEvaluator(*choice);
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

bool GapDocks::compareWith(const QStringList &referenceFiles, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (!m_session)
        return fail(tr("no session loaded"));
    cancelEvaluator(); // a late evaluator result must not replace this one
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
        default:
            // A zip that is not an ETRecord is a torch.save file (AOT outputs); anything else is
            // the reference run's debug buffer, which has no header of its own.
            if (isZip(f))
                ref.aotOutputs = path;
            else
                ref.debugBuffer = path;
        }
    }
    if (!ref.debugBuffer.empty() && ref.etdump.empty())
        return fail(tr("a debug buffer needs its ETDump"));
    auto set = analysis::loadReference(ref);
    if (!set)
        return fail(toQString(set.error().message()));
    auto tables = std::make_shared<Tables>();
    for (analysis::Metric m : kMetrics) {
        analysis::GapOptions opt;
        opt.metric = m;
        auto table = analysis::computeNumericGap(*m_session, *set, opt);
        if (!table)
            return fail(toQString(table.error().message()));
        tables->tables.push_back(std::move(table.value()));
    }
    m_tables = tables;
    m_referenceFiles = referenceFiles;
    m_evaluatorReference.reset();
    // Blank cells need their reason next to them: the same warnings as `etscope-cli gap`.
    m_warnings.clear();
    for (const std::string &w : tables->tables.front().warnings)
        m_warnings << toQString(w);
    if (!m_warnings.isEmpty())
        m_controller->notify(MessageKind::Warning,
            tr("Numeric gap against %1: %n warning(s): ", nullptr, int(m_warnings.size()))
                    .arg(QFileInfo(referenceFiles.value(0)).fileName())
                + m_warnings.join(QStringLiteral("; ")));
    showTables();
    Q_EMIT needsRoom(m_heatmapDock);
    return true;
}

void GapDocks::arrangeTables()
{
    // The primary metric first (what the triage, the chart and the graph read), judged by the
    // user's threshold; the other metrics by their noise level.
    for (auto *list : { &m_tables->tables, &m_tables->isolated }) {
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
    if (!m_tables || !m_session || m_tables->tables.empty())
        return;
    arrangeTables();
    Q_EMIT tablesChanged();
    const auto &tables = m_tables->current(m_isolated);
    m_heatmap->setTables(tables);
    m_heatmap->resize(m_heatmap->sizeHint());
    m_triage->setData(*m_session, tables.front());
    m_trend->setTables(
        m_tables->tables.front(), m_tables->isolated.empty() ? analysis::GapTable {} : m_tables->isolated.front());
    m_accumulatedButton->setEnabled(!m_tables->isolated.empty());
    m_isolatedButton->setEnabled(!m_tables->isolated.empty());
    m_heatmapDock->show();
    // Triage is about delegates: only shown when the run has delegated rows.
    const auto &rows = tables.front().rows;
    m_triageDock->setVisible(
        std::any_of(rows.begin(), rows.end(), [](const analysis::GapRow &r) { return r.delegated; }));
    m_trendDock->setVisible(!m_tables->isolated.empty());
    m_heatmapDock->raise();
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
            auto tables = std::make_shared<Tables>();
            for (analysis::Metric m : kMetrics) {
                analysis::GapOptions go;
                go.metric = m;
                auto acc = analysis::computeNumericGap(*session, ref->accumulated, go);
                if (!acc) {
                    out->error = toQString(acc.error().message());
                    return out;
                }
                tables->tables.push_back(std::move(*acc));
                if (ref->isolated) {
                    auto iso = analysis::computeNumericGap(*session, *ref->isolated, go);
                    if (iso)
                        tables->isolated.push_back(std::move(*iso));
                }
            }
            if (tables->isolated.size() != tables->tables.size())
                tables->isolated.clear();
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
