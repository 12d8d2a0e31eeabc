#include "gapdocks.h"

#include "analysis/compareresults.h"
#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "compareresultschart.h"
#include "delegatetriageview.h"
#include "filesniffer.h"
#include "gapheatmapwidget.h"
#include "mainwindow.h"
#include "tensorinspectorwidget.h"

#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>

namespace etscope {

namespace {
bool isZip(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(4) == QByteArrayLiteral("PK\x03\x04");
}
} // namespace

struct GapDocks::Tables {
    std::vector<analysis::GapTable> tables; // one per metric, same rows
};

GapDocks::GapDocks(MainWindow *window) : QObject(window), m_window(window)
{
    m_heatmap = new gapui::GapHeatmapWidget;
    m_triage = new gapui::DelegateTriageView;
    m_tensor = new gapui::TensorInspectorWidget;
    m_compare = new gapui::CompareResultsChart;
    m_heatmapDock = window->addAnalysisDock(m_heatmap, tr("Numeric gap"), QStringLiteral("GapHeatmapDock"));
    m_triageDock = window->addAnalysisDock(m_triage, tr("Delegate triage"), QStringLiteral("DelegateTriageDock"));
    m_tensorDock = window->addAnalysisDock(m_tensor, tr("Tensor inspector"), QStringLiteral("TensorInspectorDock"));
    m_compareDock = window->addAnalysisDock(m_compare, tr("Output quality"), QStringLiteral("CompareResultsDock"));
    for (QDockWidget *d : {m_heatmapDock, m_triageDock, m_tensorDock, m_compareDock})
        d->hide(); // shown once there is something to compare

    QMenu *menu = window->menuBar()->addMenu(tr("&Analysis"));
    QAction *compare = menu->addAction(tr("Numeric gap against reference…"));
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    connect(compare, &QAction::triggered, this, &GapDocks::chooseReference);

    connect(window, &MainWindow::sessionChanged, this, &GapDocks::onSessionChanged);
    connect(m_heatmap, &gapui::GapHeatmapWidget::eventSelected, this, &GapDocks::showRow);
    connect(m_triage, &gapui::DelegateTriageView::eventSelected, this, &GapDocks::showRow);
}

void GapDocks::showRow(int blockIndex, int eventIndex)
{
    m_window->selectEvent(blockIndex, eventIndex);
    if (!m_tables || m_tables->tables.empty())
        return;
    for (const analysis::GapRow &row : m_tables->tables.front().rows)
        if (row.blockIndex == blockIndex && row.eventIndex == eventIndex) {
            m_tensor->setRow(row);
            m_tensorDock->show();
            return;
        }
}

const analysis::GapTable *GapDocks::activeTable() const
{
    return m_tables && !m_tables->tables.empty() ? &m_tables->tables.front() : nullptr;
}

void GapDocks::onSessionChanged(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    const bool had = m_tables != nullptr;
    m_tables.reset();
    if (had)
        Q_EMIT tablesChanged();
    m_heatmap->setTables({});
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

void GapDocks::chooseReference()
{
    if (!m_session) {
        QMessageBox::information(m_window, tr("Numeric gap"), tr("Open an ETDump with its debug buffer first."));
        return;
    }
    const QStringList files = QFileDialog::getOpenFileNames(
        m_window, tr("Reference: ETDump + debug buffer (+ ETRecord), or an AOT outputs file"));
    if (files.isEmpty())
        return;
    QString error;
    if (!compareWith(files, &error))
        QMessageBox::warning(m_window, tr("Numeric gap"), error);
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
    analysis::ReferenceInputs ref;
    for (const QString &f : referenceFiles) {
        const std::string path = f.toStdString();
        switch (sniffFile(f).kind) {
        case FileKind::ETDump: ref.etdump = path; break;
        case FileKind::ETRecord: ref.etrecord = path; break;
        case FileKind::BundledProgram: ref.bundledProgram = path; break;
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
        return fail(QString::fromStdString(set.error().message()));
    auto tables = std::make_shared<Tables>();
    for (analysis::Metric m : {analysis::Metric::MSE, analysis::Metric::SNR, analysis::Metric::MaxAbs}) {
        analysis::GapOptions opt;
        opt.metric = m;
        auto table = analysis::computeNumericGap(*m_session, *set, opt);
        if (!table)
            return fail(QString::fromStdString(table.error().message()));
        tables->tables.push_back(std::move(table.value()));
    }
    m_tables = tables;
    Q_EMIT tablesChanged();
    m_heatmap->setTables(tables->tables);
    m_triage->setData(*m_session, tables->tables.front());
    m_heatmapDock->show();
    m_triageDock->show();
    m_heatmapDock->raise();
    return true;
}

} // namespace etscope
