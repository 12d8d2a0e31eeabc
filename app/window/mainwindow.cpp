#include "mainwindow.h"
#include "filedialogs.h"

#include "analysis/coverage.h"
#include "common/numberformat.h"

#include "comparedocks.h"
#include "decompositionpanel.h"
#include "determinismpanel.h"
#include "dialogs.h"
#include "docklayout.h"
#include "eventpanels.h"
#include "eventtableview.h"
#include "gapdocks.h"
#include "graphdiffpanel.h"
#include "graphdock.h"
#include "historypanel.h"
#include "memorypanel.h"
#include "messagebar.h"
#include "outputqualitypanel.h"
#include "qtstrings.h"
#include "recordingspanel.h"
#include "runspanel.h"
#include "scopecontrols.h"
#include "sizepanel.h"
#include "timecontrols.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

// Resources compiled into a static library must be registered explicitly (outside any namespace).
static void initEtscopeResources()
{
    Q_INIT_RESOURCE(etscope);
}

namespace etscope {

namespace {
QIcon themedIcon(const char *theme, const char *resource)
{
    return QIcon::fromTheme(QString::fromLatin1(theme), QIcon(QString::fromLatin1(resource)));
}
} // namespace

MainWindow::MainWindow(QWidget *parent)
    : MainWindow(Options {}, parent)
{ }

MainWindow::MainWindow(const Options &options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(options)
    , m_controller(new SessionController(options.persistSettings, this))
    , m_selection(new EventSelection(this))
{
    initEtscopeResources();
    setWindowTitle(tr("etscope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/etscope.svg")));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    createCentral();
    createActions();
    createPanels();

    connect(m_controller, &SessionController::message, this, &MainWindow::showMessage);
    if (options.persistSettings) // interactive; tests and --screenshot install their own answer
        m_controller->setConfirmer(dialogConfirmer(this));
    connect(m_controller, &SessionController::timeConversionRestored, m_time, &TimeControls::show);
    connect(m_controller, &SessionController::recentFilesChanged, this, &MainWindow::updateRecentMenu);
    connect(m_controller, &SessionController::sessionChanged, this, &MainWindow::showSession);
    connect(m_controller, &SessionController::scopeChanged, this, [this](std::shared_ptr<const ScopedBlocks> scoped) {
        // Every panel that follows the scope names it, when the recording has something to choose.
        m_layout->showScope(scoped && m_controller->scopeMatters() ? toQString(scoped->label) : QString());
        showCoverage(scoped.get());
    });
    connect(m_time, &TimeControls::refused, this, [this](const QString &why) { showMessage(MessageKind::Error, why); });
    connect(m_time, &TimeControls::changed, this, [this](const TimeConversion &time) {
        if (m_options.persistSettings)
            QSettings().setValue(QStringLiteral("unit"), toQString(timeScaleName(time.target)));
        m_controller->reload(time);
    });
    connect(m_selection, &EventSelection::selectionRequested, m_table, &EventTableView::selectEvents);
    connect(m_table, &EventTableView::currentEventChanged, m_selection, &EventSelection::setCurrentEvent);

    resize(1500, 920);
    m_table->setDefaultColumnWidths();
    m_layout->keepAsDefault(); // View ▸ Reset Layout goes back to this
    if (m_options.persistSettings)
        restoreSettings();
    m_controller->setTimeConversion(m_time->conversion());
    updateRecentMenu();
    // The start event is selected after every panel saw the new session (their connections were
    // made as they were built, above): the graph centres on it, Details shows it.
    connect(m_controller, &SessionController::sessionChanged, m_table, &EventTableView::selectStartEvent);

    showMessage(MessageKind::Info,
        tr("Drop an ETDump (.etdp) here — with its debug buffer, ETRecord, BundledProgram or program (.pte) — or a "
           ".pte alone, or use File ▸ Open."));
}

MainWindow::~MainWindow() = default;

void MainWindow::createCentral()
{
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);
    m_messageBar = new MessageBar(central);
    layout->addWidget(m_messageBar);
    m_table = new EventTableView(central);
    layout->addWidget(m_table, 1);
    setCentralWidget(central);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("SummaryLabel"));
    statusBar()->addWidget(m_summary, 1);
    m_coverage = new QLabel(this);
    m_coverage->setObjectName(QStringLiteral("CoverageLabel"));
    statusBar()->addPermanentWidget(m_coverage);
    new LoadProgress(statusBar(), m_controller);
}

// Every dock group is a panel built from the controller and the selection; data between panels
// goes by signal, connected here.
void MainWindow::createPanels()
{
    addPanel(m_details = new EventDetailsDocks(m_controller, m_selection, this));
    addPanel(m_timeline = new TimelineDock(m_controller, m_selection, this));
    addPanel(m_topEvents = new TopEventsDock(m_controller, m_selection, this));
    addPanel(m_modules = new ModulesDock(m_controller, m_selection, this));
    addPanel(m_gap = new GapDocks(m_controller, m_selection, this));
    addPanel(new OutputQualityPanel(m_controller, m_selection, this));
    addPanel(m_compare = new CompareDocks(m_controller, m_selection, this));
    addPanel(m_graph = new GraphDock(m_controller, m_selection, this));
    addPanel(new MemoryPanel(m_controller, m_selection, this));
    addPanel(new SizePanel(m_controller, m_selection, this));
    addPanel(new GraphDiffPanel(m_controller, m_selection, this));
    addPanel(new DecompositionPanel(m_controller, m_selection, this));
    addPanel(m_runs = new RunsPanel(m_controller, m_selection, this));
    addPanel(m_history = new HistoryPanel(m_controller, m_selection, this));
    addPanel(new RecordingsPanel(m_controller, m_selection, this));
    addPanel(new DeterminismPanel(m_controller, m_selection, this));
    connect(m_runs, &RunsPanel::runsSelected, m_timeline, &TimelineDock::showRuns);
    connect(m_details, &EventDetailsDocks::runsSelected, m_timeline, &TimelineDock::showRuns);
    connect(m_modules, &ModulesDock::moduleActivated, m_table, &EventTableView::setFilter);
    connect(m_gap, &GapDocks::gapChanged, m_graph, &GraphDock::setGap);

    // The default proportions: Details over the histogram on the right, the bottom tabs with the
    // timeline in front.
    auto *details = findChild<QDockWidget *>(QStringLiteral("DetailsDock"));
    auto *histogram = findChild<QDockWidget *>(QStringLiteral("HistogramDock"));
    auto *timeline = findChild<QDockWidget *>(QStringLiteral("TimelineDock"));
    resizeDocks({ details, histogram }, { 440, 360 }, Qt::Vertical);
    resizeDocks({ details }, { 500 }, Qt::Horizontal);
    resizeDocks({ timeline }, { 300 }, Qt::Vertical);
    timeline->raise();
}

// Every share the window shows (table, charts, Runs) describes the part of Method::execute the
// events explain: the status bar says how much that is for the runs in scope, in the warning
// colour when it is low (analysis/coverage.h), with every coverage line in the tooltip.
void MainWindow::showCoverage(const ScopedBlocks *scoped)
{
    const auto session = m_controller->session();
    std::optional<CoverageReport> report;
    if (scoped && session)
        report = analyzeCoverage(scoped->blocks, session->inputs.time);
    const std::vector<std::string> lines = report ? coverageSentences(*report) : std::vector<std::string> {};
    if (lines.empty()) { // no run with Method::execute
        m_coverage->clear();
        m_coverage->setToolTip({});
        return;
    }
    QString text = tr("· events explain %1 % of Method::execute")
                       .arg(QString::fromStdString(significantText(100 * report->fraction(), 3)));
    if (m_controller->scopeMatters()) // the runs it is over, when the recording has a choice
        text += QStringLiteral(" (%1)").arg(toQString(scoped->label));
    m_coverage->setText(text);
    m_coverage->setStyleSheet(report->low() ? QStringLiteral("color:#9a6700;font-weight:bold") : QString());
    QStringList tip;
    for (const std::string &line : lines)
        tip << toQString(line);
    m_coverage->setToolTip(tip.join(QLatin1Char('\n')));
}

void MainWindow::addPanel(Panel *panel)
{
    m_panels << panel;
    for (const Panel::Dock &dock : panel->docks())
        m_layout->place(dock);
    for (const Panel::Chart &chart : panel->charts())
        m_charts->add(chart.name, chart.title, chart.widget, chart.unavailable);
    // Readable as it opens: the dock's area takes most of the window's height.
    connect(panel, &Panel::needsRoom, this, [this](QDockWidget *dock) {
        if (!dock->isFloating() && dockWidgetArea(dock) == Qt::BottomDockWidgetArea)
            resizeDocks({ dock }, { height() * 3 / 5 }, Qt::Vertical);
    });
    for (QAction *a : panel->menuActions(Panel::Menu::File))
        m_fileMenu->insertAction(m_afterRecent, a);
    const auto analysis = panel->menuActions(Panel::Menu::Analysis);
    if (!analysis.isEmpty() && !m_analysisMenu) {
        m_analysisMenu = new QMenu(tr("&Analysis"), this);
        menuBar()->insertMenu(m_helpMenu->menuAction(), m_analysisMenu); // Help stays last
    }
    for (QAction *a : analysis)
        m_analysisMenu->addAction(a);
}

void MainWindow::createActions()
{
    m_fileMenu = menuBar()->addMenu(tr("&File"));
    auto *open = m_fileMenu->addAction(themedIcon("document-open", ":/icons/open.svg"), tr("&Open…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QStringList files = askOpenFileNames(this, tr("Open ETDump and companions"),
            tr("ExecuTorch artifacts (*.etdp *.etdump *.bin *.pte *.ptd *.bpte *.zip *.etrecord);;All files (*)"));
        if (!files.isEmpty())
            m_controller->openFiles(files);
    });
    m_recentMenu = m_fileMenu->addMenu(tr("Open &Recent"));
    m_recentMenu->setToolTipsVisible(true); // each entry's tooltip has the full paths
    m_afterRecent = m_fileMenu->addSeparator();
    auto *exportTable
        = m_fileMenu->addAction(themedIcon("document-save-as", ":/icons/export.svg"), tr("&Export Table…"));
    exportTable->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exportTable, &QAction::triggered, this, [this] {
        exportInteractive(
            this, m_controller->session().get(), tr("Export table"), QStringLiteral(".tsv"),
            tr("Tab-separated, as Inspector.save_data_to_tsv (*.tsv);;CSV (*.csv)"),
            [this](const QString &path) {
                QString error;
                return m_table->exportVisibleRows(path, &error) ? QString() : error;
            },
            tr("Table written to %1"), exportFeedback());
    });
    m_charts = new ChartExports(this, m_fileMenu->addMenu(tr("Export &Chart")), m_options.persistSettings,
        [this] { return exportFeedback(); }); // the panels' charts
    addTraceAndReportExports(
        this, m_fileMenu, [this] { return m_controller->session(); }, [this] { return m_gap->activeTable(); },
        exportFeedback());
    m_fileMenu->addSeparator();
    auto *quit = m_fileMenu->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    const QList<QAction *> quickFilters = addTableActions(view, m_table);
    auto *reset = view->addAction(tr("&Reset Layout"));
    reset->setObjectName(QStringLiteral("ResetLayoutAction"));
    reset->setToolTip(tr("Put every panel back where a fresh start has it"));
    connect(reset, &QAction::triggered, this, &MainWindow::resetLayout);
    auto *roots = view->addAction(tr("&Source Roots…"));
    roots->setToolTip(tr("Map the folder a model was exported from to a folder on this machine, so stack frames open"));
    connect(roots, &QAction::triggered, this, [this] {
        editSourceRoots(this, m_options.persistSettings, unresolvedSourceFolders(m_controller->session().get()));
    });
    if (m_options.persistSettings)
        loadSourceRoots();
    m_layout = std::make_unique<DockLayout>(this, view->addMenu(tr("&Panels"))); // each panel's docks

    m_helpMenu = addHelpMenu(this);

    // Toolbar: the things used every minute.
    QToolBar *tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("MainToolBar"));
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(open);
    tb->addAction(exportTable);
    tb->addSeparator();
    m_time = new TimeControls(tb);
    tb->addSeparator();
    tb->addActions(quickFilters);
    tb->addSeparator();
    m_scope = new ScopeControls(m_controller, tb);
}

void MainWindow::resetLayout()
{
    m_layout->reset();
    m_table->setDefaultColumnWidths();
}

void MainWindow::restoreSettings()
{
    QSettings s;
    m_layout->restore(
        s.value(QStringLiteral("geometry")).toByteArray(), s.value(QStringLiteral("windowState")).toByteArray());
    const QByteArray header = s.value(QStringLiteral("treeHeader")).toByteArray();
    if (!header.isEmpty())
        m_table->restoreHeader(header);
    const QString unit = s.value(QStringLiteral("unit")).toString();
    if (auto t = parseTimeScale(unit.toStdString()); t && *t != TimeScale::Cycles) { // cycles needs a cycles source
        const QSignalBlocker block(m_time);
        m_time->setTargetUnit(*t);
    }
}

void MainWindow::saveSettings()
{
    if (!m_options.persistSettings)
        return;
    QSettings s;
    s.setValue(QStringLiteral("geometry"), saveGeometry());
    s.setValue(QStringLiteral("windowState"), saveState());
    s.setValue(QStringLiteral("treeHeader"), m_table->tree()->header()->saveState());
    s.setValue(QStringLiteral("unit"), toQString(timeScaleName(m_time->conversion().target)));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_controller->cancel();
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    const auto urls = event->mimeData()->urls();
    for (const QUrl &url : urls)
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    if ((event->modifiers() & Qt::ShiftModifier) && m_controller->session())
        m_controller->requestCompare(paths); // Shift-drop: B of a latency A/B
    else
        m_controller->openFiles(paths);
}

void MainWindow::showSession(const std::shared_ptr<const Session> &session)
{
    hideMessage();
    m_time->show(m_controller->timeConversion());
    m_table->setSession(session);
    if (!session)
        return;
    setWindowTitle(tr("%1 — etscope").arg(m_controller->displayName(session->primaryPath())));
    m_summary->setText(m_controller->summary());
    // Loud (warning colours), and kept under any newer message while this session is shown: a
    // mismatching ETRecord or a suspect debug buffer.
    m_messageBar->setStanding(m_controller->warningsText());
}

void MainWindow::showMessage(MessageKind kind, const QString &text, int timeoutMs)
{
    if (kind == MessageKind::Status) {
        statusBar()->showMessage(text, timeoutMs);
        return;
    }
    m_messageBar->showMessage(kind, text);
    if (kind == MessageKind::Error) {
        // One place for an error: the bar above the table (no dialog, no status-bar copy); it
        // stays until dismissed or until something succeeds.
        statusBar()->clearMessage();
    }
}

void MainWindow::hideMessage()
{
    m_messageBar->setStanding({});
    m_messageBar->hide();
}

void MainWindow::updateRecentMenu()
{
    fillRecentMenu(m_recentMenu, m_controller->recentFiles(),
        [this](const QStringList &files) { m_controller->openFiles(files); });
}

ExportFeedback MainWindow::exportFeedback()
{
    return { [this](const QString &e) { showMessage(MessageKind::Error, e); },
        [this](const QString &written) {
            if (!m_messageBar->error().isEmpty())
                hideMessage(); // an earlier error is no longer the news
            statusBar()->showMessage(written, 6000);
        } };
}

} // namespace etscope
