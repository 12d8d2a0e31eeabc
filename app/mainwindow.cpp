#include "mainwindow.h"
#include "filedialogs.h"

#include "comparedocks.h"
#include "detailspanel.h"
#include "dialogs.h"
#include "eventtableview.h"
#include "eventtreemodel.h"
#include "gapdocks.h"
#include "graphdock.h"
#include "histogramwidget.h"
#include "memorypanel.h"
#include "messagebar.h"
#include "modulerollupview.h"
#include "program/program.h"
#include "qtstrings.h"
#include "timecontrols.h"
#include "timelinewidget.h"
#include "topeventschart.h"
#include "widgetexport.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
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
    createDocks();
    createActions();

    connect(m_controller, &SessionController::message, this, &MainWindow::showMessage);
    if (options.persistSettings) // interactive; tests and --screenshot install their own answer
        m_controller->setConfirmer(dialogConfirmer(this));
    connect(m_controller, &SessionController::timeConversionRestored, m_time, &TimeControls::show);
    connect(m_controller, &SessionController::recentFilesChanged, this, &MainWindow::updateRecentMenu);
    connect(m_controller, &SessionController::sessionChanged, this, &MainWindow::showSession);
    connect(m_time, &TimeControls::refused, this, [this](const QString &why) { showMessage(MessageKind::Error, why); });
    connect(m_time, &TimeControls::changed, this, [this](const TimeConversion &time) {
        if (m_options.persistSettings)
            QSettings().setValue(QStringLiteral("unit"), toQString(timeScaleName(time.target)));
        m_controller->reload(time);
    });
    connect(m_selection, &EventSelection::selectionRequested, m_table, &EventTableView::selectEvents);
    connect(m_table, &EventTableView::currentEventChanged, m_selection, &EventSelection::setCurrentEvent);
    connect(m_table, &EventTableView::currentEventChanged, this, &MainWindow::showCurrentEvent);

    resize(1500, 920);
    m_table->setDefaultColumnWidths();
    m_defaultState = saveState(); // View ▸ Reset layout goes back to this
    if (m_options.persistSettings)
        restoreSettings();
    m_controller->setTimeConversion(m_time->conversion());
    updateRecentMenu();

    // Panels come after the saved layout is known, so that their docks go back where they were.
    addPanel(m_gap = new GapDocks(m_controller, m_selection, this));
    addPanel(m_compare = new CompareDocks(m_controller, m_selection, this));
    addPanel(m_graph = new GraphDock(m_controller, m_selection, m_gap, this));
    addPanel(m_memory = new MemoryPanel(m_controller, m_selection, this));
    connect(m_memory, &MemoryPanel::programPaired, m_graph, &GraphDock::setProgram);
    // Hiding the panels' tabs left the last one (Graph) in front; a first start shows the timeline.
    if (m_restoredState.isEmpty())
        if (auto *timelineDock = findChild<QDockWidget *>(QStringLiteral("TimelineDock")))
            timelineDock->raise();
    // Selected after every panel saw the new session (the graph centres on it).
    connect(m_controller, &SessionController::sessionChanged, m_table, &EventTableView::selectStartEvent);

    showMessage(MessageKind::Info,
        tr("Drop an ETDump (.etdp) here — optionally with its debug buffer, ETRecord or BundledProgram — or use "
           "File ▸ Open."));
}

MainWindow::~MainWindow() = default;

void MainWindow::createCentral()
{
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);
    m_messageBar = new MessageBar(central);
    connect(m_messageBar, &MessageBar::dismissed, this, [this] { m_lastError.clear(); });
    layout->addWidget(m_messageBar);
    m_table = new EventTableView(central);
    layout->addWidget(m_table, 1);
    setCentralWidget(central);

    m_summary = new QLabel(this);
    statusBar()->addWidget(m_summary, 1);
    new LoadProgress(statusBar(), m_controller);
}

void MainWindow::createDocks()
{
    m_details = new DetailsPanel(this);
    m_histogram = new HistogramWidget(this);
    m_topChart = new TopEventsChart(this);
    m_timeline = new TimelineWidget(this);
    m_modules = new ModuleRollupView(this);
    auto *detailsDock = makeDock(m_details, tr("Details"), QStringLiteral("DetailsDock"));
    auto *histogramDock = makeDock(m_histogram, tr("Latency histogram"), QStringLiteral("HistogramDock"));
    auto *topDock = makeDock(m_topChart, tr("Top events"), QStringLiteral("TopEventsDock"));
    auto *timelineDock = makeDock(m_timeline, tr("Timeline"), QStringLiteral("TimelineDock"));
    auto *modulesDock = makeDock(m_modules, tr("Modules"), QStringLiteral("ModulesDock"));
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);
    addDockWidget(Qt::RightDockWidgetArea, histogramDock);
    splitDockWidget(detailsDock, histogramDock, Qt::Vertical);
    addDockWidget(Qt::BottomDockWidgetArea, topDock);
    addDockWidget(Qt::BottomDockWidgetArea, timelineDock);
    tabifyDockWidget(timelineDock, topDock);
    addDockWidget(Qt::BottomDockWidgetArea, modulesDock);
    tabifyDockWidget(timelineDock, modulesDock);
    timelineDock->raise();
    resizeDocks({ detailsDock, histogramDock }, { 440, 360 }, Qt::Vertical);
    resizeDocks({ detailsDock }, { 500 }, Qt::Horizontal);
    resizeDocks({ timelineDock }, { 300 }, Qt::Vertical);

    // Right-click on any chart exports it; the File menu has the same entries.
    const std::pair<QWidget *, QString> charts[] = { { m_histogram, QStringLiteral("histogram") },
        { m_topChart, QStringLiteral("top-events") }, { m_timeline, QStringLiteral("timeline") } };
    for (const auto &[chart, name] : charts) {
        chart->setContextMenuPolicy(Qt::ActionsContextMenu);
        auto *save = new QAction(tr("Save Chart as PNG or SVG…"), chart);
        connect(save, &QAction::triggered, this, [this, name = name] { exportChartInteractive(name); });
        chart->addAction(save);
    }
    connect(m_topChart, &TopEventsChart::eventClicked, m_selection, &EventSelection::selectEvent);
    connect(m_timeline, &TimelineWidget::eventClicked, m_selection, &EventSelection::selectEvent);
    // A histogram bar is a set of runs: show them in the timeline (block of the selected event).
    connect(m_histogram, &HistogramWidget::runsSelected, this, [this](const QList<int> &runs, const QString &what) {
        m_timeline->showRuns(runs, what);
        if (auto *dock = qobject_cast<QDockWidget *>(m_timeline->parentWidget())) {
            dock->show();
            dock->raise();
        }
    });
    connect(m_modules, &ModuleRollupView::moduleActivated, m_table, &EventTableView::setFilter);
    connect(m_details, &DetailsPanel::frameUnavailable, this,
        [this](const QString &m) { statusBar()->showMessage(m, 8000); });
}

void MainWindow::addPanel(Panel *panel)
{
    for (const Panel::Dock &dock : panel->docks())
        placeDock(dock);
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

void MainWindow::placeDock(const Panel::Dock &d)
{
    QDockWidget *dock = d.dock;
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    m_panelsMenu->addAction(dock->toggleViewAction());
    // Back where the user left it last time, if the saved state knows it. restoreDockWidget()
    // also "succeeds" for docks the saved state never saw (Qt 6.4), so look for the dock's name
    // (a QString in the state's big-endian QDataStream) first.
    QByteArray utf16be;
    for (QChar c : dock->objectName())
        utf16be.append(char(c.unicode() >> 8)).append(char(c.unicode() & 0xff));
    const QString anchorName
        = d.area == Qt::RightDockWidgetArea ? QStringLiteral("DetailsDock") : QStringLiteral("TimelineDock");
    auto *anchor = findChild<QDockWidget *>(anchorName);
    if (!(m_restoredState.contains(utf16be) && restoreDockWidget(dock)) && anchor) {
        // First time: a tab next to Details (right) or the Timeline (bottom), so every panel
        // keeps a usable size at 1500×920 instead of splitting the area ever narrower.
        tabifyDockWidget(anchor, dock);
    }
    if (d.placement == Panel::Placement::TabBehindAnchor && anchor && dockWidgetArea(anchor) == dockWidgetArea(dock)) {
        tabifyDockWidget(anchor, dock);
        anchor->raise();
    } else if (d.placement == Panel::Placement::OwnArea) {
        addDockWidget(d.area, dock);
    }
    if (d.startHidden)
        dock->hide();
}

void MainWindow::createActions()
{
    m_fileMenu = menuBar()->addMenu(tr("&File"));
    auto *open = m_fileMenu->addAction(themedIcon("document-open", ":/icons/open.svg"), tr("&Open…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QStringList files = askOpenFileNames(this, tr("Open ETDump and companions"),
            tr("ExecuTorch artifacts (*.etdp *.etdump *.bin *.bpte *.zip *.etrecord);;All files (*)"));
        if (const QStringList rest = openPrograms(files); !rest.isEmpty())
            m_controller->openFiles(rest);
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
    QMenu *charts = m_fileMenu->addMenu(tr("Export &Chart"));
    for (const auto &[title, name] : { std::pair { tr("Latency histogram…"), QStringLiteral("histogram") },
             std::pair { tr("Top events…"), QStringLiteral("top-events") },
             std::pair { tr("Timeline…"), QStringLiteral("timeline") } })
        connect(
            charts->addAction(title), &QAction::triggered, this, [this, name = name] { exportChartInteractive(name); });
    addTraceAndReportExports(
        this, m_fileMenu, [this] { return m_controller->session(); }, [this] { return m_gap->activeTable(); },
        exportFeedback());
    m_fileMenu->addSeparator();
    auto *quit = m_fileMenu->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    auto *focusFilter = view->addAction(tr("&Filter"));
    focusFilter->setShortcut(QKeySequence::Find);
    connect(focusFilter, &QAction::triggered, m_table, &EventTableView::focusFilter);
    const QList<QAction *> quickFilters
        = { m_table->delegatedOnlyAction(), m_table->hideFrameworkAction(), m_table->hideOperatorCallsAction() };
    view->addActions(quickFilters);
    view->addSeparator();
    connect(view->addAction(tr("E&xpand All")), &QAction::triggered, m_table->tree(), &QTreeView::expandAll);
    connect(view->addAction(tr("&Collapse All")), &QAction::triggered, m_table->tree(), &QTreeView::collapseAll);
    view->addSeparator();
    auto *reset = view->addAction(tr("&Reset Layout"));
    reset->setToolTip(tr("Put every panel back where a fresh start has it"));
    connect(reset, &QAction::triggered, this, &MainWindow::resetLayout);
    auto *roots = view->addAction(tr("&Source Roots…"));
    roots->setToolTip(tr("Map the folder a model was exported from to a folder on this machine, so stack frames open"));
    connect(roots, &QAction::triggered, this, [this] { editSourceRoots(this, m_options.persistSettings); });
    if (m_options.persistSettings)
        loadSourceRoots();
    m_panelsMenu = view->addMenu(tr("&Panels"));
    const auto docks = findChildren<QDockWidget *>();
    for (QDockWidget *d : docks)
        m_panelsMenu->addAction(d->toggleViewAction());

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
}

void MainWindow::resetLayout()
{
    const auto docks = findChildren<QDockWidget *>();
    for (QDockWidget *d : docks)
        d->setFloating(false);
    restoreState(m_defaultState);
    resize(1500, 920);
    m_table->setDefaultColumnWidths();
}

void MainWindow::restoreSettings()
{
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
    m_restoredState = s.value(QStringLiteral("windowState")).toByteArray();
    if (!restoreState(m_restoredState))
        m_restoredState.clear();
    const QByteArray header = s.value(QStringLiteral("treeHeader")).toByteArray();
    if (!header.isEmpty())
        m_table->tree()->header()->restoreState(header);
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
    s.setValue(QStringLiteral("recentFiles"), m_controller->recentFiles());
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
    else if (const QStringList rest = openPrograms(paths); !rest.isEmpty())
        m_controller->openFiles(rest);
}

QStringList MainWindow::openPrograms(const QStringList &paths)
{
    QStringList rest;
    for (const QString &path : paths) {
        QFile f(path);
        const QByteArray head = f.open(QIODevice::ReadOnly) ? f.read(8) : QByteArray();
        if (looksLikeProgram(reinterpret_cast<const std::uint8_t *>(head.constData()), std::size_t(head.size())))
            m_memory->openProgram(path);
        else
            rest << path;
    }
    return rest;
}

void MainWindow::showSession(const std::shared_ptr<const Session> &session)
{
    hideMessage();
    m_time->show(m_controller->timeConversion());
    m_table->setSession(session);
    m_details->clear();
    m_histogram->clear();
    m_topChart->setSession(session);
    m_timeline->setSession(session);
    m_modules->setSession(session);
    if (!session)
        return;
    setWindowTitle(tr("%1 — etscope").arg(m_controller->displayName(session->inputs.etdump)));
    m_summary->setText(m_controller->summary());
    // Loud (warning colours): a mismatching ETRecord or debug buffer is the first line.
    if (const QString warnings = m_controller->warningsText(); !warnings.isEmpty())
        showMessage(MessageKind::Warning, warnings);
}

void MainWindow::showCurrentEvent(int block, int event)
{
    const auto &session = m_controller->session();
    if (event < 0 || !session) {
        // A block row: its summary (runs, allocation events per allocator).
        if (block >= 0)
            m_details->setBlock(session, block);
        else
            m_details->clear();
        m_histogram->clear();
        return;
    }
    const Event &e = session->blocks[std::size_t(block)].events[std::size_t(event)];
    m_details->setEvent(session, block, event);
    if (const auto rows = m_memory->programRows(block, event); !rows.isEmpty())
        m_details->addSection(tr("Program (etscope, from the .pte)"), rows);
    const QString unit = m_table->model()->unitName();
    if (e.perfData)
        m_histogram->setValues(
            toQString(e.name), e.perfData->raw, e.perfData->p10, e.perfData->p50, e.perfData->p90, unit);
    else
        m_histogram->setValues(toQString(e.name), {}, 0, 0, 0, unit);
    m_timeline->showRuns({}, {});
    m_timeline->highlightEvent(block, event);
}

void MainWindow::showMessage(MessageKind kind, const QString &text, int timeoutMs)
{
    if (kind == MessageKind::Status) {
        statusBar()->showMessage(text, timeoutMs);
        return;
    }
    m_messageBar->showMessage(kind, text);
    if (kind == MessageKind::Error) {
        m_lastError = text;
        // One place for an error: the bar above the table (no dialog, no status-bar copy); it
        // stays until dismissed or until something succeeds.
        statusBar()->clearMessage();
    }
}

void MainWindow::hideMessage()
{
    m_messageBar->hide();
    m_lastError.clear();
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
            if (!m_lastError.isEmpty())
                hideMessage(); // an earlier error is no longer the news
            statusBar()->showMessage(written, 6000);
        } };
}

bool MainWindow::exportChart(const QString &name, const QString &path, QSize size, QString *error)
{
    QWidget *chart = nullptr;
    if (name == QLatin1String("histogram"))
        chart = m_histogram->chartView();
    else if (name == QLatin1String("top-events"))
        chart = m_topChart->chartView();
    else if (name == QLatin1String("timeline"))
        chart = m_timeline->canvas();
    const QString e = chart ? exportChartImage(chart, path, size, name) : path + tr(": no chart named %1").arg(name);
    if (error)
        *error = e;
    return e.isEmpty();
}

void MainWindow::exportChartInteractive(const QString &name)
{
    etscope::exportChartInteractive(
        this, name, m_options.persistSettings,
        [this, name](const QString &path, QSize size) {
            QString error;
            exportChart(name, path, size, &error);
            return error;
        },
        exportFeedback());
}

} // namespace etscope
